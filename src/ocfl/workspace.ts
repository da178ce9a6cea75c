/**
 * The workspace: a folder on the same filesystem as the storage root but outside its hierarchy,
 * where versions are staged, renamed into place when complete, and where the object locks live.
 * Default: `<parent of root>/.<root name>.siard-ocfl-work/`.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { digestSync } from './digest.js';
import { FileLockProvider, type LockProvider } from './lock.js';
import type { Storage } from './storage.js';
import { FileSystemStorage } from './storage-fs.js';

export interface Workspace {
  storage: Storage;
  locks: LockProvider;
  /** Folder (relative to the workspace storage) where one object's version is staged. */
  stageDir(id: string): string;
}

export function defaultWorkspaceDir(rootDir: string): string {
  const abs = path.resolve(rootDir);
  return path.join(path.dirname(abs), `.${path.basename(abs)}.siard-ocfl-work`);
}

export async function openWorkspace(root: Storage, rootDir: string, workspaceDir = defaultWorkspaceDir(rootDir)): Promise<Workspace> {
  const absRoot = path.resolve(rootDir);
  const abs = path.resolve(workspaceDir);
  const rel = path.relative(absRoot, abs);
  if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) {
    throw new UsageError(`The workspace ${abs} lies inside the storage root ${absRoot}; it must be outside it.`, 'BAD_WORKSPACE');
  }
  await fsp.mkdir(abs, { recursive: true });
  const storage = new FileSystemStorage(abs);
  if (!(await root.canMoveFrom(storage))) {
    throw new UsageError(
      `The workspace ${abs} is on another filesystem than the storage root ${absRoot}; versions could not be renamed into place atomically.`,
      'BAD_WORKSPACE',
    );
  }
  return {
    storage,
    locks: new FileLockProvider(path.join(abs, 'locks')),
    stageDir: (id) => `stage-${digestSync('sha256', id)}`,
  };
}
