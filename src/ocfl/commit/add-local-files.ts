/**
 * Files of the local filesystem into a staged version, as `put` stores a folder. Each file is read
 * once by a thread of the hash pool, which writes the copy into the stage and computes every
 * digest in that same read: the hashing, the one cost that grows with the bytes, runs on every
 * core instead of this one (sha512 on one core of this machine: ~490 MB/s). Batches are hashed
 * while the previous batch is being placed. A new version of an existing object hashes first and
 * copies only the content the object does not hold yet. On an object store the pool only hashes, and
 * each new file is uploaded from where it is (addToStore), whatever the number of files. For a
 * handful of files on a folder root, files go one by one through addFile.
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
/**
 * Bytes of uploads in flight at once: a file up to 8 MiB is one PUT of its bytes, a larger one a
 * multipart upload holding up to 48 MiB (storage/s3.ts uploadParts: four parts of 8 MiB being sent,
 * the one being filled and the file stream's next chunk).
 */
const UPLOAD_BYTES = 96 * 1024 * 1024;
const LARGE_UPLOAD_BYTES = 48 * 1024 * 1024;
/** What the pool hashes at once on the way to an object store, and how many such slices ahead of the uploads. */
const SLICE_BYTES = 8 * 1024 * 1024;
const SLICE_FILES = 64;
const SLICES_AHEAD = 4;

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
 * A version on an object store: files are hashed by the pool (every core) a few MiB at a time,
 * kept ahead of the uploads, and each new one is uploaded from its file (read again, from the
 * page cache) as soon as its digest is known, while the next ones are hashed; content the object
 * holds is never sent. Whole 512-file batches hashed before the first upload left the gateway
 * idle meanwhile; streaming each file through addFile instead cost this thread a copy of every
 * chunk for the hashing threads (put of 328 MiB: 3.3 s of CPU against the SDK's 1.9 s with sha512).
 */
async function addToStore(staged: StagedVersion, files: LocalFile[], onAdded?: (added: AddedFile) => void): Promise<void> {
  const algorithms = [staged.digestAlgorithm, ...staged.fixityAlgorithms];
  const pool = startPool(files);
  const slices = slicesOf(files);
  /** Each slice's results while some file of it waits for them (a million files' digests are not all kept). */
  const hashed = new Map<number, { results: Promise<HashResult[]>; waiting: number }>();
  let asked = 0;
  /** Hashes the slices up to `last` that are not asked for yet (in order: the pool keeps it). */
  const hashUpTo = (last: number) => {
    for (; asked <= Math.min(last, slices.length - 1); asked++) {
      const { start, end } = slices[asked]!;
      const batch = files.slice(start, end);
      const results = pool.hashAll(
        batch.map((f) => ({ path: f.absolute, algorithms })),
        batch.map((f) => f.size),
      );
      results.catch(() => {}); // awaited by its files' uploads; not unhandled while they wait
      hashed.set(asked, { results, waiting: end - start });
    }
  };
  const sliceOf = new Uint32Array(files.length);
  slices.forEach(({ start, end }, s) => sliceOf.fill(s, start, end));
  const inFlight = new ByteBudget(UPLOAD_BYTES);
  try {
    await forEachConcurrent(files, UPLOAD_PARALLEL, async (f, i) => {
      const s = sliceOf[i]!;
      hashUpTo(s + SLICES_AHEAD);
      const slice = hashed.get(s)!;
      if (--slice.waiting === 0) hashed.delete(s);
      const r = (await slice.results)[i - slices[s]!.start]!;
      const digests = digestsRead(f, r);
      const cost = Math.min(r.size ?? 0, LARGE_UPLOAD_BYTES);
      await inFlight.take(cost);
      try {
        onAdded?.(await staged.addHashedLocal(f.logicalPath, f.absolute, digests, r.size ?? 0));
      } finally {
        inFlight.give(cost);
      }
    });
  } finally {
    await pool.close();
  }
}

/** Consecutive files of at most SLICE_BYTES (or one larger file), SLICE_FILES at most: what the pool hashes at once. */
function slicesOf(files: LocalFile[]): Array<{ start: number; end: number }> {
  const slices: Array<{ start: number; end: number }> = [];
  let start = 0;
  while (start < files.length) {
    let end = start + 1;
    let bytes = files[start]!.size;
    while (end < files.length && end - start < SLICE_FILES && bytes + files[end]!.size <= SLICE_BYTES) bytes += files[end++]!.size;
    slices.push({ start, end });
    start = end;
  }
  return slices;
}

/** Bytes of uploads in flight: memory held by PUT bodies and multipart parts (one upload always goes). */
class ByteBudget {
  private used = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async take(bytes: number): Promise<void> {
    while (this.used > 0 && this.used + bytes > this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.used += bytes;
  }

  give(bytes: number): void {
    this.used -= bytes;
    for (const wake of this.waiting.splice(0)) wake();
  }
}

export async function addLocalFiles(staged: StagedVersion, files: LocalFile[], onAdded?: (added: AddedFile) => void): Promise<void> {
  if (staged.storesContentRemotely) return addToStore(staged, files, onAdded);
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
