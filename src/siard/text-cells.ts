/**
 * A cell of a CellTexts batch (database-source.ts) written into the table XML straight from the
 * source's bytes, and given to the fingerprint the same way (issue 39: a string or a number per
 * cell, formatted, escaped and encoded again, was most of the garbage of an export of narrow rows).
 * The bytes written and the form hashed are those table-data.ts writes and hashes for the value the
 * text stands for; where this cannot be sure of that cheaply (a character outside ASCII, a form
 * other than the usual one), it writes nothing and the caller formats the value as any other.
 */
import type { CellTextKind } from './database-source.js';
import type { SqlTypeFamily } from './model.js';
import type { Utf8Chunks } from './utf8-chunks.js';
import { unescapedByte } from './fingerprint/row-hash.js';

/** What sees each cell written here (table-data.ts's RowObserver: not imported, which would be a cycle). */
interface CellObserver {
  bytesCell(i: number, bytes: Uint8Array, start: number, end: number, n: number, escaped: boolean, tAt: number, tail: string): void;
}

/** How a text column's cells are written from their bytes (textWay). */
export const enum TextWay {
  /** never: each cell's value is formatted */
  None,
  Char,
  /** an inline CLOB cell (counted in the stats' lobs) */
  Clob,
  Integer,
  Decimal,
  Double,
  Timestamp,
  Date,
  Time,
}

/** What one text column is written as, decided once per batch. */
export interface TextColumn {
  way: TextWay;
  open: string;
  close: string;
  empty: string;
}

/** How cells of texts of `kind` in a column of `family` (a CLOB one when `lob`) are written. */
export function textWay(kind: CellTextKind | undefined, family: SqlTypeFamily, lob: boolean): TextWay {
  if (kind === 'string') {
    if (lob) return family === 'clob' ? TextWay.Clob : TextWay.None;
    return family === 'char'
      ? TextWay.Char
      : family === 'integer'
        ? TextWay.Integer
        : family === 'decimal'
          ? TextWay.Decimal
          : TextWay.None;
  }
  if (lob) return TextWay.None;
  if (kind === 'double') return family === 'float' ? TextWay.Double : TextWay.None;
  if (kind === 'utc')
    return family === 'timestamp' ? TextWay.Timestamp : family === 'date' ? TextWay.Date : family === 'time' ? TextWay.Time : TextWay.None;
  return TextWay.None;
}

/** The most bytes one cell writes here: its escaped form fits in a chunk. */
const MAX_FIELD = 16 * 1024;

const enum C {
  Zero = 0x30,
  Nine = 0x39,
  Minus = 0x2d,
  Plus = 0x2b,
  Dot = 0x2e,
  Colon = 0x3a,
  Space = 0x20,
  BackSlash = 0x5c,
}

function isDigit(b: number | undefined): boolean {
  return b !== undefined && b >= C.Zero && b <= C.Nine;
}

/** Digits from `p` on (at least one): the index after them, or -1. */
function digits(bytes: Uint8Array, p: number, end: number): number {
  const from = p;
  while (p < end && isDigit(bytes[p])) p++;
  return p > from ? p : -1;
}

/** Whether [p, end) is `[+-]?\d+` (table-data.ts's INTEGER_TEXT). */
function integerText(bytes: Uint8Array, p: number, end: number): boolean {
  if (bytes[p] === C.Plus || bytes[p] === C.Minus) p++;
  return digits(bytes, p, end) === end;
}

/** Whether [p, end) is `[+-]?(\d+(\.\d*)?|\.\d+)` (DECIMAL_TEXT). */
function decimalText(bytes: Uint8Array, p: number, end: number): boolean {
  if (bytes[p] === C.Plus || bytes[p] === C.Minus) p++;
  if (bytes[p] === C.Dot) return digits(bytes, p + 1, end) === end;
  const q = digits(bytes, p, end);
  if (q < 0 || q === end) return q === end;
  if (bytes[q] !== C.Dot) return false;
  return q + 1 === end || digits(bytes, q + 1, end) === end;
}

/** Whether `dd` `sep` ... fixed digits and separators: `pattern` as 'd' for a digit, else the character. */
function fixed(bytes: Uint8Array, p: number, pattern: string): boolean {
  for (let k = 0; k < pattern.length; k++) {
    const want = pattern.charCodeAt(k);
    const b = bytes[p + k];
    if (want === 0x64 ? !isDigit(b) : b !== want) return false;
  }
  return true;
}

/** Whether [p, end) is `hh:mm:ss(.f+)?` from `p`. */
function clockText(bytes: Uint8Array, p: number, end: number): boolean {
  if (end - p < 8 || !fixed(bytes, p, 'dd:dd:dd')) return false;
  p += 8;
  return p === end || (bytes[p] === C.Dot && digits(bytes, p + 1, end) === end);
}

/**
 * Whether the double the text [p, end) stands for is written as the text itself (with '.0' when it
 * has no point): a plain decimal of at most 15 digits, no leading or trailing zero. Any decimal of
 * 15 digits or fewer is the only one of its length that parses to its double, so the shortest text
 * of that double (xsDouble, String) is this one, and plain in its range.
 */
