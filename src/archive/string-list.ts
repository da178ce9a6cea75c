/**
 * An append-only list of strings kept as UTF-8 in large shared buffers, with a lookup by value:
 * a million content paths cost their bytes and 16 bytes each, not a JavaScript string and a Map
 * entry each (which made the audit of a million-file object hold gigabytes).
 */
import { NumberColumn } from './number-column.js';

/** Bytes per buffer; a longer string gets a buffer of its own. */
const CHUNK = 4 << 20;

export class StringList {
  private readonly chunks: Buffer[] = [];
  private used = CHUNK;
  private readonly chunkOf = new NumberColumn((n) => new Int32Array(n));
  private readonly startOf = new NumberColumn((n) => new Int32Array(n));
  private readonly lengthOf = new NumberColumn((n) => new Int32Array(n));
  /** open addressing over the strings' indexes (-1 free), built at the first find */
  private table: Int32Array | undefined;
  private query = Buffer.alloc(256);

  get length(): number {
    return this.startOf.length;
  }

  /** Appends a string; returns its index. */
  push(s: string): number {
    const size = Buffer.byteLength(s, 'utf8');
    if (size > CHUNK - this.used) {
      this.chunks.push(Buffer.allocUnsafe(Math.max(CHUNK, size)));
      this.used = 0;
    }
    const chunk = this.chunks.length - 1;
    this.chunks[chunk]!.write(s, this.used, 'utf8');
    this.chunkOf.push(chunk);
    this.startOf.push(this.used);
    this.lengthOf.push(size);
    this.used += size;
    const i = this.startOf.length - 1;
    if (this.table) this.insert(i);
    return i;
  }

  get(i: number): string {
    const start = this.startOf.get(i);
    return this.chunks[this.chunkOf.get(i)]!.toString('utf8', start, start + this.lengthOf.get(i));
  }

  /** The order of strings i and j by their UTF-8 bytes (code-point order). */
  compare(i: number, j: number): number {
    const a = this.startOf.get(i);
    const b = this.startOf.get(j);
    const chunkB = this.chunks[this.chunkOf.get(j)]!;
    return this.chunks[this.chunkOf.get(i)]!.compare(chunkB, b, b + this.lengthOf.get(j), a, a + this.lengthOf.get(i));
  }

  /** The index of a string (the first pushed, if pushed twice), or -1. */
  find(s: string): number {
    const table = this.table ?? this.buildTable();
    const size = Buffer.byteLength(s, 'utf8');
    if (size > this.query.length) this.query = Buffer.alloc(size * 2);
    this.query.write(s, 0, 'utf8');
    const mask = table.length - 1;
    for (let slot = hashOf(this.query, 0, size) & mask; ; slot = (slot + 1) & mask) {
      const i = table[slot]!;
      if (i === -1) return -1;
      if (this.lengthOf.get(i) !== size) continue;
      const start = this.startOf.get(i);
      if (this.chunks[this.chunkOf.get(i)]!.compare(this.query, 0, size, start, start + size) === 0) return i;
    }
  }

  private buildTable(): Int32Array {
    let capacity = 1024;
    while (capacity < this.length * 2) capacity *= 2;
    this.table = new Int32Array(capacity).fill(-1);
    for (let i = 0; i < this.length; i++) this.insert(i);
    return this.table;
  }

  private insert(i: number): void {
    if (this.length * 2 > this.table!.length) {
      this.table = undefined;
      this.buildTable();
      return;
    }
    const table = this.table!;
    const mask = table.length - 1;
    const start = this.startOf.get(i);
    const chunk = this.chunks[this.chunkOf.get(i)]!;
    let slot = hashOf(chunk, start, start + this.lengthOf.get(i)) & mask;
    for (; table[slot] !== -1; slot = (slot + 1) & mask) if (this.sameString(table[slot]!, i)) return; // the first one stays
    table[slot] = i;
  }

  private sameString(i: number, j: number): boolean {
    return this.lengthOf.get(i) === this.lengthOf.get(j) && this.compare(i, j) === 0;
  }
}

/** FNV-1a over bytes [start, end). */
function hashOf(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let k = start; k < end; k++) h = Math.imul(h ^ bytes[k]!, 0x01000193);
  return h >>> 0;
}
