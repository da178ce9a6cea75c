/**
 * One read of every content file of an object, computing in that read everything the audit needs:
 * the manifest digest and every fixity digest the inventory records for the file, plus, for LOB
 * files, a digest algorithm the inventory lacks (the cell's), character counts of CLOBs whose
 * length is not their byte count, the digest of a split LOB as a whole (its parts are read in order
 * in one pass), and the archive messageDigest range of a `.siard`.
 *
 * Plain files are hashed through hashStored (ocfl/validate/hash-stored.ts: the worker-thread pool
 * for a folder root, streamed reads for an object store); files that need more than digests are
 * read here, in order, through the storage.
 */
import { MultiHasher } from '../ocfl/digest.js';
import type { ReadStorage } from '../ocfl/storage/storage.js';
import { LobCounter, type LobCounts } from '../siard/reader/verify-lob.js';

export type TextCounts = Required<LobCounts>;

/** A special read: several content files in order, with per-file and whole-run computations. */
export interface SequentialJob {
  /** storage paths, read in this order */
  files: string[];
  /** algorithms per file (same index as files) */
  algorithms: string[][];
  /** digest algorithms over all files joined (a split LOB's whole digest) */
  wholeAlgorithms?: string[];
  /** count characters over all files joined (UTF-8 text) */
  countText?: boolean;
  /** hash bytes [0, end) of the first file with these algorithms (the archive messageDigest) */
  prefix?: { end: number; algorithms: string[] };
}

export interface FileDigests {
  digests?: Record<string, string>;
  size?: number;
  error?: string;
}

export interface SequentialResult {
  files: FileDigests[];
  whole?: Record<string, string>;
  text?: TextCounts;
  prefix?: Record<string, string>;
  error?: string;
}

export async function runSequential(job: SequentialJob, storage: ReadStorage): Promise<SequentialResult> {
  const whole = job.wholeAlgorithms?.length ? await MultiHasher.create(job.wholeAlgorithms) : undefined;
  const prefix = job.prefix ? await MultiHasher.create(job.prefix.algorithms) : undefined;
  // Characters counted as the reader counts them (verify-lob.ts), over the parts joined.
  const text = job.countText ? new LobCounter(true) : undefined;
  const files: FileDigests[] = [];
  let error: string | undefined;
  for (const [i, file] of job.files.entries()) {
    const hasher = await MultiHasher.create(job.algorithms[i]!);
    let offset = 0;
    try {
      for await (const chunk of storage.readStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
        hasher.update(chunk);
        whole?.update(chunk);
        text?.add(chunk);
        if (prefix && i === 0 && offset < job.prefix!.end)
          prefix.update(chunk.subarray(0, Math.min(chunk.length, job.prefix!.end - offset)));
        offset += chunk.length;
      }
      files.push({ digests: hasher.digests(), size: hasher.size });
    } catch (err) {
      error ??= (err as Error).message;
      files.push({ error: (err as Error).message });
    }
  }
  const counts = text?.end();
  const result: SequentialResult = { files };
  if (!error) {
    if (whole) result.whole = whole.digests();
    if (counts) result.text = counts as TextCounts; // a text counter counts characters
    if (prefix && job.prefix!.end <= (files[0]?.size ?? 0)) result.prefix = prefix.digests();
  } else result.error = error;
  return result;
}
