/** Acceptance 7 of issue 4: the SIARD 2.2 final layout (`[db]_lobs/sI_tJ_cK/seg_S/tJ_cK_rL.bin`, `_partNNN`). */
import Database from '../../src/sources/sqlite/driver.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { exportToDirectory } from '../../src/siard/export-directory.js';
import { SqliteSource } from '../../src/sources/sqlite/sqlite-source.js';
import { BIG_BLOB_BYTES, buildNorthwind, CATEGORIES, seededBytes } from '../../fixtures/northwind.js';
import { reference, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';
import { assertArchiveValid, digestOf, metadataTables, readTableXml, unzipEntry } from '../helpers/export-support.js';

const work = tempDir('siard-export-siard22-');

sharedTest(
  'acceptance 7: --lob-layout siard22 gives Northwind_lobs/s0_t2_c4/seg_0/t2_c4_r1.bin ... with lobFolders and _part001 splitting',
  async (t) => {
    const db = path.join(work, 'northwind.db');
    buildNorthwind(db);
    const out = path.join(work, 'out');
    const source = SqliteSource.open(db);
    const maxBytes = 45000;
    try {
      await exportToDirectory(source, out, { name: 'Northwind', lobLayout: 'siard22', maxFiles: 4, maxBytes });
    } finally {
      await source.close();
    }
    const col = path.join(out, 'Northwind_lobs', 's0_t2_c4');
    t.deepEqual(readdirSync(col).sort(), ['seg_0', 'seg_1', 'seg_2']);
    t.deepEqual(readdirSync(path.join(col, 'seg_0')).sort(), ['t2_c4_r1.bin', 't2_c4_r2.bin', 't2_c4_r3.bin', 't2_c4_r4.bin']);
    t.deepEqual(readdirSync(path.join(col, 'seg_1')).sort(), ['t2_c4_r5.bin', 't2_c4_r6.bin', 't2_c4_r7.bin']);
    t.deepEqual(readdirSync(path.join(col, 'seg_2')).sort(), ['t2_c4_r8.bin']);
    t.false(existsSync(path.join(out, 'Northwind_lobseg_0')));

    const siard = path.join(out, 'Northwind.siard');
    assertArchiveValid(t, siard, reference('siard', 'metadata.xsd'));
    const metaXml = unzipEntry(siard, 'header/metadata.xml').toString('utf8');
    t.regex(metaXml, /<lobFolder>\.\.\/Northwind_lobs\/<\/lobFolder>/, 'database-level lobFolder points at the _lobs folder');
    const tables = metadataTables(metaXml);
    t.is(tables[2]!.columns[3]!.lobFolder, 's0_t2_c4/');
    t.is(tables[4]!.columns[6]!.lobFolder, 's0_t4_c7/');

    const rows = readTableXml(unzipEntry(siard, 'content/schema0/table2/table2.xml').toString('utf8'));
    const segOf = [0, 0, 0, 0, 1, 1, 1, 2];
    rows.forEach((row, n) => {
      const c4 = row.get(4)!;
      t.is(c4.attrs.file, `seg_${segOf[n]}/t2_c4_r${n + 1}.bin`);
      t.is(c4.attrs.length, String(CATEGORIES[n]![3]));
      // database lobFolder (../ = beside the .siard) + column lobFolder + file
      const bytes = readFileSync(path.join(out, 'Northwind_lobs', 's0_t2_c4', c4.attrs.file!));
      t.is(c4.attrs.digest, digestOf('sha256', bytes));
      t.true(bytes.equals(seededBytes(1000 + n + 1, Number(CATEGORIES[n]![3]))));
    });

    // The 5 MiB photo (Employees row 2, column 7) is split into parts of max-bytes each.
    const photoCol = path.join(out, 'Northwind_lobs', 's0_t4_c7');
    const partCount = Math.ceil(BIG_BLOB_BYTES / maxBytes);
    const parts: Buffer[] = [];
    for (let p = 1; p <= partCount; p++) {
      const file = path.join(photoCol, `seg_${p - 1}`, `t4_c7_r2.bin_part${String(p).padStart(3, '0')}`);
      t.true(existsSync(file), `part ${p} in seg_${p - 1}`);
      parts.push(readFileSync(file));
    }
    const big = seededBytes(2002, BIG_BLOB_BYTES);
    t.true(Buffer.concat(parts).equals(big), 'the parts join to the LOB');
    const employees = readTableXml(unzipEntry(siard, 'content/schema0/table4/table4.xml').toString('utf8'));
    const cell = employees[1]!.get(7)!;
    t.is(cell.attrs.file, 'seg_0/t4_c7_r2.bin');
    t.is(cell.attrs.length, String(BIG_BLOB_BYTES));
    t.is(cell.attrs.digest, digestOf('sha256', big));
    // The next LOB of the column continues in the folder of the last part.
    t.is(employees[5]!.get(7)!.attrs.file, `seg_${partCount - 1}/t4_c7_r6.bin`);
    const conn = new Database(db, { readonly: true });
    const photo6 = conn.prepare('SELECT Photo FROM Employees WHERE EmployeeID = 6').pluck().get() as Buffer;
    conn.close();
    t.true(readFileSync(path.join(photoCol, `seg_${partCount - 1}`, 't4_c7_r6.bin')).equals(photo6));
  },
);
