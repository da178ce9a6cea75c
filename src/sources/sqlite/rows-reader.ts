/**
 * A rowid table's rows read in a worker thread (rows-worker.ts), beside the writer's thread, and
 * handed over as encoded batches (cell-encoding.ts): better-sqlite3 makes a JavaScript value per
 * cell, about a third of an export of narrow rows on one thread (issue 39); in the worker that
 * work runs on the other core, and the writer's thread takes bytes it formats without a value per
 * cell. At most `ahead` batches wait for the reader, so memory stays a few batches.
 *
 * Both connections must see the same rows: only outside WAL mode, where the source's read
 * transaction (a SHARED lock) keeps every writer out until the export ends (split-scan.ts).
 */
import { Worker } from 'node:worker_threads';
import type { CellEncoding } from './cell-encoding.js';
import { driverPath } from './driver.js';

/** What the worker reads with (its workerData). */
export interface ReaderSetup {
  driver: string;
  file: string;
  /** `SELECT <columns>, [rowid] FROM <table>`: the values, then extra columns */
  select: string;
  rowidAt: number;
  /** per value column; undefined: its cells go as values */
  encodings: Array<CellEncoding | undefined>;
  batchRows: number;
  batchBytes: number;
  rowOverhead: number;
  /** one per batch the worker may read ahead of the reader: its text, bounds and rowids */
  slots: Slot[];
  /**
   * Int32 per slot, 0: free for the worker to fill, 1: filled, the reader's; then the count of
   * slots given back, which the worker waits on (Atomics: a message per batch given back cost the
   * reader's thread ~0.2 ms each).
   */
  states: SharedArrayBuffer;
}

/** The buffers of one batch, shared between the two threads (posting a batch's own buffers cost ~0.1 ms each way). */
export interface Slot {
  bytes: SharedArrayBuffer;
  bounds: SharedArrayBuffer;
  rowids: SharedArrayBuffer;
}

/** Rows from rowid `from` on (below `until`); `limit` rows per keyset batch, 0: one at a time. */
export interface StreamRequest {
  id: number;
  from: bigint;
  until?: bigint;
  limit: number;
}

export type ToWorker = { kind: 'start'; request: StreamRequest } | { kind: 'stop'; id: number };

export interface FromWorker {
  id: number;
  done: boolean;
  error?: string;
  slot?: number;
  count?: number;
  /** bytes of text in the slot */
  used?: number;
  values?: unknown[];
  /** the slot's new text buffer, when the batch did not fit the old one */
  grown?: SharedArrayBuffer;
}

/** One batch from the worker. */
export interface WorkerBatch {
  count: number;
  bytes: Buffer;
  bounds: Int32Array;
  rowids: BigInt64Array;
  values: unknown[];
}

/** The worker's young generation: its garbage is a batch's raw rows; V8's default let it hold ~10 MB more. */
const resourceLimits = { maxYoungGenerationSizeMb: 4 };

