/**
 * Turns an export `<source>` argument into a DatabaseSource: the dialect that accepts the spec
 * (dialects.ts) opens it, and the table selection and --strict are checked on its catalogue.
 */
import { UsageError } from '../errors.js';
import {
  refuseWidened,
  rowBatchesOf,
  type BatchOptions,
  type DatabaseSource,
  type KeyedBatch,
  type RowsAfter,
  type SourceCatalog,
  type SourceTable,
  type SourceValue,
} from '../siard/database-source.js';
import { sourceDialect } from './dialects.js';
import { TableSelection } from './table-selection.js';
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
  /** an Access file: its database or encryption password */
  password?: string;
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
  rowBatches(schema: string, table: string, after?: RowsAfter, how?: BatchOptions): AsyncIterable<KeyedBatch> {
    return rowBatchesOf(this.inner, schema, table, after, how);
  }
  settleTable(schema: string, table: string, known?: unknown): Promise<SourceTable> {
    if (!this.inner.settleTable) throw new Error(`${this.inner.description} has no provisional tables to settle.`);
    return this.inner.settleTable(schema, table, known);
  }
  settledTypes(schema: string, table: string): unknown {
    return this.inner.settledTypes?.(schema, table);
  }
  async keyRange(schema: string, table: string): Promise<string | undefined> {
    return this.inner.keyRange?.(schema, table);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Base name a source gives an archive by default (the database file's name without extension). */
export function defaultArchiveName(spec: string): string {
  return sourceDialect(spec).archiveName(spec);
}

export async function openSource(spec: string, options: OpenSourceOptions = {}): Promise<DatabaseSource> {
  const dialect = sourceDialect(spec);
  const selection = new TableSelection(options.tables, options.excludeTables);
  if (options.password !== undefined && dialect.name !== 'access')
    throw new UsageError(`--password applies to an Access file (.mdb, .accdb), not to ${spec}.`);
  if (dialect.kind === 'package') {
    if (selection.active || options.strict)
      throw new UsageError(`--tables, --exclude-tables and --strict apply to databases; a SIARD package (${spec}) is re-segmented whole.`);
    return dialect.openSource(spec, options.acceptDigestMismatch ? { acceptDigestMismatch: true } : {});
  }
  if (options.acceptDigestMismatch) throw new UsageError(`--accept-digest-mismatch applies to a SIARD package, not to ${spec}.`);
  const source = await dialect.openSource(spec, {
    ...(selection.active ? { tableFilter: (name: string, schema: string) => selection.accepts(name, schema) } : {}),
    ...(options.strict ? { strict: true } : {}),
    ...(options.password !== undefined ? { password: options.password } : {}),
  });
  return selection.active || options.strict ? new SelectedSource(source, selection, options.strict) : source;
}