function doubleText(bytes: Uint8Array, p: number, end: number): 'no' | 'point' | 'whole' {
  if (bytes[p] === C.Minus) p++;
  const whole = digits(bytes, p, end);
  if (whole < 0 || (bytes[p] === C.Zero && whole - p > 1)) return 'no';
  if (whole === end) return whole - p <= 15 ? 'whole' : 'no';
  if (bytes[whole] !== C.Dot || digits(bytes, whole + 1, end) !== end || bytes[end - 1] === C.Zero) return 'no';
  return end - p - 1 <= 15 ? 'point' : 'no';
}

function copy(out: Utf8Chunks, bytes: Uint8Array, start: number, end: number): void {
  const buf = out.buf;
  let pos = out.pos;
  for (let p = start; p < end; p++) buf[pos++] = bytes[p]!;
  out.pos = pos;
}

const HEX = '0123456789ABCDEF';

/** escapedText's string: its code units, and whether its text had back-slash pairs (no object a cell) */
let units = 0;
let escaped = false;

/**
 * A 'string' text [start, end) as escapeSiardText writes the string it stands for: its characters
 * after the back-slash pairs are undone, escaped. -1: not ASCII, or a back-slash pair it does not
 * know; else the characters written into `out` (and `units`, `escaped` set).
 */
function escapedText(out: Utf8Chunks, bytes: Uint8Array, start: number, end: number): number {
  let pairs = 0;
  for (let p = start; p < end; p++) {
    const b = bytes[p]!;
    if (b >= 0x80) return -1;
    if (b === C.BackSlash) {
      if (++p >= end) return -1;
      const letter = bytes[p]!;
      if (unescapedByte(letter) === letter && letter !== C.BackSlash) return -1;
      pairs++;
    }
  }
  const buf = out.room(6 * (end - start));
  const from = out.pos;
  let pos = from;
  let previous = -1;
  for (let p = start; p < end; p++) {
    let u = bytes[p]!;
    if (u === C.BackSlash) u = unescapedByte(bytes[++p]!);
    let rep: string | undefined;
    if (u === 0x26) rep = '&amp;';
    else if (u === 0x3c) rep = '&lt;';
    else if (u === 0x3e) rep = '&gt;';
    else if (u === 0x22) rep = '&quot;';
    else if (u === 0x27) rep = '&apos;';
    else if (u === C.Space) rep = previous === C.Space ? '\\u0020' : undefined;
    else if ((u < 0x20 && u !== 0x09 && u !== 0x0a) || u === C.BackSlash || u === 0x7f) rep = '\\u00' + HEX[u >> 4] + HEX[u & 15];
    previous = u;
    if (rep === undefined) buf[pos++] = u;
    else for (let k = 0; k < rep.length; k++) buf[pos++] = rep.charCodeAt(k);
  }
  out.pos = pos;
  units = end - start - pairs;
  escaped = pairs > 0;
  return pos - from;
}

/**
 * Writes row r's cell [start, end) of `bytes` of column `i` (`col`), hashed by `observer`: the
 * characters written, or -1 when it is not one written from its bytes (nothing written then).
 */
export function writeTextCell(
  out: Utf8Chunks,
  bytes: Uint8Array,
  start: number,
  end: number,
  i: number,
  col: TextColumn,
  inlineMax: number,
  observer: CellObserver | undefined,
): number {
  const length = end - start;
  const way = col.way;
  if (length > MAX_FIELD || way === TextWay.None) return -1;
  if (way === TextWay.Char || way === TextWay.Clob) {
    if (way === TextWay.Clob && length > inlineMax) return -1;
    if (length === 0) {
      out.ascii(col.empty);
      observer?.bytesCell(i, bytes, start, end, 0, false, -1, '');
      return col.empty.length;
    }
    // the start tag first: the text goes after it, or nothing is written
    out.room(col.open.length + 6 * length + col.close.length);
    const mark = out.pos;
    out.ascii(col.open);
    const written = escapedText(out, bytes, start, end);
    if (written < 0) {
      out.pos = mark;
      return -1;
    }
    out.ascii(col.close);
    observer?.bytesCell(i, bytes, start, end, units, escaped, -1, '');
    return col.open.length + written + col.close.length;
  }
  let tAt = -1;
  let tail = '';
  switch (way) {
    case TextWay.Integer:
      if (!integerText(bytes, start, end)) return -1;
      break;
    case TextWay.Decimal:
      if (length === 0 || !decimalText(bytes, start, end)) return -1;
      break;
    case TextWay.Double: {
      const form = doubleText(bytes, start, end);
      if (form === 'no') return -1;
      if (form === 'whole') tail = '.0';
      break;
    }
    case TextWay.Timestamp:
      if (length < 19 || !fixed(bytes, start, 'dddd-dd-dd ') || !clockText(bytes, start + 11, end)) return -1;
      tAt = 10;
      tail = 'Z';
      break;
    case TextWay.Date:
      if (length !== 10 || !fixed(bytes, start, 'dddd-dd-dd')) return -1;
      tail = 'Z';
      break;
    case TextWay.Time:
      if (!clockText(bytes, start, end)) return -1;
      tail = 'Z';
      break;
  }
  out.room(col.open.length + length + tail.length + col.close.length);
  out.ascii(col.open);
  const at = out.pos;
  copy(out, bytes, start, end);
  if (tAt >= 0) out.buf[at + tAt] = 0x54;
  out.ascii(tail);
  out.ascii(col.close);
  observer?.bytesCell(i, bytes, start, end, length + tail.length, false, tAt, tail);
  return col.open.length + length + tail.length + col.close.length;
}
