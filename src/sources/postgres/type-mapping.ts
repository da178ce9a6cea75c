/**
 * PostgreSQL type -> SIARD 2.2 predefined type (SQL:2008). `typeOriginal` always keeps the native
 * type as `format_type()` prints it, so a restore into PostgreSQL can recreate it.
 *
 * | PostgreSQL                       | SIARD type                | cell value                                  |
 * |----------------------------------|---------------------------|---------------------------------------------|
 * | smallint, integer, bigint        | SMALLINT, INTEGER, BIGINT | decimal digits                              |
 * | numeric(p,s) / numeric           | DECIMAL(p,s) / DECIMAL    | exact digits (1)                            |
 * | real, double precision           | REAL, DOUBLE PRECISION    | shortest exact; NaN, INF, -INF              |
 * | boolean                          | BOOLEAN                   | true / false                                |
 * | character(n)                     | CHAR(n)                   | text (blank padded as stored)               |
 * | character varying(n)             | VARCHAR(n)                | text                                        |
 * | character varying, text, name    | CLOB                      | text; large values stream to files          |
 * | json, jsonb                      | CLOB                      | the JSON text PostgreSQL prints             |
 * | xml                              | XML                       | the document text                           |
 * | bytea                            | BLOB                      | bytes; large values read in slices          |
 * | oid, lo (large object reference) | BLOB                      | the large object's bytes (lo_get slices)    |
 * | date                             | DATE                      | YYYY-MM-DD                                  |
 * | time(p), time with time zone(p)  | TIME(p), ... ZONE(p) (4)  | hh:mm:ss[.f] (timetz converted to UTC, Z)   |
 * | timestamp(p)                     | TIMESTAMP                 | YYYY-MM-DDThh:mm:ss[.f]                     |
 * | timestamp with time zone         | TIMESTAMP WITH TIME ZONE  | UTC instant with Z                          |
 * | interval                         | INTERVAL ... (2)          | xs:duration (PnYnMnDTnHnMnS) (2)            |
 * | uuid                             | CHAR(36)                  | canonical lower-case text                   |
 * | enum type                        | DISTINCT type (3)         | the label                                   |
 * | T[] (one dimension)              | type of T, cardinality    | <a1>, <a2>, ... (NULL element = missing aN) |
 * | domain over T                    | as T                      | as T                                        |
 * | anything else (inet, point, ...) | CLOB                      | PostgreSQL's text output (lossless)         |
 *
 * (1) A column holding NaN/Infinity: VARCHAR of PostgreSQL's text (value-scan.ts).
 * (2) INTERVAL DAY(9) TO SECOND(6), or YEAR(9) TO MONTH, or VARCHAR holding PostgreSQL's ISO 8601 text (value-scan.ts).
 * (3) Over VARCHAR(longest label) (enum-type.ts; introspect.ts).
 * (4) TIME(6) without p (PostgreSQL keeps microseconds; SQL's TIME alone is TIME(0)), TIME for p = 0.
 *
 * PostgreSQL's interval keeps months, days and microseconds apart (a month is not 30 days), while
 * SQL:2008 has only year-month and day-time intervals: value-scan.ts picks the one the column's
 * values fit, or keeps PostgreSQL's own text when none does.
 */

/** SQL:2008 allows year-month or day-time intervals; leading precision 9 holds PostgreSQL's range. */
export const INTERVAL_YEAR_MONTH = 'INTERVAL YEAR(9) TO MONTH';
export const INTERVAL_DAY_SECOND = 'INTERVAL DAY(9) TO SECOND(6)';

/** What introspection knows of a column's (base) type. */
export interface PgTypeInfo {
  /** pg_type.typname of the base type (after domains), e.g. "int4", "_int4", "varchar" */
  typname: string;
  /** pg_type.typtype: b base, e enum, d domain (already resolved), c composite, r range */
  typtype: string;
  /** pg_type.typcategory: A array, ... */
  typcategory: string;
  /** atttypmod (or the domain's typtypmod), -1 when none */
  typmod: number;
  /** format_type of the declared type, e.g. "character varying(40)", "public.mood", "lo" */
  formatted: string;
  /** for arrays: the element type */
  element?: PgTypeInfo;
  /** for enums: the longest label in characters */
  enumMaxLength?: number;
  /** true when the declared type is the `lo` domain or `oid` (large object reference) */
  largeObject?: boolean;
}

/** How a value of a type is read from PostgreSQL and written to SIARD. */
export type PgValueKind =
  | 'integer'
  | 'decimal'
  | 'float'
  | 'boolean'
  | 'text'
  | 'clob'
  | 'xml'
  | 'blob'
  | 'largeObject'
  | 'date'
  | 'time'
  | 'timetz'
  | 'timestamp'
  | 'timestamptz'
  | 'interval';

