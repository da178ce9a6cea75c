/**
 * A SQLite database read as it stores its values, without the type decisions an export makes
 * (sqlite-source.ts scans every table first to settle them): integers as bigint, reals as numbers,
 * text as strings, blobs as bytes, each table in rowid order (primary-key order WITHOUT ROWID).
 * What a comparison with an archive needs (verify), which knows each column's SIARD type from the
 * archive. One read transaction holds every read; rows come in batches of a few MB.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../errors.js';
import type { DatabaseSource, SourceCatalog, SourceTable, SourceValue } from '../../siard/database-source.js';
import { quoteIdent } from '../sql-identifier.js';
import Database from './driver.js';

/** Rows per batch, fewer when they are large (BATCH_BYTES). */
const BATCH_ROWS = 2000;
const BATCH_BYTES = 4 * 1024 * 1024;

export class SqliteRawSource implements DatabaseSource {
  readonly description: string;
  private catalogCache: SourceCatalog | undefined;

  private constructor(
    private readonly db: BetterSqlite3.Database,
    file: string,
    private readonly tableFilter: (name: string, schema: string) => boolean,
  ) {
    this.description = file;
  }

  /** Opens `file` read-only; a missing file or one that is not SQLite is a usage error (exit 2). */
  static open(file: string, tableFilter: (name: string, schema: string) => boolean = () => true): SqliteRawSource {
    const full = path.resolve(file);
    if (!existsSync(full)) throw new UsageError(`The SQLite database ${file} does not exist.`, 'SOURCE_MISSING');
    let db: BetterSqlite3.Database;
    try {
      db = new Database(full, { readonly: true, fileMustExist: true });
      db.exec('BEGIN');
      db.prepare('SELECT count(*) FROM sqlite_master').get();
    } catch (err) {
      throw new UsageError(`Cannot read the SQLite database ${file}: ${(err as Error).message}.`, 'SOURCE_UNREADABLE', err);
    }
    return new SqliteRawSource(db, file, tableFilter);
  }

  async catalog(): Promise<SourceCatalog> {
    if (this.catalogCache) return this.catalogCache;
    const names = (
      this.db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid`)
        .all() as Array<{
        name: string;
      }>
    )
      .map((r) => r.name)
      .filter((n) => this.tableFilter(n, 'main'));
    const tables: SourceTable[] = names.map((name) => {
      const info = this.db.prepare(`PRAGMA main.table_xinfo(${quoteIdent(name)})`).all() as Array<{
        name: string;
        type: string;
        hidden: number;
      }>;
      const columns = info
        .filter((c) => c.hidden === 0 || c.hidden === 2 || c.hidden === 3)
        .map((c) => ({ name: c.name, typeOriginal: c.type ?? '' }));
      return { name, columns, foreignKeys: [], candidateKeys: [], rows: 0 };
    });
    this.catalogCache = { schemas: [{ name: 'main', tables, views: [] }] };
    return this.catalogCache;
  }

  async *rows(schema: string, table: string): AsyncIterable<SourceValue[]> {
    for await (const batch of this.rowBatches(schema, table)) yield* batch;
  }

  async *rowBatches(_schema: string, table: string): AsyncIterable<SourceValue[][]> {
    const t = (await this.catalog()).schemas[0]!.tables.find((x) => x.name === table);
    if (!t) throw new Error(`Table "${table}" is not in the catalogue.`);
    const list = t.columns.length > 0 ? t.columns.map((c) => quoteIdent(c.name)).join(', ') : 'NULL';
    // WITHOUT ROWID (or a column named like the rowid): read in the table's order, row by row
    let rowid = !t.columns.some((c) => /^(rowid|oid|_rowid_)$/i.test(c.name));
    try {
      if (rowid) this.db.prepare(`SELECT rowid FROM ${quoteIdent(table)} LIMIT 0`).all();
    } catch {
      rowid = false;
    }
    if (!rowid) {
      let batch: SourceValue[][] = [];
      let bytes = 0;
      for (const row of this.db
        .prepare(`SELECT ${list} FROM ${quoteIdent(table)}`)
        .raw(true)
        .safeIntegers(true)
        .iterate() as Iterable<SourceValue[]>) {
        batch.push(row);
        bytes += rowBytes(row);
        if (batch.length >= BATCH_ROWS || bytes >= BATCH_BYTES) {
          yield batch;
          batch = [];
          bytes = 0;
        }
      }
      if (batch.length > 0) yield batch;
      return;
    }
    // rowid tables: one statement per batch (one call into SQLite for many rows), the rowid after the
    // values unless a column is the rowid (an INTEGER PRIMARY KEY: read once, 2-3% of a verify's CPU)
    const n = t.columns.length;
    const alias = this.rowidColumn(table, t.columns);
    const key = alias >= 0 ? alias : n;
    const stmt = this.db
      .prepare(`SELECT ${list}${alias >= 0 ? '' : ', rowid'} FROM ${quoteIdent(table)} WHERE rowid > ? ORDER BY rowid LIMIT ?`)
      .raw(true)
      .safeIntegers(true);
    let after = -(2n ** 63n);
    let limit = 100;
    for (;;) {
      const rows = stmt.all(after, limit) as unknown[][];
      if (rows.length === 0) return;
      after = rows[rows.length - 1]![key] as bigint;
      let bytes = 0;
      for (const r of rows) {
        r.length = n;
        bytes += rowBytes(r as SourceValue[]);
      }
      yield rows as SourceValue[][];
      // as many rows as fit BATCH_BYTES, judged by this batch's
      limit = Math.max(1, Math.min(BATCH_ROWS, Math.floor((BATCH_BYTES * rows.length) / Math.max(bytes, 1))));
    }
  }

  /**
   * The index of the column that is the table's rowid, or -1: SQLite's rule, the one PRIMARY KEY
   * column declared exactly INTEGER, except `INTEGER PRIMARY KEY DESC`, for which SQLite keeps an
   * index of the key (origin 'pk') as for any other key. Asked only of a table that has a rowid.
   */
  private rowidColumn(table: string, columns: ReadonlyArray<{ name: string }>): number {
    const info = this.db.prepare(`PRAGMA main.table_xinfo(${quoteIdent(table)})`).all() as Array<{
      name: string;
      type: string;
      pk: number;
    }>;
    const key = info.filter((c) => c.pk > 0);
    if (key.length !== 1 || key[0]!.type.toUpperCase() !== 'INTEGER') return -1;
    const indexes = this.db.prepare(`PRAGMA main.index_list(${quoteIdent(table)})`).all() as Array<{ origin: string }>;
    if (indexes.some((x) => x.origin === 'pk')) return -1;
    return columns.findIndex((c) => c.name === key[0]!.name);
  }

  async close(): Promise<void> {
    try {
      this.db.exec('COMMIT');
    } catch {
      // nothing to commit
    }
    this.db.close();
  }
}

function rowBytes(row: readonly SourceValue[]): number {
  let n = 16;
  for (const v of row) n += typeof v === 'string' ? v.length : v instanceof Uint8Array ? v.length : 8;
  return n;
}
