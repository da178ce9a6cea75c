/**
 * Export and restore throughput and memory (issue 4, acceptance 9; issue 16). Two SQLite databases:
 *   lobs.db: 10,000 BLOBs of 100 KiB (1 GiB), exported with external LOBs (lobseg);
 *   rows.db: one table of BENCH_ROWS rows (integer, text, real, timestamp, nullable text), by default
 *   1,000,000: the size of the README table's rows (export-sqlite, export-postgres, reportRow).
 * Every run of ours is the built CLI in a child process (peak RSS from /usr/bin/time); every peer
 * runs in the same bench, on the same data, so the ratios hold on a shared machine:
 *   - export of lobs.db and rows.db against `sqlite3 <db> .dump | gzip -1 > /dev/null`;
 *   - a CPU profile of the rows export (`node --cpu-prof`): its top entries, where the time goes;
 *   - `ingest` of rows.db into a new OCFL object against the rows export (one pass, no copy);
 *   - `restore` of the rows archive into a new SQLite file against `sqlite3 new.db < dump.sql`;
 *   - PostgreSQL (a throw-away server on 127.0.0.1, test/helpers/postgres.ts) holding the same rows:
 *     export against `pg_dump -Fc`, restore of that archive into a new database against `pg_restore`.
 * Each pair is measured BENCH_ROUNDS times (default 3), ours and the peer alternating, and the best
 * of each counts: on this shared machine the same run takes anywhere from 10 to 17 s from one minute to
 * the next (the host's load, which neither side controls), so the best of three is what each side can
 * do. Peak memory of every run of ours must stay under 200 MB.
 *
 *   node bench/run.js export        (after npm run build)
 *   BENCH_LOBS=0 BENCH_ROWS=5000000 node --import=tsx bench/export.bench.ts   (rows only, larger)
 *   BENCH_PROFILE=0 skips the profile, BENCH_PG=0 the PostgreSQL part.
 */
import Database from '../src/sources/sqlite/driver.js';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { postgresAvailable, startPostgres } from '../test/helpers/postgres-server.js';
import { profileTop } from './cpu-profile.js';
import { loadNow, reportRow, type RowId } from './readme-rows.js';
import { buildRowDb, loadRowsIntoPostgres } from './rows-db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'bench', 'out', 'export');
const LOBS = Number(process.env.BENCH_LOBS ?? 10_000);
const LOB_SIZE = 100 * 1024;
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PROFILE = process.env.BENCH_PROFILE !== '0';
const WITH_PG = process.env.BENCH_PG !== '0';
const MEMORY_LIMIT_MB = 200;
const CLI = path.join(ROOT, 'bin', 'siard-ocfl');

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

interface Run {
  seconds: number;
  /** max RSS of the process (MB), NaN for shell pipelines of peers */
  peakMb: number;
}

