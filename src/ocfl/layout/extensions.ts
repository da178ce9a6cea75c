/**
 * The registered storage layout extensions siard-ocfl implements, as data: each one's name, what
 * ocfl_layout.json says of it, its parameters (checked, defaults filled in, layout-config.ts) and
 * its mapping of an id to an object root; one layout class reads them all. Adding a layout is one
 * entry in EXTENSIONS. 0011, "direct clean path", is not implemented; docs/layouts.md says what
 * each does with the ids its extension leaves open. Tests: every worked example of each extension
 * document (../shared/reference/ocfl-extensions), test/unit/ocfl/layout/extensions.*.test.ts.
 */
import { UsageError } from '../../errors.js';
import { DIGEST_HEX_LENGTH } from '../digest.js';
import { assertIdDigestReady, idDigestSync, loadIdDigest } from './id-digest.js';
import {
  booleanParameter,
  configObject,
  delimiterValue,
  digestTuplesParameters,
  integerParameter,
  layoutConfigError,
} from './layout-config.js';
import { assertAsciiId, assertValidObjectId, omitPrefix, safeObjectPath, tupleFolders, unmappableId } from './object-id-rules.js';
import type { StorageLayout } from './storage-layout.js';

export const LAYOUT_0002_NAME = '0002-flat-direct-storage-layout';
export const LAYOUT_0003_NAME = '0003-hash-and-id-n-tuple-storage-layout';
export const LAYOUT_0004_NAME = '0004-hashed-n-tuple-storage-layout';
export const LAYOUT_0006_NAME = '0006-flat-omit-prefix-storage-layout';
export const LAYOUT_0007_NAME = '0007-n-tuple-omit-prefix-storage-layout';
export const LAYOUT_0010_NAME = '0010-differential-n-tuple-omit-prefix-storage-layout';
export const LAYOUT_0012_NAME = '0012-hash-and-no-prefix-id-n-tuple-storage-layout';

type Given = Record<string, unknown>;

export interface Layout0003Config {
  extensionName: typeof LAYOUT_0003_NAME;
  digestAlgorithm: string;
  tupleSize: number;
  numberOfTuples: number;
}

/** One extension: its parameters from a configuration object (`given`), and its mapping (the id is valid: assertValidObjectId). */
interface Extension<C extends object = Given> {
  /** Its class name in @ocfl/ocfl (ocfl-js-plugin.ts files ours under the same one). */
  className: string;
  /** The "description" of ocfl_layout.json: the extension's own overview, shortened. */
  description: string;
  parameters(given: Given): C;
  objectPath(config: C, id: string): string;
}

/** 0003's encapsulation names longer than this are cut and get the digest appended. */
export const MAX_ENCODED_LENGTH = 100;

/**
 * 0003, exactly as its text and Python code define it (seeds/001_41b28a7f90922e42.txt; vectors
 * spec/0003-vectors.json): id -> UTF-8 -> digest -> numberOfTuples folders of tupleSize characters
 * -> the id with A-Z a-z 0-9 '-' '_' kept and every other UTF-8 byte as lower-case %xx, cut to its
 * first 100 characters (even inside an escape, as the Python does) + '-' + the digest when longer.
 */
function hashAndIdPath(config: Omit<Layout0003Config, 'extensionName'>, id: string): string {
  const utf8 = Buffer.from(id, 'utf8');
  const digest = idDigestSync(config.digestAlgorithm, utf8);
  // The safe characters are ASCII, so working per byte equals the Python's per-character loop.
  let encoded = '';
  for (const b of utf8) {
    const c = String.fromCharCode(b);
    encoded += /[\w-]/.test(c) ? c : `%${b.toString(16).padStart(2, '0')}`;
  }
  const name = encoded.length > MAX_ENCODED_LENGTH ? `${encoded.slice(0, MAX_ENCODED_LENGTH)}-${digest}` : encoded;
  return [...tupleFolders(digest, config.tupleSize, config.numberOfTuples), name].join('/');
}

/**
 * 0012's id without its prefix, as the extension's `_remove_prefixes` computes it: cut after the
 * right-most occurrence of any delimiter (case-sensitive, unlike 0006/0007/0010); one that ends
 * the id is ignored (so something is always left).
 */
