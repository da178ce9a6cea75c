/** Computes every requested digest of one file in a single read. */
import { hash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { MultiHasher, nodeAlgorithmOf } from '../digest.js';

export interface HashResult {
  digests?: Record<string, string>;
  size?: number;
  error?: string;
}

const buffer = Buffer.allocUnsafe(1024 * 1024);

/** Reads the rest of an open file into `hasher`, after the `filled` bytes already in the buffer. */
function streamInto(fd: number, filled: number, hasher: MultiHasher): HashResult {
  if (filled > 0) hasher.update(buffer.subarray(0, filled));
  for (;;) {
    const n = readSync(fd, buffer, 0, buffer.length, null);
    if (n === 0) break;
    hasher.update(buffer.subarray(0, n));
  }
  return { digests: hasher.digests(), size: hasher.size };
}

/** Runs `read` on the open file; any failure (open, read) becomes the result's error. */
function withFile(file: string, read: (fd: number) => HashResult): HashResult {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    return read(fd);
  } catch (err) {
    return { error: (err as Error).message };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Algorithms Node computes itself: synchronous (no promise per file), and a file that fits in the
 * buffer is digested in one call per algorithm, without hash objects (most content files of a
 * SIARD object are small LOBs: the per-file cost is what counts there).
 */
function hashSync(file: string, algorithms: string[], nodeNames: string[]): HashResult {
  return withFile(file, (fd) => {
    let filled = readSync(fd, buffer, 0, buffer.length, null);
    if (filled < buffer.length) {
      const more = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (more === 0) {
        const bytes = buffer.subarray(0, filled);
        const digests: Record<string, string> = {};
        algorithms.forEach((a, i) => (digests[a] = hash(nodeNames[i], bytes, 'hex')));
        return { digests, size: filled };
      }
      filled += more;
    }
    return streamInto(fd, filled, MultiHasher.createSync(algorithms));
  });
}

/** Synchronous when every algorithm allows it; the short BLAKE2b variants need hash-wasm. */
export function hashFile(file: string, algorithms: string[]): HashResult | Promise<HashResult> {
  const nodeNames = algorithms.map(nodeAlgorithmOf);
  if (nodeNames.every((n): n is string => n !== undefined)) return hashSync(file, algorithms, nodeNames);
  return MultiHasher.create(algorithms).then(
    (hasher) => withFile(file, (fd) => streamInto(fd, 0, hasher)),
    (err: Error) => ({ error: err.message }),
  );
}
