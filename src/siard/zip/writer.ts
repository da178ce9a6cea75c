/**
 * Streaming ZIP64 writer for SIARD archives.
 *
 * Hand-written rather than `yazl` because SIARD needs three things yazl does not offer:
 * copying an entry's compressed bytes unchanged from another archive (relocation; yazl has no
 * raw/pre-compressed entry API, its PR #55 was closed unmerged), the byte offset of each local
 * header while writing (the archive messageDigest covers bytes 0 .. offset of `header/`), and a
 * tap on every byte written (to hash that range in the same pass).
 *
 * Layout decisions:
 * - Streamed entries (addStream): flag bit 3, a local header whose sizes are 0xFFFFFFFF with a
 *   ZIP64 extra field (zeros), and a data descriptor with 8-byte sizes. Sizes are unknown while
 *   streaming and may pass 4 GiB, so file entries always use the ZIP64 form. Entries whose sizes
 *   are known first (addBuffer, addRaw) carry CRC and sizes in the local header instead.
 * - The central directory uses ZIP64 extra fields where a value does not fit 32 bits
 *   (or always, with `forceZip64`, which tests use to exercise that path).
 * - The ZIP64 end-of-central-directory record and locator are always written (SIARD 2.2 says
 *   the archive is in ZIP64 format); the classic EOCD holds the real values when they fit.
 * - Names are UTF-8 (bit 11); DOS times are taken in UTC.
 *
 * Operations are queued, so calls made without awaiting still run in call order; after any
 * failure the archive is unusable and every later call rejects with that failure: call abort().
 */
import { createHash, type Hash } from 'node:crypto';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { SiardOcflError } from '../../errors.js';
import { unsafeEntryNameReason } from './entry-name.js';
import { GzipBody } from './gzip-body.js';
import {
  dosDateTime,
  EXTRA_ZIP64,
  FLAG_DATA_DESCRIPTOR,
  FLAG_UTF8,
  LOCAL_HEADER_FIXED_SIZE,
  MAX_UINT16,
  MAX_UINT32,
  METHOD_DEFLATE,
  METHOD_STORE,
  SIG_CENTRAL_HEADER,
  SIG_DATA_DESCRIPTOR,
  SIG_EOCD,
  SIG_LOCAL_HEADER,
  SIG_ZIP64_EOCD,
  SIG_ZIP64_LOCATOR,
  VERSION_MADE_BY,
  VERSION_ZIP64,
  writeUInt64LE,
} from './format.js';
import { deflateSegments, type SegmentCut, type SegmentSums } from './segmented-deflate.js';
import { type ByteSink, FileSink, StreamSink } from './sink.js';

/**
 * Deflate's output buffer and queue for streamed entries: a few large chunks instead of many 16 KiB
 * ones, so the main thread handles fewer callbacks while the thread pool compresses.
 */
const DEFLATE_CHUNK = 256 * 1024;

export interface ZipWriterOptions {
  /** Use ZIP64 extra fields in the central directory and 0xFFFF.. markers in the EOCD even when values fit. */
  forceZip64?: boolean;
  /** Called with every chunk, in order, before it is written; `offset` is the chunk's first byte. */
  onBytes?: (chunk: Buffer, offset: number) => void;
  /** zlib deflate level (default 6). */
  compressionLevel?: number;
  /** Modification time of entries that give none (default: the time each is written). */
  mtime?: Date;
}

export interface AddEntryOptions {
  /** Deflate (default true) or store. */
  compress?: boolean;
  /** Modification time (default: now). */
  mtime?: Date;
  /** Deflate level of this entry (addBuffer; default: the writer's). */
  level?: number;
}

/** What addRaw needs to copy an entry unchanged; a ZipReader entry has these fields. */
export interface RawEntrySource {
  name: string;
  compressionMethod: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  mtime?: Date;
}

/** One entry as written. */
export interface WrittenEntry {
  name: string;
  isDirectory: boolean;
  compressionMethod: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  /** Offset of the entry's local header in the output. */
  localHeaderOffset: number;
}

export interface DigestMark {
  /** Number of bytes hashed: bytes [0, offset) of the archive. */
  offset: number;
  /** SHA-256 of those bytes, lowercase hex. */
  sha256: string;
}

