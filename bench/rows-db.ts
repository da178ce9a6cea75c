/**
 * The narrow-rows database of the row benches (issue 16): one table `events` of `rows` rows
 * (integer, text, real, timestamp, nullable text with characters XML escapes), built once per size.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import Database from '../src/sources/sqlite/driver.js';

export function buildRowDb(file: string, rows: number): void {
  if (existsSync(file)) return;
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec('CREATE TABLE events (id INTEGER PRIMARY KEY, name VARCHAR(40), amount REAL, at DATETIME, note TEXT)');
  const ins = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= rows; i++) {
      const s = i % 86400;
      const two = (n: number) => String(n).padStart(2, '0');
      const at = `2024-01-${two(1 + (i % 28))} ${two((s / 3600) | 0)}:${two(((s / 60) | 0) % 60)}:${two(s % 60)}`;
      ins.run(i, `event ${i}`, i * 0.25, at, i % 3 === 0 ? null : `note <${i}> & more`);
    }
  })();
  db.close();
}

/** The same rows in the PostgreSQL database at `url` (a new table `events`), through sqlite3 and psql's \\copy. */
export function loadRowsIntoPostgres(rowDb: string, url: string): void {
  const create = 'CREATE TABLE events (id bigint PRIMARY KEY, name varchar(40), amount double precision, at timestamp, note text)';
  const load = spawnSync(
    'sh',
    [
      '-c',
      `psql -q '${url}' -c '${create}' && ` +
        `sqlite3 -csv '${rowDb}' 'SELECT id, name, amount, at, note FROM events' | ` +
        `psql -q '${url}' -c '\\copy events FROM STDIN WITH (FORMAT csv)'`,
    ],
    { encoding: 'utf8' },
  );
  if (load.status !== 0) throw new Error(`loading the rows into PostgreSQL failed: ${load.stderr}`);
}
