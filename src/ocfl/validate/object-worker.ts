/**
 * Worker thread of a storage root's validation on a folder (object-workers.ts): checks one whole
 * object at a time, structure and digests, hashing its files here. For many small files the
 * checks (inventory, walk, comparisons) cost more than the hashing, and on the main thread alone
 * they kept the hashing threads waiting half the time; an object per thread runs them on every core.
 */
import { parentPort } from 'node:worker_threads';
import { FileSystemStorage } from '../storage/fs.js';
import { HashPool } from './hash-pool.js';
import { checkObject } from './object.js';
import type { SpecVersion } from './inventory.js';
import type { Finding } from './findings.js';

/** An object to check: the storage root's folder, the object's path below it, how findings name it. */
export interface ObjectJob {
  n: number;
  location: string;
  dir: string;
  display: string;
  fixity: boolean;
}

export type ObjectReply =
  | { kind: 'planned' | 'hashed'; n: number; files: number; bytes: number }
  | {
      kind: 'done';
      n: number;
      errors: Finding[];
      warnings: Finding[];
      id?: string;
      specVersion?: SpecVersion;
      files: number;
      bytes: number;
    }
  | { kind: 'failed'; n: number; message: string };

/** No threads of its own: this thread is one of the pool's. */
const pool = new HashPool(0);
const storages = new Map<string, FileSystemStorage>();
/** Progress is told after this many files or bytes (a message per small file would cost more than its hash). */
const TELL_FILES = 1024;
const TELL_BYTES = 16 * 1024 * 1024;

parentPort!.on('message', async (job: ObjectJob) => {
  const reply = (r: ObjectReply) => parentPort!.postMessage(r);
  try {
    let fs = storages.get(job.location);
    if (!fs) storages.set(job.location, (fs = new FileSystemStorage(job.location)));
    const hashed = { files: 0, bytes: 0 };
    const tell = () => {
      if (hashed.files > 0) reply({ kind: 'hashed', n: job.n, ...hashed });
      hashed.files = hashed.bytes = 0;
    };
    const check = await checkObject(fs, job.dir, {
      fixity: job.fixity,
      pool,
      // Every content file is hashed on this thread: its size comes with it, not from a stat in the walk.
      sizesFromHashing: true,
      display: job.display,
      onPlan: (files, bytes) => reply({ kind: 'planned', n: job.n, files, bytes }),
      onHashed: (files, bytes) => {
        hashed.files += files;
        hashed.bytes += bytes;
        if (hashed.files >= TELL_FILES || hashed.bytes >= TELL_BYTES) tell();
      },
    });
    tell();
    const { errors, warnings } = check.findings;
    reply({
      kind: 'done',
      n: job.n,
      errors,
      warnings,
      id: check.id,
      specVersion: check.specVersion,
      files: check.files,
      bytes: check.bytes,
    });
  } catch (err) {
    reply({ kind: 'failed', n: job.n, message: (err as Error).message });
  }
});
