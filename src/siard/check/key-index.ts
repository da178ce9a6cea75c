/**
 * Primary keys, candidate keys and foreign keys over tables of any size (T_6.0-1), in memory
 * bounded whatever the row count. Single-column integer keys are held as sorted runs in typed
 * arrays, spilled to disk and merged (key-runs.ts); every other key, and a unique key found
 * repeating a value, goes into a temporary SQLite database on disk (better-sqlite3 through the
 * driver module that picks the build for the running Node, a small page cache), where uniqueness
 * and references are SQL queries over indexes.
 * NULLs in primary keys are found while reading (the caller's job); a candidate key
 * ignores rows with a NULL in it, and a foreign key with a NULL in it is satisfied (MATCH SIMPLE).
 */
import type BetterSqlite3 from 'better-sqlite3';
import Database from '../../sources/sqlite/driver.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { KeyRuns, RunBudget, type Coverage } from './key-runs.js';
import { isCanonicalInteger } from './lexical.js';
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
/** room for runs in memory over all keys (3 float64s each: 36 MB); past it, keys write their runs to disk */
const MAX_RUNS = 1_500_000;
/** the most intervals a finished referenced key is held in to check its foreign keys as they are read (16 MB) */
const MAX_COVERAGE = 1 << 20;

export class KeyIndex {
  private readonly dir: string;
  private readonly db: BetterSqlite3.Database;
  private readonly inserts = new Map<number, BetterSqlite3.Statement>();
  private readonly manyInserts = new Map<number, BetterSqlite3.Statement>();
  /** per key: parameters (row, values...) of rows not inserted yet */
  private readonly waiting = new Map<number, unknown[]>();
  /** single-column keys whose values are still held as runs (key-runs.ts), none of them in SQLite yet */
  private readonly runs = new Map<number, KeyRuns>();
  private readonly budget: RunBudget;
  private pending = 0;
  /** foreign keys whose referenced key is complete (its table read) and held as intervals: checked as they come, not kept */
  private readonly covered = new Map<number, Coverage>();
  /** per foreign key: the values found missing as they came, with their rows (at most MAX_LISTED) */
  private readonly missed = new Map<number, KeyViolation[]>();

  constructor(
    readonly specs: KeySpec[],
    maxRuns = MAX_RUNS,
  ) {
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-check-'));
    this.db = new Database(path.join(this.dir, 'keys.db'));
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma('cache_size = -32768'); // 32 MiB
    this.db.pragma('temp_store = FILE');
    this.budget = new RunBudget(maxRuns, this.dir);
    for (const k of specs) {
      const cols = k.columns.map((_c, i) => `v${i}`);
      const one = `(?, ${cols.map(() => '?').join(', ')})`;
      this.db.exec(`CREATE TABLE k${k.id} (row INTEGER, ${cols.join(', ')})`);
      this.inserts.set(k.id, this.db.prepare(`INSERT INTO k${k.id} VALUES ${one}`));
      this.manyInserts.set(k.id, this.db.prepare(`INSERT INTO k${k.id} VALUES ${new Array<string>(ROWS_PER_INSERT).fill(one).join(', ')}`));
      this.waiting.set(k.id, []);
      if (k.columns.length === 1) this.runs.set(k.id, new KeyRuns(this.budget));
    }
    this.db.exec('BEGIN');
  }

  /** The values of one key in one row (none NULL; the caller skips rows with a NULL in the key). */
  add(key: KeySpec, row: number, values: string[]): void {
    const cover = this.covered.get(key.id);
    if (cover) {
      const v = values[0]!;
      // a value no canonical integer is none of the referenced key's, as SQLite compares them (text)
      if (!(isCanonicalInteger(v, 15) && cover.has(Number(v)))) this.miss(key, v, row);
      return;
    }
    const runs = this.runs.get(key.id);
    if (runs) {
      if (runs.add(values[0]!, row)) return;
      this.toSqlite(key);
    }
    this.insert(key, row, values);
  }