/** An entry's central-directory record as a resumable export's journal keeps it (JSON). */
export interface ZipEntryRecord {
  name: string;
  isDirectory: boolean;
  method: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  offset: number;
  flags: number;
  dosTime: number;
  dosDate: number;
}

/** Where an archive stands between entries: enough for another process to continue it (docs/resume.md). */
export interface ZipCheckpoint {
  /** bytes written: the archive continues here */
  offset: number;
  /** SHA-256 of bytes [0, offset) */
  sha256: string;
  /** the entries written since the entry index asked for */
  entries: ZipEntryRecord[];
}

/** A streamed entry being written: what continuing it in another process needs besides its sums. */
export interface OpenEntryRecord {
  name: string;
  offset: number;
  flags: number;
  dosTime: number;
  dosDate: number;
}

/** Where an archive stands at a cut inside a segmented entry (segmented-deflate.ts). */
export interface EntryCut {
  /** bytes written: the entry's data goes on here */
  offset: number;
  /** SHA-256 of bytes [0, offset), while the messageDigest range is open */
  sha256: string;
  /** the entry's CRC-32 and sizes so far */
  sums: SegmentSums;
  entry: OpenEntryRecord;
}

/** A segmented entry's table XML: cut marks in it, and what is done at each cut. */
export interface SegmentedOptions {
  onCut?: (cut: EntryCut, state: unknown) => Promise<void>;
}

interface CentralRecord extends WrittenEntry {
  nameBytes: Buffer;
  flags: number;
  dosTime: number;
  dosDate: number;
}

interface EntrySums {
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
}

/** An entry's data deflated by compressAside: its CRC-32 and sizes. */
export type CompressedSums = EntrySums;

type EntryBody = (emit: (chunk: Buffer) => Promise<void>) => Promise<EntrySums>;

/** Emits the `size` compressed bytes of an entry copied from `data`; data of another length fails the archive. */
async function copyCompressed(name: string, data: AsyncIterable<Buffer>, size: number, emit: (chunk: Buffer) => Promise<void>) {
  let copied = 0;
  for await (const chunk of data) {
    copied += chunk.length;
    if (copied > size) break;
    await emit(chunk);
  }
  if (copied !== size)
    throw new SiardOcflError(
      `Cannot copy ZIP entry ${name}: its raw data is ${copied > size ? 'longer' : 'shorter'} than its compressed size ${size}.`,
      { code: 'ZIP_RAW_SIZE' },
    );
}

export class ZipWriter {
  private written = 0;
  private readonly records: CentralRecord[] = [];
  private readonly names = new Set<string>();
  private tail: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private state: 'open' | 'closed' | 'aborted' = 'open';
  private hash: Hash | undefined = createHash('sha256');
  private readonly forceZip64: boolean;
  private readonly level: number;
  /** the streamed entry being written (its local header is out), for a cut inside it */
  private open: OpenEntryRecord | undefined;
  /** an entry an interrupted run was writing, continued by continueSegmented */
  private continued: { entry: OpenEntryRecord; sums: SegmentSums } | undefined;

  private constructor(
    private readonly sink: ByteSink,
    private readonly options: ZipWriterOptions,
  ) {
    this.forceZip64 = options.forceZip64 ?? false;
    this.level = options.compressionLevel ?? zlib.constants.Z_DEFAULT_COMPRESSION;
  }

  /**
   * A writer to `target`: a path (written as a hidden temporary file beside it, renamed into
   * place by close(), removed by abort(); an existing file at the path is replaced on close)
   * or a Writable (ended by close()).
   */
  static async create(target: string | Writable, options: ZipWriterOptions = {}): Promise<ZipWriter> {
    if (typeof target === 'string') {
      try {
        return new ZipWriter(await FileSink.create(target), options);
      } catch (err) {
        throw new SiardOcflError(`Cannot create the ZIP archive ${target}: ${(err as Error).message}`, { code: 'ZIP_WRITE', cause: err });
      }
    }
    return new ZipWriter(new StreamSink(target), options);
  }

