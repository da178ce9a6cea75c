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
import { KeyRuns } from './key-runs.js';
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
/** rows per INSERT statement: one call into SQLite per this many rows instead of one per row */
const ROWS_PER_INSERT = 256;
/**
 * runs held in memory over all keys (3 numbers each, 36 MB, up to half as much again in array slack);
 * past it, the key adding one goes to SQLite. At 3,000,000 a 10M-row table of foreign keys at random
 * peaked at 320 MB (bench/check.bench.ts), over the 300 MB the issue allows.
 */
const MAX_RUNS = 1_500_000;

export class KeyIndex {
  private readonly dir: string;
  private readonly db: BetterSqlite3.Database;
  private readonly inserts = new Map<number, BetterSqlite3.Statement>();
  private readonly manyInserts = new Map<number, BetterSqlite3.Statement>();
  /** per key: parameters (row, values...) of rows not inserted yet */
  private readonly waiting = new Map<number, unknown[]>();
  /** single-column keys whose values are still held as runs (key-runs.ts), none of them in SQLite yet */
  private readonly runs = new Map<number, KeyRuns>();
  private runCount = 0;
  private pending = 0;

  constructor(
    readonly specs: KeySpec[],
    private readonly maxRuns = MAX_RUNS,
  ) {
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-check-'));
    this.db = new Database(path.join(this.dir, 'keys.db'));
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma('cache_size = -32768'); // 32 MiB
    this.db.pragma('temp_store = FILE');
    for (const k of specs) {
      const cols = k.columns.map((_c, i) => `v${i}`);
      const one = `(?, ${cols.map(() => '?').join(', ')})`;
      this.db.exec(`CREATE TABLE k${k.id} (row INTEGER, ${cols.join(', ')})`);
      this.inserts.set(k.id, this.db.prepare(`INSERT INTO k${k.id} VALUES ${one}`));
      this.manyInserts.set(k.id, this.db.prepare(`INSERT INTO k${k.id} VALUES ${new Array<string>(ROWS_PER_INSERT).fill(one).join(', ')}`));
      this.waiting.set(k.id, []);
      if (k.columns.length === 1) this.runs.set(k.id, new KeyRuns());
    }
    this.db.exec('BEGIN');
  }

  /** The values of one key in one row (none NULL; the caller skips rows with a NULL in the key). */
  add(key: KeySpec, row: number, values: string[]): void {
    const runs = this.runs.get(key.id);
    if (runs) {
      const before = runs.runCount;
      if (runs.add(values[0]!, row)) {
        this.runCount += runs.runCount - before;
        if (this.runCount > this.maxRuns) this.toSqlite(key);
        return;
      }
      this.toSqlite(key);
    }
    this.insert(key, row, values);
  }

  /** add() of a single-column key's value that is a canonical integer of at most 15 digits, given as its number. */
  addInteger(key: KeySpec, row: number, value: number): void {
    const runs = this.runs.get(key.id);
    if (runs) {
      const before = runs.runCount;
      runs.addInteger(value, row);
      this.runCount += runs.runCount - before;
      if (this.runCount > this.maxRuns) this.toSqlite(key);
      return;
    }
    this.insert(key, row, [String(value)]);
  }

  private insert(key: KeySpec, row: number, values: string[]): void {
    const w = this.waiting.get(key.id)!;
    w.push(row, ...values);
    if (w.length === ROWS_PER_INSERT * (1 + values.length)) {
      this.manyInserts.get(key.id)!.run(w);
      w.length = 0;
    }
    if (++this.pending >= BATCH) {
      this.db.exec('COMMIT');
      this.db.exec('BEGIN');
      this.pending = 0;
    }
  }

  /** A key held as runs goes to SQLite: every value so far, then every value added. */
  private toSqlite(key: KeySpec): void {
    const runs = this.runs.get(key.id);
    if (!runs) return;
    this.runs.delete(key.id);
    this.runCount -= runs.runCount;
    for (const [row, value] of runs.pairs()) this.insert(key, row, [value]);
  }

  /**
   * Keys still held as runs that pass (unique, or covered by the referenced key's runs) need no
   * query; the others go to SQLite, whose queries find and describe what is wrong.
   */
  private settleRuns(): void {
    for (const k of this.specs) {
      if ((k.kind === 'primary' || k.kind === 'candidate') && this.runs.get(k.id)?.unique() === false) this.toSqlite(k);
    }
    for (const k of this.specs) {
      if (k.kind !== 'foreign' || k.target === undefined) continue;
      const target = this.specs.find((s) => s.id === k.target)!;
      const f = this.runs.get(k.id);
      const t = this.runs.get(target.id);
      if (f && t && f.coveredBy(t)) continue;
      this.toSqlite(k);
      this.toSqlite(target);
    }
  }

  /** The rows still waiting, one statement each. */
  private flush(): void {
    for (const k of this.specs) {
      const w = this.waiting.get(k.id)!;
      const width = 1 + k.columns.length;
      const one = this.inserts.get(k.id)!;
      for (let i = 0; i < w.length; i += width) one.run(w.slice(i, i + width));
      w.length = 0;
    }
  }

  /** Duplicates of unique keys, then foreign key values without their referenced row. */
  *violations(): Generator<KeyViolation> {
    this.settleRuns();
    this.flush();
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
