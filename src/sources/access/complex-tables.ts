/**
 * A complex column as a table of its own, `<table>_<column>`: one row per value (a multi-valued
 * column) or per attached file (an attachment column), with the parent's row number in export order
 * and the value's place in the cell. An attached file's bytes are a BLOB, so they go through the
 * same LOB segmentation as any; a multi-valued column's values keep their Access type.
 */
import { inflateSync } from 'node:zlib';
import type { SourceTable, SourceValue } from '../../siard/database-source.js';
import type { SiardColumn } from '../../siard/model.js';
import type { ComplexColumn } from './complex-columns.js';
import { accessDate, siardTypeOf, sourceValueOf, timestampText } from './type-mapping.js';

/** The complex types Access makes for a multi-valued column (MSysComplexType_<kind>). */
const MULTI_VALUED = new Set(['UnsignedByte', 'Short', 'Long', 'IEEESingle', 'IEEEDouble', 'GUID', 'Decimal', 'Text']);
const ATTACHMENT = 'Attachment';

/** What Access calls a complex column of this kind. */
export function complexKindName(kind: string): string {
  return kind === ATTACHMENT ? 'attachment column' : MULTI_VALUED.has(kind) ? 'multi-valued column' : 'complex column';
}

/** The name of the table that holds a complex column's values. */
export function complexTableName(table: string, column: string): string {
  return `${table}_${column}`;
}

const KEY_COLUMNS: SiardColumn[] = [
  { name: 'row', type: 'INTEGER', typeOriginal: 'Long Integer', nullable: false },
  { name: 'position', type: 'INTEGER', typeOriginal: 'Long Integer', nullable: false },
];

const ATTACHMENT_COLUMNS: SiardColumn[] = [
  { name: 'FileName', type: 'VARCHAR(255)', typeOriginal: 'Text (255)', nullable: true },
  { name: 'FileType', type: 'VARCHAR(255)', typeOriginal: 'Text (255)', nullable: true },
  { name: 'FileURL', type: 'CLOB', typeOriginal: 'Memo', nullable: true },
  { name: 'FileTimeStamp', type: 'TIMESTAMP(3)', typeOriginal: 'Date/Time', nullable: true },
  { name: 'FileFlags', type: 'INTEGER', typeOriginal: 'Long Integer', nullable: true },
  { name: 'FileData', type: 'BLOB', typeOriginal: 'Attachment', nullable: true },
];

function description(complex: ComplexColumn, parent: string): string {
  const where = `of table "${parent}": one row per`;
  const key = `"row" is the row of "${parent}" in export order (from 1), "position" the place in the cell.`;
  const column = complex.column.name;
  if (complex.kind === ATTACHMENT) return `The files of attachment column "${column}" ${where} file; ${key}`;
  if (MULTI_VALUED.has(complex.kind)) return `The values of multi-valued column "${column}" (${complex.kind}) ${where} value; ${key}`;
  return `The values of complex column "${column}" (Access's complex type ${complex.kind}) ${where} value; ${key}`;
}

/** The table that holds `complex`'s values. */
export function complexTable(name: string, parent: string, complex: ComplexColumn, bytesPerChar: 1 | 2): SourceTable {
  const values =
    complex.kind === ATTACHMENT
      ? ATTACHMENT_COLUMNS
      : complex.values.map((c): SiardColumn => {
          const { type, original } = siardTypeOf(c, bytesPerChar);
          return { name: c.name, type, typeOriginal: original, nullable: c.nullable };
        });
  return {
    name,
    description: description(complex, parent),
    columns: [...KEY_COLUMNS, ...values],
    primaryKey: { name: `${name}_pk`, columns: ['row', 'position'] },
    foreignKeys: [],
    candidateKeys: [],
    rows: 0,
  };
}

/**
 * An attached file's bytes as Access gives them back when it saves the file: the stored value is a
 * type flag (0 as is, 1 deflated) and a length, then the content, which starts with a header of
 * its own length before the file.
 */
export function attachmentFileData(stored: Buffer): Buffer {
  if (stored.length < 8) throw new Error('an attachment shorter than its 8-byte header');
  const flag = stored.readInt32LE(0);
  if (flag !== 0 && flag !== 1) throw new Error(`an attachment stored with the unknown type flag ${flag}`);
  const length = stored.readInt32LE(4);
  const content = flag === 1 ? inflateSync(stored.subarray(8)) : stored.subarray(8);
  const header = content.length >= 4 ? content.readInt32LE(0) : -1;
  const end = Math.min(length, content.length);
  if (header < 4 || header > end) throw new Error(`an attachment whose header length ${header} does not fit in its ${end} bytes`);
  return content.subarray(header, end);
}

/** One row of the values' table from a row of the flat table. */
export function complexRow(complex: ComplexColumn, record: Record<string, unknown>, row: number, position: number): SourceValue[] {
  if (complex.kind !== ATTACHMENT) return [row, position, ...complex.values.map((c) => sourceValueOf(record[c.name], c))];
  const time = record['FileTimeStamp'];
  const data = record['FileData'];
  return [
    row,
    position,
    (record['FileName'] as string | null) ?? null,
    (record['FileType'] as string | null) ?? null,
    (record['FileURL'] as string | null) ?? null,
    time instanceof Date ? timestampText(accessDate(time)) : null,
    (record['FileFlags'] as number | null) ?? null,
    data instanceof Uint8Array ? attachmentFileData(Buffer.from(data.buffer, data.byteOffset, data.byteLength)) : null,
  ];
}
