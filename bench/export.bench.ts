/**
 * Export throughput and memory (issue 4, acceptance 9). Two SQLite databases:
 *   lobs.db: 10,000 BLOBs of 100 KiB (1 GiB), exported with external LOBs (lobseg);
 *   rows.db: one table of 5,000,000 rows (integer, text, real, timestamp, nullable text).
 * Each is exported by the built CLI (`siard-ocfl export`, its peak RSS taken by /usr/bin/time) and
 * dumped by the peer baseline `sqlite3 <db> .dump | gzip -1 > /dev/null` in the same run.
 * Prints MB/s and rows/s as ratios to the baseline, and peak memory (must stay under 200 MB).
 *
 *   node bench/run.js export        (after npm run build)
 *   BENCH_LOBS=1000 BENCH_ROWS=500000 node --import=tsx bench/export.bench.ts   (smaller)
 */
import Database from '../src/sources/sqlite/driver.js';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'bench', 'out', 'export');
const LOBS = Number(process.env.BENCH_LOBS ?? 10_000);
const LOB_SIZE = 100 * 1024;
const ROWS = Number(process.env.BENCH_ROWS ?? 5_000_000);
const MEMORY_LIMIT_MB = 200;

function buildLobDb(file: string): void {
  if (existsSync(file)) return;
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec('CREATE TABLE documents (id INTEGER PRIMARY KEY, name TEXT, content BLOB)');
  const ins = db.prepare('INSERT INTO documents VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= LOBS; i++) ins.run(i, `document ${i}.bin`, randomBytes(LOB_SIZE));
  })();
  db.close();
}

function buildRowDb(file: string): void {
  if (existsSync(file)) return;
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec('CREATE TABLE events (id INTEGER PRIMARY KEY, name VARCHAR(40), amount REAL, at DATETIME, note TEXT)');
  const ins = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= ROWS; i++) {
      const s = i % 86400;
      const at = `2024-01-${String(1 + (i % 28)).padStart(2, '0')} ${String((s / 3600) | 0).padStart(2, '0')}:${String(((s / 60) | 0) % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
      ins.run(i, `event ${i}`, i * 0.25, at, i % 3 === 0 ? null : `note <${i}> & more`);
    }
  })();
  db.close();
}

function seconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

function baseline(db: string): number {
  const start = process.hrtime.bigint();
  const r = spawnSync('sh', ['-c', `sqlite3 '${db}' .dump | gzip -1 > /dev/null`], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('sqlite3 .dump | gzip -1 failed');
  return seconds(start);
}

function ours(db: string, outDir: string, extra: string[]): { seconds: number; peakMb: number } {
  rmSync(outDir, { recursive: true, force: true });
  const start = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, path.join(ROOT, 'bin', 'siard-ocfl'), 'export', db, outDir, ...extra], {
    encoding: 'utf8',
  });
  const took = seconds(start);
  if (r.status !== 0) throw new Error(`export failed: ${r.stderr}`);
  const kb = Number(r.stderr.trim().split('\n').pop());
  return { seconds: took, peakMb: kb / 1024 };
}

mkdirSync(OUT, { recursive: true });
const lobDb = path.join(OUT, `lobs-${LOBS}.db`);
const rowDb = path.join(OUT, `rows-${ROWS}.db`);
buildLobDb(lobDb);
buildRowDb(rowDb);

const lobBytes = LOBS * LOB_SIZE;
const mb = lobBytes / 1e6;
const lobBase = baseline(lobDb);
const lobOurs = ours(lobDb, path.join(OUT, 'lobs-out'), ['--max-bytes', String(1e9)]);
const rowBase = baseline(rowDb);
const rowOurs = ours(rowDb, path.join(OUT, 'rows-out'), []);
const siardSize = statSync(path.join(OUT, 'rows-out', `rows-${ROWS}.siard`)).size;

const fmt = (n: number) => n.toFixed(1);
console.log(`LOBs: ${LOBS} x ${LOB_SIZE} B = ${fmt(mb)} MB`);
console.log(`  siard-ocfl export      ${fmt(mb / lobOurs.seconds)} MB/s  (${fmt(lobOurs.seconds)} s, peak ${fmt(lobOurs.peakMb)} MB)`);
console.log(`  sqlite3 .dump|gzip -1  ${fmt(mb / lobBase)} MB/s  (${fmt(lobBase)} s)`);
console.log(`  ratio ours/baseline    ${(lobBase / lobOurs.seconds).toFixed(2)}`);
console.log(`Rows: ${ROWS} rows (.siard ${fmt(siardSize / 1e6)} MB)`);
console.log(`  siard-ocfl export      ${Math.round(ROWS / rowOurs.seconds)} rows/s  (${fmt(rowOurs.seconds)} s, peak ${fmt(rowOurs.peakMb)} MB)`);
console.log(`  sqlite3 .dump|gzip -1  ${Math.round(ROWS / rowBase)} rows/s  (${fmt(rowBase)} s)`);
console.log(`  ratio ours/baseline    ${(rowBase / rowOurs.seconds).toFixed(2)}`);
const peak = Math.max(lobOurs.peakMb, rowOurs.peakMb);
console.log(`Peak memory ${fmt(peak)} MB (limit ${MEMORY_LIMIT_MB} MB): ${peak < MEMORY_LIMIT_MB ? 'ok' : 'OVER'}`);
rmSync(path.join(OUT, 'lobs-out'), { recursive: true, force: true });
rmSync(path.join(OUT, 'rows-out'), { recursive: true, force: true });
if (peak >= MEMORY_LIMIT_MB) process.exit(1);
