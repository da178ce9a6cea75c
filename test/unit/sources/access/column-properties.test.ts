/**
 * Property values (MSysObjects' LvProp) built byte by byte as mdbtools' props.c reads them: the
 * name pool, the table's block and a column's, with text, boolean and numeric values; a calculated
 * column's Expression goes into its description beside its Description. The real database's
 * descriptions are compared with mdb-prop in test/integration/access-samples.test.ts.
 */
import test from 'ava';
import { columnDescription, parseProperties } from '../../../../src/sources/access/column-properties.js';

const u16 = (n: number) => Buffer.from(new Uint16Array([n]).buffer);
const u32 = (n: number) => Buffer.from(new Uint32Array([n]).buffer);
const text = (s: string, jet3: boolean) => (jet3 ? Buffer.from(s, 'latin1') : Buffer.from(s, 'utf16le'));

function chunk(type: number, body: Buffer): Buffer {
  return Buffer.concat([u32(body.length + 6), u16(type), body]);
}

/** An entry: length, flag byte, value type, name index, value length, value. */
function entry(type: number, index: number, value: Buffer): Buffer {
  return Buffer.concat([u16(value.length + 8), Buffer.from([0, type]), u16(index), u16(value.length), value]);
}

function blob(jet3: boolean): Buffer {
  const pool = ['Description', 'Expression', 'Required', 'ColumnWidth', 'DefaultView'];
  const names = Buffer.concat(pool.map((n) => Buffer.concat([u16(text(n, jet3).length), text(n, jet3)])));
  const blockOf = (name: string, entries: Buffer[]) => {
    const body = Buffer.concat([u16(text(name, jet3).length), text(name, jet3), ...entries]);
    return Buffer.concat([u32(body.length + 4), body]);
  };
  return Buffer.concat([
    Buffer.from(jet3 ? 'KKD\0' : 'MR2\0', 'latin1'),
    chunk(0x80, names),
    chunk(0x00, blockOf('', [entry(0x03, 4, u16(2))])),
    chunk(
      0x01,
      blockOf('Total', [
        entry(0x0a, 0, text('Price with tax', jet3)),
        entry(0x0c, 1, text('[Price]*1.2', jet3)),
        entry(0x01, 2, Buffer.from([1])),
        entry(0x04, 3, u32(1440)),
      ]),
    ),
  ]);
}

for (const jet3 of [true, false]) {
  test(`${jet3 ? 'KKD (Jet 3)' : 'MR2'}: the table's block and a column's, every value by its type`, (t) => {
    const blocks = parseProperties(blob(jet3), jet3);
    t.deepEqual([...blocks.keys()], ['', 'Total']);
    t.deepEqual(blocks.get('')!.get('DefaultView'), 2);
    t.deepEqual(
      [...blocks.get('Total')!],
      [
        ['Description', 'Price with tax'],
        ['Expression', '[Price]*1.2'],
        ['Required', true],
        ['ColumnWidth', 1440],
      ],
    );
  });
}

test("a column's description: its Description, and a calculated column's expression after it", (t) => {
  const blocks = parseProperties(blob(false), false);
  t.is(columnDescription(blocks.get('Total')), 'Price with tax Calculated column: [Price]*1.2');
  t.is(columnDescription(new Map([['Expression', '[A]+[B]']])), 'Calculated column: [A]+[B]');
  t.is(columnDescription(new Map([['Description', '']])), undefined);
  t.is(columnDescription(undefined), undefined);
  t.throws(() => parseProperties(Buffer.from('XYZ\0'), false), { message: /neither KKD nor MR2/ });
});
