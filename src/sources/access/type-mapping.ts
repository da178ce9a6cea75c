/**
 * Access column types as SIARD types, and each value as the SIARD writer takes it. Nothing is
 * rounded: exact numbers stay exact text (currency, decimal) or integers, a date keeps its
 * milliseconds, an extended date its 100 ns.
 *
 * | Access (mdb-reader type)              | SIARD                       | value                                   |
 * | ------------------------------------- | --------------------------- | --------------------------------------- |
 * | Text(n) (text)                        | VARCHAR(n)                  | text                                    |
 * | Memo / Long Text, Hyperlink (memo)    | CLOB                        | text (a hyperlink as stored: text#address#) |
 * | Byte (byte)                           | SMALLINT                    | 0 to 255                                |
 * | Integer (integer)                     | SMALLINT                    | 16-bit integer                          |
 * | Long Integer, AutoNumber (long)       | INTEGER                     | 32-bit integer                          |
 * | Large Number (bigint)                 | BIGINT                      | 64-bit integer                          |
 * | Single (float)                        | REAL                        | the float32 value                       |
 * | Double (double)                       | DOUBLE PRECISION            | the float64 value                       |
 * | Decimal(p, s) (numeric)               | DECIMAL(p, s)               | exact digits                            |
 * | Currency (currency)                   | DECIMAL(19, 4)              | exact digits                            |
 * | Date/Time (datetime)                  | TIMESTAMP(3)                | YYYY-MM-DDThh:mm:ss[.fff]               |
 * | Date/Time Extended (datetimeextended) | TIMESTAMP(7)                | YYYY-MM-DDThh:mm:ss.fffffff             |
 * | Yes/No (boolean)                      | BOOLEAN                     | true / false                            |
 * | Replication ID (repid)                | CHAR(38)                    | {xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}  |
 * | Binary(n) (binary)                    | VARBINARY(n) / BINARY(n)    | bytes                                   |
 * | OLE Object (ole)                      | BLOB                        | bytes, the OLE package header kept      |
 * | Attachment (complex)                  | a table of its own          | one row per file (access-source.ts)     |
 */
import type { Column } from 'mdb-reader';
import type { SourceValue } from '../../siard/database-source.js';

export interface AccessColumnType {
  /** SIARD type */
  type: string;
  /** Access's name of the type, for typeOriginal */
  original: string;
}

/** Jet 3 stores a text column's size in characters, Jet 4 and later in bytes of UCS-2. */
export function siardTypeOf(column: Column, bytesPerChar: 1 | 2): AccessColumnType {
  switch (column.type) {
    case 'text': {
      const chars = Math.max(1, Math.floor(column.size / bytesPerChar));
      return { type: `VARCHAR(${chars})`, original: `Text (${chars})` };
    }
    case 'memo':
      return { type: 'CLOB', original: 'Memo' };
    case 'byte':
      return { type: 'SMALLINT', original: 'Byte' };
    case 'integer':
      return { type: 'SMALLINT', original: 'Integer' };
    case 'long':
      return { type: 'INTEGER', original: column.autoLong ? 'Long Integer (AutoNumber)' : 'Long Integer' };
    case 'bigint':
      return { type: 'BIGINT', original: 'Large Number' };
    case 'float':
      return { type: 'REAL', original: 'Single' };
    case 'double':
      return { type: 'DOUBLE PRECISION', original: 'Double' };
    case 'numeric':
      return {
        type: `DECIMAL(${column.precision ?? 28}, ${column.scale ?? 0})`,
        original: `Decimal (${column.precision}, ${column.scale})`,
      };
    case 'currency':
      return { type: 'DECIMAL(19, 4)', original: 'Currency' };
    case 'datetime':
      return { type: 'TIMESTAMP(3)', original: 'Date/Time' };
    case 'datetimextended':
      return { type: 'TIMESTAMP(7)', original: 'Date/Time Extended' };
    case 'boolean':
      return { type: 'BOOLEAN', original: 'Yes/No' };
    case 'repid':
      return { type: 'CHAR(38)', original: column.autoUUID ? 'Replication ID (AutoNumber)' : 'Replication ID' };
    case 'binary':
      return { type: `${column.fixedLength ? 'BINARY' : 'VARBINARY'}(${Math.max(1, column.size)})`, original: `Binary (${column.size})` };
    case 'ole':
      return { type: 'BLOB', original: 'OLE Object' };
    case 'complex':
      return { type: 'BLOB', original: 'Attachment' };
  }
}

/** A Date (mdb-reader reads Access's days since 1899-12-30 as UTC) as SIARD timestamp text, milliseconds when there are any. */
export function timestampText(date: Date): string {
  const iso = date.toISOString(); // YYYY-MM-DDThh:mm:ss.sssZ for years 0 to 9999
  return iso.endsWith('.000Z') ? iso.slice(0, 19) : iso.slice(0, 23);
}

const DAY_MS = 86_400_000;
/** 1899-12-30, Access's day 0, in ms since 1970 */
const ACCESS_EPOCH_MS = -25_569 * DAY_MS;

/**
 * The instant Access means by a date/time before 1899-12-30. Access stores days since 1899-12-30
 * as a double whose integer part is the day and whose fractional part, taken without its sign, is
 * the time of day: -1.25 is 1899-12-29 06:00. mdb-reader reads the double as a plain number of
 * days (-1.25: 1899-12-28 18:00); this takes the day toward zero and the time as positive again.
 */
export function accessDate(read: Date): Date {
  const ms = read.getTime() - ACCESS_EPOCH_MS;
  if (ms >= 0) return read;
  const dayPart = Math.trunc(ms / DAY_MS) * DAY_MS;
  return new Date(ACCESS_EPOCH_MS + dayPart + (dayPart - ms));
}

/** mdb-reader's extended date/time "YYYY.MM.DD hh:mm:ss.nnnnnnnnn" as SIARD timestamp text with its 7 digits (100 ns). */
export function extendedTimestampText(text: string): string {
  const m = /^(\d{4})\.(\d{2})\.(\d{2}) (\d{2}:\d{2}:\d{2})\.(\d{7})\d*$/.exec(text);
  if (!m) throw new Error(`unexpected extended date/time "${text}"`);
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}.${m[5]}`;
}

/** One value as the writer takes it (mdb-reader gives strings for exact numbers, Buffers for bytes). */
export function sourceValueOf(value: unknown, column: Column): SourceValue {
  if (value === null || value === undefined) return null;
  switch (column.type) {
    case 'datetime':
      return timestampText(accessDate(value as Date));
    case 'datetimextended':
      return extendedTimestampText(value as string);
    case 'binary':
    case 'ole':
      return value as Buffer;
    case 'repid':
      return `{${(value as string).toUpperCase()}}`; // mdb-reader: lower case, no braces; Access and mdbtools show it so
    default:
      return value as string | number | bigint | boolean;
  }
}
