/**
 * verify (issue 34): what it costs against its peer in the same run.
 * - `verify` of a restored SQLite database against the `restore` that made it (target: at most 1.0x
 *   its time), at several sizes of the narrow-rows table (bench/rows-db.ts: integer, text, real,
 *   timestamp, nullable text) and on 10,000 LOB files of 2-4 KiB (bench/lobs-db.ts); peak memory of
 *   each (which must not grow with the rows: unmatched rows wait on disk, none do here).
 * What the fingerprints cost an export: bench/fingerprints.bench.ts.
 * Times are CPU seconds (user + system, from time(1): a shared machine's load changes wall times
 * much more than these; wall times are printed too). Each pair runs BENCH_ROUNDS times (default 3),
 * alternating which goes first; the best of each counts.
 *
 * Measured at 262a746 (one round, niced at load ~26 from other sessions): 1,000,000 rows verify /
 * restore 5.85 / 6.24 CPU s = 0.94, peak 124 / 115 MiB; 10,000 LOB files 4.06 / 5.02 CPU s = 0.81,
 * peak 133 / 128 MiB. Wall times at that load said little (72 / 32 s and 57 / 148 s).
 *
 *   node bench/run.js verify          (after npm run build)
 *   BENCH_VERIFY_ROWS=100000,1000000 BENCH_VERIFY_LOBS=10000 BENCH_ROUNDS=3 node --import=tsx bench/verify.bench.ts
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildLobDb } from './lobs-db.js';
import { buildRowDb } from './rows-db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'bench', 'out', 'verify');
const CLI = path.join(ROOT, 'bin', 'siard-ocfl');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZES = (process.env.BENCH_VERIFY_ROWS ?? '100000,1000000').split(',').map(Number);
const LOBS = Number(process.env.BENCH_VERIFY_LOBS ?? 10_000);

interface Run {
  /** CPU seconds (user + system, every thread): what the work costs, whatever else the machine runs */
  seconds: number;
  wall: number;
  peakMb: number;
}

/** The built CLI under /usr/bin/time: CPU seconds and peak RSS from time(1), wall time measured here. */
function cli(args: string[], expectCode = 0): Run {
  const start = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '__TIME__ %U %S %M', process.execPath, CLI, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== expectCode) throw new Error(`siard-ocfl ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  const m = /__TIME__ ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr);
  return { seconds: Number(m?.[1]) + Number(m?.[2]), wall, peakMb: Number(m?.[3]) / 1024 };
}

/** `a` and `b` alternating ROUNDS times, which goes first alternating too; the best time of each, the highest peak. */
async function pair(a: () => Run | Promise<Run>, b: () => Run | Promise<Run>): Promise<[Run, Run]> {
  const best: [Run, Run] = [
    { seconds: Infinity, wall: Infinity, peakMb: 0 },
    { seconds: Infinity, wall: Infinity, peakMb: 0 },
  ];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const k of order) {
      const r = await (k === 0 ? a : b)();
      best[k] = {
        seconds: Math.min(best[k]!.seconds, r.seconds),
        wall: Math.min(best[k]!.wall, r.wall),
        peakMb: Math.max(best[k]!.peakMb, r.peakMb),
      };
    }
  }
  return best;
}

const results: Array<{ what: string; ours: Run; peer: Run; ratio: number; limit: number }> = [];

/** verify of a database restored from `siard`, against that restore (each restore into a new file). */
async function verifyAgainstRestore(label: string, siard: string): Promise<void> {
  const target = path.join(OUT, `${label}.restored.db`);
  const restore = () => {
    rmSync(target, { force: true });
    return cli(['restore', siard, target]);
  };
  restore(); // the first verify needs a target
  const [ours, peer] = await pair(() => cli(['verify', siard, target]), restore);
  results.push({ what: `verify / restore, ${label}`, ours, peer, ratio: ours.seconds / peer.seconds, limit: 1.0 });
}

mkdirSync(OUT, { recursive: true });
for (const rows of SIZES) {
  const label = `rows${rows}`;
  const db = path.join(OUT, `${label}.db`);
  buildRowDb(db, rows);
  const out = path.join(OUT, `${label}.export`);
  rmSync(out, { recursive: true, force: true });
  cli(['export', db, out]);
  await verifyAgainstRestore(`${rows.toLocaleString('en')} rows`, path.join(out, `${label}.siard`));
}
if (LOBS > 0) {
  const label = `lobs${LOBS}`;
  const db = path.join(OUT, `${label}.db`);
  rmSync(db, { force: true });
  buildLobDb(db, LOBS);
  const out = path.join(OUT, `${label}.export`);
  rmSync(out, { recursive: true, force: true });
  cli(['export', db, out]);
  await verifyAgainstRestore(`${LOBS.toLocaleString('en')} LOB files`, path.join(out, `${label}.siard`));
}

let failed = 0;
for (const r of results) {
  const ok = r.ratio <= r.limit;
  if (!ok) failed++;
  console.log(
    `${r.what.padEnd(40)} ${r.ours.seconds.toFixed(2)} / ${r.peer.seconds.toFixed(2)} CPU s = ${r.ratio.toFixed(2)} ` +
      `(<= ${r.limit}: ${ok ? 'met' : 'NOT met'}); wall ${r.ours.wall.toFixed(2)} / ${r.peer.wall.toFixed(2)} s; ` +
      `peak ${r.ours.peakMb.toFixed(0)} / ${r.peer.peakMb.toFixed(0)} MiB`,
  );
}
process.exit(failed ? 1 : 0);
