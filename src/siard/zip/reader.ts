/**
 * ZIP reader for SIARD archives, built on `yauzl` (central directory, ZIP64 records, raw byte
 * ranges). What yauzl leaves to us, added here:
 * - names are decoded without yauzl's validation (which aborts the whole listing on the first bad
 *   name) and checked by our own rule instead, so unsafe entries are listed, marked, and refused
 *   when opened;
 * - inflation is ours (yauzl gives the raw range), behind a guard that verifies CRC-32 and stops
 *   as soon as the output passes the declared size or the caller's limit: a lying header or a
 *   zip bomb costs at most one zlib chunk of memory, whatever size the archive declares;
 * - errors become SiardOcflError sentences naming the archive and the entry.
 */
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';
import yauzl from 'yauzl';
import './fd-slicer-guard.js';
import { SiardOcflError } from '../../errors.js';
import { unsafeEntryNameReason } from './entry-name.js';
import { EXTRA_ZIP64, FLAG_UTF8, MAX_UINT32, METHOD_DEFLATE, METHOD_STORE, SIG_CENTRAL_HEADER, SIG_LOCAL_HEADER } from './format.js';

export interface ZipEntry {
  /** Name as stored (UTF-8 when flagged, else CP437), backslashes kept so they can be reported. */
  name: string;
  isDirectory: boolean;
  /** 0 store, 8 deflate (others are listed but cannot be opened). */
  compressionMethod: number;
  compressedSize: number;
  uncompressedSize: number;
  crc32: number;
  localHeaderOffset: number;
  mtime: Date;
  encrypted: boolean;
  /** Why the name is unsafe to extract (absolute, '..', backslash, NUL, duplicate), or null. */
  unsafeReason: string | null;
}

export interface ZipReadLimits {
  /** Refuse entries declaring more, and stop any stream producing more, than this many bytes. */
  maxUncompressedSize?: number;
  /** Refuse entries whose declared uncompressed size exceeds this multiple of the compressed size. */
  maxCompressionRatio?: number;
}

/**
 * An archive's bytes where they are not a local file (a file of an OCFL object on an object
 * store, say): its size and a stream of any byte range. Defined here so that siard/ knows nothing
 * of where the bytes are kept.
 */
export interface ByteSource {
  /** How the archive is named in messages. */
  readonly name: string;
  readonly size: number;
  /** Bytes start..end, `end` inclusive (as fs.createReadStream). */
  readRange(start: number, end: number): Readable;
}

class SourceReader extends yauzl.RandomAccessReader {
  constructor(private readonly source: ByteSource) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return end > start ? this.source.readRange(start, end - 1) : Readable.from([]);
  }
}

/** Where central directory records are read again from: the local file, or (remote archives) a copy of the directory. */
interface RecordBytes {
  /** Reads `length` bytes at the archive offset `offset` into `target`; the count read. */
  read(target: Buffer, length: number, offset: number): number;
  close(): void;
}

