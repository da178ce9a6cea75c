/**
 * MariaDB / MySQL type -> SIARD 2.2 predefined type (SQL:2008). `typeOriginal` keeps the native
 * type as information_schema.COLUMNS.COLUMN_TYPE prints it (with CHARACTER SET and COLLATE for
 * text columns), so a restore into MariaDB recreates it. docs/mysql.md has the table with what a
 * round trip gives back.
 *
 * | MariaDB / MySQL                                     | SIARD type                      | cell value                                   |
 * |-----------------------------------------------------|---------------------------------|----------------------------------------------|
 * | TINYINT, SMALLINT (signed)                          | SMALLINT                        | decimal digits                               |
 * | TINYINT/SMALLINT/MEDIUMINT UNSIGNED, MEDIUMINT, INT | INTEGER                         | decimal digits                               |
 * | INT UNSIGNED, BIGINT                                | BIGINT                          | decimal digits                               |
 * | BIGINT UNSIGNED                                     | DECIMAL(20, 0)                  | decimal digits (up to 18446744073709551615)  |
 * | DECIMAL(p,s) [UNSIGNED]                             | DECIMAL(p, s)                   | exact digits                                 |
 * | FLOAT                                               | REAL                            | shortest text reading back as the same float |
 * | DOUBLE                                              | DOUBLE PRECISION                | shortest exact text                          |
 * | BIT(1)                                              | BOOLEAN                         | true / false                                 |
 * | BIT(n), n > 1                                       | BINARY(ceil(n/8))               | the bits, big-endian, as hex                 |
 * | YEAR                                                | SMALLINT                        | the year (0 for 0000)                        |
 * | DATE                                                | DATE                            | YYYY-MM-DD (1)                               |
 * | DATETIME(p)                                         | TIMESTAMP(p)                    | YYYY-MM-DDThh:mm:ss[.f]; zero dates as DATE  |
 * | TIMESTAMP(p)                                        | TIMESTAMP WITH TIME ZONE(p)     | the UTC instant with Z; zero as DATE         |
 * | TIME(p) with values in [0, 24 h)                    | TIME(p) (TIME for p = 0)        | hh:mm:ss[.f]                                 |
 * | TIME(p) with a value beyond 24 h or < 0 (2)         | INTERVAL DAY(2) TO SECOND(p)    | xs:duration, e.g. -P34DT22H59M59S            |
 * | CHAR(n), VARCHAR(n) (any character set)             | CHAR(n), VARCHAR(n)             | the text (converted to UTF-8 by the server)  |
 * | TINYTEXT                                            | VARCHAR(255)                    | the text                                     |
 * | TEXT, MEDIUMTEXT, LONGTEXT, JSON                    | CLOB                            | the text; large values stream to files       |
 * | ENUM(...)                                           | VARCHAR(longest label)          | the label ('' for the error value)           |
 * | SET(...)                                            | VARCHAR(all labels with commas) | the labels, comma separated                  |
 * | BINARY(n), VARBINARY(n)                             | BINARY(n), VARBINARY(n)         | bytes (hex, inline)                          |
 * | TINYBLOB                                            | VARBINARY(255)                  | bytes                                        |
 * | BLOB, MEDIUMBLOB, LONGBLOB                          | BLOB                            | bytes; large values stream to files          |
 * | GEOMETRY, POINT, ... GEOMETRYCOLLECTION             | BLOB                            | WKB (ST_AsBinary) (3)                        |
 * | UUID (MariaDB 10.7+)                                | CHAR(36)                        | canonical text                               |
 * | INET4, INET6                                        | VARCHAR(15), VARCHAR(39)        | canonical text                               |
 * | anything else                                       | CLOB                            | the server's text output                     |
 *
 * (1) A DATE column with zero dates: VARCHAR(10) of MariaDB's text.
 * (2) INTERVAL DAY(2) TO SECOND for p = 0.
 * (3) The SRID goes into the column description.
 */

