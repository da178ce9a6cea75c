/**
 * Huge bytea through export and restore (issue 6, acceptance 4): a PostgreSQL table holding
 * 2 GiB of bytea (16 values of 128 MiB, random, stored uncompressed) is exported by the built CLI
 * (`siard-ocfl export postgres://...`, LOBs to files) and restored into a fresh database
 * (`siard-ocfl restore ... postgres://...`). Each CLI run is a child process whose peak RSS
 * /usr/bin/time reports; both must stay under 250 MB. The restored values are compared with the
 * originals by md5 inside PostgreSQL. Peers measured in the same run: pg_dump of the same table
 * (custom format, no compression) and pg_restore of that dump; times are printed as ratios.
 *
 *   node bench/run.js bytea          (after npm run build)
 *   BENCH_BYTEA_MB=256 BENCH_BYTEA_VALUE_MB=32 node --import=tsx bench/bytea.bench.ts   (smaller)
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, openSync, closeSync, writeSync, rmSync, statSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startPostgres } from '../test/helpers/postgres-server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TOTAL_MB = Number(process.env.BENCH_BYTEA_MB ?? 2048);
const VALUE_MB = Number(process.env.BENCH_BYTEA_VALUE_MB ?? 128);
const MEMORY_LIMIT_MB = 250;
const VALUES = Math.max(1, Math.round(TOTAL_MB / VALUE_MB));

interface Measured {
  seconds: number;
  peakMb: number;
  stdout: string;
}

/** Runs a command under /usr/bin/time -v: wall time and peak RSS of the child. */
function measure(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Measured {
  const start = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-v', cmd, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 1 << 26 });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1] ?? NaN);
  return { seconds, peakMb: kb / 1024, stdout: r.stdout };
}

async function query(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

function folderBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) n += statSync(path.join(e.parentPath, e.name)).size;
  return n;
}

const work = path.join(os.tmpdir(), `siard-ocfl-bench-bytea-${process.pid}`);
mkdirSync(work, { recursive: true });
chmodSync(work, 0o755);
const server = await startPostgres();
let failed = false;
try {
  // One random file the server reads with pg_read_binary_file; each row gets its id in front so
  // every value (and digest) differs. STORAGE EXTERNAL: stored uncompressed, sliced cheaply.
  const chunkFile = path.join(work, 'value.bin');
  const fd = openSync(chunkFile, 'w');
  for (let i = 0; i < VALUE_MB; i++) writeSync(fd, randomBytes(1024 * 1024));
  closeSync(fd);
  chmodSync(chunkFile, 0o644);
  await server.createDatabase('bytea_src');
  await server.createDatabase('bytea_dst');
  await server.createDatabase('bytea_peer');
  const src = server.url('bytea_src');
  const dst = server.url('bytea_dst');
  await query(src, 'CREATE TABLE blobs (id integer PRIMARY KEY, data bytea)');
  await query(src, 'ALTER TABLE blobs ALTER COLUMN data SET STORAGE EXTERNAL');
  for (let i = 1; i <= VALUES; i++) {
    await query(src, `INSERT INTO blobs VALUES (${i}, int4send(${i}) || pg_read_binary_file('${chunkFile}'))`);
  }
  rmSync(chunkFile);
  const total = Number((await query(src, 'SELECT sum(octet_length(data))::int8 AS n FROM blobs')).rows[0].n);
  console.log(`table: ${VALUES} bytea values of ${VALUE_MB} MiB, ${(total / 2 ** 30).toFixed(2)} GiB`);

  const out = path.join(work, 'export');
  const exp = measure(process.execPath, [path.join(ROOT, 'bin', 'siard-ocfl'), 'export', src, out, '--name', 'bytea', '--json']);
  const exported = folderBytes(out);
  const res = measure(process.execPath, [path.join(ROOT, 'bin', 'siard-ocfl'), 'restore', path.join(out, 'bytea.siard'), dst, '--json']);
  const summary = JSON.parse(res.stdout) as { lobFiles: number; digestsVerified: number };

  const digests = async (url: string) =>
    (await query(url, 'SELECT id, md5(data) AS m, octet_length(data) AS n FROM blobs ORDER BY id')).rows
      .map((r) => `${r.id}:${r.m}:${r.n}`)
      .join(',');
  const same = (await digests(src)) === (await digests(dst));

  // Peers: pg_dump (custom format, uncompressed) and pg_restore of the same table.
  const dump = path.join(work, 'peer.dump');
  const pgDump = measure('pg_dump', ['-Fc', '-Z0', '-t', 'blobs', '-f', dump, src]);
  const pgRestore = measure('pg_restore', ['-d', server.url('bytea_peer'), dump]);

  const gib = total / 2 ** 30;
  console.log(
    `export : ${exp.seconds.toFixed(1)} s, ${((gib / exp.seconds) * 1024).toFixed(0)} MiB/s, peak RSS ${exp.peakMb.toFixed(0)} ` +
      `MB, ${(exported / 2 ** 30).toFixed(2)} GiB written; ${(exp.seconds / pgDump.seconds).toFixed(2)}x pg_dump's time ` +
      `(${pgDump.seconds.toFixed(1)} s, peak ${pgDump.peakMb.toFixed(0)} MB)`,
  );
  console.log(
    `restore: ${res.seconds.toFixed(1)} s, ${((gib / res.seconds) * 1024).toFixed(0)} MiB/s, peak RSS ${res.peakMb.toFixed(0)} ` +
      `MB, ${summary.lobFiles} LOB files, ${summary.digestsVerified} digests ` +
      `verified; ${(res.seconds / pgRestore.seconds).toFixed(2)}x pg_restore's time (${pgRestore.seconds.toFixed(1)} s, ` +
      `peak ${pgRestore.peakMb.toFixed(0)} MB)`,
  );
  console.log(`values equal after the round trip: ${same}`);
  if (!same) failed = true;
  if (summary.digestsVerified !== VALUES) failed = true;
  for (const [what, m] of [
    ['export', exp],
    ['restore', res],
  ] as const) {
    if (!(m.peakMb < MEMORY_LIMIT_MB)) {
      console.log(`FAIL: ${what} peak RSS ${m.peakMb.toFixed(0)} MB is not under ${MEMORY_LIMIT_MB} MB`);
      failed = true;
    }
  }
} finally {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
