/**
 * The sorted runs of the key index on disk: sortedOrder against a plain sort (narrow spans sorted
 * as encoded numbers, wide spans by comparison, ties in index order), run files written and read
 * back block by block, and the merge of several sorted files and a memory buffer against one sort
 * of all their runs.
 */
import test from 'ava';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  MemoryRunCursor,
  MergedRuns,
  RunFileCursor,
  RunFileWriter,
  mergeRunFiles,
  sortedOrder,
  type RunCursor,
} from '../../../../src/siard/check/run-files.js';

function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

function plainOrder(values: number[]): number[] {
  return values.map((_v, i) => i).sort((a, b) => values[a]! - values[b]! || a - b);
}

test('sortedOrder: narrow and wide spans, negatives and ties, as a plain stable sort', (t) => {
  const r = random(3);
  const spans = [1, 10, 1e6, 1e12, 9e14];
  for (const span of spans) {
    for (const n of [0, 1, 2, 1000, 20_000]) {
      const values = Array.from({ length: n }, () => Math.floor(r() * span) - Math.floor(span / 3));
      t.deepEqual([...sortedOrder(Float64Array.from(values), n)], plainOrder(values), `span ${span}, ${n} values`);
    }
  }
  // only the first n of a longer buffer count
  t.deepEqual([...sortedOrder(Float64Array.from([5, 3, 9, -1]), 3)], [1, 0, 2]);
});

function drain(c: RunCursor): number[][] {
  const out: number[][] = [];
  while (c.next()) out.push([c.start, c.row, c.length]);
  c.close();
  return out;
}

test('run files: runs read back as written, across blocks; merged files and memory give one sorted order', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'run-files-'));
  try {
    const r = random(5);
    const all: number[][] = [];
    const files: string[] = [];
    // five files of up to 20,000 runs (blocks of 8,192), one of them empty
    for (const n of [20_000, 0, 8192, 1, 12_345]) {
      const runs = Array.from({ length: n }, (_v, i) => [Math.floor(r() * 1e9) - 5e8, i + 1, 1 + Math.floor(r() * 3)]);
      runs.sort((a, b) => a[0]! - b[0]!);
      const file = path.join(dir, `f${files.length}`);
      const w = new RunFileWriter(file);
      for (const [s, row, len] of runs) w.push(s!, row!, len!);
      w.close();
      t.deepEqual(drain(new RunFileCursor(file)), runs);
      files.push(file);
      all.push(...runs);
    }
    const memory = Array.from({ length: 3000 }, (_v, i) => [Math.floor(r() * 1e9) - 5e8, -i, 1]).sort((a, b) => a[0]! - b[0]!);
    all.push(...memory);
    const col = (k: number) => Float64Array.from(memory, (m) => m[k]!);
    const merged = drain(
      new MergedRuns([new MemoryRunCursor(col(0), col(1), col(2), memory.length), ...files.map((f) => new RunFileCursor(f))]),
    );
    const starts = merged.map((m) => m[0]!);
    t.deepEqual(
      starts,
      all.map((m) => m[0]!).sort((a, b) => a - b),
    );
    t.deepEqual(
      [...merged].sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!),
      [...all].sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!),
    );
    // merged into one file, the inputs removed
    mergeRunFiles(files, path.join(dir, 'merged'));
    t.deepEqual(readdirSync(dir), ['merged']);
    t.deepEqual(
      drain(new RunFileCursor(path.join(dir, 'merged'))).map((m) => m[0]),
      all
        .filter((m) => m[1]! > 0)
        .map((m) => m[0]!)
        .sort((a, b) => a - b),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
