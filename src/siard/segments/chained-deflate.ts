/**
 * Deflates a table's XML piece by piece so that the compressed size is exact after every piece and
 * the stream can be cut between any two pieces, while it compresses as one stream would.
 *
 * Each piece is deflated on its own (zlib's thread pool) with a sync flush at its end (byte-aligned,
 * not final) and the previous 32 KiB of text as preset dictionary, the way pigz joins blocks: the
 * pieces concatenated are one raw deflate stream, closed by an empty final block (DEFLATE_END). A
 * piece deflated without the dictionary (`restart`) refers to nothing before it, so the bytes from
 * there on are a complete stream of their own: that is where a table file may be cut into parts.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const deflateRaw = promisify(zlib.deflateRaw);
const WINDOW = 32 * 1024;

/** An empty final block with fixed codes: ends a raw deflate stream after a sync flush. */
export const DEFLATE_END = Buffer.from([0x03, 0x00]);

/** Most bytes `n` bytes can deflate to with a sync flush (stored blocks, 5 bytes per 16 KiB and the flush). */
function deflateBound(n: number): number {
  return n + Math.ceil(n / 2048) + 64;
}

/** Largest n with deflateBound(n) <= bytes (0 when none). */
export function largestFitting(bytes: number): number {
  let n = Math.max(0, Math.floor(((bytes - 64) * 2048) / 2049));
  while (n > 0 && deflateBound(n) > bytes) n--;
  return n;
}

export class ChainedDeflate {
  private tail: Buffer = Buffer.alloc(0);

  constructor(private readonly level: number) {}

  /**
   * `piece` deflated and sync-flushed, after the text taken so far (`restart`: after nothing). It
   * is only a trial until `take` is called: a piece that does not fit is deflated again elsewhere.
   */
  async compress(piece: Buffer, restart: boolean): Promise<Buffer> {
    const options: zlib.ZlibOptions = { level: this.level, finishFlush: zlib.constants.Z_SYNC_FLUSH };
    if (!restart && this.tail.length > 0) options.dictionary = this.tail;
    return deflateRaw(piece, options);
  }

  /** `piece` (compressed with the same `restart`) is now part of the stream. */
  take(piece: Buffer, restart: boolean): void {
    const before = restart ? Buffer.alloc(0) : this.tail;
    this.tail =
      piece.length >= WINDOW ? Buffer.from(piece.subarray(piece.length - WINDOW)) : Buffer.concat([before, piece]).subarray(-WINDOW);
  }
}
