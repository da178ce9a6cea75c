/**
 * Compressed table data held back until the segmented writer knows the name of the ZIP entry it
 * belongs to (`tableN.xml`, `tableN.xml.1`, ... `.z`: the name precedes the data in a ZIP, and
 * whether a part is the last is known only when the table ends or the segment is full). Small
 * amounts stay in memory; beyond MEMORY_MAX the bytes go to a temporary file in the scratch folder,
 * so memory stays flat however large a table is. Each byte is written once and read back once.
 */
import { createHash, randomBytes, type Hash } from 'node:crypto';
import { createReadStream, promises as fsp, type promises } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';

const MEMORY_MAX = 8 * 1024 * 1024;

export class Spill {
  private chunks: Buffer[] | undefined = [];
  private file: promises.FileHandle | undefined;
  private filePath: string | undefined;
  private bytes = 0;
  /** SHA-256 of the bytes so far (a durable spill's, for its journal line) */
  private hash: Hash | undefined;

  constructor(private readonly scratchDir: string) {}

  /**
   * A spill that is the file `file` from its first byte, made durable by sync(), for a resumable
   * export (docs/resume.md). With `keep`, the file an interrupted run left is continued after its
   * first `keep.bytes` bytes, which are read and must have the SHA-256 `keep.sha256` (else it throws).
   */
  static async durable(file: string, keep?: { bytes: number; sha256: string }): Promise<Spill> {
    const spill = new Spill(path.dirname(file));
    spill.chunks = undefined;
    spill.filePath = file;
    spill.hash = createHash('sha256');
    spill.file = await fsp.open(file, keep ? 'r+' : 'w+');
    if (keep) {
      const buffer = Buffer.allocUnsafe(1 << 20);
      for (let at = 0; at < keep.bytes;) {
        const { bytesRead } = await spill.file.read(buffer, 0, Math.min(buffer.length, keep.bytes - at), at);
        if (bytesRead === 0) break;
        spill.hash.update(buffer.subarray(0, bytesRead));
        at += bytesRead;
      }
      if (spill.hash.copy().digest('hex') !== keep.sha256) {
        await spill.file.close();
        throw new Error(`the first ${keep.bytes} bytes of the held-back table data are not what the journal recorded`);
      }
      await spill.file.truncate(keep.bytes);
      spill.bytes = keep.bytes;
    }
    return spill;
  }

  /** Removes a durable spill's file (closed), when its table's line is journaled. */
  static async remove(file: string): Promise<void> {
    await fsp.rm(file, { force: true });
  }

  /** A durable spill's bytes made durable; their SHA-256. */
  async sync(): Promise<string> {
    await this.file!.sync();
    return this.hash!.copy().digest('hex');
  }

  get size(): number {
    return this.bytes;
  }

  async append(chunk: Buffer): Promise<void> {
    if (chunk.length === 0) return;
    this.hash?.update(chunk);
    if (this.chunks && this.bytes + chunk.length <= MEMORY_MAX) {
      this.chunks.push(chunk);
      this.bytes += chunk.length;
      return;
    }
    if (!this.file) {
      this.filePath = path.join(this.scratchDir, `.siard-ocfl-spill-${process.pid}-${randomBytes(6).toString('hex')}`);
      this.file = await fsp.open(this.filePath, 'wx+');
      for (const c of this.chunks ?? []) await this.writeAll(c);
      this.chunks = undefined;
    }
    await this.writeAll(chunk);
    this.bytes += chunk.length;
  }

  /** Every byte held, in order (read from the temporary file when there is one). */
  async *read(): AsyncGenerator<Buffer> {
    if (this.chunks) {
      yield* this.chunks;
      return;
    }
    if (this.bytes === 0) return;
    yield* createReadStream(this.filePath!, { start: 0, end: this.bytes - 1, highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>;
  }

  /** The bytes held followed by `tail`, as a stream. */
  stream(tail: Buffer): Readable {
    const self = this;
    return Readable.from(
      (async function* () {
        yield* self.read();
        if (tail.length > 0) yield tail;
      })(),
      { objectMode: false },
    );
  }

  /** Frees the memory or removes the temporary file. */
  async dispose(): Promise<void> {
    const filePath = this.filePath;
    await this.close();
    if (filePath) await fsp.rm(filePath, { force: true });
  }

  /**
   * Frees the memory and closes the file, which stays: a durable spill is what a resume continues
   * until the journal holds its table's line (its owner removes it then).
   */
  async close(): Promise<void> {
    this.chunks = [];
    this.bytes = 0;
    const file = this.file;
    this.file = undefined;
    this.filePath = undefined;
    await file?.close().catch(() => undefined);
  }

  private async writeAll(chunk: Buffer): Promise<void> {
    let off = 0;
    while (off < chunk.length) {
      const { bytesWritten } = await this.file!.write(chunk, off, chunk.length - off, this.hash ? this.bytes + off : null);
      off += bytesWritten;
    }
  }
}