export function removePrefixes(id: string, delimiters: readonly string[]): string {
  // The search ends before the id's last character (code point): a delimiter there is ignored.
  const end = id.length - (id.codePointAt(id.length - 1)! > 0xffff ? 2 : 1);
  let cut = -1;
  for (const delimiter of delimiters) {
    const from = end - delimiter.length;
    if (from < 0) continue;
    const at = id.lastIndexOf(delimiter, from);
    if (at >= 0) cut = Math.max(cut, at + delimiter.length);
  }
  return cut > 0 ? id.slice(cut) : id;
}

/** 0010's tupleSegmentSizes: whole numbers of 1 or more; not none, which only an empty id (no id) would match. */
function segmentSizes(value: unknown): number[] {
  const sizes = value ?? [2, 3, 2, 4];
  if (!Array.isArray(sizes) || sizes.length === 0 || !sizes.every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 1)) {
    throw layoutConfigError(
      LAYOUT_0010_NAME,
      `tupleSegmentSizes must be a non-empty array of whole numbers of 1 or more, not ${JSON.stringify(sizes)}.`,
    );
  }
  return [...(sizes as number[])];
}

/** A table entry, its config type inferred from `parameters`. */
const extension = <C extends object>(e: Extension<C>): Extension => e as unknown as Extension;

