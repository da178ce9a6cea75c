/**
 * Repair without writing a version: for each object, take its lock and run the recovery its next
 * writer would run (commit.ts: roll back an unlisted newer version folder, finish a stale root
 * sidecar, remove the object's staging folder), and clear the workspace of what crashed writers
 * of objects that never came to exist left (staging folders, locks of dead processes).
 * A lock held by a live writer is reported, never waited for or broken.
 */
import path from 'node:path';
import { LockHeldError, SiardOcflError } from '../../errors.js';
import { giveBackAdopted } from './adopted-trees.js';
import { recoverObject } from './commit.js';
import type { CommitContext, RecoveryAction } from './context.js';
import { digestSync } from '../digest.js';
import { FileLockProvider, type ObjectLock } from '../lock/lock.js';
import { LeaseLockProvider } from '../lock/lease.js';
import { loadInventorySummary, loadSummary } from '../object/object.js';
import type { RootStorage } from '../storage/storage.js';
import { keyOfResumeDir, resumeDirOfKey, type Workspace } from './workspace.js';

/** What repair needs of a storage root (root.ts's OcflStorageRoot, which calls repair, is one). */
export interface RootToRepair {
  readonly storage: RootStorage;
  readonly location: string;
  /** Object root of an id, relative to the storage root; throws for a bad id or a root without layout. */
  objectPath(id: string): string;
  /** Every object root under the storage root. */
  scanObjects(): AsyncIterable<{ path: string }>;
}

export interface RepairAction {
  kind: RecoveryAction['kind'] | 'removed-dead-lock' | 'removed-resumable';
  /** Absolute path of what was removed, rolled back or rewritten. */
  path: string;
}

/**
 * clean: nothing needed; repaired: actions were taken; locked: a live writer holds the lock;
 * failed: the object could not be read or repaired (message says why; run validate).
 */
export type RepairStatus = 'clean' | 'repaired' | 'locked' | 'failed';

export interface ObjectRepairReport {
  /** Object id; undefined for leftovers of an unknown id (a crashed creation). */
  id?: string;
  /** Object root relative to the storage root, when known. */
  objectPath?: string;
  status: RepairStatus;
  actions: RepairAction[];
  message?: string;
  /**
   * An interrupted ingest's resumable work (docs/resume.md), kept: the folder and its bytes. Repair
   * never removes it unless asked (discardResumable), and never while its writer holds the lock.
   */
  resumable?: { path: string; bytes: number };
}

export interface RepairOptions {
  /** also remove the resumable work of interrupted ingests whose writer is gone (the next ingest then starts over) */
  discardResumable?: boolean;
}

export interface RootRepairReport {
  root: string;
  workspace: string;
  objects: ObjectRepairReport[];
  repaired: number;
  locked: number;
  failed: number;
}

function lockLocation(ws: Workspace, id: string): string {
  return ws.locks instanceof FileLockProvider ? ws.locks.lockPath(id) : `lock of "${id}"`;
}

/** The bytes of the files under a folder of the workspace. */
async function bytesUnder(ws: Workspace, dir: string): Promise<number> {
  let bytes = 0;
  for (const e of await ws.storage.list(dir)) {
    const child = `${dir}/${e.name}`;
    bytes += e.isDirectory ? await bytesUnder(ws, child) : ((await ws.storage.stat(child))?.size ?? 0);
  }
  return bytes;
}

/**
 * The resumable work of a writer that is gone (its lock is ours now): kept and reported, or removed
 * when asked (an action).
 */
async function settleResumable(
  ws: Workspace,
  dir: string,
  options: RepairOptions,
  actions: RepairAction[],
): Promise<ObjectRepairReport['resumable']> {
  if (!(await ws.storage.stat(dir))) return undefined;
  if (options.discardResumable) {
    await ws.storage.remove(dir);
    actions.push({ kind: 'removed-resumable', path: `${ws.storage.location}/${dir}` });
    return undefined;
  }
  return { path: `${ws.storage.location}/${dir}`, bytes: await bytesUnder(ws, dir) };
}

/** Recovers one object under a lock already taken. */
async function recoverLocked(
  root: RootToRepair,
  ws: Workspace,
  id: string,
  lock: ObjectLock,
  options: RepairOptions,
): Promise<ObjectRepairReport> {
  const objectPath = root.objectPath(id);
  const actions: RepairAction[] = lock.tookOverDeadLock ? [{ kind: 'removed-dead-lock', path: lockLocation(ws, id) }] : [];
  const ctx: CommitContext = { root: root.storage, workspace: ws.storage, stage: ws.stageDir(id), objectPath, id };
  const recovered: RecoveryAction[] = [];
  try {
    const loaded = await recoverObject(ctx, recovered, loadSummary);
    if (loaded && loaded.view.id !== id) {
      throw new SiardOcflError(`The object path of "${id}", ${root.location}/${objectPath}, holds object "${loaded.view.id}".`, {
        code: 'ID_MISMATCH',
        exitCode: 1,
      });
    }
  } finally {
    for (const a of recovered) {
      const base = a.kind === 'removed-staging' ? ws.storage.location : root.location;
      actions.push({ kind: a.kind, path: `${base}/${a.path}` });
    }
  }
  const resumable = await settleResumable(ws, ws.resumeDir(id), options, actions);
  return { id, objectPath, status: actions.length > 0 ? 'repaired' : 'clean', actions, ...(resumable ? { resumable } : {}) };
}