  /** add() of a single-column key's value that is a canonical integer of at most 15 digits, given as its number. */
  addInteger(key: KeySpec, row: number, value: number): void {
    const cover = this.covered.get(key.id);
    if (cover) {
      if (!cover.has(value)) this.miss(key, String(value), row);
      return;
    }
    const runs = this.runs.get(key.id);
    if (runs) return runs.addInteger(value, row);
    this.insert(key, row, [String(value)]);
  }

  private miss(key: KeySpec, value: string, row: number): void {
    const list = this.missed.get(key.id) ?? [];
    this.missed.set(key.id, list);
    if (list.length < MAX_LISTED)
      list.push(
        missingReference(
          key,
          this.specs.find((s) => s.id === key.target)!,
          [value],
          row,
        ),
      );
  }

  /**
   * A table read to its end: the single-column foreign keys (of any table) referencing one of its
   * keys held in memory as few enough intervals are from now on checked as their values come, and
   * not kept (a parent table read before its children: their foreign keys cost no memory).
   */
  finishTable(keys: KeySpec[]): void {
    for (const t of keys) {
      const runs = this.runs.get(t.id);
      const referencing = this.specs.filter((k) => k.kind === 'foreign' && k.target === t.id && k.columns.length === 1);
      if (!runs || referencing.length === 0) continue;
      const cover = runs.coverage(MAX_COVERAGE);
      if (cover) for (const k of referencing) this.covered.set(k.id, cover);
    }
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
    try {
      for (const [start, row, length] of runs.runs()) for (let i = 0; i < length; i++) this.insert(key, row + i, [String(start + i)]);
    } finally {
      runs.close();
    }
  }

  /**
   * Keys still held as runs: a foreign key whose referenced key is held too is checked on the runs
   * (its missing values found here); a unique key that repeats a value, and a foreign key whose
   * other side is in SQLite, go to SQLite, whose queries find and describe what is wrong.
   */
  private settleRuns(): KeyViolation[] {
    const found: KeyViolation[] = [];
    const settled = new Set<number>();
    for (const k of this.specs) {
      if (k.kind !== 'foreign' || k.target === undefined) continue;
      const target = this.specs.find((s) => s.id === k.target)!;
      const f = this.runs.get(k.id);
      const t = this.runs.get(target.id);
      if (!f || !t) continue;
      const room = MAX_LISTED - (this.missed.get(k.id)?.length ?? 0);
      for (const m of f.missingFrom(t, room)) found.push(missingReference(k, target, [String(m.value)], m.row));
      settled.add(k.id);
    }
    for (const k of this.specs) {
      if ((k.kind === 'primary' || k.kind === 'candidate') && this.runs.get(k.id)?.unique() === false) this.toSqlite(k);
    }
    for (const k of this.specs) {
      if (k.kind !== 'foreign' || k.target === undefined || settled.has(k.id)) continue;
      this.toSqlite(k);
      this.toSqlite(this.specs.find((s) => s.id === k.target)!);
    }
    for (const list of this.missed.values()) found.push(...list);
    return found;
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
    const onRuns = this.settleRuns();
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
      for (const d of q.iterate() as Iterable<Record<string, unknown>>)
        yield missingReference(
          k,
          target,
          k.columns.map((_c, i) => d[`v${i}`]),
          d.row as number,
        );
    }
    yield* onRuns;
  }

  close(): void {
    try {
      for (const r of this.runs.values()) r.close();
      this.db.close();
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

function missingReference(k: KeySpec, target: KeySpec, values: unknown[], row: number): KeyViolation {
  return {
    key: k,
    row,
    message:
      `Foreign key ${k.name} of ${k.table}: (${k.columns.join(', ')}) = (${values.map((v) => JSON.stringify(v)).join(', ')}) ` +
      `has no row in ${target.table} (${target.columns.join(', ')}).`,
  };
}
