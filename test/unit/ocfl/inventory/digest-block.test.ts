/**
 * A block's digests found by DigestBlock.find (src/ocfl/inventory/digest-block.ts) after
 * indexSorted: without a table when they ascend (a search that starts where the last one ended),
 * with one when they do not. Held to a Map of the same digests: every digest and digests the block
 * lacks (before the first, between two, after the last), looked up in order, in reverse and at random.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { DigestBlock } from '../../../../src/ocfl/inventory/digest-block.js';
import { rng } from '../../../../fixtures/northwind.js';

const SIZE = 32;
const digestOf = (i: number) => createHash('sha256').update(`file ${i}`).digest();

/** A block of `digests` in the order given, one path each. */
function blockOf(digests: Buffer[]): DigestBlock {
  const offsets = new Uint32Array(digests.length + 1).map((_, i) => i);
  const paths = { bytes: Buffer.from('x'.repeat(digests.length)), start: offsets.subarray(0, digests.length), end: offsets.subarray(1) };
  return new DigestBlock(Buffer.concat(digests), SIZE, offsets, paths);
}

/** Each query answered as a Map of the block's digests answers it. */
function lookups(t: import('ava').ExecutionContext, block: DigestBlock, digests: Buffer[], queries: Buffer[], label: string): void {
  const index = new Map(digests.map((d, k) => [d.toString('hex'), k]));
  let wrong = 0;
  for (const q of queries) if (block.find(q) !== (index.get(q.toString('hex')) ?? -1)) wrong++;
  t.is(wrong, 0, `${label}: ${queries.length} lookups`);
}

test('ascending digests are found without a table, in any order of lookups; others through the table', (t) => {
  const r = rng(35);
  const all = Array.from({ length: 3000 }, (_, i) => digestOf(i)).sort(Buffer.compare);
  // Every other digest in the block: the rest are lacking, each between two it holds.
  const held = all.filter((_, i) => i % 2 === 1);
  const lacking = all.filter((_, i) => i % 2 === 0);
  const below = Buffer.alloc(SIZE, 0);
  const above = Buffer.alloc(SIZE, 0xff);
  const inOrder = [below, ...all, above];
  const shuffled = [...inOrder].sort(() => r() - 0.5);

  const sorted = blockOf(held);
  t.true(sorted.indexSorted());
  t.is((sorted as unknown as { table: unknown }).table, undefined, 'no table for ascending digests');
  lookups(t, sorted, held, inOrder, 'ascending, in order');
  lookups(t, sorted, held, [...inOrder].reverse(), 'ascending, in reverse');
  lookups(t, sorted, held, shuffled, 'ascending, at random');
  lookups(t, sorted, held, held, 'ascending, each digest held');
  lookups(t, sorted, held, lacking, 'ascending, each digest lacking');

  const unsorted = blockOf([...held].sort(() => r() - 0.5));
  t.true(unsorted.indexSorted());
  t.not((unsorted as unknown as { table: unknown }).table, undefined, 'a table when they do not ascend');
  lookups(
    t,
    unsorted,
    [...Array(unsorted.entries).keys()].map((k) => Buffer.from(unsorted.digestOf(k), 'hex')),
    shuffled,
    'unsorted',
  );

  t.false(blockOf([held[0]!, held[1]!, held[1]!]).indexSorted(), 'a digest listed twice');
  t.false(blockOf([held[1]!, held[0]!, held[1]!]).indexSorted(), 'a digest listed twice, apart');
  t.true(blockOf([]).indexSorted(), 'no digests');
  t.is(blockOf([]).find(below), -1);
});
