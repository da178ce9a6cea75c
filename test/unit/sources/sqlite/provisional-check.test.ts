/**
 * Issue 16: the SQLite source may settle a table's types from a cheap scan and check each value as
 * it reads it (provisional types), instead of scanning every value before the export. The archive
 * must be byte for byte the one the full scan gives, whatever the values, and the widened report
 * the same; a table whose check fails late is written again, leaving nothing of the first attempt.
 */
import test from 'ava';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from '../../../../src/sources/sqlite/driver.js';
import { ProvisionalTypesFailed, type DatabaseSource } from '../../../../src/siard/database-source.js';
import { exportToDirectory } from '../../../../src/siard/export-directory.js';
import { openSource } from '../../../../src/sources/open.js';
import { fitCheck, isPlainDate, isPlainTimestamp } from '../../../../src/sources/sqlite/provisional-check.js';
import { SqliteSource } from '../../../../src/sources/sqlite/sqlite-source.js';
import { repetitions } from '../../../helpers/repetitions.js';
import { tempDir } from '../../../helpers/tmp.js';

const work = tempDir('siard-provisional-');
const ARCHIVAL_DATE = new Date('2026-01-02T00:00:00Z');

/** Every YYYY-MM-DD around the calendar's edges (leap years, month and day 0 and past the end). */
function candidateDays(): string[] {
  const out: string[] = [];
  for (const year of ['0000', '0001', '0004', '0100', '1900', '2000', '2023', '2024', '9999'])
    for (let month = 0; month <= 13; month++)
      for (let day = 0; day <= 32; day++) out.push(`${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`);
  return out;
}

test('a plain date or timestamp passes the check exactly when SQLite gives it back unchanged', (t) => {
  const db = new Database(':memory:');
  const date = db.prepare(`SELECT date(@v) IS @v AND @v >= '0001' AS ok`).pluck();
  const timestamp = db.prepare(`SELECT length(@v) = 19 AND datetime(@v) IS @v AND @v >= '0001' AS ok`).pluck();
  const sqliteDate = { get: (v: string) => date.get({ v }) };
  const sqliteTimestamp = { get: (v: string) => timestamp.get({ v }) };
  const days = candidateDays();
  // Ordinary times: accepted exactly as SQLite does. Edge times SQLite may keep (it gives back
  // '24:00:00' unchanged): never accepted here, which only sends such a table to the full scan.
  const ordinary = ['00:00:00', '23:59:59', '12:34:56'];
  const edges = ['24:00:00', '23:60:00', '23:59:60', '12:5:00', '1a:00:00'];
  const wrong: string[] = [];
  let accepted = 0;
  for (const day of days) {
    if (isPlainDate(day) !== (sqliteDate.get(day) === 1)) wrong.push(day);
    for (const time of ordinary) {
      const ts = `${day} ${time}`;
      if (isPlainTimestamp(ts) !== (sqliteTimestamp.get(ts) === 1)) wrong.push(ts);
      if (isPlainTimestamp(ts)) accepted++;
    }
    for (const time of edges) if (isPlainTimestamp(`${day} ${time}`)) wrong.push(`${day} ${time}`);
  }
  t.deepEqual(wrong, []);
  t.true(accepted > 1000 && accepted < days.length * ordinary.length); // both outcomes occur
  // Other forms SQLite may accept are left to the full scan: never accepted here.
  for (const other of ['2024-01-01T10:00:00', '2024-01-01 10:00:00.5', '2024-01-01 10:00', ' 2024-01-01', '2024-01-01 ', '2024/01/01'])
    t.false(isPlainTimestamp(other) || isPlainDate(other), other);
  db.close();
});

test('each check accepts only what the full scan accepts for its kind', (t) => {
  t.true(fitCheck('integer')(5n));
  t.false(fitCheck('integer')(5)); // a real in an INTEGER column
  t.false(fitCheck('double')('5'));
  t.false(fitCheck('decimal')(Infinity));
  t.true(fitCheck('boolean')(1n));
  t.false(fitCheck('boolean')(2n));
  t.false(fitCheck('varchar')(Buffer.from('a')));
  t.false(fitCheck('clob')(7n));
  t.false(fitCheck('blob')('text'));
  t.false(fitCheck('untyped')(null));
  for (const kind of ['integer', 'double', 'decimal', 'boolean', 'varchar', 'clob', 'blob', 'date', 'timestamp'] as const)
    t.true(fitCheck(kind)(null), kind);
});

