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
import { UsageError } from '../../errors.js';
import { idDigestSync, isIdDigestReady, loadIdDigest } from './id-digest.js';
import { configObject, digestTuplesParameters } from './layout-config.js';
import { assertValidObjectId } from './object-id-rules.js';
import type { StorageLayout } from './storage-layout.js';

export const LAYOUT_0003_NAME = '0003-hash-and-id-n-tuple-storage-layout';

export interface Layout0003Config {
  extensionName: typeof LAYOUT_0003_NAME;
  digestAlgorithm: string;
  tupleSize: number;
  numberOfTuples: number;
}

/** Names longer than this are cut and get the digest appended. */
const MAX_ENCODED_LENGTH = 100;

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
  readonly config: Readonly<Layout0003Config>;

  /**
   * Synchronous: refuses blake2b-160/256/384 unless loaded before (use the async `load`, or
   * `loadLayout0003`, which work for every algorithm).
   */
  constructor(config?: Partial<Layout0003Config>) {
    this.config = Object.freeze(validateLayout0003Config(config));
    if (!isIdDigestReady(this.config.digestAlgorithm)) {
      throw new UsageError(
        `Extension 0003 layout: digest algorithm "${this.config.digestAlgorithm}" needs the asynchronous ` +
          `HashAndIdNTupleLayout.load() (or loadLayout0003()).`,
        'DIGEST_NOT_LOADED',
      );
    }
  }

  /** Any algorithm of the OCFL digest registry, including those computed by WebAssembly. */
  static async load(config?: Partial<Layout0003Config>): Promise<HashAndIdNTupleLayout> {
    const checked = validateLayout0003Config(config);
    await loadIdDigest(checked.digestAlgorithm);
    return new HashAndIdNTupleLayout(checked);
  }

  /** From a parsed `extensions/0003-.../config.json` (must name the extension; omitted parameters take defaults). */
  static fromConfigJson(json: unknown): HashAndIdNTupleLayout {
    return new HashAndIdNTupleLayout(validateLayout0003Config(json, true));
  }

  /** As fromConfigJson, for every algorithm. */
  static async loadFromConfigJson(json: unknown): Promise<HashAndIdNTupleLayout> {
    return HashAndIdNTupleLayout.load(validateLayout0003Config(json, true));
  }

  /** Lower-case hex digest of the id's UTF-8 bytes. */
  digestOf(id: string): string {
    assertValidObjectId(id);
    return idDigestSync(this.config.digestAlgorithm, Buffer.from(id, 'utf8'));
  }

  /** The encapsulation directory: the object root's own name. */
  encapsulationDirectory(id: string): string {
    return this.map(id).name;
  }

  objectPath(id: string): string {
    const { tuples, name } = this.map(id);
    return [...tuples, name].join('/');
  }

  private map(id: string): { tuples: string[]; name: string } {
    assertValidObjectId(id);
    const utf8 = Buffer.from(id, 'utf8');
    const digest = idDigestSync(this.config.digestAlgorithm, utf8);
    const { tupleSize, numberOfTuples } = this.config;
    const tuples: string[] = [];
    for (let i = 0; i < numberOfTuples; i++) tuples.push(digest.slice(i * tupleSize, (i + 1) * tupleSize));
    const encoded = percentEncode0003(utf8);
    const name = encoded.length > MAX_ENCODED_LENGTH ? `${encoded.slice(0, MAX_ENCODED_LENGTH)}-${digest}` : encoded;
    return { tuples, name };
  }
}

/** A 0003 layout; synchronous (see the HashAndIdNTupleLayout constructor). */
export function createLayout(config?: Partial<Layout0003Config>): HashAndIdNTupleLayout {
  return new HashAndIdNTupleLayout(config);
}

/** A 0003 layout for any registry algorithm. */
export function loadLayout0003(config?: Partial<Layout0003Config>): Promise<HashAndIdNTupleLayout> {
  return HashAndIdNTupleLayout.load(config);
}
