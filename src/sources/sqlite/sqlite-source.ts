/**
 * SQLite as a SIARD source (better-sqlite3): one schema "main", its tables and views, primary,
 * foreign and unique keys, row counts, and rows streamed in rowid order (primary-key order for
 * WITHOUT ROWID tables) inside one read transaction, so catalogue and rows agree.
 *
 * Memory: rows are read as raw arrays and handed over in batches of a few MB (BATCH_BYTES) or one
 * row when a row is larger; better-sqlite3 returns each value whole, so memory is bounded by two
 * batches or the largest row (SQLite's own limit is 1 GB per value). Rowid tables are read a batch
 * per all() call (a row count the prescan's longest values keep under BATCH_BYTES), others with
 * iterate(), a row at a time. A large rowid table whose rows go to the SIARD writer (rowBatches'
 * `texts`) is read in a worker thread instead (rows-reader.ts): the same select, order and paging,
 * the cells handed over as bytes the writer formats without a value per cell (issue 39).
 */
import type BetterSqlite3 from 'better-sqlite3';
import Database from './driver.js';
import { existsSync, openSync, readSync, closeSync, statSync } from 'node:fs';
import path from 'node:path';
import { TextDecoder } from 'node:util';
import { SiardOcflError, UsageError } from '../../errors.js';
import type { SiardColumn, SiardForeignKey, SiardReferentialAction, SiardUniqueKey, SiardView } from '../../siard/model.js';
import { readAhead } from '../read-ahead.js';
import {
  ProvisionalTypesFailed,
  refuseWidened,
  type DatabaseSource,
  type BatchOptions,
  type KeyedBatch,
  type RowsAfter,
  type SourceCatalog,
  type SourceTable,
  type SourceValue,
  type WidenedColumn,
} from '../../siard/database-source.js';
import { sqliteCheckConstraints } from './check-constraints.js';
import { sqliteTriggers } from './triggers.js';
import { quoteIdent } from '../sql-identifier.js';
import { rowidAliasIndex } from './rowid-alias.js';
import {
  assumedColumnTypes,
  checkableColumns,
  cheapScanList,
  decideColumnTypes,
  lengthsFromCheapScan,
  provisionalColumnTypes,
  typesFromCheapScan,
  type ColumnDecision,
  type ProvisionalColumns,
  type ProvisionalTypes,
} from './prescan.js';
import { fitCheck, type FitCheck } from './provisional-check.js';
import { aggregateScanner, merge, queryInWorker, type AggregateRow, type AggregateScanner } from './split-scan.js';
import { ScanBeside } from './scan-beside.js';
import { keySelect, primaryKeyBatches, type PrimaryKeyRead } from './primary-key-order.js';
import { formatReal, mapDeclaredType } from './type-mapping.js';
import { sqliteLiteral } from './value-literal.js';
import { encodingOf, textKindOf, textsBatch, type CellEncoding } from './cell-encoding.js';
import { RowsReader, type WorkerBatch } from './rows-reader.js';

const SQLITE_MAGIC = 'SQLite format 3\0';

interface TableInfoRow {
  cid: number;
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}

interface TablePlan {
  table: SourceTable;
  decisions: ColumnDecision[];
  orderBy: string;
  createSql: string;
  /** each column's value check while its types are provisional (SourceTable.provisional) */
  checks?: FitCheck[];
  /** set when the cheap scan is still to run, beside the reading of the rows (scan-beside.ts) */
  scanBeside?: ProvisionalColumns;
}

/** A settled table's types and row count, from its full scan (SqliteSource.settledTypes). */
interface SettledTypes {
  decisions: ColumnDecision[];
  columns: SiardColumn[];
  rows: number;
}

/** The plan of a provisional table with the types of its full scan, given. */
function settledPlan(old: TablePlan, known: SettledTypes): TablePlan {
  const { provisional: _, ...rest } = old.table;
  return {
    table: { ...rest, columns: known.columns, rows: known.rows },
    decisions: known.decisions,
    orderBy: old.orderBy,
    createSql: old.createSql,
  };
}

/** Tables with fewer rows are read on the source's thread: the reader thread costs ~50 ms to start. */
const READER_MIN_ROWS = 50_000;
/** Batches the reader thread reads ahead of the writer at most (each up to BATCH_BYTES of values). */
const READER_AHEAD = 3;

/** How a rowid table's rows are read: the select, the rowid's place, and the reader thread when they are read there. */
interface RowidRead {
  select: string;
  rowidAt: number;
  /** converts a raw row read here (readBatches' convert) */
  convert: (raw: unknown[]) => number;
  /** where the rowid is, -1 when the batches have no keys */
  keys: number;
  /** the rows read so far (row numbers in messages go on from it) */
  count: { rows: number };
  reader?: RowsReader;
  /** a batch of the reader thread as the writer takes it */
  texts?: (got: WorkerBatch) => KeyedBatch;
}

/** Tables with fewer rows are scanned before their rows are read: a worker costs ~50 ms. */
const SCAN_BESIDE_MIN_ROWS = 200_000;

export interface SqliteSourceOptions {
  /** only tables whose name passes */
  tableFilter?: (name: string, schema: string) => boolean;
  /** refuse (listing every such column) instead of widening a column whose values do not fit */
  strict?: boolean;
  /** read every table with iterate(), one row at a time, as WITHOUT ROWID tables are (for tests comparing both ways) */
  rowByRow?: boolean;
  /** tables of at least this many rows have their cheap scan run beside the read (default SCAN_BESIDE_MIN_ROWS; for tests) */
  scanBesideMinRows?: number;
  /** tables of at least this many rows are read in a worker thread for a writer of texts (default READER_MIN_ROWS; for tests) */
  readerMinRows?: number;
  /**
   * Settle a rowid table's types from a cheap scan and check the values as they are read, instead
   * of a full scan first (SourceTable.provisional): for a reader that handles ProvisionalTypesFailed,
   * as the SIARD writer does. Not with `strict`, which must refuse before anything is written.
   */
  provisionalTypes?: boolean;
}

