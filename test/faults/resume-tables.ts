/**
 * The database of the resume tests (resume-kill.test.ts, resume-ingest-kill.test.ts): six tables
 * (external BLOBs and CLOBs, inline values, one LOB split over segment folders, a table without
 * LOBs, an empty one) from a seeded PRNG.
 */
import Database from '../../src/sources/sqlite/driver.js';
import { prng } from './harness.js';

function bytes(rand: () => number, n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(rand() * 256);
  return b;
}

export function makeTables(file: string, seed: number): string {
  const rand = prng(seed);
  const db = new Database(file);
  db.exec('CREATE TABLE doc (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body BLOB)');
  db.exec('CREATE TABLE letter (id INTEGER PRIMARY KEY, text TEXT)');
  db.exec('CREATE TABLE plain (id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL)');
  db.exec('CREATE TABLE empty (id INTEGER PRIMARY KEY, x BLOB)');
  db.exec('CREATE TABLE scan (id INTEGER PRIMARY KEY, page BLOB)');
  db.exec('CREATE TABLE mixed (id INTEGER PRIMARY KEY, small BLOB, big BLOB, memo TEXT)');
  db.transaction(() => {
    const doc = db.prepare('INSERT INTO doc VALUES (?, ?, ?)');
    for (let i = 1; i <= 120; i++) doc.run(i, `document ${i}`, bytes(rand, 2500 + Math.floor(rand() * 9000)));
    const letter = db.prepare('INSERT INTO letter VALUES (?, ?)');
    for (let i = 1; i <= 150; i++) letter.run(i, `Dear ${i}, `.repeat(Math.floor(rand() * 900)));
    const plain = db.prepare('INSERT INTO plain VALUES (?, ?, ?, ?)');
    for (let i = 1; i <= 3000; i++) plain.run(i, Math.floor(rand() * 1e9), `value ${rand()}`, rand() * 1000);
    const scan = db.prepare('INSERT INTO scan VALUES (?, ?)');
    scan.run(1, bytes(rand, 700_000)); // split over three segment folders of 300 kB
    for (let i = 2; i <= 40; i++) scan.run(i, bytes(rand, 5000 + Math.floor(rand() * 20_000)));
    const mixed = db.prepare('INSERT INTO mixed VALUES (?, ?, ?, ?)');
    for (let i = 1; i <= 200; i++) mixed.run(i, bytes(rand, 100), i % 4 === 0 ? bytes(rand, 4000) : null, 'm'.repeat(i));
  })();
  db.close();
  return file;
}