/**
 * Under an inline limit, the rows whose values go to LOB files (fits.c, 13 to 16 bytes of text, and
 * late_timestamp's timestamps, 19 bytes, once it is a CLOB): every one in the bench, one in ten in the
 * unit tier (the others short text, or NULL), so that the two exports of each inline-limit test write
 * 600 LOB files and not 6,000 or 12,000 (most of this file's time). The tables keep their 3,000 rows,
 * their longest values and the rows they break at.
 */
const LOB_EVERY = repetitions(10, 1);

/**
 * A database whose every table fits its types in its first 3,000 rows; the `late` ones break at row
 * 2,500 or later. With `lobEvery`, only every lobEvery-th row of fits.c and late_timestamp is long.
 */
function buildDatabase(file: string, lobEvery = 1): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.exec(`CREATE TABLE fits (id INTEGER PRIMARY KEY, n INTEGER, f REAL, d DECIMAL(10,2), k BOOLEAN, s VARCHAR(8), c TEXT, b BLOB,
    day DATE, at DATETIME)`);
  const ins = db.prepare('INSERT INTO fits VALUES (?,?,?,?,?,?,?,?,?,?)');
  const late: Array<[string, string, unknown]> = [
    ['late_timestamp', 'DATETIME', '2024-03-01T10:00:00'],
    ['late_date', 'DATE', '2024-02-30'],
    ['late_real_in_integer', 'INTEGER', 2.5],
    ['late_blob_in_varchar', 'VARCHAR(8)', Buffer.from([0xff, 0])],
    ['late_integer_in_text', 'TEXT', 77n],
    ['late_boolean', 'BOOLEAN', 2n],
    ['late_long_varchar', 'VARCHAR(3)', 'abcdefgh'],
    ['late_text_in_blob', 'BLOB', 'text'],
    ['early_text_in_integer', 'INTEGER', 'seven'],
  ];
  db.transaction(() => {
    for (let i = 1; i <= 3000; i++)
      ins.run(
        i,
        i * 3,
        i / 7,
        i / 4,
        i % 2,
        `s${i % 100}`,
        i % lobEvery === 0 ? `text ${i} é €` : `t${i % 10}`,
        Buffer.from([i & 255, 0]),
        '2000-02-29',
        '2024-02-29 23:59:59',
      );
    for (const [name, type, value] of late) {
      const fitting =
        type === 'DATETIME' ? '2024-01-01 00:00:00' : type === 'DATE' ? '2024-01-01' : type === 'BLOB' ? Buffer.from('x') : 1n;
      const good = type.startsWith('VARCHAR') || type === 'TEXT' ? 'ab' : fitting;
      db.exec(`CREATE TABLE ${name} (id INTEGER PRIMARY KEY, v ${type})`);
      const insert = db.prepare(`INSERT INTO ${name} VALUES (?, ?)`);
      const at = name.startsWith('early') ? 2 : 2500;
      for (let i = 1; i <= 3000; i++) insert.run(i, i === at ? value : type !== 'DATETIME' || i % lobEvery === 0 ? good : null);
    }
  })();
  db.close();
}

async function exportWith(source: DatabaseSource, out: string, options: { maxSiardBytes?: number; inlineMax?: number } = {}) {
  try {
    const catalog = await source.catalog();
    const summary = await exportToDirectory(source, out, { name: 'db', archivalDate: ARCHIVAL_DATE, ...options });
    return { summary, widened: (catalog.widened ?? []).map((w) => `${w.table}.${w.column} ${w.exportedAs} row ${w.firstRow}`) };
  } finally {
    await source.close();
  }
}

const siardBytes = (dir: string) =>
  readdirSync(dir)
    .filter((n) => n.startsWith('db.siard'))
    .sort()
    .map((n) => readFileSync(path.join(dir, n)));

