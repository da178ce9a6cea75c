/**
 * Turns an export `<source>` argument into a DatabaseSource:
 * `sqlite:<file>` or a path ending in .db/.sqlite/.sqlite3 -> SQLite; `postgres://` / `postgresql://`
 * -> PostgreSQL (when its module provides `openPostgresSource`).
 */
import { UsageError } from '../errors.js';
import type { DatabaseSource } from './source.js';
import { SiardSource } from './siard/siard-source.js';
import { SqliteSource } from './sqlite/sqlite-source.js';

export interface OpenSourceOptions {
  /** comma-separated table name patterns with * and ? (all tables when absent) */
  tables?: string;
  /** a SIARD package: keep LOBs whose bytes differ from their received cell, recording them */
  acceptDigestMismatch?: boolean;
}

export function isSiardSpec(spec: string): boolean {
  return /\.siard$/i.test(spec);
}

export function tableFilterOf(patterns: string | undefined): ((name: string) => boolean) | undefined {
  if (!patterns) return undefined;
  const regexes = patterns
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => new RegExp('^' + p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$'));
  return (name) => regexes.some((r) => r.test(name));
}

export function isSqliteSpec(spec: string): boolean {
  return spec.startsWith('sqlite:') || /\.(db|sqlite|sqlite3)$/i.test(spec);
}

/** Base name a source gives an archive by default (the database file's name without extension). */
export function defaultArchiveName(spec: string): string {
  const file = spec.startsWith('sqlite:') ? spec.slice('sqlite:'.length) : spec;
  const base = file.split(/[\\/]/).pop() ?? 'database';
  return base.replace(/\.(db|sqlite|sqlite3|siard)$/i, '') || 'database';
}

export async function openSource(spec: string, options: OpenSourceOptions = {}): Promise<DatabaseSource> {
  const tableFilter = tableFilterOf(options.tables);
  if (/^postgres(ql)?:\/\//i.test(spec)) {
    const mod = (await import('./postgres/postgres-source.js').catch(() => ({}))) as {
      openPostgresSource?: (url: string, o: { tableFilter?: (n: string) => boolean }) => Promise<DatabaseSource>;
    };
    if (!mod.openPostgresSource) throw new UsageError('PostgreSQL sources are not available in this build.', 'SOURCE_UNSUPPORTED');
    return mod.openPostgresSource(spec, tableFilter ? { tableFilter } : {});
  }
  const scheme = /^([a-z][a-z0-9+.-]+):\/\//i.exec(spec)?.[1];
  if (scheme !== undefined) {
    throw new UsageError(`The source scheme ${scheme}:// is not supported; sources are sqlite:<file>, a .db/.sqlite/.sqlite3 file, postgres:// or postgresql://.`, 'SOURCE_UNSUPPORTED');
  }
  if (isSiardSpec(spec)) {
    if (tableFilter) throw new UsageError(`--tables applies to databases; a SIARD package (${spec}) is re-segmented whole.`);
    return SiardSource.open(spec, options.acceptDigestMismatch ? { acceptDigestMismatch: true } : {});
  }
  if (options.acceptDigestMismatch) throw new UsageError(`--accept-digest-mismatch applies to a SIARD package, not to ${spec}.`);
  const file = spec.startsWith('sqlite:') ? spec.slice('sqlite:'.length) : spec;
  return SqliteSource.open(file, tableFilter ? { tableFilter } : {});
}
