/**
 * Files of the local filesystem into a staged version, as `put` stores a folder. Each file is read
 * once by a thread of the hash pool, which writes the copy into the stage and computes every
 * digest in that same read: the hashing, the one cost that grows with the bytes, runs on every
 * core instead of this one (sha512 on one core of this machine: ~490 MB/s). Batches are hashed
 * while the previous batch is being placed. Where the workspace is not a local folder, or for a
 * handful of files, files go one by one through addFile.
 */
import { SiardOcflError } from '../errors.js';
import { forEachConcurrent } from './concurrent.js';
import type { AddedFile, StagedVersion } from './stage.js';
import { HashPool, type HashResult } from './validate/hash-pool.js';

export interface LocalFile {
  logicalPath: string;
  absolute: string;
  size: number;
}

/** Files handed to the pool at once, and placed (renamed into the stage) at once. */
const BATCH_FILES = 512;
const PLACE_PARALLEL = 8;

export async function addLocalFiles(staged: StagedVersion, files: LocalFile[], onAdded?: (added: AddedFile) => void): Promise<void> {
  if (files.length < 2 * BATCH_FILES || !(await staged.incomingFile())) {
    await forEachConcurrent(files, PLACE_PARALLEL, async (f) => onAdded?.(await staged.addFile(f.logicalPath, f.absolute, f.size)));
    return;
  }
  const algorithms = [staged.digestAlgorithm, ...staged.fixityAlgorithms];
  const pool = new HashPool();
  pool.prepare(files.reduce((n, f) => n + f.size, 0), files.length);
  const copyBatch = async (batch: LocalFile[]): Promise<Array<{ file: LocalFile; incoming: string; result: HashResult }>> => {
    const targets: Array<{ incoming: string; absolute: string }> = [];
    for (let i = 0; i < batch.length; i++) targets.push((await staged.incomingFile())!);
    const results = await pool.hashAll(
      batch.map((f, i) => ({ path: f.absolute, algorithms, copyTo: targets[i]!.absolute })),
      batch.map((f) => f.size),
    );
    return batch.map((file, i) => ({ file, incoming: targets[i]!.incoming, result: results[i]! }));
  };
  try {
    let next = copyBatch(files.slice(0, BATCH_FILES));
    for (let start = 0; start < files.length; start += BATCH_FILES) {
      const copied = await next;
      // The next batch is read and hashed while this one is placed.
      if (start + BATCH_FILES < files.length) next = copyBatch(files.slice(start + BATCH_FILES, start + 2 * BATCH_FILES));
      await forEachConcurrent(copied, PLACE_PARALLEL, async ({ file, incoming, result }) => {
        if (result.error !== undefined || !result.digests) {
          throw new SiardOcflError(`Cannot read ${file.absolute} (for "${file.logicalPath}"): ${result.error ?? 'no digest'}.`, { code: 'UNREADABLE', exitCode: 2 });
        }
        onAdded?.(await staged.addCopied(file.logicalPath, incoming, result.digests, result.size ?? 0));
      });
    }
  } finally {
    await pool.close();
  }
}
