/**
 * Purge: an object removed from a storage root entirely, every version (retention ending, a legal
 * removal). Under the object's lock, so no writer is at work on it. Crash safe in this sense: the
 * object's declaration (`0=ocfl_object_1.x`) goes first and is made durable before anything else
 * is removed, so an interrupted purge never leaves a half object that claims to be an object;
 * what remains is a folder without a declaration, which `validate` reports and which running the
 * same purge again removes (it finds the folder by the layout). Then the object's folder, the
 * staging folder a crashed writer may have left for it, and the layout's folders the object leaves
 * empty (empty folders are not allowed in a storage root's hierarchy).
 */
import { SiardOcflError } from '../errors.js';
import { failpoint } from '../failpoint.js';
import { isObjectDeclaration } from './declaration.js';
import type { Workspace } from './commit/workspace.js';
import { loadInventorySummary } from './object/object.js';
import { isObjectStore, type RootStorage, type Storage } from './storage/storage.js';

/** What purge needs of a storage root (root.ts's OcflStorageRoot is one). */
export interface RootToPurge {
  readonly storage: RootStorage;
  readonly location: string;
  /** Where the object with this id lies (a complete object), or undefined. */
  findObject(id: string): Promise<string | undefined>;
  /** Where the layout puts an id; throws for a root without a layout. */
  objectPath(id: string): string;
  readonly layout: unknown;
}

export interface PurgeReport {
  id: string;
  /** the object root that was removed, relative to the storage root */
  path: string;
  /** true when an earlier purge had been interrupted (the object had no declaration any more) */
  resumed: boolean;
}

/** Removes the object `id`; each step told in one sentence. NO_OBJECT when there is none. */
export async function purgeObject(
  root: RootToPurge,
  workspace: Workspace,
  id: string,
  onStep: (sentence: string) => void = () => {},
): Promise<PurgeReport> {
  const lock = await workspace.locks.acquire(id);
  try {
    const found = await locate(root, id);
    const { storage } = root;
    const objectPath = found.path;
    const where = `${root.location}/${objectPath}`;
    if (found.gone && !isObjectStore(storage)) {
      onStep(`Object "${id}" was removed from ${where} already: removing the empty folders above it.`);
      await removeEmptyParents(storage, objectPath);
      return { id, path: objectPath, resumed: true };
    }
    const declarations = (await storage.list(objectPath)).filter((e) => e.isFile && isObjectDeclaration(e.name));
    for (const d of declarations) await storage.remove(`${objectPath}/${d.name}`);
    if (declarations.length > 0) {
      if (!isObjectStore(storage)) await storage.fsyncDir(objectPath);
      onStep(`Removed the declaration of object "${id}" at ${where}: it is no longer an object.`);
    } else {
      onStep(`Object "${id}" at ${where} has no declaration left: finishing an interrupted purge.`);
    }
    await failpoint('purge-declaration-removed');
    lock.assertHeld();
    await storage.remove(objectPath);
    onStep(`Removed ${where} and everything in it.`);
    await failpoint('purge-folder-removed');
    await workspace.storage.remove(workspace.stageDir(id));
    if (!isObjectStore(storage)) await removeEmptyParents(storage, objectPath);
    return { id, path: objectPath, resumed: declarations.length === 0 };
  } finally {
    await lock.release();
  }
}

/** The object's folder: a complete object, or (with a layout) the folder an interrupted purge left. */
async function locate(root: RootToPurge, id: string): Promise<{ path: string; gone?: boolean }> {
  const complete = await root.findObject(id);
  const noObject = () => new SiardOcflError(`Storage root ${root.location} holds no object "${id}".`, { code: 'NO_OBJECT' });
  if (complete !== undefined) {
    const header = await loadInventorySummary(root.storage, complete);
    if (header.id !== id) {
      throw new SiardOcflError(`The object at ${root.location}/${complete} has id "${header.id}", not "${id}"; nothing was removed.`, {
        code: 'ID_MISMATCH',
        exitCode: 1,
      });
    }
    return { path: complete };
  }
  if (!root.layout) throw noObject();
  const placed = root.objectPath(id);
  const st = await root.storage.stat(placed);
  if (!st) {
    // Killed after the object's folder went: only the layout's folders above it may be left, empty.
    const parent = placed.split('/').slice(0, -1).join('/');
    if (
      parent !== '' &&
      !isObjectStore(root.storage) &&
      (await root.storage.stat(parent)) &&
      (await root.storage.list(parent)).length === 0
    )
      return { path: placed, gone: true };
    throw noObject();
  }
  // Only a folder without a declaration is a purge's leftover; a declared folder without an inventory is damage, not ours to remove.
  if (!st.isDirectory) throw noObject();
  const entries = await root.storage.list(placed);
  if (entries.some((e) => isObjectDeclaration(e.name))) {
    throw new SiardOcflError(`The object at ${root.location}/${placed} cannot be read (run validate); nothing was removed.`, {
      code: 'OBJECT_UNREADABLE',
      exitCode: 1,
    });
  }
  return { path: placed };
}

/** Removes the folders above the object that are now empty, up to (not including) the storage root. */
async function removeEmptyParents(storage: Storage, objectPath: string): Promise<void> {
  const parts = objectPath.split('/');
  for (let n = parts.length - 1; n >= 1; n--) {
    const folder = parts.slice(0, n).join('/');
    if ((await storage.list(folder)).length > 0) {
      await storage.fsyncDir(folder);
      return;
    }
    await storage.remove(folder);
  }
  await storage.fsyncDir('');
}
