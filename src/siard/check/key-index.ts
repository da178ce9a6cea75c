/**
 * Primary keys, candidate keys and foreign keys over tables of any size (T_6.0-1), in memory
 * bounded whatever the row count: the key values of every row go into a temporary SQLite database
 * on disk (better-sqlite3 through the driver module that picks the build for the running Node,
 * a small page cache), then uniqueness and references are SQL queries over indexes.
 * NULLs in primary keys are found while reading (the caller's job); a candidate key
 * ignores rows with a NULL in it, and a foreign key with a NULL in it is satisfied (MATCH SIMPLE).
 */
import type BetterSqlite3 from 'better-sqlite3';
import Database from '../../sources/sqlite/driver.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One key of a table: a unique key (primary or candidate) or the referencing side of a foreign key. */
export interface KeySpec {
  id: number;
  table: string;
  name: string;
  kind: 'primary' | 'candidate' | 'foreign' | 'referenced';
  columns: string[];
  /** column indexes (0-based) in the table's rows */
  indexes: number[];
  /** foreign keys: the id of the referenced columns' key (a 'referenced' or unique key spec) */
  target?: number;
}

export interface KeyViolation {
  key: KeySpec;
  message: string;
  row?: number;
}

const BATCH = 50_000;
const MAX_LISTED = 100;

export class KeyIndex {
  private readonly dir: string;
  private readonly db: BetterSqlite3.Database;
  private readonly inserts = new Map<number, BetterSqlite3.Statement>();
  private pending = 0;

  constructor(readonly specs: KeySpec[]) {
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-check-'));
    this.db = new Database(path.join(this.dir, 'keys.db'));
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma('cache_size = -32768'); // 32 MiB
    this.db.pragma('temp_store = FILE');
    for (const k of specs) {
      const cols = k.columns.map((_c, i) => `v${i}`);
      this.db.exec(`CREATE TABLE k${k.id} (row INTEGER, ${cols.join(', ')})`);
      this.inserts.set(k.id, this.db.prepare(`INSERT INTO k${k.id} VALUES (?, ${cols.map(() => '?').join(', ')})`));
    }
    this.db.exec('BEGIN');
  }

  /** The values of one key in one row (none NULL; the caller skips rows with a NULL in the key). */
  add(key: KeySpec, row: number, values: string[]): void {
    this.inserts.get(key.id)!.run(row, ...values);
    if (++this.pending >= BATCH) {
      this.db.exec('COMMIT');
      this.db.exec('BEGIN');
      this.pending = 0;
    }
  }

  /** Duplicates of unique keys, then foreign key values without their referenced row. */
  *violations(): Generator<KeyViolation> {
    this.db.exec('COMMIT');
    for (const k of this.specs) {
      const cols = k.columns.map((_c, i) => `v${i}`).join(', ');
      this.db.exec(`CREATE INDEX i${k.id} ON k${k.id} (${cols})`);
    }
    for (const k of this.specs) {
      if (k.kind !== 'primary' && k.kind !== 'candidate') continue;
      const cols = k.columns.map((_c, i) => `v${i}`).join(', ');
      const q = this.db.prepare(
        `SELECT ${cols}, count(*) AS n, min(row) AS first FROM k${k.id} GROUP BY ${cols} HAVING n > 1 LIMIT ${MAX_LISTED}`,
      );
      for (const d of q.iterate() as Iterable<Record<string, unknown>>) {
        const values = k.columns.map((_c, i) => JSON.stringify(d[`v${i}`]));
        yield {
          key: k,
          row: d.first as number,
          message:
            `${k.kind === 'primary' ? 'Primary' : 'Candidate'} key ${k.name} of ${k.table} (${k.columns.join(', ')}) ` +
            `has the value ${values.join(', ')} in ${d.n as number} rows.`,
        };
      }
    }
    for (const k of this.specs) {
      if (k.kind !== 'foreign' || k.target === undefined) continue;
      const target = this.specs.find((s) => s.id === k.target)!;
      const on = k.columns.map((_c, i) => `t.v${i} = f.v${i}`).join(' AND ');
      const q = this.db.prepare(
        `SELECT f.row AS row, ${k.columns.map((_c, i) => `f.v${i}`).join(', ')} FROM k${k.id} f ` +
          `WHERE NOT EXISTS (SELECT 1 FROM k${target.id} t WHERE ${on}) LIMIT ${MAX_LISTED}`,
      );
      for (const d of q.iterate() as Iterable<Record<string, unknown>>) {
        const values = k.columns.map((_c, i) => JSON.stringify(d[`v${i}`]));
        yield {
          key: k,
          row: d.row as number,
          message:
            `Foreign key ${k.name} of ${k.table}: (${k.columns.join(', ')}) = (${values.join(', ')}) ` +
            `has no row in ${target.table} (${target.columns.join(', ')}).`,
        };
      }
    }
  }

  close(): void {
    try {
      this.db.close();
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
