/**
 * A throw-away MariaDB server for tests: `mariadb-install-db` into a temporary folder, `mariadbd`
 * on 127.0.0.1 and a free port (its socket in the same folder), stopped and its folder removed
 * afterwards. Tests touch no server but the one they or the test runner started. The root account (unix socket, no
 * password) creates one password user for TCP; as root the server runs with --user=root.
 * Debian's `mariadb-server` package provides the binaries (.ci/run installs it when missing).
 * No ava here, so benchmarks and the test runner start servers too; tests import mariadb.ts.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findBinary, freePort } from './server-process.js';
import * as mariadb from 'mariadb';
import { databasePrefix, sharedServer } from './shared-servers.js';

export interface MariadbServer {
  port: number;
  host: string;
  user: string;
  password: string;
  /** the server's unix socket (the root account logs in there without a password) */
  socket: string;
  /** A mysql:// URL for `database` (created on demand with createDatabase). */
  url(database?: string, scheme?: 'mysql' | 'mariadb'): string;
  /**
   * The name `database` has on the server: on a shared server it carries this handle's prefix (a name
   * that already does is kept, so a schema name read back from an archive may be passed too).
   */
  databaseName(database: string): string;
  createDatabase(name: string): Promise<void>;
  /** Runs SQL (several statements allowed) in `database` as the test user. */
  sql<T = Record<string, unknown>>(database: string, text: string, values?: unknown[]): Promise<T[]>;
  /** Runs the `mariadb` command-line client against `database` (SQL on stdin when given); returns its stdout. */
  client(database: string, args: string[], input?: string): string;
  /** Stops a private server; on a shared one, drops the databases this handle created. */
  stop(): Promise<void>;
  /** A private server: kills it at once (for an exit handler). */
  kill?(): void;
}

function findBin(name: string): string | undefined {
  const dirs = [process.env.MARIADB_BIN_DIR ?? '', '/usr/sbin', '/usr/bin', '/usr/local/bin', '/usr/local/sbin'];
  return findBinary(
    name,
    dirs.filter(Boolean).map((dir) => path.join(dir, name)),
  );
}

export function mariadbAvailable(): boolean {
  return findBin('mariadbd') !== undefined && findBin('mariadb-install-db') !== undefined && findBin('mariadb') !== undefined;
}

async function waitForSocket(socket: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`mariadbd exited with ${child.exitCode}: ${log()}`);
    if (existsSync(socket)) {
      const ok = spawnSync(findBin('mariadb')!, ['--no-defaults', `--socket=${socket}`, '-uroot', '-e', 'SELECT 1'], { stdio: 'ignore' });
      if (ok.status === 0) return;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`mariadbd did not start within 60 s: ${log()}`);
}

/** The run's shared server when test/runner/run.ts started one, else a private server of this process. */
export async function startMariadb(): Promise<MariadbServer> {
  const shared = sharedServer('mariadb');
  if (shared && !shared.ok) throw new Error(shared.reason);
  if (shared) {
    const { host, port, user, password, socket } = shared.settings as {
      host: string;
      port: number;
      user: string;
      password: string;
      socket: string;
    };
    return serverHandle({ host, port, user, password, socket, prefix: databasePrefix() });
  }
  return startPrivateMariadb();
}