function startWorker(setup: ReaderSetup): Worker {
  // The URL written out: the bundler and knip find the worker's module by it.
  const built = new URL('./rows-worker.js', import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return new Worker(built, { workerData: setup, resourceLimits });
  // from the sources (tsx): Node 20 does not apply the parent's hooks in a worker (hash-pool.ts)
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const worker = new URL('./rows-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(worker)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: setup, resourceLimits });
}

/**
 * Batches whose slots stay the reader's after it asked for the next one: the SIARD writer reads a
 * batch until it asks for the next (table-data.ts), and sqlite-source.ts's readAhead asks one
 * batch ahead of it, so a batch is done with once two more were asked for (one more kept to spare).
 * A batch's views stay valid that long; copying each batch out instead let ~70 MB of its buffers
 * wait for a garbage collection the writer, making little garbage now, seldom runs.
 */
const HELD = 3;

/** Text bytes a slot starts with (it grows when a batch needs more). */
const SLOT_BYTES = 256 * 1024;

export class RowsReader {
  private started: Worker | undefined;
  private readonly setup: ReaderSetup;
  private readonly slots: Slot[];
  private readonly states: Int32Array;
  private readonly columns: number;
  private nextId = 1;
  /** the current stream's batches not taken yet, and who waits for the next */
  private queue: FromWorker[] = [];
  private waiting: ((m: FromWorker) => void) | undefined;
  private current = 0;
  private failed: Error | undefined;

  /** `ahead`: batches the worker reads ahead of the reader at most. */
  constructor(setup: Omit<ReaderSetup, 'driver' | 'slots' | 'states'>, ahead: number) {
    ahead += HELD;
    this.columns = setup.encodings.length;
    this.slots = Array.from({ length: ahead }, () => ({
      bytes: new SharedArrayBuffer(SLOT_BYTES),
      bounds: new SharedArrayBuffer(8 * this.columns * setup.batchRows),
      rowids: new SharedArrayBuffer(8 * setup.batchRows),
    }));
    const states = new SharedArrayBuffer(4 * (ahead + 1));
    this.states = new Int32Array(states);
    this.setup = { ...setup, driver: driverPath, slots: this.slots, states };
  }

  /** The worker, started at the first stream. */
  private get worker(): Worker {
    if (this.started) return this.started;
    const worker = (this.started = startWorker(this.setup));
    worker.on('message', (m: FromWorker) => {
      if (m.grown) this.slots[m.slot!]!.bytes = m.grown;
      if (m.id === this.current) this.deliver(m);
      else this.release(m); // a stopped stream's batch
    });
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => this.fail(new Error(`the SQLite reader thread stopped (exit ${code})`)));
    return worker;
  }

  private deliver(m: FromWorker): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(m);
    else this.queue.push(m);
  }

  /** Gives a batch's slot back to the worker. */
  private release(m: FromWorker): void {
    if (m.slot === undefined) return;
    Atomics.store(this.states, m.slot, 0);
    Atomics.add(this.states, this.slots.length, 1);
    Atomics.notify(this.states, this.slots.length);
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = err;
    if (this.current !== 0) this.deliver({ id: this.current, done: true, error: err.message });
  }

  /** Batch `m` as views of its slot (given back later: stream). */
  private view(m: FromWorker): WorkerBatch {
    const slot = this.slots[m.slot!]!;
    const count = m.count!;
    return {
      count,
      bytes: Buffer.from(slot.bytes, 0, m.used!),
      bounds: new Int32Array(slot.bounds, 0, 2 * this.columns * count),
      rowids: new BigInt64Array(slot.rowids, 0, count),
      values: m.values!,
    };
  }

  /**
   * The rows from rowid `from` on (below `until`), `limit` per keyset batch (0: one at a time, in
   * batches by count and bytes). Stopping early (return) stops the worker's read.
   */
  async *stream(from: bigint, limit: number, until?: bigint): AsyncGenerator<WorkerBatch> {
    if (this.failed) throw this.failed;
    const id = this.nextId++;
    this.current = id;
    this.queue = [];
    const request: StreamRequest = until === undefined ? { id, from, limit } : { id, from, until, limit };
    this.worker.postMessage({ kind: 'start', request } satisfies ToWorker);
    let ended = false;
    // the batches handed over whose slots the reader may still read
    const held: FromWorker[] = [];
    try {
      for (;;) {
        const m = this.queue.shift() ?? (await new Promise<FromWorker>((resolve) => (this.waiting = resolve)));
        if (m.error !== undefined) throw new Error(m.error);
        if (m.done) {
          ended = true;
          return;
        }
        yield this.view(m);
        held.push(m);
        while (held.length > HELD) this.release(held.shift()!);
      }
    } finally {
      if (!ended && !this.failed) this.worker.postMessage({ kind: 'stop', id } satisfies ToWorker);
      if (this.current === id) this.current = 0;
      this.waiting = undefined;
      for (const m of [...held, ...this.queue]) this.release(m);
      this.queue = [];
    }
  }

  close(): void {
    this.failed ??= new Error('the SQLite reader thread was closed');
    void this.started?.terminate();
  }
}
