/**
 * SQLite declared type -> SQL:2008 type for SIARD. `typeOriginal` always keeps the declared type.
 *
 * SQLite is dynamically typed: the declared type only gives a column an affinity, and any cell may
 * hold any storage class (integer, real, text, blob). The mapping below is the starting point; a
 * scan of the column then checks every value (see prescan.ts) and, when some value does not fit,
 * widens the type so the value is exported unchanged, or stops with an error naming table, row and
 * column. No value is ever changed silently.
 *
 * | declared type (SQLite affinity rule, in this order)              | SQL:2008 type          | values that fit                      |
 * |------------------------------------------------------------------|------------------------|--------------------------------------|
 * | contains INT (INTEGER affinity)                                  | BIGINT                 | integer                              |
 * | CHAR(n), VARCHAR(n), NCHAR(n), NVARCHAR(n), CHARACTER(n) ... (1) | VARCHAR(n)             | text (1)                             |
 * | other types containing CHAR, CLOB or TEXT (TEXT affinity)        | CLOB                   | text                                 |
 * | contains BLOB                                                    | BLOB                   | blob                                 |
 * | empty (no declared type; BLOB/"none" affinity)                   | from the values (2)    | any                                  |
 * | contains REAL, FLOA or DOUB (REAL affinity)                      | DOUBLE PRECISION       | real, integer                        |
 * | BOOLEAN, BOOL (NUMERIC affinity)                                 | BOOLEAN                | integer 0 or 1                       |
 * | DATE                                                             | DATE                   | text 'YYYY-MM-DD' (3)                |
 * | DATETIME, TIMESTAMP                                              | TIMESTAMP              | text 'YYYY-MM-DD HH:MM:SS[.fff]' (3) |
 * | DECIMAL(p,s), NUMERIC(p,s), DECIMAL, NUMERIC, anything else (4)  | DECIMAL(p,s) / DECIMAL | integer, finite real                 |
 *
 * (1) CHAR(n), VARCHAR(n), NCHAR(n), NVARCHAR(n), CHARACTER(n), CHARACTER VARYING(n) and the like; text longer than n
 *     widens the column to VARCHAR(max length).
 * (2) The type follows the values: BIGINT (all integer), DOUBLE PRECISION (integer and real), CLOB (all text), BLOB (all blob or all NULL).
 * (3) A valid date, year 0001-9999; written 'YYYY-MM-DDZ' and 'YYYY-MM-DDTHH:MM:SS[.fff]Z'.
 * (4) NUMERIC affinity.
 *
 * Widening when a value does not fit (each one reported by the export with the first row that
 * caused it; `--strict` refuses instead):
 * - in a column with INTEGER, TEXT, REAL or NUMERIC affinity holding no blob: CLOB. Numbers are
 *   written as text (integers exactly, reals as the shortest round-trip form with '.0' or an
 *   exponent so they stay distinguishable from integers); restoring into a column of the same
 *   affinity gives back the same storage classes and values.
 * - in any column whose non-NULL values are all blobs: BLOB.
 * - in a BLOB-declared column holding one other kind of value: BIGINT, DOUBLE PRECISION or CLOB.
 * - otherwise (blobs mixed with other values, or text mixed with numbers in a column without
 *   affinity, where no SQL type can tell them apart): CLOB with every value as its SQLite literal
 *   (value-literal.ts), so each value's storage class travels with it.
 * Dates and timestamps are taken as UTC (SQLite's date functions work in UTC).
 */

export type SqliteAffinity = 'INTEGER' | 'TEXT' | 'BLOB' | 'REAL' | 'NUMERIC';

/** What a column's values must look like; drives the pre-scan and the row conversion. */
export type ValueKind =
  | 'integer'
  | 'double'
  | 'decimal'
  | 'boolean'
  | 'varchar'
  | 'clob'
  | 'blob'
  | 'date'
  | 'timestamp'
  | 'untyped'
  /** mixed storage classes: every value as its SQLite literal in a CLOB (value-literal.ts) */
  | 'literal';

export interface MappedType {
  affinity: SqliteAffinity;
  kind: ValueKind;
  /** SQL:2008 type; for 'untyped' decided after the scan */
  type: string;
  /** declared length of VARCHAR(n) */
  length?: number;
}

/** SQLite's affinity rules (https://sqlite.org/datatype3.html section 3.1). */
function affinityOf(declared: string): SqliteAffinity {
  const t = declared.toUpperCase();
  if (t.includes('INT')) return 'INTEGER';
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT')) return 'TEXT';
  if (t.includes('BLOB') || t.trim() === '') return 'BLOB';
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB')) return 'REAL';
  return 'NUMERIC';
}

/** A declared character type with a length, the length captured. */
const VARCHAR_LENGTH = new RegExp(
  '^(?:NATIONAL )?(?:N?VARCHAR|N?CHAR|CHARACTER|CHAR VARYING|CHARACTER VARYING|NCHAR VARYING|VARYING CHARACTER|NATIVE CHARACTER)' +
    String.raw`\s*\(\s*(\d+)\s*\)$`,
);

export function mapDeclaredType(declared: string): MappedType {
  const t = declared.trim().toUpperCase().replace(/\s+/g, ' ');
  const affinity = affinityOf(t);
  switch (affinity) {
    case 'INTEGER':
      return { affinity, kind: 'integer', type: 'BIGINT' };
    case 'TEXT': {
      const m = VARCHAR_LENGTH.exec(t);
      if (m && Number(m[1]) > 0) return { affinity, kind: 'varchar', type: `VARCHAR(${Number(m[1])})`, length: Number(m[1]) };
      return { affinity, kind: 'clob', type: 'CLOB' };
    }
    case 'BLOB':
      return t === '' ? { affinity, kind: 'untyped', type: 'BLOB' } : { affinity, kind: 'blob', type: 'BLOB' };
    case 'REAL':
      return { affinity, kind: 'double', type: 'DOUBLE PRECISION' };
    case 'NUMERIC': {
      if (t === 'BOOLEAN' || t === 'BOOL') return { affinity, kind: 'boolean', type: 'BOOLEAN' };
      if (t === 'DATE') return { affinity, kind: 'date', type: 'DATE' };
      if (t === 'DATETIME' || t === 'TIMESTAMP') return { affinity, kind: 'timestamp', type: 'TIMESTAMP' };
      const m = /^(?:DECIMAL|NUMERIC|DEC)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)$/.exec(t);
      if (m && Number(m[1]) > 0) {
        return {
          affinity,
          kind: 'decimal',
          type: m[2] === undefined ? `DECIMAL(${Number(m[1])})` : `DECIMAL(${Number(m[1])}, ${Number(m[2])})`,
        };
      }
      return { affinity, kind: 'decimal', type: 'DECIMAL' };
    }
  }
}

/** A real as text that round-trips and never looks like an integer ("1.0", "1e+21", "INF", "NaN"). */
export function formatReal(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'INF';
  if (value === -Infinity) return '-INF';
  if (Object.is(value, -0)) return '-0.0';
  const s = String(value);
  return /[.eE]/.test(s) ? s : s + '.0';
}
