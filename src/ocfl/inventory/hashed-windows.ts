/**
 * A file of a storage read in windows of a few MiB into a sink that takes them one by one (the
 * windowed inventory reader, inventory/windows.ts), and hashed as they come with the digest
 * algorithm the sink learns from the bytes themselves (an inventory names its own): the file is
 * never held whole. The windows before the algorithm is known are kept until it is (an inventory
 * names it in its first lines).
 */
import { createHash, type Hash } from 'node:crypto';
import type { ReadStorage } from '../storage/storage.js';

/** Bytes per window: the peak of a windowed read is what it keeps plus about two windows. */
const WINDOW_BYTES = 4 * 1024 * 1024;

/** Bytes kept while the algorithm is unknown; past this the windowed read gives up (read the file whole). */
const UNHASHED_MAX = 64 * 1024 * 1024;

export interface WindowSink {
  /** Takes the next window (its bytes reused after the call: copy what is kept); false: read no further. */
  write(window: Buffer): boolean;
  /** The digest algorithm the bytes name, once read. */
  readonly digestAlgorithm: string | undefined;
}

/**
 * Reads the file at `path` into `sink` and hashes it: answers the algorithm, the hex digest and the size, or
 * undefined when the sink stopped the read, the algorithm is not sha512 or sha256 (or not named in
 * the first 64 MiB), or the file could not be read (the caller then reads it whole, and words
 * any error as it always has).
 */
export async function readHashedWindows(
  storage: ReadStorage,
  path: string,
  sink: WindowSink,
): Promise<{ algorithm: string; digest: string; size: number } | undefined> {
  let stream: AsyncIterable<Buffer> & { destroy?: () => void };
  try {
    // One window read into again and again where the storage can (a local folder): no garbage.
    stream = storage.readInto?.(path, Buffer.allocUnsafe(WINDOW_BYTES)) ?? storage.readStream(path, { highWaterMark: WINDOW_BYTES });
  } catch {
    return undefined;
  }
  let hash: Hash | undefined;
  let unhashed: Buffer[] = [];
  let unhashedBytes = 0;
  let size = 0;
  try {
    for await (const window of stream) {
      size += window.length;
      if (!sink.write(window)) return undefined;
      if (hash) {
        hash.update(window);
        continue;
      }
      unhashed.push(Buffer.from(window));
      unhashedBytes += window.length;
      const algorithm = sink.digestAlgorithm;
      if (algorithm === undefined) {
        if (unhashedBytes > UNHASHED_MAX) return undefined;
        continue;
      }
      if (algorithm !== 'sha512' && algorithm !== 'sha256') return undefined;
      hash = createHash(algorithm);
      for (const w of unhashed) hash.update(w);
      unhashed = [];
    }
  } catch {
    return undefined;
  } finally {
    stream.destroy?.();
  }
  return hash && { algorithm: sink.digestAlgorithm!, digest: hash.digest('hex'), size };
}
