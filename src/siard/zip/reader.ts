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
import { createReadStream } from 'node:fs';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';
import yauzl from 'yauzl';
import { SiardOcflError } from '../../errors.js';
import { unsafeEntryNameReason } from './entry-name.js';
import { FLAG_UTF8, METHOD_DEFLATE, METHOD_STORE } from './format.js';

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

export class ZipReader {
  private readonly byName = new Map<string, ZipEntry>();
  private readonly native = new Map<ZipEntry, yauzl.Entry>();

  private constructor(
    readonly path: string,
    private readonly source: ByteSource | undefined,
    private readonly zipfile: yauzl.ZipFile,
    readonly entries: readonly ZipEntry[],
    natives: yauzl.Entry[],
    private readonly limits: ZipReadLimits,
  ) {
    entries.forEach((entry, i) => {
      this.native.set(entry, natives[i]!);
      if (!this.byName.has(entry.name)) this.byName.set(entry.name, entry);
    });
  }

  /** Opens `file` (a local path, or a ByteSource) and reads its whole central directory. */
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
    const entries: ZipEntry[] = [];
    const natives: yauzl.Entry[] = [];
    const seen = new Set<string>();
    try {
      for await (const native of zipfile.eachEntry()) {
        const entry = describe(native);
        if (entry.unsafeReason === null && seen.has(entry.name)) entry.unsafeReason = 'the name occurs twice in the archive';
        seen.add(entry.name);
        entries.push(entry);
        natives.push(native);
      }
    } catch (err) {
      zipfile.close();
      throw archiveError(path, err);
    }
    return new ZipReader(path, source, zipfile, entries, natives, limits);
  }

  /** The (first) entry called `name`, if any. */
  entry(name: string): ZipEntry | undefined {
    return this.byName.get(name);
  }

  /** Entries whose names must never be extracted. */
  get unsafeEntries(): ZipEntry[] {
    return this.entries.filter((entry) => entry.unsafeReason !== null);
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
        this.zipfile.readLocalFileHeader(this.native.get(entry)!, { minimal: true }, (err, result) => (err ? reject(err) : resolve(result as { fileDataStart: number })));
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
    const raw = await this.openRawStream(entry);
    const check = new EntryCheck(this.path, entry, Math.min(max, entry.uncompressedSize));
    const forward = (err: Error): void => {
      check.destroy(err instanceof SiardOcflError ? err : archiveError(this.path, err, entry.name));
    };
    raw.on('error', forward);
    if (entry.compressionMethod === METHOD_STORE) {
      raw.pipe(check);
    } else {
      const inflate = zlib.createInflateRaw();
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

  /** The entry's stored bytes exactly as in the archive (compressed for deflate), for ZipWriter.addRaw. */
  async openRawStream(nameOrEntry: string | ZipEntry): Promise<Readable> {
    const entry = this.resolve(nameOrEntry);
    if (entry.encrypted) throw entryError(this.path, entry.name, 'it is encrypted', 2);
    try {
      return await new Promise<Readable>((resolve, reject) => {
        this.zipfile.openReadStream(this.native.get(entry)!, { decodeFileData: false }, (err, stream) => (err ? reject(err) : resolve(stream)));
      });
    } catch (err) {
      throw archiveError(this.path, err, entry.name);
    }
  }

  /** Raw bytes of the archive, start..end inclusive (the messageDigest range, verbatim copies). */
  readRange(start: number, end: number): Readable {
    return this.source ? this.source.readRange(start, end) : createReadStream(this.path, { start, end, highWaterMark: 1 << 20 });
  }

  close(): void {
    this.zipfile.close();
  }

  private require(name: string): ZipEntry {
    const entry = this.byName.get(name);
    if (!entry) throw new SiardOcflError(`The ZIP archive ${this.path} has no entry ${JSON.stringify(name)}.`, { code: 'ZIP_NO_ENTRY', exitCode: 1 });
    return entry;
  }

  private resolve(nameOrEntry: string | ZipEntry): ZipEntry {
    const entry = typeof nameOrEntry === 'string' ? this.require(nameOrEntry) : nameOrEntry;
    if (!this.native.has(entry)) throw new SiardOcflError(`The entry ${JSON.stringify(entry.name)} does not belong to the ZIP archive ${this.path}.`, { code: 'ZIP_NO_ENTRY' });
    if (entry.unsafeReason !== null) {
      throw new SiardOcflError(`Refusing ZIP entry ${JSON.stringify(entry.name)} in ${this.path}: ${entry.unsafeReason}.`, { code: 'ZIP_UNSAFE_NAME', exitCode: 1 });
    }
    return entry;
  }
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
      callback(entryError(this.archive, this.entry.name, `it inflates to ${this.count} bytes, not its declared ${this.entry.uncompressedSize}`));
      return;
    }
    if (this.crc >>> 0 !== this.entry.crc32) {
      callback(entryError(this.archive, this.entry.name, `CRC-32 mismatch (${hex(this.crc)} computed, ${hex(this.entry.crc32)} declared)`));
      return;
    }
    callback();
  }
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
