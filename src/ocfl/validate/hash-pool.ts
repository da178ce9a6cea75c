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
}
export type { HashResult } from './hash-file.js';
export interface HashBatch {
  id: number;
  tasks: HashTask[];
}
export interface HashBatchResult {
  id: number;
  results: HashResult[];
}

/**
 * The built package starts hash-worker.js directly. Run from source (tsx, as the tests do), the
 * worker is hash-worker.ts, and Node 20 does not apply the parent's `--import=tsx` hooks inside
 * workers, so a one-line bootstrap registers tsx there first.
 */
function startWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./hash-worker.js', import.meta.url));
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const worker = new URL('./hash-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(worker)}); });`;
  return new Worker(bootstrap, { eval: true });
}

const BATCH_FILES = 64;
/** Below this much work, starting threads costs more than it saves: hash in this thread. */
const INLINE_BYTES = 16 * 1024 * 1024;
const INLINE_FILES = 256;
const BATCH_BYTES = 8 * 1024 * 1024;

interface Pending {
  tasks: HashTask[];
  resolve: (results: HashResult[]) => void;
  reject: (err: Error) => void;
}

export class HashPool {
  private readonly workers: Worker[] = [];
  private readonly idle: Worker[] = [];
  private readonly queue: Pending[] = [];
  private readonly inFlight = new Map<number, Pending>();
  private readonly assigned = new Map<Worker, number>();
  private nextId = 1;
  private closed = false;

  constructor(readonly size = Math.max(1, os.availableParallelism?.() ?? os.cpus().length)) {}

  private spawn(): Worker {
    const worker = startWorker();
    worker.on('message', (msg: HashBatchResult) => {
      const pending = this.inFlight.get(msg.id);
      this.inFlight.delete(msg.id);
      this.assigned.delete(worker);
      pending?.resolve(msg.results);
      this.idle.push(worker);
      this.pump();
    });
    worker.on('error', (err) => {
      const id = this.assigned.get(worker);
      const pending = id === undefined ? undefined : this.inFlight.get(id);
      if (id !== undefined) this.inFlight.delete(id);
      pending?.reject(err);
      this.assigned.delete(worker);
      const i = this.workers.indexOf(worker);
      if (i >= 0) this.workers.splice(i, 1);
      this.pump();
    });
    this.workers.push(worker);
    return worker;
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let worker = this.idle.pop();
      if (!worker && this.workers.length < this.size) worker = this.spawn();
      if (!worker) return;
      const pending = this.queue.shift()!;
      const id = this.nextId++;
      this.inFlight.set(id, pending);
      this.assigned.set(worker, id);
      worker.postMessage({ id, tasks: pending.tasks } satisfies HashBatch);
    }
  }

  private runBatch(tasks: HashTask[]): Promise<HashResult[]> {
    if (this.closed) return Promise.reject(new Error('The hash pool is closed.'));
    return new Promise((resolve, reject) => {
      this.queue.push({ tasks, resolve, reject });
      this.pump();
    });
  }

  /** Hashes every task; results in task order. `sizes` (bytes per task) shape the batches. */
  async hashAll(tasks: HashTask[], sizes: number[], onDone?: (count: number, bytes: number) => void): Promise<HashResult[]> {
    const results: HashResult[] = new Array(tasks.length);
    const total = sizes.reduce((a, b) => a + b, 0);
    if (total <= INLINE_BYTES && tasks.length <= INLINE_FILES) {
      for (let i = 0; i < tasks.length; i++) {
        results[i] = await hashFile(tasks[i].path, tasks[i].algorithms);
        onDone?.(1, sizes[i]);
      }
      return results;
    }
    const jobs: Promise<void>[] = [];
    let start = 0;
    while (start < tasks.length) {
      let end = start;
      let bytes = 0;
      while (end < tasks.length && end - start < BATCH_FILES && (end === start || bytes + sizes[end] <= BATCH_BYTES)) {
        bytes += sizes[end];
        end++;
      }
      const from = start;
      const batchBytes = bytes;
      jobs.push(
        this.runBatch(tasks.slice(from, end)).then((r) => {
          r.forEach((res, i) => (results[from + i] = res));
          onDone?.(r.length, batchBytes);
        }),
      );
      start = end;
    }
    await Promise.all(jobs);
    return results;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
    this.idle.length = 0;
  }
}
