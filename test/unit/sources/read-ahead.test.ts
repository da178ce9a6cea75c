/**
 * readAhead (src/sources/read-ahead.ts): the SQLite source reads the next row while the consumer
 * awaits I/O on the current one. Rows come in order and complete; never more than one row ahead;
 * the read of the next row happens while the consumer waits; a consumer that stops early closes
 * the source; a failing read surfaces after the rows before it, in order.
 */
import test from 'ava';
import path from 'node:path';
import Database from '../../../src/sources/sqlite/driver.js';
import { readAhead } from '../../../src/sources/read-ahead.js';
import { SqliteSource } from '../../../src/sources/sqlite/sqlite-source.js';
import { tempDir } from '../../helpers/tmp.js';

/** A synchronous source that records when each row is read and whether it was closed. */
function recordingSource(count: number, failAt?: number) {
  const log: string[] = [];
  let closed = false;
  async function* rows() {
    try {
      for (let i = 1; i <= count; i++) {
        if (i === failAt) throw new Error(`row ${i} cannot be read`);
        log.push(`read ${i}`);
        yield i;
      }
    } finally {
      closed = true;
    }
  }
  return { rows: rows(), log, isClosed: () => closed };
}

test('rows come in order, each read while the consumer awaits the row before, never two ahead', async (t) => {
  const src = recordingSource(5);
  const seen: number[] = [];
  for await (const row of readAhead(src.rows)) {
    src.log.push(`use ${row}`);
    seen.push(row);
    // The consumer awaits I/O: the next row is read meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 5));
    src.log.push(`done ${row}`);
  }
  t.deepEqual(seen, [1, 2, 3, 4, 5]);
  t.deepEqual(src.log, [
    'read 1',
    'use 1',
    'read 2',
    'done 1',
    'use 2',
    'read 3',
    'done 2',
    'use 3',
    'read 4',
    'done 3',
    'use 4',
    'read 5',
    'done 4',
    'use 5',
    'done 5',
  ]);
  t.true(src.isClosed());
});

test('a consumer that stops early closes the source, with no read left running', async (t) => {
  const src = recordingSource(100);
  for await (const row of readAhead(src.rows)) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (row === 3) break;
  }
  t.true(src.isClosed());
  t.deepEqual(src.log, ['read 1', 'read 2', 'read 3', 'read 4']);
});

test('a read that fails surfaces after the rows before it', async (t) => {
  const src = recordingSource(10, 4);
  const seen: number[] = [];
  const err = await t.throwsAsync(async () => {
    for await (const row of readAhead(src.rows)) {
      seen.push(row);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  });
  t.is(err?.message, 'row 4 cannot be read');
  t.deepEqual(seen, [1, 2, 3]);
});

test('the SQLite source through readAhead yields every row and BLOB exactly, and can be read again', async (t) => {
  const file = path.join(tempDir('siard-ocfl-readahead-'), 'db.sqlite');
  const db = new Database(file);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)');
  const insert = db.prepare('INSERT INTO t VALUES (?, ?)');
  const blobs = Array.from({ length: 50 }, (_, i) => Buffer.alloc(1000 + i * 997, i));
  blobs.forEach((b, i) => insert.run(i + 1, b));
  db.close();
  const source = SqliteSource.open(file);
  try {
    await source.catalog();
    for (let pass = 0; pass < 2; pass++) {
      const got: Buffer[] = [];
      for await (const row of source.rows('main', 't')) {
        got.push(Buffer.from(row[1] as Uint8Array));
        await new Promise((resolve) => setImmediate(resolve));
      }
      t.is(got.length, blobs.length);
      got.forEach((b, i) => t.true(b.equals(blobs[i]!), `row ${i + 1}`));
    }
    // Stopping early closes the statement: the connection reads the table again, whole.
    for await (const _ of source.rows('main', 't')) break;
    let n = 0;
    for await (const _ of source.rows('main', 't')) n++;
    t.is(n, blobs.length);
  } finally {
    await source.close();
  }
});
