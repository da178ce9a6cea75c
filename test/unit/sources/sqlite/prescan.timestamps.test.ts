/**
 * Issue 16: the SQLite prescan takes a cheaper path for timestamps (a 19-character value that
 * datetime() gives back unchanged fits at once). That shortcut must decide exactly as the full test
 * it skips: each value below, alone in a DATETIME column (NUMERIC affinity, with and without
 * COLLATE NOCASE), widens the column to CLOB exactly when the full test, evaluated by SQLite
 * itself on the same value, says it does not fit.
 */
import test from 'ava';
import path from 'node:path';
import Database from '../../../../src/sources/sqlite/driver.js';
import { SqliteSource } from '../../../../src/sources/sqlite/sqlite-source.js';
import { tempDir } from '../../../helpers/tmp.js';

/** The full timestamp test, as the prescan wrote it before the shortcut: 1 when the value does not fit. */
function fullMisfit(c: string): string {
  const glob = "'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]*'";
  return (
    `NOT (typeof(${c}) = 'null' OR (typeof(${c}) = 'text' AND ${c} GLOB ${glob} AND ${c} >= '0001'` +
    ` AND strftime('%Y-%m-%d %H:%M:%S', ${c}) IS substr(${c}, 1, 19)` +
    ` AND (length(${c}) = 19 OR (substr(${c}, 20, 1) = '.' AND length(${c}) > 20 AND NOT substr(${c}, 21) GLOB '*[^0-9]*'))))`
  );
}

const VALUES: unknown[] = [
  '2024-01-02 03:04:05',
  '2024-02-29 12:00:00',
  '2023-02-29 12:00:00',
  '2024-02-30 00:00:00',
  '2024-04-31 00:00:00',
  '2024-13-01 00:00:00',
  '2024-00-10 00:00:00',
  '2024-01-00 00:00:00',
  '2024-01-01 24:00:00',
  '2024-01-01 23:60:00',
  '2024-01-01 23:59:60',
  '2024-01-01 23:59:59.999',
  '2024-01-01 23:59:59.',
  '2024-01-01 23:59:59.12a',
  '2024-01-01T03:04:05',
  '2024-01-01 03:04:05Z',
  '2024-01-01 03:04:05+02:00',
  '2024-01-01 03:04',
  '2024-1-01 03:04:05',
  ' 2024-01-01 03:04:05',
  '2024-01-01 03:04:05 ',
  '0000-01-01 00:00:00',
  '0001-01-01 00:00:00',
  '-0001-01-01 00:00:00',
  '9999-12-31 23:59:59',
  '10000-01-01 00:00:00',
  'now',
  '2460000.5',
  '',
  12345,
  2460000.5,
  Buffer.from('2024-01-02 03:04:05'),
  null,
];

for (const declared of ['DATETIME', 'TIMESTAMP COLLATE NOCASE']) {
  test(`the timestamp shortcut decides as the full test, column ${declared}`, async (t) => {
    const file = path.join(tempDir('siard-ts-prescan-'), 'ts.db');
    const db = new Database(file);
    VALUES.forEach((v, i) => {
      db.exec(`CREATE TABLE t${i} (id INTEGER PRIMARY KEY, ts ${declared})`);
      db.prepare(`INSERT INTO t${i} (ts) VALUES (?)`).run(v);
      db.prepare(`INSERT INTO t${i} (ts) VALUES ('2024-05-06 07:08:09')`).run();
    });
    const expected = VALUES.map(
      (_, i) => Number((db.prepare(`SELECT total(${fullMisfit('ts')}) AS m FROM t${i}`).get() as { m: number }).m) > 0,
    );
    db.close();
    const source = SqliteSource.open(file);
    try {
      const catalog = await source.catalog();
      const widened = new Set((catalog.widened ?? []).map((w) => w.table));
      VALUES.forEach((v, i) => t.is(widened.has(`t${i}`), expected[i], `value ${JSON.stringify(v)}`));
      // both outcomes occur, so the comparison means something
      t.true(expected.some(Boolean));
      t.true(expected.some((m) => !m));
    } finally {
      await source.close();
    }
  });
}