/** Repairs one object; LockHeldError when a live writer holds its lock. */
export async function repairObject(
  root: RootToRepair,
  ws: Workspace,
  id: string,
  options: RepairOptions = {},
): Promise<ObjectRepairReport> {
  const lock = await ws.locks.acquire(id);
  try {
    return await recoverLocked(root, ws, id, lock, options);
  } finally {
    await lock.release();
  }
}

/** repairObject for a report: a held lock or a damaged object becomes a status, not a throw. */
async function repairReported(
  root: RootToRepair,
  ws: Workspace,
  id: string,
  options: RepairOptions,
  objectPath?: string,
): Promise<ObjectRepairReport> {
  try {
    return await repairObject(root, ws, id, options);
  } catch (err) {
    const status: RepairStatus = err instanceof LockHeldError ? 'locked' : 'failed';
    const report: ObjectRepairReport = { id, objectPath, status, actions: [], message: (err as Error).message };
    // a living writer's resumable work is its own: reported, never touched
    const dir = ws.resumeDir(id);
    if (status === 'locked' && (await ws.storage.stat(dir)))
      report.resumable = { path: `${ws.storage.location}/${dir}`, bytes: await bytesUnder(ws, dir) };
    return report;
  }
}

/** Staging folders and locks in the workspace that belong to none of `knownKeys`. */
async function leftoverKeys(ws: Workspace, locks: FileLockProvider, knownKeys: Set<string>): Promise<string[]> {
  const keys = new Set(await locks.keys());
  for (const e of await ws.storage.list('')) {
    const key = /^stage-([0-9a-f]{64})$/.exec(e.name)?.[1] ?? keyOfResumeDir(e.name);
    if (key && e.isDirectory) keys.add(key);
  }
  return [...keys].filter((k) => !knownKeys.has(k)).sort();
}

/** Leftovers of a writer whose id is unknown: under its lock, remove its staging folder. */
async function repairLeftover(ws: Workspace, locks: FileLockProvider, key: string, options: RepairOptions): Promise<ObjectRepairReport> {
  const label = `(unknown id, key ${key.slice(0, 12)}...)`;
  let lock: ObjectLock;
  try {
    lock = await locks.acquireKey(key, label);
  } catch (err) {
    if (err instanceof LockHeldError) {
      const dir = resumeDirOfKey(key);
      const resumable = (await ws.storage.stat(dir))
        ? { path: `${ws.storage.location}/${dir}`, bytes: await bytesUnder(ws, dir) }
        : undefined;
      return { status: 'locked', actions: [], message: err.message, ...(resumable ? { resumable } : {}) };
    }
    throw err;
  }
  try {
    const actions: RepairAction[] = lock.tookOverDeadLock
      ? [{ kind: 'removed-dead-lock', path: path.join(locks.lockDir, `${key}.lock`) }]
      : [];
    const stage = `stage-${key}`;
    if (await ws.storage.stat(stage)) {
      await giveBackAdopted(ws.storage, stage);
      await ws.storage.remove(stage);
      actions.push({ kind: 'removed-staging', path: `${ws.storage.location}/${stage}` });
    }
    const resumable = await settleResumable(ws, resumeDirOfKey(key), options, actions);
    return { status: actions.length > 0 ? 'repaired' : 'clean', actions, ...(resumable ? { resumable } : {}) };
  } finally {
    await lock.release();
  }
}

/**
 * Repairs the objects named by `ids`, or (none given) every object under the root and then the
 * workspace's leftovers of objects that do not exist.
 */
export async function repairRoot(
  root: RootToRepair,
  ws: Workspace,
  ids?: string[],
  options: RepairOptions = {},
): Promise<RootRepairReport> {
  const objects: ObjectRepairReport[] = [];
  if (ids && ids.length > 0) {
    for (const id of ids) {
      root.objectPath(id); // a bad id or a root without layout is a usage error, not a report line
      objects.push(await repairReported(root, ws, id, options));
    }
  } else {
    const known = new Set<string>();
    for await (const loc of root.scanObjects()) {
      let id: string;
      try {
        id = (await loadInventorySummary(root.storage, loc.path)).id;
      } catch (err) {
        objects.push({ objectPath: loc.path, status: 'failed', actions: [], message: (err as Error).message });
        continue;
      }
      known.add(digestSync('sha256', id));
      objects.push(await repairReported(root, ws, id, options, loc.path));
    }
    if (ws.locks instanceof LeaseLockProvider) {
      // On an object store a creation killed before its declaration is found by its lease.
      for (const id of await ws.locks.ids()) {
        if (known.has(digestSync('sha256', id))) continue;
        known.add(digestSync('sha256', id));
        objects.push(await repairReported(root, ws, id, options));
      }
    }
    if (ws.locks instanceof FileLockProvider) {
      for (const key of await leftoverKeys(ws, ws.locks, known)) objects.push(await repairLeftover(ws, ws.locks, key, options));
    }
  }
  const count = (s: RepairStatus) => objects.filter((o) => o.status === s).length;
  return {
    root: root.location,
    workspace: ws.storage.location,
    objects,
    repaired: count('repaired'),
    locked: count('locked'),
    failed: count('failed'),
  };
}
