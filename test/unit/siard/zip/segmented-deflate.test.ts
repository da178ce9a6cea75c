/**
 * A table's XML deflated in segments (segmented-deflate.ts, docs/resume.md), checked against zlib
 * itself: the whole output inflates (node's inflateRawSync) to the input; at each cut the sums
 * given are the CRC-32 (zlib.crc32) and length of the input before it and the bytes emitted so far;
 * the bytes after a cut inflate alone, with a fresh inflater, to the input after it (no state
 * crosses a cut); another chunking of the same rows gives the same bytes; and a run that starts
 * after cut k with its sums writes exactly the rest of the uninterrupted output. Then the same
 * through ZipWriter: an entry stopped at a cut and continued by another writer (ZipWriter.resume
 * with the open entry) gives the archive one writer makes, byte for byte.
 */
import test from 'ava';
import { Writable } from 'node:stream';
import zlib from 'node:zlib';
import { deflateSegments, type SegmentCut, type SegmentSums } from '../../../../src/siard/zip/segmented-deflate.js';
import { ZipWriter, type EntryCut } from '../../../../src/siard/zip/writer.js';

function rows(from: number, to: number): string {
  let s = '';
  for (let i = from; i < to; i++) s += `<row><c1>${i}</c1><c2>value ${(i * 7919) % 100_003}</c2></row>\n`;
  return s;
}

/** The input as chunks of `chunkRows` rows, a cut after every `cutRows` rows. */
function* input(total: number, cutRows: number, chunkRows: number, from = 0): Generator<Buffer | SegmentCut> {
  for (let i = from; i < total;) {
    const nextCut = (Math.floor(i / cutRows) + 1) * cutRows;
    const end = Math.min(total, i + chunkRows, nextCut);
    yield Buffer.from(rows(i, end));
    if (end === nextCut && end < total) yield { cut: true, state: end };
    i = end;
  }
}

async function deflateAll(
  source: Iterable<Buffer | SegmentCut>,
  start?: SegmentSums,
): Promise<{ out: Buffer; cuts: Array<{ sums: SegmentSums; rows: number; at: number }>; sums: SegmentSums }> {
  const parts: Buffer[] = [];
  let length = 0;
  const cuts: Array<{ sums: SegmentSums; rows: number; at: number }> = [];
  const sums = await deflateSegments(
    (async function* () {
      yield* source;
    })(),
    1,
    async (chunk) => {
      parts.push(chunk);
      length += chunk.length;
    },
    async (s, state) => {
      cuts.push({ sums: s, rows: state as number, at: length });
    },
    start,
  );
  return { out: Buffer.concat(parts), cuts, sums };
}

const TOTAL = 60_000;
const CUT = 20_000;

test('each cut gives the CRC and sizes of what is before it, and the output after it inflates alone', async (t) => {
  const { out, cuts, sums } = await deflateAll(input(TOTAL, CUT, 500));
  const text = Buffer.from(rows(0, TOTAL));
  t.deepEqual(zlib.inflateRawSync(out), text);
  t.is(sums.crc32, zlib.crc32(text) >>> 0);
  t.is(sums.uncompressedSize, text.length);
  t.is(sums.compressedSize, out.length);
  t.deepEqual(
    cuts.map((c) => c.rows),
    [CUT, 2 * CUT],
  );
  for (const cut of cuts) {
    const before = Buffer.from(rows(0, cut.rows));
    t.is(cut.sums.crc32, zlib.crc32(before) >>> 0);
    t.is(cut.sums.uncompressedSize, before.length);
    t.is(cut.sums.compressedSize, cut.at);
    // a fresh inflater from the cut on: nothing of the segments before is needed
    t.deepEqual(zlib.inflateRawSync(out.subarray(cut.at)), Buffer.from(rows(cut.rows, TOTAL)));
  }
});

test('another chunking of the same rows, cut at the same rows, gives the same bytes', async (t) => {
  const a = await deflateAll(input(TOTAL, CUT, 500));
  const b = await deflateAll(input(TOTAL, CUT, 37));
  t.true(a.out.equals(b.out));
});

test('a run that starts after a cut with its sums writes the rest of the uninterrupted output', async (t) => {
  const whole = await deflateAll(input(TOTAL, CUT, 500));
  const cut = whole.cuts[0]!;
  const rest = await deflateAll(input(TOTAL, CUT, 300, cut.rows), cut.sums);
  t.true(rest.out.equals(whole.out.subarray(cut.at)));
  t.deepEqual(rest.sums, whole.sums);
});

function collector(): { stream: Writable; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _e, cb) {
      chunks.push(Buffer.from(chunk));
      cb();
    },
  });
  return { stream, bytes: () => Buffer.concat(chunks) };
}

const mtime = new Date('2026-11-29T00:00:00Z');
const NAME = 'content/schema0/table0/table0.xml';

test('a ZIP entry stopped at a cut and continued by another writer is the archive one writer makes', async (t) => {
  const one = collector();
  const zip = await ZipWriter.create(one.stream, { compressionLevel: 1, mtime });
  const cuts: EntryCut[] = [];
  await zip.addDirectory('content/');
  await zip.addSegmented(NAME, input(TOTAL, CUT, 400), { onCut: async (c) => void cuts.push(c) });
  await zip.addBuffer('content/schema0/table0/table0.xsd', '<xs:schema/>');
  await zip.close();
  const whole = one.bytes();
  t.is(cuts.length, 2);

  const cut = cuts[1]!;
  const two = collector();
  const prefix = whole.subarray(0, cut.offset);
  two.stream.write(prefix);
  const hash = (await import('node:crypto')).createHash('sha256').update(prefix);
  t.is(hash.copy().digest('hex'), cut.sha256);
  const entries = [{ name: 'content/', isDirectory: true, method: 0, crc32: 0, compressedSize: 0, uncompressedSize: 0, offset: 0 }];
  const dir = zip.recordsSince(0)[0]!;
  const resumed = ZipWriter.resume(
    two.stream,
    { compressionLevel: 1, mtime },
    {
      offset: cut.offset,
      entries: [{ ...entries[0]!, flags: dir.flags, dosTime: dir.dosTime, dosDate: dir.dosDate }],
      hash,
      open: { entry: cut.entry, sums: cut.sums },
    },
  );
  t.is(resumed.continuedEntry, NAME);
  await resumed.addSegmented(NAME, input(TOTAL, CUT, 250, 2 * CUT));
  await resumed.addBuffer('content/schema0/table0/table0.xsd', '<xs:schema/>');
  await resumed.close();
  t.true(two.bytes().equals(whole));
});
