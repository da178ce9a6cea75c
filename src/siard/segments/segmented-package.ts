/**
 * A segmented SIARD file (SIARD 2.2 draft S_8.5-0 and S_8.6-0, `--max-siard-bytes N`): the archive
 * written as `[db].siard.1`, `[db].siard.2`, ... `[db].siard.z`, no file larger than N bytes, each a
 * complete ZIP64 SIARD package with its own `header/`. When everything fits in N bytes the result
 * is one ordinary `[db].siard`.
 *
 * Tables: a table that fits in what is left of the current segment goes there whole; one that does
 * not, but fits in an empty segment, starts the next segment whole (S_8.5-0); only a table larger
 * than a segment is cut (S_8.6-0): `tableN.xml.1` fills the current segment, `.2`, ... take whole
 * segments, `.z` ends in the segment where the next tables follow. The parts concatenated are the
 * bytes of the unsplit `tableN.xml`; each is a ZIP entry of its own (chained-deflate.ts cuts the
 * deflate stream where a part ends). `tableN.xsd` is written once, beside part `.1` as the draft
 * shows it, or beside `.z` when it depends on the rows (arrays longer than can be declared whole).
 *
 * Header: every segment holds the same header/metadata.xml, describing the whole database, except
 * for its messageDigest, which covers that segment's own bytes before `header/`. So any one segment
 * says what it is part of and can be checked on its own, and no segment depends on another to be
 * read. Since the metadata (row counts, LOB folders) is known only after the last row, every segment
 * stays open until the end and gets its header then; room for the header is kept in each from a
 * worst-case metadata.xml (header-reserve.ts).
 *
 * Names: each segment is opened as `.1`, `.2`, ...; at the end the last is renamed `.z` (or, alone,
 * `[db].siard`) before it is closed, so its bytes are written once (OutputFile.renameTo).
 *
 * Memory: a table's compressed bytes wait in a Spill (memory, then a scratch file) only until the
 * name of their entry is known; nothing else is held.
 */
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { SiardOcflError } from '../../errors.js';
import { HEADER_DEFLATE_LEVEL } from '../header-deflate.js';
import type { OutputFile, OutputSink } from '../output-sink.js';
import {
  writeHeader,
  type PackageHeader,
  type PackageTable,
  type PackageZipOptions,
  type SiardPackageWriter,
  type WrittenPackage,
} from '../package-writer.js';
import { writableOf } from '../writable.js';
import { METHOD_DEFLATE } from '../zip/format.js';
import { isSegmentCut } from '../zip/segmented-deflate.js';
import { ZipWriter } from '../zip/writer.js';
import { ChainedDeflate, DEFLATE_END, largestFitting } from './chained-deflate.js';
import { partName, type PartNumber } from './segment-names.js';
import { Spill } from './spill.js';

export interface SegmentedPackageOptions extends PackageZipOptions {
  /** the whole archive's name, e.g. "Northwind.siard" */
  base: string;
  /** no segment file is larger */
  maxBytes: number;
  /** bytes of a header metadata.xml at most (deflated), see header-reserve.ts */
  metadataXmlBound: number;
  metadataXsd: Buffer;
  /** folder for spill files */
  scratchDir: string;
}

interface Segment {
  part: number;
  relPath: string;
  out: OutputFile;
  zip: ZipWriter;
  dirs: Set<string>;
  /** central directory bytes of its entries (ZIP64 extras counted at their largest) */
  central: number;
}

/** Bytes of compressed table data between two cut points, with the CRC and length of their text. */
interface Region {
  spill: Spill;
  crc: number;
  length: number;
}

const LOCAL_FIXED = 30;
const ZIP64_LOCAL_EXTRA = 20;
const CENTRAL_FIXED = 46;
const ZIP64_CENTRAL_EXTRA_MAX = 28;
const END_RECORDS = 56 + 20 + 22;
/** Longest part suffix counted when a table entry's size is planned ('.' and up to 10 digits). */
const PART_SUFFIX_MAX = 11;
/** Text deflated at once at most: the granularity of cuts and of the size check. */
const MAX_PIECE = 1024 * 1024;
/** An empty segment must have at least this much room for table data. */
const MIN_CONTENT_ROOM = 4 * 1024;

