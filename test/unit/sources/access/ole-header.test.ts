/**
 * The header Access writes before an OLE object, built byte by byte as its layout is (signature
 * 0x1C15, header size, object type, the name's and class's lengths and offsets, ANSI strings
 * ending in 0): the class and name found, a column's first objects counted by class; bytes that
 * are no such header said so. No sample has an OLE object.
 */
import test from 'ava';
import { oleDescription, oleHeader } from '../../../../src/sources/access/ole-header.js';

/** Access's OLE header for an object `name` of class `className`, then the OLE 1.0 stream (here a stand-in). */
function oleCell(name: string, className: string): Buffer {
  const strings = Buffer.from(`${name}\0${className}\0`, 'latin1');
  const head = Buffer.alloc(20);
  head.writeUInt16LE(0x1c15, 0);
  head.writeUInt16LE(20 + strings.length, 2);
  head.writeUInt32LE(2, 4); // embedded
  head.writeUInt16LE(name.length + 1, 8);
  head.writeUInt16LE(className.length + 1, 10);
  head.writeUInt16LE(20, 12);
  head.writeUInt16LE(20 + name.length + 1, 14);
  head.writeInt32LE(-1, 16);
  return Buffer.concat([head, strings, Buffer.from([0x01, 0x05, 0, 0, 0x02, 0, 0, 0])]);
}

test("an OLE object's name and class from Access's header", (t) => {
  t.deepEqual(oleHeader(oleCell('Package', 'Package')), { name: 'Package', className: 'Package' });
  t.deepEqual(oleHeader(oleCell('Bitmap Image', 'PBrush')), { name: 'Bitmap Image', className: 'PBrush' });
  t.is(oleHeader(Buffer.from('%PDF-1.7 not an OLE header at all')), undefined);
  const cut = oleCell('Bitmap Image', 'PBrush').subarray(0, 24);
  t.is(oleHeader(cut), undefined, 'a header longer than the bytes');
});

test("a column's first objects counted by class; cells without a header counted too; none: no description", (t) => {
  const cells = [
    oleCell('Bitmap Image', 'PBrush'),
    null,
    oleCell('Package', 'Package'),
    oleCell('Bitmap Image', 'PBrush'),
    Buffer.from('raw'),
  ];
  t.is(
    oleDescription(cells),
    'OLE objects, by class in the first 4 of its objects (within its first 100 rows): ' +
      'PBrush (Bitmap Image): 2, Package: 1, no OLE header: 1.',
  );
  t.is(oleDescription([null, null]), undefined);
});
