/**
 * The indexes of an access copy (access-copy.ts), built in a worker thread with a connection of its
 * own: a CREATE INDEX over millions of rows is one synchronous step of seconds to minutes, during
 * which the reading room's thread would answer nothing. The copy is in WAL mode, so the pages keep
 * reading it (what is committed) while the worker writes. In order: a sort index per column (a
 * column a page asks for moves to the front), then the full-text index in batches, each marked
 * in the copy's `meta` so a stopped build resumes where it was.
 *
 * SIARD_OCFL_PAUSE=access-copy-index with SIARD_OCFL_PAUSE_FILE=<f> (as failpoint.ts): the worker
 * creates <f>.waiting before its first index and blocks, as a long CREATE INDEX does, until <f>
 * exists; tests use it to show that the server answers meanwhile.
 */
import { Worker } from 'node:worker_threads';
import { driverPath } from '../sources/sqlite/driver.js';
import type { CopyProgress } from './copy-progress.js';

/** Rows per transaction of the full-text index (progress and the resumable mark between them). */
const FTS_BATCH = 20_000;

/** The name of the index a sort by `column` (0-based) uses. */
export function sortIndexName(column: number): string {
  return `o${column + 1}`;
}

/** Plain CommonJS given as text (as split-scan.ts), so it runs the same from the package and the sources. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const Database = require(workerData.driver);
const { file, keys, batch, pauseFile } = workerData;
const texts = keys.map((_, c) => 't' + (c + 1));
const queue = keys.map((_, c) => c);
parentPort.on('message', (m) => {
  const at = queue.indexOf(m.prefer);
  if (at > 0) queue.unshift(...queue.splice(at, 1));
});
const tick = () => new Promise((resolve) => setImmediate(resolve));
function pause() {
  if (!pauseFile) return;
  fs.writeFileSync(pauseFile + '.waiting', String(process.pid));
  const cell = new Int32Array(new SharedArrayBuffer(4));
  while (!fs.existsSync(pauseFile)) Atomics.wait(cell, 0, 0, 20);
}
async function run(db) {
  let sorted = 0;
  pause();
  while (queue.length > 0) {
    const c = queue.shift();
    db.exec('CREATE INDEX IF NOT EXISTS o' + (c + 1) + ' ON rows (' + keys[c] + ', i)');
    parentPort.postMessage({ sorted: ++sorted });
    await tick();
  }
  // detail=none: no positions (half the size, two to three times quicker to build); a query is the
  // AND of its trigrams, whose candidates the scan's rule checks.
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(" + texts.join(', ') + ", content='', tokenize='trigram', detail=none)");
  const next = db.prepare('SELECT i, ' + texts.join(', ') + ' FROM rows WHERE i > ? ORDER BY i LIMIT ' + batch);
  const add = db.prepare('INSERT INTO fts (rowid, ' + texts.join(', ') + ') VALUES (' + ['?', ...texts.map(() => '?')].join(', ') + ')');
  const mark = db.prepare('INSERT OR REPLACE INTO meta VALUES (?, ?)');
  const step = db.transaction((after) => {
    const rows = next.raw().all(after);
    for (const r of rows) add.run(...r);
    const last = rows.length > 0 ? rows[rows.length - 1][0] : after;
    mark.run('indexed', String(last));
    return { last, count: rows.length };
  });
  let after = Number(db.prepare("SELECT value FROM meta WHERE key = 'indexed'").pluck().get() ?? 0);
  for (;;) {
    const { last, count } = step(after);
    after = last;
    parentPort.postMessage({ indexed: last });
    if (count < batch) break;
    await tick();
  }
  mark.run('fts', 'done');
  db.pragma('wal_checkpoint(TRUNCATE)');
}
const db = new Database(file);
run(db).then(
  () => {
    db.close();
    parentPort.postMessage({ done: true });
  },
  (err) => {
    db.close();
    parentPort.postMessage({ error: String(err && err.message) });
  },
);
`;

/** One copy's index build, running. */
export class CopyIndexer {
  /** resolves when every index is built; rejects with the worker's error (or its end, when stopped) */
  readonly done: Promise<void>;
  private readonly worker: Worker;

  constructor(
    file: string,
    /** per column, the column of `rows` its sort uses (n<k> for numbers, else t<k>) */
    sortKeys: string[],
    progress: CopyProgress,
  ) {
    const pauseFile = process.env.SIARD_OCFL_PAUSE === 'access-copy-index' ? process.env.SIARD_OCFL_PAUSE_FILE : undefined;
    this.worker = new Worker(WORKER, { eval: true, workerData: { driver: driverPath, file, keys: sortKeys, batch: FTS_BATCH, pauseFile } });
    this.worker.unref();
    const worker = this.worker;
    this.done = new Promise((resolve, reject) => {
      worker.on('message', (m: { sorted?: number; indexed?: number; done?: true; error?: string }) => {
        if (m.sorted !== undefined) progress.sorted = m.sorted;
        if (m.indexed !== undefined) progress.done = m.indexed;
        if (m.done) resolve();
        if (m.error !== undefined) reject(new Error(m.error));
        if (m.done || m.error !== undefined) void worker.terminate();
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`The access copy's indexer stopped (exit code ${code}).`)));
    });
  }

  /** Builds the sort index of `column` next (after the index being built now). */
  prefer(column: number): void {
    this.worker.postMessage({ prefer: column });
  }

  stop(): void {
    void this.worker.terminate();
  }
}
