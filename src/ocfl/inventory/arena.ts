/**
 * The one compact container of inventory strings (paths, digests), which the readers, the writers
 * and the validator share: many short strings as bytes in one buffer with offsets instead of as
 * JavaScript strings (Arena; KeyArena when they are added one by one), the one hash table that
 * finds them by their bytes (RangeTable), paths listed in order indexed as a Map set in that order
 * reads them (PathIndex), and the ReadonlyMap face of entries numbered in an order (OrderedMap).
 */
import { isWellFormedUnicode } from './logical-path.js';

/** Strings as UTF-8 in one buffer: string i is bytes[start[i], end[i]). */
export interface Arena {
  bytes: Buffer;
  start: Uint32Array;
  end: Uint32Array;
}

/** String p of an arena. */
export function textAt(arena: Arena, p: number): string {
  return arena.bytes.toString('utf8', arena.start[p], arena.end[p]);
}

/** A power-of-two open-addressing table of entry indexes (-1: empty), sized for `n` entries. */
export function emptyTable(n: number): Int32Array {
  let size = 16;
  while (size < n * 2) size *= 2;
  return new Int32Array(size).fill(-1);
}

/** FNV-1a of bytes[start, end): the hash of every table over byte strings here. */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** A table of byte ranges (range i: bytes[start[i], end[i])) looked up by their content. */
export class RangeTable {
  private readonly table: Int32Array;
  private readonly mask: number;

  constructor(
    capacity: number,
    private bytes: Uint8Array,
    private start: ArrayLike<number>,
    private end: ArrayLike<number>,
  ) {
    this.table = emptyTable(capacity);
    this.mask = this.table.length - 1;
  }

  /** The same ranges, numbered alike, now read from other bytes (the arena they were copied to). */
  rebase(bytes: Uint8Array, start: ArrayLike<number>, end: ArrayLike<number>): void {
    this.bytes = bytes;
    this.start = start;
    this.end = end;
  }

  /** Adds range i; answers the index of an equal range added before (then i is not added), or -1. */
  add(i: number): number {
    const { start, end, bytes } = this;
    const s = start[i]!;
    const e = end[i]!;
    for (let slot = hashBytes(bytes, s, e) & this.mask; ; slot = (slot + 1) & this.mask) {
      const other = this.table[slot]!;
      if (other === -1) {
        this.table[slot] = i;
        return -1;
      }
      if (this.equal(other, bytes, s, e)) return other;
    }
  }

  /** The index of an added range holding the bytes q[s, e), or -1. */
  find(q: Uint8Array, s: number, e: number): number {
    for (let slot = hashBytes(q, s, e) & this.mask; ; slot = (slot + 1) & this.mask) {
      const other = this.table[slot]!;
      if (other === -1) return -1;
      if (this.equal(other, q, s, e)) return other;
    }
  }

  private equal(i: number, q: Uint8Array, s: number, e: number): boolean {
    const a = this.start[i]!;
    const b = this.end[i]!;
    if (b - a !== e - s) return false;
    for (let j = 0; j < e - s; j++) if (this.bytes[a + j] !== q[s + j]) return false;
    return true;
  }
}

/**
 * The paths of an arena in their listing order, indexed as a Map set path by path in that order
 * reads them: each distinct path found at its first listing, which answers the last listing's
 * value when the path is listed again (`last`; repeats are rare: only a damaged inventory has them).
 */
export class PathIndex {
  private readonly table: RangeTable;
  /** A path listed more than once: its first listing -> its last. */
  private readonly last = new Map<number, number>();
  /** The number of distinct paths. */
  readonly size: number;

  constructor(private readonly paths: Arena) {
    const { bytes, start, end } = paths;
    this.table = new RangeTable(start.length, bytes, start, end);
    let repeats = 0;
    for (let p = 0; p < start.length; p++) {
      const first = this.table.add(p);
      if (first < 0) continue;
      this.last.set(first, p);
      repeats++;
    }
    this.size = start.length - repeats;
  }

  /** The listing whose value a Map set in order holds for the path `text`, or -1. */
  find(text: string): number {
    const q = Buffer.from(text, 'utf8');
    const p = this.table.find(q, 0, q.length);
    return p < 0 ? -1 : this.lastOf(p);
  }

  /** The last listing of the path first listed at p. */
  lastOf(p: number): number {
    return this.last.get(p) ?? p;
  }

  /** Whether listing p is its path's first (each path's first listing is the one kept in order). */
  isFirst(p: number): boolean {
    return this.last.size === 0 || this.table.find(this.paths.bytes, this.paths.start[p]!, this.paths.end[p]!) === p;
  }
}

/** A ReadonlyMap over entries numbered 0 .. count-1 in its order (its values are never undefined). */
export abstract class OrderedMap<V> implements ReadonlyMap<string, V> {
  protected abstract readonly count: number;
  protected abstract keyAt(i: number): string;
  protected abstract valueAt(i: number): V;
  abstract get(key: string): V | undefined;

  get size(): number {
    return this.count;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  *entries(): MapIterator<[string, V]> {
    for (let i = 0; i < this.count; i++) yield [this.keyAt(i), this.valueAt(i)];
  }

  *keys(): MapIterator<string> {
    for (let i = 0; i < this.count; i++) yield this.keyAt(i);
  }

  *values(): MapIterator<V> {
    for (let i = 0; i < this.count; i++) yield this.valueAt(i);
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }
}

/** A copy of `from` with room for at least `n` elements (doubling, so growth stays linear). */
export function grown<T extends Uint8Array | Uint32Array | Int32Array | Float64Array>(from: T, n: number): T {
  if (n <= from.length) return from;
  let size = Math.max(16, from.length);
  while (size < n) size *= 2;
  const out = new (from.constructor as new (length: number) => T)(size);
  out.set(from);
  return out;
}

/**
 * Distinct byte strings (UTF-8 paths, raw digests) in one growing buffer, numbered in the order
 * first added and found by their bytes: what a Map<string, ...> keyed by a million strings holds
 * in ~150 bytes per key costs here the key's bytes and ~20 bytes of offsets and table. The lookup
 * is the RangeTable above, rebuilt larger as keys are added.
 */
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
