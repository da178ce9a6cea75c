/**
 * The digests an audit expects of each content file: the manifest's, and those of the fixity
 * blocks for the algorithms this tool can compute, as the object's reader records them (held
 * compactly for a plain inventory: a million files cost no map per block here).
 */
import { isDigestAlgorithm } from '../ocfl/digest.js';
import type { OcflObjectReader } from '../ocfl/object/object.js';
import type { ExpectedDigest } from '../ocfl/validate/digest-mismatch.js';

export class ExpectedDigests {
  readonly algorithm: string;
  private readonly fixity: string[];

  constructor(private readonly reader: OcflObjectReader) {
    this.algorithm = reader.digestAlgorithm;
    this.fixity = reader.fixityAlgorithms().filter((alg) => isDigestAlgorithm(alg) && alg !== this.algorithm);
  }

  /** Content paths of the manifest, in its order. */
  contentPaths(): IterableIterator<string> {
    return this.reader.contentPaths();
  }

  /** The digest the audit expects of a content path in an algorithm, when the manifest or an audited fixity block records it. */
  digest(contentPath: string, algorithm: string): string | undefined {
    // Only files the manifest names are audited; a fixity entry for anything else is the validator's.
    const want = this.reader.contentDigest(this.algorithm, contentPath);
    if (want === undefined || algorithm === this.algorithm) return want;
    return this.fixity.includes(algorithm) ? this.reader.contentDigest(algorithm, contentPath) : undefined;
  }

  /** The expected digests of a content path: the manifest's first, then fixity. */
  of(contentPath: string): ExpectedDigest[] {
    const want = this.reader.contentDigest(this.algorithm, contentPath);
    if (want === undefined) return [];
    const out: ExpectedDigest[] = [{ algorithm: this.algorithm, digest: want, block: 'manifest' }];
    for (const alg of this.fixity) {
      const d = this.reader.contentDigest(alg, contentPath);
      if (d !== undefined) out.push({ algorithm: alg, digest: d, block: 'fixity' });
    }
    return out;
  }
}
