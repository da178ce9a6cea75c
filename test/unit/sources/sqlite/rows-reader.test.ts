/**
 * Issue 39: a large rowid table's rows are read in a worker thread and handed to the writer as
 * bytes (rows-reader.ts, rows-worker.ts, cell-encoding.ts). Whatever the cells hold, the archive
 * must be the one the rows read on the source's own thread give: the same .siard and fingerprints
 * byte for byte, the same rows (CellTexts.value of every cell), the same errors at the same row,
 * the same rows after a key (a resumed export), and a reader stopped early leaves no thread.
 * The reference is the value path (readerMinRows: Infinity), which the other tests of the SQLite
 * source check against the database itself.
 */
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from '../../../../src/sources/sqlite/driver.js';
import { SqliteSource, type SqliteSourceOptions } from '../../../../src/sources/sqlite/sqlite-source.js';
import { ProvisionalTypesFailed, type KeyedBatch, type SourceValue } from '../../../../src/siard/database-source.js';
import { DirectorySink } from '../../../../src/siard/output-sink.js';
import { writeSiard } from '../../../../src/siard/writer.js';
import { builtOnce, tempDir } from '../../../helpers/tmp.js';

const ROWS = 3_000; // three keyset batches and more
const ON = { readerMinRows: 0 };
const OFF = { readerMinRows: Infinity };

const texts = [
  null,
  '',
  'plain',
  `<&>"' \\ back\\\\slash`,
  'two  spaces',
  'ctl\u0001\u001f\u007f cr\r lf\n tab\t',
  'Zürich 東京 😀',
  '  lead ',
  '\\n not a newline',
];
const reals = [
  null,
  0.25,
  -1.5,
  0.01,
  1e308,
  5e-324,
  -0.0,
  1e21,
  123456789012345680000,
  Infinity,
  -Infinity,
  0.1 + 0.2,
  1099511627775.99,
  7,
];
const ints = [null, 0n, -1n, 2n ** 53n - 1n, 2n ** 53n, -(2n ** 53n) - 1n, 2n ** 63n - 1n, -(2n ** 63n), 42n];
const stamps = [
  null,
  '2024-01-01 10:00:00',
  '2024-02-29 23:59:59.123',
  '0001-01-01 00:00:00',
  '2024-01-01T10:00:00',
  '2023-02-29 10:00:00',
];
const days = [null, '2024-01-31', '2024-02-30', '0001-01-01', '2024-1-1'];

