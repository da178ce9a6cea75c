/**
 * The values of one single-column key held in memory as runs: consecutive integers in
 * consecutive rows (ids 1, 2, 3 ... in rows 1, 2, 3 ... are one run). Serial keys, the usual
 * primary keys and many foreign keys in dump order, take a few runs whatever the row count, and
 * their checks are interval arithmetic: a unique key is unique when no two runs overlap, a foreign
 * key is satisfied when the referenced key's runs cover its runs. Anything else (a value that is
 * no canonical integer, too many runs, an overlap, a value not covered) hands the key to the SQLite
 * index (key-index.ts), which holds every value and says exactly what is wrong.
 */

import { isCanonicalInteger } from './lexical.js';

export class KeyRuns {
  /** per run: first value, first row, length */
  private starts: number[] = [];
  private rows: number[] = [];
  private lengths: number[] = [];

  get runCount(): number {
    return this.starts.length;
  }

  /** Adds one value; false when it is no canonical integer (the caller hands the key to SQLite). */
  add(value: string, row: number): boolean {
    // a canonical integer a double holds exactly: String(Number(value)) === value
    if (!isCanonicalInteger(value, 15)) return false;
    this.addInteger(Number(value), row);
    return true;
  }

  /** Adds one value that is an integer a double holds exactly. */
  addInteger(v: number, row: number): void {
    const last = this.starts.length - 1;
    if (last >= 0) {
      const n = this.lengths[last]!;
      if (v === this.starts[last]! + n && row === this.rows[last]! + n) {
        this.lengths[last] = n + 1;
        return;
      }
    }
    this.starts.push(v);
    this.rows.push(row);
    this.lengths.push(1);
  }

  /** Every (row, value) pair, in the order added. */
  *pairs(): Generator<[number, string]> {
    for (let r = 0; r < this.starts.length; r++) {
      const start = this.starts[r]!;
      const row = this.rows[r]!;
      for (let i = 0; i < this.lengths[r]!; i++) yield [row + i, String(start + i)];
    }
  }

  /** The runs as value intervals [start, end), sorted, adjacent ones merged; undefined when two overlap (a value repeats). */
  private intervals(): Array<[number, number]> | undefined {
    const order = this.starts.map((_s, i) => i).sort((a, b) => this.starts[a]! - this.starts[b]!);
    const out: Array<[number, number]> = [];
    for (const i of order) {
      const start = this.starts[i]!;
      const end = start + this.lengths[i]!;
      const prev = out[out.length - 1];
      if (prev && start < prev[1]) return undefined;
      if (prev && start === prev[1]) prev[1] = end;
      else out.push([start, end]);
    }
    return out;
  }

  /** Whether no value repeats. */
  unique(): boolean {
    return this.intervals() !== undefined;
  }

  /** Whether every value of `this` is a value of `target` (whose values are unique). */
  coveredBy(target: KeyRuns): boolean {
    const iv = target.intervals();
    if (!iv) return false;
    for (let r = 0; r < this.starts.length; r++) {
      const start = this.starts[r]!;
      const end = start + this.lengths[r]!;
      // the last interval starting at or before `start`
      let lo = 0;
      let hi = iv.length - 1;
      let found = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (iv[mid]![0] <= start) {
          found = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      if (found < 0 || end > iv[found]![1]) return false;
    }
    return true;
  }
}
