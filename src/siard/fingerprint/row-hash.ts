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

/** A fingerprint between two rows, as a resumable export's journal keeps it. */
export interface FingerprintState {
  rows: number;
  sums: [number, number];
}

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

/** The lanes' start values: FNV-1a's offset basis, Fletcher's two sums. */
const A0 = 0x811c9dc5;

/**
 * Order-independent sum of row hashes, with the row count. A row is given whole (`add`) or cell by
 * cell in column order (`cell`, `nullCell`, `zonedCell`, then `endRow`): the writer hashes each cell
 * as it formats it, without keeping the row.
 */
export class TableFingerprint {
  rows = 0;
  private sumA = 0;
  private sumB = 0;
  // the current row's lanes: a FNV-1a over pairs of UTF-16 units, b and c Fletcher's running sums of the same
  private a = A0;
  private b = 1;
  private c = 0;

  /** Adds one row of cell forms (cell-form.ts), null for NULL. */
  add(cells: ReadonlyArray<string | null>): void {
    for (let i = 0; i < cells.length; i++) {
      const s = cells[i];
      if (s === null || s === undefined) this.nullCell();
      else this.cell(s);
    }
    this.endRow();
  }

  /** The current row's next cell: NULL. */
  nullCell(): void {
    this.a = Math.imul(this.a ^ -1, 0x01000193);
    this.b = (this.b - 1) | 0;
    this.c = (this.c + this.b) | 0;
  }

  /** The current row's next cell: the form `s`. */
  cell(s: string): void {
    const n = s.length;
    let a = Math.imul(this.a ^ n, 0x01000193);
    let b = (this.b + n) | 0;
    let c = (this.c + b) | 0;
    let k = 0;
    for (; k + 1 < n; k += 2) {
      const w = s.charCodeAt(k) | (s.charCodeAt(k + 1) << 16);
      a = Math.imul(a ^ w, 0x01000193);
      b = (b + w) | 0;
      c = (c + b) | 0;
    }
    if (k < n) {
      const w = s.charCodeAt(k);
      a = Math.imul(a ^ w, 0x01000193);
      b = (b + w) | 0;
      c = (c + b) | 0;
    }
    this.a = a;
    this.b = b;
    this.c = c;
  }

  /**
   * The current row's next cell: the form of a date, time or timestamp written in UTC, `source` with
   * 'T' at `separatorAt` (none when negative) and 'Z' at the end unless it ends with one; hashed the
   * same as `cell` of that form, without building it (a string made by concatenation is copied
   * flat by V8 the first time its characters are read, which cost more than the hash itself).
   */
  zonedCell(source: string, separatorAt: number): void {
    const length = source.length;
    const n = source.charCodeAt(length - 1) === 0x5a ? length : length + 1;
    let a = Math.imul(this.a ^ n, 0x01000193);
    let b = (this.b + n) | 0;
    let c = (this.c + b) | 0;
    for (let k = 0; k < n; k += 2) {
      const low = k === separatorAt ? 0x54 : k < length ? source.charCodeAt(k) : 0x5a;
      const w = k + 1 === n ? low : low | ((k + 1 === separatorAt ? 0x54 : k + 1 < length ? source.charCodeAt(k + 1) : 0x5a) << 16);
      a = Math.imul(a ^ w, 0x01000193);
      b = (b + w) | 0;
      c = (c + b) | 0;
    }
    this.a = a;
    this.b = b;
    this.c = c;
  }

  /**
   * The current row's next cell: the form of `n` code units that is the ASCII bytes [start, end)
   * of `bytes` (a back-slash and the letter after it one unit, `escaped`'s, CellTexts' 'string'),
   * the byte at `tAt` from start (if >= 0) read as 'T', then `tail`; hashed the same as `cell` of
   * that form, without a string (issue 39).
   */
  bytesCell(bytes: Uint8Array, start: number, end: number, n: number, escaped: boolean, tAt: number, tail: string): void {
    let a = Math.imul(this.a ^ n, 0x01000193);
    let b = (this.b + n) | 0;
    let c = (this.c + b) | 0;
    let low = -1;
    const stop = end + tail.length;
    for (let p = start; p < stop; p++) {
      let u: number;
      if (p >= end) u = tail.charCodeAt(p - end);
      else {
        u = bytes[p]!;
        if (u === 0x5c && escaped) u = unescapedByte(bytes[++p]!);
        else if (p - start === tAt) u = 0x54;
      }
      if (low < 0) low = u;
      else {
        const w = low | (u << 16);
        a = Math.imul(a ^ w, 0x01000193);
        b = (b + w) | 0;
        c = (c + b) | 0;
        low = -1;
      }
    }
    if (low >= 0) {
      a = Math.imul(a ^ low, 0x01000193);
      b = (b + low) | 0;
      c = (c + b) | 0;
    }
    this.a = a;
    this.b = b;
    this.c = c;
  }

  /** Where the fingerprint stands between two rows. */
  state(): FingerprintState {
    return { rows: this.rows, sums: [this.sumA, this.sumB] };
  }

  /** Goes on from a state an interrupted run kept (between two rows). */
  restore(state: FingerprintState): void {
    this.rows = state.rows;
    [this.sumA, this.sumB] = state.sums;
  }

  /** Ends the current row: its hash joins the table's sums. */
  endRow(): void {
    this.sumA = (this.sumA + fmix(this.a)) % P;
    this.sumB = (this.sumB + fmix(this.b ^ Math.imul(this.c, 0x9e3779b1))) % P;
    this.a = A0;
    this.b = 1;
    this.c = 0;
    this.rows++;
  }

  /** The fingerprint as 16 hex digits (lane one, then lane two). */
  hex(): string {
    return this.sumA.toString(16).padStart(8, '0') + this.sumB.toString(16).padStart(8, '0');
  }
}

/** The character a back-slash and `letter` stand for in CellTexts' 'string' texts (COPY's): b f n r t v, or the letter itself. */
export function unescapedByte(letter: number): number {
  switch (letter) {
    case 0x62:
      return 0x08;
    case 0x66:
      return 0x0c;
    case 0x6e:
      return 0x0a;
    case 0x72:
      return 0x0d;
    case 0x74:
      return 0x09;
    case 0x76:
      return 0x0b;
    default:
      return letter;
  }
}
