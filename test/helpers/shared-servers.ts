/**
 * The servers a test run shares. `npm test` (test/runner/run.ts) starts PostgreSQL, MariaDB and the
 * Ceph RADOS Gateway once, beside the first test files, and writes a descriptor for each into the
 * folder named by SIARD_OCFL_TEST_SERVERS as soon as it answers (or the reason it could not start).
 * The helpers (postgres-server.ts, mariadb.ts, s3.ts) take the shared server when that variable is
 * set and start a private one otherwise: a single test file run with `npx ava <file>`, a benchmark.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export type ServerKind = 'postgres' | 'mariadb' | 'rgw';

/** What the runner writes: the server's settings, or why it could not be started. */
export type SharedServer = { ok: true; settings: Record<string, string | number> } | { ok: false; reason: string };

const WAIT_SECONDS = 300;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The descriptor file of `kind` in this run, or undefined when no runner shares servers. */
function sharedServerFile(kind: ServerKind): string | undefined {
  const folder = process.env.SIARD_OCFL_TEST_SERVERS;
  return folder ? path.join(folder, `${kind}.json`) : undefined;
}

/**
 * The shared server of `kind`, waiting (synchronously, so that a test file can still decide at load
 * time which tests it declares) until the runner has written it; undefined outside such a run.
 */
export function sharedServer(kind: ServerKind): SharedServer | undefined {
  const file = sharedServerFile(kind);
  if (!file) return undefined;
  const deadline = Date.now() + WAIT_SECONDS * 1000;
  while (!existsSync(file)) {
    if (Date.now() > deadline) return { ok: false, reason: `the shared ${kind} server was not ready within ${WAIT_SECONDS} s` };
    sleepSync(100);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as SharedServer;
}

let handles = 0;

/**
 * A prefix for the databases one handle on a shared server creates, so that test files running at
 * the same time never meet: the process id and a counter.
 */
export function databasePrefix(): string {
  return `t${process.pid}_${++handles}_`;
}
