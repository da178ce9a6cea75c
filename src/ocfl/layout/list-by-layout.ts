/**
 * The objects of a storage root listed by its layout, without opening them: under extension 0003
 * an object's folder lies at depth numberOfTuples and its name is its percent-encoded id, so the
 * ids come from folder names (a root of 10,000 objects: some 23,000 folder listings, no inventory
 * read). A name is taken as an id only when the layout maps that id back to exactly this path
 * (tuples included); a name cut for length (over 100 characters) names no whole id, and only the
 * object's inventory can tell it. Whether a folder holds an object, and the object the id its
 * inventory declares, is for the reader of that object to check.
 *
 * A root whose tree is not the layout's (a folder at a tuple level that is no tuple) is not
 * listed here: the caller scans it (OcflStorageRoot.scanObjects), which finds objects anywhere.
 * The tree is read by the storage's outline: many folders at once, or pages of keys.
 */
import { forEachConcurrent } from '../concurrent.js';
import { isObjectStore, type OutlineEntry, type ReadStorage } from '../storage/storage.js';
import { LAYOUT_0003_NAME, MAX_ENCODED_LENGTH as LONGEST_NAME, type Layout0003Config } from './extensions.js';
import type { StorageLayout } from './storage-layout.js';

export interface LaidOutObject {
  /** the object's folder, relative to the storage root */
  path: string;
  /** the id the folder's name encodes; absent when the name is cut (a long id) or names no id */
  id?: string;
  /** the name is cut for length: the id is the inventory's to tell (and must map to this path) */
  cut?: true;
  /** why the folder is where no id is placed by the layout: one sentence */
  problem?: string;
  /** every key below the folder listed in the pages read (an object store): their bytes, and its inventory's */
  listedBytes?: number;
  listedInventoryBytes?: number;
}

/** First-level folders outlined at once when a folder root is listed progressively. */
const PROGRESSIVE_WIDTH = 4;
/** The event loop is given a turn after this long of listing. */
const YIELD_MS = 10;

/**
 * Every folder where the root's layout puts objects, with the id its name encodes, in no
 * particular order; undefined when the layout has no names to read ids from (not 0003) or the
 * tree is not the layout's. `onFound`: told of the objects as they are found, so a caller can
 * show the first ones while the rest is listed (the list returned is still the whole and final
 * one: a tree found not to be the layout's after some objects were told is undefined). On a
 * folder, the first-level folders are outlined one by one in their order (the first objects come
 * after a few folder listings, and the server answers between them); an object store's outline
 * is one (pages of keys, s3-outline.ts), its objects told page by page as the pages come (a
 * promise `onFound` returns holds the next page), with their sizes where a page held all their keys.
 */
export async function listByLayout(
  storage: ReadStorage,
  layout: StorageLayout | undefined,
  onFound?: (objects: LaidOutObject[]) => void | Promise<void>,
): Promise<LaidOutObject[] | undefined> {
  if (layout?.extensionName !== LAYOUT_0003_NAME) return undefined;
  const { tupleSize, numberOfTuples } = layout.config as unknown as Layout0003Config;
  const tuple = new RegExp(`^[0-9a-f]{${tupleSize}}$`);
  const out: LaidOutObject[] = [];
  let ours = true;
  /** The objects of an outline of `under` ('' or a first-level folder), or false when the tree is not the layout's. */
  const take = (under: string, entries: OutlineEntry[]): LaidOutObject[] | false => {
    const found: LaidOutObject[] = [];
    for (const e of entries) {
      const at = under === '' ? e.path : `${under}/${e.path}`;
      const parts = at.split('/');
      if (parts[0] === 'extensions' || (parts.length === 1 && !e.isDirectory)) continue; // the root's own
      const object = e.isDirectory && parts.length === numberOfTuples + 1;
      // Every folder on the way to an object, to a file or to an empty folder is a tuple, or the tree is not the layout's.
      if (!(object || !e.isDirectory ? parts.slice(0, -1) : parts).every((p) => tuple.test(p))) return false;
      if (object) found.push(withSizes(laidOut(layout, at, parts[parts.length - 1]!), e));
    }
    return found;
  };
  const told = (found: LaidOutObject[] | false): void | Promise<void> => {
    if (found === false) ours = false;
    else if (ours && found.length > 0) {
      out.push(...found);
      return onFound?.(found);
    }
  };
  if (!onFound || numberOfTuples === 0) {
    told(take('', await storage.outline('', numberOfTuples + 1)));
    return ours ? out : undefined;
  }
  if (isObjectStore(storage)) {
    // One outline of pages of keys, many at once: each page's objects told as it comes.
    await storage.outline('', numberOfTuples + 1, (entries) => told(take('', entries)));
    return ours ? out : undefined;
  }
  const top = await storage.outline('', 1);
  const folders = top.filter((e) => e.isDirectory && e.path !== 'extensions').map((e) => e.path);
  folders.sort();
  let yielded = performance.now();
  await forEachConcurrent(folders, PROGRESSIVE_WIDTH, async (folder) => {
    if (!ours) return;
    if (!tuple.test(folder)) ours = false;
    else await told(take(folder, await storage.outline(folder, numberOfTuples)));
    // Folders from the page cache are read synchronously, one promise after another: without a
    // turn of the event loop now and then, no request (nor a timer) is served until the last.
    if (performance.now() - yielded > YIELD_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      yielded = performance.now();
    }
  });
  return ours ? out : undefined;
}

/** An object with the sizes its outline entry holds (an object store's listing). */
function withSizes(o: LaidOutObject, e: OutlineEntry): LaidOutObject {
  if (e.sizes) {
    o.listedBytes = e.sizes.bytes;
    const inventory = e.sizes.files.get('inventory.json');
    if (inventory !== undefined) o.listedInventoryBytes = inventory;
  }
  return o;
}

/** What a folder's name says of the id of the object in it. */
function laidOut(layout: StorageLayout, at: string, name: string): LaidOutObject {
  if (name.length > LONGEST_NAME) {
    // A cut name is the encoded id's first 100 characters, '-' and the id's whole digest.
    const digest = name.slice(LONGEST_NAME + 1);
    const tuples = at.split('/').slice(0, -1).join('');
    if (name[LONGEST_NAME] === '-' && /^[0-9a-f]+$/.test(digest) && digest.startsWith(tuples)) return { path: at, cut: true };
    return { path: at, problem: `The folder name ${name} is no id encoded by the storage layout.` };
  }
  const id = decodeName(name);
  if (id === undefined) return { path: at, problem: `The folder name ${name} is no id encoded by the storage layout.` };
  let placed: string;
  try {
    placed = layout.objectPath(id);
  } catch (err) {
    return { path: at, problem: (err as Error).message };
  }
  if (placed !== at) return { path: at, problem: `The storage layout puts object "${id}" at ${placed}, not here.` };
  return { path: at, id };
}

/**
 * The id a 0003 folder name percent-encodes (its UTF-8 bytes), or undefined when it encodes none
 * (decodeURIComponent refuses bytes that are no UTF-8, surrogates and overlong forms included).
 */
function decodeName(name: string): string | undefined {
  if (!/^(?:[A-Za-z0-9_-]|%[0-9a-f]{2})+$/.test(name)) return undefined;
  try {
    return decodeURIComponent(name);
  } catch {
    return undefined;
  }
}
