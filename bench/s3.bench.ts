/**
 * The verbs on an S3 root against the same verbs on a folder root, in the same run (issue 15):
 * a throwaway Ceph RADOS Gateway on 127.0.0.1 (scripts/ceph-rgw.sh, bluestore on a sparse file in
 * the temporary folder) and a folder root on the same machine's disk. Each verb runs as the CLI
 * (a child process, as a user runs it) on the same data: `put` of a folder of files, `ingest` of
 * an SQLite database with LOBs, `validate` (fixity on) and `audit` of the root holding both.
 * Printed: MB/s on each backend and the ratio S3 / folder. The README's rows (s3-put, s3-validate:
 * ours against the raw SDK on the same gateway, with the floors of the SDK hashing each body) take
 * the best of BENCH_S3_REPEAT runs of each side (default 3), alternated, with the CPU seconds of
 * each side and of the gateway beside them (the gateway shares the machine's cores).
 *
 *   node --import=tsx bench/s3.bench.ts        (as root: installs the Ceph packages when missing)
 *   BENCH_S3_SMALL=200 BENCH_S3_LARGE=4 BENCH_S3_LOBS=400 to size the data (MiB files, 32 MiB files, 256 KiB LOBs)
 *   BENCH_S3_REPEAT=3 runs of each side of the README rows
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import Database from '../src/sources/sqlite/driver.js';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { readFileSync } from 'node:fs';
import { forEachConcurrent } from '../src/ocfl/concurrent.js';
import { clientFromEnvironment, S3Storage } from '../src/ocfl/storage/s3.js';
import { FileSystemStorage } from '../src/ocfl/storage/fs.js';
import { reportRow } from './readme-rows.js';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(PROJECT, 'bin', 'siard-ocfl');
const SCRIPT = path.join(PROJECT, 'scripts', 'ceph-rgw.sh');
const SMALL = Number(process.env.BENCH_S3_SMALL ?? 200);
const LARGE = Number(process.env.BENCH_S3_LARGE ?? 4);
const LOBS = Number(process.env.BENCH_S3_LOBS ?? 400);
const REPEAT = Math.max(1, Number(process.env.BENCH_S3_REPEAT ?? 3));
const MiB = 1024 * 1024;

const work = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-s3-bench-'));
const cluster = path.join(work, 'cluster');
const pool = randomBytes(4 * MiB);
const bytesOf = (i: number, size: number) => {
  const b = Buffer.allocUnsafe(size);
  for (let off = 0; off < size; off += pool.length)
    pool.copy(b, off, (i * 7919) % 1024, Math.min(pool.length, size - off + ((i * 7919) % 1024)));
  b.writeUInt32BE(i, 0);
  return b;
};

/** Fields of /proc/<pid>/stat after the command's name: [11] utime, [12] stime, [13] cutime, [14] cstime, in ticks of 1/100 s. */
function statFields(pid: string): number[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
}
/** CPU seconds (user + system) of this process's waited-for children (Linux; 0 elsewhere). */
function childrenCpu(): number {
  try {
    const f = statFields('self');
    return (f[13]! + f[14]!) / 100;
  } catch {
    return 0;
  }
}
/** CPU seconds of the gateway's daemons (monitor, OSD, radosgw: they share this machine's cores). */
function gatewayCpu(): number {
  let sum = 0;
  try {
    for (const f of readdirSync(path.join(cluster, 'run')).filter((n) => n.endsWith('.pid'))) {
      const fields = statFields(readFileSync(path.join(cluster, 'run', f), 'utf8').trim());
      sum += (fields[11]! + fields[12]!) / 100;
    }
  } catch {
    // not Linux, or a daemon gone
  }
  return sum;
}

/** One run's wall seconds and CPU seconds: ours (`cpu`, this process or the CLI child) and the gateway's. */
interface Run {
  wall: number;
  cpu: number;
  gateway: number;
}

async function measure(work: () => Promise<void> | void, child: boolean): Promise<Run> {
  const [c0, g0, s0] = [childrenCpu(), gatewayCpu(), process.cpuUsage()];
  const t0 = performance.now();
  await work();
  const wall = (performance.now() - t0) / 1000;
  const self = process.cpuUsage(s0);
  const cpu = child ? childrenCpu() - c0 : (self.user + self.system) / 1e6;
  return { wall, cpu, gateway: gatewayCpu() - g0 };
}

