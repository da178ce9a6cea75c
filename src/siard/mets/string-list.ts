/**
 * Strings kept compactly, for the METS writers that must remember one or two per LOB file (a
 * million files is the normal case): all of them in one growable byte buffer with their end
 * offsets, instead of a JS string and a Map or Set entry each (~100 bytes of heap per string).
 *
 * Each string is stored losslessly: as Latin-1 when every code unit fits one byte (paths and IDs
 * nearly always), else as UTF-16 (which keeps even a lone surrogate), with one flag byte saying
 * which. The choice depends on the string alone, so equal strings have equal bytes.
 */
const WIDE = /[^\u0000-\u00ff]/;

/** An append-only list of strings, numbered from 0 in the order they were pushed. */
class StringList {
  private bytes = Buffer.alloc(1 << 12);
  private used = 0;
  private ends = new Float64Array(1 << 8);
  private wide = new Uint8Array(1 << 8);
  private count = 0;
  /** flag and end of the string written by stage() and not yet counted */
  private staged = 0;
  private stagedEnd = 0;

  get size(): number {
    return this.count;
  }

  /** Appends `s`; answers its number. */
  push(s: string): number {
    this.stage(s);
    return this.commit();
  }

  /** Forgets every string and lets go of their memory. */
  clear(): void {
    this.bytes = Buffer.alloc(1 << 12);
    this.ends = new Float64Array(1 << 8);
    this.wide = new Uint8Array(1 << 8);
    this.used = this.count = 0;
  }

  /** The string numbered i. */
  at(i: number): string {
    if (!(i >= 0 && i < this.count)) throw new RangeError(`No string ${i} in a list of ${this.count}.`);
    return this.bytes.toString(this.wide[i] ? 'utf16le' : 'latin1', this.startOf(i), this.ends[i]!);
  }

  *[Symbol.iterator](): IterableIterator<string> {
    for (let i = 0; i < this.count; i++) yield this.at(i);
  }

  /** Writes `s` after the last string without counting it yet: [start, end) of its bytes, and its flag. */
  protected stage(s: string): { start: number; end: number; wide: number } {
    const wide = WIDE.test(s) ? 1 : 0;
    const need = wide ? 2 * s.length : s.length;
    if (this.used + need > this.bytes.length) {
      const grown = Buffer.alloc(Math.max(2 * this.bytes.length, this.used + need));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    const end = this.used + this.bytes.write(s, this.used, wide ? 'utf16le' : 'latin1');
    this.staged = wide;
    this.stagedEnd = end;
    return { start: this.used, end, wide };
  }

  /** Counts the string staged last. */
  protected commit(): number {
    if (this.count === this.ends.length) {
      const ends = new Float64Array(2 * this.count);
      ends.set(this.ends);
      this.ends = ends;
      const wide = new Uint8Array(2 * this.count);
      wide.set(this.wide);
      this.wide = wide;
    }
    this.ends[this.count] = this.stagedEnd;
    this.wide[this.count] = this.staged;
    this.used = this.stagedEnd;
    return this.count++;
  }

  protected startOf(i: number): number {
    return i === 0 ? 0 : this.ends[i - 1]!;
  }

  /** Whether string i has the bytes [start, end) with flag `wide`. */
  protected equals(i: number, start: number, end: number, wide: number): boolean {
    const s = this.startOf(i);
    const e = this.ends[i]!;
    return this.wide[i] === wide && e - s === end - start && this.bytes.compare(this.bytes, start, end, s, e) === 0;
  }

  protected hashOf(start: number, end: number, wide: number): number {
    let h = 0x811c9dc5 ^ wide;
    for (let j = start; j < end; j++) h = Math.imul(h ^ this.bytes[j]!, 0x01000193);
    return h >>> 0;
  }

  protected hashAt(i: number): number {
    return this.hashOf(this.startOf(i), this.ends[i]!, this.wide[i]!);
  }
}

/** A StringList that holds each string once, with an open-addressing hash table of its numbers. */
export class StringSet extends StringList {
  private table = new Int32Array(1 << 9).fill(-1);

  override clear(): void {
    super.clear();
    this.table = new Int32Array(1 << 9).fill(-1);
  }

  /** Appends `s` unless it is there already; answers whether it was added. */
  add(s: string): boolean {
    if (this.table.length === 0) throw new Error('No string can be added to a StringSet after withoutIndex().');
    const { start, end, wide } = this.stage(s);
    const mask = this.table.length - 1;
    let slot = this.hashOf(start, end, wide) & mask;
    for (; this.table[slot] !== -1; slot = (slot + 1) & mask) {
      if (this.equals(this.table[slot]!, start, end, wide)) return false;
    }
    this.table[slot] = this.commit();
    if (2 * this.size > this.table.length) this.grow();
    return true;
  }

  private grow(): void {
    this.table = new Int32Array(2 * this.table.length).fill(-1);
    const mask = this.table.length - 1;
    for (let i = 0; i < this.size; i++) {
      let slot = this.hashAt(i) & mask;
      while (this.table[slot] !== -1) slot = (slot + 1) & mask;
      this.table[slot] = i;
    }
  }

  /** Lets go of the hash table once no more strings are added; the strings stay. */
  withoutIndex(): void {
    this.table = new Int32Array(0);
  }
}
