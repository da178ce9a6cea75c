/**
 * What the SIARD writer needs from a database: its catalogue in the SIARD model and its rows as
 * an async stream. SQLite implements it now, PostgreSQL later. Values stream: a row holds plain
 * values for small cells, and a LOB too large to hold in memory comes as a SourceLob that the
 * writer reads once, in chunks, straight into its file.
 */
import type { Readable } from 'node:stream';
import type { SiardColumn, SiardForeignKey, SiardUniqueKey, SiardView } from '../siard/model.js';

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
 * One cell as a source delivers it:
 * null (SQL NULL), string (text), number (double), bigint (exact integer), boolean,
 * Uint8Array (bytes), or a SourceLob for values streamed from the database.
 */
export type SourceValue = null | string | number | bigint | boolean | Uint8Array | SourceLob;

export interface SourceTable {
  name: string;
  description?: string;
  /** SIARD columns: type (SQL:2008), typeOriginal (native), nullable ... (no lobFolder: the writer sets it) */
  columns: SiardColumn[];
  primaryKey?: SiardUniqueKey;
  foreignKeys: SiardForeignKey[];
  candidateKeys: SiardUniqueKey[];
  /** row count when the catalogue was read (for progress; the writer counts the rows it writes) */
  rows: number;
}

export interface SourceSchema {
  name: string;
  description?: string;
  tables: SourceTable[];
  views: SiardView[];
}

export interface SourceCatalog {
  /** e.g. "SQLite 3.50.2" */
  databaseProduct?: string;
  /** how the database was reached, without secrets, e.g. "sqlite:/data/northwind.db" */
  connection?: string;
  databaseUser?: string;
  schemas: SourceSchema[];
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
  close(): Promise<void>;
}

export function isSourceLob(value: SourceValue): value is SourceLob {
  return typeof value === 'object' && value !== null && !(value instanceof Uint8Array) && (value as SourceLob).kind === 'lob';
}
