/**
 * The S3 side of bench/serve.bench.ts: a throwaway Ceph RADOS Gateway (scripts/ceph-rgw.sh, as
 * bench/s3.bench.ts starts it), a folder root copied into a bucket key by key, and the peer the
 * list of objects is measured against: every key under the root listed by ListObjectsV2, page
 * after page (1,000 keys each), the least a reader of the bucket can do to see every object.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { forEachConcurrent } from '../src/ocfl/concurrent.js';
import { clientFromEnvironment } from '../src/ocfl/storage/s3.js';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'scripts', 'ceph-rgw.sh');

export interface Gateway {
  /** Copies a folder root into `bucket` (made here) and returns its s3:// URL. */
  upload(folder: string, bucket: string): Promise<{ url: string; keys: number; seconds: number }>;
  stop(): void;
}

/** The gateway started (as root: its packages installed when missing), its variables set in this process for serve's children. */
export function startGateway(): Gateway {
  const work = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-serve-s3-'));
  const cluster = path.join(work, 'cluster');
  const stop = () => {
    try {
      execFileSync(SCRIPT, ['stop', cluster], { stdio: 'ignore' });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  };
  try {
    if (process.getuid?.() === 0) execFileSync(SCRIPT, ['install'], { stdio: ['ignore', 'ignore', 'inherit'] });
    const out = execFileSync(SCRIPT, ['start', cluster], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    for (const line of out.split('\n')) {
      const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
      if (m) process.env[m[1]!] = m[2]!;
    }
  } catch (err) {
    stop();
    throw err;
  }
  const client = clientFromEnvironment();
  return {
    async upload(folder, bucket) {
      const start = process.hrtime.bigint();
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      const files: string[] = [];
      const walk = (dir: string, rel: string) => {
        for (const e of readdirSync(dir, { withFileTypes: true }))
          if (e.isDirectory()) walk(path.join(dir, e.name), `${rel}${e.name}/`);
          else files.push(`${rel}${e.name}`);
      };
      walk(folder, '');
      await forEachConcurrent(files, 16, async (key) => {
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: `root/${key}`, Body: readFileSync(path.join(folder, key)) }));
      });
      return { url: `s3://${bucket}/root`, keys: files.length, seconds: Number(process.hrtime.bigint() - start) / 1e9 };
    },
    stop,
  };
}

/** Every key under `s3://bucket/root/`, page after page: seconds and keys. */
export async function listEveryKey(bucket: string): Promise<{ seconds: number; keys: number; pages: number }> {
  const client = clientFromEnvironment();
  const start = process.hrtime.bigint();
  let token: string | undefined;
  let keys = 0;
  let pages = 0;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'root/', ContinuationToken: token }));
    keys += page.KeyCount ?? 0;
    pages++;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  client.destroy();
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, keys, pages };
}
