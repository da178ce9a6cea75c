/**
 * Opening a PostgreSQL connection from a `postgres://` URL, with every failure a user can cause
 * (wrong password, unreachable host, unknown database) turned into one clear sentence (exit 2).
 * The session is pinned to the settings the value conversions rely on: UTC, ISO dates,
 * ISO 8601 intervals, shortest exact float output, UTF-8.
 */
import pg from 'pg';
import { SiardOcflError } from '../../errors.js';
import { isPostgresUrl } from './url.js';

/** host:port/db of a URL without the password, for messages. */
export function describePostgresUrl(url: string): string {
  try {
    const u = new URL(url);
    const db = decodeURIComponent(u.pathname.replace(/^\//, '')) || u.username || 'postgres';
    return `${u.hostname || 'localhost'}:${u.port || '5432'}/${db}`;
  } catch {
    return 'the given PostgreSQL URL';
  }
}

function databaseOf(url: string): string {
  try {
    const u = new URL(url);
    return decodeURIComponent(u.pathname.replace(/^\//, '')) || decodeURIComponent(u.username) || 'postgres';
  } catch {
    return '';
  }
}

function userOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).username) || process.env.PGUSER || 'postgres';
  } catch {
    return '';
  }
}

/** One sentence for a failed connect: the cause a user can act on. */
function connectionErrorMessage(url: string, err: unknown): string {
  const where = describePostgresUrl(url);
  const e = err as { code?: string; message?: string };
  switch (e?.code) {
    case '28P01':
      return `PostgreSQL at ${where} refused user "${userOf(url)}": wrong password.`;
    case '28000':
      return `PostgreSQL at ${where} refused user "${userOf(url)}": ${e.message ?? 'not authorised'}.`;
    case '3D000':
      return `Database "${databaseOf(url)}" does not exist on the PostgreSQL server at ${where.replace(/\/.*$/, '')}.`;
    case 'ECONNREFUSED':
      return `Cannot reach PostgreSQL at ${where}: connection refused (is the server running on that host and port?).`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Cannot reach PostgreSQL at ${where}: unknown host.`;
    case 'ETIMEDOUT':
      return `Cannot reach PostgreSQL at ${where}: the connection timed out.`;
    default: {
      const text = (e?.message ?? String(err)).replace(/[.\s]+$/, '');
      if (/timeout/i.test(text)) return `Cannot reach PostgreSQL at ${where}: the connection timed out.`;
      return `Cannot connect to PostgreSQL at ${where}: ${text}.`;
    }
  }
}

/** Settings every session of ours runs with (values are converted assuming them). */
const SESSION_SETTINGS = [
  "SET TIME ZONE 'UTC'",
  "SET datestyle = 'ISO, YMD'",
  "SET intervalstyle = 'iso_8601'",
  'SET extra_float_digits = 3',
  "SET client_encoding = 'UTF8'",
  "SET bytea_output = 'hex'",
];

/** A connected client with our session settings, or a SiardOcflError (exit 2) saying why not. */
export async function connectPostgres(url: string, options: { connectTimeoutMs?: number } = {}): Promise<pg.Client> {
  if (!isPostgresUrl(url)) throw new SiardOcflError(`"${url}" is not a postgres:// URL.`, { code: 'BAD_URL' });
  let client: pg.Client;
  try {
    client = new pg.Client({ connectionString: url, connectionTimeoutMillis: options.connectTimeoutMs ?? 15000 });
  } catch (err) {
    throw new SiardOcflError(connectionErrorMessage(url, err), { code: 'PG_CONNECT', cause: err });
  }
  // A connection error after connect (server shut down) must not crash the process.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    throw new SiardOcflError(connectionErrorMessage(url, err), { code: 'PG_CONNECT', cause: err });
  }
  for (const sql of SESSION_SETTINGS) await client.query(sql);
  return client;
}
