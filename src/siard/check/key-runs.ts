/**
 * The values of one single-column integer key as runs: consecutive integers in consecutive rows
 * (ids 1, 2, 3 ... in rows 1, 2, 3 ... are one run), held in typed arrays. Serial keys, the usual
 * primary keys and many foreign keys in dump order, take a few runs whatever the row count; values
 * in any other order take a run each. The runs of all keys share one memory bound (RunBudget):
 * past it, or past one chunk, a key's buffer is sorted by value and written to disk as a sorted
 * file (run-files.ts), and files are merged level by level, so any number of rows is checked in
 * bounded memory. The checks read each key's runs in value order, once: a unique key is unique
 * when no two runs overlap, a foreign key's values missing from the referenced key are the parts
 * of its runs outside the referenced runs. A value that is no canonical integer of at most 15
 * digits hands the key to the SQLite index (key-index.ts), as does a unique key found not unique
 * (SQLite counts each repeated value's rows).
 */
import { isCanonicalInteger } from './lexical.js';
import { MemoryRunCursor, MergedRuns, RunFileCursor, RunFileWriter, mergeRunFiles, sortedOrder, type RunCursor } from './run-files.js';
import { unlinkSync } from 'node:fs';
import path from 'node:path';

/** the most runs one key buffers before it writes them out (24 MB) */
const CHUNK = 1 << 20;
/** files of one level merged into one file of the next */
const FAN_IN = 16;

/** The memory all keys' runs may take, in runs (24 bytes each), and the folder their files go to. */
export class RunBudget {
  /** runs' room allocated by all keys */
  allocated = 0;
  private readonly keys: KeyRuns[] = [];
  private files = 0;

  constructor(
    readonly limit: number,
    private readonly dir: string,
  ) {}

  register(k: KeyRuns): void {
    this.keys.push(k);
  }

  unregister(k: KeyRuns): void {
    const i = this.keys.indexOf(k);
    if (i >= 0) this.keys.splice(i, 1);
  }

  /** A new file's name. */
  file(): string {
    return path.join(this.dir, `runs-${this.files++}.bin`);
  }

  /** Room for `more` runs, other keys written out (largest first) until it fits; false when it does not. */
  reserve(asker: KeyRuns, more: number): boolean {
    while (this.allocated + more > this.limit) {
      let largest: KeyRuns | undefined;
      for (const k of this.keys) if (k !== asker && k.capacity > 0 && (!largest || k.capacity > largest.capacity)) largest = k;
      if (!largest) return false;
      largest.spill(true);
    }
    this.allocated += more;
    return true;
  }
}

export class KeyRuns {
  private starts = new Float64Array(0);
  private rows = new Float64Array(0);
  private lengths = new Float64Array(0);
  private n = 0;
  /** sorted files per level: level L's files hold about FAN_IN^L chunks each */
  private readonly levels: string[][] = [];
  private sealed = false;
  /** the most runs held before they go to disk, and the room a key starts with */
  private readonly chunk: number;
  private readonly first: number;

  constructor(private readonly budget: RunBudget) {
    budget.register(this);
    this.chunk = Math.max(16, Math.min(CHUNK, budget.limit));
    this.first = Math.max(16, Math.min(1024, budget.limit >> 6));
  }

  /** room for runs in memory */
  get capacity(): number {
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
    const last = this.n - 1;
    if (last >= 0) {
      const n = this.lengths[last]!;
      if (v === this.starts[last]! + n && row === this.rows[last]! + n) {
        this.lengths[last] = n + 1;
        return;
      }
    }
    if (this.n === this.starts.length) this.grow();
    this.starts[this.n] = v;
    this.rows[this.n] = row;
    this.lengths[this.n++] = 1;
  }

  /** Twice the room, within the chunk and the budget; else the runs go to disk and the room is reused. */
  private grow(): void {
    const cap = this.starts.length;
    const next = cap === 0 ? this.first : Math.min(cap * 2, this.chunk);
    if (next === cap) return this.spill(false);
    if (!this.budget.reserve(this, next - cap)) {
      if (this.n > 0) return this.spill(false);
      this.budget.allocated += next; // an empty key takes its first room whatever the budget
    }
    const resize = (a: Float64Array) => {
      const b = new Float64Array(next);
      b.set(a.subarray(0, this.n));
      return b;
    };
    this.starts = resize(this.starts);
    this.rows = resize(this.rows);
    this.lengths = resize(this.lengths);
  }

  /** The runs in memory sorted into a new file of level 0 (and levels merged); `release` gives their room back. */
  spill(release: boolean): void {
    if (this.n > 0) {
      const order = sortedOrder(this.starts, this.n);
      const file = this.budget.file();
      const out = new RunFileWriter(file);
      try {
        for (let i = 0; i < this.n; i++) {
          const j = order[i]!;
          out.push(this.starts[j]!, this.rows[j]!, this.lengths[j]!);
        }
      } finally {
        out.close();
      }
      this.n = 0;
      this.addFile(0, file);
    }
    if (release) {
      this.budget.allocated -= this.starts.length;
      this.starts = new Float64Array(0);
      this.rows = new Float64Array(0);
      this.lengths = new Float64Array(0);
    }
  }

  private addFile(level: number, file: string): void {
    const files = (this.levels[level] ??= []);
    files.push(file);
    if (files.length < FAN_IN) return;
    const merged = this.budget.file();
    mergeRunFiles(files, merged);
    this.levels[level] = [];
    this.addFile(level + 1, merged);
  }

