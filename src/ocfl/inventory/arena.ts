/**
 * Many short strings (an inventory's paths) as UTF-8 in one buffer with offsets instead of as
 * JavaScript strings, and the one hash table that finds them by their bytes (RangeTable): the
 * readers, the writers and the validator share this shape.
 */

/** Strings as UTF-8 in one buffer: string i is bytes[start[i], end[i]). */
export interface Arena {
  bytes: Buffer;
  start: Uint32Array;
  end: Uint32Array;
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
