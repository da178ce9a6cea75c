/**
 * A table's XML deflated in segments (docs/resume.md): the writer of the rows marks a cut after a
 * row (table-data.ts, about every SEGMENT_CHARS of XML), and each segment is deflated on its own,
 * in one call on the thread pool, ending with a full flush (the last one with the end of the
 * stream). A segment's bytes therefore depend only on its own rows, never on how the source
 * batched them or on what came before: a run that resumes a table after its k-th cut, with a fresh
 * deflater, writes the bytes an uninterrupted run writes. A full flush costs 5 bytes per segment.
 * One segment is compressed while the rows of the next are made, as the streamed deflate did.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const deflateRaw = promisify(zlib.deflateRaw) as (input: Buffer, options: zlib.ZlibOptions) => Promise<Buffer>;

/** A cut between two rows: what the rows' writer knew there (`state`, opaque here). */
export interface SegmentCut {
  readonly cut: true;
  readonly state?: unknown;
}

export function isSegmentCut(chunk: unknown): chunk is SegmentCut {
  return typeof chunk === 'object' && chunk !== null && (chunk as SegmentCut).cut === true;
}

/** An entry's CRC-32 and sizes, so far or whole. */
export interface SegmentSums {
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
}

/**
 * Deflates `source` segment by segment into `emit`; after a cut's segment is emitted, `onCut` is
 * awaited with the sums so far and the cut's state. `start`: the sums of the segments an
 * interrupted run wrote before (the entry goes on after them).
 */
export async function deflateSegments(
  source: AsyncIterable<Buffer | string | SegmentCut>,
  level: number,
  emit: (chunk: Buffer) => Promise<void>,
  onCut?: (sums: SegmentSums, state: unknown) => Promise<void>,
  start: SegmentSums = { crc32: 0, compressedSize: 0, uncompressedSize: 0 },
): Promise<SegmentSums> {
  const sums = { ...start };
  let parts: Buffer[] = [];
  // the segment being compressed, with the CRC and size of the data up to its end
  let inFlight: { done: Promise<Buffer>; cut: SegmentCut | undefined; crc32: number; uncompressedSize: number } | undefined;
  const land = async () => {
    if (!inFlight) return;
    const { done, cut, crc32, uncompressedSize } = inFlight;
    inFlight = undefined;
    const out = await done;
    await emit(out);
    sums.compressedSize += out.length;
    if (cut) await onCut?.({ crc32, uncompressedSize, compressedSize: sums.compressedSize }, cut.state);
  };
  const launch = async (cut: SegmentCut | undefined) => {
    const input = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    parts = [];
    sums.crc32 = zlib.crc32(input, sums.crc32) >>> 0;
    sums.uncompressedSize += input.length;
    const flush = cut ? zlib.constants.Z_FULL_FLUSH : zlib.constants.Z_FINISH;
    const done = deflateRaw(input, { level, finishFlush: flush });
    // the previous segment's bytes go out (and its cut is made durable) while this one compresses
    await land();
    inFlight = { done, cut, crc32: sums.crc32, uncompressedSize: sums.uncompressedSize };
  };
  for await (const chunk of source) {
    if (isSegmentCut(chunk)) await launch(chunk);
    else if (typeof chunk === 'string') parts.push(Buffer.from(chunk, 'utf8'));
    else if (chunk.length > 0) parts.push(chunk);
  }
  await launch(undefined);
  await land();
  return sums;
}