for (const [label, options] of [
  ['one .siard', {}],
  ['a segmented SIARD file', { maxSiardBytes: 64 * 1024 }],
  ['an inline limit a value could pass (settled first)', { inlineMax: 16 }],
] as const) {
  test(`provisional types give the full scan's archive and report: ${label}`, async (t) => {
    const dir = path.join(work, label.replace(/\W+/g, '-'));
    const file = path.join(dir, 'db.sqlite');
    buildDatabase(file, 'inlineMax' in options ? LOB_EVERY : 1);
    const full = await exportWith(SqliteSource.open(file), path.join(dir, 'full'), options);
    const inner = await openSource(file);
    const settled: string[] = [];
    const counting: DatabaseSource = {
      description: inner.description,
      catalog: () => inner.catalog(),
      rows: (schema, table) => inner.rows(schema, table),
      rowBatches: (schema, table) => inner.rowBatches!(schema, table),
      settleTable: (schema, table) => {
        settled.push(table);
        return inner.settleTable!(schema, table);
      },
      close: () => inner.close(),
    };
    const provisional = await exportWith(counting, path.join(dir, 'provisional'), options);
    // Taken back: only the tables whose check failed are scanned in full; otherwise every provisional one, first.
    const failing = ['late_timestamp', 'late_date', 'late_real_in_integer', 'late_blob_in_varchar', 'late_boolean', 'late_text_in_blob'];
    const all = ['fits', ...failing.slice(0, 4), 'late_integer_in_text', 'late_boolean', 'late_long_varchar', 'late_text_in_blob'];
    // (with an inline limit of 16 bytes, only late_integer_in_text, whose values are 2 characters, can still be taken back)
    const expected = 'maxSiardBytes' in options ? all : 'inlineMax' in options ? all.filter((n) => n !== 'late_integer_in_text') : failing;
    t.deepEqual(settled, expected);
    t.true(full.widened.length >= 8, full.widened.join('\n'));
    t.deepEqual(provisional.widened, full.widened);
    const [a, b] = [siardBytes(path.join(dir, 'full')), siardBytes(path.join(dir, 'provisional'))];
    t.true(a.length >= 1);
    t.deepEqual(
      b.map((x) => x.toString('base64')),
      a.map((x) => x.toString('base64')),
    );
    t.is(provisional.summary.rows, full.summary.rows);
    // nothing of a taken-back table is left in the scratch folder or beside the archive
    t.deepEqual(
      readdirSync(path.join(dir, 'provisional')).filter((n) => n.startsWith('.')),
      [],
    );
  });
}

// The cheap scan beside the read (scan-beside.ts; every table counts as large here): the same archive and report.
for (const [label, options] of [
  ['one .siard', {}],
  ['an inline limit some text passes', { inlineMax: 12 }],
] as const) {
  test(`the cheap scan run beside the read gives the full scan's archive and report: ${label}`, async (t) => {
    const dir = path.join(work, `beside-${label.replace(/\W+/g, '-')}`);
    const file = path.join(dir, 'db.sqlite');
    buildDatabase(file, 'inlineMax' in options ? LOB_EVERY : 1);
    const full = await exportWith(SqliteSource.open(file), path.join(dir, 'full'), options);
    const inner = SqliteSource.open(file, { provisionalTypes: true, scanBesideMinRows: 1 });
    const settled: string[] = [];
    const counting: DatabaseSource = {
      description: inner.description,
      catalog: () => inner.catalog(),
      rows: (schema, table) => inner.rows(schema, table),
      rowBatches: (schema, table) => inner.rowBatches(schema, table),
      settleTable: (schema, table) => {
        settled.push(table);
        return inner.settleTable(schema, table);
      },
      close: () => inner.close(),
    };
    const beside = await exportWith(counting, path.join(dir, 'beside'), options);
    if (!('inlineMax' in options)) {
      // every table starts provisional: those whose values do not fit are settled, the longer VARCHAR is widened in place
      const failing = ['late_timestamp', 'late_date', 'late_real_in_integer', 'late_blob_in_varchar', 'late_boolean', 'late_text_in_blob'];
      t.deepEqual(settled, [...failing, 'early_text_in_integer']);
    } else {
      // fits.c holds text of 13 to 16 bytes: a LOB file, which a provisional table never writes (which other tables are
      // settled depends on when the scan answers; the archive does not)
      t.true(settled.includes('fits'), settled.join());
      t.true(full.summary.lobs > 0);
    }
    t.deepEqual(beside.widened, full.widened);
    t.deepEqual(
      siardBytes(path.join(dir, 'beside')).map((x) => x.toString('base64')),
      siardBytes(path.join(dir, 'full')).map((x) => x.toString('base64')),
    );
  });
}

