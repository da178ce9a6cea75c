/**
 * The SQLite database as verify reads it (raw-source.ts): every row of every kind of table, in
 * rowid order, each value as SQLite stores it, whether the rowid is read apart or is a column (an
 * INTEGER PRIMARY KEY, but not INTEGER PRIMARY KEY DESC, which SQLite keeps apart like any key);
 * compared with what SQLite itself returns for `SELECT <columns> ORDER BY rowid`. 450 rows, so that
 * the batches (100 rows first) take several statements, with gaps and rows inserted out of order.
 */
import test from 'ava';
import path from 'node:path';
import { SqliteRawSource } from '../../../../src/sources/sqlite/raw-source.js';
import Database from '../../../../src/sources/sqlite/driver.js';
import { tempDir } from '../../../helpers/tmp.js';

const TABLES: Record<string, string> = {
  alias: 'CREATE TABLE alias (id INTEGER PRIMARY KEY, v TEXT, r REAL)',
  alias_table_key: 'CREATE TABLE alias_table_key (id integer, v TEXT, r REAL, PRIMARY KEY (id))',
  desc_key: 'CREATE TABLE desc_key (id INTEGER PRIMARY KEY DESC, v TEXT, r REAL)',
  int_key: 'CREATE TABLE int_key (id INT PRIMARY KEY, v TEXT, r REAL)',
  text_key: 'CREATE TABLE text_key (v TEXT PRIMARY KEY, id INTEGER, r REAL)',
  no_key: 'CREATE TABLE no_key (id INTEGER, v TEXT, r REAL)',
  without_rowid: 'CREATE TABLE without_rowid (id INTEGER PRIMARY KEY, v TEXT, r REAL) WITHOUT ROWID',
};

const file = path.join(tempDir('siard-ocfl-raw-'), 'raw.db');
const db = new Database(file);
for (const [name, sql] of Object.entries(TABLES)) {
  db.exec(sql);
  const insert = db.prepare(`INSERT INTO ${name} (id, v, r) VALUES (?, ?, ?)`);
  // keys out of order and with gaps, one past 2^53, one negative; a NULL text and a blob
  for (let i = 0; i < 450; i++) {
    const id = i === 7 ? 2n ** 60n + 1n : i === 8 ? -5n : BigInt(((i * 37) % 450) * 3 + 10);
    insert.run(id, i % 9 === 0 ? null : i % 10 === 0 ? Buffer.from([i % 256, 0]) : `v${i}`, i / 4);
  }
  db.exec(`DELETE FROM ${name} WHERE id % 11 = 0`);
}
db.close();

test('every table read in rowid order (key order WITHOUT ROWID), each value as SQLite stores it', async (t) => {
  const reference = new Database(file, { readonly: true });
  const source = SqliteRawSource.open(file);
  try {
    const catalog = await source.catalog();
    t.deepEqual(catalog.schemas[0]!.tables.map((x) => x.name).sort(), Object.keys(TABLES).sort());
    for (const table of Object.keys(TABLES)) {
      const columns = catalog.schemas[0]!.tables.find((x) => x.name === table)!.columns.map((c) => `"${c.name}"`);
      const order = table === 'without_rowid' ? 'id' : 'rowid';
      const want = reference
        .prepare(`SELECT ${columns.join(', ')} FROM ${table} ORDER BY ${order}`)
        .raw(true)
        .safeIntegers(true)
        .all();
      const got: unknown[][] = [];
      let batches = 0;
      for await (const batch of source.rowBatches('main', table)) {
        batches++;
        got.push(...batch);
      }
      t.true(want.length > 350, table);
      t.deepEqual(got, want, table);
      t.true(table === 'without_rowid' || batches >= 2, `${table}: read in ${batches} statements`);
    }
  } finally {
    await source.close();
    reference.close();
  }
});
