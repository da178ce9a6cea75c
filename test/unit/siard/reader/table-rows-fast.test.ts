/**
 * The fast table-row path reads a long cell that arrives in many chunks in time linear in its
 * length: a growth-rate check (cost per chunk at 1,024 chunks against 256), not a timing. Reading
 * the row again from its start on every chunk made one 64 MiB cell of the hostile corpus cost 31 s
 * of CPU; here that shows as about 4x per chunk.
 */
import test from 'ava';
import { FastTableRows } from '../../../../src/siard/reader/table-rows-fast.js';

const CHUNK = 'x'.repeat(4096);

/** Seconds to feed a cell of `chunks` chunks, then its end, best of three. */
function secondsFor(chunks: number): number {
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const rows = new FastTableRows(['text'], 64 * 1024 * 1024);
    const t0 = process.hrtime.bigint();
    rows.feed('<table><row><c1>');
    for (let i = 0; i < chunks; i++) if (rows.feed(CHUNK) === undefined) throw new Error('gave up');
    const out = rows.feed('</c1></row></table>');
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
    if (out?.length !== 1 || (out[0]!.cells[0] as string).length !== chunks * CHUNK.length) throw new Error('wrong row');
  }
  return best;
}

test('a long cell in many chunks costs the same per chunk at 1,024 chunks as at 256', (t) => {
  secondsFor(64); // warm up
  const small = secondsFor(256) / 256;
  const large = secondsFor(1024) / 1024;
  t.log(`per chunk: ${(small * 1e6).toFixed(1)} us at 256, ${(large * 1e6).toFixed(1)} us at 1,024`);
  t.true(large < small * 2.5, `${(large / small).toFixed(2)}x the cost per chunk at 4x the chunks: not linear`);
});
