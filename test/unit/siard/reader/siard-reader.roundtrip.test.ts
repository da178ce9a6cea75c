/**
 * Our exports read by the project's own SIARD reader (src/siard/reader): every LOB cell resolves
 * through the lobFolder levels to a file whose length and digest match, for both layouts.
 * (The acceptance tests use an independent reader; this checks writer and reader agree.)
 */
import test from 'ava';
import path from 'node:path';
import { exportToDirectory } from '../../../../src/siard/export-directory.js';
import { openLob } from '../../../../src/siard/reader/lob-open.js';
import { SiardReader } from '../../../../src/siard/reader/siard-reader.js';
import { verifyLob } from '../../../../src/siard/reader/verify-lob.js';
import { SqliteSource } from '../../../../src/sources/sqlite/sqlite-source.js';
import { buildNorthwind } from '../../../../fixtures/northwind.js';
import { tempDir } from '../../../helpers/tmp.js';

const work = tempDir('siard-export-reader-');
const db = path.join(work, 'northwind.db');
buildNorthwind(db);

for (const layout of ['lobseg', 'siard22'] as const) {
  test(`the SIARD reader resolves and verifies every LOB of a ${layout} export`, async (t) => {
    const out = path.join(work, layout);
    const source = SqliteSource.open(db);
    const summary = await exportToDirectory(source, out, { name: 'Northwind', lobLayout: layout, maxFiles: 4, maxBytes: 45000 });
    await source.close();
    const reader = await SiardReader.open(path.join(out, 'Northwind.siard'));
    let cells = 0;
    try {
      for (const table of reader.tables()) {
        for await (const cell of reader.lobCells(table)) {
          cells++;
          const v = await verifyLob(await openLob(reader, cell), cell.ref, { family: cell.family });
          t.true(v.ok, `${table.table.name} ${JSON.stringify(cell.ref)}: ${JSON.stringify(v)}`);
        }
      }
    } finally {
      await (reader as unknown as { close?: () => Promise<void> }).close?.();
    }
    t.is(cells, summary.lobs);
  });
}