function fileRecords(fd: number): RecordBytes {
  let open = true;
  return {
    read: (target, length, offset) => {
      if (!open) throw new Error('the archive is closed');
      return readSync(fd, target, 0, length, offset);
    },
    close: () => {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

/** The central directory of a remote archive, read once (its records only, ~100 bytes an entry). */
function memoryRecords(start: number, bytes: Buffer): RecordBytes {
  return {
    read: (target, length, offset) => bytes.copy(target, 0, Math.max(0, offset - start), Math.max(0, offset - start) + length),
    close: () => {},
  };
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Entries whose parsed records are kept for repeated lookups (a LOB is looked up for its size, then opened). */
const RECENT_ENTRIES = 32;

/**
 * Entries of at most this many stored bytes in a local archive are read and inflated in one step
 * instead of through a stream pipeline (yauzl's read stream, inflate, the check): a received
 * package's internal LOBs are mostly a few KB, and the pipeline cost about 0.7 ms of CPU each
 * (the 2,604 LOB entries of SIARD Suite's sfdbsakila, 240 KB in all: 1.8 s).
 */
const SMALL_ENTRY = 64 * 1024;
/** Local header extra field bytes read with the header and data on the first try. */
const LOCAL_EXTRA_GUESS = 64;

/** Bytes read at a time when the whole central directory is walked (`entries`). */
const WALK_CHUNK = 1 << 20;

/**
 * Memory is independent of the entry count but for a compact index: per entry a 32-bit hash of its
 * name, the offset of its central directory record, and one sort key (about 20 bytes), so an
 * archive of a million internal LOBs costs some 20 MB, not the 1 KB per entry that parsed records
 * take. Records are read again from the file when an entry is looked up (one small read) or when
 * every entry is listed (`entries`, a sequential read of the central directory each time).
 */
export class ZipReader {
  private readonly recent = new Map<string, ZipEntry | null>();
  private readonly natives = new WeakMap<ZipEntry, yauzl.Entry>();
  private records: RecordBytes | undefined;

  private constructor(
    readonly path: string,
    private readonly source: ByteSource | undefined,
    private readonly zipfile: yauzl.ZipFile,
    records: RecordBytes,
    /** number of entries in the central directory */
    readonly entryCount: number,
    /** central directory record offsets, in directory order */
    private readonly offsets: Float64Array,
    /** (name hash << 32 | entry index), sorted: the name index */
    private readonly keys: BigUint64Array,
    /** entries after the first of the same name */
    private readonly duplicates: Set<number>,
    /** entries whose names must never be extracted, in directory order */
    readonly unsafeEntries: ZipEntry[],
    private readonly limits: ZipReadLimits,
  ) {
    this.records = records;
  }

  /** Opens `file` (a local path, or a ByteSource) and indexes its central directory (read once, sequentially). */
  static async open(file: string | ByteSource, limits: ZipReadLimits = {}): Promise<ZipReader> {
    const source = typeof file === 'string' ? undefined : file;
    const path = typeof file === 'string' ? file : file.name;
    let zipfile: yauzl.ZipFile;
    const options = { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: false };
    try {
      zipfile = source
        ? await yauzl.fromRandomAccessReaderPromise(new SourceReader(source), source.size, options)
        : await yauzl.openPromise(path, options);
    } catch (err) {
      throw archiveError(path, err);
    }
    const internals = zipfile as unknown as { readEntryCursor: number; fileSize: number };
    const directoryStart = internals.readEntryCursor;
    let cursor = directoryStart;
    // entryCount comes from the end record: never trust it for an allocation larger than the file allows.
    let capacity = Math.max(16, Math.min(zipfile.entryCount, Math.floor(internals.fileSize / 46) + 1));
    let hashes = new Uint32Array(capacity);
    let offsets = new Float64Array(capacity);
    const unsafe: Array<{ index: number; entry: ZipEntry; native?: yauzl.Entry }> = [];
    let count = 0;
    let records: RecordBytes;
    const add = (native: yauzl.Entry, at: number): void => {
      if (count === capacity) {
        capacity *= 2;
        const h = new Uint32Array(capacity);
        h.set(hashes);
        hashes = h;
        const o = new Float64Array(capacity);
        o.set(offsets);
        offsets = o;
      }
      const entry = describe(native);
      hashes[count] = nameHash(entry.name);
      offsets[count] = at;
      if (entry.unsafeReason !== null) unsafe.push({ index: count, entry, native });
      count++;
    };
    try {
      if (source) {
        for await (const native of zipfile.eachEntry()) {
          add(native, cursor);
          cursor += 46 + native.fileNameLength + native.extraFieldLength + native.fileCommentLength;
        }
        const directory = cursor > directoryStart ? await readAll(source.readRange(directoryStart, cursor - 1)) : Buffer.alloc(0);
        records = memoryRecords(directoryStart, directory);
      } else {
        // A local archive's directory is read here in large windows: yauzl's reading, two small
        // asynchronous reads per entry, took 11 s of a 100,000-entry package's 14 (bench/zip-entries).
        records = fileRecords(openSync(path, 'r'));
        try {
          for (const { index, offset, record } of directoryRecords(records, directoryStart, zipfile.entryCount)) {
            add(nativeOfRecord(index, record), offset);
          }
        } catch (err) {
          records.close();
          throw err;
        }
      }
    } catch (err) {
      zipfile.close();
      throw archiveError(path, err);
    }
    const keys = new BigUint64Array(count);
    for (let i = 0; i < count; i++) keys[i] = (BigInt(hashes[i]!) << 32n) | BigInt(i);
    keys.sort();
    hashes = new Uint32Array(0);
    const reader = new ZipReader(path, source, zipfile, records, count, offsets.subarray(0, count), keys, new Set(), [], limits);
    try {
      reader.findDuplicates(unsafe);
    } catch (err) {
      reader.close();
      throw archiveError(path, err);
    }
    for (const u of unsafe) if (u.native) reader.natives.set(u.entry, u.native);
    unsafe.sort((a, b) => a.index - b.index);
    reader.unsafeEntries.push(...unsafe.map((u) => u.entry));
    return reader;
  }

  /** Marks every entry after the first of its name (names with equal hashes are compared by reading them). */
  private findDuplicates(unsafe: Array<{ index: number; entry: ZipEntry; native?: yauzl.Entry }>): void {
    const keys = this.keys;
    for (let i = 0; i < keys.length;) {
      let j = i + 1;
      while (j < keys.length && keys[j]! >> 32n === keys[i]! >> 32n) j++;
      if (j - i > 1) {
        const seen = new Set<string>();
        for (let k = i; k < j; k++) {
          const index = Number(keys[k]! & 0xffffffffn);
          const entry = this.record(index);
          if (seen.has(entry.name)) {
            this.duplicates.add(index);
            if (entry.unsafeReason === null) {
              entry.unsafeReason = 'the name occurs twice in the archive';
              unsafe.push({ index, entry });
            }
          }
          seen.add(entry.name);
        }
      }
      i = j;
    }
  }

  /** Every entry, in central directory order, read from the file anew (sequentially) on each access. */
  get entries(): ZipEntry[] {
    const out: ZipEntry[] = [];
    const start = this.entryCount > 0 ? this.offsets[0]! : 0;
    for (const { index, record } of directoryRecords(this.openRecords(), start, this.entryCount)) out.push(this.parse(index, record));
    return out;
  }

  /** The (first) entry called `name`, if any. */
  entry(name: string): ZipEntry | undefined {
    const cached = this.recent.get(name);
    if (cached !== undefined) return cached ?? undefined;
    const found = this.lookup(name);
    if (this.recent.size >= RECENT_ENTRIES) this.recent.delete(this.recent.keys().next().value!);
    this.recent.set(name, found ?? null);
    return found;
  }

  private lookup(name: string): ZipEntry | undefined {
    const hash = BigInt(nameHash(name));
    const keys = this.keys;
    let lo = 0;
    let hi = keys.length;
    const first = hash << 32n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid]! < first) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < keys.length && keys[k]! >> 32n === hash; k++) {
      const index = Number(keys[k]! & 0xffffffffn);
      if (this.duplicates.has(index)) continue;
      const entry = this.record(index);
      if (entry.name === name) return entry;
    }
    return undefined;
  }

  /** Reads and parses the central directory record of entry `index`. */
  private record(index: number): ZipEntry {
    const records = this.openRecords();
    const offset = this.offsets[index]!;
    const fixed = Buffer.alloc(46);
    if (records.read(fixed, 46, offset) !== 46) throw new Error(`the central directory record at offset ${offset} is cut short`);
    const length = 46 + fixed.readUInt16LE(28) + fixed.readUInt16LE(30);
    const whole = Buffer.alloc(length);
    if (records.read(whole, length, offset) !== length) throw new Error(`the central directory record at offset ${offset} is cut short`);
    return this.parse(index, whole);
  }

  /** A central directory record (fixed part, name, extra field) as a ZipEntry with its yauzl Entry. */
  private parse(index: number, buffer: Buffer): ZipEntry {
    const native = nativeOfRecord(index, buffer);
    const entry = describe(native);
    if (this.duplicates.has(index) && entry.unsafeReason === null) entry.unsafeReason = 'the name occurs twice in the archive';
    this.natives.set(entry, native);
    return entry;
  }

  private openRecords(): RecordBytes {
    if (this.records === undefined) throw new Error('the archive is closed');
    return this.records;
  }

  /** Raw bytes of the archive, start..end inclusive (the messageDigest range, verbatim copies). */
  readRange(start: number, end: number): Readable {
    return this.source ? this.source.readRange(start, end) : createReadStream(this.path, { start, end, highWaterMark: 1 << 20 });
  }

  /** Offset of the entry's local header (the SIARD messageDigest range ends at `header/`'s). */
  localHeaderOffset(name: string): number {
    return this.require(name).localHeaderOffset;
  }

  /** Offset of the entry's first data byte (reads its local header). */
  async dataOffset(nameOrEntry: string | ZipEntry): Promise<number> {
    const entry = this.resolve(nameOrEntry);
    try {
      const header = await new Promise<{ fileDataStart: number }>((resolve, reject) => {
        this.zipfile.readLocalFileHeader(this.natives.get(entry)!, { minimal: true }, (err, result) =>
          err ? reject(err) : resolve(result as { fileDataStart: number }),
        );
      });
      return header.fileDataStart;
    } catch (err) {
      throw archiveError(this.path, err, entry.name);
    }
  }

  /**
   * The entry's content, inflated. The stream fails (SiardOcflError) when the CRC-32 does not
   * match, when the data is longer or shorter than declared, or when it passes a limit.
   */
  async openStream(nameOrEntry: string | ZipEntry, limits: ZipReadLimits = {}): Promise<Readable> {
    const entry = this.resolve(nameOrEntry);
    const max = limits.maxUncompressedSize ?? this.limits.maxUncompressedSize ?? Number.POSITIVE_INFINITY;
    const ratio = limits.maxCompressionRatio ?? this.limits.maxCompressionRatio ?? Number.POSITIVE_INFINITY;
    if (entry.compressionMethod !== METHOD_STORE && entry.compressionMethod !== METHOD_DEFLATE) {
      throw entryError(this.path, entry.name, `compression method ${entry.compressionMethod} is not supported (only store and deflate)`, 2);
    }
    if (entry.uncompressedSize > max) {
      throw entryError(this.path, entry.name, `it declares ${entry.uncompressedSize} bytes, more than the limit of ${max}`);
    }
    if (entry.uncompressedSize > ratio * Math.max(entry.compressedSize, 1)) {
      throw entryError(this.path, entry.name, `it declares a compression ratio above the limit of ${ratio}`);
    }
    if (entry.compressionMethod === METHOD_STORE && entry.compressedSize !== entry.uncompressedSize) {
      throw entryError(this.path, entry.name, `it is stored but its sizes differ (${entry.compressedSize} != ${entry.uncompressedSize})`);
    }
    if (entry.compressedSize <= SMALL_ENTRY && entry.uncompressedSize <= max && !entry.encrypted) {
      const whole = this.readSmallEntry(entry);
      if (whole) return bytesStream(whole);
    }
    const raw = await this.openRawStream(entry);
    const check = new EntryCheck(this.path, entry, Math.min(max, entry.uncompressedSize));
    const forward = (err: Error): void => {
      check.destroy(err instanceof SiardOcflError ? err : archiveError(this.path, err, entry.name));
    };
    raw.on('error', forward);
    if (entry.compressionMethod === METHOD_STORE) {
      raw.pipe(check);
    } else {
      // large output chunks: fewer callbacks on the main thread while the thread pool inflates
      const inflate = zlib.createInflateRaw({ chunkSize: 256 * 1024 });
      inflate.on('error', forward);
      raw.pipe(inflate).pipe(check);
      check.on('close', () => {
        raw.destroy();
        inflate.destroy();
      });
    }
    check.on('close', () => raw.destroy());
    return check;
  }

  /**
   * A small entry of a local archive read whole: its local header and data in one read, inflated in
   * one call, its size and CRC-32 checked. Undefined for a remote archive and for anything unusual
   * (a bad header, an inflate error, a wrong size or CRC): the stream path then reads it and names
   * the fault, so the messages stay in one place.
   */
  private readSmallEntry(entry: ZipEntry): Buffer | undefined {
    const records = this.records;
    if (this.source || !records) return undefined;
    const nameGuess = Buffer.byteLength(entry.name);
    let window = Buffer.allocUnsafe(30 + nameGuess + LOCAL_EXTRA_GUESS + entry.compressedSize);
    let got = records.read(window, window.length, entry.localHeaderOffset);
    if (got < 30 || window.readUInt32LE(0) !== SIG_LOCAL_HEADER) return undefined;
    const start = 30 + window.readUInt16LE(26) + window.readUInt16LE(28);
    if (start + entry.compressedSize > window.length) {
      window = Buffer.allocUnsafe(start + entry.compressedSize);
      got = records.read(window, window.length, entry.localHeaderOffset);
    }
    if (got < start + entry.compressedSize) return undefined;
    const data = window.subarray(start, start + entry.compressedSize);
    let out: Buffer;
    try {
      out =
        entry.compressionMethod === METHOD_STORE
          ? data
          : zlib.inflateRawSync(data, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
    } catch {
      return undefined;
    }
    if (out.length !== entry.uncompressedSize || zlib.crc32(out) >>> 0 !== entry.crc32) return undefined;
    return out;
  }

  /** The entry's stored bytes exactly as in the archive (compressed for deflate), for ZipWriter.addRaw. */
  async openRawStream(nameOrEntry: string | ZipEntry): Promise<Readable> {
    const entry = this.resolve(nameOrEntry);
    if (entry.encrypted) throw entryError(this.path, entry.name, 'it is encrypted', 2);
    try {
      return await new Promise<Readable>((resolve, reject) => {
        this.zipfile.openReadStream(this.natives.get(entry)!, { decodeFileData: false }, (err, stream) =>
          err ? reject(err) : resolve(stream),
        );
      });
    } catch (err) {
      throw archiveError(this.path, err, entry.name);
    }
  }

  close(): void {
    this.zipfile.close();
    this.records?.close();
    this.records = undefined;
    this.recent.clear();
  }

  private require(name: string): ZipEntry {
    const entry = this.entry(name);
    if (!entry)
      throw new SiardOcflError(`The ZIP archive ${this.path} has no entry ${JSON.stringify(name)}.`, { code: 'ZIP_NO_ENTRY', exitCode: 1 });
    return entry;
  }

  private resolve(nameOrEntry: string | ZipEntry): ZipEntry {
    const entry = typeof nameOrEntry === 'string' ? this.require(nameOrEntry) : nameOrEntry;
    if (!this.natives.has(entry))
      throw new SiardOcflError(`The entry ${JSON.stringify(entry.name)} does not belong to the ZIP archive ${this.path}.`, {
        code: 'ZIP_NO_ENTRY',
      });
    if (entry.unsafeReason !== null) {
      throw new SiardOcflError(`Refusing ZIP entry ${JSON.stringify(entry.name)} in ${this.path}: ${entry.unsafeReason}.`, {
        code: 'ZIP_UNSAFE_NAME',
        exitCode: 1,
      });
    }
    return entry;
  }
}

/**
 * The central directory's records one after another from `start`, read in windows of WALK_CHUNK
 * bytes: each record (fixed part, name, extra field, comment) with its index and offset. Fails
 * when the archive ends inside a record.
 */
function* directoryRecords(
  records: RecordBytes,
  start: number,
  count: number,
): Generator<{ index: number; offset: number; record: Buffer }> {
  let window = Buffer.alloc(0);
  let windowStart = start;
  let offset = start;
  const need = (length: number): Buffer => {
    if (offset + length > windowStart + window.length) {
      window = Buffer.allocUnsafe(Math.max(WALK_CHUNK, length));
      window = window.subarray(0, records.read(window, window.length, offset));
      windowStart = offset;
      if (window.length < length) throw new Error(`the central directory record at offset ${offset} is cut short`);
    }
    return window.subarray(offset - windowStart, offset - windowStart + length);
  };
  for (let index = 0; index < count; index++) {
    const fixed = need(46);
    const record = need(46 + fixed.readUInt16LE(28) + fixed.readUInt16LE(30) + fixed.readUInt16LE(32));
    yield { index, offset, record };
    offset += record.length;
  }
}

/**
 * A central directory record (fixed part, name, extra field; `buffer` holds at least those) as
 * yauzl's Entry, its ZIP64 sizes and offset read as yauzl reads them.
 */
function nativeOfRecord(index: number, buffer: Buffer): yauzl.Entry {
  if (buffer.readUInt32LE(0) !== SIG_CENTRAL_HEADER) throw new Error(`invalid central directory record signature at entry ${index + 1}`);
  if (buffer.readUInt16LE(8) & 0x40) throw new Error('strong encryption is not supported');
  const native = new yauzl.Entry();
  const n = buffer.readUInt16LE(28);
  const m = buffer.readUInt16LE(30);
  Object.assign(native, {
    versionMadeBy: buffer.readUInt16LE(4),
    versionNeededToExtract: buffer.readUInt16LE(6),
    generalPurposeBitFlag: buffer.readUInt16LE(8),
    compressionMethod: buffer.readUInt16LE(10),
    lastModFileTime: buffer.readUInt16LE(12),
    lastModFileDate: buffer.readUInt16LE(14),
    crc32: buffer.readUInt32LE(16),
    compressedSize: buffer.readUInt32LE(20),
    uncompressedSize: buffer.readUInt32LE(24),
    fileNameLength: n,
    extraFieldLength: m,
    fileCommentLength: buffer.readUInt16LE(32),
    internalFileAttributes: buffer.readUInt16LE(36),
    externalFileAttributes: buffer.readUInt32LE(38),
    relativeOffsetOfLocalHeader: buffer.readUInt32LE(42),
    fileNameRaw: Buffer.from(buffer.subarray(46, 46 + n)),
    extraFieldRaw: Buffer.from(buffer.subarray(46 + n, 46 + n + m)),
    fileCommentRaw: Buffer.alloc(0),
  });
  const raw = native as unknown as {
    extraFieldRaw: Buffer;
    uncompressedSize: number;
    compressedSize: number;
    relativeOffsetOfLocalHeader: number;
  };
  native.extraFields = yauzl.parseExtraFields(raw.extraFieldRaw);
  const zip64 = native.extraFields.find((f) => f.id === EXTRA_ZIP64);
  if (zip64) {
    let at = 0;
    for (const field of ['uncompressedSize', 'compressedSize', 'relativeOffsetOfLocalHeader'] as const) {
      if (raw[field] !== MAX_UINT32) continue;
      if (at + 8 > zip64.data.length) throw new Error(`the ZIP64 extra field of entry ${index + 1} lacks its ${field}`);
      raw[field] = Number(zip64.data.readBigUInt64LE(at));
      at += 8;
    }
  }
  return native;
}

function describe(native: yauzl.Entry): ZipEntry {
  const raw = native.fileNameRaw;
  // strict = true keeps backslashes, so they are reported rather than silently turned into '/'.
  const name = yauzl.getFileNameLowLevel(native.generalPurposeBitFlag, raw, native.extraFields, true);
  const utf8Flagged = (native.generalPurposeBitFlag & FLAG_UTF8) !== 0;
  let unsafeReason = unsafeEntryNameReason(name);
  if (unsafeReason === null && utf8Flagged && !Buffer.from(name, 'utf8').equals(raw) && !native.extraFields.some((f) => f.id === 0x7075)) {
    unsafeReason = 'the name is not valid UTF-8';
  }
  return {
    name,
    isDirectory: name.endsWith('/'),
    compressionMethod: native.compressionMethod,
    compressedSize: native.compressedSize,
    uncompressedSize: native.uncompressedSize,
    crc32: native.crc32 >>> 0,
    localHeaderOffset: native.relativeOffsetOfLocalHeader,
    mtime: native.getLastModDate(),
    encrypted: native.isEncrypted(),
    unsafeReason,
  };
}

/** Counts and checksums inflated bytes; fails past `limit` and on a wrong length or CRC at the end. */
class EntryCheck extends Transform {
  private count = 0;
  private crc = 0;

  constructor(
    private readonly archive: string,
    private readonly entry: ZipEntry,
    private readonly limit: number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.count += chunk.length;
    if (this.count > this.limit) {
      const why =
        this.limit < this.entry.uncompressedSize
          ? `it inflates past the limit of ${this.limit} bytes`
          : `it inflates to more than its declared size of ${this.entry.uncompressedSize} bytes`;
      callback(entryError(this.archive, this.entry.name, why));
      return;
    }
    this.crc = zlib.crc32(chunk, this.crc);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    if (this.count !== this.entry.uncompressedSize) {
      callback(
        entryError(this.archive, this.entry.name, `it inflates to ${this.count} bytes, not its declared ${this.entry.uncompressedSize}`),
      );
      return;
    }
    if (this.crc >>> 0 !== this.entry.crc32) {
      callback(entryError(this.archive, this.entry.name, `CRC-32 mismatch (${hex(this.crc)} computed, ${hex(this.entry.crc32)} declared)`));
      return;
    }
    callback();
  }
}

/** A stream of bytes already in memory, without an iterator behind it. */
function bytesStream(bytes: Buffer): Readable {
  const stream = new Readable({ read() {} });
  if (bytes.length > 0) stream.push(bytes);
  stream.push(null);
  return stream;
}

function hex(crc: number): string {
  return (crc >>> 0).toString(16).padStart(8, '0');
}

function entryError(archive: string, name: string, why: string, exitCode: 1 | 2 = 1): SiardOcflError {
  return new SiardOcflError(`ZIP entry ${JSON.stringify(name)} in ${archive} is unreadable: ${why}.`, { code: 'ZIP_ENTRY', exitCode });
}

function archiveError(archive: string, err: unknown, name?: string): SiardOcflError {
  if (err instanceof SiardOcflError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const systemError = typeof (err as NodeJS.ErrnoException)?.code === 'string' && !(err as NodeJS.ErrnoException).code!.startsWith('Z_');
  const where = name === undefined ? `the ZIP archive ${archive}` : `ZIP entry ${JSON.stringify(name)} in ${archive}`;
  return new SiardOcflError(`Cannot read ${where}: ${message}`, {
    code: systemError ? 'ZIP_IO' : 'ZIP_CORRUPT',
    exitCode: systemError ? 2 : 1,
    cause: err,
  });
}

/** FNV-1a over the UTF-16 code units of a name (32 bits): the compact index's key; equal hashes are told apart by reading the names. */
function nameHash(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