const byteLength = (name: string) => Buffer.byteLength(name, 'utf8');
const dirCost = (name: string) => LOCAL_FIXED + CENTRAL_FIXED + ZIP64_CENTRAL_EXTRA_MAX + 2 * byteLength(name);
const fileCost = (name: string, nameExtra = 0) =>
  LOCAL_FIXED + ZIP64_LOCAL_EXTRA + CENTRAL_FIXED + ZIP64_CENTRAL_EXTRA_MAX + 2 * (byteLength(name) + nameExtra);

/** The folders an entry lies in, outermost first: content/, content/schema0/, content/schema0/table2/. */
function foldersOf(entry: string): string[] {
  const parts = entry.split('/');
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) out.push(parts.slice(0, i).join('/') + '/');
  return out;
}

export class SegmentedPackage implements SiardPackageWriter {
  /** a table's parts may already be in a segment when its source fails: provisional tables are settled first */
  readonly takesBack = false;
  private readonly segments: Segment[] = [];
  private readonly requestedDirs: string[] = [];
  private readonly spills = new Set<Spill>();
  private readonly headerBytes: number;
  private readonly level: number;

  constructor(
    private readonly sink: OutputSink,
    private readonly options: SegmentedPackageOptions,
  ) {
    this.level = options.compressionLevel ?? zlib.constants.Z_DEFAULT_COMPRESSION;
    const xsd = zlib.deflateRawSync(options.metadataXsd, { level: HEADER_DEFLATE_LEVEL }).length;
    this.headerBytes =
      dirCost('header/') +
      dirCost('header/siardversion/2.2/') +
      fileCost('header/metadata.xsd') +
      xsd +
      fileCost('header/metadata.xml') +
      options.metadataXmlBound +
      END_RECORDS;
    const least = this.headerBytes + dirCost('content/') + 3 * dirCost('content/schema0/table0/') + MIN_CONTENT_ROOM;
    if (!Number.isSafeInteger(options.maxBytes) || options.maxBytes < least) {
      throw new SiardOcflError(
        `--max-siard-bytes ${options.maxBytes} is too small: each segment needs ${this.headerBytes} bytes for its header ` +
          `and room for table data; use at least ${least}.`,
        { code: 'BAD_OPTION', exitCode: 2 },
      );
    }
  }

  /** Folders are written where their entries go; one that gets no entry (an empty schema) goes in the last segment. */
  async addDirectory(name: string): Promise<void> {
    this.requestedDirs.push(name.endsWith('/') ? name : `${name}/`);
  }

  async addTable(table: PackageTable): Promise<void> {
    const xsdBefore = Buffer.from(table.xsdBefore, 'utf8');
    const xsdCost = fileCost(table.xsdName) + zlib.deflateRawSync(xsdBefore, { level: this.level }).length;
    const writer = new TableWriter(this, table, xsdCost);
    try {
      await writer.run();
    } finally {
      await writer.dispose();
    }
  }

  async finish(header: PackageHeader): Promise<WrittenPackage> {
    if (this.segments.length === 0) await this.newSegment();
    const last = this.segments.at(-1)!;
    for (const d of this.requestedDirs) if (!this.segments.some((s) => s.dirs.has(d))) await this.ensureFolders(last, `${d}x`);
    const warnings: string[] = [];
    const files: WrittenPackage['files'] = [];
    const alone = this.segments.length === 1;
    for (const seg of this.segments) {
      const mark = await seg.zip.markDigestEnd();
      await writeHeader(seg.zip, header, mark.sha256);
      const closed = await seg.zip.close();
      const relPath = alone ? this.options.base : seg === last ? partName(this.options.base, 'z') : seg.relPath;
      if (closed.size > this.options.maxBytes) {
        const over = closed.size - this.options.maxBytes;
        warnings.push(
          `${relPath} is ${closed.size} bytes, ${over} more than --max-siard-bytes: ` +
            'its metadata.xml came out larger than the room kept for it.',
        );
      }
      if (relPath !== seg.relPath) await seg.out.renameTo!(relPath);
      const written = await seg.out.close();
      files.push({ ...written, relPath, messageDigest: mark.sha256 });
    }
    return { files, warnings };
  }

  async abort(): Promise<void> {
    for (const s of this.spills) await s.dispose();
    for (const seg of this.segments) {
      await seg.zip.abort().catch(() => undefined);
      await seg.out.abort().catch(() => undefined);
    }
  }

  // ---- used by TableWriter ----

  get compressionLevel(): number {
    return this.level;
  }

  newSpill(): Spill {
    const s = new Spill(this.options.scratchDir);
    this.spills.add(s);
    return s;
  }

