/**
 * Reading the layout a storage root declares (`ocfl_layout.json` + `extensions/<name>/config.json`)
 * among the registered ones siard-ocfl implements (extensions.ts).
 */
import { UsageError } from '../../errors.js';
import type { ReadStorage } from '../storage/storage.js';
import { FileSystemStorage } from '../storage/fs.js';
import { ExtensionLayout, isKnownLayout, LAYOUT_NAMES } from './extensions.js';
import type { StorageLayout } from './storage-layout.js';

export const OCFL_LAYOUT_FILE = 'ocfl_layout.json';

/**
 * The layout of a registered name from its parsed config.json, which must name its extension, or
 * from nothing (no config.json: the defaults; 0006 has none and refuses).
 */
export function createLayoutByName(extensionName: string, configJson?: unknown): Promise<StorageLayout> {
  return ExtensionLayout.load(extensionName, configJson, configJson !== undefined);
}

async function readJson(storage: ReadStorage, rel: string): Promise<unknown | undefined> {
  let bytes: Buffer;
  try {
    bytes = await storage.readFile(rel);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new UsageError(`Cannot read ${rel} in storage root ${storage.location}: ${(err as Error).message}`, 'UNREADABLE', err);
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (err) {
    throw new UsageError(`${rel} in storage root ${storage.location} is not valid UTF-8 JSON.`, 'INVALID_LAYOUT_CONFIG', err);
  }
}

/**
 * The layout a storage root declares. `root` is a folder path or a ReadStorage. A root without
 * ocfl_layout.json, or declaring a layout siard-ocfl does not know, is a clear error; a missing
 * config.json means the extension's defaults.
 */
export async function readLayoutConfig(root: string | ReadStorage): Promise<StorageLayout> {
  const storage = typeof root === 'string' ? new FileSystemStorage(root) : root;
  const declared = await readJson(storage, OCFL_LAYOUT_FILE);
  if (declared === undefined) {
    if (!(await storage.stat(''))) throw new UsageError(`ReadStorage root ${storage.location} does not exist.`, 'NOT_A_STORAGE_ROOT');
    throw new UsageError(
      `ReadStorage root ${storage.location} has no ${OCFL_LAYOUT_FILE}, so where its objects lie is unknown.`,
      'NO_LAYOUT',
    );
  }
  const extension = (declared as { extension?: unknown } | null)?.extension;
  if (typeof extension !== 'string' || extension === '') {
    throw new UsageError(`${OCFL_LAYOUT_FILE} in storage root ${storage.location} has no "extension" name.`, 'INVALID_LAYOUT_CONFIG');
  }
  if (!isKnownLayout(extension)) {
    throw new UsageError(
      `ReadStorage root ${storage.location} uses layout "${extension}", which siard-ocfl does not support ` +
        `(known: ${LAYOUT_NAMES.join(', ')}).`,
      'UNKNOWN_LAYOUT',
    );
  }
  // The name is a registered one (checked above), so it is a safe single path segment.
  const configJson = await readJson(storage, `extensions/${extension}/config.json`);
  try {
    return await createLayoutByName(extension, configJson);
  } catch (err) {
    if (err instanceof UsageError) {
      throw new UsageError(`ReadStorage root ${storage.location}: ${err.message}`, err.code, err);
    }
    throw err;
  }
}
