/**
 * What a table of an archive holds, for listing: row count and columns as metadata.xml states
 * them, and its LOBs counted from the cells alone. The table XML is read only for tables that may
 * hold LOBs (a BLOB, CLOB, XML or DATALINK column, a column with a lobFolder, a UDT or ARRAY
 * column); LOB files are never opened: a LOB cell's size is its `length` attribute (bytes for
 * BLOB, characters for CLOB and XML), and inline LOB values are measured as read.
 */
import type { SiardColumn } from '../model.js';
import { lobCellsOfRow, type SiardReader, type SiardTableRef } from './siard-reader.js';
import { columnTypeFamily } from './table-rows.js';
import type { SiardReadField, SiardReadRow } from './types.js';

export interface ColumnSummary {
  name: string;
  /** the SQL:2008 type metadata.xml gives (absent for a UDT column) */
  type?: string;
  /** the source's native type, as metadata.xml gives it */
  typeOriginal?: string;
  /** UDT columns: the type's schema and name instead of `type` */
  typeSchema?: string;
  typeName?: string;
  nullable?: boolean;
  /** the column's description in metadata.xml (`describe` sets it) */
  description?: string;
}

export interface LobSummary {
  /** LOB cells: LOB values that lie in files (inside the .siard or outside), each split LOB once */
  lobCells: number;
  /** sum of the `length` of BLOB (and other non-character) LOB cells: bytes */
  lobBytes: number;
  /** sum of the `length` of CLOB and XML LOB cells: characters, as SIARD counts them */
  lobCharacters: number;
  /** LOB cells without a `length` attribute (other producers): not in the sums above */
  lobCellsWithoutLength: number;
  /** non-NULL values of BLOB/CLOB/XML columns written inline in the table XML */
  inlineLobs: number;
  /** their size in bytes (BLOB: the decoded bytes; CLOB/XML: the UTF-8 bytes of the text) */
  inlineLobBytes: number;
}

export interface TableSummary extends LobSummary {
  schema: string;
  name: string;
  /** `content/schemaI/tableJ`, relative to the SIARD root */
  folder: string;
  /** `<rows>` in metadata.xml */
  rows: number;
  /** the table's description in metadata.xml (`describe` sets it) */
  description?: string;
  columns: ColumnSummary[];
  /** whether the table XML was read to count LOBs (false: metadata.xml alone answered) */
  tableDataRead: boolean;
}

export function columnSummary(c: SiardColumn): ColumnSummary {
  return {
    name: c.name,
    ...(c.type !== undefined ? { type: c.type } : {}),
    ...(c.typeOriginal !== undefined ? { typeOriginal: c.typeOriginal } : {}),
    ...(c.typeSchema !== undefined ? { typeSchema: c.typeSchema } : {}),
    ...(c.typeName !== undefined ? { typeName: c.typeName } : {}),
    ...(c.nullable !== undefined ? { nullable: c.nullable } : {}),
    ...(c.description ? { description: c.description } : {}),
  };
}

function isLobType(type: string | undefined): boolean {
  const f = columnTypeFamily(type);
  return f === 'blob' || f === 'clob' || f === 'xml' || f === 'datalink';
}

function fieldMayHoldLobs(f: SiardReadField): boolean {
  return f.lobFolder !== undefined || isLobType(f.type) || f.typeName !== undefined || f.fields.some(fieldMayHoldLobs);
}

/** Whether the table's cells may hold LOBs, by its metadata alone. */
export function mayHoldLobs(t: SiardTableRef): boolean {
  return t.table.columns.some((c, i) => {
    const extras = t.columnExtras[i];
    return (
      isLobType(c.type) ||
      c.lobFolder !== undefined ||
      c.typeName !== undefined ||
      c.type === undefined ||
      extras?.folder !== undefined ||
      (extras?.fields ?? []).some(fieldMayHoldLobs)
    );
  });
}

/** A LobSummary counted row by row (`add` each row read, in any order; `summary` the counts so far). */
export function lobCounter(t: SiardTableRef): { add(row: SiardReadRow): void; summary: LobSummary } {
  const s: LobSummary = { lobCells: 0, lobBytes: 0, lobCharacters: 0, lobCellsWithoutLength: 0, inlineLobs: 0, inlineLobBytes: 0 };
  const inlineFamilies = t.table.columns.map((c) => {
    const f = columnTypeFamily(c.type);
    return f === 'blob' || f === 'clob' || f === 'xml' ? f : undefined;
  });
  const add = (row: SiardReadRow): void => {
    for (let c = 0; c < row.cells.length; c++) {
      const v = row.cells[c];
      if (inlineFamilies[c] === undefined) continue;
      if (typeof v === 'string') {
        s.inlineLobs++;
        s.inlineLobBytes += Buffer.byteLength(v, 'utf8');
      } else if (v instanceof Uint8Array) {
        s.inlineLobs++;
        s.inlineLobBytes += v.length;
      }
    }
    for (const cell of lobCellsOfRow(t, row)) {
      s.lobCells++;
      if (cell.ref.length === undefined) s.lobCellsWithoutLength++;
      else if (cell.family === 'clob' || cell.family === 'xml') s.lobCharacters += cell.ref.length;
      else s.lobBytes += cell.ref.length;
    }
  };
  return { add, summary: s };
}

/** The LOBs of one table, counted from its cells (streamed: constant memory); `onRow` per row read. */
async function summariseLobs(reader: SiardReader, t: SiardTableRef, onRow?: () => void): Promise<LobSummary> {
  const counter = lobCounter(t);
  for await (const row of reader.rows(t)) {
    onRow?.();
    counter.add(row);
  }
  return counter.summary;
}

/**
 * One table's summary: metadata.xml, plus the table XML where LOBs may be (`onScan` is told before
 * that read starts, `onRow` per row read).
 */
export async function summariseTable(
  reader: SiardReader,
  t: SiardTableRef,
  progress: { onScan?: () => void; onRow?: () => void } = {},
): Promise<TableSummary> {
  const scan = t.table.rows > 0 && mayHoldLobs(t);
  if (scan) progress.onScan?.();
  const lobs = scan
    ? await summariseLobs(reader, t, progress.onRow)
    : { lobCells: 0, lobBytes: 0, lobCharacters: 0, lobCellsWithoutLength: 0, inlineLobs: 0, inlineLobBytes: 0 };
  return {
    schema: t.schema.name,
    name: t.table.name,
    folder: t.folder,
    rows: t.table.rows,
    ...(t.table.description ? { description: t.table.description } : {}),
    columns: t.table.columns.map(columnSummary),
    ...lobs,
    tableDataRead: scan,
  };
}
