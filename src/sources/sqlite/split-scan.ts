/**
 * The prescan's aggregate query (count, total, max per column) over a large rowid table, split in
 * two rowid ranges: the lower half here, the upper half in a worker thread with its own read-only
 * connection, so both cores scan. Results merge exactly: counts and totals add, maxima take the
 * larger.
 *
 * Both connections must see the same rows. Outside WAL mode they do: the source holds a read
 * transaction (a SHARED lock), so no writer can commit until the export ends. In WAL mode a writer
 * could commit between the two snapshots, so the query runs whole, here.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { quoteIdent } from '../sql-identifier.js';
import { driverPath } from './driver.js';

export type AggregateRow = Record<string, number | null>;

/** Tables smaller than this (by rowid span) are scanned in one piece: a worker costs ~50 ms. */
const SPLIT_MIN_ROWS = 200_000;

/** Names that would make `rowid` mean a column instead of the row id. */
const ROWID_NAMES = new Set(['rowid', '_rowid_', 'oid']);

export interface AggregateScanner {
  /** The one row of `SELECT <selectList> FROM <table>`; keys starting 'l' are maxima, every other key a count or total. */
  aggregate(table: string, selectList: string, columns: string[], rowidTable: boolean): Promise<AggregateRow>;
}

export function aggregateScanner(db: BetterSqlite3.Database, file: string): AggregateScanner {
  const wal = String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal';
  return {
    async aggregate(table, selectList, columns, rowidTable) {
      const from = `FROM ${quoteIdent(table)}`;
      const whole = () => db.prepare(`SELECT ${selectList} ${from}`).get() as AggregateRow;
      if (wal || !rowidTable || columns.some((c) => ROWID_NAMES.has(c.toLowerCase()))) return whole();
      // two subqueries: each is one step down the b-tree, where min() and max() together would scan the table
      const t = quoteIdent(table);
      const span = db.prepare(`SELECT (SELECT min(rowid) FROM ${t}) AS lo, (SELECT max(rowid) FROM ${t}) AS hi`).get() as {
        lo: number | null;
        hi: number | null;
      };
      if (span.lo === null || span.hi === null || span.hi - span.lo < SPLIT_MIN_ROWS) return whole();
      const mid = Math.floor(span.lo / 2 + span.hi / 2);
      const upper = runInWorker(file, `SELECT ${selectList} ${from} WHERE rowid >= ?`, mid);
      let lower: AggregateRow;
      try {
        lower = db.prepare(`SELECT ${selectList} ${from} WHERE rowid < ?`).get(mid) as AggregateRow;
      } catch (err) {
        await upper.catch(() => {});
        throw err;
      }
      return merge(lower, await upper);
    },
  };
}

/** The aggregate row of a table from the rows of two parts of it: keys starting 'l' are maxima, the others counts or totals. */
export function merge(a: AggregateRow, b: AggregateRow): AggregateRow {
  const out: AggregateRow = {};
  for (const key of Object.keys(a)) {
    const x = a[key] ?? null;
    const y = b[key] ?? null;
    if (key.startsWith('l')) out[key] = x === null ? y : y === null ? x : Math.max(x, y);
    else out[key] = (x ?? 0) + (y ?? 0);
  }
  return out;
}

/**
 * The worker: one aggregate query over a rowid range, read-only, its row posted back. Plain
 * CommonJS given as text, so it runs the same from the compiled package and from the sources.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db;
try {
  db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  db.pragma('cache_size = -2000'); // one pass over the pages: SQLite's default cache, not better-sqlite3's 16 MB
  const stmt = db.prepare(workerData.sql);
  parentPort.postMessage({ row: workerData.from === undefined ? stmt.get() : stmt.get(workerData.from) });
} catch (err) {
  parentPort.postMessage({ error: String(err && err.message) });
} finally {
  if (db) db.close();
}`;

function runInWorker(file: string, sql: string, from: number): Promise<AggregateRow> {
  return startWorker(file, sql, from).row;
}

/** A query's one row, computed in a worker thread; `stop` ends the worker early (its row is then never given). */
export interface WorkerQuery {
  row: Promise<AggregateRow>;
  stop(): void;
}

/** Runs `sql` (one row, no parameter) over `file` in a worker thread with its own read-only connection. */
export function queryInWorker(file: string, sql: string): WorkerQuery {
  return startWorker(file, sql, undefined);
}

function startWorker(file: string, sql: string, from: number | undefined): WorkerQuery {
  let worker: Worker | undefined;
  const row = new Promise<AggregateRow>((resolve, reject) => {
    worker = new Worker(WORKER, { eval: true, workerData: { driver: driverPath, file, sql, from } });
    worker.once('message', (m: { row?: AggregateRow; error?: string }) =>
      m.error !== undefined ? reject(new Error(m.error)) : resolve(m.row!),
    );
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the prescan worker stopped (exit ${code})`)));
  });
  return { row, stop: () => void worker?.terminate() };
}
