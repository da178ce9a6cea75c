/** Computes every requested digest of one file in a single read. */
import { closeSync, openSync, readSync } from 'node:fs';
import { MultiHasher } from '../digest.js';

export interface HashResult {
  digests?: Record<string, string>;
  size?: number;
  error?: string;
}

const buffer = Buffer.allocUnsafe(1024 * 1024);

export async function hashFile(file: string, algorithms: string[]): Promise<HashResult> {
  let fd: number | undefined;
  try {
    const hasher = await MultiHasher.create(algorithms);
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
