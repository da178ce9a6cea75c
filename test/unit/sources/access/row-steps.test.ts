/**
 * Rows in steps: every row once, in order, numbered from 1; few steps for a large table (each step
 * costs mdb-reader a walk of the pages before it); steps of large values shorter, so a step holds
 * about its byte budget; attachment cells of several rows or none.
 */
import test from 'ava';
import type { SourceValue } from '../../../../src/siard/database-source.js';
import { rowSteps, type StepSizes } from '../../../../src/sources/access/row-steps.js';

/** A table of `count` records whose value i has `sizeOf(i)` characters, read as mdb-reader reads (offset, limit), with the calls kept. */
function table(count: number, sizeOf: (i: number) => number) {
  const calls: Array<[number, number]> = [];
  const read = (offset: number, limit: number) => {
    calls.push([offset, limit]);
    return Array.from({ length: Math.max(0, Math.min(limit, count - offset)) }, (_, k) => offset + k);
  };
  const convert = (i: number, row: number): SourceValue[][] => [[row, 'x'.repeat(sizeOf(i))]];
  return { calls, read, convert };
}

const SIZES: StepSizes = { firstRows: 10, steps: 8, bytes: 10_000 };

test('every row once, in order, numbered from 1; a table of small rows in about `steps` steps', (t) => {
  const { calls, read, convert } = table(1000, () => 1);
  const rows = [...rowSteps(read, 1000, convert, SIZES)].flat();
  t.deepEqual(
    rows.map((r) => r[0]),
    Array.from({ length: 1000 }, (_, i) => i + 1),
  );
  t.true(calls.length <= SIZES.steps + 2, `${calls.length} steps`);
  t.deepEqual(calls[0], [0, 10]);
});

test('large values make short steps: no step holds much more than the budget', (t) => {
  const { calls, read, convert } = table(500, (i) => (i < 100 ? 1 : 1000)); // 2,000 bytes a row from row 101
  const batches = [...rowSteps(read, 500, convert, SIZES)];
  t.is(batches.flat().length, 500);
  const bytesOf = (b: SourceValue[][]) => b.reduce((n, r) => n + (r[1] as string).length * 2 + 8, 0);
  // the step that meets the first large rows was sized from small ones; every later one keeps to the budget
  t.true(
    batches.slice(-3).every((b) => bytesOf(b) <= SIZES.bytes + 2008),
    batches.map(bytesOf).join(' '),
  );
  t.true(calls.length > 10);
});

test('an attachment cell gives several rows or none; steps with no row are not yielded', (t) => {
  const read = (offset: number, limit: number) => Array.from({ length: Math.max(0, Math.min(limit, 30 - offset)) }, (_, k) => offset + k);
  const convert = (i: number, row: number): SourceValue[][] =>
    i < 20
      ? []
      : [
          [row, 1],
          [row, 2],
        ];
  const batches = [...rowSteps(read, 30, convert, SIZES)];
  t.true(batches.every((b) => b.length > 0));
  t.deepEqual(
    batches.flat().map((r) => `${r[0] as number}.${r[1] as number}`),
    Array.from({ length: 10 }, (_, k) => [`${k + 21}.1`, `${k + 21}.2`]).flat(),
  );
});

test('an empty table is one read and no step', (t) => {
  const { calls, read, convert } = table(0, () => 1);
  t.deepEqual([...rowSteps(read, 0, convert, SIZES)], []);
  t.is(calls.length, 1);
});