export class SqliteSource implements DatabaseSource {
  readonly description: string;
  private readonly db: BetterSqlite3.Database;
  private readonly plans = new Map<string, TablePlan>();
  private readonly scanner: AggregateScanner;
  private catalogCache: SourceCatalog | undefined;

  private constructor(
    private readonly file: string,
    db: BetterSqlite3.Database,
    private readonly options: SqliteSourceOptions,
  ) {
    this.description = file;
    this.db = db;
    this.scanner = aggregateScanner(db, file);
  }

  /** Opens `file` read-only; a missing file or one that is not SQLite is a usage error (exit 2). */
  static open(file: string, options: SqliteSourceOptions = {}): SqliteSource {
    const full = path.resolve(file);
    if (!existsSync(full)) throw new UsageError(`The SQLite database ${file} does not exist.`, 'SOURCE_MISSING');
    if (!statSync(full).isFile()) throw new UsageError(`${file} is not a file, so it cannot be a SQLite database.`, 'SOURCE_NOT_SQLITE');
    const header = Buffer.alloc(16);
    const fd = openSync(full, 'r');
    let read = 0;
    try {
      read = readSync(fd, header, 0, 16, 0);
    } finally {
      closeSync(fd);
    }
    if (read < 16 || header.toString('latin1') !== SQLITE_MAGIC) {
      throw new UsageError(`${file} is not a SQLite database (no "SQLite format 3" header).`, 'SOURCE_NOT_SQLITE');
    }
    let db: BetterSqlite3.Database;
    try {
      db = new Database(full, { readonly: true, fileMustExist: true });
      // SQLite's default page cache (2 MB), not better-sqlite3's 16 MB: an export reads each page
      // once, in order, and the pages only added to its peak memory
      db.pragma('cache_size = -2000');
      db.exec('BEGIN'); // one read snapshot for catalogue and rows
      db.prepare('SELECT count(*) FROM sqlite_master').get();
    } catch (err) {
      throw new UsageError(`Cannot read the SQLite database ${file}: ${(err as Error).message}.`, 'SOURCE_UNREADABLE', err);
    }
    return new SqliteSource(full, db, options);
  }