/** Every registered layout siard-ocfl implements, by name. */
const EXTENSIONS = new Map<string, Extension>([
  [
    // The id, unchanged; ids that are no safe folder name are refused, as the extension's Example 2 says.
    LAYOUT_0002_NAME,
    extension({
      className: 'FlatDirectStorageLayout',
      description: 'Flat Direct Storage Layout: each object root is a child of the storage root named by the object id itself.',
      parameters: () => ({}),
      objectPath: (_, id) => safeObjectPath(LAYOUT_0002_NAME, id, [id]),
    }),
  ],
  [
    LAYOUT_0003_NAME,
    extension({
      className: 'HashAndIdNTupleStorageLayout',
      description:
        'Hashed Truncated N-tuple Trees with Object ID Encapsulating Directory: objects lie under n-tuples of the digest of ' +
        'their id, in a folder named by the percent-encoded id.',
      // Defaults sha256, 3, 3; tuples of any size the digest holds.
      parameters: (given) => digestTuplesParameters(LAYOUT_0003_NAME, given, Infinity),
      objectPath: hashAndIdPath,
    }),
  ],
  [
    // id -> digest -> numberOfTuples folders of tupleSize characters -> the digest, or (shortObjectRoot) what the tuples left.
    LAYOUT_0004_NAME,
    extension({
      className: 'HashedNTupleStorageLayout',
      description: 'Hashed Truncated N-tuple Trees: objects lie under n-tuples of the digest of their id, in a folder named by the digest.',
      parameters: (given) => {
        const tuples = digestTuplesParameters(LAYOUT_0004_NAME, given);
        const shortObjectRoot = booleanParameter(LAYOUT_0004_NAME, given, 'shortObjectRoot', false);
        const digestLength = DIGEST_HEX_LENGTH[tuples.digestAlgorithm];
        if (shortObjectRoot && tuples.tupleSize * tuples.numberOfTuples === digestLength) {
          const why = `shortObjectRoot must be false when the tuples use the whole ${digestLength}-character digest.`;
          throw layoutConfigError(LAYOUT_0004_NAME, why);
        }
        return { ...tuples, shortObjectRoot };
      },
      objectPath: ({ digestAlgorithm, tupleSize, numberOfTuples, shortObjectRoot }, id) => {
        const digest = idDigestSync(digestAlgorithm, Buffer.from(id, 'utf8'));
        const root = shortObjectRoot ? digest.slice(tupleSize * numberOfTuples) : digest;
        return [...tupleFolders(digest, tupleSize, numberOfTuples), root].join('/');
      },
    }),
  ],
  [
    // The id without its prefix (omitPrefix: case-insensitive; left open by 0006, decided as 0007 and 0010 say).
    LAYOUT_0006_NAME,
    extension({
      className: 'FlatOmitPrefixStorageLayout',
      description: 'Flat Omit Prefix Storage Layout: each object root is a child of the storage root named by the id without its prefix.',
      parameters: (given) => {
        if (given.delimiter === undefined) {
          throw layoutConfigError(LAYOUT_0006_NAME, 'the extension has no default "delimiter"; the configuration must give one.');
        }
        return { delimiter: delimiterValue(LAYOUT_0006_NAME, 'delimiter', given.delimiter) };
      },
      objectPath: ({ delimiter }, id) => safeObjectPath(LAYOUT_0006_NAME, id, [omitPrefix(LAYOUT_0006_NAME, id, delimiter)]),
    }),
  ],
  [
    // ASCII ids: without prefix -> zero-padded to tupleSize x numberOfTuples -> reversed when asked -> tuples, then the id without prefix.
    LAYOUT_0007_NAME,
    extension({
      className: 'NTupleOmitPrefixStorageLayout',
      description:
        'N-tuple Omit Prefix Storage Layout: objects lie under n-tuples of their id without its prefix, in a folder named by it.',
      parameters: (given) => {
        const zeroPadding = given.zeroPadding ?? 'left';
        if (zeroPadding !== 'left' && zeroPadding !== 'right') {
          throw layoutConfigError(LAYOUT_0007_NAME, `zeroPadding must be "left" or "right", not ${JSON.stringify(zeroPadding)}.`);
        }
        return {
          delimiter: delimiterValue(LAYOUT_0007_NAME, 'delimiter', given.delimiter ?? ':'),
          tupleSize: integerParameter(LAYOUT_0007_NAME, given, 'tupleSize', 3, 1, 32),
          numberOfTuples: integerParameter(LAYOUT_0007_NAME, given, 'numberOfTuples', 3, 1, 32),
          zeroPadding: zeroPadding as 'left' | 'right',
          reverseObjectRoot: booleanParameter(LAYOUT_0007_NAME, given, 'reverseObjectRoot', false),
        };
      },
      objectPath: ({ delimiter, tupleSize, numberOfTuples, zeroPadding, reverseObjectRoot }, id) => {
        assertAsciiId(LAYOUT_0007_NAME, id);
        const rest = omitPrefix(LAYOUT_0007_NAME, id, delimiter);
        const length = tupleSize * numberOfTuples;
        let padded = zeroPadding === 'left' ? rest.padStart(length, '0') : rest.padEnd(length, '0');
        if (reverseObjectRoot) padded = [...padded].reverse().join('');
        return safeObjectPath(LAYOUT_0007_NAME, id, [...tupleFolders(padded, tupleSize, numberOfTuples), rest]);
      },
    }),
  ],
  [
    // ASCII ids whose parts differ in length (DRUIDs: bc123df5678 -> bc/123/df/5678): without prefix, cut into
    // segments of tupleSegmentSizes, which must add up to its length; then the id without prefix when asked.
    LAYOUT_0010_NAME,
    extension({
      className: 'DifferentialNTupleOmitPrefixStorageLayout',
      description:
        'Differential N-tuple Omit Prefix Storage Layout: objects lie under tuples of differing sizes of their id without its prefix.',
      parameters: (given) => ({
        delimiter: delimiterValue(LAYOUT_0010_NAME, 'delimiter', given.delimiter ?? ':'),
        tupleSegmentSizes: segmentSizes(given.tupleSegmentSizes),
        fullIdentifierAsObjectRoot: booleanParameter(LAYOUT_0010_NAME, given, 'fullIdentifierAsObjectRoot', false),
      }),
      objectPath: ({ delimiter, tupleSegmentSizes, fullIdentifierAsObjectRoot }, id) => {
        assertAsciiId(LAYOUT_0010_NAME, id);
        const rest = omitPrefix(LAYOUT_0010_NAME, id, delimiter);
        const total = tupleSegmentSizes.reduce((sum, n) => sum + n, 0);
        if (rest.length !== total) {
          const sizes = `[${tupleSegmentSizes.join(', ')}]`;
          const why = `without its prefix it is ${rest.length} characters long, and tupleSegmentSizes ${sizes} need exactly ${total}`;
          throw unmappableId(LAYOUT_0010_NAME, id, why);
        }
        const segments: string[] = [];
        for (let at = 0, i = 0; i < tupleSegmentSizes.length; at += tupleSegmentSizes[i++]!) {
          segments.push(rest.slice(at, at + tupleSegmentSizes[i]!));
        }
        if (fullIdentifierAsObjectRoot) segments.push(rest);
        return safeObjectPath(LAYOUT_0010_NAME, id, segments);
      },
    }),
  ],
  [
    // 0003 applied to the id without its prefix (removePrefixes), which suits urn: and ark: ids; no delimiters: exactly 0003.
    LAYOUT_0012_NAME,
    extension({
      className: 'HashAndNoPrefixIdNTupleStorageLayout',
      description:
        'Hashed Truncated N-tuple Trees with Non-prefixed Object ID Encapsulating Directory: objects lie under n-tuples of the ' +
        'digest of their id without its prefix, in a folder named by that part percent-encoded.',
      parameters: (given) => {
        const delimiters = given.delimiters ?? [];
        if (!Array.isArray(delimiters)) {
          throw layoutConfigError(LAYOUT_0012_NAME, `delimiters must be an array of strings, not ${JSON.stringify(delimiters)}.`);
        }
        const each = delimiters.map((d: unknown, i) => delimiterValue(LAYOUT_0012_NAME, `delimiters[${i}]`, d));
        return { ...digestTuplesParameters(LAYOUT_0012_NAME, given), delimiters: each };
      },
      objectPath: (config, id) => hashAndIdPath(config, removePrefixes(id, config.delimiters)),
    }),
  ],
]);