function build(file: string): void {
  const db = new Database(file);
  db.exec(`CREATE TABLE vals (id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, v VARCHAR(40), ts DATETIME, d DATE, n NUMERIC);
           CREATE TABLE apart (a INTEGER, b TEXT);
           CREATE TABLE badtext (id INTEGER PRIMARY KEY, t TEXT);
           CREATE TABLE misfit (id INTEGER PRIMARY KEY, ts DATETIME);`);
  const ins = db.prepare('INSERT INTO vals VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const insApart = db.prepare('INSERT INTO apart (rowid, a, b) VALUES (?, ?, ?)');
  const insBad = db.prepare('INSERT INTO badtext VALUES (?, ?)');
  const insMisfit = db.prepare('INSERT INTO misfit VALUES (?, ?)');
  db.transaction(() => {
    for (let k = 0; k < ROWS; k++) {
      const n = k % 3 === 0 ? BigInt(k) : k % 3 === 1 ? k / 4 : null;
      ins.run(
        k === 0 ? -(2n ** 63n) : k === ROWS - 1 ? 2n ** 63n - 1n : BigInt(k * 7),
        ints[k % ints.length],
        reals[k % reals.length],
        texts[k % texts.length],
        k % 17 === 0 ? null : `name ${k}`,
        stamps[k % stamps.length],
        days[k % days.length],
        n,
      );
      insApart.run(k * 2 + 1, k, k % 5 === 0 ? null : `b ${k}`);
      insMisfit.run(k + 1, k === 2_345 ? '2024-01-01T10:00:00' : '2024-01-01 10:00:00');
    }
    // text that is not valid UTF-8: read as U+FFFD, so the export must stop at that row
    for (let k = 1; k <= 1_500; k++) insBad.run(k, k === 1_234 ? Buffer.from([0x61, 0xff, 0x62]) : `ok ${k}`);
    db.prepare(`UPDATE badtext SET t = CAST(t AS TEXT) WHERE id = 1234`).run();
  })();
  db.close();
}

const file = builtOnce('siard-reader-', 'values.db', build);

/** The export's files (the .siard and fingerprints), as writeSiard writes them from the CLI's source options. */
async function exportFiles(options: SqliteSourceOptions, tables: string[]): Promise<Map<string, Buffer>> {
  const source = SqliteSource.open(file(), { provisionalTypes: true, tableFilter: (name) => tables.includes(name), ...options });
  const out = tempDir('siard-reader-out-');
  const sink = new DirectorySink(out, false);
  try {
    await writeSiard(source, sink, { name: 'D', archivalDate: new Date('2026-01-02T00:00:00Z') });
    await sink.commit();
  } finally {
    await source.close();
  }
  return new Map(readdirSync(out).map((name) => [name, readFileSync(path.join(out, name))]));
}

/** Every batch of `table` as the writer reads it (texts asked for), each cell's value and each row's key. */
async function readCells(options: SqliteSourceOptions, table: string, after?: { key: string; rows: number }) {
  const source = SqliteSource.open(file(), options);
  const rows: SourceValue[][] = [];
  const keys: unknown[] = [];
  let textBatches = 0;
  try {
    await source.catalog();
    for await (const batch of source.rowBatches('main', table, after, { texts: true }) as AsyncIterable<KeyedBatch>) {
      if (batch.texts) textBatches++;
      batch.forEach((row, r) => {
        // (a batch of texts has rows without values: every cell is asked of texts.value)
        rows.push(Array.from({ length: row.length }, (_, c) => (batch.texts?.kinds[c] !== undefined ? batch.texts.value(r, c) : row[c])));
        keys.push(batch.rowKeys?.[r]);
      });
    }
  } finally {
    await source.close();
  }
  return { rows, keys, textBatches };
}

for (const scanBesideMinRows of [Infinity, 0]) {
  const how = scanBesideMinRows === 0 ? 'its cheap scan beside the read' : 'its cheap scan first';
  test(`a table of every kind of cell, ${how}: the same .siard and fingerprints read in the worker thread`, async (t) => {
    const tables = ['vals', 'apart'];
    const reader = await exportFiles({ ...ON, scanBesideMinRows }, tables);
    const here = await exportFiles({ ...OFF, scanBesideMinRows }, tables);
    t.deepEqual([...reader.keys()].sort(), ['D.fingerprints.json', 'D.siard']);
    for (const [name, bytes] of here) t.true(reader.get(name)!.equals(bytes), name);
  });
}

test('every cell given as texts stands for the value the rows read here hold, and each row keeps its rowid as key', async (t) => {
  for (const table of ['vals', 'apart']) {
    const reader = await readCells(ON, table);
    const here = await readCells(OFF, table);
    t.true(reader.textBatches >= 3, `${table}: read as texts in ${reader.textBatches} batches`);
    t.is(here.textBatches, 0);
    t.is(reader.rows.length, ROWS);
    t.deepEqual(reader.rows, here.rows, table);
    t.deepEqual(reader.keys, here.keys, table);
  }
});

test('the rows after a key (a resumed export) are the same read in the worker thread', async (t) => {
  const whole = await readCells(OFF, 'vals');
  const key = String(whole.keys[1_499]);
  const reader = await readCells(ON, 'vals', { key, rows: 1_500 });
  const here = await readCells(OFF, 'vals', { key, rows: 1_500 });
  t.true(reader.textBatches > 0);
  t.is(reader.rows.length, ROWS - 1_500);
  t.deepEqual(reader.rows, here.rows);
  t.deepEqual(reader.keys, whole.keys.slice(1_500));
});

test('text that is not valid UTF-8 stops the export at the same row, with the same message', async (t) => {
  const fail = async (options: SqliteSourceOptions) => {
    const error = await t.throwsAsync(readCells(options, 'badtext'));
    return error?.message;
  };
  const message = await fail(ON);
  t.regex(message ?? '', /row 1234, column "t": the text is not valid UTF-8/);
  t.is(message, await fail(OFF));
});

test('a provisional table whose value does not fit its types fails at the same row and column', async (t) => {
  const fail = async (options: SqliteSourceOptions) => {
    const error = await t.throwsAsync(readCells({ ...options, provisionalTypes: true, scanBesideMinRows: Infinity }, 'misfit'), {
      instanceOf: ProvisionalTypesFailed,
    });
    return error && { row: error.row, column: error.column };
  };
  t.deepEqual(await fail(ON), { row: 2_346, column: 'ts' });
  t.deepEqual(await fail(OFF), { row: 2_346, column: 'ts' });
});

test('a read stopped after its first batch ends the worker thread: the source closes and nothing waits', async (t) => {
  const source = SqliteSource.open(file(), ON);
  await source.catalog();
  let rows = 0;
  for await (const batch of source.rowBatches('main', 'vals', undefined, { texts: true })) {
    rows += batch.length;
    break;
  }
  await source.close();
  t.true(rows > 0 && rows < ROWS);
});
