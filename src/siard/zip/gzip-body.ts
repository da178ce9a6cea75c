/**
 * The body of a gzip stream: zlib's gzip wrapper deflates exactly as raw deflate does (same level,
 * window and memory), and computes the CRC-32 on the thread pool while it compresses. Taking off
 * its 10-byte header and 8-byte trailer (CRC-32, size mod 2^32; RFC 1952) leaves the bytes
 * createDeflateRaw gives, and the CRC a ZIP entry needs, without a pass over the data on the main
 * thread.
 */
import { Transform, type TransformCallback } from 'node:stream';

const HEADER = 10;
const TRAILER = 8;

export class GzipBody extends Transform {
  private skip = HEADER;
  private held: Buffer = Buffer.alloc(0);
  private trailer: Buffer | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.skip > 0) {
      if (this.skip === HEADER && chunk.length > 3 && chunk[3] !== 0) {
        callback(new Error('zlib wrote a gzip header with optional fields; its body cannot be cut out.'));
        return;
      }
      const cut = Math.min(this.skip, chunk.length);
      this.skip -= cut;
      chunk = chunk.subarray(cut);
    }
    // the last TRAILER bytes seen so far may be the trailer: hold them back
    const all = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
    const keep = Math.min(TRAILER, all.length);
    this.held = Buffer.from(all.subarray(all.length - keep));
    if (all.length > keep) this.push(all.subarray(0, all.length - keep));
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.skip > 0 || this.held.length !== TRAILER) {
      callback(new Error('The gzip stream ended before its trailer.'));
      return;
    }
    this.trailer = this.held;
    callback();
  }

  /** The CRC-32 of the uncompressed data (after the stream ended). */
  get crc32(): number {
    if (!this.trailer) throw new Error('The gzip stream has not ended.');
    return this.trailer.readUInt32LE(0);
  }

  /** The uncompressed size mod 2^32 (after the stream ended). */
  get sizeMod32(): number {
    if (!this.trailer) throw new Error('The gzip stream has not ended.');
    return this.trailer.readUInt32LE(4);
  }
}