/** Runs `argv` under /usr/bin/time: wall time measured here, peak RSS from time(1). */
function run(label: string, argv: string[], env: NodeJS.ProcessEnv = {}): Run {
  const start = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '__PEAK__ %M', ...argv], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 1 << 26,
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0) throw new Error(`${label} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const kb = Number(/__PEAK__ (\d+)/.exec(r.stderr)?.[1] ?? NaN);
  return { seconds, peakMb: kb / 1024 };
}

function shell(label: string, command: string): Run {
  return { seconds: run(label, ['sh', '-c', command]).seconds, peakMb: NaN };
}

function cli(label: string, args: string[], env: NodeJS.ProcessEnv = {}): Run {
  return run(label, [process.execPath, CLI, ...args], env);
}

interface Pair {
  ours: Run;
  peer: Run;
  /** the 1-minute load average before each run */
  loads: number[];
}

/** Ours and the peer, alternating, BENCH_ROUNDS times; `before` runs (untimed) ahead of every run. */
function pair(ours: () => Run, peer: () => Run, before: () => void = () => {}): Pair {
  const best = { ours: undefined as Run | undefined, peer: undefined as Run | undefined };
  const loads: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    before();
    loads.push(loadNow());
    const o = ours();
    before();
    loads.push(loadNow());
    const p = peer();
    if (!best.ours || o.seconds < best.ours.seconds) best.ours = { seconds: o.seconds, peakMb: Math.max(o.peakMb, best.ours?.peakMb ?? 0) };
    else best.ours.peakMb = Math.max(best.ours.peakMb, o.peakMb);
    if (!best.peer || p.seconds < best.peer.seconds) best.peer = p;
  }
  return { ours: best.ours!, peer: best.peer!, loads };
}

const SOURCE_NAMES: Partial<Record<RowId, string>> = { 'export-sqlite': 'SQLite', 'export-postgres': 'PostgreSQL' };

/** An export pair as a row of the README's table (rows/s: the peer's time over ours). */
function reportExport(id: RowId, r: Pair): void {
  reportRow({
    id,
    ours: `${fmt(r.ours.seconds, 2)} s`,
    peer: `${fmt(r.peer.seconds, 2)} s`,
    ratio: r.peer.seconds / r.ours.seconds,
    peakMb: r.ours.peakMb,
    load: r.loads,
    ...(ROWS === 1_000_000 ? {} : { work: `export ${ROWS.toLocaleString('en')} narrow rows from ${SOURCE_NAMES[id]}` }),
  });
}

const peaks: Array<[string, number]> = [];
const fmt = (n: number, d = 1) => n.toFixed(d);

/** Prints a throughput pair (higher is better): `units` per second, ratio ours/peer, and a target. */
function printRate(title: string, units: number, unitName: string, oursName: string, peerName: string, r: Pair, target?: number): boolean {
  const ratio = r.peer.seconds / r.ours.seconds;
  peaks.push([oursName, r.ours.peakMb]);
  console.log(title);
  console.log(
    `  ${oursName.padEnd(28)} ${Math.round(units / r.ours.seconds).toLocaleString('en')} ${unitName}/s  ` +
      `(${fmt(r.ours.seconds, 2)} s, peak ${fmt(r.ours.peakMb)} MB)`,
  );
  console.log(
    `  ${peerName.padEnd(28)} ${Math.round(units / r.peer.seconds).toLocaleString('en')} ${unitName}/s  (${fmt(r.peer.seconds, 2)} s)`,
  );
  const verdict = target === undefined ? '' : ratio >= target ? `  (target >= ${target}: PASS)` : `  (target >= ${target}: FAIL)`;
  console.log(`  ratio ours/peer (${unitName}/s)   ${ratio.toFixed(2)}${verdict}`);
  return target === undefined || ratio >= target;
}

/** Prints a time pair (lower is better): ratio of our time to the peer's, and a target. */
function printTime(title: string, oursName: string, peerName: string, r: { ours: Run; peer: Run }, target?: number): boolean {
  const ratio = r.ours.seconds / r.peer.seconds;
  peaks.push([oursName, r.ours.peakMb]);
  console.log(title);
  console.log(`  ${oursName.padEnd(28)} ${fmt(r.ours.seconds, 2)} s (peak ${fmt(r.ours.peakMb)} MB)`);
  console.log(`  ${peerName.padEnd(28)} ${fmt(r.peer.seconds, 2)} s`);
  const verdict = target === undefined ? '' : ratio <= target ? `  (target <= ${target}: PASS)` : `  (target <= ${target}: FAIL)`;
  console.log(`  time ours/peer               ${ratio.toFixed(2)}${verdict}`);
  return target === undefined || ratio <= target;
}

function lobPart(work: string): void {
  const lobDb = path.join(OUT, `lobs-${LOBS}.db`);
  buildLobDb(lobDb);
  const out = path.join(work, 'lobs-out');
  const r = pair(
    () => cli('export lobs', ['export', lobDb, out, '--max-bytes', String(1e9)]),
    () => shell('sqlite3 .dump | gzip -1', `sqlite3 '${lobDb}' .dump | gzip -1 > /dev/null`),
    () => rmSync(out, { recursive: true, force: true }),
  );
  printRate(
    `LOBs: ${LOBS} x ${LOB_SIZE} B = ${fmt((LOBS * LOB_SIZE) / 1e6)} MB`,
    (LOBS * LOB_SIZE) / 1e6,
    'MB',
    'siard-ocfl export',
    'sqlite3 .dump | gzip -1',
    r,
  );
  rmSync(out, { recursive: true, force: true });
}

/** The rows export under `node --cpu-prof`: the costliest functions by self time. */
function profilePart(work: string, rowDb: string): void {
  const dir = path.join(work, 'profile');
  const out = path.join(work, 'profile-out');
  run('profiled export', [process.execPath, '--cpu-prof', `--cpu-prof-dir=${dir}`, CLI, 'export', rowDb, out]);
  console.log('Profile of the rows export (node --cpu-prof, self time, top 12; native SQLite and zlib work shows under its caller):');
  for (const line of profileTop(dir, 12)) console.log(`  ${line}`);
  rmSync(out, { recursive: true, force: true });
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const work = mkdtempSync(path.join(OUT, 'run-'));
  const failures: string[] = [];
  const check = (ok: boolean, what: string) => ok || failures.push(what);
  try {
    console.log(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} (${os.availableParallelism()} cores), best of ${ROUNDS} rounds per pair`,
    );
    if (LOBS > 0) lobPart(work);

    const rowDb = path.join(OUT, `rows-${ROWS}.db`);
    buildRowDb(rowDb, ROWS);
    const rowsOut = path.join(work, 'rows-out');
    const siard = path.join(rowsOut, `rows-${ROWS}.siard`);
    const exp = pair(
      () => cli('export rows', ['export', rowDb, rowsOut]),
      () => shell('sqlite3 .dump | gzip -1', `sqlite3 '${rowDb}' .dump | gzip -1 > /dev/null`),
      () => rmSync(rowsOut, { recursive: true, force: true }),
    );
    cli('export rows (kept)', ['export', rowDb, rowsOut]);
    const siardMb = statSync(siard).size / 1e6;
    check(
      printRate(`Rows: ${ROWS} rows (.siard ${fmt(siardMb)} MB)`, ROWS, 'rows', 'siard-ocfl export', 'sqlite3 .dump | gzip -1', exp, 0.75),
      'SQLite export',
    );
    reportExport('export-sqlite', exp);
    if (PROFILE) profilePart(work, rowDb);

    // ingest: the same export written straight into a staged OCFL version, against the export
    const root = path.join(work, 'ocfl-root');
    const ing = pair(
      () => cli('ingest rows', ['ingest', rowDb, '--root', root, '--id', 'rows']),
      () => cli('export rows', ['export', rowDb, path.join(work, 'rows-again')]),
      () => {
        rmSync(root, { recursive: true, force: true });
        rmSync(path.join(work, 'rows-again'), { recursive: true, force: true });
        cli('init', ['init', root]);
      },
    );
    check(
      printTime(
        'Ingest of rows.db into a new OCFL object, against the export of rows.db',
        'siard-ocfl ingest',
        'siard-ocfl export',
        ing,
        1.2,
      ),
      'ingest',
    );
    rmSync(root, { recursive: true, force: true });
    rmSync(path.join(work, 'rows-again'), { recursive: true, force: true });

    // restore into SQLite against sqlite3 reading its own dump
    const dump = path.join(work, 'dump.sql');
    spawnSync('sh', ['-c', `sqlite3 '${rowDb}' .dump > '${dump}'`]);
    const restored = path.join(work, 'restored.db');
    const peerDb = path.join(work, 'peer.db');
    const res = pair(
      () => cli('restore rows', ['restore', siard, restored]),
      () => shell('sqlite3 < dump.sql', `sqlite3 '${peerDb}' < '${dump}'`),
      () => {
        rmSync(restored, { force: true });
        rmSync(peerDb, { force: true });
      },
    );
    check(
      printRate(
        'Restore of the rows archive into a new SQLite file',
        ROWS,
        'rows',
        'siard-ocfl restore',
        'sqlite3 new.db < dump.sql',
        res,
        0.5,
      ),
      'SQLite restore',
    );
    rmSync(restored, { force: true });
    rmSync(peerDb, { force: true });
    rmSync(dump, { force: true });

    if (WITH_PG && postgresAvailable()) await postgresPart(work, rowDb, check);
    else console.log('PostgreSQL: skipped (BENCH_PG=0, or initdb / pg_ctl not installed)');

    const peak = Math.max(...peaks.map(([, mb]) => mb).filter((mb) => !Number.isNaN(mb)));
    const worst = peaks.find(([, mb]) => mb === peak)?.[0] ?? '';
    console.log(`Peak memory ${fmt(peak)} MB (${worst}; limit ${MEMORY_LIMIT_MB} MB): ${peak < MEMORY_LIMIT_MB ? 'ok' : 'OVER'}`);
    check(peak < MEMORY_LIMIT_MB, 'peak memory');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    console.log(`Targets missed: ${failures.join(', ')}`);
    process.exit(1);
  }
}

