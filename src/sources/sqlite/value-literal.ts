/**
 * The SIARD form of a SQLite column whose values mix storage classes in a way no SQL type can keep
 * apart (blobs beside other values; text beside numbers in a column without affinity): a CLOB whose
 * every cell is the value written as a SQLite SQL literal, the form `quote()` prints:
 *
 * | storage class | cell text                                  |
 * |---------------|--------------------------------------------|
 * | integer       | `42`, `-7` (exact 64-bit digits)           |
 * | real          | `1.5`, `3.0`, `1e+21` (shortest round-trip form, always with `.` or an exponent); infinities `9.0e+999`, `-9.0e+999` |
 * | text          | `'it''s'` (single quotes, quotes doubled)  |
 * | blob          | `X'00FF'` (upper-case hex)                 |
 *
 * NULL stays an omitted cell. The column carries `mimeType` SQLITE_LITERAL_MIME so a restore knows
 * to read the literals back into values of the same storage class; any other reader sees text a
 * person (or SQLite itself: `SELECT <cell>`) reads unambiguously.
 */
import { formatReal } from './type-mapping.js';

/** `mimeType` of a column written as SQLite literals (informatory in SIARD; our restore relies on it). */
export const SQLITE_LITERAL_MIME = 'text/x-sqlite-literal';

/** A SQLite value (as better-sqlite3 returns it with safe integers) as its SQL literal. */
export function sqliteLiteral(value: bigint | number | string | Uint8Array): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    if (value === Infinity) return '9.0e+999';
    if (value === -Infinity) return '-9.0e+999';
    return formatReal(value);
  }
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  return `X'${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex').toUpperCase()}'`;
}

/** The value a literal written by sqliteLiteral stands for; throws on anything else. */
export function parseSqliteLiteral(text: string): bigint | number | string | Buffer {
  if (text.startsWith("'")) {
    const body = text.slice(1, -1);
    if (text.length < 2 || !text.endsWith("'") || body.replace(/''/g, '').includes("'"))
      throw new Error(`"${text.slice(0, 40)}" is not a SQLite text literal`);
    return body.replace(/''/g, "'");
  }
  if (/^X'([0-9A-Fa-f]{2})*'$/.test(text)) return Buffer.from(text.slice(2, -1), 'hex');
  if (/^[+-]?\d+$/.test(text)) {
    const n = BigInt(text);
    if (n < -(2n ** 63n) || n > 2n ** 63n - 1n) throw new Error(`integer literal ${text} is outside SQLite's 64-bit range`);
    return n;
  }
  if (/^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$/.test(text) && /[.eE]/.test(text)) return Number(text);
  throw new Error(`"${text.slice(0, 40)}" is not a SQLite literal (integer, real, 'text' or X'hex')`);
}
