/**
 * CPU time (user + sys of our process, from /usr/bin/time -v) of `restore` of the narrow-rows
 * archive into PostgreSQL (issue 16): on a shared machine CPU time varies far less than wall time.
 * The archive is exported from PostgreSQL holding bench/rows-db.ts's rows, as export.bench.ts does.
 * Each CLI given runs BENCH_RUNS times (default 3), alternating; pg_restore of a `pg_dump -Fc` of
 * the same rows runs as many times for reference (its own CPU and its wall time).
 *
 *   BENCH_ROWS=1000000 node --import=tsx bench/pg-restore-cpu.ts [other-checkout/bin/siard-ocfl ...]
 *   BENCH_PROFILE=1 also prints the top of a CPU profile (node --cpu-prof) of one restore.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres } from '../test/helpers/postgres-server.js';
import { profileTop } from './cpu-profile.js';
import { buildRowDb, loadRowsIntoPostgres } from './rows-db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'bench', 'out', 'export');
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CLIS = [path.join(ROOT, 'bin', 'siard-ocfl'), ...process.argv.slice(2).map((p) => path.resolve(p))];

interface Measure {
  cpu: number;
  wall: number;
  peakMb: number;
}

/** Runs argv under /usr/bin/time -v: user + sys seconds, wall seconds, max RSS. */
function timed(argv: string[]): Measure {
  const r = spawnSync('/usr/bin/time', ['-v', ...argv], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const field = (name: string) =>
    r.stderr
      .split('\n')
      .find((l) => l.trim().startsWith(name))
      ?.split(': ')[1];
  const number = (name: string) => Number(field(name));
  const clock = String(field('Elapsed (wall clock) time')).split(':').map(Number);
  const wall = clock.reduce((a, b) => a * 60 + b, 0);
  return {
    cpu: number('User time (seconds)') + number('System time (seconds)'),
    wall,
    peakMb: number('Maximum resident set size (kbytes)') / 1024,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const rowDb = path.join(OUT, `rows-${ROWS}.db`);
  buildRowDb(rowDb, ROWS);
  const work = mkdtempSync(path.join(OUT, 'cpu-'));
  const server = await startPostgres();
  try {
    await server.createDatabase('rows_src');
    const src = server.url('rows_src');
    loadRowsIntoPostgres(rowDb, src);
    const out = path.join(work, 'pg-out');
    const dump = path.join(work, 'rows.fc');
    timed([process.execPath, CLIS[0]!, 'export', src, out, '--name', 'rowspg']);
    timed(['pg_dump', '-Fc', '-f', dump, src]);
    const siard = path.join(out, 'rowspg.siard');
    let db = 0;
    const fresh = async (): Promise<string> => {
      const name = `rows_${++db}`;
      await server.createDatabase(name);
      return server.url(name);
    };
    const results = new Map<string, Measure[]>();
    const add = (label: string, m: Measure) => results.set(label, [...(results.get(label) ?? []), m]);
    for (let run = 0; run < RUNS; run++) {
      for (const cli of CLIS) add(cli, timed([process.execPath, cli, 'restore', siard, await fresh()]));
      add('pg_restore', timed(['pg_restore', '--no-owner', '-d', await fresh(), dump]));
    }
    console.log(`Restore of ${ROWS.toLocaleString('en')} rows into PostgreSQL: CPU of the process (user+sys), ${RUNS} runs`);
    for (const [label, ms] of results) {
      const cpus = ms.map((m) => m.cpu.toFixed(2)).join(' ');
      console.log(
        `  ${path.relative(ROOT, label) || label}: cpu ${cpus} s (median ${median(ms.map((m) => m.cpu)).toFixed(2)}), ` +
          `wall median ${median(ms.map((m) => m.wall)).toFixed(2)} s, peak ${Math.max(...ms.map((m) => m.peakMb)).toFixed(0)} MB`,
      );
    }
    if (process.env.BENCH_PROFILE === '1') {
      const dir = path.join(work, 'profile');
      timed([process.execPath, '--cpu-prof', `--cpu-prof-dir=${dir}`, CLIS[0]!, 'restore', siard, await fresh()]);
      console.log('Profile of one restore (node --cpu-prof, self time, top 15):');
      for (const line of profileTop(dir, 15)) console.log(`  ${line}`);
    }
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
