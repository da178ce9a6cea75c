/**
 * Issue 16: rowid tables are read a batch at a time (`WHERE rowid >= ? ORDER BY rowid LIMIT n`,
 * n from the prescan's longest values) instead of row by row with iterate(). Both ways must give
 * the same rows in the same order, hence the same table XML, on tables holding every value class
 * (NULL, empty and escaped text, non-ASCII, extreme reals and integers, rowids at both ends of the
 * 64-bit range, timestamps, blobs, mixed classes), and a batch must stay under its byte bound.
 */
import test from 'ava';
import Database from '../../../../src/sources/sqlite/driver.js';
import { rowidAliasIndex } from '../../../../src/sources/sqlite/rowid-alias.js';
import { SqliteSource } from '../../../../src/sources/sqlite/sqlite-source.js';
import type { SourceValue } from '../../../../src/siard/database-source.js';
import { tableDataXml, type TableDataStats } from '../../../../src/siard/table-data.js';
import type { LobWriter } from '../../../../src/siard/lob-writer.js';
import { builtOnce } from '../../../helpers/tmp.js';

const BATCH_BYTES = 2 * 1024 * 1024; // sqlite-source.ts
const BATCH_ROWS = 1000;

function build(file: string): void {
  const db = new Database(file);
  db.exec(`CREATE TABLE vals (id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, v VARCHAR(5), ts DATETIME, d DATE, b BLOB, x);
           CREATE TABLE big (id INTEGER PRIMARY KEY, body TEXT, n INTEGER);
           CREATE TABLE many (id INTEGER PRIMARY KEY, name TEXT);
           CREATE TABLE exact (a INTEGER, b TEXT);
           CREATE TABLE top (id INTEGER PRIMARY KEY, b TEXT);
           CREATE TABLE empty (a INTEGER);
           CREATE TABLE descpk (id INTEGER PRIMARY KEY DESC, name TEXT);
           CREATE TABLE midpk (name TEXT, id INTEGER, n INTEGER, PRIMARY KEY (id))`);
  const texts = [
    null,
    '',
    'plain',
    `<&>"' \\ back`,
    'two  spaces',
    'ctl\u0001\u001f\u007f\u0085 cr\r lf\n tab\t',
    'Zürich 東京 😀',
    '  lead',
  ];
  const reals = [
    null,
    0.25,
    -1.5,
    1e308,
    -1.7976931348623157e308,
    5e-324,
    -0.0,
    1e21,
    123456789012345680000,
    Infinity,
    -Infinity,
    0.1 + 0.2,
  ];
  const ints = [null, 0n, -1n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 63n - 1n, -(2n ** 63n)];
  const stamps = [null, '2024-01-01 10:00:00', '2024-02-29 23:59:59.123456', '0001-01-01 00:00:00', '2024-01-01T10:00:00'];
  const rowids = [-(2n ** 63n), -(2n ** 53n), -5n, 0n, 1n, 2n, 1000n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 62n, 2n ** 63n - 2n, 2n ** 63n - 1n];
  const ins = db.prepare('INSERT INTO vals VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const mixed = [null, 1n, 2.5, 'text', Buffer.from([0, 255]), '', Buffer.alloc(0)];
  db.transaction(() => {
    for (let k = 0; k < 60; k++) {
      const id = k < rowids.length ? rowids[k]! : BigInt(k * 7919);
      const v = k === 41 ? 'longer than five' : (texts[k % texts.length] ?? null);
      const d = k % 4 === 0 ? null : `2024-0${1 + (k % 9)}-1${k % 10}`;
      const blob = k % 5 === 0 ? null : Buffer.from(Array.from({ length: k % 7 }, (_, j) => (j * 37 + k) & 255));
      ins.run(
        id,
        ints[k % ints.length],
        reals[k % reals.length],
        texts[(k + 3) % texts.length],
        v,
        stamps[k % stamps.length],
        d,
        blob,
        mixed[k % mixed.length],
      );
    }
  })();
  const insBig = db.prepare('INSERT INTO big VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let k = 1; k <= 40; k++) insBig.run(k * 3, k % 9 === 0 ? 'ä'.repeat(300_000) + k : `small ${k}`, k);
  })();
  const insMany = db.prepare('INSERT INTO many VALUES (?, ?)');
  db.transaction(() => {
    for (let k = 1; k <= 2 * BATCH_ROWS + 7; k++) insMany.run(k, k % 11 === 0 ? null : `row ${k} & co`);
  })();
  const insExact = db.prepare('INSERT INTO exact VALUES (?, ?)');
  db.transaction(() => {
    for (let k = 1; k <= 2 * BATCH_ROWS; k++) insExact.run(k, `r${k}`);
  })();
  const insTop = db.prepare('INSERT INTO top VALUES (?, ?)');
  // a full last batch that ends at the largest rowid
  db.transaction(() => {
    for (let k = BATCH_ROWS - 1; k >= 0; k--) insTop.run(2n ** 63n - 1n - BigInt(k), `t${k}`);
  })();
  // INTEGER PRIMARY KEY DESC is no rowid alias: ids descend while the rowids ascend
  const insDesc = db.prepare('INSERT INTO descpk (id, name) VALUES (?, ?)');
  const insMid = db.prepare('INSERT INTO midpk VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let k = 0; k < 2 * BATCH_ROWS + 3; k++) insDesc.run(10_000 - k * 3, k % 4 === 0 ? null : `d${k}`);
    for (let k = 0; k < 2 * BATCH_ROWS + 3; k++) insMid.run(k % 5 === 0 ? null : `m ${k}`, k * k - 500_000, k % 3 === 0 ? null : k);
  })();
  db.close();
}

