/**
 * The reading room on large tables (issue 31): `siard-ocfl serve` (the built CLI, a child process)
 * over a root holding one object of the narrow-rows database (bench/rows-db.ts) at each size, and
 * - the first page of rows (50) of the table: the first request (opens the object and the
 *   archive) and the same page again, against the 1 s target, and against the peer, `sqlite3`
 *   reading the same 50 rows from the source database;
 * - page 1,000 (rows 49,951 ... 50,000: the table XML streamed up to it);
 * - the list of objects (`/`) and the row page of row 1;
 * - a search for a text no row holds (the scan runs for its 2 s budget: rows scanned per second,
 *   and how long a search of the whole table takes at that rate, continuations included);
 * - serve's peak RSS (VmHWM) after all of it.
 * BENCH_SERVE_ROWS (default 1000000,5000000) sets the sizes; databases and roots are kept in
 * bench/out/serve and reused.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRowDb } from './rows-db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'bench', 'out', 'serve');
const CLI = path.join(ROOT, 'bin', 'siard-ocfl');
const SIZES = (process.env.BENCH_SERVE_ROWS ?? '1000000,5000000').split(',').map(Number);
const TARGET_S = 1;
const ID = 'urn:example:serve-bench';

function cli(args: string[]): void {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, SIARD_OCFL_USER_NAME: 'Bench', SIARD_OCFL_USER_ADDRESS: 'mailto:bench@example.org' },
  });
  if (r.status !== 0) throw new Error(`siard-ocfl ${args[0]} failed: ${r.stderr}`);
}

function rootFor(rows: number): { db: string; root: string } {
  const db = path.join(OUT, `rows-${rows}.db`);
  const root = path.join(OUT, `root-${rows}`);
  buildRowDb(db, rows);
  if (!existsSync(path.join(root, '0=ocfl_1.1'))) {
    rmSync(root, { recursive: true, force: true });
    cli(['init', '--root', root]);
    cli(['ingest', db, '--root', root, '--id', ID]);
  }
  return { db, root };
}

async function timed(url: string): Promise<{ seconds: number; status: number; bytes: number }> {
  const start = process.hrtime.bigint();
  const res = await fetch(url);
  const body = await res.arrayBuffer();
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, status: res.status, bytes: body.byteLength };
}

function peer(db: string): number {
  const start = process.hrtime.bigint();
  const r = spawnSync('sqlite3', ['-html', db, 'SELECT * FROM events ORDER BY rowid LIMIT 50'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`sqlite3 failed: ${r.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e9;
}

async function startServe(root: string) {
  const child = spawn(process.execPath, [CLI, 'serve', '--root', root, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = / at (http:\/\/\S+\/)\n/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  return { child, url };
}

function peakMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

const fmt = (s: number) => `${(s * 1000).toFixed(0)} ms`;

async function benchSize(rows: number): Promise<boolean> {
  const { db, root } = rootFor(rows);
  const { child, url } = await startServe(root);
  try {
    const id = encodeURIComponent(ID);
    const table = `${url}table?id=${id}&s=main&t=events`;
    const cold = await timed(table);
    const warm = await timed(table);
    const deep = await timed(`${table}&page=1000`);
    const list = await timed(url);
    const row = await timed(`${url}row?id=${id}&s=main&t=events&r=1`);
    const searchStart = process.hrtime.bigint();
    const search = await (await fetch(`${table}&q=no-row-holds-this`)).text();
    const searchSeconds = Number(process.hrtime.bigint() - searchStart) / 1e9;
    const scanned = Number(/Scanned rows 1 to (?:the end \()?(\d+)/.exec(search)?.[1] ?? NaN);
    const sqlite = peer(db);
    const peak = peakMb(child.pid!);
    for (const r of [cold, warm, deep, list, row]) if (r.status !== 200) throw new Error(`a page answered ${r.status}`);
    const pass = cold.seconds <= TARGET_S;
    console.log(`${rows.toLocaleString('en')} rows:`);
    console.log(`  first page, first request      ${fmt(cold.seconds)}  (target <= ${TARGET_S} s: ${pass ? 'PASS' : 'FAIL'})`);
    console.log(
      `  first page again               ${fmt(warm.seconds)}  ` +
        `(sqlite3 -html, 50 rows: ${fmt(sqlite)}; ratio ${(warm.seconds / sqlite).toFixed(2)})`,
    );
    console.log(`  page 1,000 (rows 49,951-50,000) ${fmt(deep.seconds)}`);
    console.log(`  list of objects                ${fmt(list.seconds)}`);
    console.log(`  row 1                          ${fmt(row.seconds)}`);
    const perSecond = scanned / searchSeconds;
    console.log(
      `  search, first request          ${fmt(searchSeconds)}: ${scanned.toLocaleString('en')} rows scanned ` +
        `(${Math.round(perSecond).toLocaleString('en')} rows/s; the whole table ~${(rows / perSecond).toFixed(1)} s of scanning)`,
    );
    console.log(`  serve peak RSS                 ${peak.toFixed(0)} MB`);
    return pass;
  } finally {
    child.kill('SIGTERM');
  }
}

mkdirSync(OUT, { recursive: true });
let ok = true;
for (const rows of SIZES) ok = (await benchSize(rows)) && ok;
process.exit(ok ? 0 : 1);