  /**
   * Continues an archive whose first `state.offset` bytes (holding `state.entries`) are already in
   * `target`'s file; `hash` has been given exactly those bytes (the messageDigest range goes on).
   */
  static resume(
    target: Writable,
    options: ZipWriterOptions,
    state: { offset: number; entries: ZipEntryRecord[]; hash: Hash; open?: { entry: OpenEntryRecord; sums: SegmentSums } },
  ): ZipWriter {
    const zip = new ZipWriter(new StreamSink(target), options);
    zip.written = state.offset;
    zip.hash = state.hash;
    zip.continued = state.open;
    for (const e of state.entries) {
      zip.names.add(e.name);
      zip.records.push({
        name: e.name,
        isDirectory: e.isDirectory,
        compressionMethod: e.method,
        crc32: e.crc32,
        compressedSize: e.compressedSize,
        uncompressedSize: e.uncompressedSize,
        localHeaderOffset: e.offset,
        nameBytes: Buffer.from(e.name, 'utf8'),
        flags: e.flags,
        dosTime: e.dosTime,
        dosDate: e.dosDate,
      });
    }
    return zip;
  }

  /** Whether an entry of this name was written. */
  hasEntry(name: string): boolean {
    return this.names.has(name);
  }

  /**
   * Where the archive stands after the operations queued so far, every byte handed on to the
   * target (the caller makes it durable); the entries from index `since` on. Only before the
   * messageDigest range is ended.
   */
  checkpoint(since: number): Promise<ZipCheckpoint> {
    return this.enqueue(async () => {
      if (!this.hash) throw new SiardOcflError('The ZIP digest range was already ended.', { code: 'ZIP_STATE' });
      await this.sink.flush?.();
      return { offset: this.written, sha256: this.hash.copy().digest('hex'), entries: this.recordsSince(since) };
    });
  }

  /** The records of the entries written from index `since` on, as a journal keeps them. */
  recordsSince(since: number): ZipEntryRecord[] {
    return this.records.slice(since).map((r) => ({
      name: r.name,
      isDirectory: r.isDirectory,
      method: r.compressionMethod,
      crc32: r.crc32,
      compressedSize: r.compressedSize,
      uncompressedSize: r.uncompressedSize,
      offset: r.localHeaderOffset,
      flags: r.flags,
      dosTime: r.dosTime,
      dosDate: r.dosDate,
    }));
  }

  /** Bytes written so far (after the operations already awaited). */
  get offset(): number {
    return this.written;
  }

  /** The entries written so far, in order. */
  get entries(): readonly WrittenEntry[] {
    return this.records;
  }

  /** Adds a directory entry; a trailing '/' is added when missing. */
  addDirectory(name: string, options: { mtime?: Date } = {}): Promise<void> {
    const dirName = name.endsWith('/') ? name : `${name}/`;
    return this.enqueue(() => this.writeDirectory(dirName, options.mtime ?? this.options.mtime ?? new Date()));
  }

  /**
   * Streams a table's XML with cut marks into a new entry, deflated segment by segment
   * (segmented-deflate.ts); at each cut, once its segment is written, `onCut` is told where the
   * archive stands. When the writer was resumed inside this entry, the entry goes on from there.
   */
  addSegmented(name: string, source: AsyncIterable<Buffer | string | SegmentCut>, options: SegmentedOptions = {}): Promise<void> {
    const onCut = options.onCut && this.cutHandler(options.onCut);
    const continued = this.continued;
    if (continued && continued.entry.name === name) {
      this.continued = undefined;
      return this.enqueue(() => this.continueFile(continued, (emit) => deflateSegments(source, this.level, emit, onCut, continued.sums)));
    }
    return this.enqueue(() =>
      this.writeFile(name, METHOD_DEFLATE, this.options.mtime ?? new Date(), undefined, (emit) =>
        deflateSegments(source, this.level, emit, onCut),
      ),
    );
  }

  /**
   * Deflates a table's XML with cut marks as addSegmented would, into `keep` instead of the archive
   * (compressAside's segmented form); `start`: the sums of what an interrupted run kept before.
   */
  compressSegmentedAside(
    source: AsyncIterable<Buffer | string | SegmentCut>,
    keep: (chunk: Buffer) => Promise<void>,
    onCut?: (sums: SegmentSums, state: unknown) => Promise<void>,
    start?: SegmentSums,
  ): Promise<CompressedSums> {
    return deflateSegments(source, this.level, keep, onCut, start);
  }

