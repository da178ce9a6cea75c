/**
 * What a reader of a storage root browses, above the SIARD archives: the objects of a root, the
 * versions of an object, the files of a version and what changed between two versions. Read-only;
 * every path named here is a logical path of a version's state, looked up, never joined to a disk
 * path. Used by the reading room (`serve`).
 */
import { loadInventorySummary, loadSummary, type OcflObjectReader } from '../ocfl/object/object.js';
import type { OcflStorageRoot } from '../ocfl/root.js';
import { isObjectStore, type ReadStorage } from '../ocfl/storage/storage.js';
import { forEachConcurrent } from '../ocfl/concurrent.js';
import { listByLayout } from '../ocfl/layout/list-by-layout.js';

export interface ObjectListing {
  /** the object root, relative to the storage root */
  path: string;
  id?: string;
  head?: string;
  /** the head version's `created` */
  created?: string;
  /** files in the head version's state */
  fileCount?: number;
  /** the object could not be read: one sentence */
  error?: string;
  /**
   * set when the inventory is over LISTING_FULL_READ bytes: no date, no file count, and its head
   * only where its id had to be read (no layout names it)
   */
  inventoryBytes?: number;
  /** bytes the object takes in the root, for an object of at most SIZED_FILES files when its row was shown */
  bytes?: number;
}

/**
 * Inventories up to this size are read whole for the listing (the head's date and file count);
 * a larger one (a million-file object's takes some 600 MB) is not read when the layout's folder
 * name gives its id, else only for its id and head, as `ls` reads it.
 */
const LISTING_FULL_READ = 16 * 1024 * 1024;

/**
 * Objects of up to this many files in their head version are sized for the list by a walk of
 * their folder (a few folder listings, or one page of keys on an object store); a larger one's
 * walk (a million files: seconds) is left to its own page.
 */
export const SIZED_FILES = 10_000;

/** The inventory sidecar's text of the object at `objectPath` (undefined when unreadable): it changes with every version. */
export async function sidecarText(storage: ReadStorage, objectPath: string, algorithm: string): Promise<string | undefined> {
  return storage
    .readFile(`${objectPath}/inventory.json.${algorithm}`)
    .then((b) => b.toString('utf8'))
    .catch(() => undefined);
}

/** What a listing remembers of an object: its entry and the digest of the inventory it was read from. */
export interface KnownObject {
  listing: ObjectListing;
  algorithm: string;
  digest: string;
}

/**
 * Every object of the root, in the root's sorted order, with its head version's date and file
 * count (16 objects read at a time). An object in `known` whose inventory sidecar still names the
 * digest read before is not read again (a listing refreshed reads one small file per object);
 * `known` is updated.
 */
async function listObjects(root: OcflStorageRoot, known: Map<string, KnownObject>): Promise<ObjectListing[]> {
  const out: ObjectListing[] = [];
  for await (const loc of root.scanObjects()) out.push({ path: loc.path });
  await forEachConcurrent(out, 16, async (o, i) => {
    out[i] = await listed(root, o, known);
  });
  return out;
}

/** An object of the root's list: the id it is listed under, or, without one, why (shown with its path). */
export interface IndexedObject {
  path: string;
  id?: string;
  problem?: string;
  /** its row, when the index was made by reading every inventory */
  listing?: ObjectListing;
  /** what the root's listing found its keys to weigh, where it read them all (an object store): every key, the inventory */
  listedBytes?: number;
  listedInventoryBytes?: number;
}

/** The objects of a root in id order (those without an id after them, by path), as the list pages them. */
export interface ObjectIndex {
  objects: IndexedObject[];
  /** true: the ids are the layout's folder names, and an inventory is read only when its row is shown */
  byLayout: boolean;
  /** set while the root is still being listed: these are the objects found so far */
  partial?: true;
}

/**
 * The root's objects by id. Under a layout whose folder names are the ids (0003), no inventory is
 * read, but those of objects whose names are cut for length (list-by-layout.ts); any other root
 * is scanned and every inventory read (16 at a time, `known` as in listObjects). `onFound` (0003
 * only): told of the objects named by their folders as they are found; a promise it returns
 * holds the listing of an object store until it settles.
 */
