/**
 * The canonical form of a cell: one string per value (null for NULL) that two readings of the same
 * value give whatever wrote them, so a database and an archive (or two databases) are compared
 * value by value, and a fingerprint taken from a source equals one taken from its archive.
 *
 * Per family of the archive column's SIARD type (docs/fingerprints.md has the table):
 * - integer, decimal: the digits without '+', leading zeros or (decimal) trailing fractional zeros;
 * - float: the double the text (or number) is, as our writer prints it (xsDouble: '2.0', '1e+21'); 'INF', '-INF', 'NaN';
 * - boolean: 'true' / 'false' (also from 1 / 0, as SQLite and MariaDB hold it);
 * - date, time, timestamp: ISO 8601 with 'T', no trailing fractional zeros, no UTC mark, an
 *   offset other than UTC turned into UTC;
 * - text (CHAR, VARCHAR, CLOB, XML, DATALINK, INTERVAL, anything else): the text; a CHAR(n) without its
 *   trailing spaces (SQL compares CHAR padded; PostgreSQL gives it back padded, MariaDB trimmed);
 * - bytes (BINARY, VARBINARY, BLOB): lower-case hex.
 * Text or bytes longer than SHORT_BYTES (UTF-8 bytes for text) are their SHA-256 instead, '#' and
 * 64 hex digits, whether the value was inline or a LOB file: the digest a LOB file's cell carries.
 */
import { createHash } from 'node:crypto';
import { isSiardText, type SourceValue } from '../../siard/database-source.js';
import type { CellShape } from '../../siard/cell-shape.js';
import type { SqlTypeFamily } from '../../siard/model.js';
import { plainDecimal, xsDouble } from '../../siard/table-data.js';

/** Text and bytes up to this many bytes are themselves; longer ones their digest. */
export const SHORT_BYTES = 1024;

/** The canonical form of a value too long to carry: its SHA-256 (of the UTF-8 bytes for text). */
export function digestCanon(sha256Hex: string): string {
  return '#' + sha256Hex;
}

function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Text: itself, or its digest when longer than SHORT_BYTES in UTF-8. */
export function canonText(s: string): string {
  if (s.length * 3 <= SHORT_BYTES) return s;
  if (s.length > SHORT_BYTES || Buffer.byteLength(s, 'utf8') > SHORT_BYTES) return digestCanon(sha256(s));
  return s;
}

