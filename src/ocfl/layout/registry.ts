/**
 * Storage layout extensions siard-ocfl can use, by registered name, and reading the layout a
 * storage root declares (`ocfl_layout.json` + `extensions/<name>/config.json`).
 *
 * Every registered storage layout extension: 0002, 0003, 0004, 0006, 0007, 0010 and 0012 (0011,
 * "direct clean path", is not implemented). Adding one is one entry below; docs/layouts.md says
 * what each does with the ids its extension leaves open.
 */
import { UsageError } from '../../errors.js';
import type { ReadStorage } from '../storage/storage.js';
import { FileSystemStorage } from '../storage/fs.js';
import { DifferentialNTupleOmitPrefixLayout, LAYOUT_0010_NAME } from './differential-n-tuple-omit-prefix-layout.js';
import { FlatDirectLayout, LAYOUT_0002_NAME } from './flat-direct-layout.js';
import { FlatOmitPrefixLayout, LAYOUT_0006_NAME } from './flat-omit-prefix-layout.js';
import { HashAndIdNTupleLayout, LAYOUT_0003_NAME } from './hash-and-id-n-tuple-layout.js';
import { HashAndNoPrefixIdNTupleLayout, LAYOUT_0012_NAME } from './hash-and-no-prefix-id-n-tuple-layout.js';
import { HashedNTupleLayout, LAYOUT_0004_NAME } from './hashed-n-tuple-layout.js';
import { LAYOUT_0007_NAME, NTupleOmitPrefixLayout } from './n-tuple-omit-prefix-layout.js';
import type { StorageLayout } from './storage-layout.js';

/**
 * Builds a layout from its parsed config.json (which must name its extension), or from nothing
 * (no config.json: the defaults; 0006 has none and refuses).
 */
export type LayoutFactory = (configJson: unknown | undefined) => Promise<StorageLayout>;

const FACTORIES = new Map<string, LayoutFactory>([
  [LAYOUT_0002_NAME, async (json) => new FlatDirectLayout(json, json !== undefined)],
  [LAYOUT_0003_NAME, (json) => HashAndIdNTupleLayout.load(json, json !== undefined)],
  [LAYOUT_0004_NAME, (json) => HashedNTupleLayout.load(json, json !== undefined)],
  [LAYOUT_0006_NAME, async (json) => new FlatOmitPrefixLayout(json, json !== undefined)],
  [LAYOUT_0007_NAME, async (json) => new NTupleOmitPrefixLayout(json, json !== undefined)],
  [LAYOUT_0010_NAME, async (json) => new DifferentialNTupleOmitPrefixLayout(json, json !== undefined)],
  [LAYOUT_0012_NAME, (json) => HashAndNoPrefixIdNTupleLayout.load(json, json !== undefined)],
]);

export const OCFL_LAYOUT_FILE = 'ocfl_layout.json';

/** What `ocfl_layout.json` says of each layout ("description"): the extension's own overview, shortened. */
const DESCRIPTIONS = new Map<string, string>([
  [LAYOUT_0002_NAME, 'Flat Direct Storage Layout: each object root is a child of the storage root named by the object id itself.'],
  [
    LAYOUT_0003_NAME,
    'Hashed Truncated N-tuple Trees with Object ID Encapsulating Directory: objects lie under n-tuples of the digest of ' +
      'their id, in a folder named by the percent-encoded id.',
  ],
  [
    LAYOUT_0004_NAME,
    'Hashed Truncated N-tuple Trees: objects lie under n-tuples of the digest of their id, in a folder named by the digest.',
  ],
  [
    LAYOUT_0006_NAME,
    'Flat Omit Prefix Storage Layout: each object root is a child of the storage root named by the id without its prefix.',
  ],
  [
    LAYOUT_0007_NAME,
    'N-tuple Omit Prefix Storage Layout: objects lie under n-tuples of their id without its prefix, in a folder named by it.',
  ],
  [
    LAYOUT_0010_NAME,
    'Differential N-tuple Omit Prefix Storage Layout: objects lie under tuples of differing sizes of their id without its prefix.',
  ],
  [
    LAYOUT_0012_NAME,
    'Hashed Truncated N-tuple Trees with Non-prefixed Object ID Encapsulating Directory: objects lie under n-tuples of the ' +
      'digest of their id without its prefix, in a folder named by that part percent-encoded.',
  ],
]);

/** The "description" of ocfl_layout.json for a layout. */
export function layoutDescription(extensionName: string): string {
  return DESCRIPTIONS.get(extensionName) ?? `Storage layout extension ${extensionName}.`;
}

function knownLayoutNames(): string[] {
  return [...FACTORIES.keys()];
}

export function isKnownLayout(extensionName: string): boolean {
  return FACTORIES.has(extensionName);
}

/** The layout of a registered name with its configuration (undefined: the extension's defaults). */
export async function createLayoutByName(extensionName: string, configJson?: unknown): Promise<StorageLayout> {
  const factory = FACTORIES.get(extensionName);
  if (!factory) {
    throw new UsageError(
      `Storage layout extension "${extensionName}" is not supported by siard-ocfl (known: ${knownLayoutNames().join(', ')}).`,
      'UNKNOWN_LAYOUT',
    );
  }
  return factory(configJson);
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
        `(known: ${knownLayoutNames().join(', ')}).`,
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
