/**
 * What the SIARD writer needs from a database: its catalogue in the SIARD model and its rows as
 * an async stream. The sources (src/sources: SQLite, PostgreSQL, MariaDB, a received .siard)
 * implement it; it lives here, with its consumer, so siard/ never imports a source. Values stream: a row holds plain
 * values for small cells, and a LOB too large to hold in memory comes as a SourceLob that the
 * writer reads once, in chunks, straight into its file.
 */
import type { Readable } from 'node:stream';
import { SiardOcflError } from '../errors.js';
import type {
  SiardCheckConstraint,
  SiardColumn,
  SiardForeignKey,
  SiardPrivilege,
  SiardRole,
  SiardRoutine,
  SiardTrigger,
  SiardType,
  SiardUniqueKey,
  SiardUser,
  SiardView,
} from './model.js';

/** A large value read as a stream: bytes (BLOB) or UTF-8 text (CLOB). */
export interface SourceLob {
  readonly kind: 'lob';
  /** size in bytes (of the UTF-8 encoding for text) */
  readonly byteLength: number;
  /** 'binary' for a BLOB; 'text' when the bytes are UTF-8 text (a CLOB) */
  readonly encoding: 'binary' | 'text';
  /** Opens the value; called at most once. */
  open(): Readable | AsyncIterable<Uint8Array>;
}

/**
 * A value already in the SIARD lexical form of its column's type (unescaped), as a SIARD package
 * holds it: written as it is, so re-writing a received archive changes no value (a timestamp
 * without 'Z', a double as "1.5E10", a boolean as "1" stay so).
 */
export interface SourceSiardText {
  readonly kind: 'siard-text';
  readonly text: string;
}

/** One element of an ARRAY cell: a scalar held in memory (null = NULL element), or a UDT value. */
export type SourceArrayElement = null | string | number | bigint | boolean | Uint8Array | SourceSiardText | SourceUdtValue;

/**
 * A value of a structured user-defined type (column or attribute of a type with `<attributes>`):
 * element i is attribute i + 1, written as u(i+1); null (or a missing element) = NULL attribute.
 * An attribute may itself be a UDT, an ARRAY, or a LOB (streamed, and written to a file when large).
 */
export interface SourceUdtValue {
  readonly kind: 'udt';
  readonly elements: readonly SourceValue[];
}

/**
 * An ARRAY cell (column with `cardinality`): elements a1, a2, ... in order. A NULL element is
 * written as a missing aI, so an array may not end with NULL (a reader would see a shorter one):
 * sources refuse such a value. No element is a LOB stream: an array is read whole.
 */
export interface SourceArrayValue {
  readonly kind: 'array';
  readonly elements: readonly SourceArrayElement[];
}

/**
 * One cell as a source delivers it:
 * null (SQL NULL), string (text), number (double), bigint (exact integer), boolean,
 * Uint8Array (bytes), a SourceLob for values streamed from the database, a SourceArrayValue, or a
 * SourceUdtValue (columns of a structured type).
 */
export type SourceValue =
  null | string | number | bigint | boolean | Uint8Array | SourceLob | SourceArrayValue | SourceSiardText | SourceUdtValue;

export interface SourceTable {
  name: string;
  description?: string;
  /** SIARD columns: type (SQL:2008), typeOriginal (native), nullable ... (no lobFolder: the writer sets it) */
  columns: SiardColumn[];
  primaryKey?: SiardUniqueKey;
  foreignKeys: SiardForeignKey[];
  candidateKeys: SiardUniqueKey[];
  /** check constraints, condition in the source's SQL dialect */
  checkConstraints?: SiardCheckConstraint[];
  /** triggers, action in the source's SQL dialect */
  triggers?: SiardTrigger[];
  /** row count when the catalogue was read (for progress; the writer counts the rows it writes) */
  rows: number;
  /** `rows` is an exact count, not a planner's estimate: a resumed export compares it (docs/resume.md) */
  rowsExact?: boolean;
  /**
   * Set when the column types were settled without reading every value (a cheap scan found nothing
   * against them): reading the rows checks each value and throws ProvisionalTypesFailed at the first
   * that does not fit. A writer that can take the table's data back writes it, else (or after that
   * error) it asks `settleTable` for the table with its final types. `longestValueBytes` bounds the
   * UTF-8 or binary size of any value, so the writer knows that no value will go to a LOB file. A
   * source may learn it only while the rows are read (a scan beside them): it is set here then, and
   * a column's type may be widened in place without changing its cells (a longer VARCHAR), so the
   * writer takes the column types after the rows.
   */
  provisional?: { longestValueBytes?: number };
}

