/**
 * `rows`: the rows of one table of an archive, inside an object version or in a `.siard`, as text
 * fields for CSV, streamed: only the current row is held, and reading stops at the limit (the
 * table XML is inflated and parsed only as far as the rows asked for). LOB files are not opened.
 *
 * Cells as text:
 * - NULL: null (an empty unquoted CSV field); the empty string: "" (`""` in CSV);
 * - inline BLOB and BINARY values: lower-case hex; inline CLOB/XML and every other value: the text
 *   as stored, unescaped;
 * - a LOB in a file: its path inside the object (or, for a `.siard`, relative to the folder
 *   holding it), e.g. `db_lobseg_0/content/schema0/table1/lob3/record0.bin`; a LOB kept inside the
 *   `.siard` is `db.siard/<entry>`, the `.siard` read as a folder as SIARD names it; a split LOB
 *   is the path of the whole LOB (where `checkout --join-chunks` puts it; in the object its parts
 *   are `<path>.0` ... `.z` or `_part001` ... in the following segment folders);
 * - ARRAY and UDT values: a JSON object of their elements by name (`{"a1":"x","a3":null}`).
 */
import type { SiardReader, SiardTableRef } from '../siard/reader/siard-reader.js';
import { lobCellsOfRow } from '../siard/reader/siard-reader.js';
import { chooseTable } from '../siard/reader/table-choice.js';
import { columnSummary, type ColumnSummary } from '../siard/reader/table-summary.js';
import { isComplexValue, type SiardLobCell, type SiardReadCellValue, type SiardReadRow } from '../siard/reader/types.js';
import type { LobPart } from '../siard/lob-location.js';
import { describeLobCell } from '../siard/reader/lob-open.js';
import { openArchive, type ArchiveSource, type OpenedArchive } from './open-archive.js';

export interface RowsOptions {
  /** the table name */
  table: string;
  /** its schema, needed only when the name is in several schemas */
  schema?: string;
  /** stop after this many rows */
  limit?: number;
  /** only the rows for which it is true (the reading room's CSV of the rows a search finds) */
  where?: (row: SiardReadRow) => boolean;
  /** a LOB cell whose file is not found: one sentence each (its path is printed all the same) */
  onWarning?: (sentence: string) => void;
}

export interface TableRows {
  /** the .siard read: its file, or `id vN: logical path` inside an object */
  archive: string;
  schema: string;
  table: string;
  columns: ColumnSummary[];
  /** `<rows>` in metadata.xml */
  rowCount: number;
  /** the rows, one array of fields (null = NULL) each; closes the archive when done or stopped */
  rows: AsyncGenerator<Array<string | null>>;
  /** closes the archive if `rows` is never iterated to its end */
  close(): void;
  /** after the rows: where a relocated archive's LOB files were found instead (one sentence), if so */
  note(): string | undefined;
}

/** Opens the table (an unknown or ambiguous name is exit 2 naming the tables there are). */
export async function openTableRows(source: ArchiveSource, options: RowsOptions): Promise<TableRows> {
  const archive = await openArchive(source, { verb: 'located' });
  let t: SiardTableRef;
  try {
    t = chooseTable(archive.reader, options.table, options.schema, archive.name);
  } catch (err) {
    archive.reader.close();
    throw err;
  }
  let closed = false;
  const close = (): void => {
    if (!closed) {
      archive.access.close?.();
      archive.reader.close();
    }
    closed = true;
  };
  return {
    archive: archive.name,
    schema: t.schema.name,
    table: t.table.name,
    columns: t.table.columns.map(columnSummary),
    rowCount: t.table.rows,
    rows: textRows(archive, t, options, close),
    close,
    note: () => archive.lobs.note,
  };
}

/** The text fields of every row of a table of an archive already open (left open): the reading room's CSV export. */
export function tableTextRows(
  archive: OpenedArchive,
  t: SiardTableRef,
  where?: (row: SiardReadRow) => boolean,
): AsyncGenerator<Array<string | null>> {
  return textRows(archive, t, { table: t.table.name, ...(where ? { where } : {}) }, () => {});
}

async function* textRows(
  archive: OpenedArchive,
  t: SiardTableRef,
  options: RowsOptions,
  close: () => void,
): AsyncGenerator<Array<string | null>> {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  if (limit <= 0) return close();
  let n = 0;
  try {
    for await (const row of archive.reader.rows(t)) {
      if (options.where && !options.where(row)) continue;
      let lobs: Map<string, SiardLobCell> | undefined;
      const fields: Array<string | null> = [];
      for (let c = 0; c < row.cells.length; c++) {
        const v = row.cells[c]!;
        if (v === null || typeof v === 'string') fields.push(v);
        else if (v instanceof Uint8Array) fields.push(hex(v));
        else {
          lobs ??= new Map([...lobCellsOfRow(t, row)].map((cell) => [cell.cellPath.join('/'), cell]));
          fields.push(await complexText(archive, v, [`c${c + 1}`], lobs, options));
        }
      }
      yield fields;
      if (++n >= limit) break;
    }
  } finally {
    close();
  }
}

function hex(v: Uint8Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
}

/** A LOB reference or an ARRAY/UDT value as one text field. */
async function complexText(
  archive: OpenedArchive,
  v: SiardReadCellValue,
  cellPath: string[],
  lobs: Map<string, SiardLobCell>,
  options: RowsOptions,
): Promise<string> {
  if (isComplexValue(v)) {
    const prefix = v.kind === 'array' ? 'a' : 'u';
    const out: Record<string, unknown> = {};
    for (const [i, element] of [...v.elements].sort((a, b) => a[0] - b[0])) {
      const name = `${prefix}${i}`;
      if (element === null || typeof element === 'string') out[name] = element;
      else if (element instanceof Uint8Array) out[name] = hex(element);
      else {
        const text = await complexText(archive, element, [...cellPath, name], lobs, options);
        out[name] = isComplexValue(element) ? JSON.parse(text) : text;
      }
    }
    return JSON.stringify(out);
  }
  const cell = lobs.get(cellPath.join('/'));
  if (!cell) return (v as { file: string }).file;
  return lobPath(archive, cell, options);
}

/** Where a LOB cell's bytes are in the object (or package folder): looked up, never opened. */
async function lobPath(archive: OpenedArchive, cell: SiardLobCell, options: RowsOptions): Promise<string> {
  const { reader } = archive;
  const lookup = await archive.lobs.lookup(cell);
  if (lookup.status === 'found') return partPath(reader, lookup.found.target);
  const primary = lookup.location.primary;
  const where = describeLobCell(reader, cell).replace(reader.file, archive.name);
  options.onWarning?.(
    `${where}: LOB file "${cell.ref.file}" is ${lookup.status === 'missing' ? 'missing' : 'not inside the package'}; its cell's ` +
      `location is printed.`,
  );
  return primary.kind === 'internal' || primary.kind === 'external' ? partPath(reader, primary) : cell.ref.file;
}

/** Where a LOB part is, as the CSV names it: its path in the object (or package folder), or `x.siard/<entry>` inside the .siard. */
export function partPath(reader: SiardReader, part: LobPart): string {
  return part.kind === 'external' ? part.path : `${reader.siardPath}/${reader.root}${part.entry}`;
}
