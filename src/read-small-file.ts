/**
 * Small files read on this thread with synchronous calls.
 *
 * Every asynchronous fs call is a round trip through libuv's thread pool (another thread woken,
 * then ours); a stream over a file of a few KiB makes four of them (open, read, read to the end,
 * close) and allocates a 64 KiB buffer outside the heap, which V8 counts towards its next full
 * collection. For the millions of small LOB files of an object that cost far more than the bytes:
 * restoring 10,000 LOBs of 2-4 KiB took 1.3 ms of CPU per LOB. A regular file of at most
 * SMALL_FILE_BYTES is read whole (open, fstat, read, read to the end, close) into a buffer of its
 * size; anything else (a larger file, a missing one, a FIFO) is left to the caller's usual read,
 * which reports errors as before.
 */
import { closeSync, constants, createReadStream, fstatSync, openSync, readSync } from 'node:fs';
import { Readable } from 'node:stream';

export const SMALL_FILE_BYTES = 1 << 20;

/** Bytes read after the size fstat gave, to notice a file that grew (read until the end, as a stream does). */
const TAIL_PROBE = 64 * 1024;
/** Shared by every read: almost always it receives nothing (the end of the file). */
const probe = Buffer.allocUnsafe(TAIL_PROBE);

/**
 * The whole of `file` when it is a regular file of at most SMALL_FILE_BYTES, else undefined (also
 * when it cannot be opened: the caller's usual read says why). `noFollow`: a symbolic link as last
 * component throws the open's ELOOP error instead (O_NOFOLLOW: no lstat before the open).
 */
export function readSmallFile(file: string, options: { noFollow?: boolean } = {}): Buffer | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait here for a writer.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | (options.noFollow ? constants.O_NOFOLLOW : 0));
  } catch (err) {
    if (options.noFollow && (err as NodeJS.ErrnoException).code === 'ELOOP') throw err;
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    return st.isFile() && st.size <= SMALL_FILE_BYTES ? readToEnd(fd, st.size) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export interface OpenFileOptions {
  highWaterMark?: number;
  /**
   * Opens with O_NOFOLLOW: when the last component is a symbolic link the stream is what this
   * returns instead (or fails with what it throws).
   */
  onLink?: () => Readable;
}

/** `file` as a stream; errors (a missing file, a folder) arrive as the stream's 'error', as with createReadStream. */
export function openFileStream(file: string, options: OpenFileOptions = {}): Readable {
  const { onLink, ...streamOptions } = options;
  let whole: Buffer | undefined;
  try {
    whole = readSmallFile(file, { noFollow: onLink !== undefined });
  } catch {
    try {
      return onLink!();
    } catch (linkErr) {
      const stream = new Readable({ read() {} });
      process.nextTick(() => stream.destroy(linkErr as Error));
      return stream;
    }
  }
  if (!whole) return createReadStream(file, streamOptions);
  const stream = new Readable({ read() {} });
  if (whole.length > 0) stream.push(whole);
  stream.push(null);
  return stream;
}

function readToEnd(fd: number, size: number): Buffer {
  const buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const n = readSync(fd, buffer, filled, size - filled, null);
    if (n === 0) return buffer.subarray(0, filled); // shrank since fstat
    filled += n;
  }
  const more: Buffer[] = [];
  for (;;) {
    const n = readSync(fd, probe, 0, TAIL_PROBE, null);
    if (n === 0) break;
    more.push(Buffer.from(probe.subarray(0, n)));
  }
  return more.length === 0 ? buffer : Buffer.concat([buffer, ...more]);
}