export interface SourceSchema {
  name: string;
  description?: string;
  /** DISTINCT types its columns use (typeName / baseType on the column) */
  types?: SiardType[];
  tables: SourceTable[];
  views: SiardView[];
  /** routines (a SIARD package's; databases give none yet) */
  routines?: SiardRoutine[];
}

/**
 * A column whose values made its SIARD type wider than its declared type maps to (SQLite's dynamic
 * typing): the export goes on, and says so once per column, naming the first row that did it.
 */
export interface WidenedColumn {
  schema: string;
  table: string;
  column: string;
  /** the declared (native) type, "" for an untyped SQLite column */
  declared: string;
  /** the SIARD type written */
  exportedAs: string;
  /** how the values are written, when not plain (e.g. "SQLite literals") */
  form?: string;
  /** row number in export order (from 1) of the first value that does not fit the declared type */
  firstRow: number;
  /** what the column holds, e.g. "integers and text" */
  reason: string;
}

/** One line about a widened column, e.g. for the export's output. */
export function describeWidened(w: WidenedColumn): string {
  const declared = w.declared === '' ? 'untyped' : `declared ${w.declared}`;
  return (
    `Table "${w.table}", column "${w.column}" (${declared}) ${w.reason}, first at row ${w.firstRow}; exported ` +
    `as ${w.exportedAs}${w.form ? ` of ${w.form}` : ''}.`
  );
}

/** `--strict`: one error (exit 2) listing every widened column with its first row, or nothing. */
export function refuseWidened(widened: readonly WidenedColumn[]): void {
  if (widened.length === 0) return;
  throw new SiardOcflError(
    `Strict export refused ${widened.length} column${widened.length > 1 ? 's' : ''} whose values do not fit the declared type: ` +
      widened.map((w) => describeWidened(w).replace(/\.$/, '')).join('; ') +
      '.',
    { code: 'VALUE_DOES_NOT_FIT', exitCode: 2 },
  );
}

/**
 * Archive-level metadata a source already has (a SIARD package); the writer uses each field unless
 * the caller's export options set it.
 */
export interface SourceArchiveInfo {
  description?: string;
  archiver?: string;
  archiverContact?: string;
  dataOwner?: string;
  dataOriginTimespan?: string;
  /** xs:date as received, e.g. "2019-05-03" or "2019-05-03+02:00" */
  archivalDate?: string;
  clientMachine?: string;
}

export interface SourceCatalog {
  /** e.g. "SQLite 3.50.2" */
  databaseProduct?: string;
  /** how the database was reached, without secrets, e.g. "sqlite:/data/northwind.db" */
  connection?: string;
  databaseUser?: string;
  schemas: SourceSchema[];
  /** columns exported with a wider type than declared (none: absent or empty) */
  widened?: WidenedColumn[];
  /** what the database has that SIARD does not carry (indexes other than keys ...), one phrase each */
  notExported?: string[];
  /** `<users>` (a SIARD package's; databases give none yet) */
  users?: SiardUser[];
  /** `<roles>` and `<privileges>` (a SIARD package's; databases give none yet) */
  roles?: SiardRole[];
  privileges?: SiardPrivilege[];
  archive?: SourceArchiveInfo;
}

/**
 * A batch of rows; where the source reads the table in key order (every run in the same one), each
 * row's key in `rowKeys`, so that a resumed export can ask for the rows after one (docs/resume.md).
 */
export type KeyedBatch = SourceValue[][] & { rowKeys?: unknown[]; texts?: CellTexts };

/**
 * How the text of a column's cells (CellTexts) stands for its value:
 * - 'string': the value is the string the text is, once each back-slash pair is undone (`\b`,
 *   `\f`, `\n`, `\r`, `\t`, `\v` the control character, `\\` a back-slash: COPY's text format);
 * - 'utc': a date, time or timestamp in UTC: the value is the text with its date/time separator
 *   (a space) as 'T' and a 'Z' added;
 * - 'double': the value is the number the text is (a shortest decimal of a double).
 */
export type CellTextKind = 'string' | 'utc' | 'double';

/**
 * A batch's cells of some columns as the source read them, UTF-8 bytes not yet turned into values
 * (issue 39: the writer formats most of them straight from the bytes, no string or number per
 * cell); the batch's row arrays leave those cells undefined. Given only when asked for
 * (rowBatches' `texts`). Its buffers are read only until the batch after the next one is asked
 * for: a source may fill them again then (SQLite's reader thread, rows-reader.ts).
 */