/** Registered names of the layouts siard-ocfl implements. */
export const LAYOUT_NAMES: readonly string[] = [...EXTENSIONS.keys()];

export function isKnownLayout(extensionName: string): boolean {
  return EXTENSIONS.has(extensionName);
}

/** The "description" of ocfl_layout.json for a layout. */
export function layoutDescription(extensionName: string): string {
  return EXTENSIONS.get(extensionName)?.description ?? `Storage layout extension ${extensionName}.`;
}

/** @ocfl/ocfl's class name of a registered layout. */
export function ocflJsClassName(extensionName: string): string {
  return EXTENSIONS.get(extensionName)!.className;
}

/** A registered layout with its full configuration (every parameter, defaults included; frozen). */
export class ExtensionLayout implements StorageLayout {
  private constructor(
    private readonly extension: Extension,
    readonly config: Readonly<Given & { extensionName: string }>,
  ) {}

  get extensionName(): string {
    return this.config.extensionName;
  }

  /** The checked configuration: `config` a parsed config.json (`requireExtensionName`), a partial one, or nothing (the defaults). */
  private static checked(extensionName: string, config: unknown, requireExtensionName: boolean): [Extension, Given] {
    const extension = EXTENSIONS.get(extensionName);
    if (!extension) {
      const known = LAYOUT_NAMES.join(', ');
      throw new UsageError(
        `Storage layout extension "${extensionName}" is not supported by siard-ocfl (known: ${known}).`,
        'UNKNOWN_LAYOUT',
      );
    }
    const parameters = extension.parameters(configObject(extensionName, config, requireExtensionName));
    for (const value of Object.values(parameters)) if (Array.isArray(value)) Object.freeze(value);
    return [extension, Object.freeze({ extensionName, ...parameters })];
  }

  /** A layout for any digest algorithm of the registry (the short BLAKE2b ones are loaded first). */
  static async load(extensionName: string, config?: unknown, requireExtensionName = false): Promise<ExtensionLayout> {
    const [extension, checked] = ExtensionLayout.checked(extensionName, config, requireExtensionName);
    if (typeof checked.digestAlgorithm === 'string') await loadIdDigest(checked.digestAlgorithm);
    return new ExtensionLayout(extension, checked as ExtensionLayout['config']);
  }

  /** As load, synchronously (for @ocfl/ocfl's constructors): a BLAKE2b digest must be loaded (loadIdDigest, or an earlier load) before. */
  static create(extensionName: string, config?: unknown, requireExtensionName = false): ExtensionLayout {
    const [extension, checked] = ExtensionLayout.checked(extensionName, config, requireExtensionName);
    if (typeof checked.digestAlgorithm === 'string') assertIdDigestReady(extensionName, checked.digestAlgorithm);
    return new ExtensionLayout(extension, checked as ExtensionLayout['config']);
  }

  objectPath(id: string): string {
    assertValidObjectId(id);
    return this.extension.objectPath(this.config, id);
  }
}

/** A 0003 layout, synchronously (see ExtensionLayout.create). */
export function createLayout(config?: Partial<Layout0003Config>): ExtensionLayout {
  return ExtensionLayout.create(LAYOUT_0003_NAME, config);
}

/** A 0003 layout for any registry algorithm. */
export function loadLayout0003(config?: Partial<Layout0003Config>): Promise<ExtensionLayout> {
  return ExtensionLayout.load(LAYOUT_0003_NAME, config);
}
