/**
 * OCFL Community Extension 0003, "Hashed Truncated N-tuple Trees with Object ID Encapsulating
 * Directory", exactly as its text and Python code define it (seeds/001_41b28a7f90922e42.txt):
 *
 *   id -> UTF-8 -> digest (lower-case hex) -> numberOfTuples directories of tupleSize characters
 *      -> encapsulation directory: A-Z a-z 0-9 '-' '_' kept (case kept), every other UTF-8 byte
 *         written as lower-case %xx; a name longer than 100 characters is cut to its first 100
 *         characters (even inside a %xx escape, as the Python does) + '-' + the full digest.
 *
 * Test vectors: spec/0003-vectors.json.
 */
import { idDigestSync, assertIdDigestReady, loadIdDigest } from './id-digest.js';
import { configObject, digestTuplesParameters } from './layout-config.js';
import { assertValidObjectId, tupleFolders } from './object-id-rules.js';
import type { StorageLayout } from './storage-layout.js';

export const LAYOUT_0003_NAME = '0003-hash-and-id-n-tuple-storage-layout';

export interface Layout0003Config {
  extensionName: typeof LAYOUT_0003_NAME;
  digestAlgorithm: string;
  tupleSize: number;
  numberOfTuples: number;
}

/** Names longer than this are cut and get the digest appended. */
export const MAX_ENCODED_LENGTH = 100;

/**
 * Checks a configuration (a parsed config.json or a partial one given in code) and fills in the
 * defaults (sha256, 3, 3; tuples of any size the digest holds). `requireExtensionName`: config.json
 * files must name their extension.
 */
export function validateLayout0003Config(input: unknown, requireExtensionName = false): Layout0003Config {
  const given = configObject(LAYOUT_0003_NAME, input, requireExtensionName);
  return { extensionName: LAYOUT_0003_NAME, ...digestTuplesParameters(LAYOUT_0003_NAME, given, Infinity) };
}

function isSafeByte(b: number): boolean {
  return (
    (b >= 0x41 && b <= 0x5a) || // A-Z
    (b >= 0x61 && b <= 0x7a) || // a-z
    (b >= 0x30 && b <= 0x39) || // 0-9
    b === 0x2d || // -
    b === 0x5f //    _
  );
}

/**
 * Percent-encodes an id's UTF-8 bytes per 0003. Safe characters are ASCII, so working per byte
 * equals the Python's per-character loop.
 */
function percentEncode0003(utf8: Uint8Array): string {
  let out = '';
  for (const b of utf8) out += isSafeByte(b) ? String.fromCharCode(b) : '%' + b.toString(16).padStart(2, '0');
  return out;
}

export class HashAndIdNTupleLayout implements StorageLayout {
  readonly extensionName = LAYOUT_0003_NAME;

  private constructor(readonly config: Readonly<Layout0003Config>) {}

  /** `config`: a parsed config.json (`requireExtensionName`), a partial one, or nothing (the defaults); any registry algorithm. */
  static async load(config?: unknown, requireExtensionName = false): Promise<HashAndIdNTupleLayout> {
    const checked = validateLayout0003Config(config, requireExtensionName);
    await loadIdDigest(checked.digestAlgorithm);
    return new HashAndIdNTupleLayout(Object.freeze(checked));
  }

  /** As load, synchronously: blake2b-160/256/384 must be loaded (loadIdDigest, or an earlier load) before. */
  static create(config?: unknown, requireExtensionName = false): HashAndIdNTupleLayout {
    const checked = validateLayout0003Config(config, requireExtensionName);
    assertIdDigestReady(LAYOUT_0003_NAME, checked.digestAlgorithm);
    return new HashAndIdNTupleLayout(Object.freeze(checked));
  }

  objectPath(id: string): string {
    assertValidObjectId(id);
    const utf8 = Buffer.from(id, 'utf8');
    const digest = idDigestSync(this.config.digestAlgorithm, utf8);
    const encoded = percentEncode0003(utf8);
    const name = encoded.length > MAX_ENCODED_LENGTH ? `${encoded.slice(0, MAX_ENCODED_LENGTH)}-${digest}` : encoded;
    return [...tupleFolders(digest, this.config.tupleSize, this.config.numberOfTuples), name].join('/');
  }
}

/** A 0003 layout, synchronously (see HashAndIdNTupleLayout.create). */
export function createLayout(config?: Partial<Layout0003Config>): HashAndIdNTupleLayout {
  return HashAndIdNTupleLayout.create(config);
}

/** A 0003 layout for any registry algorithm. */
export function loadLayout0003(config?: Partial<Layout0003Config>): Promise<HashAndIdNTupleLayout> {
  return HashAndIdNTupleLayout.load(config);
}
