/**
 * Rows one side of a comparison has given and the other not yet, by key: in memory while they are
 * few, then in a SQLite file in the temporary folder (WITHOUT ROWID, keyed by the row's key), so
 * two sides read in different orders are compared in bounded memory whatever their size. A row is
 * its cells' compare forms (compare-form.ts), at most SHORT_BYTES each plus a digest, so a row's
 * size is bounded by its column count.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';

export type Cells = Array<string | null>;

/** Which side gave a pending row: the archive (0) or the target database (1). */
export type Side = 0 | 1;

export interface PendingRow {
  side: Side;
  /** rows with this key given by `side` and not matched yet (more than one: a duplicate key, or equal rows of a table without key) */
  count: number;
  cells: Cells;
}

/** Bytes of pending rows held in memory before they move to disk (about, counting UTF-16 units twice). */
const DEFAULT_MEMORY_BYTES = 64 * 1024 * 1024;

const ROW_OVERHEAD = 120;

function rowBytes(key: string, cells: Cells): number {
  let n = ROW_OVERHEAD + 2 * key.length;
  for (const c of cells) n += c === null ? 8 : 40 + 2 * c.length;
  return n;
}

/**
 * A copy of `s` that holds only its own characters. A reader's value is often a slice of the whole
 * chunk of XML text it was read from, and keeps that chunk alive as long as it lives: a row waiting
 * here would hold tens of kilobytes (a 1,000,000-row diff grew by ~6 MiB of heap per 100,000 rows).
 */
function detached(s: string | null): string | null {
  return s === null ? null : (' ' + s).slice(1);
}

interface DiskStore {
  db: BetterSqlite3.Database;
  dir: string;
  get: BetterSqlite3.Statement;
  put: BetterSqlite3.Statement;
  del: BetterSqlite3.Statement;
  /** writes since the last commit */
  writes: number;
}

export class PendingRows {
  private readonly memory = new Map<string, PendingRow>();
  private bytes = 0;
  private disk: DiskStore | undefined;
  private diskCount = 0;

  constructor(
    private readonly limitBytes = DEFAULT_MEMORY_BYTES,
    private readonly scratch = os.tmpdir(),
  ) {}

  /** Rows pending now. */
  get size(): number {
    return this.memory.size + this.diskCount;
  }

  /** True once rows went to disk. */
  get spilled(): boolean {
    return this.disk !== undefined;
  }

  get(key: string): PendingRow | undefined {
    if (!this.disk) return this.memory.get(key);
    const row = this.disk.get.get(key) as { side: Side; count: number; cells: string } | undefined;
    return row ? { side: row.side, count: row.count, cells: JSON.parse(row.cells) as Cells } : undefined;
  }

  set(key: string, row: PendingRow): void {
    if (this.disk) {
      const existed = this.disk.get.get(key) !== undefined;
      this.disk.put.run(key, row.side, row.count, JSON.stringify(row.cells));
      if (!existed) this.diskCount++;
      this.written();
      return;
    }
    const before = this.memory.get(key);
    if (!before) this.bytes += rowBytes(key, row.cells);
    this.memory.set(key, before ? row : { ...row, cells: row.cells.map(detached) });
    if (this.bytes > this.limitBytes) this.spill();
  }

  delete(key: string): void {
    if (this.disk) {
      if (this.disk.del.run(key).changes > 0) this.diskCount--;
      this.written();
      return;
    }
    const row = this.memory.get(key);
    if (row) {
      this.bytes -= rowBytes(key, row.cells);
      this.memory.delete(key);
    }
  }

  /** Every pending row, in key order on disk (any order in memory). */
  *entries(): Generator<[string, PendingRow]> {
    if (!this.disk) {
      yield* this.memory;
      return;
    }
    this.disk.db.exec('COMMIT; BEGIN');
    const rows = this.disk.db.prepare('SELECT key, side, count, cells FROM pending ORDER BY key').iterate() as IterableIterator<{
      key: string;
      side: Side;
      count: number;
      cells: string;
    }>;
    for (const r of rows) yield [r.key, { side: r.side, count: r.count, cells: JSON.parse(r.cells) as Cells }];
  }

  /** Removes the disk file, if any. */
  close(): void {
    if (!this.disk) return;
    try {
      this.disk.db.close();
    } finally {
      rmSync(this.disk.dir, { recursive: true, force: true });
      this.disk = undefined;
    }
  }

  private written(): void {
    // one transaction per many writes: SQLite's commits are its cost
    if (++this.disk!.writes >= 10_000) {
      this.disk!.db.exec('COMMIT; BEGIN');
      this.disk!.writes = 0;
    }
  }

  private spill(): void {
    const dir = mkdtempSync(path.join(this.scratch, 'siard-ocfl-verify-'));
    let db: BetterSqlite3.Database;
    try {
      db = new Database(path.join(dir, 'pending.db'));
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -16384'); // 16 MiB of pages, whatever the number of rows
    db.exec(
      'CREATE TABLE pending (key TEXT PRIMARY KEY, side INTEGER NOT NULL, count INTEGER NOT NULL, cells TEXT NOT NULL) WITHOUT ROWID',
    );
    db.exec('BEGIN');
    this.disk = {
      db,
      dir,
      get: db.prepare('SELECT side, count, cells FROM pending WHERE key = ?'),
      put: db.prepare('INSERT OR REPLACE INTO pending (key, side, count, cells) VALUES (?, ?, ?, ?)'),
      del: db.prepare('DELETE FROM pending WHERE key = ?'),
      writes: 0,
    };
    for (const [key, row] of this.memory) {
      this.disk.put.run(key, row.side, row.count, JSON.stringify(row.cells));
      this.diskCount++;
    }
    this.memory.clear();
    this.bytes = 0;
  }
}

// The driver is loaded with the first spill only (a verify of small tables never needs it).
let Database: typeof BetterSqlite3;

/** Loads the SQLite driver a spill needs; call once before comparing (cheap when a target already loaded it). */
export async function loadSpillDriver(): Promise<void> {
  Database ??= (await import('../../sources/sqlite/driver.js')).default;
}
