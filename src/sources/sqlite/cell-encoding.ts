/**
 * Raw SQLite rows (better-sqlite3, integers as bigint) as CellTexts bytes (database-source.ts), made
 * in the reader's worker thread (rows-worker.ts): the common cells as ASCII text in one buffer with
 * their bounds, so the writer's thread formats them from their bytes (text-cells.ts) and makes no
 * value per cell (issue 39). A cell whose text would not stand for its value exactly, or that may
 * not fit its column (a value the source's checks look at: non-ASCII text, a control character,
 * -0, a real String() writes with an exponent, a date not in its plain form, a value of another
 * storage class), goes as its value instead, to be checked and converted as every row's are.
 */
import type { CellTextKind, KeyedBatch, SourceValue } from '../../siard/database-source.js';
import { isPlainDate, isPlainTimestamp } from './provisional-check.js';

/** How a column's cells are encoded, from its decided kind (prescan.ts's ColumnDecision). */
export const enum CellEncoding {
  /** a bigint as its digits ('string') */
  Digits = 1,
  /** a number as String() writes it when that is plain digits with an optional point ('double') */
  Double,
  /** printable ASCII text, tab and line feed, a back-slash doubled ('string') */
  Text,
  /** 'YYYY-MM-DD' of a real day ('utc') */
  Date,
  /** 'YYYY-MM-DD HH:MM:SS' of a real day and time ('utc') */
  Timestamp,
}

/** The encoding of a column of decided `kind`, or undefined when its cells go as values. */
export function encodingOf(kind: string): CellEncoding | undefined {
  switch (kind) {
    case 'integer':
    case 'decimal':
      return CellEncoding.Digits;
    case 'double':
      return CellEncoding.Double;
    case 'varchar':
    case 'clob':
      return CellEncoding.Text;
    case 'date':
      return CellEncoding.Date;
    case 'timestamp':
      return CellEncoding.Timestamp;
    default:
      return undefined;
  }
}

/** The CellTexts kind of an encoding's texts. */
export function textKindOf(encoding: CellEncoding): CellTextKind {
  return encoding === CellEncoding.Double
    ? 'double'
    : encoding === CellEncoding.Date || encoding === CellEncoding.Timestamp
      ? 'utc'
      : 'string';
}

/** Where encodeRows writes a batch: its bounds and rowids (room for the batch), its text in `bytes`, grown as needed. */
export interface EncodeTarget {
  bytes: Uint8Array;
  /** per row and column, [start, end) in `bytes`; start -1: NULL, -2: the value is in `values` */
  bounds: Int32Array;
  rowids: BigInt64Array;
}

/** What encodeRows wrote: the rows, the bytes used, and the cells not encoded (index row * columns + column, raw value). */
export interface Encoded {
  count: number;
  used: number;
  values: unknown[];
}

/** Grows `target.bytes` to hold `more` bytes after `pos`. */
function room(target: EncodeTarget, pos: number, more: number): Uint8Array {
  const buf = target.bytes;
  if (pos + more <= buf.length) return buf;
  const grown = new Uint8Array(Math.max(2 * buf.length, pos + more));
  grown.set(buf.subarray(0, pos));
  return (target.bytes = grown);
}

/**
 * Writes the ASCII string `s` at `pos` (room made): the end, or -1 when a character is not one
 * `encoding` writes (Text: printable, tab or line feed, a back-slash doubled; Double and Digits:
 * digits, '.' and '-'; Date and Timestamp: checked before, written as they are).
 */
function writeAscii(buf: Uint8Array, pos: number, s: string, encoding: CellEncoding): number {
  const text = encoding === CellEncoding.Text;
  const number = encoding === CellEncoding.Double || encoding === CellEncoding.Digits;
  for (let k = 0; k < s.length; k++) {
    const u = s.charCodeAt(k);
    if (text) {
      if (u >= 0x7f || (u < 0x20 && u !== 0x09 && u !== 0x0a)) return -1;
      if (u === 0x5c) buf[pos++] = u;
    } else if (number && !((u >= 0x30 && u <= 0x39) || u === 0x2e || u === 0x2d)) return -1;
    buf[pos++] = u;
  }
  return pos;
}

/** Writes the digits of the whole number 0 <= x < 2 ** 53 at `pos` (room made); the end. */
function writeWhole(buf: Uint8Array, pos: number, x: number): number {
  let length = 1;
  for (let t = x; t >= 10; t = Math.floor(t / 10)) length++;
  for (let k = pos + length - 1; k >= pos; k--) {
    const q = Math.floor(x / 10);
    buf[k] = 0x30 + (x - 10 * q);
    x = q;
  }
  return pos + length;
}

const SAFE = 2n ** 53n;
/** Below this, a double that is a whole number of hundredths is written from its cents (xsDouble's shortcut). */
const CENTS_LIMIT = 2 ** 40;

/**
 * Writes a double as String() writes it (the shortest decimal that reads back as it) when that
 * is plain: digits, a point and digits. A whole number of hundredths is written from its cents, as
 * table-data.ts's xsDouble finds it: that decimal is the shortest. The end, or -1.
 */