/** Bytes: lower-case hex, or the digest when longer than SHORT_BYTES. */
export function canonBytes(b: Uint8Array): string {
  if (b.length > SHORT_BYTES) return digestCanon(sha256(b));
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

/** How a column's cells are made canonical: its family, and whether it is a padded CHAR(n). */
export interface CanonColumn {
  family: SqlTypeFamily;
  /** CHAR(n) / NCHAR(n): trailing spaces are padding */
  padded: boolean;
  /** the column's cell shape when it is an ARRAY or a UDT */
  complex?: CellShape;
}

const PADDED = /^\s*(CHARACTER|CHAR|NATIONAL\s+CHARACTER|NATIONAL\s+CHAR|NCHAR)\s*(\(\s*\d+\s*\))?\s*$/i;

/** The canonical handling of a column of this shape (predefined type `type` for scalars). */
export function canonColumn(shape: CellShape): CanonColumn {
  if (shape.kind !== 'scalar') return { family: 'char', padded: false, complex: shape };
  return { family: shape.family, padded: shape.family === 'char' && PADDED.test(shape.type) };
}

/** The canonical form of a value's SIARD lexical text (as an archive's cell holds it, unescaped). */
export function canonLexical(text: string, c: CanonColumn): string {
  switch (c.family) {
    case 'integer':
      return canonInteger(text);
    case 'decimal':
      return canonDecimal(text);
    case 'float':
      return canonFloatText(text);
    case 'boolean':
      return canonBoolean(text);
    case 'date':
      return canonDate(text);
    case 'time':
      return canonTime(text);
    case 'timestamp':
      return canonTimestamp(text);
    case 'binary':
    case 'blob':
      return canonBytes(Buffer.from(text, 'hex'));
    default:
      return canonText(c.padded ? trimEnd(text) : text);
  }
}

function trimEnd(s: string): string {
  return s.charCodeAt(s.length - 1) === 0x20 ? s.replace(/ +$/, '') : s;
}

/**
 * The canonical form of a value as a source delivers it (database-source.ts); undefined for a LOB
 * stream (the caller reads it) and for ARRAY and UDT values (complex-canon.ts).
 */
export function canonSource(v: SourceValue, c: CanonColumn): string | null | undefined {
  if (v === null) return null;
  if (typeof v === 'string') return canonLexical(v, c);
  if (v instanceof Uint8Array) return canonBytes(v);
  switch (typeof v) {
    case 'bigint':
      return c.family === 'boolean' ? canonBoolean(v.toString()) : c.family === 'float' ? canonDouble(Number(v)) : v.toString();
    case 'number':
      return canonNumber(v, c);
    case 'boolean':
      return c.family === 'integer' || c.family === 'decimal' ? (v ? '1' : '0') : v ? 'true' : 'false';
  }
  if (isSiardText(v)) return canonLexical(v.text, c);
  return undefined; // a LOB stream, an ARRAY or a UDT (complex-canon.ts)
}

function canonNumber(v: number, c: CanonColumn): string {
  switch (c.family) {
    case 'float':
      return canonDouble(v);
    case 'boolean':
      return v === 1 ? 'true' : v === 0 ? 'false' : canonDouble(v);
    case 'integer':
      return Number.isInteger(v) ? String(v) : canonDouble(v);
    case 'decimal':
      return Number.isFinite(v) ? canonDecimal(plainDecimal(v)) : canonDouble(v);
    default:
      return canonDouble(v);
  }
}

/** A double as our writer prints it (xsDouble: a fifth of String's cost for amounts with cents; INF, -INF, NaN). */
function canonDouble(v: number): string {
  return xsDouble(v);
}

function canonFloatText(text: string): string {
  const t = text.trim();
  if (t === 'INF' || t === '+INF' || t === 'Infinity') return 'INF';
  if (t === '-INF' || t === '-Infinity') return '-INF';
  if (t === 'NaN') return 'NaN';
  const n = Number(t);
  return Number.isNaN(n) ? text : canonDouble(n);
}

function canonBoolean(text: string): string {
  if (text === 'true' || text === '1' || text === 't' || text === 'TRUE') return 'true';
  if (text === 'false' || text === '0' || text === 'f' || text === 'FALSE') return 'false';
  return text;
}

const PLAIN_INTEGER = /^(0|-?[1-9]\d*)$/;

function canonInteger(text: string): string {
  if (PLAIN_INTEGER.test(text)) return text;
  const m = /^\s*([+-]?)0*(\d+)\s*$/.exec(text);
  if (!m) return text;
  const digits = m[2]!;
  return m[1] === '-' && digits !== '0' ? '-' + digits : digits;
}

const DECIMAL_PARTS = /^\s*([+-]?)(\d*)(?:\.(\d*))?\s*$/;

function canonDecimal(text: string): string {
  if (PLAIN_INTEGER.test(text)) return text;
  const m = DECIMAL_PARTS.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return text;
  const whole = m[2]!.replace(/^0+/, '') || '0';
  const fraction = (m[3] ?? '').replace(/0+$/, '');
  const zero = whole === '0' && fraction === '';
  return (m[1] === '-' && !zero ? '-' : '') + whole + (fraction ? '.' + fraction : '');
}

function canonDate(text: string): string {
  const n = text.length;
  if (n === 10) return text;
  if (n === 11 && text.charCodeAt(10) === 0x5a) return text.slice(0, 10);
  if (n === 16 && text.endsWith('+00:00')) return text.slice(0, 10);
  return text;
}

const TIME = /^(\d{2}:\d{2}:\d{2})(?:\.(\d*))?(Z|[+-]\d{2}:\d{2})?$/;

function canonTime(text: string): string {
  const m = TIME.exec(text);
  if (!m) return text;
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  const zone = m[3] === undefined || m[3] === 'Z' || m[3] === '+00:00' || m[3] === '-00:00' ? '' : m[3];
  return m[1]! + (fraction ? '.' + fraction : '') + zone;
}

const TIMESTAMP = /^(\d{4,}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d*))?(Z|[+-]\d{2}:?\d{2}|[+-]\d{2})?$/;

function canonTimestamp(text: string): string {
  // the usual forms: 'YYYY-MM-DDThh:mm:ss' with or without 'Z', or with a space (SQLite), no fraction
  if (text.length === 19) {
    const sep = text.charCodeAt(10);
    if (sep === 0x54) return text;
    if (sep === 0x20) return text.slice(0, 10) + 'T' + text.slice(11);
  }
  if (text.length === 20 && text.charCodeAt(10) === 0x54 && text.charCodeAt(19) === 0x5a) return text.slice(0, 19);
  const m = TIMESTAMP.exec(text);
  if (!m) return text;
  const fraction = (m[3] ?? '').replace(/0+$/, '');
  const zone = m[4];
  let stamp = `${m[1]}T${m[2]}`;
  if (zone !== undefined && zone !== 'Z' && !/^[+-]00:?(00)?$/.test(zone)) stamp = toUtc(stamp, zone) ?? stamp + zone;
  return stamp + (fraction ? '.' + fraction : '');
}

/** 'YYYY-MM-DDThh:mm:ss' at offset `zone` ('+02:00', '-0530', '+02') as the same instant in UTC; undefined outside years 1-9999. */
function toUtc(stamp: string, zone: string): string | undefined {
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
  const minutes = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
  const year = Number(stamp.slice(0, stamp.indexOf('-', 1)));
  if (!(year >= 1 && year <= 9999)) return undefined;
  const ms = Date.parse(stamp + 'Z');
  if (Number.isNaN(ms)) return undefined;
  const utc = new Date(ms - minutes * 60_000).toISOString(); // 'YYYY-MM-DDThh:mm:ss.000Z'
  return utc.slice(0, 19);
}