const noLobs = {} as LobWriter; // every value here is inline (inlineMax is large)

async function readAll(file: string, table: string, rowByRow: boolean) {
  const source = SqliteSource.open(file, { rowByRow });
  try {
    const catalog = await source.catalog();
    const columns = catalog.schemas[0]!.tables.find((t) => t.name === table)!.columns;
    const batches: SourceValue[][][] = [];
    for await (const batch of source.rowBatches('main', table)) batches.push(batch.map((row) => [...row]));
    const stats: TableDataStats = { rows: 0, lobs: 0, externalLobs: 0, lobBytes: 0, externalColumns: new Set() };
    async function* again() {
      yield* batches;
    }
    let xml = '';
    const ctx = { schemaIndex: 0, tableIndex: 0, tableName: table, folder: 'table0', columns, inlineMax: 1 << 30, lobWriter: noLobs };
    for await (const chunk of tableDataXml(again(), ctx, stats)) xml += chunk;
    return { batches, rows: batches.flat(), xml };
  } finally {
    await source.close();
  }
}

const file = builtOnce('siard-keyset-', 'values.db', build);

for (const table of ['vals', 'big', 'many', 'exact', 'top', 'empty', 'descpk', 'midpk']) {
  test(`table ${table}: batches read by rowid give the rows and table XML of the row-by-row read`, async (t) => {
    const batched = await readAll(file(), table, false);
    const single = await readAll(file(), table, true);
    t.deepEqual(batched.rows, single.rows);
    t.is(batched.xml, single.xml);
    const db = new Database(file(), { readonly: true });
    t.is(batched.rows.length, (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
    db.close();
    for (const batch of batched.batches) {
      const bytes = batch.flat().reduce<number>((sum, v) => sum + (typeof v === 'string' || v instanceof Uint8Array ? v.length : 0), 0);
      t.true(batch.length === 1 || (bytes <= BATCH_BYTES && batch.length <= BATCH_ROWS), `a batch of ${batch.length} rows, ${bytes} B`);
    }
  });
}

test('the first and last rowids of the 64-bit range are read once each, in order', async (t) => {
  const { rows } = await readAll(file(), 'vals', false);
  const db = new Database(file(), { readonly: true });
  const ids = db.prepare('SELECT id FROM vals ORDER BY id').safeIntegers(true).pluck().all();
  db.close();
  t.deepEqual(
    rows.map((r) => r[0]),
    ids,
  );
  t.is(rows[0]![0], -(2n ** 63n));
  t.is(rows[rows.length - 1]![0], 2n ** 63n - 1n);
});

test('a table of long values is read in batches of few rows, a table of short ones in full batches', async (t) => {
  const big = await readAll(file(), 'big', false);
  // 300,002 characters may take 600,004 UTF-16 units: three such rows fit in 2 MiB, four may not
  t.true(
    big.batches.every((b) => b.length <= 3),
    big.batches.map((b) => b.length).join(' '),
  );
  t.is(big.batches.flat().length, 40);
  const many = await readAll(file(), 'many', false);
  t.deepEqual(
    many.batches.map((b) => b.length),
    [BATCH_ROWS, BATCH_ROWS, 7],
  );
});

test('the rowid is taken from an INTEGER PRIMARY KEY (its alias) and selected apart otherwise', (t) => {
  const db = new Database(file(), { readonly: true });
  const alias = (table: string) => {
    const columns = (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string; pk: number }>).filter((c) => c.name);
    const pk = columns.filter((c) => c.pk > 0).map((c) => c.name);
    return rowidAliasIndex(
      db,
      table,
      columns.map((c) => c.name),
      pk,
    );
  };
  t.is(alias('vals'), 0);
  t.is(alias('midpk'), 1);
  t.is(alias('descpk'), -1);
  t.is(alias('exact'), -1);
  db.close();
});

test('rows of a table whose INTEGER PRIMARY KEY is no rowid alias come in rowid order', async (t) => {
  const { rows } = await readAll(file(), 'descpk', false);
  t.is(rows.length, 2 * BATCH_ROWS + 3);
  t.deepEqual(
    rows.slice(0, 3).map((r) => r[0]),
    [10_000n, 9_997n, 9_994n],
  );
});
