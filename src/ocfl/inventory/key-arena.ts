/**
 * Distinct byte strings (UTF-8 paths, raw digests) in one growing buffer, numbered in the order
 * first added and found by their bytes: what a Map<string, ...> keyed by a million strings holds
 * in ~150 bytes per key costs here the key's bytes and ~20 bytes of offsets and table. The lookup
 * is the readers' RangeTable (arena.ts), rebuilt larger as keys are added.
 */
import { RangeTable } from './arena.js';
import { isWellFormedUnicode } from './logical-path.js';

/** A copy of `from` with room for at least `n` elements (doubling, so growth stays linear). */
export function grown<T extends Uint8Array | Uint32Array | Int32Array | Float64Array>(from: T, n: number): T {
  if (n <= from.length) return from;
  let size = Math.max(16, from.length);
  while (size < n) size *= 2;
  const out = new (from.constructor as new (length: number) => T)(size);
  out.set(from);
  return out;
}

export class KeyArena {
  private bytes = Buffer.allocUnsafe(1 << 12);
  private used = 0;
  private start = new Uint32Array(64);
  private end = new Uint32Array(64);
  private table: RangeTable;
  private capacity = 64;
  /** Keys added so far; key i is bytes[start[i], end[i]). */
  count = 0;
  /** Where a string query is encoded before it is looked up (no buffer per lookup). */
  private scratch = Buffer.allocUnsafe(1 << 10);
  private lastText: string | undefined;
  private lastNumber = -1;

  constructor(private readonly encoding: 'utf8' | 'hex') {
    this.table = new RangeTable(this.capacity, this.bytes, this.start, this.end);
  }

  /** The number of the key spelled by `text`, or -1. */
  find(text: string): number {
    // A staged file's path is looked up several times in a row (placeable? in the state? its folders?).
    if (text === this.lastText) return this.lastNumber;
    // A lone surrogate has no UTF-8: it would be found as U+FFFD.
    if (this.encoding === 'utf8' && !isWellFormedUnicode(text)) return -1;
    const n = this.encode(text);
    return this.remember(text, this.table.find(this.scratch, 0, n));
  }

  /** The number of the key spelled by `text`, added when it is new. */
  intern(text: string): number {
    const found = this.find(text);
    if (found >= 0) return found;
    if (this.encoding === 'utf8' && !isWellFormedUnicode(text)) throw new Error(`${JSON.stringify(text)} is not well-formed Unicode.`);
    const n = this.encode(text);
    const i = this.count;
    this.reserve(i + 1, this.used + n);
    this.scratch.copy(this.bytes, this.used, 0, n);
    this.start[i] = this.used;
    this.used += n;
    this.end[i] = this.used;
    this.count++;
    this.table.add(i);
    return this.remember(text, i);
  }

  /** The last key looked up (keys are never taken out, so a number found stays right; -1 is replaced when the key is added). */
  private remember(text: string, i: number): number {
    this.lastText = text;
    this.lastNumber = i;
    return i;
  }

  /** Key i as text (in the arena's encoding: UTF-8 paths, hex digests). */
  text(i: number): string {
    return this.bytes.toString(this.encoding, this.start[i], this.end[i]);
  }

  /** Key i's bytes, for writing them elsewhere (a view: valid until the next key is added). */
  view(i: number): Buffer {
    return this.bytes.subarray(this.start[i], this.end[i]);
  }

  /** The first four bytes of key i as a big-endian number (keys of at least four bytes: digests). */
  prefix(i: number): number {
    return this.bytes.readUInt32BE(this.start[i]!);
  }

  /**
   * The order of keys i and j as JavaScript compares their strings (UTF-16 code units). UTF-8
   * bytes compare as code points, which differs from code units in one case only: a character
   * above U+FFFF (lead byte 0xF0-0xF4, a surrogate pair in UTF-16, 0xD800-0xDFFF) sorts before
   * one of U+E000-U+FFFF (lead byte 0xEE or 0xEF) as code units. Hex digests compare as bytes.
   */
  compare(i: number, j: number): number {
    const b = this.bytes;
    let x = this.start[i]!;
    let y = this.start[j]!;
    const xEnd = this.end[i]!;
    const yEnd = this.end[j]!;
    for (; x < xEnd && y < yEnd; x++, y++) {
      const p = b[x]!;
      const q = b[y]!;
      if (p === q) continue;
      if (this.encoding === 'hex') return p - q;
      // Preceded by equal bytes, both are the first bytes of a character.
      if (p >= 0xee && q >= 0xee && p >= 0xf0 !== q >= 0xf0) return p >= 0xf0 ? -1 : 1;
      return p - q;
    }
    return xEnd - x - (yEnd - y);
  }

  private encode(text: string): number {
    const most = this.encoding === 'hex' ? text.length >> 1 : text.length * 3;
    if (most > this.scratch.length) this.scratch = Buffer.allocUnsafe(most);
    return this.scratch.write(text, 0, this.encoding);
  }

  private reserve(keys: number, bytes: number): void {
    if (bytes > this.bytes.length) {
      let size = this.bytes.length;
      while (size < bytes) size *= 2;
      const next = Buffer.allocUnsafe(size);
      this.bytes.copy(next, 0, 0, this.used);
      this.bytes = next;
    }
    this.start = grown(this.start, keys);
    this.end = grown(this.end, keys);
    this.table.rebase(this.bytes, this.start, this.end);
    if (keys > this.capacity) {
      // A table for twice as many keys: each key is added once more, in its number's order.
      this.capacity *= 2;
      this.table = new RangeTable(this.capacity, this.bytes, this.start, this.end);
      for (let k = 0; k < this.count; k++) this.table.add(k);
    }
  }
}