/** What introspection knows of a column (information_schema.COLUMNS). */
export interface MysqlColumnInfo {
  /** DATA_TYPE, lower case: "int", "varchar", "longtext" ... */
  dataType: string;
  /** COLUMN_TYPE: "int(10) unsigned", "enum('a','b')" ... */
  columnType: string;
  /** CHARACTER_MAXIMUM_LENGTH (characters) */
  charLength: number | null;
  numericPrecision: number | null;
  numericScale: number | null;
  datetimePrecision: number | null;
  charset: string | null;
}

/** How a value of a type is read and written. */
export type MysqlValueKind =
  | 'integer'
  | 'year'
  | 'decimal'
  | 'float'
  | 'double'
  | 'bit1'
  | 'bits'
  | 'date'
  | 'datetime'
  | 'timestamp'
  | 'time'
  | 'duration'
  | 'text'
  | 'clob'
  | 'binary'
  | 'blob'
  | 'geometry'
  /** a date/time column holding zero dates: MariaDB's own text in a VARCHAR */
  | 'dateText';

export interface MysqlMappedType {
  type: string;
  kind: MysqlValueKind;
}

const GEOMETRY_TYPES = new Set([
  'geometry',
  'point',
  'linestring',
  'polygon',
  'multipoint',
  'multilinestring',
  'multipolygon',
  'geometrycollection',
]);

export function isGeometryType(dataType: string): boolean {
  return GEOMETRY_TYPES.has(dataType.toLowerCase());
}

function fraction(p: number | null): number {
  return Math.max(0, Math.min(6, p ?? 0));
}

/** The SIARD type and value kind of a column. TIME and zero dates are refined by value-scan.ts. */
export function mapMysqlType(info: MysqlColumnInfo): MysqlMappedType {
  const unsigned = /\bunsigned\b/i.test(info.columnType);
  const dt = info.dataType.toLowerCase();
  const n = info.charLength ?? 0;
  switch (dt) {
    case 'tinyint':
      return { type: 'SMALLINT', kind: 'integer' };
    case 'smallint':
      return { type: unsigned ? 'INTEGER' : 'SMALLINT', kind: 'integer' };
    case 'mediumint':
      return { type: 'INTEGER', kind: 'integer' };
    case 'int':
    case 'integer':
      return { type: unsigned ? 'BIGINT' : 'INTEGER', kind: 'integer' };
    case 'bigint':
      return unsigned ? { type: 'DECIMAL(20, 0)', kind: 'integer' } : { type: 'BIGINT', kind: 'integer' };
    case 'decimal':
    case 'numeric':
      return { type: `DECIMAL(${info.numericPrecision ?? 10}, ${info.numericScale ?? 0})`, kind: 'decimal' };
    case 'float':
      return { type: 'REAL', kind: 'float' };
    case 'double':
    case 'real':
      return { type: 'DOUBLE PRECISION', kind: 'double' };
    case 'bit': {
      const bits = info.numericPrecision ?? 1;
      return bits === 1 ? { type: 'BOOLEAN', kind: 'bit1' } : { type: `BINARY(${Math.ceil(bits / 8)})`, kind: 'bits' };
    }
    case 'year':
      return { type: 'SMALLINT', kind: 'year' };
    case 'date':
      return { type: 'DATE', kind: 'date' };
    case 'datetime':
      return { type: `TIMESTAMP(${fraction(info.datetimePrecision)})`, kind: 'datetime' };
    case 'timestamp':
      // metadata.xsd puts the precision after WITH TIME ZONE
      return { type: `TIMESTAMP WITH TIME ZONE(${fraction(info.datetimePrecision)})`, kind: 'timestamp' };
    case 'time':
      // metadata.xsd admits no TIME(0); TIME alone is precision 0 in SQL:2008
      return { type: fraction(info.datetimePrecision) > 0 ? `TIME(${fraction(info.datetimePrecision)})` : 'TIME', kind: 'time' };
    case 'char':
      return { type: `CHAR(${Math.max(1, n)})`, kind: 'text' };
    case 'varchar':
      return { type: `VARCHAR(${Math.max(1, n)})`, kind: 'text' };
    case 'tinytext':
      return { type: 'VARCHAR(255)', kind: 'text' };
    case 'text':
    case 'mediumtext':
    case 'longtext':
    case 'json':
      return { type: 'CLOB', kind: 'clob' };
    case 'enum':
    case 'set':
      return { type: `VARCHAR(${Math.max(1, n)})`, kind: 'text' };
    case 'binary':
      return { type: `BINARY(${Math.max(1, n)})`, kind: 'binary' };
    case 'varbinary':
      return { type: `VARBINARY(${Math.max(1, n)})`, kind: 'binary' };
    case 'tinyblob':
      return { type: 'VARBINARY(255)', kind: 'binary' };
    case 'blob':
    case 'mediumblob':
    case 'longblob':
      return { type: 'BLOB', kind: 'blob' };
    case 'uuid':
      return { type: 'CHAR(36)', kind: 'text' };
    case 'inet4':
      return { type: 'VARCHAR(15)', kind: 'text' };
    case 'inet6':
      return { type: 'VARCHAR(39)', kind: 'text' };
    default:
      if (isGeometryType(dt)) return { type: 'BLOB', kind: 'geometry' };
      return { type: 'CLOB', kind: 'clob' };
  }
}