  async dropSpill(s: Spill): Promise<void> {
    this.spills.delete(s);
    await s.dispose();
  }

  get current(): Segment | undefined {
    return this.segments.at(-1);
  }

  /** Bytes table data may take in `seg` (an empty new segment when undefined) for an entry `name` plus its XSD. */
  room(seg: Segment | undefined, name: string, after: number): number {
    const free = seg ? this.options.maxBytes - seg.zip.offset - seg.central - this.headerBytes : this.options.maxBytes - this.headerBytes;
    const folders = foldersOf(name)
      .filter((d) => !seg?.dirs.has(d))
      .reduce((n, d) => n + dirCost(d), 0);
    return free - folders - fileCost(name, PART_SUFFIX_MAX) - DEFLATE_END.length - after;
  }

  async newSegment(): Promise<Segment> {
    const part = this.segments.length + 1;
    const relPath = partName(this.options.base, part);
    const out = await this.sink.openFile(relPath, { digests: [] });
    if (!out.renameTo) {
      await out.abort();
      throw new SiardOcflError(
        'This output cannot rename a file before closing it, which a segmented SIARD file needs (its last segment is named .z at the end).',
        { code: 'SINK_RENAME' },
      );
    }
    const zip = await ZipWriter.create(writableOf(out), { compressionLevel: this.options.compressionLevel, mtime: this.options.mtime });
    const seg: Segment = { part, relPath, out, zip, dirs: new Set(), central: 0 };
    this.segments.push(seg);
    return seg;
  }

  /** Writes the folders of `entry` that `seg` does not hold yet. */
  async ensureFolders(seg: Segment, entry: string): Promise<void> {
    for (const d of foldersOf(entry)) {
      if (seg.dirs.has(d)) continue;
      await seg.zip.addDirectory(d);
      seg.dirs.add(d);
      seg.central += CENTRAL_FIXED + ZIP64_CENTRAL_EXTRA_MAX + byteLength(d);
    }
  }

  /** Adds a deflated entry made of `regions` (one deflate stream once DEFLATE_END is appended). */
  async addRegions(seg: Segment, name: string, regions: Region[], crc: number, length: number): Promise<void> {
    await this.ensureFolders(seg, name);
    const compressed = regions.reduce((n, r) => n + r.spill.size, 0) + DEFLATE_END.length;
    const body = async function* () {
      for (const r of regions) yield* r.spill.read();
      yield DEFLATE_END;
    };
    const sizes = { compressedSize: compressed, uncompressedSize: length };
    const entry = { name, compressionMethod: METHOD_DEFLATE, crc32: crc >>> 0, ...sizes, mtime: this.options.mtime };
    await seg.zip.addRaw(entry, Readable.from(body()));
    seg.central += CENTRAL_FIXED + ZIP64_CENTRAL_EXTRA_MAX + byteLength(name);
  }

  /** Adds the XSD to `seg`, or to a new segment when it came out larger than the room kept for it. */
  async addXsd(seg: Segment, name: string, xsd: string): Promise<void> {
    const bytes = Buffer.from(xsd, 'utf8');
    const cost = fileCost(name) + zlib.deflateRawSync(bytes, { level: this.level }).length;
    const folders = foldersOf(name)
      .filter((d) => !seg.dirs.has(d))
      .reduce((n, d) => n + dirCost(d), 0);
    const free = this.options.maxBytes - seg.zip.offset - seg.central - this.headerBytes - folders;
    const target = cost <= free ? seg : await this.newSegment();
    await this.ensureFolders(target, name);
    await target.zip.addBuffer(name, bytes);
    target.central += CENTRAL_FIXED + ZIP64_CENTRAL_EXTRA_MAX + byteLength(name);
  }
}

/**
 * One table through the segments. Modes: 'current' (it may still fit whole in the current
 * segment), 'fresh' (it may fit whole in an empty segment; what would fill the current one is kept
 * apart as region 0, a possible part .1), 'split' (each region becomes a part).
 */
class TableWriter {
  private readonly deflate: ChainedDeflate;
  private regions: Region[] = [];
  private mode: 'current' | 'fresh' | 'split';
  private part = 1;
  private crcAll = 0;
  private lengthAll = 0;
  private xsdWritten = false;
  private readonly start: Segment | undefined;

