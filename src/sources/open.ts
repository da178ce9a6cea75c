/**
 * Turns an export `<source>` argument into a DatabaseSource:
 * `sqlite:<file>` or a path ending in .db/.sqlite/.sqlite3 -> SQLite; `postgres://` / `postgresql://`
 * -> PostgreSQL (when its module provides `openPostgresSource`); `mysql://` / `mariadb://` -> MariaDB or MySQL.
 */
import { UsageError } from '../errors.js';
import {
  refuseWidened,
  rowBatchesOf,
  type DatabaseSource,
  type SourceCatalog,
  type SourceTable,
  type SourceValue,
} from '../siard/database-source.js';
import { SiardSource } from './siard/siard-source.js';
import { TableSelection } from './table-selection.js';
import { SqliteSource } from './sqlite/sqlite-source.js';
import { isSiardFileName } from '../siard/siard-file-name.js';

export interface OpenSourceOptions {
  /** comma-separated table patterns with * and ?, plain or schema-qualified (all tables when absent) */
  tables?: string;
  /** comma-separated patterns of tables to leave out */
  excludeTables?: string;
  /** refuse columns whose values do not fit their declared type (SIARD type) instead of widening them */
  strict?: boolean;
  /** a SIARD package: keep LOBs whose bytes differ from their received cell, recording them */
  acceptDigestMismatch?: boolean;
}

export function isSiardSpec(spec: string): boolean {
  return isSiardFileName(spec);
}

/** A source whose catalogue is checked once read: against the table selection, and for --strict. */
class SelectedSource implements DatabaseSource {
  constructor(
    private readonly inner: DatabaseSource,
    private readonly selection: TableSelection,
    private readonly strict = false,
  ) {}
  get description(): string {
    return this.inner.description;
  }
  async catalog(): Promise<SourceCatalog> {
    const catalog = await this.inner.catalog();
    this.selection.check();
    if (this.strict) refuseWidened(catalog.widened ?? []);
    return catalog;
  }
  rows(schema: string, table: string): AsyncIterable<SourceValue[]> {
    return this.inner.rows(schema, table);
  }
  rowBatches(schema: string, table: string): AsyncIterable<SourceValue[][]> {
    return rowBatchesOf(this.inner, schema, table);
  }
  settleTable(schema: string, table: string): Promise<SourceTable> {
    if (!this.inner.settleTable) throw new Error(`${this.inner.description} has no provisional tables to settle.`);
    return this.inner.settleTable(schema, table);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Base name a source gives an archive by default (the database file's name without extension). */
export function defaultArchiveName(spec: string): string {
  const file = spec.startsWith('sqlite:') ? spec.slice('sqlite:'.length) : spec;
  const base = file.split(/[\\/]/).pop() ?? 'database';
  return base.replace(/\.(db|sqlite|sqlite3|siard)$/i, '') || 'database';
}

export async function openSource(spec: string, options: OpenSourceOptions = {}): Promise<DatabaseSource> {
  const selection = new TableSelection(options.tables, options.excludeTables);
  const tableFilter = selection.active ? (name: string, schema: string) => selection.accepts(name, schema) : undefined;
  let source: DatabaseSource;
  if (/^postgres(ql)?:\/\//i.test(spec)) {
    const mod = (await import('./postgres/postgres-source.js').catch(() => ({}))) as {
      openPostgresSource?: (url: string, o: { tableFilter?: (n: string, s: string) => boolean }) => Promise<DatabaseSource>;
    };
    if (!mod.openPostgresSource) throw new UsageError('PostgreSQL sources are not available in this build.', 'SOURCE_UNSUPPORTED');
    source = await mod.openPostgresSource(spec, tableFilter ? { tableFilter } : {});
  } else if (/^(mysql|mariadb):\/\//i.test(spec)) {
    const { openMysqlSource } = await import('./mysql/mysql-source.js');
    source = await openMysqlSource(spec, tableFilter ? { tableFilter } : {});
  } else {
    const scheme = /^([a-z][a-z0-9+.-]+):\/\//i.exec(spec)?.[1];
    if (scheme !== undefined) {
      throw new UsageError(
        `The source scheme ${scheme}:// is not supported; sources are sqlite:<file>, a .db/.sqlite/.sqlite3 file, postgres://, ` +
          `postgresql://, mysql:// or mariadb://.`,
        'SOURCE_UNSUPPORTED',
      );
    }
    if (isSiardSpec(spec)) {
      if (selection.active || options.strict)
        throw new UsageError(
          `--tables, --exclude-tables and --strict apply to databases; a SIARD package (${spec}) is re-segmented whole.`,
        );
      return SiardSource.open(spec, options.acceptDigestMismatch ? { acceptDigestMismatch: true } : {});
    }
    if (options.acceptDigestMismatch) throw new UsageError(`--accept-digest-mismatch applies to a SIARD package, not to ${spec}.`);
    const file = spec.startsWith('sqlite:') ? spec.slice('sqlite:'.length) : spec;
    // The sources opened here feed the SIARD writer, which takes back a provisional table (SourceTable.provisional).
    source = SqliteSource.open(file, {
      ...(tableFilter ? { tableFilter } : {}),
      ...(options.strict ? { strict: true } : { provisionalTypes: true }),
    });
  }
  return selection.active || options.strict ? new SelectedSource(source, selection, options.strict) : source;
}
