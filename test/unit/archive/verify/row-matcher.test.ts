/**
 * RowMatcher over PendingRows: both sides in the same order pair without waiting; in other orders
 * (here reversed) the unmatched rows wait, in memory or, past a limit, in a SQLite file, and the
 * differences found are the same either way: by key and column for a table with a primary key,
 * whole rows with their number of copies for one without.
 */
import test from 'ava';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSpillDriver, PendingRows, type Cells } from '../../../../src/archive/verify/pending-rows.js';
import { RowMatcher } from '../../../../src/archive/verify/row-matcher.js';

const COLUMNS = ['id', 'name', 'n'];

function rows(n: number): Cells[] {
  return Array.from({ length: n }, (_, i) => [String(i + 1), `row ${i + 1}`, i % 3 === 0 ? null : String(i)]);
}

/** Feeds both sides in batches of `batch`, alternating, then ends them. */
function run(archive: Cells[], target: Cells[], key: number[] | undefined, pending: PendingRows, batch = 7): RowMatcher {
  const m = new RowMatcher(COLUMNS, key, pending);
  for (let i = 0; i < Math.max(archive.length, target.length); i += batch) {
    if (i < archive.length) m.add(0, archive.slice(i, i + batch));
    if (i < target.length) m.add(1, target.slice(i, i + batch));
  }
  m.end(0);
  m.end(1);
  m.finish();
  return m;
}

function changed(target: Cells[]): Cells[] {
  const t = target.map((r) => [...r]);
  t[10]![1] = 'renamed'; // id 11
  t.splice(20, 1); // id 21 missing
  t.push(['1000', 'new', '1']); // extra
  return t;
}

test.before(async () => {
  await loadSpillDriver();
});

test('same order: nothing waits; a changed cell, a missing and an extra row named by key', (t) => {
  const pending = new PendingRows();
  const m = run(rows(100), changed(rows(100)), [0], pending);
  t.deepEqual(m.differences.map((d) => [d.key, d.column, d.change]).sort(), [
    [['1000'], null, 'extra'],
    [['11'], 'name', 'changed'],
    [['21'], null, 'missing'],
  ]);
  t.deepEqual(m.counts, { missing: 1, extra: 1, changed: 1, rows: [100, 100] });
  t.false(pending.spilled);
});

test('reversed order, spilled to disk at once: the same differences, and the file is removed', (t) => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-matcher-'));
  try {
    const pending = new PendingRows(1, scratch);
    const m = run(rows(100), changed(rows(100)).reverse(), [0], pending);
    t.true(pending.spilled, 'the unmatched rows went to disk');
    t.deepEqual(m.counts, { missing: 1, extra: 1, changed: 1, rows: [100, 100] });
    t.deepEqual(m.differences.map((d) => [d.key, d.column, d.change]).sort(), [
      [['1000'], null, 'extra'],
      [['11'], 'name', 'changed'],
      [['21'], null, 'missing'],
    ]);
    pending.close();
    t.deepEqual(readdirSync(scratch), []);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('no key: multisets of rows, each copy counted', (t) => {
  const a: Cells[] = [
    ['x', '1'],
    ['x', '1'],
    ['y', null],
    ['z', '2'],
  ];
  const b: Cells[] = [
    ['z', '2'],
    ['x', '1'],
    ['y', null],
    ['y', null],
    ['x', '1'],
    ['x', '1'],
  ];
  for (const limit of [64 * 1024 * 1024, 1]) {
    const pending = new PendingRows(limit);
    const m = run(a, b, undefined, pending, 2);
    t.deepEqual(m.counts, { missing: 0, extra: 2, changed: 0, rows: [4, 6] });
    t.deepEqual(m.differences.map((d) => [d.key, d.change]).sort(), [
      [['x', '1'], 'extra'],
      [['y', null], 'extra'],
    ]);
    pending.close();
  }
});

test('a side that gives nothing: every row of the other is missing, and the first 100 are listed', (t) => {
  const pending = new PendingRows();
  const m = run(rows(250), [], [0], pending);
  t.is(m.counts.missing, 250);
  t.is(m.differences.length, 100);
});

test('the row listener sees each difference whole: a changed row once with its columns, rows one side lacks', (t) => {
  const seen: Array<[string, Cells, readonly number[]?]> = [];
  const pending = new PendingRows();
  const m = new RowMatcher(COLUMNS, [0], pending, 0, (change, cells, columns) =>
    seen.push(columns ? [change, cells, columns] : [change, cells]),
  );
  const b = changed(rows(30));
  b[4] = ['5', 'other', 'x'];
  m.add(0, rows(30));
  m.add(1, b);
  m.end(0);
  m.end(1);
  m.finish();
  t.deepEqual(m.differences, [], 'limit 0: nothing kept');
  t.deepEqual(seen.map(([change, cells, columns]) => [change, cells[0], columns]).sort(), [
    ['changed', '11', [1]],
    ['changed', '5', [1, 2]],
    ['extra', '1000', undefined],
    ['missing', '21', undefined],
  ]);
});

test('once a side has ended, rows of the other are differences at once: nothing waits', (t) => {
  const pending = new PendingRows();
  const m = new RowMatcher(COLUMNS, [0], pending);
  m.end(0);
  m.add(1, rows(50));
  t.is(pending.size, 0);
  t.is(m.counts.extra, 50);
});

test('rows one side lacks put the sides out of step only once: only rows without a partner wait', (t) => {
  // two versions in key order: every 50th row deleted, a new row after every 70th (as diff's bench changes them)
  const a = rows(5000);
  const b: Cells[] = [];
  for (const r of a) {
    const id = Number(r[0]);
    if (id % 50 !== 7) b.push(id % 10 === 3 ? [r[0], 'changed', r[2]!] : r);
    if (id % 70 === 0) b.push([String(100000 + id), 'new', null]);
  }
  for (const key of [[0], undefined]) {
    const pending = new PendingRows();
    const m = new RowMatcher(COLUMNS, key, pending);
    let most = 0;
    for (let i = 0; i < a.length; i += 64) {
      m.add(0, a.slice(i, i + 64));
      m.add(1, b.slice(i, i + 64));
      // rows without a partner so far: deleted, new, and without a key the changed rows of both sides
      const read = a.slice(0, i + 64).map((r) => Number(r[0]));
      const alone =
        read.filter((id) => id % 50 === 7).length +
        Math.ceil((i + 64) / 70) +
        (key ? 0 : 2 * read.filter((id) => id % 10 === 3 && id % 50 !== 7).length);
      most = Math.max(most, pending.size - alone);
    }
    m.add(1, b.slice(a.length));
    m.end(0);
    m.end(1);
    m.finish();
    t.true(most <= 2, `${key ? 'key' : 'no key'}: ${most} rows waited besides the rows without a partner`);
    const changedRows = a.filter((r) => Number(r[0]) % 10 === 3 && Number(r[0]) % 50 !== 7).length;
    t.deepEqual(m.counts, {
      missing: 100 + (key ? 0 : changedRows),
      extra: Math.floor(5000 / 70) + (key ? 0 : changedRows),
      changed: key ? changedRows : 0,
      rows: [5000, b.length],
    });
    pending.close();
  }
});
