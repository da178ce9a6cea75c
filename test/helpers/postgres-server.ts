/**
 * A throw-away PostgreSQL server for tests: initdb into a temporary folder, a free port on
 * 127.0.0.1, stopped (and its folder removed) afterwards; one per run, shared by the test files
 * (test/runner/run.ts, shared-servers.ts), or one of a test file or benchmark run alone. Tests touch
 * no server but those. PostgreSQL refuses to run as root, so as root the server runs as the `postgres`
 * system user (created by Debian's package, which .ci/run installs when missing).
 * No ava here, so benchmarks and the test runner start servers too; tests import postgres.ts (this and pgTest).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findBinary, freePort } from './server-process.js';
import { databasePrefix, sharedServer } from './shared-servers.js';
import pg from 'pg';

export interface PostgresServer {
  port: number;
  host: string;
  user: string;
  password: string;
  /** A connection URL for `database` (created on demand with createDatabase). */
  url(database?: string): string;
  /** The name `database` has on the server (on a shared server, with this handle's prefix). */
  databaseName(database: string): string;
  createDatabase(name: string): Promise<void>;
  /** Stops a private server; on a shared one, drops the databases this handle created. */
  stop(): Promise<void>;
}

function findBin(name: string): string | undefined {
  const candidates = [process.env.PG_BIN_DIR ? path.join(process.env.PG_BIN_DIR, name) : ''];
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(path.join('/usr/lib/postgresql', v, 'bin', name));
  }
  return findBinary(name, candidates);
}

export function postgresAvailable(): boolean {
  return findBin('initdb') !== undefined && findBin('pg_ctl') !== undefined;
}

function asServerUser(cmd: string, args: string[]): string[] {
  if (process.getuid?.() !== 0) return [cmd, ...args];
  return ['runuser', '-u', 'postgres', '--', cmd, ...args];
}

function run(argv: string[], env: NodeJS.ProcessEnv = {}): void {
  execFileSync(argv[0], argv.slice(1), { stdio: 'pipe', env: { ...process.env, ...env } });
}

/** The run's shared server when test/runner/run.ts started one, else a private server of this process. */
export async function startPostgres(): Promise<PostgresServer> {
  const shared = sharedServer('postgres');
  if (shared && !shared.ok) throw new Error(shared.reason);
  if (shared) return onSharedPostgres(shared.settings as { host: string; port: number; user: string; password: string });
  return startPrivatePostgres();
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

async function adminQuery(url: string, text: string, values: unknown[] = []): Promise<pg.QueryResultRow[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A handle on the shared server: its databases carry a prefix of their own, and stop() drops every
 * database with that prefix (those the verbs created with --create too).
 */
function onSharedPostgres(settings: { host: string; port: number; user: string; password: string }): PostgresServer {
  const { host, port, user, password } = settings;
  const prefix = databasePrefix();
  const databaseName = (database: string) => (database === 'postgres' ? database : prefix + database);
  const url = (database = 'postgres') =>
    `postgres://${user}:${encodeURIComponent(password)}@${host}:${port}/${encodeURIComponent(databaseName(database))}`;
  return {
    port,
    host,
    user,
    password,
    url,
    databaseName,
    async createDatabase(name) {
      await adminQuery(url('postgres'), `CREATE DATABASE ${quoteIdent(databaseName(name))}`);
    },
    async stop() {
      const mine = await adminQuery(url('postgres'), 'SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [prefix]);
      for (const { datname } of mine) await adminQuery(url('postgres'), `DROP DATABASE IF EXISTS ${quoteIdent(datname)} WITH (FORCE)`);
    },
  };
}

/** A server of this process alone: initdb into a temporary folder, stopped and removed by stop(). */
export async function startPrivatePostgres(): Promise<PostgresServer> {
  const initdb = findBin('initdb');
  const pgCtl = findBin('pg_ctl');
  if (!initdb || !pgCtl) throw new Error('PostgreSQL server binaries (initdb, pg_ctl) are not installed.');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-pg-'));
  const data = path.join(dir, 'data');
  const user = 'siard_test';
  const password = 'siard-test-password';
  const pwfile = path.join(dir, 'pw');
  writeFileSync(pwfile, password);
  if (process.getuid?.() === 0) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  run(
    asServerUser(initdb, [
      '-D',
      data,
      '-U',
      user,
      '--pwfile',
      pwfile,
      '-A',
      'scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C.UTF-8',
      '--no-sync',
    ]),
  );
  const port = await freePort();
  const opts =
    `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c timezone=UTC -c ` +
    `max_connections=100`;
  run(asServerUser(pgCtl, ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']));
  const host = '127.0.0.1';
  const server: PostgresServer = {
    port,
    host,
    user,
    password,
    url: (database = 'postgres') => `postgres://${user}:${encodeURIComponent(password)}@${host}:${port}/${encodeURIComponent(database)}`,
    databaseName: (database) => database,
    async createDatabase(name) {
      await adminQuery(server.url('postgres'), `CREATE DATABASE ${quoteIdent(name)}`);
    },
    async stop() {
      try {
        run(asServerUser(pgCtl, ['-D', data, '-m', 'fast', '-w', 'stop']));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return server;
}

/** The rows of one query against a database of the test's server, in UTC. */
export async function queryRows<T extends pg.QueryResultRow = Record<string, unknown>>(
  server: PostgresServer,
  db: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: server.url(db) });
  await client.connect();
  try {
    await client.query("SET TIME ZONE 'UTC'");
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}
