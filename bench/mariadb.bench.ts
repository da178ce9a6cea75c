/**
 * MariaDB export speed (issue 18): a table of plain rows (integer, text, decimal, datetime, double)
 * and a table of LOBs in a throw-away MariaDB, exported by the built CLI (`siard-ocfl export
 * mysql://...`, LOBs to lobseg files). Peer measured in the same run on the same tables:
 * `mariadb-dump --single-transaction | gzip -1`. Prints rows/s, LOB MB/s, peak RSS of our process,
 * and the ratio of the two times; the rows pair is the best of BENCH_ROUNDS (default 3) runs of each,
 * alternating, and is the README table's row export-mariadb (readme-rows.ts), with its floor: the
 * rows read through the mariadb connector alone in a Node process (mariadb-read-floor.js).
 *
 *   node bench/run.js mariadb        (after npm run build)
 *   BENCH_MARIA_ROWS=50000 BENCH_MARIA_LOB_MB=32 node --import=tsx bench/mariadb.bench.ts   (smaller)
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMariadb } from '../test/helpers/mariadb-server.js';
import { loadNow, reportRow } from './readme-rows.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROWS = Number(process.env.BENCH_MARIA_ROWS ?? 200_000);
const LOB_MB = Number(process.env.BENCH_MARIA_LOB_MB ?? 128);
const LOB_VALUE_MB = 8;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function measure(cmd: string, args: string[]): { seconds: number; peakMb: number } {
  const start = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-v', cmd, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1] ?? NaN);
  return { seconds, peakMb: kb / 1024 };
}

function folderBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) n += statSync(path.join(e.parentPath, e.name)).size;
  return n;
}

const work = path.join(os.tmpdir(), `siard-ocfl-bench-maria-${process.pid}`);
const server = await startMariadb();
try {
  await server.createDatabase('bench');
  const values = Math.max(1, Math.round(LOB_MB / LOB_VALUE_MB));
  server.client(
    'bench',
    [],
    `CREATE TABLE plain (id INT PRIMARY KEY, name VARCHAR(60), amount DECIMAL(12,2), placed DATETIME(3), score DOUBLE);
     INSERT INTO plain SELECT seq, CONCAT('customer ', seq, ' äöü'), seq / 100, '2020-01-01' + INTERVAL seq SECOND, seq / 7
       FROM seq_1_to_${ROWS};
     CREATE TABLE lobs (id INT PRIMARY KEY, data LONGBLOB);
     INSERT INTO lobs SELECT seq, REPEAT(UNHEX(SHA2(seq, 512)), ${(LOB_VALUE_MB * 1024 * 1024) / 64}) FROM seq_1_to_${values};`,
  );
  const bin = path.join(ROOT, 'bin', 'siard-ocfl');
  type Measured = { seconds: number; peakMb: number };
  const best = (a: Measured | undefined, b: Measured) => (a === undefined || b.seconds < a.seconds ? b : a);
  const report = (label: string, table: string, amount: string, per: (s: number) => string, rounds: number) => {
    let ours: Measured | undefined;
    let peer: Measured | undefined;
    let floor: Measured | undefined;
    let peakMb = 0;
    const loads: number[] = [];
    for (let round = 0; round < rounds; round++) {
      rmSync(path.join(work, table), { recursive: true, force: true });
      loads.push(loadNow());
      const o = measure(process.execPath, [bin, 'export', server.url('bench'), path.join(work, table), '--tables', table]);
      peakMb = Math.max(peakMb, o.peakMb);
      ours = best(ours, o);
      const dumpFile = path.join(work, `${table}.sql.gz`);
      loads.push(loadNow());
      peer = best(
        peer,
        measure('sh', [
          '-c',
          `mariadb-dump --no-defaults --socket=${server.socket} -uroot --single-transaction bench ${table} | gzip -1 > ${dumpFile}`,
        ]),
      );
      if (table === 'plain')
        floor = best(
          floor,
          measure(process.execPath, [path.join(ROOT, 'bench', 'mariadb-read-floor.js'), server.url('bench'), table, 'id']),
        );
    }
    process.stdout.write(
      `${label}: ${amount}; siard-ocfl export ${ours!.seconds.toFixed(2)} s (${per(ours!.seconds)}, ` +
        `peak RSS ${peakMb.toFixed(0)} MB, ${(folderBytes(path.join(work, table)) / 1e6).toFixed(1)} MB written); ` +
        `mariadb-dump | gzip -1 ${peer!.seconds.toFixed(2)} s (${per(peer!.seconds)}); ` +
        `ratio ours/peer ${(ours!.seconds / peer!.seconds).toFixed(2)} (best of ${rounds})\n`,
    );
    return { ours: ours!, peer: peer!, floor, peakMb, loads };
  };
  const rows = report('rows', 'plain', `${ROWS} rows`, (s) => `${Math.round(ROWS / s)} rows/s`, ROUNDS);
  const floor = rows.floor!.seconds;
  reportRow({
    id: 'export-mariadb',
    ours: `${rows.ours.seconds.toFixed(2)} s`,
    peer: `${rows.peer.seconds.toFixed(2)} s`,
    ratio: rows.peer.seconds / rows.ours.seconds,
    peakMb: rows.peakMb,
    load: rows.loads,
    // not a physical floor: a third of it is Node and the connector starting (docs/performance.md, session 50)
    floor:
      `the rows read alone through the mariadb connector from a fresh Node process, ${floor.toFixed(2)} s: ` +
      `${(rows.peer.seconds / floor).toFixed(2)}x (the connector's cost, not the bytes')`,
    ...(ROWS === 200_000 ? {} : { work: `export ${ROWS.toLocaleString('en')} rows from MariaDB` }),
  });
  report('LOBs', 'lobs', `${values} x ${LOB_VALUE_MB} MiB`, (s) => `${((values * LOB_VALUE_MB * 1.048576) / s).toFixed(1)} MB/s`, 1);
} finally {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
