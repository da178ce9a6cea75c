/**
 * OCFL Community Extension 0012, "Hashed Truncated N-tuple Trees with Non-prefixed Object ID
 * Encapsulating Directory": extension 0003 applied to the id without its prefix, which suits
 * `urn:` and `ark:` ids. The prefix ends at the right-most occurrence of any of `delimiters`
 * (case-sensitive, unlike 0006/0007/0010); an occurrence that ends the id is ignored, as the
 * extension's Python code does (so something is always left). No delimiters: exactly 0003.
 */
import { HashAndIdNTupleLayout } from './hash-and-id-n-tuple-layout.js';
import { assertIdDigestReady, loadIdDigest } from './id-digest.js';
import { configObject, delimiterValue, digestTuplesParameters, layoutConfigError } from './layout-config.js';
import { assertValidObjectId } from './object-id-rules.js';
import type { StorageLayout } from './storage-layout.js';

export const LAYOUT_0012_NAME = '0012-hash-and-no-prefix-id-n-tuple-storage-layout';

export interface Layout0012Config {
  extensionName: typeof LAYOUT_0012_NAME;
  digestAlgorithm: string;
  tupleSize: number;
  numberOfTuples: number;
  delimiters: string[];
}

/** Checks a configuration and fills in the defaults (sha256, 3, 3, []). */
function validateLayout0012Config(input: unknown, requireExtensionName = false): Layout0012Config {
  const given = configObject(LAYOUT_0012_NAME, input, requireExtensionName);
  const delimiters = given.delimiters ?? [];
  if (!Array.isArray(delimiters)) {
    throw layoutConfigError(LAYOUT_0012_NAME, `delimiters must be an array of strings, not ${JSON.stringify(delimiters)}.`);
  }
  return {
    extensionName: LAYOUT_0012_NAME,
    ...digestTuplesParameters(LAYOUT_0012_NAME, given),
    delimiters: delimiters.map((d: unknown, i) => delimiterValue(LAYOUT_0012_NAME, `delimiters[${i}]`, d)),
  };
}

/** The id without its prefix, as the extension's `_remove_prefixes` computes it. */
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

export class HashAndNoPrefixIdNTupleLayout implements StorageLayout {
  readonly extensionName = LAYOUT_0012_NAME;

  private constructor(
    readonly config: Readonly<Layout0012Config>,
    private readonly inner: HashAndIdNTupleLayout,
  ) {}

  /** `config`: a parsed config.json (`requireExtensionName`), a partial one, or nothing (the defaults). */
  static async load(config?: unknown, requireExtensionName = false): Promise<HashAndNoPrefixIdNTupleLayout> {
    const checked = validateLayout0012Config(config, requireExtensionName);
    await loadIdDigest(checked.digestAlgorithm);
    return HashAndNoPrefixIdNTupleLayout.create(checked);
  }

  /** As load, synchronously (for @ocfl/ocfl's constructors): its digest must be loaded (loadIdDigest) before. */
  static create(config?: unknown): HashAndNoPrefixIdNTupleLayout {
    const checked = validateLayout0012Config(config);
    const { digestAlgorithm, tupleSize, numberOfTuples } = checked;
    assertIdDigestReady(LAYOUT_0012_NAME, digestAlgorithm);
    return new HashAndNoPrefixIdNTupleLayout(
      Object.freeze({ ...checked, delimiters: Object.freeze(checked.delimiters) as string[] }),
      HashAndIdNTupleLayout.create({ digestAlgorithm, tupleSize, numberOfTuples }),
    );
  }

  objectPath(id: string): string {
    assertValidObjectId(id);
    return this.inner.objectPath(removePrefixes(id, this.config.delimiters));
  }
}
