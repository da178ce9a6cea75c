/**
 * The verbs on an S3 root against the same verbs on a folder root, in the same run (issue 15):
 * a throwaway Ceph RADOS Gateway on 127.0.0.1 (scripts/ceph-rgw.sh, bluestore on a sparse file in
 * the temporary folder) and a folder root on the same machine's disk. Each verb runs as the CLI
 * (a child process, as a user runs it) on the same data: `put` of a folder of files, `ingest` of
 * an SQLite database with LOBs, `validate` (fixity on) and `audit` of the root holding both.
 * Printed: MB/s on each backend and the ratio S3 / folder.
 *
 *   node --import=tsx bench/s3.bench.ts        (as root: installs the Ceph packages when missing)
 *   BENCH_S3_SMALL=200 BENCH_S3_LARGE=4 BENCH_S3_LOBS=400 to size the data (MiB files, 32 MiB files, 256 KiB LOBs)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  for (const [backend, root] of Object.entries(roots)) {
    const e = { ...env, SIARD_OCFL_WORKSPACE: backend === 's3' ? path.join(work, 's3-work') : '' };
    cli(['init', root], e);
    times[backend] = {
      put: cli(['put', '--root', root, '--id', 'folder', folder], e),
      ingest: cli(['ingest', `sqlite:${db}`, '--root', root, '--id', 'db', '--name', 'lobs'], e),
      validate: cli(['validate', root], e),
      audit: cli(['audit', '--root', root], e),
    };
  }
  // The peer: the raw SDK over the same gateway and bytes, no OCFL, no hashing: PUT of the folder's
  // files (8 at a time, multipart above 8 MiB) and GET of every key of the S3 root (16 at a time).
  const client = clientFromEnvironment();
  const files = (await new FileSystemStorage(folder).walk('')).files;
  let t1 = performance.now();
  await forEachConcurrent(files, 8, async (f) => {
    const body = readFileSync(path.join(folder, f.relative));
    if (body.length <= 8 * MiB) await client.send(new PutObjectCommand({ Bucket: 'bench', Key: `raw/${f.relative}`, Body: body }));
    else
      await new Upload({
        client,
        params: { Bucket: 'bench', Key: `raw/${f.relative}`, Body: body },
        partSize: 8 * MiB,
        queueSize: 4,
      }).done();
  });
  const rawPut = (performance.now() - t1) / 1000;
  // The floor of a writer that must record fixity: the same PUTs, each body hashed (sha512) first.
  t1 = performance.now();
  await forEachConcurrent(files, 8, async (f) => {
    const body = readFileSync(path.join(folder, f.relative));
    createHash('sha512').update(body).digest();
    if (body.length <= 8 * MiB) await client.send(new PutObjectCommand({ Bucket: 'bench', Key: `hashed/${f.relative}`, Body: body }));
    else
      await new Upload({
        client,
        params: { Bucket: 'bench', Key: `hashed/${f.relative}`, Body: body },
        partSize: 8 * MiB,
        queueSize: 4,
      }).done();
  });
  const hashedPut = (performance.now() - t1) / 1000;
  const keys = (await S3Storage.fromUrl('s3://bench/root').walk('')).files;
  let rawBytes = 0;
  t1 = performance.now();
  await forEachConcurrent(keys, 16, async (k) => {
    const res = await client.send(new GetObjectCommand({ Bucket: 'bench', Key: `root/${k.relative}` }));
    for await (const chunk of res.Body as AsyncIterable<Buffer>) rawBytes += chunk.length;
  });
  const rawGet = (performance.now() - t1) / 1000;
  // The floor of a reader that must check fixity: the same GETs, each body hashed (sha512) as it comes.
  t1 = performance.now();
  await forEachConcurrent(keys, 16, async (k) => {
    const res = await client.send(new GetObjectCommand({ Bucket: 'bench', Key: `root/${k.relative}` }));
    const h = createHash('sha512');
    for await (const chunk of res.Body as AsyncIterable<Buffer>) h.update(chunk);
    h.digest();
  });
  const hashedGet = (performance.now() - t1) / 1000;
  console.log(
    `peer (raw SDK, same gateway): PUT ${(folderBytes / MiB / rawPut).toFixed(1)} MB/s, ` +
      `GET ${(rawBytes / MiB / rawGet).toFixed(1)} MB/s (${keys.length} keys)`,
  );
  const total = folderBytes + lobBytes;
  // The README's rows (issue 39): one run each here, ours and the peer's on the same gateway.
  const rate = (bytes: number, seconds: number) => bytes / MiB / seconds;
  reportRow({
    id: 's3-put',
    ours: `${rate(folderBytes, times.s3!.put!).toFixed(1)} MB/s`,
    peer: `${rate(folderBytes, rawPut).toFixed(1)} MB/s`,
    ratio: rate(folderBytes, times.s3!.put!) / rate(folderBytes, rawPut),
    floor: `the SDK's PUTs with each body hashed (sha512) first: ${(rawPut / hashedPut).toFixed(2)}x`,
  });
  reportRow({
    id: 's3-validate',
    ours: `${rate(total, times.s3!.validate!).toFixed(1)} MB/s`,
    peer: `${rate(rawBytes, rawGet).toFixed(1)} MB/s`,
    ratio: rate(total, times.s3!.validate!) / rate(rawBytes, rawGet),
    floor: `the SDK's GETs with each body hashed (sha512) as it comes: ${(rawGet / hashedGet).toFixed(2)}x`,
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