function writeDouble(target: EncodeTarget, pos: number, v: number): number {
  const a = v < 0 ? -v : v;
  if (a >= 0.01 && a < CENTS_LIMIT) {
    const c = Math.round(a * 100);
    if (c / 100 === a) {
      const buf = room(target, pos, 20);
      if (v < 0) buf[pos++] = 0x2d;
      const whole = Math.floor(c / 100);
      const cents = c - 100 * whole;
      pos = writeWhole(buf, pos, whole);
      if (cents === 0) return pos;
      buf[pos++] = 0x2e;
      buf[pos++] = 0x30 + Math.floor(cents / 10);
      if (cents % 10 !== 0) buf[pos++] = 0x30 + (cents % 10);
      return pos;
    }
  }
  if (Object.is(v, -0)) return -1;
  const s = String(v);
  return writeAscii(room(target, pos, s.length), pos, s, CellEncoding.Double);
}

/** Writes cell `v` of a column of `encoding` at `pos`: the end, or -1 when it goes as its value. */
function writeCell(target: EncodeTarget, pos: number, v: unknown, encoding: CellEncoding): number {
  switch (encoding) {
    case CellEncoding.Digits: {
      if (typeof v !== 'bigint') return -1;
      if (v > -SAFE && v < SAFE) {
        const buf = room(target, pos, 17);
        if (v < 0n) buf[pos++] = 0x2d;
        return writeWhole(buf, pos, Number(v < 0n ? -v : v));
      }
      const s = v.toString();
      return writeAscii(room(target, pos, s.length), pos, s, encoding);
    }
    case CellEncoding.Double:
      return typeof v === 'number' ? writeDouble(target, pos, v) : -1;
    case CellEncoding.Text:
      return typeof v === 'string' ? writeAscii(room(target, pos, 2 * v.length), pos, v, encoding) : -1;
    case CellEncoding.Date:
      return typeof v === 'string' && isPlainDate(v) ? writeAscii(room(target, pos, v.length), pos, v, encoding) : -1;
    case CellEncoding.Timestamp:
      return typeof v === 'string' && isPlainTimestamp(v) ? writeAscii(room(target, pos, v.length), pos, v, encoding) : -1;
  }
}

/**
 * Encodes `rows` (raw arrays: the n values, then extra columns; the rowid at `rowidAt`) into
 * `target`; `encodings[c]` undefined: column c's cells go as values.
 */
export function encodeRows(
  rows: readonly unknown[][],
  encodings: ReadonlyArray<CellEncoding | undefined>,
  rowidAt: number,
  target: EncodeTarget,
): Encoded {
  const n = encodings.length;
  const count = rows.length;
  const { bounds, rowids } = target;
  const values: unknown[] = [];
  let pos = 0;
  for (let r = 0; r < count; r++) {
    const raw = rows[r]!;
    rowids[r] = raw[rowidAt] as bigint;
    for (let c = 0; c < n; c++) {
      const at = 2 * (r * n + c);
      const v = raw[c];
      if (v === null) {
        bounds[at] = -1;
        continue;
      }
      const encoding = encodings[c];
      const end = encoding === undefined ? -1 : writeCell(target, pos, v, encoding);
      if (end < 0) {
        bounds[at] = -2;
        values.push(r * n + c, v);
        continue;
      }
      bounds[at] = pos;
      bounds[at + 1] = end;
      pos = end;
    }
  }
  return { count, used: pos, values };
}

/** The value the text [start, end) of `bytes` of a column of `encoding` stands for, as better-sqlite3 reads it. */
function decodeCell(bytes: Uint8Array, start: number, end: number, encoding: CellEncoding): bigint | number | string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1');
  switch (encoding) {
    case CellEncoding.Digits:
      return BigInt(text);
    case CellEncoding.Double:
      return Number(text);
    case CellEncoding.Text:
      return text.replace(/\\\\/g, '\\');
    default:
      return text;
  }
}

/** What textsBatch takes: a batch as the reader thread gave it (rows-reader.ts's WorkerBatch). */
interface EncodedBatch {
  count: number;
  bytes: Buffer;
  bounds: Int32Array;
  rowids: BigInt64Array;
  values: unknown[];
}

/**
 * An encoded batch as the writer takes it: rows of CellTexts, each row's rowid its key. The cells
 * that came as values are checked and converted first, in row order, by `valueOf` (its errors are
 * those of a batch read here), rows numbered from `first`.
 */
export function textsBatch(
  got: EncodedBatch,
  encodings: readonly CellEncoding[],
  kinds: readonly CellTextKind[],
  first: number,
  valueOf: (v: unknown, column: number, rowid: bigint, row: number) => SourceValue,
): KeyedBatch {
  const n = encodings.length;
  const values = new Map<number, SourceValue>();
  for (let k = 0; k < got.values.length; k += 2) {
    const index = got.values[k] as number;
    const r = Math.floor(index / n);
    values.set(index, valueOf(got.values[k + 1], index - r * n, got.rowids[r]!, first + r));
  }
  const { bytes, bounds } = got;
  // every row of a batch of texts only: one array (table-data.ts copies one before it puts a value in it)
  const batch: KeyedBatch = new Array<SourceValue[]>(got.count).fill(new Array<SourceValue>(n));
  batch.rowKeys = Array.from(got.rowids);
  batch.texts = {
    kinds,
    bytes: new Array<Buffer>(got.count).fill(bytes),
    bounds,
    stride: n,
    field: encodings.map((_, c) => c),
    value: (r, c) => {
      const at = 2 * (r * n + c);
      const start = bounds[at]!;
      if (start === -1) return null;
      return start === -2 ? values.get(r * n + c)! : decodeCell(bytes, start, bounds[at + 1]!, encodings[c]!);
    },
  };
  return batch;
}