export interface PgMappedType {
  /** SIARD predefined type */
  type: string;
  kind: PgValueKind;
  /** for arrays: the (maximum) number of elements, filled in after a scan */
  array?: boolean;
}

/** A TIMESTAMP's fractional digits: SQL's default is 6, PostgreSQL's (typmod -1) microseconds too. */
function precisionSuffix(typmod: number): string {
  return typmod >= 0 && typmod !== 6 ? `(${typmod})` : '';
}

/**
 * A TIME's fractional digits: SQL's default for TIME is 0 (and the SIARD 2.2 XSD takes no `(0)`),
 * PostgreSQL's microseconds, so a time without typmod is TIME(6); as plain TIME a target that
 * follows the standard (MariaDB) cut its fractions of a second.
 */
function timePrecisionSuffix(typmod: number): string {
  return typmod === 0 ? '' : `(${typmod < 0 ? 6 : typmod})`;
}

/** The SIARD type and value kind of a non-array PostgreSQL type. */
function mapScalarType(info: PgTypeInfo): PgMappedType {
  if (info.largeObject) return { type: 'BLOB', kind: 'largeObject' };
  if (info.typtype === 'e') return { type: `VARCHAR(${Math.max(1, info.enumMaxLength ?? 1)})`, kind: 'text' };
  switch (info.typname) {
    case 'int2':
      return { type: 'SMALLINT', kind: 'integer' };
    case 'int4':
      return { type: 'INTEGER', kind: 'integer' };
    case 'int8':
      return { type: 'BIGINT', kind: 'integer' };
    case 'numeric': {
      if (info.typmod < 4) return { type: 'DECIMAL', kind: 'decimal' };
      const precision = ((info.typmod - 4) >> 16) & 0xffff;
      const rawScale = (info.typmod - 4) & 0xffff;
      // PostgreSQL 15 allows a negative scale or one above the precision; SQL does not.
      if (rawScale > precision || precision < 1) return { type: 'DECIMAL', kind: 'decimal' };
      return { type: `DECIMAL(${precision}, ${rawScale})`, kind: 'decimal' };
    }
    case 'float4':
      return { type: 'REAL', kind: 'float' };
    case 'float8':
      return { type: 'DOUBLE PRECISION', kind: 'float' };
    case 'bool':
      return { type: 'BOOLEAN', kind: 'boolean' };
    case 'bpchar':
      return { type: info.typmod > 4 ? `CHAR(${info.typmod - 4})` : 'CHAR', kind: 'text' };
    case 'varchar':
      return info.typmod > 4 ? { type: `VARCHAR(${info.typmod - 4})`, kind: 'text' } : { type: 'CLOB', kind: 'clob' };
    case 'name':
      return { type: 'VARCHAR(63)', kind: 'text' };
    case 'char':
      return { type: 'CHAR(1)', kind: 'text' };
    case 'uuid':
      return { type: 'CHAR(36)', kind: 'text' };
    case 'text':
    case 'json':
    case 'jsonb':
      return { type: 'CLOB', kind: 'clob' };
    case 'xml':
      return { type: 'XML', kind: 'xml' };
    case 'bytea':
      return { type: 'BLOB', kind: 'blob' };
    case 'date':
      return { type: 'DATE', kind: 'date' };
    case 'time':
      return { type: `TIME${timePrecisionSuffix(info.typmod)}`, kind: 'time' };
    case 'timetz':
      return { type: `TIME WITH TIME ZONE${timePrecisionSuffix(info.typmod)}`, kind: 'timetz' };
    case 'timestamp':
      return { type: `TIMESTAMP${precisionSuffix(info.typmod)}`, kind: 'timestamp' };
    case 'timestamptz':
      return { type: `TIMESTAMP WITH TIME ZONE${precisionSuffix(info.typmod)}`, kind: 'timestamptz' };
    case 'interval':
      // refined by value-scan.ts: YEAR TO MONTH when the values have no days or time
      return { type: INTERVAL_DAY_SECOND, kind: 'interval' };
    default:
      // inet, cidr, macaddr, point, money, ranges, composites...: PostgreSQL's text form is lossless.
      return { type: 'CLOB', kind: 'clob' };
  }
}

/** Mapping of any column type; arrays map to their element type with `array: true`. */
export function mapPgType(info: PgTypeInfo): PgMappedType {
  if (info.typcategory === 'A' && info.element) {
    const element = mapScalarType(info.element);
    return { ...element, array: true };
  }
  return mapScalarType(info);
}

/** Kinds whose values may be large and are streamed (the writer decides inline or file). */
export function isStreamedKind(kind: PgValueKind): boolean {
  return kind === 'clob' || kind === 'xml' || kind === 'blob' || kind === 'largeObject';
}
