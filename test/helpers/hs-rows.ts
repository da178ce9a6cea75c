/**
 * The database of million-rows.ts (a two-row table `small` and a table `big` of integer key, text
 * and real, made by one recursive INSERT) with the row count of `big` given: a test whose property
 * does not depend on the table being that large builds a smaller one in `npm test` and the
 * 1,000,000 rows in the bench (helpers/repetitions.ts). The statements are those of million-rows.ts.
 */
import Database from '../../src/sources/sqlite/driver.js';

export function buildRows(file: string, rows: number): void {
  if (!Number.isSafeInteger(rows) || rows < 1) throw new Error(`buildRows: ${rows} is not a row count`);
  const db = new Database(file);
  try {
    db.exec(`CREATE TABLE small(id INTEGER PRIMARY KEY, t TEXT);
      CREATE TABLE big(id INTEGER PRIMARY KEY, name TEXT NOT NULL, v REAL);
      INSERT INTO small VALUES (1, 'a'), (2, 'b');
      WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${rows})
        INSERT INTO big SELECT i, 'name-' || (i * 7919 % 100003), i / 7.0 FROM c;`);
  } finally {
    db.close();
  }
}
