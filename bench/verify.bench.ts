/**
 * verify (issue 34): what it costs against its peer in the same run.
 * - `verify` of a restored SQLite database against the `restore` that made it (target: at most 1.0x
 *   its time), at several sizes of the narrow-rows table (bench/rows-db.ts: integer, text, real,
 *   timestamp, nullable text) and on 10,000 LOB files of 2-4 KiB (bench/lobs-db.ts); peak memory of
 *   each (which must not grow with the rows: unmatched rows wait on disk, none do here).
 * What the fingerprints cost an export: bench/fingerprints.bench.ts.
 * Times are CPU seconds (user + system, from time(1): a shared machine's load changes wall times
 * much more than these; wall times are printed too). Paired rounds: each of BENCH_ROUNDS rounds
 * (default 3) starts a verify of the restored database and a restore of the same archive into a
 * new file at the same moment (which is spawned first alternates), so whatever else the machine
 * runs weighs on both alike; the figure is the median of the rounds' ratios, with quartiles and
 * range. BENCH_TOGETHER=0 runs them one after the other.
 *
 * Measured at 262a746 (one round, niced at load ~26 from other sessions): 1,000,000 rows verify /
 * restore 5.85 / 6.24 CPU s = 0.94, peak 124 / 115 MiB; 10,000 LOB files 4.06 / 5.02 CPU s = 0.81,
 * peak 133 / 128 MiB. Wall times at that load said little (72 / 32 s and 57 / 148 s).
 * On 2026-11-29 (main 2e02dec), best of 3 one after the other at load 27-40: 1,000,000 rows 4.37 /
 * 4.35 = 1.00, LOB files 0.93; paired, 5 rounds at load 27-29: 1,000,000 rows median 1.014
 * (quartiles 0.991-1.035). The target's INTEGER PRIMARY KEY was read twice (as itself and as the
 * rowid, raw-source.ts); read once, paired, 5 rounds at load 10-20: 1,000,000 rows median 0.982
 * (quartiles 0.969-0.984, range 0.959-0.988), best 4.20 / 4.34 CPU s, peak 130 / 121 MiB; 10,000
 * LOB files 0.995 (quartiles 0.964-1.000, range 0.961-1.005), peak 143 / 137 MiB. Met, by 2% at
 * 1,000,000 rows and less on LOB files: verify reads everything restore reads, then the target too.
 *
 *   node bench/run.js verify          (after npm run build)
 *   BENCH_VERIFY_ROWS=100000,1000000 BENCH_VERIFY_LOBS=10000 BENCH_ROUNDS=5 node --import=tsx bench/verify.bench.ts
 */
import { spawn } from 'node:child_process';
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
const TOGETHER = process.env.BENCH_TOGETHER !== '0';

interface Run {
  /** CPU seconds (user + system, every thread): what the work costs, whatever else the machine runs */
  seconds: number;
  wall: number;
  peakMb: number;
}

/** The built CLI under /usr/bin/time: CPU seconds and peak RSS from time(1), wall time measured here. */
function cli(args: string[], expectCode = 0): Promise<Run> {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', '__TIME__ %U %S %M', process.execPath, CLI, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = Number(process.hrtime.bigint() - start) / 1e9;
      const m = /__TIME__ ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
      if (code !== expectCode || !m) reject(new Error(`siard-ocfl ${args.join(' ')} exited ${code}: ${stderr.slice(-2000)}`));
      else resolve({ seconds: Number(m[1]) + Number(m[2]), wall, peakMb: Number(m[3]) / 1024 });
    });
  });
}

interface Paired {
  /** ours / peer of each round, sorted */
  ratios: number[];
  /** the best CPU of each, the highest peak */
  ours: Run;
  peer: Run;
}

/**
 * ROUNDS rounds, each starting `ours` and `peer` at the same moment (which is spawned first
 * alternates), so that whatever else the machine runs meanwhile weighs on both alike; the ratio of
 * each round's CPU seconds, sorted; the best of each. BENCH_TOGETHER=0: one after the other.
 */
