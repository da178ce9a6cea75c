/**
 * The ids a complex column's cells store, read by mdb-reader's Table over the definition with the
 * column's type byte set to Long: on attachments.accdb each row's id is the id its flat table's
 * rows carry for the files mdb-reader itself finds in that cell (0, 1 and 3 files); and the
 * numbers kept by id grow as ids come.
 */
import test from 'ava';
import MDBReader, { type Attachment } from 'mdb-reader';
import { complexIdReader, IdNumbers } from '../../../../src/sources/access/complex-ids.js';
import { openDecryptedPages } from '../../../../src/sources/access/decrypted-pages.js';
import { firstDefinitionPages } from '../../../../src/sources/access/keys.js';
import { openPagedFile } from '../../../../src/sources/access/paged-file.js';
import { reference, sharedTest } from '../../../helpers/shared.js';

sharedTest("attachments.accdb: each cell's id is the one its files carry in the flat table", async (t) => {
  const paged = openPagedFile(reference('access-samples/data/V2016/attachments.accdb'));
  try {
    const reader = new MDBReader(paged.buffer);
    const pages = await openDecryptedPages(paged.buffer, undefined);
    const read = complexIdReader(pages, 'Table1', firstDefinitionPages(reader).get('Table1')!, ['Attachments']);
    const ids = read(0, 100).map((r) => r['Attachments']!);
    t.deepEqual(read(1, 1), [{ Attachments: ids[1]! }], 'read from an offset');
    const cells = reader.getTable('Table1').getData({ columns: ['Attachments'] }) as Array<{ Attachments: Attachment[] }>;
    const flat = reader.getTable(reader.getTableNames({ normalTables: false, systemTables: true }).find((n) => n.endsWith('_Field1'))!);
    const flatRows = flat.getData({ columns: ['_Field1', 'FileName'] }) as Array<{ _Field1: number; FileName: string }>;
    t.deepEqual(
      ids.map((id) => flatRows.filter((r) => r._Field1 === id).map((r) => r.FileName)),
      cells.map((c) => c.Attachments.map((a) => a.name)),
    );
    t.deepEqual(
      cells.map((c) => c.Attachments.length),
      [0, 1, 3],
    );
    t.throws(() => complexIdReader(pages, 'Table1', firstDefinitionPages(reader).get('Table1')!, ['Comment']), {
      message: '"Comment" is not a complex column of table "Table1"',
    });
  } finally {
    paged.close();
  }
});

test('numbers by id: 0 for an id not seen, grown past the first block, counted one by one', (t) => {
  const n = new IdNumbers();
  t.is(n.get(5), 0);
  n.set(5, 42);
  n.set(100_000, 7);
  t.is(n.get(5), 42);
  t.is(n.get(100_000), 7);
  t.is(n.next(9), 1);
  t.is(n.next(9), 2);
  t.throws(() => n.set(-1, 1), { message: /complex id -1/ });
});