const best = (runs: Run[]): Run => runs.reduce((a, b) => (b.wall < a.wall ? b : a));
const described = (r: Run) => `${r.wall.toFixed(2)} s wall, CPU ${r.cpu.toFixed(2)} s + gateway ${r.gateway.toFixed(2)} s`;

function cli(args: string[], env: NodeJS.ProcessEnv): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`siard-ocfl ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return (performance.now() - t0) / 1000;
}

try {
  if (process.getuid?.() === 0) execFileSync(SCRIPT, ['install'], { stdio: 'inherit' });
  const t0 = performance.now();
  const out = execFileSync(SCRIPT, ['start', cluster], { encoding: 'utf8' });
  const env: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) env[m[1]!] = m[2]!;
  }
  Object.assign(process.env, env);
  console.log(`gateway up in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await clientFromEnvironment().send(new CreateBucketCommand({ Bucket: 'bench' }));

  const folder = path.join(work, 'data');
  let folderBytes = 0;
  for (let i = 0; i < SMALL; i++) {
    mkdirSync(path.join(folder, `d${i % 10}`), { recursive: true });
    writeFileSync(path.join(folder, `d${i % 10}`, `f${i}.bin`), bytesOf(i, MiB));
    folderBytes += MiB;
  }
  for (let i = 0; i < LARGE; i++) {
    writeFileSync(path.join(folder, `large${i}.bin`), bytesOf(SMALL + i, 32 * MiB));
    folderBytes += 32 * MiB;
  }
  const db = path.join(work, 'lobs.sqlite');
  const conn = new Database(db);
  conn.exec('CREATE TABLE doc (id INTEGER PRIMARY KEY, body BLOB)');
  const insert = conn.prepare('INSERT INTO doc VALUES (?, ?)');
  conn.transaction(() => {
    for (let i = 0; i < LOBS; i++) insert.run(i + 1, bytesOf(10_000 + i, 256 * 1024));
  })();
  conn.close();
  const lobBytes = LOBS * 256 * 1024;

  const rows: Array<{ verb: string; bytes: number; fs: number; s3: number }> = [];
  const roots = { fs: path.join(work, 'fs-root'), s3: 's3://bench/root' };
  const times: Record<string, Record<string, number>> = {};
  const s3Env = { ...env, SIARD_OCFL_WORKSPACE: path.join(work, 's3-work') };
  const s3Runs: { put: Run[]; validate: Run[] } = { put: [], validate: [] };
  for (const [backend, root] of Object.entries(roots)) {
    const e = backend === 's3' ? s3Env : { ...env, SIARD_OCFL_WORKSPACE: '' };
    cli(['init', root], e);
    let put = 0;
    const putRun = await measure(() => void (put = cli(['put', '--root', root, '--id', 'folder', folder], e)), true);
    const ingest = cli(['ingest', `sqlite:${db}`, '--root', root, '--id', 'db', '--name', 'lobs'], e);
    let validate = 0;
    const validateRun = await measure(() => void (validate = cli(['validate', root], e)), true);
    times[backend] = { put, ingest, validate, audit: cli(['audit', '--root', root], e) };
    if (backend === 's3') {
      s3Runs.put.push(putRun);
      s3Runs.validate.push(validateRun);
    }
  }
  // The peer: the raw SDK over the same gateway and bytes, no OCFL, no hashing: PUT of the folder's
  // files (8 at a time, multipart above 8 MiB) and GET of every key of the S3 root (16 at a time).
  // The floors: the same with each body hashed (sha512), as a writer or reader of fixity must.
  const client = clientFromEnvironment();
  const files = (await new FileSystemStorage(folder).walk('')).files;
  const sdkPut = async (prefix: string, hashed: boolean) =>
    forEachConcurrent(files, 8, async (f) => {
      const body = readFileSync(path.join(folder, f.relative));
      if (hashed) createHash('sha512').update(body).digest();
      const params = { Bucket: 'bench', Key: `${prefix}/${f.relative}`, Body: body };
      if (body.length <= 8 * MiB) await client.send(new PutObjectCommand(params));
      else await new Upload({ client, params, partSize: 8 * MiB, queueSize: 4 }).done();
    });
  const keys = (await S3Storage.fromUrl('s3://bench/root').walk('')).files;
  let rawBytes = 0;
  const sdkGet = async (hashed: boolean) => {
    rawBytes = 0;
    await forEachConcurrent(keys, 16, async (k) => {
      const res = await client.send(new GetObjectCommand({ Bucket: 'bench', Key: `root/${k.relative}` }));
      const h = hashed ? createHash('sha512') : undefined;
      for await (const chunk of res.Body as AsyncIterable<Buffer>) {
        rawBytes += chunk.length;
        h?.update(chunk);
      }
      h?.digest();
    });
  };
  const peers = { put: [] as Run[], hashedPut: [] as Run[], get: [] as Run[], hashedGet: [] as Run[] };
  for (let round = 0; round < REPEAT; round++) {
    // Each side in turn, so that a change in the machine's load falls on all of them.
    if (round > 0) {
      cli(['init', `s3://bench/put${round}`], s3Env);
      s3Runs.put.push(await measure(() => void cli(['put', '--root', `s3://bench/put${round}`, '--id', 'folder', folder], s3Env), true));
    }
    peers.put.push(await measure(() => sdkPut(`raw${round}`, false), false));
    peers.hashedPut.push(await measure(() => sdkPut(`hashed${round}`, true), false));
    if (round > 0) s3Runs.validate.push(await measure(() => void cli(['validate', roots.s3], s3Env), true));
    peers.get.push(await measure(() => sdkGet(false), false));
    peers.hashedGet.push(await measure(() => sdkGet(true), false));
  }
  const [ourPut, ourValidate] = [best(s3Runs.put), best(s3Runs.validate)];
  const [rawPut, hashedPut, rawGet, hashedGet] = [best(peers.put), best(peers.hashedPut), best(peers.get), best(peers.hashedGet)];
  console.log(`best of ${REPEAT}, CPU seconds beside (ours: the CLI process, the peer: this process; the gateway's daemons):`);
  console.log(`  put:      ours ${described(ourPut)}; SDK ${described(rawPut)}; SDK + sha512 ${described(hashedPut)}`);
  console.log(`  validate: ours ${described(ourValidate)}; SDK ${described(rawGet)}; SDK + sha512 ${described(hashedGet)}`);
  console.log(
    `peer (raw SDK, same gateway): PUT ${(folderBytes / MiB / rawPut.wall).toFixed(1)} MB/s, ` +
      `GET ${(rawBytes / MiB / rawGet.wall).toFixed(1)} MB/s (${keys.length} keys)`,
  );
  const total = folderBytes + lobBytes;
  // The README's rows (issue 39): ours and the peer's on the same gateway, best of REPEAT runs each.
  const rate = (bytes: number, seconds: number) => bytes / MiB / seconds;
  reportRow({
    id: 's3-put',
    ours: `${rate(folderBytes, ourPut.wall).toFixed(1)} MB/s`,
    peer: `${rate(folderBytes, rawPut.wall).toFixed(1)} MB/s`,
    ratio: rate(folderBytes, ourPut.wall) / rate(folderBytes, rawPut.wall),
    floor: `the SDK's PUTs with each body hashed (sha512) first: ${(rawPut.wall / hashedPut.wall).toFixed(2)}x`,
  });
  reportRow({
    id: 's3-validate',
    ours: `${rate(total, ourValidate.wall).toFixed(1)} MB/s`,
    peer: `${rate(rawBytes, rawGet.wall).toFixed(1)} MB/s`,
    ratio: rate(total, ourValidate.wall) / rate(rawBytes, rawGet.wall),
    floor: `the SDK's GETs with each body hashed (sha512) as it comes: ${(rawGet.wall / hashedGet.wall).toFixed(2)}x`,
  });
  for (const [verb, bytes] of [
    ['put', folderBytes],
    ['ingest', lobBytes],
    ['validate', total],
    ['audit', total],
  ] as const) {
    rows.push({ verb, bytes, fs: times.fs![verb]!, s3: times.s3![verb]! });
  }
  console.log(`\n${SMALL} x 1 MiB + ${LARGE} x 32 MiB files (put), ${LOBS} LOBs of 256 KiB (ingest); CLI runs, wall time`);
  console.log('verb        MiB    folder MB/s    S3 MB/s    S3/folder');
  for (const r of rows) {
    const mb = r.bytes / MiB;
    console.log(
      `${r.verb.padEnd(10)} ${mb.toFixed(0).padStart(5)}    ${(mb / r.fs).toFixed(1).padStart(11)}   ` +
        ` ${(mb / r.s3).toFixed(1).padStart(7)}    ${(r.fs / r.s3).toFixed(2).padStart(9)}`,
    );
  }
} finally {
  try {
    execFileSync(SCRIPT, ['stop', cluster], { stdio: 'ignore' });
  } catch {
    // already down
  }
  rmSync(work, { recursive: true, force: true });
}
