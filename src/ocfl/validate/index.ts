/**
 * OCFL validation: an object root or a storage root, with the specification's E/W codes.
 * `validatePath` decides which one a folder is; `validateObject` and `validateStorageRoot`
 * insist on one.
 */
import path from 'node:path';
import { UsageError } from '../../errors.js';
import type { ValidationResult } from './findings.js';
import { listDir } from './fs-tree.js';
import { describePath, type ReadStorage } from '../storage/storage.js';
import { isObjectStoreUrl, openStorage } from '../storage/open.js';
import { HashPool } from './hash-pool.js';
import { checkObject, type ObjectCheck } from './object.js';
import { checkStorageRoot, type StorageRootCheck, type StorageRootCheckOptions } from './storage-root.js';

export type { Finding, ValidationResult } from './findings.js';

export interface ValidateOptions {
  /** Verify content and fixity digests (default true). */
  fixity?: boolean;
  /** Progress: an object's content files and bytes are about to be hashed. */
  onPlan?: (files: number, bytes: number) => void;
  /** Progress: content files and bytes hashed (increments). */
  onHashed?: (files: number, bytes: number) => void;
  /** Progress (storage roots): how many objects the hierarchy holds. */
  onObjectsFound?: (count: number) => void;
  /** Progress (storage roots): an object has been validated. */
  onObject?: (relativePath: string) => void;
  /**
   * Start the hashing threads at once, so they boot while the first object's structure is
   * checked (for callers that expect much content, like the CLI). Default: when the first object
   * with enough content to hash is reached (small validations then need no threads at all).
   */
  startWorkers?: boolean;
}

function newPool(options: ValidateOptions): HashPool {
  const pool = new HashPool();
  if (options.startWorkers && options.fixity !== false) pool.prepare(Infinity, Infinity);
  return pool;
}

export type PathKind = 'object' | 'storage-root';

/** A place to validate: a location (folder or s3:// URL), or a path below a storage. */
export type ValidationTarget = string | { storage: ReadStorage; path: string; display?: string };

interface Opened {
  storage: ReadStorage;
  path: string;
  display: string;
}

async function open(target: ValidationTarget): Promise<Opened> {
  if (typeof target !== 'string')
    return { storage: target.storage, path: target.path, display: target.display ?? describePath(target.storage, target.path) };
  return { storage: await openStorage(target), path: '', display: target };
}

async function assertFolder(o: Opened): Promise<void> {
  const st = await o.storage.stat(o.path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
    throw err;
  });
  if (!st) throw new UsageError(`${o.display} does not exist.`, 'NOT_FOUND');
  if (!st.isDirectory)
    throw new UsageError(`${o.display} is not a folder, so it is neither an OCFL object nor a storage root.`, 'NOT_OCFL');
}

/** Which OCFL thing a folder is, judged by its declaration file; undefined when it has none. */
async function ocflKind(o: Opened): Promise<PathKind | undefined> {
  const entries = (await listDir(o.storage, o.path)) ?? [];
  if (entries.some((e) => e.name.startsWith('0=ocfl_object_'))) return 'object';
  if (entries.some((e) => /^0=ocfl_\d/.test(e.name))) return 'storage-root';
  // No declaration: an object if it has an inventory, a root if it has a layout file.
  if (entries.some((e) => e.name === 'inventory.json' || e.name.startsWith('inventory.json.'))) return 'object';
  if (entries.some((e) => e.name === 'ocfl_layout.json')) return 'storage-root';
  return undefined;
}

/** One check (of an object or a storage root) of a folder, with a pool of hashing threads of its own. */
async function validateWith(
  target: ValidationTarget,
  options: ValidateOptions,
  check: (storage: ReadStorage, path: string, options: StorageRootCheckOptions) => Promise<ObjectCheck | StorageRootCheck>,
): Promise<ValidationResult> {
  const o = await open(target);
  await assertFolder(o);
  const pool = newPool(options);
  try {
    const { fixity, onPlan, onHashed, onObjectsFound, onObject } = options;
    const checked = await check(o.storage, o.path, { fixity, pool, display: o.display, onPlan, onHashed, onObjectsFound, onObject });
    const { findings: f, files, bytes } = checked;
    const objects = 'objects' in checked ? checked.objects : 1;
    return { valid: f.valid, errors: f.errors, warnings: f.warnings, objects, files, bytes };
  } finally {
    await pool.close();
  }
}

export function validateObject(target: ValidationTarget, options: ValidateOptions = {}): Promise<ValidationResult> {
  return validateWith(target, options, checkObject);
}

export function validateStorageRoot(target: ValidationTarget, options: ValidateOptions = {}): Promise<ValidationResult> {
  return validateWith(target, options, checkStorageRoot);
}

/** Validates an object root or a storage root; a folder that is neither is a UsageError (exit 2). */
export async function validatePath(p: ValidationTarget, options: ValidateOptions = {}): Promise<ValidationResult> {
  const o = await open(p);
  await assertFolder(o);
  const kind = await ocflKind(o);
  if (kind === 'object') return validateObject(o, options);
  // A root's objects on a folder are checked by threads of their own (object-workers.ts); hashing threads start when needed.
  if (kind === 'storage-root') return validateStorageRoot(o, { ...options, startWorkers: false });
  throw new UsageError(
    `${typeof p === 'string' && !isObjectStoreUrl(p) ? path.resolve(p) : o.display} is neither an OCFL object (no ` +
      `0=ocfl_object_1.x, no inventory.json) nor a storage root (no 0=ocfl_1.x, no ocfl_layout.json).`,
    'NOT_OCFL',
  );
}
