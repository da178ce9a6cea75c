/**
 * The million-LOB database of bench/scale and of the reading room's bench: one table `documents`
 * of `n` BLOBs of 2-4 KiB (above --inline-max, so each is a file), each distinct (its id in front),
 * cut from a random pool: no two LOBs deduplicate.
 */
import { randomBytes } from 'node:crypto';
import Database from '../src/sources/sqlite/driver.js';

export function buildLobDb(file: string, n: number): void {
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec('CREATE TABLE documents (id INTEGER PRIMARY KEY, name TEXT NOT NULL, body BLOB NOT NULL)');
  const insert = db.prepare('INSERT INTO documents VALUES (?, ?, ?)');
  const pool = randomBytes(1 << 22);
  db.transaction(() => {
    for (let i = 1; i <= n; i++) {
      const size = 2048 + ((i * 7919) % 2048);
      const start = (i * 104729) % (pool.length - size);
      const body = Buffer.from(pool.subarray(start, start + size));
      body.writeUInt32BE(i, 0);
      insert.run(i, `document ${i}`, body);
    }
  })();
  db.close();
}