  /** The runs in value order (after which no value is added). */
  private cursor(): RunCursor {
    if (!this.sealed) {
      this.sealed = true;
      const order = sortedOrder(this.starts, this.n);
      const pick = (a: Float64Array) => {
        const b = new Float64Array(this.n);
        for (let i = 0; i < this.n; i++) b[i] = a[order[i]!]!;
        return b;
      };
      [this.starts, this.rows, this.lengths] = [pick(this.starts), pick(this.rows), pick(this.lengths)];
    }
    const memory = new MemoryRunCursor(this.starts, this.rows, this.lengths, this.n);
    const files = this.levels.flat();
    return files.length === 0 ? memory : new MergedRuns([memory, ...files.map((f) => new RunFileCursor(f))]);
  }

  /**
   * The values as sorted disjoint intervals [start, end) when they are all in memory and make at
   * most `max` intervals (after which no value is added); undefined otherwise.
   */
  coverage(max: number): Coverage | undefined {
    if (this.levels.some((l) => l.length > 0)) return undefined;
    const c = new Covered(this.cursor());
    const starts: number[] = [];
    const ends: number[] = [];
    try {
      for (let i = 0; c.has(i); i++) {
        if (i >= max) return undefined;
        starts.push(c.start(i));
        ends.push(c.end(i));
      }
    } finally {
      c.close();
    }
    return new Coverage(Float64Array.from(starts), Float64Array.from(ends));
  }

  /** Every run, in value order. */
  *runs(): Generator<[start: number, row: number, length: number]> {
    const c = this.cursor();
    try {
      while (c.next()) yield [c.start, c.row, c.length];
    } finally {
      c.close();
    }
  }

  /** Whether no value repeats. */
  unique(): boolean {
    const c = this.cursor();
    try {
      let end = -Infinity;
      while (c.next()) {
        if (c.start < end) return false;
        end = Math.max(end, c.start + c.length);
      }
      return true;
    } finally {
      c.close();
    }
  }

  /** Up to `max` values of `this` that are no values of `target`, each with its row, in value order. */
  missingFrom(target: KeyRuns, max: number): Array<{ value: number; row: number }> {
    const out: Array<{ value: number; row: number }> = [];
    const c = this.cursor();
    const t = new Covered(target.cursor());
    try {
      while (out.length < max && c.next()) {
        const end = c.start + c.length;
        t.dropBefore(c.start);
        let v = c.start;
        for (let i = 0; v < end && out.length < max; i++) {
          // the covered intervals from the run's start: the gaps between them are missing values
          const upto = t.has(i) ? Math.min(end, t.start(i)) : end;
          for (; v < upto && out.length < max; v++) out.push({ value: v, row: c.row + (v - c.start) });
          if (t.has(i)) v = Math.max(v, t.end(i));
        }
      }
      return out;
    } finally {
      c.close();
      t.close();
    }
  }

  /** The key's room given back and its files removed. */
  close(): void {
    this.n = 0;
    this.spill(true);
    this.budget.unregister(this);
    for (const f of this.levels.flat()) unlinkSync(f);
    this.levels.length = 0;
  }
}

/** A complete key's values as sorted disjoint intervals, asked value by value (a referencing key checked as it is read). */
export class Coverage {
  constructor(
    private readonly starts: Float64Array,
    private readonly ends: Float64Array,
  ) {}

  has(v: number): boolean {
    const starts = this.starts;
    let lo = 0;
    let hi = starts.length - 1;
    // the last interval starting at or before v
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= v) lo = mid;
      else hi = mid - 1;
    }
    return hi >= 0 && starts[lo]! <= v && v < this.ends[lo]!;
  }
}

/**
 * The values a key's sorted runs cover, as maximal intervals [start, end) read forward and held
 * from the start of the referencing run being checked on. Runs of the referencing key may overlap
 * (their starts grow, their ends need not), so one run's check can look back over intervals the
 * last one passed; every interval held beyond the one at the run's start follows a gap, a missing
 * value reported, so at most about as many are held as values are listed.
 */
class Covered {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private pending = false;
  private done = false;

  constructor(private readonly c: RunCursor) {}

  /** Intervals ending at or before `v` are let go (`v` only grows between calls). */
  dropBefore(v: number): void {
    let n = 0;
    while (n < this.ends.length && this.ends[n]! <= v) n++;
    if (n > 0) {
      this.starts.splice(0, n);
      this.ends.splice(0, n);
    }
    while (this.starts.length === 0 && this.read() && this.ends[0]! <= v) {
      this.starts.length = 0;
      this.ends.length = 0;
    }
  }

  /** Whether there is an i-th interval from the first held. */
  has(i: number): boolean {
    while (this.starts.length <= i) if (!this.read()) return false;
    return true;
  }

  start(i: number): number {
    return this.starts[i]!;
  }

  end(i: number): number {
    return this.ends[i]!;
  }

  /** The next interval: a run and the runs that overlap or touch it. */
  private read(): boolean {
    if (this.done || (!this.pending && !this.c.next())) {
      this.done = true;
      return false;
    }
    const start = this.c.start;
    let end = start + this.c.length;
    this.pending = false;
    while (this.c.next()) {
      if (this.c.start > end) {
        this.pending = true;
        break;
      }
      end = Math.max(end, this.c.start + this.c.length);
    }
    this.starts.push(start);
    this.ends.push(end);
    return true;
  }

  close(): void {
    this.c.close();
  }
}