  /** The entry an interrupted run was writing, when the writer was resumed inside one. */
  get continuedEntry(): string | undefined {
    return this.continued?.entry.name;
  }

  private cutHandler(onCut: NonNullable<SegmentedOptions['onCut']>): (sums: SegmentSums, state: unknown) => Promise<void> {
    return async (sums, state) => {
      if (!this.hash || !this.open) throw new SiardOcflError('A cut outside a streamed entry.', { code: 'ZIP_STATE' });
      await this.sink.flush?.();
      await onCut({ offset: this.written, sha256: this.hash.copy().digest('hex'), sums, entry: { ...this.open } }, state);
    };
  }

  /** Streams `source` into a new entry (deflated unless `compress: false`). */
  addStream(name: string, source: Readable | AsyncIterable<Buffer | string>, options: AddEntryOptions = {}): Promise<void> {
    const method = options.compress === false ? METHOD_STORE : METHOD_DEFLATE;
    return this.enqueue(() =>
      this.writeFile(name, method, options.mtime ?? this.options.mtime ?? new Date(), undefined, (emit) =>
        this.encode(source, method, emit),
      ),
    );
  }

  /**
   * Deflates `source` exactly as addStream would, into `keep` instead of the archive (nothing is
   * written here, and the queue is not used: call it between entries). addCompressed then adds the
   * entry with the same bytes addStream would have written; a source that fails leaves the archive
   * as it was, so the caller can write the entry again from another source.
   */
  compressAside(source: AsyncIterable<Buffer | string>, keep: (chunk: Buffer) => Promise<void>): Promise<CompressedSums> {
    return this.encode(source, METHOD_DEFLATE, keep);
  }

  /** Adds an entry deflated by compressAside; `data` yields exactly its compressed bytes. */
  addCompressed(name: string, sums: CompressedSums, data: AsyncIterable<Buffer>, options: { mtime?: Date } = {}): Promise<void> {
    return this.enqueue(() =>
      this.writeFile(name, METHOD_DEFLATE, options.mtime ?? this.options.mtime ?? new Date(), undefined, async (emit) => {
        await copyCompressed(name, data, sums.compressedSize, emit);
        return sums;
      }),
    );
  }