export interface CellTexts {
  /** per column: how its texts stand for values; undefined: the column's values are in the rows */
  readonly kinds: ReadonlyArray<CellTextKind | undefined>;
  /** row r's bytes (rows may share a Buffer) */
  readonly bytes: readonly Buffer[];
  /** row r, column c's text: [start, end) of bytes[r] at bounds[2 * (r * stride + field[c])]; start -1: NULL, -2: only value() has it */
  readonly bounds: Int32Array;
  readonly stride: number;
  readonly field: readonly number[];
  /**
   * The value the text of row r, column c stands for, as the rows would hold it (a value that does
   * not fit throws as the rows' reading would): SQLite's rows hold a 'utc' text as it is.
   */
  value(r: number, c: number): SourceValue;
}

/** What the reader of rowBatches takes: `texts`, cells as CellTexts where the source has them so. */
export interface BatchOptions {
  texts?: boolean;
}

/** Where a table's rows go on: after the row whose key (from KeyedBatch.rowKeys) has this text, `rows` rows before it. */
export interface RowsAfter {
  key: string;
  rows: number;
}

export interface DatabaseSource {
  /** for messages: the file or connection */
  readonly description: string;
  /** Reads the catalogue. Types are final: every value rows() yields fits its column's type. */
  catalog(): Promise<SourceCatalog>;
  /**
   * Rows of one table in a stable order, one array per row in column order. A value that does not
   * fit its column's type makes the stream throw a SiardOcflError naming table, row and column.
   */
  rows(schema: string, table: string): AsyncIterable<SourceValue[]>;
  /**
   * The same rows, several per step (optional): a source that reads many rows at once hands them
   * over together, so the writer formats a batch between two awaits instead of one row. A batch
   * holds at least one row and a few MB at most, unless one row alone is larger. With `after`,
   * only the rows after that key (a source gives it only for tables whose batches have keys).
   */
  rowBatches?(schema: string, table: string, after?: RowsAfter, how?: BatchOptions): AsyncIterable<KeyedBatch>;
  /**
   * Archive-level metadata as it stands after every row was read (a source may add what it met
   * while streaming); the writer calls it once, after the rows, and falls back to catalog().archive.
   */
  archiveInfo?(): SourceArchiveInfo;
  /**
   * A provisional table (SourceTable.provisional) with its final types, read from every value; a
   * column this makes wider is added to the catalogue's `widened`. Required of a source that gives
   * provisional tables.
   */
  settleTable?(schema: string, table: string, known?: unknown): Promise<SourceTable>;
  /**
   * A settled table's types as JSON (optional), for a resumed export to give back to settleTable
   * as `known` instead of scanning the table again (docs/resume.md).
   */
  settledTypes?(schema: string, table: string): unknown;
  /**
   * The first and the last key of a table in its key order, as text (optional; undefined for a
   * table without a key): two index lookups in the source's snapshot, so a resumed export can tell
   * cheaply that a finished table changed since it was written (docs/resume.md).
   */
  keyRange?(schema: string, table: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/**
 * Thrown while the rows of a provisional table are read, at the first value its provisional types
 * do not hold; nothing about the value is lost: the writer drops what it wrote of the table and
 * writes it again with the types from settleTable.
 */
export class ProvisionalTypesFailed extends Error {
  constructor(
    readonly table: string,
    readonly column: string,
    readonly row: number,
  ) {
    super(`Table "${table}", row ${row}, column "${column}": a value does not fit the type settled from the cheap scan.`);
    this.name = 'ProvisionalTypesFailed';
  }
}

export function isSourceLob(value: SourceValue): value is SourceLob {
  return typeof value === 'object' && value !== null && !(value instanceof Uint8Array) && (value as SourceLob).kind === 'lob';
}

export function isSiardText(value: SourceValue | SourceArrayElement): value is SourceSiardText {
  return typeof value === 'object' && value !== null && !(value instanceof Uint8Array) && (value as SourceSiardText).kind === 'siard-text';
}

export function isSourceArray(value: SourceValue): value is SourceArrayValue {
  return typeof value === 'object' && value !== null && !(value instanceof Uint8Array) && (value as SourceArrayValue).kind === 'array';
}

export function isSourceUdt(value: SourceValue | SourceArrayElement): value is SourceUdtValue {
  return typeof value === 'object' && value !== null && !(value instanceof Uint8Array) && (value as SourceUdtValue).kind === 'udt';
}

/** A source's rows in batches: its own when it has them, else one row per batch. */
export function rowBatchesOf(
  source: DatabaseSource,
  schema: string,
  table: string,
  after?: RowsAfter,
  how?: BatchOptions,
): AsyncIterable<KeyedBatch> {
  if (source.rowBatches) return source.rowBatches(schema, table, after, how);
  if (after) throw new Error(`${source.description} cannot read a table from a key on.`);
  const rows = source.rows(schema, table);
  return (async function* () {
    for await (const row of rows) yield [row];
  })();
}
