/**
 * A SQLite database with a two-row table and a 1,000,000-row table (integer key, text, real), made
 * in about a second by one recursive INSERT: the large table of the segmented-SIARD tests.
 */
import Database from '../../src/sources/sqlite/driver.js';

export const MILLION = 1_000_000;

export function buildMillionRows(file: string): void {
  const db = new Database(file);
  try {
    db.exec(`CREATE TABLE small(id INTEGER PRIMARY KEY, t TEXT);
      CREATE TABLE big(id INTEGER PRIMARY KEY, name TEXT NOT NULL, v REAL);
      INSERT INTO small VALUES (1, 'a'), (2, 'b');
      WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${MILLION})
        INSERT INTO big SELECT i, 'name-' || (i * 7919 % 100003), i / 7.0 FROM c;`);
  } finally {
    db.close();
  }
}