export async function indexObjects(
  root: OcflStorageRoot,
  known: Map<string, KnownObject> = new Map(),
  onFound?: (objects: IndexedObject[]) => void | Promise<void>,
): Promise<ObjectIndex> {
  const laidOut = await listByLayout(root.storage, root.layout, onFound && ((found) => onFound(found.filter((o) => !o.cut))));
  let objects: IndexedObject[];
  if (laidOut) {
    objects = laidOut;
    await forEachConcurrent(laidOut, 16, async (o, i) => {
      if (o.cut) objects[i] = await cutNameObject(root, o.path);
    });
  } else {
    objects = (await listObjects(root, known)).map((listing) => ({
      path: listing.path,
      ...(listing.id !== undefined ? { id: listing.id } : { problem: listing.error ?? 'unreadable' }),
      listing,
    }));
  }
  return { objects: sortedObjects(objects), byLayout: laidOut !== undefined };
}

/** Objects in the list's order: by id, then those without one by path. */
export function sortedObjects(objects: IndexedObject[]): IndexedObject[] {
  return objects.sort((a, b) =>
    a.id !== undefined && b.id !== undefined
      ? byCodeUnit(a.id, b.id)
      : a.id !== undefined
        ? -1
        : b.id !== undefined
          ? 1
          : byCodeUnit(a.path, b.path),
  );
}

/** An object whose folder name is cut: listed under the id its inventory declares when the layout puts that id here. */
async function cutNameObject(root: OcflStorageRoot, at: string): Promise<IndexedObject> {
  try {
    const { id } = await loadInventorySummary(root.storage, at);
    const placed = root.objectPath(id);
    return placed === at ? { path: at, id } : { path: at, problem: `It holds object "${id}", which the storage layout puts at ${placed}.` };
  } catch (err) {
    return { path: at, problem: (err as Error).message };
  }
}

/** One page of the root's list. */
export interface ObjectsPage {
  /** objects in the root (while it is listed: found so far) */
  total: number;
  /** the root is still being listed: the page is of the objects found so far */
  partial?: true;
  /** objects whose id (or, without one, path) holds the filter */
  matching: number;
  rows: ObjectListing[];
}

/**
 * The objects from `offset` whose id holds `filter`, each with its head, date and file count: the
 * inventories of these objects only are read (or taken from `known`). An object whose inventory
 * declares another id than the one it is listed under is shown by its path, with the two ids.
 * Its bytes are those the root's listing found where it read all its keys (an object store's
 * pages of keys carry sizes), else counted once per inventory read (kept with its row in `known`).
 */
export async function pageOfObjects(
  root: OcflStorageRoot,
  index: ObjectIndex,
  filter: string,
  offset: number,
  limit: number,
  known: Map<string, KnownObject> = new Map(),
): Promise<ObjectsPage> {
  const matching = filter === '' ? index.objects : index.objects.filter((o) => (o.id ?? o.path).includes(filter));
  const shown = matching.slice(offset, offset + limit);
  const rows: ObjectListing[] = new Array(shown.length);
  // Each object read, then sized, on its own: on an object store, whose every request waits for
  // the network, the whole page at once (in two rounds of 16 the first page of 1,000 objects on
  // Ceph RGW took 1.9 s against 0.75 s for every key of the root listed).
  await forEachConcurrent(shown, isObjectStore(root.storage) ? limit : 16, async (o, i) => {
    let r: ObjectListing;
    if (o.listing) r = o.listing;
    else if (o.problem !== undefined) r = { path: o.path, error: o.problem };
    else {
      const read = await listed(root, { path: o.path }, known, o.id, o.listedInventoryBytes);
      r =
        read.id === undefined || read.id === o.id
          ? read
          : { path: o.path, error: `Its folder name encodes the id "${o.id}", but its inventory declares "${read.id}".` };
    }
    // The listing's count is as fresh as the listing (listed again after a while), so not kept in `known`.
    if (r.bytes === undefined && o.listedBytes !== undefined && r.id !== undefined) r = { ...r, bytes: o.listedBytes };
    // Sized once per inventory read: the row is kept in `known` until the object changes.
    else if (r.bytes === undefined && r.fileCount !== undefined && r.fileCount <= SIZED_FILES)
      r.bytes = await bytesUnder(root.storage, r.path).catch(() => undefined);
    rows[i] = r;
  });
  return { total: index.objects.length, matching: matching.length, rows, ...(index.partial ? { partial: true as const } : {}) };
}

