/**
 * Table XML bytes -> COPY text bytes in one pass (issue 16): the cells TableCellScanner finds are
 * copied to COPY's text format byte by byte, with no JavaScript string per cell, the way pg_restore
 * passes its COPY text through. A cell whose text needs more than that (a character reference, a
 * SIARD `\uXXXX` escape, a binary or interval value, a float that is not plain) is decoded into a
 * string and goes through copyFieldOfText, exactly as on the usual path. The COPY bytes equal those
 * the usual path (reader rows -> copyFieldOfText -> CopyIn) sends; a differential test holds them
 * to it. feed() gives up (undefined) wherever the scanner does, or on an entity the reader refuses.
 */
import type { SqlTypeFamily } from '../../siard/model.js';
import { CELL_AMP, CELL_BACKSLASH, TableCellScanner } from '../../siard/reader/table-cells-bytes.js';
import { decodeSiardHex, unescapeSiard } from '../../siard/reader/escape.js';
import { decodeEntities } from '../../siard/reader/table-rows-fast.js';
import { copyBytes } from './copy-in.js';
import { copyFieldOfText } from './copy-text.js';

/** How a column's cells become COPY bytes. */
const enum Kind {
  /** the text as it is, COPY-escaped (integers, decimals, text, dates, times ...) */
  Text,
  /** as Text, but `INF` / `-INF` become `Infinity` / `-Infinity` */
  Float,
  /** always decoded and passed to copyFieldOfText (binary, interval) */
  Decoded,
}

function kindOf(family: SqlTypeFamily | undefined): Kind {
  if (family === 'float') return Kind.Float;
  if (family === 'binary' || family === 'blob' || family === 'interval') return Kind.Decoded;
  return Kind.Text;
}

const TAB = 0x09;
const LF = 0x0a;
const BACKSLASH = 0x5c;
const AMP = 0x26;

/** The byte `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` at data[amp ...] stands for, and its length; 0 for any other. */
function predefinedEntity(data: Buffer, amp: number, end: number): number {
  const c1 = data[amp + 1];
  if (c1 === 0x6c || c1 === 0x67) {
    // lt, gt
    return amp + 3 < end && data[amp + 2] === 0x74 && data[amp + 3] === 0x3b ? (c1 === 0x6c ? 0x3c : 0x3e) | (4 << 8) : 0;
  }
  if (c1 === 0x61) {
    // amp, apos
    if (amp + 4 < end && data[amp + 2] === 0x6d && data[amp + 3] === 0x70 && data[amp + 4] === 0x3b) return AMP | (5 << 8);
    if (amp + 5 < end && data[amp + 2] === 0x70 && data[amp + 3] === 0x6f && data[amp + 4] === 0x73 && data[amp + 5] === 0x3b) {
      return 0x27 | (6 << 8);
    }
    return 0;
  }
  if (
    c1 === 0x71 &&
    amp + 5 < end &&
    data[amp + 2] === 0x75 &&
    data[amp + 3] === 0x6f &&
    data[amp + 4] === 0x74 &&
    data[amp + 5] === 0x3b
  ) {
    return 0x22 | (6 << 8); // quot
  }
  return 0;
}

export class TableXmlCopy {
  private readonly scanner: TableCellScanner;
  private readonly kinds: Uint8Array;
  private out: Buffer = Buffer.alloc(0);

  constructor(
    private readonly families: ReadonlyArray<SqlTypeFamily | undefined>,
    maxTextRun: number,
  ) {
    this.scanner = new TableCellScanner(families.length, maxTextRun);
    this.kinds = Uint8Array.from(families.map(kindOf));
  }

