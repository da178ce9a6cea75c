/**
 * Which workspace a storage root uses: the one given (an option or the environment, as the
 * caller decides), else the one remembered for the root in its local extension folder
 * `extensions/siard-ocfl-workspace/config.json`, else the default: the sibling folder when the
 * root's parent is on the root's filesystem, else `extensions/siard-ocfl-workspace/work` inside
 * the root (a root at a mount point). The default depends on devices only, never on who runs the
 * command: the workspace holds the object locks, and writers that use different workspaces would
 * not exclude each other. `init` checks a workspace before it creates anything (checkWorkspace)
 * and remembers any workspace other than that default.
 */
import { constants, promises as fsp } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../errors.js';
import type { Storage } from '../storage/storage.js';

/** Our local storage-root extension (documented in extensions/siard-ocfl-workspace/README.md). */
export const WORKSPACE_EXTENSION = 'siard-ocfl-workspace';
export const WORKSPACE_SETTING = `extensions/${WORKSPACE_EXTENSION}/config.json`;
/** The workspace inside the root, relative to it: on the root's filesystem wherever the root is. */
const IN_ROOT_WORKSPACE = `extensions/${WORKSPACE_EXTENSION}/work`;

export type WorkspaceSource = 'given' | 'remembered' | 'default';

export interface WorkspaceChoice {
  dir: string;
  source: WorkspaceSource;
  /** The workspace the root uses when none is given (remembered or default). */
  usual: string;
}

/** `<parent of root>/.<root name>.siard-ocfl-work/`. */
export function siblingWorkspaceDir(rootDir: string): string {
  const abs = path.resolve(rootDir);
  return path.join(path.dirname(abs), `.${path.basename(abs)}.siard-ocfl-work`);
}

function inRootWorkspaceDir(rootDir: string): string {
  return path.join(path.resolve(rootDir), ...IN_ROOT_WORKSPACE.split('/'));
}