test('read beside its cheap scan: a first part in keyset batches, rows one by one until the worker answers, then keysets', async (t) => {
  const file = path.join(work, 'beside-switch.sqlite');
  const db = new Database(file);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, s VARCHAR(4), x TEXT)');
  const ins = db.prepare('INSERT INTO t VALUES (?, ?, ?)');
  const n = 20_000;
  db.transaction(() => {
    // gaps in the rowids, and a VARCHAR(4) longer than declared from row 15,000 on
    for (let i = 1; i <= n; i++) ins.run(i * 3, i < 15_000 ? 'ab' : 'abcdefg', i === 1000 ? 'x'.repeat(30) : `x${i}`);
  })();
  db.close();
  const source = SqliteSource.open(file, { provisionalTypes: true, scanBesideMinRows: 1 });
  try {
    const catalog = await source.catalog();
    const table = catalog.schemas[0]!.tables[0]!;
    t.deepEqual(table.provisional, {}); // nothing known yet: the scan runs when the rows are read
    t.is(table.columns[1]!.type, 'VARCHAR(4)');
    const ids: bigint[] = [];
    let first = true;
    for await (const batch of source.rowBatches('main', 't')) {
      for (const row of batch) ids.push(row[0] as bigint);
      if (first) await new Promise((resolve) => setTimeout(resolve, 1500)); // the worker answers meanwhile
      first = false;
    }
    t.is(ids.length, n);
    t.true(ids.every((id, i) => id === BigInt(3 * (i + 1))));
    t.deepEqual(table.provisional, { longestValueBytes: 4 * 30 }); // row 1,000 (in the first part, scanned here)
    t.is(table.columns[1]!.type, 'VARCHAR(7)'); // widened in place, as the full scan would
    t.deepEqual(
      (catalog.widened ?? []).map((w) => `${w.column} ${w.exportedAs} row ${w.firstRow}`),
      ['s VARCHAR(7) row 15000'],
    );
  } finally {
    await source.close();
  }
});

test('a provisional table is settled by the cheap scan and checked row by row', async (t) => {
  const file = path.join(work, 'checked.sqlite');
  buildDatabase(file);
  const source = SqliteSource.open(file, { provisionalTypes: true });
  try {
    const catalog = await source.catalog();
    const byName = new Map(catalog.schemas[0]!.tables.map((x) => [x.name, x]));
    t.truthy(byName.get('fits')!.provisional);
    t.truthy(byName.get('late_timestamp')!.provisional);
    t.is(byName.get('early_text_in_integer')!.provisional, undefined); // the cheap scan's max() saw the text
    let rows = 0;
    const err = await t.throwsAsync(async () => {
      for await (const batch of source.rowBatches!('main', 'late_timestamp')) rows += batch.length;
    });
    t.true(err instanceof ProvisionalTypesFailed);
    t.true(rows < 2500);
    const settled = await source.settleTable('main', 'late_timestamp');
    t.is(settled.provisional, undefined);
    t.is(settled.columns[1]!.type, 'CLOB');
    t.true((catalog.widened ?? []).some((w) => w.table === 'late_timestamp'));
    let after = 0;
    for await (const batch of source.rowBatches!('main', 'late_timestamp')) after += batch.length;
    t.is(after, 3000);
  } finally {
    await source.close();
  }
});

test('--strict never takes the provisional way (it must refuse before writing)', async (t) => {
  const file = path.join(work, 'strict.sqlite');
  buildDatabase(file);
  const source = await openSource(file, { strict: true });
  try {
    await t.throwsAsync(() => source.catalog(), { message: /Strict export refused/ });
  } finally {
    await source.close();
  }
});

test('a table read beside its cheap scan is settled when the worker finds text in a number column, or the first part does', async (t) => {
  for (const at of [500, 19_000]) {
    const file = path.join(work, `beside-odd-${at}.sqlite`);
    const db = new Database(file);
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER)');
    const ins = db.prepare('INSERT INTO t VALUES (?, ?)');
    db.transaction(() => {
      for (let i = 1; i <= 20_000; i++) ins.run(i, i === at ? 'seven' : i);
    })();
    db.close();
    const source = SqliteSource.open(file, { provisionalTypes: true, scanBesideMinRows: 1 });
    try {
      await source.catalog();
      let rows = 0;
      const err = await t.throwsAsync(async () => {
        for await (const batch of source.rowBatches('main', 't')) rows += batch.length;
      });
      t.true(err instanceof ProvisionalTypesFailed, String(err));
      t.true(rows < at, `${rows} rows before the failure at ${at}`);
      const settled = await source.settleTable('main', 't');
      t.is(settled.columns[1]!.type, 'CLOB');
      let after = 0;
      for await (const batch of source.rowBatches('main', 't')) after += batch.length;
      t.is(after, 20_000);
    } finally {
      await source.close();
    }
  }
});
