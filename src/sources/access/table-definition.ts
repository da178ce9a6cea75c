/**
 * What a table definition (TDEF) page says that mdb-reader does not read: the indexes. Laid out as
 * mdbtools' format notes (HACKING.md, "TDEF (Table Definition) Pages") describe it: a header, one
 * entry per physical ("real") index, the column entries and their names, the real indexes' columns
 * and flags, then the logical indexes (number of the real index behind each, type: 1 primary key,
 * 2 foreign key) and their names. A definition longer than a page continues on `next_pg`, each
 * further page without its 8-byte header.
 */
import type { AccessPages } from './decrypted-pages.js';

export interface DefinedIndex {
  name: string;
  /** the column names, in key order */
  columns: string[];
  primary: boolean;
  unique: boolean;
  /** an index Access made for a relationship (type 2) */
  foreignKey: boolean;
}

export interface DefinedColumn {
  name: string;
  /** its type's code (0x12: complex) */
  type: number;
  /** where its entry starts in the definition's bytes (its type is the entry's first byte) */
  entry: number;
}

export interface TableDefinition {
  /** column names by their column number (which counts deleted columns) */
  columnNames: Map<number, string>;
  columns: DefinedColumn[];
  indexes: DefinedIndex[];
}

interface Layout {
  numIndexes: number;
  numRealIndexes: number;
  numColumns: number;
  realIndexStart: number;
  realIndexEntry: number;
  columnEntry: number;
  /** where the column number is in a column entry */
  columnNumber: number;
  /** the bytes of a name's length */
  nameLength: 1 | 2;
  /** in a real index's key entry: bytes before its 10 column slots, where its flags are, its size */
  keyLead: number;
  keyFlags: number;
  keyEntry: number;
  /** in a logical index entry: where the real index's number and the type are, and its size */
  logicalRealIndex: number;
  logicalType: number;
  logicalEntry: number;
}

const JET3: Layout = {
  numIndexes: 27,
  numRealIndexes: 31,
  numColumns: 25,
  realIndexStart: 43,
  realIndexEntry: 8,
  columnEntry: 18,
  columnNumber: 1,
  nameLength: 1,
  keyLead: 0,
  keyFlags: 38,
  keyEntry: 39,
  logicalRealIndex: 4,
  logicalType: 19,
  logicalEntry: 20,
};

const JET4: Layout = {
  numIndexes: 47,
  numRealIndexes: 51,
  numColumns: 45,
  realIndexStart: 63,
  realIndexEntry: 12,
  columnEntry: 25,
  columnNumber: 5,
  nameLength: 2,
  keyLead: 4,
  keyFlags: 46,
  keyEntry: 52,
  logicalRealIndex: 8,
  logicalType: 23,
  logicalEntry: 28,
};

const KEY_COLUMNS = 10;
const NO_COLUMN = 0xffff;
const UNIQUE = 0x01;
const PRIMARY = 1;
const FOREIGN = 2;
const TDEF = 0x02;

/** The pages of a definition, in order, each decrypted. */
export function definitionPages(pages: AccessPages, firstPage: number): Array<{ number: number; page: Buffer }> {
  const out: Array<{ number: number; page: Buffer }> = [];
  const seen = new Set<number>();
  for (let n = firstPage; n > 0 && !seen.has(n);) {
    seen.add(n);
    const page = pages.page(n);
    if (page[0] !== TDEF) throw new Error(`page ${n} is not a table definition page (type ${page[0]})`);
    out.push({ number: n, page });
    n = page.readUInt32LE(4);
  }
  return out;
}

/** The definition's bytes: its first page whole, the pages after it without their 8-byte header. */
export function definitionBytes(pages: AccessPages, firstPage: number): Buffer {
  return Buffer.concat(definitionPages(pages, firstPage).map((p, i) => (i === 0 ? p.page : p.page.subarray(8))));
}

/** Where byte `at` of the definition's bytes is: the index of its page among the definition's, and the place in that page. */
export function definitionPlace(at: number, pageSize: number): { page: number; offset: number } {
  if (at < pageSize) return { page: 0, offset: at };
  const rest = at - pageSize;
  return { page: 1 + Math.floor(rest / (pageSize - 8)), offset: 8 + (rest % (pageSize - 8)) };
}

