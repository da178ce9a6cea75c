/**
 * Rows and LOBs of an archive's table for a reader who pages through them (the reading room):
 * a page of rows is read by streaming the table XML from its start and stopping after the page
 * (page 1 of a table of millions of rows costs one page), a row is found the same way, and a LOB
 * cell's bytes are opened through the archive's own lookup (split LOBs joined in order, zipped LOB
 * folders read in place, a relocated archive read where the object keeps it). Cells are described
 * as data; rendering them (and escaping them) is the caller's business.
 */
import { Readable } from 'node:stream';
import { SiardOcflError } from '../errors.js';
import { cellType } from '../siard/model.js';
import { lobCellsOfRow, type SiardTableRef } from '../siard/reader/siard-reader.js';
import { columnTypeFamily } from '../siard/reader/table-rows.js';
import { openLookedUp } from '../siard/reader/lob-open.js';
import { isComplexValue, type SiardLobCell, type SiardReadCellValue, type SiardReadRow } from '../siard/reader/types.js';
import type { OpenedArchive } from './open-archive.js';

/** A cell as the pages show it. */
export type CellView =
  | { kind: 'null' }
  | { kind: 'text'; text: string }
  /** an inline BLOB/BINARY value, `hex` lower-case */
  | { kind: 'binary'; bytes: number; hex: string }
  /** a LOB in a file: `cellPath` names it for openCellBytes; `length` as its cell gives it */
  | { kind: 'lob'; cellPath: string; length?: number; file: string }
  /** an ARRAY or UDT value: its elements by name as JSON (LOBs in it listed by cellPath on the row) */
  | { kind: 'complex'; json: string };

export interface RowView {
  /** 1-based row number in the table XML */
  index: number;
  cells: CellView[];
  /** every LOB cell of the row, nested ones included, by cell path (`c3`, `c5/u2`) */
  lobs: string[];
}

/** The table named `table` in schema `schema`, or undefined. Names compared exactly. */
export function findTable(archive: OpenedArchive, schema: string, table: string): SiardTableRef | undefined {
  return archive.reader.tables().find((t) => t.schema.name === schema && t.table.name === table);
}

/** Rows `offset + 1` ... `offset + limit` of a table; `more` when the table XML goes on after them. */
export async function readRowsPage(
  archive: OpenedArchive,
  t: SiardTableRef,
  offset: number,
  limit: number,
): Promise<{ rows: RowView[]; more: boolean }> {
  const rows: RowView[] = [];
  let n = 0;
  for await (const batch of archive.reader.rowBatches(t)) {
    for (const row of batch) {
      if (n++ < offset) continue;
      if (rows.length === limit) return { rows, more: true };
      rows.push(rowView(t, row));
    }
  }
  return { rows, more: false };
}

export interface SearchOptions {
  /** the text looked for, compared case-insensitively with each cell's text (hex for binary, JSON for ARRAY/UDT) */
  query: string;
  /** only this column (0-based); undefined: every column */
  column?: number;
  /** rows up to this index are skipped (a continued search) */
  after: number;
  /** at most this many matching rows */
  limit: number;
  /** stop scanning after this many milliseconds (the page then offers to continue) */
  budgetMs: number;
}

export interface SearchResult {
  rows: RowView[];
  /** the last row index scanned */
  scannedTo: number;
  /** the whole table was scanned */
  complete: boolean;
}

/**
 * The rows of a table holding `query`, found by scanning the table XML from its start (no index:
 * a search costs a read of the table up to the last row it looks at). It stops at `limit` matches,
 * at the end of the table, or when its time budget is spent; `scannedTo` says where to continue.
 */
export async function searchRows(archive: OpenedArchive, t: SiardTableRef, o: SearchOptions): Promise<SearchResult> {
  const matches = rowMatches(o.query, o.column);
  const rows: RowView[] = [];
  const deadline = Date.now() + o.budgetMs;
  let scannedTo = o.after;
  for await (const batch of archive.reader.rowBatches(t)) {
    for (const row of batch) {
      if (row.index <= o.after) continue;
      // Raw cells tested first: a row view is made only for the rows shown.
      if (matches(row)) rows.push(rowView(t, row));
      scannedTo = row.index;
      if (rows.length === o.limit) return { rows, scannedTo, complete: false };
    }
    if (Date.now() > deadline) return { rows, scannedTo, complete: false };
  }
  return { rows, scannedTo, complete: true };
}

/** Whether a row holds `query` (case-insensitive) in `column` (0-based) or, undefined, in any cell; LOBs in files are not read. */
export function rowMatches(query: string, column?: number): (row: SiardReadRow) => boolean {
  const needle = query.toLowerCase();
  return (row) => {
    const cells = column === undefined ? row.cells : [row.cells[column] ?? null];
    return cells.some((v) => cellText(v)?.toLowerCase().includes(needle));
  };
}

/** A cell's text as a search compares it and a sort orders it: hex for binary, JSON for ARRAY/UDT; undefined for NULL and LOBs in files. */
export function cellText(v: SiardReadCellValue): string | undefined {
  if (v === null) return undefined;
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return hex(v);
  return isComplexValue(v) ? JSON.stringify(complexJson(v)) : undefined;
}

/** Tables over this many rows are not sorted: their keys would not fit memory comfortably (an access copy would). */
export const SORT_MAX_ROWS = 200_000;

