/**
 * The objects of a storage root on a folder, each checked whole (structure and digests) by one of
 * a few worker threads (object-worker.ts), one per core: the results come back in the walk's order
 * whichever finished first. The main thread only hands out objects and gathers what they found.
 */
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { Findings } from './findings.js';
import { startWorker } from './hash-pool.js';
import type { ObjectCheck, ObjectCheckOptions } from './object.js';
import type { ObjectJob, ObjectReply } from './object-worker.js';

/**
 * Objects checked at once while their root inventories add up to at most this: each worker holds
 * its object's inventory (a compact form of a few times its bytes), so two objects of 200,000 files
 * side by side took 1.2x the peak of checking them one after the other. An object alone always runs.
 */
const INVENTORY_BYTES_AT_ONCE = 32 * 1024 * 1024;

export interface ObjectWorkersOptions extends Pick<ObjectCheckOptions, 'onPlan' | 'onHashed'> {
  fixity: boolean;
  /** The size of each object's root inventory (0 when unknown), in the order of `dirs`. */
  inventoryBytes: readonly number[];
  /** Root inventory bytes checked at once (default INVENTORY_BYTES_AT_ONCE); an object alone always runs. */
  inventoryBytesAtOnce?: number;
  /** Called when an object has been checked, in the order they finish. */
  onObject?: (index: number) => void;
}

/** Checks `dirs` (paths below the folder `location`, named in findings as `displays`); results in their order. */
export async function checkObjectsInWorkers(
  location: string,
  dirs: readonly string[],
  displays: readonly string[],
  options: ObjectWorkersOptions,
): Promise<ObjectCheck[]> {
  const checks = new Array<ObjectCheck>(dirs.length);
  const threads = Math.max(1, Math.min(dirs.length, os.availableParallelism?.() ?? os.cpus().length));
  const workers: Worker[] = [];
  const sizes = options.inventoryBytes;
  const budget = options.inventoryBytesAtOnce ?? INVENTORY_BYTES_AT_ONCE;
  const idle: Worker[] = [];
  let next = 0;
  let running = 0;
  let runningBytes = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      let done = 0;
      const give = (worker: Worker) => {
        if (next >= dirs.length) return;
        if (running > 0 && runningBytes + sizes[next]! > budget) return void idle.push(worker);
        const n = next++;
        running++;
        runningBytes += sizes[n]!;
        worker.postMessage({ n, location, dir: dirs[n]!, display: displays[n]!, fixity: options.fixity } satisfies ObjectJob);
      };
      for (let i = 0; i < threads; i++) {
        const worker = startWorker('object-worker');
        workers.push(worker);
        worker.on('message', (r: ObjectReply) => {
          if (r.kind === 'failed') return reject(new Error(r.message));
          if (r.kind !== 'done') return r.kind === 'planned' ? options.onPlan?.(r.files, r.bytes) : options.onHashed?.(r.files, r.bytes);
          const findings = new Findings();
          for (const f of [...r.errors, ...r.warnings]) findings.add(f.code, f.message, f.path);
          checks[r.n] = { findings, files: r.files, bytes: r.bytes, ...(r.id !== undefined ? { id: r.id } : {}) };
          if (r.specVersion !== undefined) checks[r.n]!.specVersion = r.specVersion;
          options.onObject?.(r.n);
          running--;
          runningBytes -= sizes[r.n]!;
          if (++done === dirs.length) return resolve();
          give(worker);
          for (const waiting of idle.splice(0)) give(waiting);
        });
        worker.on('error', reject);
        give(worker);
      }
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return checks;
}
