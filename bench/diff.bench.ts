/**
 * diff between two versions (issue 34, point 3): what it costs against reading the two tables once.
 * An object holds two ingests of the narrow-rows table (bench/rows-db.ts), the second of a copy in
 * which 1% of the rows were updated, 0.5% deleted, 0.5% inserted and a column added. Measured:
 * - `diff --json v1 v2` against `rows` of the table in v1 plus `rows` of it in v2 (CSV, streamed:
 *   reading the two tables once), at each size, in CPU seconds (user + system, from time(1): a
 *   shared machine's load changes wall times, not these; wall times are printed too); target at most 2.0x;
 * - the size series: seconds per million rows at each size, which must not grow with the size
 *   (linear time; at most 1.5x the smallest size's), and diff's peak memory (RSS), bounded whatever
 *   the size: at most the smallest size's + 64 MiB, what PendingRows holds in memory before disk
 *   (rows of version A without a partner, the deleted ones, wait there to the end: any order is
 *   allowed, so none is known deleted before version B has ended).
 * Each pair runs BENCH_ROUNDS times (default 2), alternating which goes first; the best time counts.
 *
 * Measured at cb86896 (one round, load 7-28 from other sessions): 100,000 rows 1.90 / 2.70 CPU s =
 * 0.70, 300,000 4.21 / 5.29 = 0.80, 1,000,000 12.87 / 12.70 = 1.01; 19.0, 14.0, 12.9 CPU s per
 * million rows; peak 109, 111, 117 MiB (rows: 100-103). Before cb86896 the peak grew (122, 149, 257).
 *
 * At 1ccec7c (the matcher back in step after a deleted or added row), one round niced at load ~26:
 * 1,000,000 rows 8.55 CPU s, peak 110 MiB; 10,000,000 rows 48.5 CPU s (4.9 per million: start-up
 * and the table's first rows amortised), peak 143 MiB, against reading both tables 79.6 CPU s (from
 * the round before, the same code for rows) = 0.61; its JSON: exactly 50,000 added, 50,000 removed,
 * 100,000 changed and the column added. Before it, the same pair: 10,000,000 rows 159.6 / 79.6 CPU
 * s = 2.00, peak 169 MiB; 1,000,000 rows 11.59 / 10.62 = 1.09, peak 117 MiB.
 *
 *   node bench/run.js diff          (after npm run build)
 *   BENCH_DIFF_ROWS=100000,300000,1000000 BENCH_ROUNDS=2 node --import=tsx bench/diff.bench.ts
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from '../src/sources/sqlite/driver.js';
import { buildRowDb } from './rows-db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'bench', 'out', 'diff');
const CLI = path.join(ROOT, 'bin', 'siard-ocfl');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SIZES = (process.env.BENCH_DIFF_ROWS ?? '100000,300000,1000000').split(',').map(Number);
const ID = 'urn:example:events';

interface Run {
  /** CPU seconds (user + system): what the work costs, whatever else the machine runs */
  seconds: number;
  wall: number;
  peakMb: number;
}

