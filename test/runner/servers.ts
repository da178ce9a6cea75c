/**
 * The servers of a test run, started once by the runner and shared by the test files
 * (test/helpers/shared-servers.ts): PostgreSQL, MariaDB and the Ceph RADOS Gateway, each where it
 * is installed. They start beside the first test files; each writes its descriptor when it answers.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { mariadbAvailable, startPrivateMariadb } from '../helpers/mariadb-server.js';
import { postgresAvailable, startPrivatePostgres } from '../helpers/postgres-server.js';
import type { ServerKind, SharedServer } from '../helpers/shared-servers.js';

const run = promisify(execFile);

export interface RunningServers {
  /** every server has answered or failed (its descriptor is written) */
  ready: Promise<void>;
  /** seconds from the start to each server's answer */
  startSeconds: Partial<Record<ServerKind, number>>;
  stop(): Promise<void>;
  /** for an exit handler: kills what is still running, synchronously */
  stopSync(): void;
}

function describe(err: unknown): string {
  const e = err as { stderr?: string | Buffer; message?: string };
  return (String(e.stderr ?? '') || e.message || String(err)).trim().split('\n').slice(-3).join(' ');
}

export function startServers(folder: string, projectRoot: string): RunningServers {
  const stops: Array<() => Promise<void>> = [];
  const syncStops: Array<() => void> = [];
  const startSeconds: Partial<Record<ServerKind, number>> = {};
  const began = performance.now();
  const write = (kind: ServerKind, server: SharedServer) => {
    if (server.ok) startSeconds[kind] = (performance.now() - began) / 1000;
    writeFileSync(path.join(folder, `${kind}.json.tmp`), JSON.stringify(server));
    // Renamed into place: a reader never sees half a descriptor.
    renameSync(path.join(folder, `${kind}.json.tmp`), path.join(folder, `${kind}.json`));
  };

  const rgw = (async () => {
    const script = path.join(projectRoot, 'scripts', 'ceph-rgw.sh');
    const parent = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-rgw-'));
    const dir = path.join(parent, 'cluster');
    const stopRgw = () => {
      try {
        execFileSync(script, ['stop', dir], { timeout: 60_000, stdio: 'ignore' });
      } catch {
        // nothing more to stop
      }
      rmSync(parent, { recursive: true, force: true });
    };
    try {
      if (process.getuid?.() === 0) await run(script, ['install'], { timeout: 300_000 });
      const { stdout } = await run(script, ['start', dir], { timeout: 180_000, encoding: 'utf8' });
      const settings: Record<string, string> = {};
      for (const line of stdout.split('\n')) {
        const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
        if (m) settings[m[1]!] = m[2]!;
      }
      if (!settings.AWS_ENDPOINT_URL) throw new Error(`scripts/ceph-rgw.sh printed no endpoint: ${stdout}`);
      syncStops.push(stopRgw);
      stops.push(async () => stopRgw());
      write('rgw', { ok: true, settings });
    } catch (err) {
      stopRgw();
      write('rgw', { ok: false, reason: `a Ceph RADOS Gateway could not be started (${describe(err)})` });
    }
  })();

  const databases = (async () => {
    if (postgresAvailable()) {
      try {
        const pg = await startPrivatePostgres();
        stops.push(() => pg.stop());
        syncStops.push(() => void pg.stop());
        write('postgres', { ok: true, settings: { host: pg.host, port: pg.port, user: pg.user, password: pg.password } });
      } catch (err) {
        write('postgres', { ok: false, reason: `PostgreSQL could not be started (${describe(err)})` });
      }
    } else write('postgres', { ok: false, reason: 'PostgreSQL (initdb, pg_ctl) is not installed' });
    if (mariadbAvailable()) {
      try {
        const maria = await startPrivateMariadb();
        stops.push(() => maria.stop());
        syncStops.push(() => maria.kill?.());
        const { host, port, user, password, socket } = maria;
        write('mariadb', { ok: true, settings: { host, port, user, password, socket } });
      } catch (err) {
        write('mariadb', { ok: false, reason: `MariaDB could not be started (${describe(err)})` });
      }
    } else write('mariadb', { ok: false, reason: 'MariaDB (mariadbd, mariadb-install-db, mariadb) is not installed' });
  })();

  const ready = Promise.all([rgw, databases]).then(() => {});
  return {
    ready,
    startSeconds,
    async stop() {
      await ready;
      for (const stop of stops.splice(0)) await stop().catch(() => {});
      syncStops.length = 0;
    },
    stopSync() {
      for (const stop of syncStops.splice(0)) stop();
    },
  };
}
