/**
 * A real S3 server for the tests: a throwaway Ceph RADOS Gateway started by scripts/ceph-rgw.sh
 * in a temporary folder, once per run by test/runner/run.ts (shared-servers.ts), or by the test
 * file itself when it runs alone (stopped when the file's tests end). Where it cannot
 * start (packages missing and not installable, not root), the S3 tests are skipped with a message;
 * under CI=true that is a failure instead, since .ci/run installs the packages.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { clientFromEnvironment } from '../../src/ocfl/storage/s3.js';
import { PROJECT_ROOT } from './shared.js';
import { sharedServer } from './shared-servers.js';

const run = promisify(execFile);
const SCRIPT = path.join(PROJECT_ROOT, 'scripts', 'ceph-rgw.sh');

export interface RgwServer {
  /** The variables a child process needs to reach the gateway. */
  env: Record<string, string>;
  /** Creates a bucket and returns its s3:// URL (with an optional prefix). */
  bucket(name: string, prefix?: string): Promise<string>;
  stop(): Promise<void>;
}

let bucketCount = 0;

/**
 * Synchronous, so that a test file can declare its S3 tests, or skip them, at load time (ava
 * wants every test declared synchronously): about 20 s on these machines.
 */
export function startRgw(): RgwServer | { skipped: string } {
  const shared = sharedServer('rgw');
  if (shared?.ok) return onSharedRgw(shared.settings as Record<string, string>);
  if (shared) return couldNotStart(shared.reason);
  const parent = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-rgw-'));
  const dir = path.join(parent, 'cluster');
  let stopped = false;
  /** Synchronous, so that it also runs from an exit handler: a test file that dies leaves no daemons. */
  const stopSync = () => {
    if (stopped) return;
    stopped = true;
    try {
      execFileSync(SCRIPT, ['stop', dir], { timeout: 60_000, stdio: 'ignore' });
    } catch {
      // nothing more to stop
    }
    rmSync(parent, { recursive: true, force: true });
  };
  process.once('exit', stopSync);
  try {
    if (process.getuid?.() === 0) execFileSync(SCRIPT, ['install'], { timeout: 300_000, stdio: ['ignore', 'ignore', 'pipe'] });
    const stdout = execFileSync(SCRIPT, ['start', dir], { timeout: 180_000, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const env: Record<string, string> = {};
    for (const line of stdout.split('\n')) {
      const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
      if (m) env[m[1]!] = m[2]!;
    }
    if (!env.AWS_ENDPOINT_URL) throw new Error(`scripts/ceph-rgw.sh printed no endpoint: ${stdout}`);
    const handle = onSharedRgw(env);
    return {
      ...handle,
      async stop() {
        await handle.stop();
        if (stopped) return;
        await run(SCRIPT, ['stop', dir], { timeout: 60_000 }).catch(() => {});
        stopped = true;
        rmSync(parent, { recursive: true, force: true });
      },
    };
  } catch (err) {
    stopSync();
    return couldNotStart(
      `a Ceph RADOS Gateway could not be started ` +
        `(${((err as { stderr?: string }).stderr || (err as Error).message).trim().split('\n').slice(-3).join(' ')})`,
    );
  }
}

function couldNotStart(why: string): { skipped: string } {
  if (process.env.CI) throw new Error(`${why}; CI must run the S3 tests (.ci/run installs ceph-mon ceph-osd radosgw ceph-common).`);
  console.warn(`[siard-ocfl] ${why}: the S3 tests are skipped.`);
  return { skipped: why };
}

/** Buckets on a running gateway whose settings are `env`; stop() only closes this process's client. */
function onSharedRgw(env: Record<string, string>): RgwServer {
  Object.assign(process.env, env);
  const client = clientFromEnvironment();
  return {
    env,
    async bucket(name, prefix) {
      const bucket = `${name}-${process.pid}-${++bucketCount}`
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-')
        .slice(0, 63);
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      return `s3://${bucket}${prefix ? `/${prefix}` : ''}`;
    },
    async stop() {
      client.destroy();
    },
  };
}