async function query(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** The same rows in PostgreSQL: export against pg_dump -Fc, restore against pg_restore. */
async function postgresPart(work: string, rowDb: string, check: (ok: boolean, what: string) => void): Promise<void> {
  const server = await startPostgres();
  try {
    await server.createDatabase('rows_src');
    const src = server.url('rows_src');
    loadRowsIntoPostgres(rowDb, src);
    await query(src, 'VACUUM ANALYZE events');
    const out = path.join(work, 'pg-out');
    const dump = path.join(work, 'rows.fc');
    const exp = pair(
      () => cli('export postgres', ['export', src, out, '--name', 'rowspg']),
      () => run('pg_dump -Fc', ['pg_dump', '-Fc', '-f', dump, src]),
      () => {
        rmSync(out, { recursive: true, force: true });
        rmSync(dump, { force: true });
      },
    );
    printRate(`PostgreSQL: the same ${ROWS} rows`, ROWS, 'rows', 'siard-ocfl export', 'pg_dump -Fc', exp, 0.5);
    reportExport('export-postgres', exp);
    cli('export postgres (kept)', ['export', src, out, '--name', 'rowspg']);
    run('pg_dump -Fc (kept)', ['pg_dump', '-Fc', '-f', dump, src]);
    const fresh = async (name: string) => {
      await query(server.url('postgres'), `DROP DATABASE IF EXISTS ${name}`);
      await server.createDatabase(name);
    };
    const ours: Run[] = [];
    const peer: Run[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await fresh('rows_ours');
      ours.push(cli('restore postgres', ['restore', path.join(out, 'rowspg.siard'), server.url('rows_ours')]));
      await fresh('rows_peer');
      peer.push(run('pg_restore', ['pg_restore', '--no-owner', '-d', server.url('rows_peer'), dump]));
    }
    const best = (runs: Run[]) => runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    const res = { ours: { ...best(ours), peakMb: Math.max(...ours.map((r) => r.peakMb)) }, peer: best(peer) };
    check(
      printTime('Restore of the PostgreSQL archive into a new PostgreSQL database', 'siard-ocfl restore', 'pg_restore', res, 1.2),
      'PostgreSQL restore',
    );
  } finally {
    await server.stop();
  }
}

await main();
