/**
 * The fast table-row path reads a long cell that arrives in many chunks in time linear in its
 * length: a growth-rate check (CPU time per chunk at 2,048 chunks against 256), not a timing.
 * Reading the row again from its start on every chunk made one 64 MiB cell of the hostile corpus
 * cost 31 s of CPU; here that shows as about 7x per chunk (linear: about 1x; 3x fails).
 */
import test from 'ava';
import { FastTableRows } from '../../../../src/siard/reader/table-rows-fast.js';

const CHUNK = 'x'.repeat(4096);

/** CPU seconds (this process, so the other test workers do not count) to feed a cell of `chunks` chunks, then its end, best of three. */
function secondsFor(chunks: number): number {
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const rows = new FastTableRows(['text'], 64 * 1024 * 1024);
    const t0 = process.cpuUsage();
    rows.feed('<table><row><c1>');
    for (let i = 0; i < chunks; i++) if (rows.feed(CHUNK) === undefined) throw new Error('gave up');
    const out = rows.feed('</c1></row></table>');
    const used = process.cpuUsage(t0);
    best = Math.min(best, (used.user + used.system) / 1e6);
    if (out?.length !== 1 || (out[0]!.cells[0] as string).length !== chunks * CHUNK.length) throw new Error('wrong row');
  }
  return best;
}

test('a long cell in many chunks costs the same per chunk at 2,048 chunks as at 256', (t) => {
  secondsFor(64); // warm up
  const small = secondsFor(256) / 256;
  const large = secondsFor(2048) / 2048;
  t.log(`per chunk: ${(small * 1e6).toFixed(1)} us at 256, ${(large * 1e6).toFixed(1)} us at 2,048`);
  t.true(large < small * 3, `${(large / small).toFixed(2)}x the cost per chunk at 8x the chunks: not linear`);
});
