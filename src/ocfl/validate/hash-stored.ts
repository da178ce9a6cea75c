/**
 * Hashing stored files through the storage's read capability. A local folder hands its paths to
 * the worker threads of a HashPool (one read per file, one thread per core); other backends
 * (an object store) stream each file here, several at once, since their cost is the round trip.
 */
import { MultiHasher } from '../digest.js';
import { forEachConcurrent } from '../concurrent.js';
import { joinPath, type ReadStorage } from '../storage/storage.js';
import type { HashPool, HashResult, HashTask } from './hash-pool.js';

/** Streams in flight against a remote store: enough to hide latency, few enough to bound memory (1 MiB each). */
const REMOTE_READS_AT_ONCE = 16;

/** Digests one stored file in one streamed read. */
async function hashOneStored(storage: ReadStorage, rel: string, algorithms: string[]): Promise<HashResult> {
  try {
    const hasher = await MultiHasher.create(algorithms);
    for await (const chunk of storage.readStream(rel) as AsyncIterable<Buffer>) hasher.update(chunk);
    return { digests: hasher.digests(), size: hasher.size };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/**
 * Hashes `rels` (below `base`) with their algorithms; results in the same order. `sizes` shape
 * the worker batches and feed `onDone` (files, bytes).
 */
export async function hashStored(
  storage: ReadStorage,
  base: string,
  rels: string[],
  algorithms: string[][],
  sizes: number[],
  pool: HashPool,
  onDone?: (files: number, bytes: number) => void,
): Promise<HashResult[]> {
  const local = storage.localPath?.bind(storage);
  if (local) {
    const tasks: HashTask[] = rels.map((rel, i) => ({ path: local(joinPath(base, rel)), algorithms: algorithms[i]! }));
    return pool.hashAll(tasks, sizes, onDone);
  }
  const results: HashResult[] = new Array(rels.length);
  await forEachConcurrent(rels, REMOTE_READS_AT_ONCE, async (rel, i) => {
    results[i] = await hashOneStored(storage, joinPath(base, rel), algorithms[i]!);
    onDone?.(1, sizes[i]!);
  });
  return results;
}
