/**
 * Sorted runs of integer key values, in memory and on disk, for key-runs.ts: a run is a triple
 * (first value, first row, length) of float64s. A buffer of runs is sorted by value (sortedOrder)
 * and written to a file as it is; cursors read files back through a small block, and a merge
 * cursor gives the runs of several sorted sources in one value order (an external merge sort,
 * memory bounded by one block per source).
 */
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';

/** Runs in value order: the current run's fields are valid after next() returned true. */
export interface RunCursor {
  start: number;
  row: number;
  length: number;
  next(): boolean;
  close(): void;
}

/** runs per block read or written (192 KiB) */
const BLOCK = 8192;

/**
 * The indexes 0..n-1 of `values` (integers) in value order, ties in index order. Values spanning
 * less than 2^32 are sorted by radix, 11 bits a pass; wider spans whose span times n a double holds
 * exactly as one number each, (value - min) * n + index, by the typed array's own numeric sort;
 * wider still by a comparison.
 */
export function sortedOrder(values: Float64Array, n: number): Uint32Array {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  if (n < 2) return order;
  if (max - min < 2 ** 32) return radixOrder(values, n, min, max - min, order);
  if ((max - min + 1) * n <= Number.MAX_SAFE_INTEGER) {
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = (values[i]! - min) * n + i;
    keys.sort();
    for (let i = 0; i < n; i++) order[i] = keys[i]! % n;
    return order;
  }
  return order.sort((a, b) => values[a]! - values[b]! || a - b);
}

/** LSD radix sort of the offsets value - min (below 2^32), carrying the indexes; each pass stable. */
function radixOrder(values: Float64Array, n: number, min: number, span: number, order: Uint32Array): Uint32Array {
  let keys = new Uint32Array(n);
  for (let i = 0; i < n; i++) keys[i] = values[i]! - min;
  let keysOut = new Uint32Array(n);
  let orderOut: Uint32Array = new Uint32Array(n);
  const bits = 32 - Math.clz32(span);
  const count = new Uint32Array(2048);
  for (let shift = 0; shift < bits; shift += 11) {
    count.fill(0);
    for (let i = 0; i < n; i++) count[(keys[i]! >>> shift) & 2047]!++;
    let sum = 0;
    for (let d = 0; d < 2048; d++) {
      const c = count[d]!;
      count[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const k = keys[i]!;
      const at = count[(k >>> shift) & 2047]!++;
      keysOut[at] = k;
      orderOut[at] = order[i]!;
    }
    [keys, keysOut] = [keysOut, keys];
    [order, orderOut] = [orderOut, order];
  }
  return order;
}

/** Writes runs, in the order given, to a new file. */
export class RunFileWriter {
  private readonly fd: number;
  private readonly block = new Float64Array(BLOCK * 3);
  private n = 0;

  constructor(readonly file: string) {
    this.fd = openSync(file, 'wx');
  }

  push(start: number, row: number, length: number): void {
    const i = this.n * 3;
    this.block[i] = start;
    this.block[i + 1] = row;
    this.block[i + 2] = length;
    if (++this.n === BLOCK) this.flush();
  }

  private flush(): void {
    const bytes = new Uint8Array(this.block.buffer, 0, this.n * 24);
    for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done);
    this.n = 0;
  }

  close(): void {
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
    }
  }
}

/** The runs of one file, block by block. */
export class RunFileCursor implements RunCursor {
  start = 0;
  row = 0;
  length = 0;
  private fd: number | undefined;
  private readonly block = new Float64Array(BLOCK * 3);
  private readonly bytes = new Uint8Array(this.block.buffer);
  private at = 0;
  private count = 0;

  constructor(file: string) {
    this.fd = openSync(file, 'r');
  }

  next(): boolean {
    if (this.at === this.count && !this.fill()) return false;
    const i = this.at++ * 3;
    this.start = this.block[i]!;
    this.row = this.block[i + 1]!;
    this.length = this.block[i + 2]!;
    return true;
  }

  private fill(): boolean {
    if (this.fd === undefined) return false;
    let got = 0;
    while (got < this.bytes.length) {
      const n = readSync(this.fd, this.bytes, got, this.bytes.length - got, null);
      if (n === 0) break;
      got += n;
    }
    if (got % 24 !== 0) throw new Error('a run file of the key index is cut short');
    this.at = 0;
    this.count = got / 24;
    if (this.count === 0) this.close();
    return this.count > 0;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Runs held in typed arrays, already in value order. */
export class MemoryRunCursor implements RunCursor {
  start = 0;
  row = 0;
  length = 0;
  private at = 0;

  constructor(
    private readonly starts: Float64Array,
    private readonly rows: Float64Array,
    private readonly lengths: Float64Array,
    private readonly n: number,
  ) {}

  next(): boolean {
    if (this.at === this.n) return false;
    this.start = this.starts[this.at]!;
    this.row = this.rows[this.at]!;
    this.length = this.lengths[this.at++]!;
    return true;
  }

  close(): void {}
}

/** The runs of several sorted cursors in one value order (a binary heap of the cursors by their current value). */
export class MergedRuns implements RunCursor {
  start = 0;
  row = 0;
  length = 0;
  private readonly heap: RunCursor[] = [];
  private started = false;

  constructor(private readonly sources: RunCursor[]) {}

  next(): boolean {
    const heap = this.heap;
    if (!this.started) {
      this.started = true;
      for (const s of this.sources) if (s.next()) this.push(s);
    } else if (heap.length > 0) {
      // the cursor whose run was given last moves on
      if (heap[0]!.next()) this.down(0);
      else {
        const last = heap.pop()!;
        if (heap.length > 0) {
          heap[0] = last;
          this.down(0);
        }
      }
    }
    if (heap.length === 0) return false;
    const top = heap[0]!;
    this.start = top.start;
    this.row = top.row;
    this.length = top.length;
    return true;
  }

  private push(c: RunCursor): void {
    const heap = this.heap;
    let i = heap.push(c) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.start <= c.start) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = c;
  }

  private down(i: number): void {
    const heap = this.heap;
    const c = heap[i]!;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= heap.length) break;
      if (child + 1 < heap.length && heap[child + 1]!.start < heap[child]!.start) child++;
      if (heap[child]!.start >= c.start) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = c;
  }

  close(): void {
    for (const s of this.sources) s.close();
  }
}

/** Merges sorted run files into one new file and removes them. */
export function mergeRunFiles(files: string[], into: string): void {
  const merged = new MergedRuns(files.map((f) => new RunFileCursor(f)));
  const out = new RunFileWriter(into);
  try {
    while (merged.next()) out.push(merged.start, merged.row, merged.length);
  } finally {
    merged.close();
    out.close();
  }
  for (const f of files) unlinkSync(f);
}