/** A server of this process alone: installed into a temporary folder, stopped and removed by stop(). */
export async function startPrivateMariadb(): Promise<MariadbServer> {
  const installDb = findBin('mariadb-install-db');
  const mariadbd = findBin('mariadbd');
  const clientBin = findBin('mariadb');
  if (!installDb || !mariadbd || !clientBin) throw new Error('MariaDB binaries (mariadb-install-db, mariadbd, mariadb) are not installed.');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-maria-'));
  const data = path.join(dir, 'data');
  const socket = path.join(dir, 'sock');
  const asRoot = process.getuid?.() === 0 ? ['--user=root'] : [];
  execFileSync(installDb, ['--no-defaults', `--datadir=${data}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...asRoot], {
    stdio: 'pipe',
  });
  const port = await freePort();
  let log = '';
  const child = spawn(
    mariadbd,
    [
      '--no-defaults',
      `--datadir=${data}`,
      `--socket=${socket}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--pid-file=${path.join(dir, 'pid')}`,
      '--skip-name-resolve',
      '--innodb-flush-log-at-trx-commit=0',
      '--innodb-doublewrite=0',
      '--innodb-buffer-pool-size=64M',
      '--max-allowed-packet=256M',
      '--character-set-server=utf8mb4',
      '--collation-server=utf8mb4_general_ci',
      '--default-time-zone=+00:00',
      ...asRoot,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (log = (log + d).slice(-4000)));
  const host = '127.0.0.1';
  const user = 'siard_test';
  const password = 'siard-test-password';
  try {
    await waitForSocket(socket, child, () => log);
    execFileSync(clientBin, [
      '--no-defaults',
      `--socket=${socket}`,
      '-uroot',
      '-e',
      `CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'; GRANT ALL ON *.* TO '${user}'@'%' WITH GRANT OPTION;`,
    ]);
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const handle = serverHandle({ host, port, user, password, socket, prefix: '' });
  return {
    ...handle,
    kill: () => child.kill('SIGKILL'),
    async stop() {
      const exited = new Promise<void>((resolve) => {
        if (child.exitCode !== null) resolve();
        else child.once('exit', () => resolve());
      });
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface HandleSettings {
  host: string;
  port: number;
  user: string;
  password: string;
  socket: string;
  /** '' on a private server */
  prefix: string;
}

/** SQL and the command-line client on a server; on a shared one stop() drops the databases this handle created. */
function serverHandle({ host, port, user, password, socket, prefix }: HandleSettings): MariadbServer {
  const clientBin = findBin('mariadb')!;
  const databaseName = (database: string) =>
    prefix === '' || database === 'mysql' || database.startsWith(prefix) ? database : prefix + database;
  const connect = (database: string) =>
    mariadb.createConnection({
      host,
      port,
      user,
      password,
      database: databaseName(database),
      multipleStatements: true,
      timezone: '+00:00',
      // the connector's 1 s default failed a test at a load of 50; the product's own connections wait 15 s
      connectTimeout: 15_000,
    });
  const server: MariadbServer = {
    port,
    host,
    user,
    password,
    socket,
    url: (database = 'mysql', scheme = 'mysql') =>
      `${scheme}://${user}:${encodeURIComponent(password)}@${host}:${port}/${encodeURIComponent(databaseName(database))}`,
    databaseName,
    async createDatabase(name) {
      await server.sql('mysql', `CREATE DATABASE \`${databaseName(name).replace(/`/g, '``')}\` CHARACTER SET utf8mb4`);
    },
    async sql<T>(database: string, text: string, values: unknown[] = []): Promise<T[]> {
      const conn = await connect(database);
      try {
        const res = (await conn.query({ sql: text, bigIntAsNumber: false, dateStrings: true } as mariadb.QueryOptions, values)) as unknown;
        return (Array.isArray(res) ? res : []) as T[];
      } finally {
        await conn.end();
      }
    },
    client(database, args, input) {
      const res = spawnSync(
        clientBin,
        ['--no-defaults', `--socket=${socket}`, '-uroot', '--default-character-set=utf8mb4', databaseName(database), ...args],
        { encoding: 'utf8', maxBuffer: 1 << 30, input: input ?? '' },
      );
      if (res.status !== 0) throw new Error(`mariadb client failed: ${res.stderr.trim()}`);
      return res.stdout;
    },
    async stop() {
      if (prefix === '') return; // a private server: its own stop() ends it
      // Every database with this handle's prefix, those the verbs created too.
      const mine = await server.sql<{ name: string }>(
        'mysql',
        'SELECT schema_name AS name FROM information_schema.schemata WHERE LEFT(schema_name, CHAR_LENGTH(?)) = ?',
        [prefix, prefix],
      );
      for (const { name } of mine) await server.sql('mysql', `DROP DATABASE IF EXISTS \`${name.replace(/`/g, '``')}\``);
    },
  };
  return server;
}
