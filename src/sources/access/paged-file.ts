/**
 * An Access file handed to mdb-reader page by page instead of whole. mdb-reader asks its buffer for
 * `length`, its first bytes (page type, format version, engine name), a copy of page 0, and
 * otherwise only `slice(start, end)` of one page at a time (Database.getPage). This object answers
 * those from the open file: `slice` reads the bytes with one pread, every other property comes from
 * the first page read once. So a 2 GB file costs what the reader holds (a batch of rows, one table
 * definition), not 2 GB. The shape it relies on is checked by test/unit/sources/access/paged-file.test.ts.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** Bytes read at open: the largest Access page (4 KiB; Jet 3 pages are 2 KiB). */
const FIRST_PAGE_BYTES = 4096;

export interface PagedFile {
  /** stands in for the Buffer of the whole file */
  readonly buffer: Buffer;
  readonly size: number;
  /** slices read so far and the largest, in bytes (the bench and the test of this shape) */
  stats(): { reads: number; largest: number };
  close(): void;
}

export function openPagedFile(file: string): PagedFile {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const first = read(fd, 0, Math.min(FIRST_PAGE_BYTES, size));
    let reads = 0;
    let largest = 0;
    const slice = (start = 0, end = size): Buffer => {
      const from = Math.max(0, Math.min(start, size));
      const length = Math.max(0, Math.min(end, size) - from);
      reads++;
      largest = Math.max(largest, length);
      return read(fd, from, length);
    };
    const buffer = new Proxy(first, {
      get(target, key) {
        if (key === 'length' || key === 'byteLength') return size;
        if (key === 'slice' || key === 'subarray') return slice;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    return { buffer, size, stats: () => ({ reads, largest }), close: () => closeSync(fd) };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function read(fd: number, position: number, length: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, out, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done === length ? out : out.subarray(0, done);
}
