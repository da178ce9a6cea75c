/**
 * A search of an access copy that scans it (access-copy.ts: a text shorter than the trigram
 * index's three characters, or any text before the index is built), run in a worker thread with a
 * connection of its own. Such a scan reads every row of the copy in one synchronous step of
 * SQLite (8 s at 1,000,000 rows, 20 s at 5,000,000, measured on this project's machine under load),
 * during which the reading room's thread would answer no other request. The copy is in WAL mode:
 * the worker reads what is committed while the indexer writes. A worker per scan, at most
 * SCANS_AT_ONCE at once (the others wait their turn), each ended when its answer came or the room stops.
 *
 * SIARD_OCFL_PAUSE=access-copy-scan with SIARD_OCFL_PAUSE_FILE=<f> (as failpoint.ts): the worker
 * creates <f>.waiting before its scan and blocks, as a long scan does, until <f> exists; tests use
 * it to show that the server answers meanwhile.
 */
import { Worker } from 'node:worker_threads';
import { driverPath } from '../sources/sqlite/driver.js';

/** Scans running at once (two cores on an ordinary machine; each scan is one core's work). */
const SCANS_AT_ONCE = 2;

/** A statement and its parameters. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/** Plain CommonJS given as text (as copy-indexer.ts), so it runs the same from the package and the sources. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const Database = require(workerData.driver);
const { file, select, count, pauseFile } = workerData;
if (pauseFile) {
  fs.writeFileSync(pauseFile + '.waiting', String(process.pid));
  const cell = new Int32Array(new SharedArrayBuffer(4));
  while (!fs.existsSync(pauseFile)) Atomics.wait(cell, 0, 0, 20);
}
let db;
try {
  db = new Database(file, { fileMustExist: true });
  // The rule of AccessCopy's own siard_has (access-copy.ts): a case-insensitive substring of a cell's text.
  db.function('siard_has', { deterministic: true, varargs: true }, (needle, ...values) =>
    values.some((v) => typeof v === 'string' && v.toLowerCase().includes(needle)) ? 1 : 0,
  );
  const rows = db.prepare(select.sql).raw().all(...select.params);
  const total = db.prepare(count.sql).pluck().get(...count.params);
  parentPort.postMessage({ rows, total });
} catch (err) {
  parentPort.postMessage({ error: String(err && err.message) });
} finally {
  if (db) db.close();
}
`;

/** The scans of a reading room's access copies. */
export class CopyScans {
  private running = 0;
  private readonly turns: Array<() => void> = [];
  private readonly workers = new Set<Worker>();
  private stopped = false;

  /** The rows `select` gives (raw: arrays of columns) and the number `count` gives, from the copy `file`. */
  async scan(file: string, select: Statement, count: Statement): Promise<{ rows: unknown[][]; total: number }> {
    if (this.running >= SCANS_AT_ONCE) await new Promise<void>((resolve) => this.turns.push(resolve));
    this.running++;
    try {
      return await this.inWorker(file, select, count);
    } finally {
      this.running--;
      this.turns.shift()?.();
    }
  }

  private inWorker(file: string, select: Statement, count: Statement): Promise<{ rows: unknown[][]; total: number }> {
    if (this.stopped) return Promise.reject(new Error(STOPPED));
    const pauseFile = process.env.SIARD_OCFL_PAUSE === 'access-copy-scan' ? process.env.SIARD_OCFL_PAUSE_FILE : undefined;
    const worker = new Worker(WORKER, { eval: true, workerData: { driver: driverPath, file, select, count, pauseFile } });
    worker.unref();
    this.workers.add(worker);
    return new Promise<{ rows: unknown[][]; total: number }>((resolve, reject) => {
      worker.once('message', (m: { rows?: unknown[][]; total?: number; error?: string }) => {
        if (m.error !== undefined) reject(new Error(`The scan of the access copy failed: ${m.error}`));
        else resolve({ rows: m.rows!, total: m.total! });
      });
      worker.once('error', reject);
      worker.once('exit', () => reject(new Error(STOPPED)));
    }).finally(() => {
      this.workers.delete(worker);
      void worker.terminate();
    });
  }

  /** Ends the scans running; those waiting for their turn fail. */
  stop(): void {
    this.stopped = true;
    for (const worker of this.workers) void worker.terminate();
  }
}

const STOPPED = 'The reading room was stopped while the access copy was scanned.';