/** The built CLI under /usr/bin/time, stdout to /dev/null: CPU seconds and peak RSS from time(1), wall time measured here. */
function cli(args: string[], expectCode = 0): Run {
  const start = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '__TIME__ %U %S %M', process.execPath, CLI, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== expectCode) throw new Error(`siard-ocfl ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  const m = /__TIME__ ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr);
  return { seconds: Number(m?.[1]) + Number(m?.[2]), wall, peakMb: Number(m?.[3]) / 1024 };
}

/** The second version's database: 1% updated, 0.5% deleted, 0.5% inserted, a column added. */
function changedCopy(from: string, to: string, rows: number): void {
  rmSync(to, { force: true });
  copyFileSync(from, to);
  const db = new Database(to);
  db.exec(`UPDATE events SET name = name || ' (changed)' WHERE id % 100 = 7;
           DELETE FROM events WHERE id % 200 = 11;
           ALTER TABLE events ADD COLUMN source TEXT;`);
  const ins = db.prepare('INSERT INTO events (id, name, amount, at, note) VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= rows / 200; i++) ins.run(rows + i, `new ${i}`, i, '2024-02-01 00:00:00', null);
  })();
  db.close();
}

/** `a` and `b` alternating ROUNDS times, which goes first alternating too; the best time of each, the highest peak. */
function pair(a: () => Run, b: () => Run): [Run, Run] {
  const best: [Run, Run] = [
    { seconds: Infinity, wall: Infinity, peakMb: 0 },
    { seconds: Infinity, wall: Infinity, peakMb: 0 },
  ];
  for (let round = 0; round < ROUNDS; round++) {
    for (const k of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const r = (k === 0 ? a : b)();
      best[k] = {
        seconds: Math.min(best[k]!.seconds, r.seconds),
        wall: Math.min(best[k]!.wall, r.wall),
        peakMb: Math.max(best[k]!.peakMb, r.peakMb),
      };
    }
  }
  return best;
}

mkdirSync(OUT, { recursive: true });
const series: Array<{ rows: number; diff: Run; read: Run }> = [];
for (const rows of SIZES) {
  const v1 = path.join(OUT, `rows${rows}.db`);
  buildRowDb(v1, rows);
  const v2 = path.join(OUT, `rows${rows}.changed.db`);
  // the object with its two versions, built once per size (remove bench/out/diff to build it again)
  const root = path.join(OUT, `root${rows}`);
  if (!existsSync(`${root}.done`)) {
    changedCopy(v1, v2, rows);
    rmSync(root, { recursive: true, force: true });
    cli(['init', '--root', root]);
    const who = ['--user-name', 'bench', '--user-address', 'mailto:bench@example.org', '--name', 'events'];
    cli(['ingest', v1, '--root', root, '--id', ID, ...who]);
    cli(['ingest', v2, '--root', root, '--id', ID, ...who]);
    writeFileSync(`${root}.done`, '');
  }
  const read = (): Run => {
    const one = (v: string) => cli(['rows', '--root', root, '--id', ID, '--version', v, '--table', 'events']);
    const [x, y] = [one('v1'), one('v2')];
    return { seconds: x.seconds + y.seconds, wall: x.wall + y.wall, peakMb: Math.max(x.peakMb, y.peakMb) };
  };
  const [diff, peer] = pair(() => cli(['diff', '--root', root, '--id', ID, 'v1', 'v2', '--json'], 1), read);
  series.push({ rows, diff, read: peer });
}

let failed = 0;
const perMillion = (r: { rows: number; diff: Run }) => (r.diff.seconds / r.rows) * 1e6;
const first = series[0]!;
for (const r of series) {
  const ratio = r.diff.seconds / r.read.seconds;
  const growth = perMillion(r) / perMillion(first);
  // memory bounded: PendingRows holds 64 MiB of rows without a partner, then a file
  const peakGrowth = r.diff.peakMb - first.diff.peakMb;
  const ok = ratio <= 2.0 && growth <= 1.5 && peakGrowth <= 64;
  if (!ok) failed++;
  console.log(
    `diff v1 v2 / rows v1 + rows v2, ${r.rows.toLocaleString('en')} rows: ` +
      `${r.diff.seconds.toFixed(2)} / ${r.read.seconds.toFixed(2)} CPU s = ` +
      `${ratio.toFixed(2)} (<= 2.0); ${perMillion(r).toFixed(2)} s per million rows (${growth.toFixed(2)}x the smallest size's, <= 1.5): ` +
      `${ok ? 'met' : 'NOT met'}; wall ${r.diff.wall.toFixed(2)} / ${r.read.wall.toFixed(2)} s; ` +
      `peak ${r.diff.peakMb.toFixed(0)} / ${r.read.peakMb.toFixed(0)} MiB (diff's ${peakGrowth.toFixed(0)} MiB over the smallest's, <= 64)`,
  );
}
process.exit(failed ? 1 : 0);
