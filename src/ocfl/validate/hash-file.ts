/** Computes every requested digest of one file in a single read. */
import { hash } from 'node:crypto';
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { MultiHasher, nodeAlgorithmOf } from '../digest.js';

export interface HashResult {
  digests?: Record<string, string>;
  size?: number;
  error?: string;
}

const buffer = Buffer.allocUnsafe(1024 * 1024);

/** Where the bytes read are also written (a copy made in the same read), or nothing. */
type Sink = ((bytes: Uint8Array) => void) | undefined;

/** Reads the rest of an open file into `hasher`, after the `filled` bytes already in the buffer. */
function streamInto(fd: number, filled: number, hasher: MultiHasher, sink: Sink): HashResult {
  if (filled > 0) {
    hasher.update(buffer.subarray(0, filled));
    sink?.(buffer.subarray(0, filled));
  }
  for (;;) {
    const n = readSync(fd, buffer, 0, buffer.length, null);
    if (n === 0) break;
    hasher.update(buffer.subarray(0, n));
    sink?.(buffer.subarray(0, n));
  }
  return { digests: hasher.digests(), size: hasher.size };
}

/**
 * Runs `read` on the open file, with a sink writing to `copyTo` (created, never overwritten)
 * when asked; any failure (open, read, write) becomes the result's error, and a copy begun is removed.
 */
function withFile(file: string, copyTo: string | undefined, read: (fd: number, sink: Sink) => HashResult): HashResult {
  let fd: number | undefined;
  let out: number | undefined;
  try {
    fd = openSync(file, 'r');
    if (copyTo !== undefined) out = openSync(copyTo, 'wx');
    const target = out;
    const sink: Sink =
      target === undefined
        ? undefined
        : (bytes) => {
            for (let off = 0; off < bytes.length;) off += writeSync(target, bytes, off, bytes.length - off);
          };
    const result = read(fd, sink);
    if (out !== undefined) {
      closeSync(out);
      out = undefined;
    }
    return result;
  } catch (err) {
    if (out !== undefined) {
      closeSync(out);
      out = undefined;
      rmSync(copyTo!, { force: true });
    }
    return { error: (err as Error).message };
  } finally {
    if (fd !== undefined) closeSync(fd);
    if (out !== undefined) closeSync(out);
  }
}

/**
 * Algorithms Node computes itself: synchronous (no promise per file), and a file that fits in the
 * buffer is digested in one call per algorithm, without hash objects (most content files of a
 * SIARD object are small LOBs: the per-file cost is what counts there).
 */
function hashSync(file: string, algorithms: string[], nodeNames: string[], copyTo: string | undefined): HashResult {
  return withFile(file, copyTo, (fd, sink) => {
    let filled = readSync(fd, buffer, 0, buffer.length, null);
    if (filled < buffer.length) {
      const more = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (more === 0) {
        const bytes = buffer.subarray(0, filled);
        const digests: Record<string, string> = {};
        algorithms.forEach((a, i) => (digests[a] = hash(nodeNames[i], bytes, 'hex')));
        sink?.(bytes);
        return { digests, size: filled };
      }
      filled += more;
    }
    return streamInto(fd, filled, MultiHasher.createSync(algorithms), sink);
  });
}

/**
 * Synchronous when every algorithm allows it; the short BLAKE2b variants need hash-wasm.
 * `copyTo`: a new file that receives the bytes in the same read (put copies and hashes at once).
 */
export function hashFile(file: string, algorithms: string[], copyTo?: string): HashResult | Promise<HashResult> {
  const nodeNames = algorithms.map(nodeAlgorithmOf);
  if (nodeNames.every((n): n is string => n !== undefined)) return hashSync(file, algorithms, nodeNames, copyTo);
  return MultiHasher.create(algorithms).then(
    (hasher) => withFile(file, copyTo, (fd, sink) => streamInto(fd, 0, hasher, sink)),
    (err: Error) => ({ error: err.message }),
  );
}
