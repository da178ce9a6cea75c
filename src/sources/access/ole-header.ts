/**
 * What an OLE Object cell holds, from the header Access writes before the OLE object (the
 * OLEOBJHEADER of Access's own format): a signature 0x1C15, the header's size, the object type
 * (4 bytes), then the lengths and offsets (2 bytes each) of the object's name ("Package", "Bitmap
 * Image") and of its class ("Package", "PBrush", "Word.Document.8"), each an ANSI string ending in
 * a 0. A column's description names the classes found in its first cells (a description is per
 * column; an object's type per cell).
 */
import type { Column, Table } from 'mdb-reader';

const SIGNATURE = 0x1c15;
/** the cells read for a column's description: enough to name what a column holds, bounded */
const OLE_CELLS_READ = 100;

export interface OleHeader {
  name: string;
  className: string;
}

function ansi(bytes: Buffer, offset: number, length: number): string {
  const text = bytes.subarray(offset, Math.min(bytes.length, offset + length)).toString('latin1');
  const end = text.indexOf('\0');
  return end < 0 ? text : text.slice(0, end);
}

/** The header of an OLE Object cell, or undefined where the bytes do not start with one. */
export function oleHeader(bytes: Buffer): OleHeader | undefined {
  if (bytes.length < 20 || bytes.readUInt16LE(0) !== SIGNATURE) return undefined;
  const size = bytes.readUInt16LE(2);
  const [nameLength, classLength, nameOffset, classOffset] = [8, 10, 12, 14].map((at) => bytes.readUInt16LE(at)) as [
    number,
    number,
    number,
    number,
  ];
  if (size > bytes.length || nameOffset + nameLength > size || classOffset + classLength > size) return undefined;
  return { name: ansi(bytes, nameOffset, nameLength), className: ansi(bytes, classOffset, classLength) };
}

/** "OLE objects ..." naming the classes of the objects in the first cells, with their counts; undefined where none is found. */
export function oleDescription(cells: readonly unknown[]): string | undefined {
  const counts = new Map<string, number>();
  let objects = 0;
  for (const cell of cells) {
    if (!(cell instanceof Uint8Array)) continue;
    objects++;
    const header = oleHeader(Buffer.from(cell.buffer, cell.byteOffset, cell.byteLength));
    const kind = header
      ? header.name && header.name !== header.className
        ? `${header.className} (${header.name})`
        : header.className
      : 'no OLE header';
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  if (objects === 0) return undefined;
  const kinds = [...counts].map(([kind, n]) => `${kind}: ${n}`).join(', ');
  return `OLE objects, by class in the first ${objects} of its objects (within its first ${OLE_CELLS_READ} rows): ${kinds}.`;
}

/** The description of an OLE column from its first cells. */
export function oleColumnDescription(table: Table, column: Column): string | undefined {
  const rows = table.getData({ columns: [column.name], rowLimit: OLE_CELLS_READ }) as Array<Record<string, unknown>>;
  return oleDescription(rows.map((r) => r[column.name]));
}
