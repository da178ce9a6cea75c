/**
 * What the table fingerprints cost an export (issue 34, point 2: at most 10% of its time): the same
 * export with them and without (`fingerprints: false`), each in a process of its own running the same
 * exportToDirectory, so nothing but them differs, at
 * several sizes of the narrow-rows table (bench/rows-db.ts: integer, text, real, timestamp, nullable
 * text) and on LOB files of 2-4 KiB (bench/lobs-db.ts). Times are CPU seconds (process.cpuUsage:
 * a shared machine's load changes wall times much more than these). Each pair runs BENCH_ROUNDS
 * times (default 5), alternating which goes first; the best time of each counts.
 *
 *   node bench/run.js fingerprints
 *   BENCH_FP_ROWS=100000,300000,1000000 BENCH_FP_LOBS=10000 BENCH_ROUNDS=5 node --import=tsx bench/fingerprints.bench.ts
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportToDirectory } from '../src/siard/export-directory.js';
import { openSource } from '../src/sources/open.js';
import { buildLobDb } from './lobs-db.js';
import { buildRowDb } from './rows-db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'bench', 'out', 'fingerprints');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SIZES = (process.env.BENCH_FP_ROWS ?? '100000,300000,1000000').split(',').map(Number);
const LOBS = Number(process.env.BENCH_FP_LOBS ?? 10_000);
const LIMIT = 1.1;

/** One export of `db` into a new folder: its CPU seconds (user + system, every thread of the process). */
async function exportHere(label: string, db: string, fingerprints: boolean): Promise<number> {
  const out = path.join(OUT, `${label}.export-${fingerprints ? 'on' : 'off'}`);
  rmSync(out, { recursive: true, force: true });
  const source = await openSource(db);
  const start = process.cpuUsage();
  try {
    await exportToDirectory(source, out, { name: label, fingerprints });
  } finally {
    await source.close();
  }
  const used = process.cpuUsage(start);
  const seconds = (used.user + used.system) / 1e6;
  rmSync(out, { recursive: true, force: true });
  return seconds;
}

/**
 * One export in a process of its own, so that the code runs as in a real export, compiled for one
 * mode only (in one process, the writer's hot loop would see both and be compiled for both).
 */
function exportOnce(label: string, db: string, fingerprints: boolean): number {
  const r = spawnSync(process.execPath, ['--import=tsx', fileURLToPath(import.meta.url), '--one', label, db, String(fingerprints)], {
    encoding: 'utf8',
    cwd: ROOT,
  });
  const seconds = Number(/^cpu (\S+)$/m.exec(r.stdout)?.[1]);
  if (r.status !== 0 || Number.isNaN(seconds)) throw new Error(`the export of ${db} failed: ${r.stderr.slice(-2000)}`);
  return seconds;
}

/** With and without, alternating ROUNDS times; the best of each. */
async function measure(label: string, db: string): Promise<{ on: number; off: number }> {
  const best = { on: Infinity, off: Infinity };
  for (let round = 0; round < ROUNDS; round++) {
    for (const on of round % 2 === 0 ? [true, false] : [false, true]) {
      const s = exportOnce(label, db, on);
      if (on) best.on = Math.min(best.on, s);
      else best.off = Math.min(best.off, s);
    }
  }
  return best;
}

if (process.argv[2] === '--one') {
  const [label, db, on] = process.argv.slice(3);
  console.log(`cpu ${await exportHere(label!, db!, on === 'true')}`);
  process.exit(0);
}

mkdirSync(OUT, { recursive: true });
const cases: Array<{ label: string; db: string }> = [];
for (const rows of SIZES) {
  const db = path.join(OUT, `rows${rows}.db`);
  buildRowDb(db, rows);
  cases.push({ label: `${rows.toLocaleString('en')} narrow rows`, db });
}
if (LOBS > 0) {
  const db = path.join(OUT, `lobs${LOBS}.db`);
  if (!existsSync(db)) buildLobDb(db, LOBS);
  cases.push({ label: `${LOBS.toLocaleString('en')} LOB files`, db });
}
let failed = 0;
for (const c of cases) {
  const { on, off } = await measure(c.label.replace(/\W+/g, '-'), c.db);
  const ratio = on / off;
  if (ratio > LIMIT) failed++;
  console.log(
    `export with fingerprints / without, ${c.label.padEnd(22)} ${on.toFixed(2)} / ${off.toFixed(2)} CPU s = ${ratio.toFixed(3)} ` +
      `(<= ${LIMIT}: ${ratio <= LIMIT ? 'met' : 'NOT met'})`,
  );
}
process.exit(failed ? 1 : 0);
