/**
 * The digests an audit expects of each content file: the manifest's, and those of the fixity
 * blocks for the algorithms this tool can compute. Kept as one map per block over shared strings,
 * not a map per file: an object of a million files would otherwise hold a million small maps.
 */
import { isDigestAlgorithm } from '../ocfl/digest.js';
import type { Inventory } from '../ocfl/inventory.js';
import type { ExpectedDigest } from '../ocfl/validate/digest-mismatch.js';

export class ExpectedDigests {
  /** content path -> lower-case digest, in the manifest's algorithm */
  private readonly manifest = new Map<string, string>();
  private readonly fixity: Array<[string, Map<string, string>]> = [];

  constructor(inv: Inventory) {
    this.algorithm = inv.digestAlgorithm;
    for (const digest in inv.manifest) {
      const lower = digest.toLowerCase();
      for (const p of inv.manifest[digest]!) this.manifest.set(p, lower);
    }
    for (const [alg, block] of Object.entries(inv.fixity ?? {})) {
      if (!isDigestAlgorithm(alg) || alg === this.algorithm) continue;
      const byPath = new Map<string, string>();
      for (const digest in block) {
        const lower = digest.toLowerCase();
        // Only files the manifest names are audited; a fixity entry for anything else is the validator's.
        for (const p of block[digest]!) if (this.manifest.has(p)) byPath.set(p, lower);
      }
      this.fixity.push([alg, byPath]);
    }
  }

  readonly algorithm: string;

  /** Content paths of the manifest, in its order. */
  contentPaths(): IterableIterator<string> {
    return this.manifest.keys();
  }

  has(contentPath: string, algorithm: string): boolean {
    if (algorithm === this.algorithm) return this.manifest.has(contentPath);
    return this.fixity.some(([alg, byPath]) => alg === algorithm && byPath.has(contentPath));
  }

  /** The expected digests of a content path: the manifest's first, then fixity. */
  of(contentPath: string): ExpectedDigest[] {
    const want = this.manifest.get(contentPath);
    if (want === undefined) return [];
    const out: ExpectedDigest[] = [{ algorithm: this.algorithm, digest: want, block: 'manifest' }];
    for (const [alg, byPath] of this.fixity) {
      const d = byPath.get(contentPath);
      if (d !== undefined) out.push({ algorithm: alg, digest: d, block: 'fixity' });
    }
    return out;
  }
}