/** Kinds whose values may be large: read in slices when over the inline threshold. */
export function isStreamedMysqlKind(kind: MysqlValueKind): boolean {
  return kind === 'clob' || kind === 'blob' || kind === 'geometry';
}

/** Kinds read as bytes from the wire (the others as text). */
export function isBinaryMysqlKind(kind: MysqlValueKind): boolean {
  return kind === 'binary' || kind === 'blob' || kind === 'geometry' || kind === 'bits' || kind === 'bit1';
}

/**
 * The shortest decimal text that reads back (as a 32-bit float) to the float `value` holds: a
 * FLOAT read as DOUBLE is the float's exact binary value (0.10000000149011612), which any
 * decimal that rounds to the same float stands for; the shortest is what MariaDB was given.
 */
export function shortestFloat(value: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  const f = Math.fround(value);
  for (let p = 1; p <= 9; p++) {
    const candidate = Number(f.toPrecision(p));
    if (Math.fround(candidate) === f) return candidate;
  }
  return f;
}

/** MariaDB TIME text ("-838:59:59.500000") as an xs:duration ("-P34DT22H59M59.5S"). */
export function timeToDuration(text: string): string {
  const m = /^(-)?(\d+):(\d\d):(\d\d)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new Error(`TIME value "${text}" is not understood`);
  const hoursTotal = Number(m[2]);
  const days = Math.floor(hoursTotal / 24);
  const hours = hoursTotal % 24;
  const minutes = Number(m[3]);
  const frac = (m[5] ?? '').replace(/0+$/, '');
  const seconds = Number(m[4]);
  let out = `${m[1] ? '-' : ''}P${days > 0 ? `${days}D` : ''}`;
  let time = '';
  if (hours) time += `${hours}H`;
  if (minutes) time += `${minutes}M`;
  if (seconds || frac) time += `${seconds}${frac ? `.${frac}` : ''}S`;
  if (time) out += `T${time}`;
  return out === 'P' || out === '-P' ? 'PT0S' : out;
}

/** An xs:duration of days and time ("-P34DT22H59M59.5S") as MariaDB TIME text ("-838:59:59.5"); undefined when it has years or months. */
export function durationToTime(text: string): string | undefined {
  const m = /^(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d+))?S)?)?$/.exec(text.trim());
  if (!m) return undefined;
  const total = Number(m[2] ?? 0) * 86400 + Number(m[3] ?? 0) * 3600 + Number(m[4] ?? 0) * 60 + Number(m[5] ?? 0);
  const hours = Math.floor(total / 3600);
  const mm = String(Math.floor((total % 3600) / 60)).padStart(2, '0');
  const ss = String(total % 60).padStart(2, '0');
  return `${m[1] ?? ''}${String(hours).padStart(2, '0')}:${mm}:${ss}${m[6] ? `.${m[6]}` : ''}`;
}