/** Whether `dir` lies strictly below the root's workspace extension folder. */
function isInWorkspaceExtension(rootDir: string, dir: string): boolean {
  const rel = path.relative(path.join(path.resolve(rootDir), 'extensions', WORKSPACE_EXTENSION), path.resolve(dir));
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** Whether the absolute path `abs` is the root `absRoot` or below it. */
function isInRoot(absRoot: string, abs: string): boolean {
  const rel = path.relative(absRoot, abs);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Refuses a workspace inside the root but not below its workspace extension folder (absolute paths). */
export function assertWorkspaceOutsideRoot(absRoot: string, abs: string): void {
  if (!isInRoot(absRoot, abs) || isInWorkspaceExtension(absRoot, abs)) return;
  throw new UsageError(
    `The workspace ${abs} lies inside the storage root ${absRoot}; choose a folder outside it, or ` +
      `below ${path.join(absRoot, 'extensions', WORKSPACE_EXTENSION)}.`,
    'BAD_WORKSPACE',
  );
}

/** The refusal of a workspace on another filesystem than the root (absolute paths). */
export function otherFilesystemError(absRoot: string, abs: string): UsageError {
  return new UsageError(
    `The workspace ${abs} is on another filesystem than the storage root ${absRoot}, so versions could not be published ` +
      `atomically; choose one on the root's filesystem, such as ${inRootWorkspaceDir(absRoot)}.`,
    'BAD_WORKSPACE',
  );
}

/** The nearest existing folder at or above `p`, with its device. */
async function nearestExisting(p: string): Promise<{ dir: string; dev: number; isDirectory: boolean }> {
  for (let dir = path.resolve(p); ; dir = path.dirname(dir)) {
    const st = await fsp.stat(dir).catch(() => undefined);
    if (st) return { dir, dev: st.dev, isDirectory: st.isDirectory() };
    if (path.dirname(dir) === dir) throw new UsageError(`No folder of ${p} exists.`, 'BAD_WORKSPACE');
  }
}

/** The default workspace of an existing root (see the top of this file). */
async function defaultWorkspaceOf(rootDir: string): Promise<string> {
  const abs = path.resolve(rootDir);
  const [root, parent] = await Promise.all([fsp.stat(abs), fsp.stat(path.dirname(abs))]);
  return root.dev === parent.dev ? siblingWorkspaceDir(abs) : inRootWorkspaceDir(abs);
}

/** The remembered workspace (absolute), or undefined when the root remembers none. */
async function rememberedWorkspace(root: Storage, rootDir: string): Promise<string | undefined> {
  if (!(await root.stat(WORKSPACE_SETTING))) return undefined;
  let value: unknown;
  try {
    value = (JSON.parse((await root.readFile(WORKSPACE_SETTING)).toString('utf8')) as { workspace?: unknown }).workspace;
  } catch {
    value = undefined;
  }
  if (typeof value !== 'string' || value === '') {
    throw new UsageError(
      `${path.join(path.resolve(rootDir), WORKSPACE_SETTING)} holds no "workspace" path; correct or remove it.`,
      'BAD_WORKSPACE',
    );
  }
  return path.resolve(rootDir, value);
}

/** The setting that remembers `workspaceDir` for the root: relative when inside the root, so the root can move. */
export function workspaceSetting(rootDir: string, workspaceDir: string): string {
  const abs = path.resolve(workspaceDir);
  const value = isInWorkspaceExtension(rootDir, abs) ? path.relative(path.resolve(rootDir), abs).split(path.sep).join('/') : abs;
  return JSON.stringify({ workspace: value }, null, 2) + '\n';
}

/** given > remembered > default. */
export async function chooseWorkspace(root: Storage, rootDir: string, given?: string): Promise<WorkspaceChoice> {
  const remembered = await rememberedWorkspace(root, rootDir);
  const usual = remembered ?? (await defaultWorkspaceOf(rootDir));
  if (given !== undefined && given !== '') return { dir: path.resolve(given), source: 'given', usual };
  return { dir: usual, source: remembered ? 'remembered' : 'default', usual };
}

/**
 * The workspace `init` gives a new root when none is given: the sibling when the root's parent
 * is writable and on the root's filesystem (a root not yet created will be), else the folder
 * inside the root. `remember` is true for the latter (the default of an existing root would be
 * the sibling when only writability excluded it).
 */
export async function initialWorkspace(rootDir: string): Promise<{ dir: string; remember: boolean }> {
  const abs = path.resolve(rootDir);
  const root = await fsp.stat(abs).catch(() => undefined);
  const parent = await fsp.stat(path.dirname(abs)).catch(() => undefined);
  const writable = await fsp.access(path.dirname(abs), constants.W_OK).then(
    () => true,
    () => false,
  );
  if (!root || (parent && parent.dev === root.dev && writable)) return { dir: siblingWorkspaceDir(abs), remember: false };
  return { dir: inRootWorkspaceDir(abs), remember: true };
}

/**
 * Checks, before anything is created, that `workspaceDir` can serve the root at `rootDir` (which
 * may not exist yet): outside the root or below its workspace extension folder, a folder (or
 * creatable in one) this process can write, on the root's filesystem. One-sentence UsageError.
 */
export async function checkWorkspace(rootDir: string, workspaceDir: string): Promise<void> {
  const absRoot = path.resolve(rootDir);
  const abs = path.resolve(workspaceDir);
  assertWorkspaceOutsideRoot(absRoot, abs);
  if (isInRoot(absRoot, abs)) return; // created inside the root, on its filesystem; the root's own checks apply
  const at = await nearestExisting(abs);
  if (!at.isDirectory) throw new UsageError(`The workspace ${abs} cannot be made: ${at.dir} is a file.`, 'BAD_WORKSPACE');
  const writable = await fsp.access(at.dir, constants.W_OK | constants.X_OK).then(
    () => true,
    () => false,
  );
  if (!writable) throw new UsageError(`The workspace ${abs} cannot be used: ${at.dir} is not writable for this user.`, 'BAD_WORKSPACE');
  const rootAt = await nearestExisting(absRoot);
  if (rootAt.dev !== at.dev) throw otherFilesystemError(absRoot, abs);
}