async function pair(ours: () => Promise<Run>, peer: () => Promise<Run>): Promise<Paired> {
  const out: Paired = {
    ratios: [],
    ours: { seconds: Infinity, wall: Infinity, peakMb: 0 },
    peer: { seconds: Infinity, wall: Infinity, peakMb: 0 },
  };
  for (let round = 0; round < ROUNDS; round++) {
    const first = round % 2 === 0;
    const [a, b] = TOGETHER
      ? first
        ? await Promise.all([ours(), peer()])
        : (await Promise.all([peer(), ours()])).reverse()
      : first
        ? [await ours(), await peer()]
        : [await peer(), await ours()].reverse();
    out.ratios.push(a!.seconds / b!.seconds);
    for (const [key, r] of [
      ['ours', a!],
      ['peer', b!],
    ] as const) {
      const best = out[key];
      out[key] = { seconds: Math.min(best.seconds, r.seconds), wall: Math.min(best.wall, r.wall), peakMb: Math.max(best.peakMb, r.peakMb) };
    }
  }
  out.ratios.sort((x, y) => x - y);
  return out;
}

let failed = 0;

/** verify of a restored database, against a restore of the same archive into a new file each round. */
async function verifyAgainstRestore(label: string, siard: string): Promise<void> {
  const target = path.join(OUT, `${label}.restored.db`);
  rmSync(target, { force: true });
  await cli(['restore', siard, target]); // what verify reads, every round
  let n = 0;
  const restore = () => {
    const fresh = path.join(OUT, `${label}.restore-${n++}.db`);
    rmSync(fresh, { force: true });
    return cli(['restore', siard, fresh]).finally(() => rmSync(fresh, { force: true }));
  };
  const paired = await pair(() => cli(['verify', siard, target]), restore);
  report(`verify / restore, ${label}`, paired, 1.0);
}

/** The value at fraction `q` of sorted `xs` (linear between neighbours). */
function quantile(xs: readonly number[], q: number): number {
  const at = (xs.length - 1) * q;
  const low = Math.floor(at);
  return xs[low]! + (xs[Math.min(low + 1, xs.length - 1)]! - xs[low]!) * (at - low);
}

/** One line per case, printed as soon as it is measured. */
function report(what: string, paired: Paired, limit: number): void {
  const { ratios, ours, peer } = paired;
  const median = quantile(ratios, 0.5);
  const ok = median <= limit;
  if (!ok) failed++;
  console.log(
    `${what.padEnd(40)} CPU median of ${ROUNDS} rounds ${TOGETHER ? 'started together' : 'one after the other'} ${median.toFixed(3)} ` +
      `(<= ${limit}: ${ok ? 'met' : 'NOT met'}; quartiles ${quantile(ratios, 0.25).toFixed(3)}-${quantile(ratios, 0.75).toFixed(3)}, ` +
      `range ${ratios[0]!.toFixed(3)}-${ratios.at(-1)!.toFixed(3)}); best ${ours.seconds.toFixed(2)} / ${peer.seconds.toFixed(2)} CPU s; ` +
      `wall ${ours.wall.toFixed(2)} / ${peer.wall.toFixed(2)} s; peak ${ours.peakMb.toFixed(0)} / ${peer.peakMb.toFixed(0)} MiB`,
  );
}

mkdirSync(OUT, { recursive: true });
for (const rows of SIZES) {
  const label = `rows${rows}`;
  const db = path.join(OUT, `${label}.db`);
  buildRowDb(db, rows);
  const out = path.join(OUT, `${label}.export`);
  rmSync(out, { recursive: true, force: true });
  await cli(['export', db, out]);
  await verifyAgainstRestore(`${rows.toLocaleString('en')} rows`, path.join(out, `${label}.siard`));
}
if (LOBS > 0) {
  const label = `lobs${LOBS}`;
  const db = path.join(OUT, `${label}.db`);
  rmSync(db, { force: true });
  buildLobDb(db, LOBS);
  const out = path.join(OUT, `${label}.export`);
  rmSync(out, { recursive: true, force: true });
  await cli(['export', db, out]);
  await verifyAgainstRestore(`${LOBS.toLocaleString('en')} LOB files`, path.join(out, `${label}.siard`));
}

process.exit(failed ? 1 : 0);