/**
 * `named`: the id the layout's folder name gives (then a large inventory is not read);
 * `inventoryBytes`: the inventory's size as the root's listing found it (else asked for).
 */
async function listed(
  root: OcflStorageRoot,
  o: ObjectListing,
  known: Map<string, KnownObject>,
  named?: string,
  inventoryBytes?: number,
): Promise<ObjectListing> {
  const before = known.get(o.path);
  if (before && (await sidecarText(root.storage, o.path, before.algorithm))?.split(/\s/)[0] === before.digest) return before.listing;
  try {
    const size = inventoryBytes ?? (await root.storage.stat(`${o.path}/inventory.json`))?.size ?? 0;
    if (size > LISTING_FULL_READ) {
      // Its id known from its folder's name: nothing read (its head is on the object's page; some 40 s of reading at a million files).
      if (named !== undefined) return { ...o, id: named, inventoryBytes: size };
      const header = await loadInventorySummary(root.storage, o.path);
      Object.assign(o, { id: header.id, head: header.head, inventoryBytes: size });
      const sidecar = await sidecarText(root.storage, o.path, header.digestAlgorithm);
      if (sidecar !== undefined) known.set(o.path, { listing: o, algorithm: header.digestAlgorithm, digest: sidecar.split(/\s/)[0]! });
      return o;
    }
    const { view: inv, digest } = await loadSummary(root.storage, o.path);
    const head = inv.versions().find((v) => v.version === inv.head);
    o.id = inv.id;
    o.head = inv.head;
    if (head) {
      o.created = head.created;
      o.fileCount = head.fileCount;
    }
    known.set(o.path, { listing: o, algorithm: inv.digestAlgorithm, digest });
  } catch (err) {
    o.error = (err as Error).message;
  }
  return o;
}

export interface VersionFile {
  logicalPath: string;
  /** bytes, from the storage (-1: the content file is missing) */
  size: number;
}

/**
 * One page of a version's files in code-unit order (the order of its state), with their sizes;
 * `total` is the version's file count. Only the page's paths are kept: a million-file version's
 * paths are not gathered to be sorted.
 */
export async function versionFiles(
  object: OcflObjectReader,
  version: string,
  offset: number,
  limit: number,
): Promise<{ total: number; files: VersionFile[] }> {
  const state = object.state(version);
  const files: VersionFile[] = [];
  let i = 0;
  for (const logicalPath of state.keys()) {
    if (i++ < offset) continue;
    if (files.length === limit) break;
    files.push({ logicalPath, size: 0 });
  }
  await forEachConcurrent(files, 16, async (f) => {
    f.size = (await object.storage.stat(object.storagePath(object.contentPath(f.logicalPath, version))))?.size ?? -1;
  });
  return { total: state.size, files };
}

export interface VersionDiff {
  added: string[];
  removed: string[];
  /** same logical path, other content */
  changed: string[];
  /** files the same in both */
  unchanged: number;
}

/** What changed from version `a` to version `b` of an object, by logical path and content digest. */
export function diffVersions(object: OcflObjectReader, a: string, b: string): VersionDiff {
  const from = object.state(a);
  const to = object.state(b);
  const diff: VersionDiff = { added: [], removed: [], changed: [], unchanged: 0 };
  for (const [p, digest] of to) {
    const before = from.get(p);
    if (before === undefined) diff.added.push(p);
    else if (before !== digest) diff.changed.push(p);
    else diff.unchanged++;
  }
  for (const p of from.keys()) if (!to.has(p)) diff.removed.push(p);
  diff.added.sort(byCodeUnit);
  diff.removed.sort(byCodeUnit);
  diff.changed.sort(byCodeUnit);
  return diff;
}

/**
 * Bytes under a folder of the root (an object: content, inventories, sidecars): the storage's own
 * count where it has one (a folder read entry after entry, or an object store's keys page after
 * page: a million-file object's listing is never held), else a walk.
 */
export async function bytesUnder(storage: ReadStorage, folder: string): Promise<number> {
  if (storage.bytesUnder) return storage.bytesUnder(folder);
  const walked = await storage.walk(folder);
  return walked.files.reduce((sum, f) => sum + f.size, 0);
}

const byCodeUnit = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
