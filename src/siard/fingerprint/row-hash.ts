/**
 * A table's fingerprint: the sum of its rows' hashes modulo a prime, so it does not depend on the
 * order rows are read in (a database gives them in any order), and a row read twice counts twice.
 *
 * A row's hash is 64 bits over its cells' forms (cell-form.ts): each cell adds its length (-1 for
 * NULL) and then its UTF-16 code units two at a time, so ('ab', 'c') and ('a', 'bc') differ. The
 * first 32 bits are FNV-1a over those words; the other 32 mix Fletcher's two running sums of the
 * same words (cheaper than a second multiplication chain, and blind to other changes than FNV is);
 * each ends with murmur3's finaliser. Lane i of the table sums lane i of every row modulo P, the
 * largest prime below 2^32. Not a cryptographic digest: it finds accidental changes (a value lost,
 * cut, rounded, a row missing or doubled); the fingerprints file itself is covered by the
 * inventory's SHA-512 like every content file.
 */

/** The largest prime below 2^32. */
const P = 4294967291;

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Order-independent sum of row hashes, with the row count. */
export class TableFingerprint {
  rows = 0;
  private a = 0;
  private b = 0;

  /** Adds one row of cell forms (cell-form.ts), null for NULL. */
  add(cells: ReadonlyArray<string | null>): void {
    // lane a: FNV-1a over pairs of UTF-16 units; lanes b, c: Fletcher's running sums of the same
    let a = 0x811c9dc5;
    let b = 1;
    let c = 0;
    for (let i = 0; i < cells.length; i++) {
      const s = cells[i];
      const n = s === null || s === undefined ? -1 : s.length;
      a = Math.imul(a ^ n, 0x01000193);
      b = (b + n) | 0;
      c = (c + b) | 0;
      let k = 0;
      for (; k + 1 < n; k += 2) {
        const w = s!.charCodeAt(k) | (s!.charCodeAt(k + 1) << 16);
        a = Math.imul(a ^ w, 0x01000193);
        b = (b + w) | 0;
        c = (c + b) | 0;
      }
      if (k < n) {
        const w = s!.charCodeAt(k);
        a = Math.imul(a ^ w, 0x01000193);
        b = (b + w) | 0;
        c = (c + b) | 0;
      }
    }
    this.a = (this.a + fmix(a)) % P;
    this.b = (this.b + fmix(b ^ Math.imul(c, 0x9e3779b1))) % P;
    this.rows++;
  }

  /** The fingerprint as 16 hex digits (lane one, then lane two). */
  hex(): string {
    return this.a.toString(16).padStart(8, '0') + this.b.toString(16).padStart(8, '0');
  }
}
