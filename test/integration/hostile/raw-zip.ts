/**
 * A deliberately naive ZIP writer for hostile archives: it writes whatever names, sizes and
 * CRCs it is told (including `../x`, `/etc/x`, NUL bytes, sizes that lie) and can cut the file
 * short. The project's own ZipWriter refuses such input, which is why the corpus needs this.
 * Entries are stored or raw-deflated; content may be a Buffer or a generator of chunks (for
 * bombs: gigabytes of output from a few hundred KiB on disk, never held in memory).
 */
import { closeSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import zlib from 'node:zlib';

export interface RawEntry {
  /** written byte for byte (latin1 of the string unless `nameBytes` is given) */
  name: string;
  nameBytes?: Buffer;
  data: Buffer | (() => Iterable<Buffer>);
  deflate?: boolean;
  /** overrides for the central directory (lying headers) */
  declaredUncompressedSize?: number;
  declaredCrc?: number;
}

export interface RawZipOptions {
  /** drop this many bytes from the end of the file (cuts into the central directory / EOCD) */
  truncateTail?: number;
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}
function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

function localHeader(nameBytes: Buffer, method: number, crc: number, csize: number, usize: number): Buffer {
  return Buffer.concat([
    u32(0x04034b50),
    u16(20),
    u16(0x0800),
    u16(method),
    u16(0),
    u16(0x21),
    u32(crc),
    u32(csize),
    u32(usize),
    u16(nameBytes.length),
    u16(0),
    nameBytes,
  ]);
}

export function writeRawZip(file: string, entries: RawEntry[], options: RawZipOptions = {}): void {
  const fd = openSync(file, 'w');
  let offset = 0;
  const write = (b: Buffer) => {
    writeSync(fd, b, 0, b.length, offset);
    offset += b.length;
  };
  const central: Buffer[] = [];
  try {
    for (const e of entries) {
      const nameBytes = e.nameBytes ?? Buffer.from(e.name, 'utf8');
      const method = e.deflate ? 8 : 0;
      const start = offset;
      write(localHeader(nameBytes, method, 0, 0, 0)); // patched below
      let crc = 0;
      let usize = 0;
      const chunks = Buffer.isBuffer(e.data) ? [e.data] : e.data();
      if (e.deflate) {
        // Each chunk is an independent run of non-final deflate blocks (sync flush), so the same
        // chunk compresses to the same bytes: a bomb of identical chunks costs one compression.
        let last: Buffer | undefined;
        let lastOut: Buffer | undefined;
        for (const chunk of chunks) {
          crc = zlib.crc32(chunk, crc);
          usize += chunk.length;
          if (chunk !== last) {
            last = chunk;
            lastOut = zlib.deflateRawSync(chunk, { level: 9, finishFlush: zlib.constants.Z_SYNC_FLUSH });
          }
          write(lastOut!);
        }
        write(Buffer.from([0x03, 0x00])); // an empty final fixed-Huffman block ends the stream
      } else {
        for (const chunk of chunks) {
          crc = zlib.crc32(chunk, crc);
          usize += chunk.length;
          write(chunk);
        }
      }
      const csize = offset - start - 30 - nameBytes.length;
      writeSync(fd, localHeader(nameBytes, method, crc, csize, usize), 0, 30 + nameBytes.length, start);
      central.push(
        Buffer.concat([
          u32(0x02014b50),
          u16(0x031e),
          u16(20),
          u16(0x0800),
          u16(method),
          u16(0),
          u16(0x21),
          u32(e.declaredCrc ?? crc),
          u32(csize),
          u32(e.declaredUncompressedSize ?? usize),
          u16(nameBytes.length),
          u16(0),
          u16(0),
          u16(0),
          u16(0),
          u32(0o100644 << 16),
          u32(start),
          nameBytes,
        ]),
      );
    }
    const cdStart = offset;
    for (const c of central) write(c);
    write(
      Buffer.concat([
        u32(0x06054b50),
        u16(0),
        u16(0),
        u16(entries.length),
        u16(entries.length),
        u32(offset - cdStart),
        u32(cdStart),
        u16(0),
      ]),
    );
    if (options.truncateTail) ftruncateSync(fd, Math.max(0, fstatSync(fd).size - options.truncateTail));
  } finally {
    closeSync(fd);
  }
}

/** `total` bytes of `fill` in 1 MiB chunks, lazily. */
export function* repeated(fill: string, total: number): Generator<Buffer> {
  const block = Buffer.alloc(1 << 20, fill);
  for (let left = total; left > 0; left -= block.length) yield left >= block.length ? block : block.subarray(0, left);
}