  constructor(
    private readonly pkg: SegmentedPackage,
    private readonly table: PackageTable,
    private readonly xsdCost: number,
  ) {
    this.deflate = new ChainedDeflate(pkg.compressionLevel);
    this.start = pkg.current;
    this.mode = this.start ? 'current' : 'fresh';
    this.regions.push(this.newRegion());
  }

  async run(): Promise<void> {
    for await (const chunk of this.table.xml) {
      if (isSegmentCut(chunk)) continue; // a segmented SIARD file is not resumable: its parts are cut by size
      let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      while (buf.length > 0) buf = buf.subarray(await this.place(buf));
    }
    await this.end();
  }

  async dispose(): Promise<void> {
    for (const r of this.regions) await this.pkg.dropSpill(r.spill);
    this.regions = [];
  }

  private newRegion(): Region {
    return { spill: this.pkg.newSpill(), crc: 0, length: 0 };
  }

  /**
   * Deflates the next piece of `buf` where the table is going and returns the bytes taken: 0 when
   * it did not fit there and the table moved on (to an empty segment, or to its next part).
   */
  private async place(buf: Buffer): Promise<number> {
    const name = this.table.xmlName;
    const limit = this.pkg.room(this.mode === 'current' ? this.start : undefined, name, this.xsdCost);
    const region = this.regions.at(-1)!;
    const used = this.mode === 'split' ? region.spill.size : this.regions.reduce((n, r) => n + r.spill.size, 0);
    const restart = region.length === 0;
    let piece = buf.subarray(0, Math.min(buf.length, MAX_PIECE));
    let compressed = await this.deflate.compress(piece, restart);
    if (used + compressed.length > limit) {
      if (this.mode === 'current') {
        // Not whole in the current segment: what it holds so far may become part .1 there.
        if (used > 0) this.regions.push(this.newRegion());
        this.mode = 'fresh';
        return 0;
      }
      if (used > 0) {
        await this.cut();
        return 0;
      }
      // A part of its own and still too large (rows larger than a segment): smaller pieces until one fits.
      const sure = largestFitting(limit);
      if (sure <= 0) {
        throw new SiardOcflError(`Table data cannot be placed in a segment with ${limit} bytes of room.`, { code: 'SEGMENT_ROOM' });
      }
      while (compressed.length > limit) {
        piece = piece.subarray(0, Math.max(sure, Math.floor(piece.length / 2)));
        compressed = await this.deflate.compress(piece, restart);
      }
    }
    this.deflate.take(piece, restart);
    await region.spill.append(compressed);
    region.crc = zlib.crc32(piece, region.crc);
    region.length += piece.length;
    this.crcAll = zlib.crc32(piece, this.crcAll);
    this.lengthAll += piece.length;
    return piece.length;
  }

  /** The pending text does not fit in an empty segment: the table is split and a part written. */
  private async cut(): Promise<void> {
    if (this.mode === 'fresh') {
      // Part .1: region 0, in the current segment when it was started there, else in a new one.
      const first = this.regions.shift()!;
      const seg = this.regions.length > 0 && this.start ? this.start : await this.pkg.newSegment();
      await this.writePart(seg, first, 1);
      if (this.regions.length === 0) this.regions.push(this.newRegion());
      this.mode = 'split';
      this.part = 2;
      return;
    }
    const region = this.regions.shift()!;
    await this.writePart(await this.pkg.newSegment(), region, this.part++);
    this.regions.push(this.newRegion());
  }

  private async writePart(seg: Segment, region: Region, part: PartNumber): Promise<void> {
    await this.pkg.addRegions(seg, partName(this.table.xmlName, part), [region], region.crc, region.length);
    await this.pkg.dropSpill(region.spill);
    if (part === 1 && !this.table.xsdDependsOnRows) {
      await this.pkg.addXsd(seg, this.table.xsdName, this.table.xsdBefore);
      this.xsdWritten = true;
    }
  }

  private async end(): Promise<void> {
    let seg: Segment;
    if (this.mode === 'split') {
      seg = await this.pkg.newSegment();
      const region = this.regions.shift()!;
      await this.writePart(seg, region, 'z');
    } else {
      seg = this.mode === 'current' ? this.start! : await this.pkg.newSegment();
      await this.pkg.addRegions(seg, this.table.xmlName, this.regions, this.crcAll, this.lengthAll);
      for (const r of this.regions.splice(0)) await this.pkg.dropSpill(r.spill);
    }
    if (!this.xsdWritten) await this.pkg.addXsd(seg, this.table.xsdName, this.table.xsd());
  }
}
