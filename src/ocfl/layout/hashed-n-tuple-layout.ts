/**
 * OCFL Community Extension 0004, "Hashed Truncated N-tuple Trees for OCFL Storage Hierarchies":
 *
 *   id -> UTF-8 -> digest (lower-case hex) -> numberOfTuples directories of tupleSize characters
 *      -> object root: the whole digest, or (shortObjectRoot) the part the tuples did not use.
 *
 * Every id maps (only empty ids and lone surrogates are refused, as for every layout).
 */
import { DIGEST_HEX_LENGTH } from '../digest.js';
import { assertIdDigestReady, idDigestSync, loadIdDigest } from './id-digest.js';
import { booleanParameter, configObject, digestTuplesParameters, layoutConfigError } from './layout-config.js';
import { assertValidObjectId, tupleFolders } from './object-id-rules.js';
import type { StorageLayout } from './storage-layout.js';

export const LAYOUT_0004_NAME = '0004-hashed-n-tuple-storage-layout';

export interface Layout0004Config {
  extensionName: typeof LAYOUT_0004_NAME;
  digestAlgorithm: string;
  tupleSize: number;
  numberOfTuples: number;
  shortObjectRoot: boolean;
}

/** Checks a configuration and fills in the defaults (sha256, 3, 3, false). */
function validateLayout0004Config(input: unknown, requireExtensionName = false): Layout0004Config {
  const given = configObject(LAYOUT_0004_NAME, input, requireExtensionName);
  const { digestAlgorithm, tupleSize, numberOfTuples } = digestTuplesParameters(LAYOUT_0004_NAME, given);
  const shortObjectRoot = booleanParameter(LAYOUT_0004_NAME, given, 'shortObjectRoot', false);
  const digestLength = DIGEST_HEX_LENGTH[digestAlgorithm];
  if (shortObjectRoot && tupleSize * numberOfTuples === digestLength) {
    throw layoutConfigError(
      LAYOUT_0004_NAME,
      `shortObjectRoot must be false when the tuples use the whole ${digestLength}-character digest.`,
    );
  }
  return { extensionName: LAYOUT_0004_NAME, digestAlgorithm, tupleSize, numberOfTuples, shortObjectRoot };
}

export class HashedNTupleLayout implements StorageLayout {
  readonly extensionName = LAYOUT_0004_NAME;

  private constructor(readonly config: Readonly<Layout0004Config>) {}

  /** `config`: a parsed config.json (`requireExtensionName`), a partial one, or nothing (the defaults). */
  static async load(config?: unknown, requireExtensionName = false): Promise<HashedNTupleLayout> {
    const checked = validateLayout0004Config(config, requireExtensionName);
    await loadIdDigest(checked.digestAlgorithm);
    return new HashedNTupleLayout(Object.freeze(checked));
  }

  /** As load, synchronously (for @ocfl/ocfl's constructors): its digest must be loaded (loadIdDigest) before. */
  static create(config?: unknown): HashedNTupleLayout {
    const checked = validateLayout0004Config(config);
    assertIdDigestReady(LAYOUT_0004_NAME, checked.digestAlgorithm);
    return new HashedNTupleLayout(Object.freeze(checked));
  }

  objectPath(id: string): string {
    assertValidObjectId(id);
    const { digestAlgorithm, tupleSize, numberOfTuples, shortObjectRoot } = this.config;
    const digest = idDigestSync(digestAlgorithm, Buffer.from(id, 'utf8'));
    const root = shortObjectRoot ? digest.slice(tupleSize * numberOfTuples) : digest;
    return [...tupleFolders(digest, tupleSize, numberOfTuples), root].join('/');
  }
}