  /** `source` stored or deflated into `emit`, with its CRC and sizes. */
  private async encode(source: Readable | AsyncIterable<Buffer | string>, method: number, emit: (chunk: Buffer) => Promise<void>) {
    let crc = 0;
    let uncompressedSize = 0;
    let compressedSize = 0;
    const out = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        compressedSize += chunk.length;
        emit(chunk).then(() => callback(), callback);
      },
    });
    const input = source instanceof Readable ? source : Readable.from(source);
    const counted = async function* (chunks: AsyncIterable<Buffer | string>) {
      for await (const chunk of chunks) {
        uncompressedSize += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
        yield chunk;
      }
    };
    if (method === METHOD_DEFLATE) {
      // gzip's wrapper computes the CRC on the thread pool; its body is the raw deflate stream
      const body = new GzipBody();
      await pipeline(input, counted, zlib.createGzip({ level: this.level, chunkSize: DEFLATE_CHUNK }), body, out);
      if (body.sizeMod32 !== uncompressedSize % 2 ** 32) throw new Error('zlib compressed another number of bytes than it was given.');
      return { crc32: body.crc32 >>> 0, compressedSize, uncompressedSize };
    }
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        crc = zlib.crc32(chunk, crc);
        callback(null, chunk);
      },
    });
    await pipeline(input, counted, measure, out);
    return { crc32: crc >>> 0, compressedSize, uncompressedSize };
  }

  /** Adds an entry from memory (deflated unless `compress: false`). */
  addBuffer(name: string, data: Buffer | string, options: AddEntryOptions = {}): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const method = options.compress === false ? METHOD_STORE : METHOD_DEFLATE;
    return this.enqueue(() => {
      const stored = method === METHOD_DEFLATE ? zlib.deflateRawSync(bytes, { level: options.level ?? this.level }) : bytes;
      const sums = { crc32: zlib.crc32(bytes) >>> 0, compressedSize: stored.length, uncompressedSize: bytes.length };
      return this.writeFile(name, method, options.mtime ?? this.options.mtime ?? new Date(), sums, async (emit) => {
        await emit(stored);
        return sums;
      });
    });
  }

  /**
   * Copies an entry without recompressing: `raw` must yield exactly the entry's compressed bytes
   * (ZipReader.openRawStream); its method, CRC and sizes are copied from `entry`. The name can be
   * changed with `options.name`. A raw stream of the wrong length fails the archive.
   */
  addRaw(entry: RawEntrySource, raw: Readable, options: { name?: string; mtime?: Date } = {}): Promise<void> {
    const name = options.name ?? entry.name;
    if (entry.compressionMethod !== METHOD_STORE && entry.compressionMethod !== METHOD_DEFLATE) {
      return Promise.reject(
        new SiardOcflError(
          `Cannot copy ZIP entry ${entry.name}: compression method ${entry.compressionMethod} is neither store nor deflate.`,
          { code: 'ZIP_METHOD' },
        ),
      );
    }
    if (name.endsWith('/')) {
      raw.resume();
      return this.addDirectory(name, { mtime: options.mtime ?? entry.mtime });
    }
    return this.enqueue(() =>
      this.writeFile(name, entry.compressionMethod, options.mtime ?? entry.mtime ?? new Date(), entry, async (emit) => {
        try {
          await copyCompressed(entry.name, raw as AsyncIterable<Buffer>, entry.compressedSize, emit);
        } catch (err) {
          raw.destroy();
          throw err;
        }
        return { crc32: entry.crc32 >>> 0, compressedSize: entry.compressedSize, uncompressedSize: entry.uncompressedSize };
      }),
    );
  }

  /**
   * Copies an entry's whole local record (local header, data, data descriptor) byte for byte from
   * another archive: `record` yields exactly `recordLength` bytes starting at the entry's local
   * header. Unlike addRaw the local header is not rewritten, so a run of entries copied this way
   * from offset 0 reproduces the source bytes exactly (relocate keeps the archive messageDigest,
   * which covers the bytes before `header/`). Flags and DOS time for the central directory are
   * taken from the copied header; method, CRC and sizes from `entry`.
   */
  addVerbatim(entry: RawEntrySource, record: Readable, recordLength: number): Promise<void> {
    return this.enqueue(async () => {
      const isDirectory = entry.name.endsWith('/');
      const nameBytes = this.checkName(entry.name, isDirectory);
      const localHeaderOffset = this.written;
      let head = Buffer.alloc(0);
      let copied = 0;
      for await (const chunk of record as AsyncIterable<Buffer>) {
        if (head.length < LOCAL_HEADER_FIXED_SIZE) head = Buffer.concat([head, chunk.subarray(0, LOCAL_HEADER_FIXED_SIZE - head.length)]);
        copied += chunk.length;
        if (copied > recordLength) break;
        await this.emit(chunk);
      }
      if (copied !== recordLength || head.length < LOCAL_HEADER_FIXED_SIZE || head.readUInt32LE(0) !== SIG_LOCAL_HEADER) {
        record.destroy();
        throw new SiardOcflError(
          `Cannot copy ZIP entry ${entry.name} verbatim: its local record is not ${recordLength} bytes starting with a local header.`,
          { code: 'ZIP_RAW_SIZE' },
        );
      }
      this.records.push({
        name: entry.name,
        isDirectory,
        compressionMethod: entry.compressionMethod,
        crc32: entry.crc32 >>> 0,
        compressedSize: entry.compressedSize,
        uncompressedSize: entry.uncompressedSize,
        localHeaderOffset,
        nameBytes,
        flags: head.readUInt16LE(6),
        dosTime: head.readUInt16LE(10),
        dosDate: head.readUInt16LE(12),
      });
    });
  }

  /**
   * Ends the running SHA-256 (started at byte 0) at the current offset and returns it. Call it
   * (awaited) just before adding `header/`: the result is the SIARD archive messageDigest range.
   */
  markDigestEnd(): Promise<DigestMark> {
    return this.enqueue(async () => {
      if (!this.hash) throw new SiardOcflError('The ZIP digest range was already ended.', { code: 'ZIP_STATE' });
      const sha256 = this.hash.digest('hex');
      this.hash = undefined;
      return { offset: this.written, sha256 };
    });
  }

  /** Writes the central directory and ZIP64 end records, fsyncs and moves the file into place. */
  close(): Promise<{ size: number; entries: number }> {
    return this.enqueue(async () => {
      try {
        await this.writeCentralDirectory();
        await this.sink.finish();
      } catch (err) {
        throw this.ioError(err);
      }
      this.state = 'closed';
      return { size: this.written, entries: this.records.length };
    });
  }

  /** Stops writing and removes the partial output file (a Writable target is destroyed). */
  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    this.failure ??= new SiardOcflError(`Writing the ZIP archive ${this.sink.description} was aborted.`, { code: 'ZIP_ABORTED' });
    await this.sink.abort(this.failure);
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const run = this.tail.then(() => {
      if (this.failure) throw this.failure;
      if (this.state !== 'open')
        throw new SiardOcflError(`The ZIP archive ${this.sink.description} is already ${this.state}.`, { code: 'ZIP_STATE' });
      return job();
    });
    this.tail = run.then(
      () => undefined,
      (err: unknown) => {
        this.failure ??= err instanceof Error ? err : new Error(String(err));
      },
    );
    return run;
  }

  private checkName(name: string, isDirectory: boolean): Buffer {
    const reason = unsafeEntryNameReason(name);
    if (reason) throw new SiardOcflError(`Refusing ZIP entry name ${JSON.stringify(name)}: ${reason}.`, { code: 'ZIP_UNSAFE_NAME' });
    if (!isDirectory && name.endsWith('/'))
      throw new SiardOcflError(`Refusing ZIP file entry ${JSON.stringify(name)}: a file name cannot end with '/'.`, {
        code: 'ZIP_UNSAFE_NAME',
      });
    if (this.names.has(name)) throw new SiardOcflError(`Refusing duplicate ZIP entry ${JSON.stringify(name)}.`, { code: 'ZIP_DUPLICATE' });
    const bytes = Buffer.from(name, 'utf8');
    if (bytes.length > MAX_UINT16)
      throw new SiardOcflError(`Refusing ZIP entry name ${name.slice(0, 80)}...: longer than 65535 bytes.`, { code: 'ZIP_UNSAFE_NAME' });
    this.names.add(name);
    return bytes;
  }

  private async emit(chunk: Buffer): Promise<void> {
    if (chunk.length === 0) return;
    if (this.state !== 'open') throw this.failure ?? new SiardOcflError('The ZIP archive is closed.', { code: 'ZIP_STATE' });
    this.hash?.update(chunk);
    this.options.onBytes?.(chunk, this.written);
    try {
      await this.sink.write(chunk);
    } catch (err) {
      throw this.ioError(err);
    }
    this.written += chunk.length;
  }

  private ioError(err: unknown): Error {
    if (err instanceof SiardOcflError) return err;
    return new SiardOcflError(`Cannot write the ZIP archive ${this.sink.description}: ${(err as Error).message}`, {
      code: 'ZIP_WRITE',
      cause: err,
    });
  }

  private async writeDirectory(name: string, mtime: Date): Promise<void> {
    const nameBytes = this.checkName(name, true);
    const { time, date } = dosDateTime(mtime);
    const localHeaderOffset = this.written;
    const header = localHeader(FLAG_UTF8, METHOD_STORE, time, date, nameBytes.length);
    // crc, sizes: 0; no extra field.
    await this.emit(Buffer.concat([header, nameBytes]));
    this.records.push({
      name,
      isDirectory: true,
      compressionMethod: METHOD_STORE,
      crc32: 0,
      compressedSize: 0,
      uncompressedSize: 0,
      localHeaderOffset,
      nameBytes,
      flags: FLAG_UTF8,
      dosTime: time,
      dosDate: date,
    });
  }

  /**
   * Writes one file entry. With `known` (buffer and raw copies) the local header carries the CRC
   * and sizes and no data descriptor follows (streaming readers such as Java's ZipInputStream
   * refuse stored entries with a descriptor); otherwise flag bit 3 and a ZIP64 data descriptor.
   * Either way the local header has a ZIP64 extra field and 0xFFFFFFFF size markers.
   */
  private async writeFile(name: string, method: number, mtime: Date, known: EntrySums | undefined, body: EntryBody): Promise<void> {
    const nameBytes = this.checkName(name, false);
    const { time, date } = dosDateTime(mtime);
    const flags = known ? FLAG_UTF8 : FLAG_UTF8 | FLAG_DATA_DESCRIPTOR;
    const localHeaderOffset = this.written;
    const header = localHeader(flags, method, time, date, nameBytes.length);
    header.writeUInt32LE(known ? known.crc32 >>> 0 : 0, 14);
    header.writeUInt32LE(MAX_UINT32, 18); // sizes: in the ZIP64 extra field (or descriptor)
    header.writeUInt32LE(MAX_UINT32, 22);
    header.writeUInt16LE(20, 28);
    const extra = Buffer.alloc(20); // ZIP64 extra: original size, compressed size (0 when streamed)
    extra.writeUInt16LE(EXTRA_ZIP64, 0);
    extra.writeUInt16LE(16, 2);
    if (known) {
      writeUInt64LE(extra, known.uncompressedSize, 4);
      writeUInt64LE(extra, known.compressedSize, 12);
    }
    await this.emit(Buffer.concat([header, nameBytes, extra]));

    this.open = { name, offset: localHeaderOffset, flags, dosTime: time, dosDate: date };
    let result: EntrySums;
    try {
      result = await body((chunk) => this.emit(chunk));
    } finally {
      this.open = undefined;
    }
    await this.endFile({ name, offset: localHeaderOffset, flags, dosTime: time, dosDate: date }, nameBytes, method, known, result);
  }

  /** Goes on with a streamed entry an interrupted run had begun: its data after the sums so far, then its descriptor. */
  private async continueFile(from: { entry: OpenEntryRecord; sums: SegmentSums }, body: EntryBody): Promise<void> {
    const nameBytes = this.checkName(from.entry.name, false);
    this.open = { ...from.entry };
    let result: EntrySums;
    try {
      result = await body((chunk) => this.emit(chunk));
    } finally {
      this.open = undefined;
    }
    await this.endFile(from.entry, nameBytes, METHOD_DEFLATE, undefined, result);
  }

  /** A file entry's data descriptor (a streamed entry) and its central-directory record. */
  private async endFile(
    at: OpenEntryRecord,
    nameBytes: Buffer,
    method: number,
    known: EntrySums | undefined,
    result: EntrySums,
  ): Promise<void> {
    if (!known) {
      const descriptor = Buffer.alloc(24);
      descriptor.writeUInt32LE(SIG_DATA_DESCRIPTOR, 0);
      descriptor.writeUInt32LE(result.crc32 >>> 0, 4);
      writeUInt64LE(descriptor, result.compressedSize, 8);
      writeUInt64LE(descriptor, result.uncompressedSize, 16);
      await this.emit(descriptor);
    }
    this.records.push({
      name: at.name,
      isDirectory: false,
      compressionMethod: method,
      crc32: result.crc32 >>> 0,
      compressedSize: result.compressedSize,
      uncompressedSize: result.uncompressedSize,
      localHeaderOffset: at.offset,
      nameBytes,
      flags: at.flags,
      dosTime: at.dosTime,
      dosDate: at.dosDate,
    });
  }

  private async writeCentralDirectory(): Promise<void> {
    const centralOffset = this.written;
    for (const record of this.records) await this.emit(this.centralHeader(record));
    const centralSize = this.written - centralOffset;
    const count = this.records.length;

    const zip64EocdOffset = this.written;
    const zip64Eocd = Buffer.alloc(56);
    zip64Eocd.writeUInt32LE(SIG_ZIP64_EOCD, 0);
    writeUInt64LE(zip64Eocd, 44, 4); // size of the rest of this record
    zip64Eocd.writeUInt16LE(VERSION_MADE_BY, 12);
    zip64Eocd.writeUInt16LE(VERSION_ZIP64, 14);
    // disk numbers at 16 and 20: 0
    writeUInt64LE(zip64Eocd, count, 24);
    writeUInt64LE(zip64Eocd, count, 32);
    writeUInt64LE(zip64Eocd, centralSize, 40);
    writeUInt64LE(zip64Eocd, centralOffset, 48);

    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(SIG_ZIP64_LOCATOR, 0);
    writeUInt64LE(locator, zip64EocdOffset, 8);
    locator.writeUInt32LE(1, 16); // total number of disks

    const force = this.forceZip64;
    const eocd = Buffer.alloc(22);
    eocd.writeUInt32LE(SIG_EOCD, 0);
    const count16 = force || count >= MAX_UINT16 ? MAX_UINT16 : count;
    eocd.writeUInt16LE(count16, 8);
    eocd.writeUInt16LE(count16, 10);
    eocd.writeUInt32LE(force || centralSize >= MAX_UINT32 ? MAX_UINT32 : centralSize, 12);
    eocd.writeUInt32LE(force || centralOffset >= MAX_UINT32 ? MAX_UINT32 : centralOffset, 16);
    await this.emit(Buffer.concat([zip64Eocd, locator, eocd]));
  }

  private centralHeader(record: CentralRecord): Buffer {
    const force = this.forceZip64;
    const zip64Values: number[] = [];
    const field = (value: number): number => {
      if (force || value >= MAX_UINT32) {
        zip64Values.push(value);
        return MAX_UINT32;
      }
      return value;
    };
    // APPNOTE 4.5.3 order: original size, compressed size, local header offset.
    const uncompressed32 = field(record.uncompressedSize);
    const compressed32 = field(record.compressedSize);
    const offset32 = field(record.localHeaderOffset);
    const extra = Buffer.alloc(zip64Values.length ? 4 + 8 * zip64Values.length : 0);
    if (zip64Values.length) {
      extra.writeUInt16LE(EXTRA_ZIP64, 0);
      extra.writeUInt16LE(8 * zip64Values.length, 2);
      zip64Values.forEach((value, i) => writeUInt64LE(extra, value, 4 + 8 * i));
    }
    const header = Buffer.alloc(46);
    header.writeUInt32LE(SIG_CENTRAL_HEADER, 0);
    header.writeUInt16LE(VERSION_MADE_BY, 4);
    header.writeUInt16LE(VERSION_ZIP64, 6);
    header.writeUInt16LE(record.flags, 8);
    header.writeUInt16LE(record.compressionMethod, 10);
    header.writeUInt16LE(record.dosTime, 12);
    header.writeUInt16LE(record.dosDate, 14);
    header.writeUInt32LE(record.crc32, 16);
    header.writeUInt32LE(compressed32, 20);
    header.writeUInt32LE(uncompressed32, 24);
    header.writeUInt16LE(record.nameBytes.length, 28);
    header.writeUInt16LE(extra.length, 30);
    // comment length, disk number start, internal attributes: 0
    const mode = record.isDirectory ? 0o40755 : 0o100644;
    header.writeUInt32LE(((mode << 16) | (record.isDirectory ? 0x10 : 0)) >>> 0, 38);
    header.writeUInt32LE(offset32, 42);
    return Buffer.concat([header, record.nameBytes, extra]);
  }
}

/** A local file header's fixed part: what every entry's has; CRC, sizes and extra length left 0 for the caller. */
function localHeader(flags: number, method: number, time: number, date: number, nameLength: number): Buffer {
  const header = Buffer.alloc(LOCAL_HEADER_FIXED_SIZE);
  header.writeUInt32LE(SIG_LOCAL_HEADER, 0);
  header.writeUInt16LE(VERSION_ZIP64, 4);
  header.writeUInt16LE(flags, 6);
  header.writeUInt16LE(method, 8);
  header.writeUInt16LE(time, 10);
  header.writeUInt16LE(date, 12);
  header.writeUInt16LE(nameLength, 26);
  return header;
}
