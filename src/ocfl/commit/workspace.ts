/**
 * The workspace: a folder on the same filesystem as the storage root, outside its storage
 * hierarchy, where versions are staged, renamed into place when complete, and where the object
 * locks live. Which folder a root uses is decided in workspace-choice.ts: outside the root, or
 * below the root's own extension folder `extensions/siard-ocfl-workspace/` (a root at a mount point).
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { digestSync } from '../digest.js';
import { FileLockProvider, type LockProvider } from '../lock/lock.js';
import type { Storage } from '../storage/storage.js';
import { FileSystemStorage } from '../storage/fs.js';
import { assertWorkspaceOutsideRoot, otherFilesystemError, siblingWorkspaceDir, WORKSPACE_EXTENSION } from './workspace-choice.js';

export interface Workspace {
  storage: Storage;
  locks: LockProvider;
  /** Folder (relative to the workspace storage) where one object's version is staged. */
  stageDir(id: string): string;
  /**
   * Folder (relative to the workspace storage) of an object's resumable work (an interrupted
   * ingest's export, docs/resume.md): never removed by the recovery of a writer, only by the
   * writer that resumes or clears it, or by repair when asked.
   */
  resumeDir(id: string): string;
}

/** The resumable work folder of an object key (the SHA-256 of its id) and the key of such a name. */
export const resumeDirOfKey = (key: string): string => `resume-${key}`;
export const keyOfResumeDir = (name: string): string | undefined => /^resume-([0-9a-f]{64})$/.exec(name)?.[1];

/** The sibling workspace, the default of a root whose parent is on the root's filesystem. */
export const defaultWorkspaceDir = siblingWorkspaceDir;

export async function openWorkspace(root: Storage, rootDir: string, workspaceDir = defaultWorkspaceDir(rootDir)): Promise<Workspace> {
  const absRoot = path.resolve(rootDir);
  const abs = path.resolve(workspaceDir);
  assertWorkspaceOutsideRoot(absRoot, abs);
  let created: string | undefined;
  try {
    created = await fsp.mkdir(abs, { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') throw err;
    throw new UsageError(
      `The workspace ${abs} cannot be created (${code}); choose a writable folder on the storage root's filesystem with ` +
        `--workspace or SIARD_OCFL_WORKSPACE, or remember one for the root ` +
        `in ${path.join(absRoot, 'extensions', WORKSPACE_EXTENSION, 'config.json')}.`,
      'BAD_WORKSPACE',
      err,
    );
  }
  const storage = new FileSystemStorage(abs);
  if (!(await root.canMoveFrom(storage))) {
    if (created) await fsp.rm(created, { recursive: true, force: true }); // refused: leave nothing behind
    throw otherFilesystemError(absRoot, abs);
  }
  return {
    storage,
    locks: new FileLockProvider(path.join(abs, 'locks')),
    stageDir: (id) => `stage-${digestSync('sha256', id)}`,
    resumeDir: (id) => resumeDirOfKey(digestSync('sha256', id)),
  };
}

/**
 * A workspace for a root on an object store: any local folder (nothing is renamed from it into
 * the root; its files are uploaded). Locks are the caller's (lease objects in the store).
 */
export async function openLocalWorkspace(dir: string): Promise<Omit<Workspace, 'locks'>> {
  const abs = path.resolve(dir);
  await fsp.mkdir(abs, { recursive: true });
  return {
    storage: new FileSystemStorage(abs),
    stageDir: (id) => `stage-${digestSync('sha256', id)}`,
    resumeDir: (id) => resumeDirOfKey(digestSync('sha256', id)),
  };
}