  /** COPY text of the rows `chunk` completes, or undefined: gave up (read the table the usual way). */
  feed(chunk: Buffer): { copy: Buffer<ArrayBufferLike>; rows: number } | undefined {
    const batch = this.scanner.feed(chunk);
    if (!batch) return undefined;
    if (batch.rows === 0) return { copy: Buffer.alloc(0), rows: 0 };
    const columns = this.kinds.length;
    // each cell's text at most doubles (a tab becomes `\t`), and a cell takes at least its tags
    // (`<cN>` `</cN>`); only an absent cell (NULL) gives 3 bytes for none
    const bound = 2 * batch.data.length + batch.rows * (3 * columns + 1) + 64;
    // one output buffer kept from chunk to chunk, each chunk's COPY text copied out of it at its size
    if (this.out.length < bound) this.out = Buffer.allocUnsafe(Math.max(bound, 2 * this.out.length));
    let out: Buffer = this.out;
    let o = 0;
    const { data, ranges, flags } = batch;
    const kinds = this.kinds;
    for (let r = 0, cell = 0; r < batch.rows; r++) {
      for (let c = 0; c < columns; c++, cell++) {
        if (c > 0) out[o++] = TAB;
        const start = ranges[cell * 2]!;
        if (start < 0) {
          out[o++] = BACKSLASH;
          out[o++] = 0x4e; // \N
          continue;
        }
        const end = ranges[cell * 2 + 1]!;
        const kind = kinds[c]!;
        const f = flags[cell]!;
        if (f === 0 && kind === Kind.Text) {
          // the usual cell: its bytes as they are
          for (let i = start; i < end; i++) out[o++] = data[i]!;
          continue;
        }
        let written = kind === Kind.Decoded || (f & CELL_BACKSLASH) !== 0 ? -1 : copyCell(data, start, end, f, out, o);
        if (written >= 0 && kind === Kind.Float) written = infinity(out, o, written);
        if (written >= 0) {
          o += written;
          continue;
        }
        const field = this.decoded(data, start, end, f, c);
        if (field === undefined) return undefined;
        const bytes = Buffer.byteLength(field);
        if (o + bytes + 3 * columns + 1 > out.length) out = grown(out, o, bytes);
        o += out.write(field, o);
      }
      out[o++] = LF;
    }
    this.out = out;
    return { copy: Buffer.from(out.subarray(0, o)), rows: batch.rows };
  }

  /** Whether the input ended as a table XML must (call after the last chunk). */
  finish(): boolean {
    return this.scanner.finish();
  }

  /** A cell the byte copy does not do, through the usual path's functions; undefined to give up. */
  private decoded(data: Buffer, start: number, end: number, flags: number, column: number): string | undefined {
    let text = data.toString('utf8', start, end);
    if ((flags & CELL_AMP) !== 0) {
      const decoded = decodeEntities(text);
      if (decoded === undefined) return undefined;
      text = decoded;
    }
    const family = this.families[column];
    // as the reader does: hex decoded for a binary column, SIARD escapes undone for any other
    if (family === 'binary' || family === 'blob') {
      const bytes = decodeSiardHex(text);
      return bytes ? copyBytes(bytes) : undefined; // the reader refuses it: give up
    }
    text = unescapeSiard(text);
    return copyFieldOfText(family, text);
  }
}

/**
 * Copies the cell text data[start, end) into out at o as a COPY field: tab and line feed escaped,
 * the five predefined entities decoded. Returns the bytes written, or -1 for a character reference.
 */
function copyCell(data: Buffer, start: number, end: number, flags: number, out: Buffer, o: number): number {
  const first = o;
  if (flags === 0) {
    if (end - start > 64) return data.copy(out, o, start, end);
    for (let i = start; i < end; i++) out[o++] = data[i]!;
    return o - first;
  }
  for (let i = start; i < end; i++) {
    const b = data[i]!;
    if (b === AMP) {
      const entity = predefinedEntity(data, i, end);
      if (entity === 0) return -1;
      out[o++] = entity & 0xff;
      i += (entity >> 8) - 1;
    } else if (b === TAB) {
      out[o++] = BACKSLASH;
      out[o++] = 0x74;
    } else if (b === LF) {
      out[o++] = BACKSLASH;
      out[o++] = 0x6e;
    } else out[o++] = b;
  }
  return o - first;
}

/** A float cell written as `INF` / `-INF` becomes `Infinity` / `-Infinity`; returns its new length. */
function infinity(out: Buffer, o: number, length: number): number {
  const minus = length === 4 && out[o] === 0x2d ? 1 : 0;
  if (length !== 3 + minus || out[o + minus] !== 0x49 || out[o + minus + 1] !== 0x4e || out[o + minus + 2] !== 0x46) return length;
  return minus + out.write('Infinity', o + minus, 'latin1');
}

function grown(out: Buffer, used: number, more: number): Buffer {
  const bigger = Buffer.allocUnsafe(2 * out.length + more);
  out.copy(bigger, 0, 0, used);
  return bigger;
}