/**
 * A page of a table sorted by one column (NULLs first ascending), in two reads of the table XML:
 * the first keeps each row's key and number, the second the page's rows. Numbers compare as
 * numbers (integer, decimal and float columns), everything else by code unit; ties keep table order.
 */
export async function sortedRowsPage(
  archive: OpenedArchive,
  t: SiardTableRef,
  column: number,
  descending: boolean,
  offset: number,
  limit: number,
): Promise<{ rows: RowView[]; more: boolean }> {
  const family = columnTypeFamily(cellType(t.table.columns[column]!));
  const numeric = family === 'integer' || family === 'decimal' || family === 'float';
  const keys: Array<{ index: number; key: string | number | undefined }> = [];
  for await (const batch of archive.reader.rowBatches(t)) {
    for (const row of batch) {
      const text = cellText(row.cells[column] ?? null);
      keys.push({ index: row.index, key: text === undefined ? undefined : numeric ? Number(text) : text });
    }
  }
  const sign = descending ? -1 : 1;
  keys.sort((a, b) => sign * compareKeys(a.key, b.key) || a.index - b.index);
  const wanted = keys.slice(offset, offset + limit).map((k) => k.index);
  const position = new Map(wanted.map((index, i) => [index, i]));
  const rows: RowView[] = new Array(wanted.length);
  let found = 0;
  for await (const batch of archive.reader.rowBatches(t)) {
    for (const row of batch) {
      const at = position.get(row.index);
      if (at !== undefined) rows[at] = rowView(t, row);
      if (at !== undefined && ++found === wanted.length) return { rows, more: keys.length > offset + limit };
    }
  }
  return { rows: rows.filter((r) => r !== undefined), more: keys.length > offset + limit };
}

function compareKeys(a: string | number | undefined, b: string | number | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b || 0;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Row `index` (1-based) of a table, or undefined when the table is shorter. */
export async function findRow(archive: OpenedArchive, t: SiardTableRef, index: number): Promise<SiardReadRow | undefined> {
  if (!Number.isSafeInteger(index) || index < 1) return undefined;
  for await (const batch of archive.reader.rowBatches(t)) {
    const last = batch[batch.length - 1];
    if (!last || last.index < index) continue;
    return batch.find((r) => r.index === index);
  }
  return undefined;
}

export function rowView(t: SiardTableRef, row: SiardReadRow): RowView {
  return {
    index: row.index,
    cells: row.cells.map((v, c) => cellView(v, `c${c + 1}`)),
    lobs: [...lobCellsOfRow(t, row)].map((cell) => cell.cellPath.join('/')),
  };
}

function cellView(v: SiardReadCellValue, cellPath: string): CellView {
  if (v === null) return { kind: 'null' };
  if (typeof v === 'string') return { kind: 'text', text: v };
  if (v instanceof Uint8Array) return { kind: 'binary', bytes: v.byteLength, hex: hex(v) };
  if (isComplexValue(v)) return { kind: 'complex', json: JSON.stringify(complexJson(v)) };
  return { kind: 'lob', cellPath, file: v.file, ...(v.length !== undefined ? { length: v.length } : {}) };
}

function complexJson(v: SiardReadCellValue): unknown {
  if (v === null || typeof v === 'string') return v;
  if (v instanceof Uint8Array) return hex(v);
  if (!isComplexValue(v)) return { file: v.file };
  const prefix = v.kind === 'array' ? 'a' : 'u';
  const out: Record<string, unknown> = {};
  for (const [i, element] of [...v.elements].sort((x, y) => x[0] - y[0])) out[`${prefix}${i}`] = complexJson(element);
  return out;
}

function hex(v: Uint8Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
}

export interface CellBytes {
  stream: Readable;
  /** bytes, when known before reading (the parts' sizes; an inline value's length) */
  size?: number;
}

/**
 * The bytes of one cell of a row: a LOB in a file (by `cellPath`, nested ones too), or an inline
 * BLOB/BINARY value (its bytes) or inline text (UTF-8) of a top-level cell. Throws a SiardOcflError
 * (code LOB_NOT_FOUND) when the row has no such cell, and the lookup's own sentence when the LOB
 * cannot be read (missing, outside the object).
 */
export async function openCellBytes(archive: OpenedArchive, t: SiardTableRef, row: SiardReadRow, cellPath: string): Promise<CellBytes> {
  const top = /^c([1-9][0-9]*)$/.exec(cellPath);
  if (top) {
    const v = row.cells[Number(top[1]) - 1];
    if (typeof v === 'string') return inline(Buffer.from(v, 'utf8'));
    if (v instanceof Uint8Array) return inline(Buffer.from(v.buffer, v.byteOffset, v.byteLength));
  }
  const cell: SiardLobCell | undefined = [...lobCellsOfRow(t, row)].find((c) => c.cellPath.join('/') === cellPath);
  if (!cell) throw new SiardOcflError(`Row ${row.index} has no LOB at ${cellPath}.`, { code: 'LOB_NOT_FOUND', exitCode: 1 });
  const lookup = await archive.lobs.lookup(cell);
  const stream = openLookedUp(archive.reader, cell, lookup, archive.access);
  if (lookup.status !== 'found') return { stream };
  let size = 0;
  for (const part of lookup.found.parts) size += await archive.access.size(part);
  return { stream, size };
}

function inline(bytes: Buffer): CellBytes {
  return { stream: Readable.from([bytes]), size: bytes.length };
}
