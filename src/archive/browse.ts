/**
 * What a reader of a storage root browses, above the SIARD archives: the objects of a root, the
 * versions of an object, the files of a version and what changed between two versions. Read-only;
 * every path named here is a logical path of a version's state, looked up, never joined to a disk
 * path. Used by the reading room (`serve`).
 */
import { loadInventoryVersions, type OcflObjectReader } from '../ocfl/object.js';
import type { OcflStorageRoot } from '../ocfl/root.js';
import { forEachConcurrent } from '../ocfl/concurrent.js';

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
}

/** Every object of the root, in the root's sorted order, with its head version's date and file count. */
export async function listObjects(root: OcflStorageRoot): Promise<ObjectListing[]> {
  const locations: string[] = [];
  for await (const loc of root.scanObjects()) locations.push(loc.path);
  const out: ObjectListing[] = locations.map((path) => ({ path }));
  await forEachConcurrent(out, 16, async (o) => {
    try {
      const inv = await loadInventoryVersions(root.storage, o.path);
      const head = inv.versions.find((v) => v.version === inv.head);
      o.id = inv.id;
      o.head = inv.head;
      if (head) {
        o.created = head.created;
        o.fileCount = head.fileCount;
      }
    } catch (err) {
      o.error = (err as Error).message;
    }
  });
  return out;
}

export interface VersionFile {
  logicalPath: string;
  /** bytes, from the storage (-1: the content file is missing) */
  size: number;
}

/** One page of a version's files in code-unit order, with their sizes; `total` is the version's file count. */
export async function versionFiles(
  object: OcflObjectReader,
  version: string,
  offset: number,
  limit: number,
): Promise<{ total: number; files: VersionFile[] }> {
  const paths = [...object.state(version).keys()].sort(byCodeUnit);
  const files: VersionFile[] = paths.slice(offset, offset + limit).map((logicalPath) => ({ logicalPath, size: 0 }));
  await forEachConcurrent(files, 16, async (f) => {
    f.size = (await object.storage.stat(object.storagePath(object.contentPath(f.logicalPath, version))))?.size ?? -1;
  });
  return { total: paths.length, files };
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

/** Bytes the object takes in the root (every file under its object root: content, inventories, sidecars). */
export async function storedBytes(object: OcflObjectReader): Promise<number> {
  const walked = await object.storage.walk(object.path);
  return walked.files.reduce((sum, f) => sum + f.size, 0);
}

const byCodeUnit = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
