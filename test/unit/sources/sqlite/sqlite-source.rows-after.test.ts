/**
 * Issue 38: a rowid table's batches give each row's rowid (KeyedBatch.rowKeys), in rowid order on
 * every path the source reads by (keyset batches, row by row, the cheap scan run beside the read),
 * and the rows after one of those keys (`rowBatches(schema, table, after)`) are exactly the rest
 * of the whole read, value for value: what a resumed export reads after its last cut. A WITHOUT
 * ROWID table gives its primary keys (each cell with its storage class) and is read after one the
 * same way; a table whose rowid a column of that name hides gives no keys.
 */
import test from 'ava';
import path from 'node:path';
import Database from '../../../../src/sources/sqlite/driver.js';
import { SqliteSource, type SqliteSourceOptions } from '../../../../src/sources/sqlite/sqlite-source.js';
import type { RowsAfter, SourceValue } from '../../../../src/siard/database-source.js';
import { tempDir } from '../../../helpers/tmp.js';

const file = path.join(tempDir(), 'after.sqlite');
{
  const db = new Database(file);
  db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n REAL, d DATE);
           CREATE TABLE plain (a INTEGER, b TEXT);
           CREATE TABLE w (k TEXT COLLATE NOCASE, n NUMERIC, v TEXT, PRIMARY KEY (k, n)) WITHOUT ROWID;
           CREATE TABLE odd ("rowid" TEXT, v INTEGER)`);
  db.transaction(() => {
    const ins = db.prepare('INSERT INTO t VALUES (?, ?, ?, ?)');
    // rowids with gaps, negative ones, and values of every length up to 300 characters
    for (let i = 0; i < 6000; i++) ins.run(i * 7 - 20_000, `name ${'é'.repeat(i % 300)} ${i}`, i / 3, i % 5 ? '2024-02-29' : null);
    const plain = db.prepare('INSERT INTO plain VALUES (?, ?)');
    for (let i = 0; i < 3000; i++) plain.run(i, `b${i}`);
    // a composite key of text in a collation (case mixed, accents) and numbers, text and bytes in one
    // NUMERIC column (SQLite orders integers and reals together, then text, then blobs)
    const w = db.prepare('INSERT INTO w VALUES (?, ?, ?)');
    const ks = ['a', 'B', 'c', 'é', 'Z ', "O'q"];
    const ns = [7n, -3n, 2.5, 9007199254740993n, 'x', 'y2', Buffer.from([0, 255]), Buffer.from([1])];
    for (let i = 0; i < 48; i++) w.run(ks[i % 6], ns[Math.floor(i / 6)], `v${i}`);
    const odd = db.prepare('INSERT INTO odd VALUES (?, ?)');
    for (let i = 0; i < 10; i++) odd.run(`r${i}`, i);
  })();
  db.close();
}

async function read(options: SqliteSourceOptions, table: string, after?: RowsAfter) {
  const source = SqliteSource.open(file, options);
  try {
    await source.catalog();
    const rows: SourceValue[][] = [];
    const keys: unknown[] = [];
    let keyed = true;
    for await (const batch of source.rowBatches('main', table, after)) {
      rows.push(...batch);
      if (batch.rowKeys) keys.push(...batch.rowKeys);
      else keyed = false;
    }
    return { rows, keys: keyed ? keys : undefined };
  } finally {
    await source.close();
  }
}

const ways: Array<[string, SqliteSourceOptions]> = [
  ['keyset batches', {}],
  ['row by row', { rowByRow: true }],
  ['provisional types, the cheap scan beside the read', { provisionalTypes: true, scanBesideMinRows: 1000 }],
];

for (const [way, options] of ways) {
  for (const table of ['t', 'plain']) {
    test(`${way}, table ${table}: each row's rowid, in order, and the rows after one of them are the rest`, async (t) => {
      const whole = await read(options, table);
      t.truthy(whole.keys);
      const keys = whole.keys as bigint[];
      t.is(keys.length, whole.rows.length);
      for (let i = 1; i < keys.length; i++) if (!(keys[i - 1]! < keys[i]!)) return t.fail(`rowids out of order at ${i}`);
      for (const at of [0, 999, 1000, Math.floor(keys.length / 2), keys.length - 1]) {
        const rest = await read(options, table, { key: String(keys[at]), rows: at + 1 });
        t.deepEqual(rest.rows, whole.rows.slice(at + 1), `after row ${at}`);
        t.deepEqual(rest.keys, keys.slice(at + 1));
      }
    });
  }
}

for (const [way, options] of ways.slice(0, 2)) {
  test(`${way}: a WITHOUT ROWID table gives its primary keys, in their order, and the rows after each are the rest`, async (t) => {
    const whole = await read(options, 'w');
    t.is(whole.rows.length, 48);
    const keys = (whole.keys ?? []).map(String);
    t.is(keys.length, 48);
    t.deepEqual(whole.rows[0]!.slice(0, 2), ['a', '-3'], 'NOCASE text, then the numbers before text and bytes');
    for (let at = 0; at < keys.length; at++) {
      const journaled = (JSON.parse(JSON.stringify({ key: keys[at] })) as { key: string }).key;
      const rest = await read(options, 'w', { key: journaled, rows: at + 1 });
      t.deepEqual(rest.rows, whole.rows.slice(at + 1), `after row ${at} (${journaled})`);
      t.deepEqual((rest.keys ?? []).map(String), keys.slice(at + 1));
    }
  });
}

test('a table whose rowid is hidden by a column of that name gives no keys, and is not read from one', async (t) => {
  const whole = await read({}, 'odd');
  t.is(whole.rows.length, 10);
  t.is(whole.keys, undefined);
  await t.throwsAsync(read({}, 'odd', { key: '1', rows: 1 }), { message: /no rowid to go on from/ });
});
