/**
 * The comparison of a content file's computed digests with what the inventory records for it, shared
 * by the validator and the audit: a manifest digest that differs is E092, a fixity digest E093.
 */

export interface ExpectedDigest {
  algorithm: string;
  /** lower-case hex, as recorded */
  digest: string;
  block: 'manifest' | 'fixity';
}

/** An expectation (with whatever the caller attached to it) and the digest that contradicts it. */
export type DigestMismatch<E extends ExpectedDigest = ExpectedDigest> = E & {
  code: 'E092' | 'E093';
  /** the digest computed */
  actual: string;
};

/** Expected digests the computed ones contradict; an algorithm that was not computed is skipped. */
export function digestMismatches<E extends ExpectedDigest>(
  computed: Readonly<Record<string, string>>,
  expected: Iterable<E>,
): Array<DigestMismatch<E>> {
  const out: Array<DigestMismatch<E>> = [];
  for (const e of expected) {
    const actual = computed[e.algorithm];
    if (actual === undefined || actual === e.digest) continue;
    out.push({ ...e, code: e.block === 'manifest' ? 'E092' : 'E093', actual });
  }
  return out;
}
