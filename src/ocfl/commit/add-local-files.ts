/**
 * Files of the local filesystem into a staged version, as `put` stores a folder. Each file is read
 * once by a thread of the hash pool, which writes the copy into the stage and computes every
 * digest in that same read: the hashing, the one cost that grows with the bytes, runs on every
 * core instead of this one (sha512 on one core of this machine: ~490 MB/s). Batches are hashed
 * while the previous batch is being placed. A new version of an existing object hashes first and
 * copies only the content the object does not hold yet. On an object store the pool only hashes, and
 * each new file is uploaded from where it is (addToStore). For a handful of files, files go one by
 * one through addFile.
 */
import { SiardOcflError } from '../../errors.js';
import { forEachConcurrent } from '../concurrent.js';
import type { AddedFile, StagedVersion } from './stage.js';
import { HashPool, type HashResult } from '../validate/hash-pool.js';

export interface LocalFile {
  logicalPath: string;
  absolute: string;
  size: number;
}

/** Files handed to the pool at once, and placed (renamed into the stage) at once. */
const BATCH_FILES = 512;
const PLACE_PARALLEL = 8;

/** Uploads to an object store in flight at once (small files are latency-bound PUTs). */
const UPLOAD_PARALLEL = 16;

function startPool(files: LocalFile[]): HashPool {
  const pool = new HashPool();
  pool.prepare(
    files.reduce((n, f) => n + f.size, 0),
    files.length,
  );
  return pool;
}

function digestsRead(file: LocalFile, result: HashResult): Record<string, string> {
  if (result.error !== undefined || !result.digests) {
    throw new SiardOcflError(`Cannot read ${file.absolute} (for "${file.logicalPath}"): ${result.error ?? 'no digest'}.`, {
      code: 'UNREADABLE',
      exitCode: 2,
    });
  }
  return result.digests;
}

/**
 * A version on an object store: files are hashed by the pool (every core), batch after batch, and
 * each new one is uploaded from its file while the next batch is hashed; content the object holds
 * is never sent.
 */
async function addToStore(staged: StagedVersion, files: LocalFile[], onAdded?: (added: AddedFile) => void): Promise<void> {
  const algorithms = [staged.digestAlgorithm, ...staged.fixityAlgorithms];
  const pool = startPool(files);
  const hash = (batch: LocalFile[]) =>
    pool.hashAll(
      batch.map((f) => ({ path: f.absolute, algorithms })),
      batch.map((f) => f.size),
    );
  try {
    let next = hash(files.slice(0, BATCH_FILES));
    for (let start = 0; start < files.length; start += BATCH_FILES) {
      const batch = files.slice(start, start + BATCH_FILES);
      const results = await next;
      if (start + BATCH_FILES < files.length) next = hash(files.slice(start + BATCH_FILES, start + 2 * BATCH_FILES));
      await forEachConcurrent(batch, UPLOAD_PARALLEL, async (f, i) => {
        const r = results[i]!;
        onAdded?.(await staged.addHashedLocal(f.logicalPath, f.absolute, digestsRead(f, r), r.size ?? 0));
      });
    }
  } finally {
    await pool.close();
  }
}

export async function addLocalFiles(staged: StagedVersion, files: LocalFile[], onAdded?: (added: AddedFile) => void): Promise<void> {
  if (files.length >= 2 * BATCH_FILES && staged.storesContentRemotely) return addToStore(staged, files, onAdded);
  if (files.length < 2 * BATCH_FILES || !(await staged.incomingFile())) {
    await forEachConcurrent(files, PLACE_PARALLEL, async (f) => onAdded?.(await staged.addFile(f.logicalPath, f.absolute, f.size)));
    return;
  }
  const algorithms = [staged.digestAlgorithm, ...staged.fixityAlgorithms];
  const pool = startPool(files);
  type Read = { file: LocalFile; incoming?: string; result: HashResult };
  /** Hashes a batch on the pool; with `copy`, each file is also written into the stage in the same read. */
  const readBatch = async (batch: LocalFile[], copy: boolean): Promise<Read[]> => {
    const targets: Array<{ incoming: string; absolute: string } | undefined> = [];
    for (let i = 0; i < batch.length; i++) targets.push(copy ? (await staged.incomingFile())! : undefined);
    const results = await pool.hashAll(
      batch.map((f, i) => ({ path: f.absolute, algorithms, ...(copy ? { copyTo: targets[i]!.absolute } : {}) })),
      batch.map((f) => f.size),
    );
    return batch.map((file, i) => ({ file, incoming: targets[i]?.incoming, result: results[i]! }));
  };
  const digestsOf = ({ file, result }: Read) => digestsRead(file, result);
  const place = (read: Read[]) =>
    forEachConcurrent(read, PLACE_PARALLEL, async (r) => {
      onAdded?.(await staged.addCopied(r.file.logicalPath, r.incoming!, digestsOf(r), r.result.size ?? 0));
    });
  // A new version of an existing object mostly holds content stored already: its files are first
  // only hashed, and the new ones copied afterwards (copying every file to discard most copies
  // cost 3x the CPU of put v2). When most of a batch turns out new, copying in the same read resumes.
  let copying = !staged.updatesExisting;
  try {
    let next = readBatch(files.slice(0, BATCH_FILES), copying);
    for (let start = 0; start < files.length; start += BATCH_FILES) {
      const read = await next;
      // The next batch is read and hashed while this one is placed.
      if (start + BATCH_FILES < files.length) next = readBatch(files.slice(start + BATCH_FILES, start + 2 * BATCH_FILES), copying);
      if (read[0]?.incoming !== undefined) {
        await place(read);
        continue;
      }
      const fresh: LocalFile[] = [];
      await forEachConcurrent(read, PLACE_PARALLEL, async (r) => {
        const added = await staged.addIfStored(r.file.logicalPath, digestsOf(r), r.result.size ?? 0);
        if (added) onAdded?.(added);
        else fresh.push(r.file);
      });
      if (fresh.length > 0) await place(await readBatch(fresh, true));
      if (fresh.length * 2 > read.length) copying = true;
    }
  } finally {
    await pool.close();
  }
}
