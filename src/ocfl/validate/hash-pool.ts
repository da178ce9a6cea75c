/**
 * A small pool of worker threads that hash files in parallel, one per core. Files are sent in
 * batches so that many small files do not cost one message each.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { hashFile, type HashResult } from './hash-file.js';

export interface HashTask {
  path: string;
  algorithms: string[];
  /** a new file to write the bytes to in the same read */
  copyTo?: string;
}
export type { HashResult } from './hash-file.js';
/** What crosses to a worker: flat arrays, cheap to copy; every file of a batch uses the same algorithms. */
export interface HashBatch {
  id: number;
  algorithms: string[];
  paths: string[];
  /** per file, where to copy it (null: no copy) */
  copyTo?: Array<string | null>;
}
/** Per file: its size and digests (algorithm order), or an error message. */
export interface HashBatchResult {
  id: number;
  sizes: number[];
  digests: string[];
  errors: Array<string | null>;
}

/**
 * The built package starts hash-worker.js directly. Run from source (tsx, as the tests do), the
 * worker is hash-worker.ts, and Node 20 does not apply the parent's `--import=tsx` hooks inside
 * workers, so a one-line bootstrap registers tsx there first.
 */
export function startWorker(script: 'hash-worker' | 'object-worker' = 'hash-worker'): Worker {
  // Each URL written out: the bundler and knip find a worker's module by it.
  const built = script === 'hash-worker' ? new URL('./hash-worker.js', import.meta.url) : new URL('./object-worker.js', import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return new Worker(built);
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const worker = new URL(`./${script}.ts`, import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(worker)}); });`;
  return new Worker(bootstrap, { eval: true });
}

const BATCH_FILES = 256;
const IN_FLIGHT_PER_WORKER = 2;
/** Below this much work (in total per pool), starting threads costs more than it saves: hash in this thread. */
const INLINE_BYTES = 16 * 1024 * 1024;
const INLINE_FILES = 256;
const BATCH_BYTES = 8 * 1024 * 1024;

interface Pending {
  algorithms: string[];
  paths: string[];
  copyTo?: Array<string | null>;
  resolve: (results: HashResult[]) => void;
  reject: (err: Error) => void;
}

/** A task's size as given (NaN: not known before it is read, see StorageWalk). */
const knownSize = (size: number | undefined): number | undefined => (size === undefined || Number.isNaN(size) ? undefined : size);

function unpack(msg: HashBatchResult, algorithms: string[]): HashResult[] {
  return msg.sizes.map((size, i) => {
    const error = msg.errors[i];
    if (error !== null) return { error };
    const digests: Record<string, string> = {};
    algorithms.forEach((a, j) => (digests[a] = msg.digests[i * algorithms.length + j]));
    return { digests, size };
  });
}

export class HashPool {
  private readonly workers: Worker[] = [];
  private readonly queue: Pending[] = [];
  private readonly inFlight = new Map<number, Pending>();
  private readonly assigned = new Map<Worker, number[]>();
  private nextId = 1;
  private closed = false;
  private inlineBytes = INLINE_BYTES;
  private inlineFiles = INLINE_FILES;

  /** `size` 0: no threads, every file hashed on the calling thread (itself a worker: object-worker.ts). */
  constructor(readonly size = Math.max(1, os.availableParallelism?.() ?? os.cpus().length)) {
    if (size === 0) this.inlineBytes = this.inlineFiles = Infinity;
  }

  private spawn(): Worker {
    const worker = startWorker();
    worker.on('message', (msg: HashBatchResult) => {
      const pending = this.inFlight.get(msg.id);
      this.inFlight.delete(msg.id);
      const ids = this.assigned.get(worker) ?? [];
      ids.splice(ids.indexOf(msg.id), 1);
      if (pending) pending.resolve(unpack(msg, pending.algorithms));
      this.pump();
    });
    worker.on('error', (err) => {
      // A worker that dies fails its batches; the others (or a new one) take the rest of the queue.
      for (const id of this.assigned.get(worker) ?? []) {
        this.inFlight.get(id)?.reject(err);
        this.inFlight.delete(id);
      }
      this.assigned.delete(worker);
      const i = this.workers.indexOf(worker);
      if (i >= 0) this.workers.splice(i, 1);
      this.pump();
    });
    this.workers.push(worker);
    this.assigned.set(worker, []);
    return worker;
  }

  /** The least busy worker, a new one while some core has none, or undefined when all are full. */
  private pickWorker(): Worker | undefined {
    let best: Worker | undefined;
    let load = Infinity;
    for (const w of this.workers) {
      const n = this.assigned.get(w)?.length ?? 0;
      if (n < load) [best, load] = [w, n];
    }
    if ((best === undefined || load > 0) && this.workers.length < this.size) return this.spawn();
    // Two batches per worker keep it busy while the next one is on its way.
    return load < IN_FLIGHT_PER_WORKER ? best : undefined;
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      const worker = this.pickWorker();
      if (!worker) return;
      const pending = this.queue.shift()!;
      const id = this.nextId++;
      this.inFlight.set(id, pending);
      this.assigned.get(worker)!.push(id);
      worker.postMessage({
        id,
        algorithms: pending.algorithms,
        paths: pending.paths,
        ...(pending.copyTo ? { copyTo: pending.copyTo } : {}),
      } satisfies HashBatch);
    }
  }

  private runBatch(tasks: HashTask[]): Promise<HashResult[]> {
    if (this.closed) return Promise.reject(new Error('The hash pool is closed.'));
    return new Promise((resolve, reject) => {
      const copies = tasks.some((t) => t.copyTo !== undefined);
      this.queue.push({
        algorithms: tasks[0].algorithms,
        paths: tasks.map((t) => t.path),
        ...(copies ? { copyTo: tasks.map((t) => t.copyTo ?? null) } : {}),
        resolve,
        reject,
      });
      this.pump();
    });
  }

  /** Whether hashAll would hash this much work here, in this thread (small work, see INLINE_BYTES). */
  private wouldInline(bytes: number, files: number): boolean {
    return bytes <= this.inlineBytes && files <= this.inlineFiles;
  }

  /**
   * Starts the threads now when work of this size is coming, so they boot while the caller is
   * still planning (parsing, listing) instead of when the first batch is sent.
   */
  prepare(bytes: number, files: number): void {
    if (this.closed || this.wouldInline(bytes, files)) return;
    while (this.workers.length < this.size) this.spawn();
    // The threads are there for this work: none of it is hashed here, not even a last small call of it.
    this.inlineBytes = this.inlineFiles = 0;
  }

  /** Hashes every task; results in task order. `sizes` (bytes per task) shape the batches. */
  async hashAll(tasks: HashTask[], sizes: number[], onDone?: (count: number, bytes: number) => void): Promise<HashResult[]> {
    const results: HashResult[] = new Array(tasks.length);
    const total = sizes.reduce((a, b) => a + (knownSize(b) ?? 0), 0);
    // Small work is hashed here until the budget is spent; a root of many small objects then
    // moves to the threads rather than staying on one core.
    if (this.wouldInline(total, tasks.length)) {
      this.inlineBytes -= total;
      this.inlineFiles -= tasks.length;
      for (let i = 0; i < tasks.length; i++) {
        // Most algorithms hash synchronously: no turn of the event loop per small file then.
        const r = hashFile(tasks[i].path, tasks[i].algorithms, tasks[i].copyTo);
        results[i] = r instanceof Promise ? await r : r;
        onDone?.(1, knownSize(sizes[i]) ?? results[i].size ?? 0);
      }
      return results;
    }
    const jobs: Promise<void>[] = [];
    let start = 0;
    while (start < tasks.length) {
      let end = start;
      let bytes = 0;
      const algorithms = tasks[start].algorithms.join(',');
      while (
        end < tasks.length &&
        end - start < BATCH_FILES &&
        (end === start || (bytes + (knownSize(sizes[end]) ?? 0) <= BATCH_BYTES && tasks[end].algorithms.join(',') === algorithms))
      ) {
        bytes += knownSize(sizes[end]) ?? 0;
        end++;
      }
      const from = start;
      jobs.push(
        this.runBatch(tasks.slice(from, end)).then((r) => {
          let done = 0;
          r.forEach((res, i) => {
            results[from + i] = res;
            done += knownSize(sizes[from + i]) ?? res.size ?? 0;
          });
          onDone?.(r.length, done);
        }),
      );
      start = end;
    }
    await Promise.all(jobs);
    return results;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new Error('The hash pool is closed.'));
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
  }
}
