/**
 * Opening a MariaDB / MySQL connection from a `mysql://` or `mariadb://` URL (the `mariadb`
 * connector), with every failure a user can cause (wrong password, unreachable host, unknown
 * database) turned into one clear sentence (exit 2). Every session is pinned to the settings the
 * value conversions rely on: time zone UTC (TIMESTAMP values are instants), utf8mb4 on the wire,
 * and a strict sql_mode so the server refuses a value rather than truncating it.
 */
import * as mariadb from 'mariadb';
import { SiardOcflError } from '../../errors.js';
import { isMysqlUrl } from './url.js';
import { quoteMysqlIdent } from '../sql-identifier.js';

export interface MysqlUrlParts {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** the scheme as given ("mysql" or "mariadb") */
  scheme: string;
}

/** host, port, user, password and database of a URL; a URL without a database is refused. */
export function parseMysqlUrl(url: string): MysqlUrlParts {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new SiardOcflError('The MariaDB/MySQL URL cannot be parsed; the form is mysql://user:password@host:port/database.', {
      code: 'BAD_URL',
      exitCode: 2,
    });
  }
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!database || database.includes('/')) {
    throw new SiardOcflError(
      `The MariaDB/MySQL URL ${describeMysqlUrl(url)} names no database; the form is mysql://user:password@host:port/database.`,
      { code: 'BAD_URL', exitCode: 2 },
    );
  }
  return {
    host: u.hostname || 'localhost',
    port: u.port ? Number(u.port) : 3306,
    user: decodeURIComponent(u.username) || process.env.USER || 'root',
    password: decodeURIComponent(u.password),
    database,
    scheme: u.protocol.replace(/:$/, '').toLowerCase(),
  };
}

/** host:port/db of a URL without user or password, for messages. */
export function describeMysqlUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '3306'}/${decodeURIComponent(u.pathname.replace(/^\//, ''))}`;
  } catch {
    return 'the given MariaDB/MySQL URL';
  }
}

/** The URL without its password, for `<connection>` in metadata.xml. */
export function redactMysqlUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return 'mysql://';
  }
}

/** One sentence for a failed connect: the cause a user can act on. */
function mysqlConnectionErrorMessage(url: string, err: unknown): string {
  const where = describeMysqlUrl(url);
  const e = err as { code?: string; errno?: number; sqlMessage?: string; message?: string };
  let user = '';
  let database = '';
  try {
    const u = new URL(url);
    user = decodeURIComponent(u.username);
    database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  } catch {
    // described as "the given URL" above
  }
  switch (e?.code) {
    case 'ER_ACCESS_DENIED_ERROR':
    case 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR':
      return `MariaDB/MySQL at ${where} refused user "${user}": wrong password or no access from this host.`;
    case 'ER_DBACCESS_DENIED_ERROR':
      return `MariaDB/MySQL at ${where} refused user "${user}" access to database "${database}".`;
    case 'ER_BAD_DB_ERROR':
      return `Database "${database}" does not exist on the MariaDB/MySQL server at ${where.replace(/\/.*$/, '')}.`;
    case 'ECONNREFUSED':
      return `Cannot reach MariaDB/MySQL at ${where}: connection refused (is the server running on that host and port?).`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Cannot reach MariaDB/MySQL at ${where}: unknown host.`;
    case 'ETIMEDOUT':
    case 'ER_CONNECTION_TIMEOUT':
      return `Cannot reach MariaDB/MySQL at ${where}: the connection timed out.`;
    default: {
      const text = (e?.sqlMessage ?? e?.message ?? String(err))
        .replace(/^\(conn[^)]*\)\s*/, '')
        .split('\n')[0]!
        .replace(/[.\s]+$/, '');
      return `Cannot connect to MariaDB/MySQL at ${where}: ${text}.`;
    }
  }
}

/**
 * Session settings every connection of ours runs with: UTC, utf8mb4, and a strict sql_mode that
 * still admits zero dates (a MariaDB archive may hold them) and keeps an explicit 0 in an
 * AUTO_INCREMENT column.
 */
export const MYSQL_SESSION_SETTINGS = [
  "SET time_zone = '+00:00'",
  'SET NAMES utf8mb4',
  "SET sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION,NO_AUTO_VALUE_ON_ZERO,ERROR_FOR_DIVISION_BY_ZERO'",
];

/** A connected session with our settings, or a SiardOcflError (exit 2) saying why not. */
export async function connectMysql(
  url: string,
  options: { database?: string | null; connectTimeoutMs?: number } = {},
): Promise<mariadb.Connection> {
  if (!isMysqlUrl(url)) throw new SiardOcflError(`"${url}" is not a mysql:// or mariadb:// URL.`, { code: 'BAD_URL', exitCode: 2 });
  const parts = parseMysqlUrl(url);
  let conn: mariadb.Connection;
  try {
    conn = await mariadb.createConnection({
      host: parts.host,
      port: parts.port,
      user: parts.user,
      password: parts.password,
      ...(options.database === null ? {} : { database: options.database ?? parts.database }),
      connectTimeout: options.connectTimeoutMs ?? 15000,
      // one statement per query: text from an archive can never smuggle in a second one
      multipleStatements: false,
      timezone: '+00:00',
      charset: 'utf8mb4',
      bigIntAsNumber: false,
      insertIdAsNumber: true,
      dateStrings: true,
      checkDuplicate: false,
    } as mariadb.ConnectionConfig);
  } catch (err) {
    throw new SiardOcflError(mysqlConnectionErrorMessage(url, err), { code: 'MYSQL_CONNECT', exitCode: 2, cause: err });
  }
  // A connection error after connect (server shut down) must not crash the process.
  conn.on('error', () => {});
  try {
    for (const sql of MYSQL_SESSION_SETTINGS) await conn.query(sql);
  } catch (err) {
    await conn.end().catch(() => {});
    throw new SiardOcflError(mysqlConnectionErrorMessage(url, err), { code: 'MYSQL_CONNECT', exitCode: 2, cause: err });
  }
  return conn;
}

export function qualifiedMysqlName(schema: string, name: string): string {
  return `${quoteMysqlIdent(schema)}.${quoteMysqlIdent(name)}`;
}
