/**
 * A complex column's table: a multi-valued column's values keep their Access type (each complex
 * type Access makes for one: UnsignedByte, Short, Long, IEEESingle, IEEEDouble, GUID, Decimal,
 * Text); an attachment's stored bytes, laid out as Access stores them (a type flag, 0 as is or 1
 * deflated, the length, then a header of its own length before the file), decoded to the file.
 */
import test from 'ava';
import type { Column } from 'mdb-reader';
import { deflateSync } from 'node:zlib';
import type { ComplexColumn } from '../../../../src/sources/access/complex-columns.js';
import { attachmentFileData, complexKindName, complexRow, complexTable } from '../../../../src/sources/access/complex-tables.js';

const column = (name: string, type: Column['type'], extra: Partial<Column> = {}): Column => ({
  name,
  type,
  size: 4,
  fixedLength: true,
  nullable: true,
  autoLong: false,
  autoUUID: false,
  ...extra,
});

const multiValued = (kind: string, value: Column): ComplexColumn => ({
  column: column('Colours', 'complex'),
  kind,
  flatTable: 'f_X_Colours',
  foreignKey: '_Colours',
  values: [value],
});

/** Access's stored form of an attachment: flag, length, then (deflated or not) a header of `header` bytes and the file. */
function stored(file: Buffer, deflated: boolean, header = 20): Buffer {
  const head = Buffer.alloc(header);
  head.writeInt32LE(header, 0);
  const content = Buffer.concat([head, file]);
  const prefix = Buffer.alloc(8);
  prefix.writeInt32LE(deflated ? 1 : 0, 0);
  prefix.writeInt32LE(content.length, 4);
  return Buffer.concat([prefix, deflated ? deflateSync(content) : content]);
}

test('a multi-valued column of each complex type Access makes: row, position and the values typed as the column', (t) => {
  const cases: Array<[string, Column, string]> = [
    ['UnsignedByte', column('Value', 'byte', { size: 1 }), 'SMALLINT'],
    ['Short', column('Value', 'integer', { size: 2 }), 'SMALLINT'],
    ['Long', column('Value', 'long'), 'INTEGER'],
    ['IEEESingle', column('Value', 'float'), 'REAL'],
    ['IEEEDouble', column('Value', 'double', { size: 8 }), 'DOUBLE PRECISION'],
    ['GUID', column('Value', 'repid', { size: 16 }), 'CHAR(38)'],
    ['Decimal', column('Value', 'numeric', { size: 17, precision: 18, scale: 2 }), 'DECIMAL(18, 2)'],
    ['Text', column('Value', 'text', { size: 510, fixedLength: false }), 'VARCHAR(255)'],
  ];
  for (const [kind, value, type] of cases) {
    const table = complexTable('T_Colours', 'T', multiValued(kind, value), 2);
    t.deepEqual(
      table.columns.map((c) => [c.name, c.type, c.nullable]),
      [
        ['row', 'INTEGER', false],
        ['position', 'INTEGER', false],
        ['Value', type, true],
      ],
      kind,
    );
    t.deepEqual(table.primaryKey, { name: 'T_Colours_pk', columns: ['row', 'position'] });
    t.regex(table.description!, new RegExp(`^The values of multi-valued column "Colours" \\(${kind}\\) of table "T"`));
    t.is(complexKindName(kind), 'multi-valued column');
  }
  t.is(complexKindName('Attachment'), 'attachment column');
  t.is(complexKindName('VersionHistory'), 'complex column');
});

test('a multi-valued row: parent row, position, the value as the SIARD writer takes it', (t) => {
  const guid = multiValued('GUID', column('Value', 'repid', { size: 16 }));
  t.deepEqual(complexRow(guid, { _Colours: 7, Value: '6f9619ff-8b86-d011-b42d-00c04fc964ff' }, 3, 2), [
    3,
    2,
    '{6F9619FF-8B86-D011-B42D-00C04FC964FF}',
  ]);
  const decimal = multiValued('Decimal', column('Value', 'numeric', { precision: 18, scale: 2 }));
  t.deepEqual(complexRow(decimal, { _Colours: 7, Value: '-12345678901234.56' }, 1, 1), [1, 1, '-12345678901234.56']);
  t.deepEqual(complexRow(decimal, { _Colours: 7, Value: null }, 1, 2), [1, 2, null]);
});

test("an attachment's stored bytes, deflated or not, decode to the file; a bad flag or header is an error", (t) => {
  const file = Buffer.from('%PDF-1.7 a file of some length, repeated repeated repeated');
  t.deepEqual(attachmentFileData(stored(file, true)), file);
  t.deepEqual(attachmentFileData(stored(file, false, 4)), file);
  const bad = stored(file, false);
  bad.writeInt32LE(2, 0);
  t.throws(() => attachmentFileData(bad), { message: /unknown type flag 2/ });
  const short = stored(file, false, 4);
  short.writeInt32LE(2, 8); // a header shorter than its own length field
  t.throws(() => attachmentFileData(short), { message: /header length 2/ });
  t.throws(() => attachmentFileData(Buffer.alloc(4)), { message: /shorter than its 8-byte header/ });
});

test('an attachment row: name, type, link, time (Access days), flags and the decoded file', (t) => {
  const attachment: ComplexColumn = { ...multiValued('Attachment', column('FileData', 'ole')), values: [] };
  const file = Buffer.from('hello');
  const row = complexRow(
    attachment,
    {
      FileName: 'a.txt',
      FileType: 'txt',
      FileURL: null,
      FileTimeStamp: new Date('2024-02-29T13:14:15.250Z'),
      FileFlags: 0,
      FileData: stored(file, true),
    },
    4,
    1,
  );
  t.deepEqual(row, [4, 1, 'a.txt', 'txt', null, '2024-02-29T13:14:15.250', 0, file]);
});