/** A name as Jet 4 and later store it: UCS-2, or "compressed" (FF FE, then one byte a character, 00 switching). */
export function jetText(bytes: Buffer, jet3: boolean): string {
  if (jet3) return bytes.toString('latin1');
  if (bytes.length < 2 || bytes[0] !== 0xff || bytes[1] !== 0xfe) return bytes.toString('utf16le');
  let out = '';
  let compressed = true;
  for (let i = 2; i < bytes.length;) {
    if (bytes[i] === 0) {
      compressed = !compressed;
      i++;
    } else if (compressed) out += String.fromCharCode(bytes[i++]!);
    else if (i + 1 < bytes.length) {
      out += String.fromCharCode(bytes.readUInt16LE(i));
      i += 2;
    } else break;
  }
  return out;
}

/** Reads names one after another: a length of 1 (Jet 3) or 2 bytes, then the name. */
function nameReader(bytes: Buffer, at: number, layout: Layout, jet3: boolean) {
  let pos = at;
  return {
    next(): string {
      const length = layout.nameLength === 1 ? bytes.readUInt8(pos) : bytes.readUInt16LE(pos);
      pos += layout.nameLength;
      const name = jetText(bytes.subarray(pos, pos + length), jet3);
      pos += length;
      return name;
    },
    get position() {
      return pos;
    },
  };
}

interface RealIndex {
  columns: number[];
  flags: number;
}

function realIndexes(bytes: Buffer, at: number, count: number, layout: Layout): RealIndex[] {
  const out: RealIndex[] = [];
  for (let i = 0; i < count; i++) {
    const entry = at + i * layout.keyEntry;
    const columns: number[] = [];
    for (let k = 0; k < KEY_COLUMNS; k++) {
      const column = bytes.readUInt16LE(entry + layout.keyLead + k * 3);
      if (column !== NO_COLUMN) columns.push(column);
    }
    out.push({ columns, flags: bytes.readUInt8(entry + layout.keyFlags) });
  }
  return out;
}

/** Parses a table definition's bytes (definitionBytes) of a Jet 3 or a Jet 4 / ACE file. */
export function parseTableDefinition(bytes: Buffer, jet3: boolean): TableDefinition {
  const layout = jet3 ? JET3 : JET4;
  const numIndexes = bytes.readInt32LE(layout.numIndexes);
  const numReal = bytes.readInt32LE(layout.numRealIndexes);
  const numColumns = bytes.readUInt16LE(layout.numColumns);
  const columnsAt = layout.realIndexStart + numReal * layout.realIndexEntry;
  const names = nameReader(bytes, columnsAt + numColumns * layout.columnEntry, layout, jet3);
  const columnNames = new Map<number, string>();
  const columns: DefinedColumn[] = [];
  for (let i = 0; i < numColumns; i++) {
    const entry = columnsAt + i * layout.columnEntry;
    const name = names.next();
    columnNames.set(bytes.readUInt16LE(entry + layout.columnNumber), name);
    columns.push({ name, type: bytes.readUInt8(entry), entry });
  }
  const real = realIndexes(bytes, names.position, numReal, layout);
  const logicalAt = names.position + numReal * layout.keyEntry;
  const logical = Array.from({ length: numIndexes }, (_, i) => {
    const entry = logicalAt + i * layout.logicalEntry;
    return { real: bytes.readInt32LE(entry + layout.logicalRealIndex), type: bytes.readUInt8(entry + layout.logicalType) };
  });
  const indexNames = nameReader(bytes, logicalAt + numIndexes * layout.logicalEntry, layout, jet3);
  const indexes = logical.map(({ real: r, type }): DefinedIndex => {
    const name = indexNames.next();
    const key = real[r];
    if (!key) throw new Error(`index "${name}" names physical index ${r} of ${numReal}`);
    const keyColumns = key.columns.map((c) => {
      const column = columnNames.get(c);
      if (column === undefined) throw new Error(`index "${name}" names column number ${c}, which the table does not have`);
      return column;
    });
    return {
      name,
      columns: keyColumns,
      primary: type === PRIMARY,
      unique: type === PRIMARY || (key.flags & UNIQUE) !== 0,
      foreignKey: type === FOREIGN,
    };
  });
  return { columnNames, columns, indexes };
}
