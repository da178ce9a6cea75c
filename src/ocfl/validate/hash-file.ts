/** Computes every requested digest of one file in a single read. */
import { closeSync, openSync, readSync } from 'node:fs';
import { MultiHasher } from '../digest.js';

export interface HashResult {
  digests?: Record<string, string>;
  size?: number;
  error?: string;
}

const buffer = Buffer.allocUnsafe(1024 * 1024);
/** Algorithms Node computes itself; the short BLAKE2b variants need hash-wasm (asynchronous set-up). */
const NEEDS_ASYNC = new Set(['blake2b-160', 'blake2b-256', 'blake2b-384']);

function readInto(file: string, hasher: MultiHasher): HashResult {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hasher.update(buffer.subarray(0, n));
    }
    return { digests: hasher.digests(), size: hasher.size };
  } catch (err) {
    return { error: (err as Error).message };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Synchronous when every algorithm allows it (no promise per file: many small files go faster). */
export function hashFile(file: string, algorithms: string[]): HashResult | Promise<HashResult> {
  if (!algorithms.some((a) => NEEDS_ASYNC.has(a))) {
    try {
      return readInto(file, MultiHasher.createSync(algorithms));
    } catch (err) {
      return { error: (err as Error).message };
    }
  }
  return MultiHasher.create(algorithms).then(
    (hasher) => readInto(file, hasher),
    (err: Error) => ({ error: err.message }),
  );
}