  async catalog(): Promise<SourceCatalog> {
    if (this.catalogCache) return this.catalogCache;
    const objects = this.db
      .prepare(
        `SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ` +
          `ORDER BY rowid`,
      )
      .all() as Array<{ type: string; name: string; sql: string | null }>;
    const tables: SourceTable[] = [];
    const views: SiardView[] = [];
    const widened: WidenedColumn[] = [];
    const notExported: string[] = [];
    for (const o of objects) {
      if (o.type === 'table') {
        if (/^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(o.sql ?? '')) continue;
        if (this.options.tableFilter && !this.options.tableFilter(o.name, 'main')) continue;
        const plan = await this.planTable(o.name, o.sql ?? '', this.options.provisionalTypes === true && !this.options.strict);
        this.plans.set(o.name, plan);
        tables.push(plan.table);
        // indexes other than keys (SIARD 2.2 has no element for them)
        const keys = new Set(plan.table.candidateKeys.map((k) => k.name));
        for (const ix of this.db.prepare(`PRAGMA main.index_list(${quoteIdent(o.name)})`).all() as Array<{
          name: string;
          origin: string;
        }>) {
          if (ix.origin === 'c' && !keys.has(ix.name)) notExported.push(`index ${ix.name} on ${o.name}`);
        }
        widened.push(...widenedOf(plan));
      } else {
        views.push(this.describeView(o.name, o.sql ?? undefined));
      }
    }
    if (this.options.strict) refuseWidened(widened);
    const version = (this.db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
    this.catalogCache = {
      databaseProduct: `SQLite ${version}`,
      connection: `sqlite:${this.file}`,
      schemas: [{ name: 'main', tables, views }],
      widened,
      notExported,
    };
    return this.catalogCache;
  }

  private async planTable(name: string, createSql: string, provisional: boolean): Promise<TablePlan> {
    const info = this.db.prepare(`PRAGMA main.table_xinfo(${quoteIdent(name)})`).all() as Array<TableInfoRow & { hidden: number }>;
    const cols = info.filter((c) => c.hidden === 0 || c.hidden === 2 || c.hidden === 3);
    const withoutRowid = this.isWithoutRowid(name);
    const pkCols = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    const orderBy = withoutRowid ? pkCols.map((c) => quoteIdent(c.name)).join(', ') : 'rowid';
    const mapped = cols.map((c) => ({ name: c.name, mapped: mapDeclaredType(c.type ?? '') }));
    const beside = provisional && orderBy === 'rowid' ? this.scanBesideRows(name, mapped) : undefined;
    const settled: ProvisionalTypes | undefined =
      beside !== undefined
        ? { decisions: assumedColumnTypes(mapped), rows: beside, longestValueBytes: NaN }
        : provisional && orderBy === 'rowid'
          ? provisionalColumnTypes(this.db, name, mapped, orderBy)
          : undefined;
    const { decisions, rows } = settled ?? (await decideColumnTypes(this.db, name, mapped, orderBy, this.scanner));
    const columns: SiardColumn[] = cols.map((c, i) => {
      const col: SiardColumn = {
        name: c.name,
        type: decisions[i]!.type,
        typeOriginal: c.type ?? '',
        nullable: !(c.notnull || (withoutRowid && c.pk > 0)),
      };
      if (c.dflt_value !== null) col.defaultValue = c.dflt_value;
      if (decisions[i]!.note) col.description = decisions[i]!.note;
      if (decisions[i]!.mimeType) col.mimeType = decisions[i]!.mimeType;
      return col;
    });
    const table: SourceTable = {
      name,
      columns,
      foreignKeys: this.foreignKeys(name),
      candidateKeys: this.uniqueKeys(name),
      rows,
      rowsExact: true, // counted by the scan, inside the read transaction
    };
    if (pkCols.length > 0) table.primaryKey = { name: `pk_${name}`, columns: pkCols.map((c) => c.name) };
    const checks = sqliteCheckConstraints(name, createSql);
    if (checks.length > 0) table.checkConstraints = checks;
    const triggers = sqliteTriggers(this.db, name);
    if (triggers.length > 0) table.triggers = triggers;
    if (!settled) return { table, decisions, orderBy, createSql };
    table.provisional = beside === undefined ? { longestValueBytes: settled.longestValueBytes } : {};
    const plan: TablePlan = { table, decisions, orderBy, createSql, checks: mapped.map((m) => fitCheck(m.mapped.kind)) };
    if (beside !== undefined) plan.scanBeside = mapped;
    return plan;
  }

  /**
   * The row count of a provisional table whose cheap scan can run beside the read of its rows (a
   * large rowid table, keyset-readable, outside WAL mode so that the worker's connection sees the
   * same rows); else undefined, and the cheap scan runs first.
   */
  private scanBesideRows(name: string, mapped: ProvisionalColumns): number | undefined {
    if (this.options.rowByRow || !checkableColumns(mapped) || mapped.some((c) => ROWID_NAMES.has(c.name.toLowerCase()))) return undefined;
    if (String(this.db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal') return undefined;
    const rows = Number(
      this.db
        .prepare(`SELECT count(*) FROM ${quoteIdent(name)}`)
        .pluck()
        .get(),
    );
    return rows >= (this.options.scanBesideMinRows ?? SCAN_BESIDE_MIN_ROWS) ? rows : undefined;
  }

  /**
   * Takes the cheap scan's row for a table read beside it: the lengths that size keyset batches,
   * the longest value for the writer (SourceTable.provisional), a longer VARCHAR widened in place
   * (the cells are the same; the writer takes the column types after the rows). Throws
   * ProvisionalTypesFailed when a number column holds text or blobs.
   */
  private takeScan(plan: TablePlan, row: Record<string, unknown>, nextRow: number): void {
    const name = plan.table.name;
    const types = typesFromCheapScan(this.db, name, plan.scanBeside!, plan.orderBy, row);
    if ('needsFullScan' in types) throw new ProvisionalTypesFailed(name, types.needsFullScan, nextRow);
    let widened = false;
    types.decisions.forEach((d, i) => {
      if (d.type === plan.decisions[i]!.type) {
        plan.decisions[i]!.maxLength = d.maxLength;
        return;
      }
      plan.decisions[i] = d;
      const col = plan.table.columns[i]!;
      col.type = d.type;
      if (d.note) col.description = d.note;
      widened = true;
    });
    plan.table.provisional = { longestValueBytes: types.longestValueBytes };
    if (widened) this.listWidened(plan);
  }

  /**
   * Takes the cheap scan's row of the first part of a table read beside its scan: the lengths that
   * size its keyset batches, and the longest value so far for the writer. Throws
   * ProvisionalTypesFailed when a number column holds text or blobs.
   */
  private takeLengths(plan: TablePlan, row: AggregateRow, nextRow: number): void {
    const lengths = lengthsFromCheapScan(plan.scanBeside!, row);
    if ('needsFullScan' in lengths) throw new ProvisionalTypesFailed(plan.table.name, lengths.needsFullScan, nextRow);
    lengths.maxLengths.forEach((n, i) => (plan.decisions[i]!.maxLength = n));
    plan.table.provisional = { longestValueBytes: lengths.longestValueBytes };
  }

  /** Lists the widened columns of `plan` in the catalogue (in catalogue order, as if the full scan had run first). */
  private listWidened(plan: TablePlan): void {
    const tables = this.catalogCache!.schemas[0]!.tables;
    const widened = (this.catalogCache!.widened ??= []);
    for (let i = widened.length - 1; i >= 0; i--) if (widened[i]!.table === plan.table.name) widened.splice(i, 1);
    widened.push(...widenedOf(plan));
    const order = new Map(tables.map((t, i) => [t.name, i]));
    widened.sort((a, b) => order.get(a.table)! - order.get(b.table)!);
  }

  /**
   * The table's final types from the full scan (after ProvisionalTypesFailed), its widened columns
   * added to the catalogue; `known`: the types settledTypes gave an interrupted run, taken without
   * the scan (a resumed export going on inside the table, docs/resume.md).
   */
  async settleTable(schema: string, name: string, known?: unknown): Promise<SourceTable> {
    const old = this.plans.get(name);
    if (schema !== 'main' || !old || !this.catalogCache) throw new Error(`Table "${name}" is not in the exported catalogue.`);
    if (!old.checks) return old.table;
    const plan = known ? settledPlan(old, known as SettledTypes) : await this.planTable(name, old.createSql, false);
    this.plans.set(name, plan);
    const tables = this.catalogCache.schemas[0]!.tables;
    tables[tables.indexOf(old.table)] = plan.table;
    this.listWidened(plan); // (a longer VARCHAR the cheap scan saw is listed already, and replaced)
    return plan.table;
  }

  /** A settled table's types, as settleTable takes them back (JSON). */
  settledTypes(schema: string, name: string): unknown {
    const plan = this.plans.get(name);
    if (schema !== 'main' || !plan || plan.checks) return undefined;
    const types: SettledTypes = { decisions: plan.decisions, columns: plan.table.columns, rows: plan.table.rows };
    return types;
  }

  private isWithoutRowid(name: string): boolean {
    try {
      this.db.prepare(`SELECT rowid FROM ${quoteIdent(name)} LIMIT 0`).all();
      return false;
    } catch {
      return true;
    }
  }

  private foreignKeys(name: string): SiardForeignKey[] {
    const rows = this.db.prepare(`PRAGMA main.foreign_key_list(${quoteIdent(name)})`).all() as Array<{
      id: number;
      seq: number;
      table: string;
      from: string;
      to: string | null;
      on_update: string;
      on_delete: string;
      match: string;
    }>;
    const byId = new Map<number, typeof rows>();
    for (const r of rows) byId.set(r.id, [...(byId.get(r.id) ?? []), r]);
    const keys: SiardForeignKey[] = [];
    for (const [id, refs] of [...byId.entries()].sort((a, b) => a[0] - b[0])) {
      refs.sort((a, b) => a.seq - b.seq);
      const first = refs[0]!;
      // A reference without column names means the referenced table's primary key.
      let targets = refs.map((r) => r.to);
      if (targets.some((t) => t === null)) {
        const pk = (this.db.prepare(`PRAGMA main.table_info(${quoteIdent(first.table)})`).all() as TableInfoRow[])
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name);
        targets = refs.map((r, i) => r.to ?? pk[i] ?? r.from);
      }
      const key: SiardForeignKey = {
        name: `fk_${name}_${id}`,
        referencedSchema: 'main',
        referencedTable: first.table,
        references: refs.map((r, i) => ({ column: r.from, referenced: targets[i]! })),
      };
      const del = referentialAction(first.on_delete);
      const upd = referentialAction(first.on_update);
      if (del) key.deleteAction = del;
      if (upd) key.updateAction = upd;
      keys.push(key);
    }
    return keys;
  }

  private uniqueKeys(name: string): SiardUniqueKey[] {
    const indexes = this.db.prepare(`PRAGMA main.index_list(${quoteIdent(name)})`).all() as Array<{
      seq: number;
      name: string;
      unique: number;
      origin: string;
      partial: number;
    }>;
    const keys: SiardUniqueKey[] = [];
    for (const ix of indexes.sort((a, b) => a.name.localeCompare(b.name))) {
      if (!ix.unique || ix.origin === 'pk' || ix.partial) continue;
      const cols = (
        this.db.prepare(`PRAGMA main.index_info(${quoteIdent(ix.name)})`).all() as Array<{ seqno: number; name: string | null }>
      )
        .sort((a, b) => a.seqno - b.seqno)
        .map((c) => c.name);
      if (cols.length === 0 || cols.some((c) => c === null)) continue; // expression index: not a column key
      keys.push({ name: ix.name, columns: cols as string[] });
    }
    return keys;
  }

  private describeView(name: string, sql: string | undefined): SiardView {
    let columns: SiardColumn[] = [];
    try {
      const info = this.db.prepare(`PRAGMA main.table_info(${quoteIdent(name)})`).all() as TableInfoRow[];
      columns = info.map((c) => {
        const mapped = mapDeclaredType(c.type ?? '');
        return { name: c.name, type: mapped.type, typeOriginal: c.type ?? '', nullable: true };
      });
    } catch {
      // A view over a missing table cannot be described; it is kept with its query only.
    }
    const view: SiardView = { name, columns };
    if (sql) view.queryOriginal = sql;
    return view;
  }

  async *rows(schema: string, table: string): AsyncIterable<SourceValue[]> {
    for await (const batch of this.rowBatches(schema, table)) yield* batch;
  }

  rowBatches(schema: string, table: string, after?: RowsAfter, how?: BatchOptions): AsyncIterable<KeyedBatch> {
    return readAhead(this.readBatches(schema, table, after, how));
  }

  /**
   * Rows in batches of up to BATCH_ROWS rows and about BATCH_BYTES of values (at least one row):
   * one await per batch instead of per row, and the next batch read while the writer formats this one.
   */
  private async *readBatches(schema: string, table: string, after?: RowsAfter, how?: BatchOptions): AsyncIterable<KeyedBatch> {
    if (schema !== 'main') throw new Error(`SQLite has only the schema "main", not "${schema}".`);
    if (!this.catalogCache) await this.catalog();
    const plan = this.plans.get(table);
    if (!plan) throw new Error(`Table "${table}" is not in the exported catalogue.`);
    // better-sqlite3 turns invalid UTF-8 into U+FFFD, which would change a value silently. Text is
    // read as strings (fast); a string holding U+FFFD is checked against its stored bytes through a
    // second connection, and a mismatch stops the export. WITHOUT ROWID tables (no cheap row
    // address) fetch text as bytes and decode strictly instead.
    const strict = plan.orderBy !== 'rowid';
    const literal = plan.decisions.map((d) => d.kind === 'literal');
    const { names, classAt } = selectList(plan, strict, literal);
    const n = plan.decisions.length;
    const aliasAt = this.rowidColumn(table, plan, literal); // -1: the rowid is selected after the values
    const rowidAt = aliasAt >= 0 ? aliasAt : strict ? names.length : names.push('rowid') - 1;
    const encoding = String(this.db.pragma('encoding', { simple: true }));
    const decoder = strictDecoder(encoding);
    const converters = plan.decisions.map((d, i) => converterFor(d, table, plan.table.columns[i]!.name, decoder));
    const textColumn = plan.decisions.map((d) => TEXT_KINDS.has(d.kind));
    const checks = plan.checks;
    // a rowid table is read in rowid order on every path: each batch gives its rows' rowids, to go on after one
    const keyed = plan.orderBy === 'rowid' && !plan.table.columns.some((c) => ROWID_NAMES.has(c.name.toLowerCase()));
    const count = { rows: after?.rows ?? 0 };
    /** Column i's value `v` (not a literal column's) of row `row` checked and converted. */
    const valueOf = (v: unknown, i: number, rowid: unknown, row: number): SourceValue => {
      if (checks && !checks[i]!(v)) throw new ProvisionalTypesFailed(table, plan.table.columns[i]!.name, row);
      if (typeof v === 'string' && !strict && textColumn[i] && v.includes('\uFFFD'))
        this.checkStoredText(table, plan.table.columns[i]!.name, rowid as bigint, v, encoding, row);
      return converters[i]!(v, row);
    };
    /** Converts `raw` in place (one array per row, trimmed of the extra columns after the values); returns its bytes. */
    const convert = (raw: unknown[]): number => {
      const rowNumber = ++count.rows;
      let bytes = ROW_OVERHEAD_BYTES;
      const out = raw as SourceValue[];
      for (let i = 0; i < n; i++) {
        const v = raw[i];
        if (literal[i]) {
          out[i] = literalCell(v, raw[classAt.get(i)!] as string, table, plan.table.columns[i]!.name, rowNumber, decoder);
          continue;
        }
        if (typeof v === 'string') bytes += v.length;
        else if (v instanceof Uint8Array) bytes += v.length;
        out[i] = valueOf(v, i, raw[rowidAt], rowNumber);
      }
      if (out.length > n) out.length = n;
      return bytes;
    };
    const pk = this.primaryKeyRead(plan, names);
    const columns = names.length > 0 ? names.join(', ') : 'NULL';
    const select = `SELECT ${columns} FROM ${quoteIdent(table)}`;
    if (pk) return yield* primaryKeyBatches({ ...pk, select, decoder, convert }, after?.key);
    const read: RowidRead = { select, rowidAt, convert, keys: keyed ? rowidAt : -1, count };
    if (how?.texts && keyed && !this.options.rowByRow) this.startReader(read, plan, literal, valueOf);
    try {
      if (after) return yield* this.batchesAfter(plan, BigInt(after.key), read, count.rows + 1);
      const from = plan.scanBeside ? yield* this.besideScan(plan, read) : MIN_ROWID;
      if (from === undefined) return;
      const limit = this.options.rowByRow ? 0 : keysetBatchRows(plan);
      if (limit === 0) {
        yield* rowsOneByOne(this.db, select, plan.orderBy, convert, rowidAt, undefined, undefined, read.keys);
        return;
      }
      yield* this.keyset(read, limit, from);
    } finally {
      read.reader?.close();
    }
  }

  /**
   * The first rows of a table whose cheap scan runs beside its read: the scan of the first rowids
   * here, of the rest in a worker beside the read; keyset batches through the first part, then
   * rows one at a time until the worker answers. The rowid to go on from, undefined at the end.
   */
  private async *besideScan(plan: TablePlan, read: RowidRead): AsyncGenerator<KeyedBatch, bigint | undefined> {
    const list = `SELECT ${cheapScanList(plan.scanBeside!)} FROM ${quoteIdent(plan.table.name)} WHERE rowid`;
    const split = this.firstPartEnd(plan.table.name);
    const scan = new ScanBeside(queryInWorker(this.file, `${list} >= ${split}`));
    try {
      const head = this.db.prepare(`${list} < ?`).get(split) as AggregateRow;
      this.takeLengths(plan, head, read.count.rows + 1);
      yield* this.keyset(read, Math.max(1, keysetBatchRows(plan)), MIN_ROWID, split);
      const next = scan.done ? split : yield* this.oneByOne(read, split, () => scan.done);
      const rest = await scan.row(() => this.db.prepare(`${list} >= ?`).get(split) as AggregateRow);
      this.takeScan(plan, merge(head, rest), read.count.rows + 1);
      return next;
    } finally {
      scan.stop();
    }
  }

  /**
   * Reads `read`'s rows in a worker thread (rows-reader.ts) as texts, when the table is one for it
   * (readerEncodings); the cells that come as values checked and converted by `valueOf`.
   */
  private startReader(
    read: RowidRead,
    plan: TablePlan,
    literal: boolean[],
    valueOf: (v: unknown, column: number, rowid: bigint, row: number) => SourceValue,
  ): void {
    const encodings = this.readerEncodings(plan, literal);
    if (!encodings) return;
    const setup = { file: this.file, select: read.select, rowidAt: read.rowidAt, encodings };
    read.reader = new RowsReader(
      { ...setup, batchRows: BATCH_ROWS, batchBytes: BATCH_BYTES, rowOverhead: ROW_OVERHEAD_BYTES },
      READER_AHEAD,
    );
    const kinds = encodings.map(textKindOf);
    read.texts = (got) => {
      const batch = textsBatch(got, encodings, kinds, read.count.rows + 1, valueOf);
      read.count.rows += got.count;
      return batch;
    };
  }

  /**
   * The encoding of each column's cells when a rowid table's rows are read in a worker thread
   * (rows-reader.ts), or undefined when they are read here: a small table (a thread costs more
   * than it saves), WAL mode (the thread's connection could see other rows), or a column whose
   * cells are not encoded (literal, untyped, boolean, BLOB).
   */
  private readerEncodings(plan: TablePlan, literal: boolean[]): CellEncoding[] | undefined {
    if (plan.table.rows < (this.options.readerMinRows ?? READER_MIN_ROWS) || literal.some((l) => l)) return undefined;
    const encodings = plan.decisions.map((d) => encodingOf(d.kind));
    if (encodings.some((e) => e === undefined)) return undefined;
    if (String(this.db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal') return undefined;
    return encodings as CellEncoding[];
  }

  /** Keyset batches (keysetBatches) from rowid `from` on, below `until`: read here or by the reader thread. */
  private async *keyset(read: RowidRead, limit: number, from: bigint, until?: bigint): AsyncGenerator<KeyedBatch> {
    if (!read.reader) {
      for (const batch of keysetBatches(this.db, read.select, limit, read.rowidAt, from, until))
        yield convertBatch(batch, read.convert, read.keys);
      return;
    }
    for await (const got of read.reader.stream(from, limit, until)) yield read.texts!(got);
  }

  /**
   * Rows one at a time from rowid `from` on (rowsOneByOne), until `stop()` says so between two
   * batches: the rowid to go on from, or undefined when every row was read.
   */
  private async *oneByOne(read: RowidRead, from: bigint, stop: () => boolean): AsyncGenerator<KeyedBatch, bigint | undefined> {
    if (!read.reader) return yield* rowsOneByOne(this.db, read.select, 'rowid', read.convert, read.rowidAt, from, stop, read.keys);
    for await (const got of read.reader.stream(from, 0)) {
      yield read.texts!(got);
      const last = got.rowids[got.count - 1]!;
      if (stop()) return last === MAX_ROWID ? undefined : last + 1n;
    }
    return undefined;
  }

  /**
   * A WITHOUT ROWID table is read in its primary key's order, with its keys (primary-key-order.ts):
   * their select items added to `names`. Undefined for a rowid table.
   */
  private primaryKeyRead(plan: TablePlan, names: string[]): Omit<PrimaryKeyRead, 'select' | 'decoder' | 'convert'> | undefined {
    const key = plan.orderBy === 'rowid' ? undefined : plan.table.primaryKey?.columns;
    if (!key) return undefined;
    const keyAt = names.push(...keySelect(key)) - 2 * key.length;
    return { db: this.db, table: plan.table.name, key, keyAt, batchRows: BATCH_ROWS, batchBytes: BATCH_BYTES };
  }

  /**
   * The rows after rowid `key` of a rowid table, for an export that resumes inside it (docs/resume.md).
   * A table whose cheap scan runs beside its read has it run whole here first (the same scan, the
   * same types and the same failure, if any, as the interrupted run's).
   */
  private async *batchesAfter(plan: TablePlan, key: bigint, read: RowidRead, nextRow: number): AsyncGenerator<KeyedBatch> {
    if (read.keys < 0) throw new Error(`Table "${plan.table.name}" has no rowid to go on from.`);
    if (key === MAX_ROWID) return;
    if (plan.scanBeside) {
      const list = `SELECT ${cheapScanList(plan.scanBeside)} FROM ${quoteIdent(plan.table.name)} WHERE rowid >= ?`;
      this.takeScan(plan, this.db.prepare(list).get(MIN_ROWID) as AggregateRow, nextRow);
    }
    const limit = this.options.rowByRow ? 0 : keysetBatchRows(plan);
    if (limit === 0) {
      yield* rowsOneByOne(this.db, read.select, 'rowid', read.convert, read.keys, key + 1n, undefined, read.keys);
      return;
    }
    yield* this.keyset(read, limit, key + 1n);
  }

  /**
   * The rowid where the worker's part of a table read beside its cheap scan starts: an eighth of the
   * rowid span is scanned here first (a tenth of a second per 5,000,000 rows), enough rows for the
   * worker to scan the rest while they are written.
   */
  private firstPartEnd(table: string): bigint {
    // two subqueries: each is one step down the b-tree, where min() and max() together would scan the table
    const t = quoteIdent(table);
    const span = this.db
      .prepare(`SELECT (SELECT min(rowid) FROM ${t}) AS lo, (SELECT max(rowid) FROM ${t}) AS hi`)
      .safeIntegers(true)
      .get() as {
      lo: bigint | null;
      hi: bigint | null;
    };
    if (span.lo === null || span.hi === null) return MIN_ROWID;
    const end = span.lo + (span.hi - span.lo) / 8n + 1n;
    return end > MAX_ROWID ? MAX_ROWID : end;
  }

  /** The column that is the rowid (an INTEGER PRIMARY KEY read as is, rowid-alias.ts), or -1. */
  private rowidColumn(table: string, plan: TablePlan, literal: boolean[]): number {
    if (plan.orderBy !== 'rowid') return -1;
    const columns = plan.table.columns.map((c) => c.name);
    const at = rowidAliasIndex(this.db, table, columns, plan.table.primaryKey?.columns ?? []);
    return at >= 0 && !literal[at] ? at : -1;
  }

  private verifier: BetterSqlite3.Database | undefined;

  /** Throws when `text` (as decoded by better-sqlite3) is not exactly the stored bytes of the cell. */
  private checkStoredText(table: string, column: string, rowid: bigint, text: string, encoding: string, rowNumber: number): void {
    if (!this.verifier) {
      this.verifier = new Database(this.file, { readonly: true, fileMustExist: true });
      this.verifier.exec('BEGIN');
    }
    const stored = this.verifier
      .prepare(`SELECT CAST(${quoteIdent(column)} AS BLOB) FROM ${quoteIdent(table)} WHERE rowid = ?`)
      .pluck()
      .get(rowid) as Buffer;
    const enc = encoding.toUpperCase();
    const bytes =
      enc === 'UTF-16LE'
        ? Buffer.from(text, 'utf16le')
        : enc === 'UTF-16BE'
          ? Buffer.from(text, 'utf16le').swap16()
          : Buffer.from(text, 'utf8');
    if (!stored || !bytes.equals(stored)) {
      throw new SiardOcflError(
        `Table "${table}", row ${rowNumber}, column "${column}": the text is not valid ${enc}, so it cannot be written to XML ` +
          `unchanged; export stopped.`,
        { code: 'VALUE_DOES_NOT_FIT' },
      );
    }
  }

  async close(): Promise<void> {
    if (this.verifier?.open) this.verifier.close();
    if (this.db.open) {
      if (this.db.inTransaction) this.db.exec('COMMIT');
      this.db.close();
    }
  }
}

/**
 * The values to select, and where the storage class of each literal column is: literal columns mix
 * text with blobs, so their text is read as bytes (decoded strictly) and told apart by an extra
 * typeof() column after the values; `strict` reads all text as bytes.
 */
function selectList(plan: TablePlan, strict: boolean, literal: boolean[]): { names: string[]; classAt: Map<number, number> } {
  const names = plan.table.columns.map((c, i) => {
    const q = quoteIdent(c.name);
    return literal[i] || (strict && TEXT_KINDS.has(plan.decisions[i]!.kind))
      ? `CASE WHEN typeof(${q}) = 'text' THEN CAST(${q} AS BLOB) ELSE ${q} END`
      : q;
  });
  const classAt = new Map<number, number>();
  plan.table.columns.forEach((c, i) => {
    if (!literal[i]) return;
    classAt.set(i, names.length);
    names.push(`typeof(${quoteIdent(c.name)})`);
  });
  return { names, classAt };
}

/** The columns of a planned table exported wider than declared, for the catalogue's `widened`. */
function widenedOf(plan: TablePlan): WidenedColumn[] {
  const out: WidenedColumn[] = [];
  plan.decisions.forEach((d, i) => {
    if (!d.widened) return;
    const col = plan.table.columns[i]!;
    const w: WidenedColumn = {
      schema: 'main',
      table: plan.table.name,
      column: col.name,
      declared: col.typeOriginal ?? '',
      exportedAs: d.type,
      firstRow: d.widened.firstRow,
      reason: d.widened.reason,
    };
    if (d.kind === 'literal') w.form = 'SQLite literals';
    out.push(w);
  });
  return out;
}

function referentialAction(action: string): SiardReferentialAction | undefined {
  const a = action.toUpperCase();
  return a === 'CASCADE' || a === 'SET NULL' || a === 'SET DEFAULT' || a === 'RESTRICT' || a === 'NO ACTION' ? a : undefined;
}

type Converter = (value: unknown, row: number) => SourceValue;

/** A cell of a literal column (its text read as bytes) as its SQLite literal. */
function literalCell(v: unknown, storageClass: string, table: string, column: string, row: number, decoder: TextDecoder): SourceValue {
  if (v === null) return null;
  if (storageClass === 'text') {
    try {
      return sqliteLiteral(decoder.decode(v as Uint8Array));
    } catch {
      throw new SiardOcflError(
        `Table "${table}", row ${row}, column "${column}": the text is not valid ${decoder.encoding.toUpperCase()}, so it ` +
          `cannot be written to XML unchanged; export stopped.`,
        { code: 'VALUE_DOES_NOT_FIT' },
      );
    }
  }
  return sqliteLiteral(v as bigint | number | Uint8Array);
}

/** Batch bounds: many narrow rows per await, but few MB held at once (twice that with read-ahead). */
const BATCH_ROWS = 1000;
const BATCH_BYTES = 2 * 1024 * 1024;
const ROW_OVERHEAD_BYTES = 64;

const MIN_ROWID = -(2n ** 63n);
const MAX_ROWID = 2n ** 63n - 1n;
/** Names that would make `rowid` mean a column instead of the row id. */
const ROWID_NAMES = new Set(['rowid', '_rowid_', 'oid']);

/**
 * Raw rows of `select` (a rowid table, the rowid at `rowidAt`) in rowid order, `limit` per batch:
 * one all() call each, the next batch from the last rowid on, a fraction of iterate()'s cost per row.
 */
function* keysetBatches(
  db: BetterSqlite3.Database,
  select: string,
  limit: number,
  rowidAt: number,
  from: bigint,
  until?: bigint,
): Generator<unknown[][]> {
  const below = until === undefined ? '' : ` AND rowid < ${until}`;
  const stmt = db.prepare(`${select} WHERE rowid >= ?${below} ORDER BY rowid LIMIT ${limit}`).raw(true).safeIntegers(true);
  for (;;) {
    const batch = stmt.all(from) as unknown[][];
    if (batch.length === 0) return;
    const last = batch[batch.length - 1]![rowidAt] as bigint; // read before the consumer trims the rows
    yield batch;
    if (batch.length < limit || last === MAX_ROWID) return;
    from = last + 1n;
  }
}

/** Raw rows converted in place, with their rowids (read before convert trims them) when `keysAt` >= 0. */
function convertBatch(batch: unknown[][], convert: (raw: unknown[]) => number, keysAt: number): KeyedBatch {
  const out = batch as KeyedBatch;
  if (keysAt >= 0) out.rowKeys = batch.map((raw) => raw[keysAt]);
  for (const raw of batch) convert(raw);
  return out;
}

/**
 * Rows of `select` in `orderBy` order (from rowid `from` on, when given, for a rowid table) read
 * one at a time with iterate() and handed over in batches of up to BATCH_ROWS rows and about
 * BATCH_BYTES (at least one row): memory bounded whatever the values' size. Stops between batches
 * once `stop()` says so, returning the rowid to go on from; undefined when every row was read.
 */
function* rowsOneByOne(
  db: BetterSqlite3.Database,
  select: string,
  orderBy: string,
  convert: (raw: unknown[]) => number,
  rowidAt: number,
  from?: bigint,
  stop?: () => boolean,
  keysAt = -1,
): Generator<KeyedBatch, bigint | undefined> {
  const stmt = db
    .prepare(from === undefined ? `${select} ORDER BY ${orderBy}` : `${select} WHERE rowid >= ? ORDER BY rowid`)
    .raw(true)
    .safeIntegers(true);
  const rows = (from === undefined ? stmt.iterate() : stmt.iterate(from)) as IterableIterator<unknown[]>;
  let batch: KeyedBatch = [];
  if (keysAt >= 0) batch.rowKeys = [];
  let batchBytes = 0;
  let last: bigint | undefined;
  for (const raw of rows) {
    last = raw[rowidAt] as bigint; // read before convert trims the row
    batch.rowKeys?.push(last);
    batchBytes += convert(raw);
    batch.push(raw as SourceValue[]);
    if (batch.length >= BATCH_ROWS || batchBytes >= BATCH_BYTES) {
      yield batch;
      batch = [];
      if (keysAt >= 0) batch.rowKeys = [];
      batchBytes = 0;
      if (stop?.()) {
        rows.return?.();
        return last === MAX_ROWID ? undefined : last! + 1n;
      }
    }
  }
  if (batch.length > 0) yield batch;
  return undefined;
}

/**
 * Rows per keyset batch (`WHERE rowid >= ? LIMIT n`) for a rowid table: as many as keep a batch
 * under BATCH_BYTES when every value is as long as its column's longest (a UTF-16 string holds at
 * most two code units per character), at least one, at most BATCH_ROWS. 0 when the table is read
 * row by row: WITHOUT ROWID (no rowid to go on from) or with a column named like the rowid.
 */
function keysetBatchRows(plan: TablePlan): number {
  if (plan.orderBy !== 'rowid' || plan.table.columns.some((c) => ROWID_NAMES.has(c.name.toLowerCase()))) return 0;
  if (plan.decisions.some((d) => d.maxLength === undefined)) return 0;
  const rowBytes = plan.decisions.reduce((sum, d) => sum + 2 * d.maxLength!, ROW_OVERHEAD_BYTES);
  return Math.max(1, Math.min(BATCH_ROWS, Math.floor(BATCH_BYTES / rowBytes)));
}

const TEXT_KINDS = new Set(['varchar', 'clob', 'date', 'timestamp']);
/** Strict decoder for the database's text encoding (PRAGMA encoding). */
function strictDecoder(encoding: string): TextDecoder {
  const label = encoding.toUpperCase() === 'UTF-16LE' ? 'utf-16le' : encoding.toUpperCase() === 'UTF-16BE' ? 'utf-16be' : 'utf-8';
  return new TextDecoder(label, { fatal: true, ignoreBOM: true });
}

/** Checks each value against the decided type (the scan already did; this guards against surprises). */
function converterFor(decision: ColumnDecision, table: string, column: string, decoder: TextDecoder): Converter {
  const fail = (value: unknown, row: number): never => {
    const what =
      value instanceof Uint8Array ? 'a blob' : typeof value === 'bigint' ? 'an integer' : typeof value === 'number' ? 'a real' : 'text';
    throw new SiardOcflError(
      `Table "${table}", row ${row}, column "${column}": ${what} does not fit the column type ${decision.type}; export stopped ` +
        `so no value is changed.`,
      { code: 'VALUE_DOES_NOT_FIT' },
    );
  };
  const text = (bytes: Uint8Array, row: number): string => {
    try {
      return decoder.decode(bytes);
    } catch {
      throw new SiardOcflError(
        `Table "${table}", row ${row}, column "${column}": the text is not valid ${decoder.encoding.toUpperCase()}, so it ` +
          `cannot be written to XML unchanged; export stopped.`,
        { code: 'VALUE_DOES_NOT_FIT' },
      );
    }
  };
  switch (decision.kind) {
    case 'integer':
      return (v, r) => (v === null || typeof v === 'bigint' ? (v as SourceValue) : fail(v, r));
    case 'double':
    case 'decimal':
      return (v, r) => (v === null || typeof v === 'bigint' || typeof v === 'number' ? (v as SourceValue) : fail(v, r));
    case 'boolean':
      return (v, r) => (v === null ? null : v === 0n ? false : v === 1n ? true : fail(v, r));
    case 'varchar':
    case 'date':
    case 'timestamp':
      return (v, r) => (v === null || typeof v === 'string' ? (v as SourceValue) : v instanceof Uint8Array ? text(v, r) : fail(v, r));
    case 'clob':
      // Widened columns carry numbers as text: integers exactly, reals in a form that stays a real.
      return (v, r) =>
        v === null || typeof v === 'string'
          ? (v as SourceValue)
          : v instanceof Uint8Array
            ? text(v, r)
            : typeof v === 'bigint'
              ? v.toString()
              : typeof v === 'number'
                ? formatReal(v)
                : fail(v, r);
    case 'blob':
    case 'untyped':
    case 'literal':
      return (v, r) => (v === null || v instanceof Uint8Array ? (v as SourceValue) : fail(v, r));
  }
}
