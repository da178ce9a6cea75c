/**
 * Issue 16: the SQLite prescan of a large rowid table runs in two halves, one in a worker thread
 * (src/sources/sqlite/split-scan.ts). The catalogue must not depend on it: the same rows in a
 * rollback-journal database (split) and in a WAL database (scanned whole, as WAL could give the
 * worker another snapshot) give the same row count, types, widenings and first rows, with the
 * values that decide them in the upper half only, the lower half only, and across both.
 */
import test from 'ava';
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import Database from '../../../../src/sources/sqlite/driver.js';
import { SqliteSource } from '../../../../src/sources/sqlite/sqlite-source.js';
import { tempDir } from '../../../helpers/tmp.js';

const ROWS = 240_000;

function build(file: string): void {
  const db = new Database(file);
  db.exec(`CREATE TABLE big (id INTEGER PRIMARY KEY, name VARCHAR(10), at DATETIME, n INTEGER, flag BOOLEAN, x);
           CREATE TABLE small (id INTEGER PRIMARY KEY, at DATETIME)`);
  const insert = db.prepare('INSERT INTO big VALUES (?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= ROWS; i++) {
      insert.run(
        i,
        i === 200_001 ? 'a name longer than ten' : `n${i % 1000}`, // upper half: VARCHAR widened
        i === 50_000 ? '2024-02-30 00:00:00' : '2024-01-01 10:00:00', // lower half: not a date
        i === 230_000 ? 'n/a' : i, // upper half: text in an INTEGER column
        i % 2,
        i === 7 ? 'text' : i === 239_999 ? Buffer.from([1]) : i, // both halves: mixed classes
      );
    }
  })();
  db.prepare("INSERT INTO small VALUES (1, 'yesterday')").run();
  db.close();
}

async function catalogOf(file: string) {
  const source = SqliteSource.open(file);
  try {
    const catalog = await source.catalog();
    return {
      tables: catalog.schemas[0]!.tables.map((t) => ({ name: t.name, rows: t.rows, types: t.columns.map((c) => c.type) })),
      widened: catalog.widened,
    };
  } finally {
    await source.close();
  }
}

test('a split prescan decides as a whole one: row count, types, widened columns and their first rows', async (t) => {
  const dir = tempDir('siard-split-prescan-');
  const split = path.join(dir, 'rollback.db');
  build(split);
  const whole = path.join(dir, 'wal.db');
  copyFileSync(split, whole);
  const wal = new Database(whole);
  t.is(wal.pragma('journal_mode = WAL', { simple: true }), 'wal');
  wal.close();

  const a = await catalogOf(split);
  const b = await catalogOf(whole);
  t.deepEqual(a, b);
  t.is(a.tables[0]!.rows, ROWS);
  const widened = new Map(a.widened!.filter((w) => w.table === 'big').map((w) => [w.column, w]));
  t.is(widened.get('name')?.firstRow, 200_001);
  t.is(widened.get('name')?.exportedAs, 'VARCHAR(22)');
  t.is(widened.get('at')?.firstRow, 50_000);
  t.is(widened.get('n')?.firstRow, 230_000);
  t.is(widened.get('x')?.firstRow, 7);
  t.false(widened.has('flag'));
  t.true(a.widened!.some((w) => w.table === 'small'));
});
