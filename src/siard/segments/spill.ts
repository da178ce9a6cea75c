/**
 * Compressed table data held back until the segmented writer knows the name of the ZIP entry it
 * belongs to (`tableN.xml`, `tableN.xml.1`, ... `.z`: the name precedes the data in a ZIP, and
 * whether a part is the last is known only when the table ends or the segment is full). Small
 * amounts stay in memory; beyond MEMORY_MAX the bytes go to a temporary file in the scratch folder,
 * so memory stays flat however large a table is. Each byte is written once and read back once.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, promises as fsp, type promises } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';

const MEMORY_MAX = 8 * 1024 * 1024;

export class Spill {
  private chunks: Buffer[] | undefined = [];
  private file: promises.FileHandle | undefined;
  private filePath: string | undefined;
  private bytes = 0;

  constructor(private readonly scratchDir: string) {}

  get size(): number {
    return this.bytes;
  }

  async append(chunk: Buffer): Promise<void> {
    if (chunk.length === 0) return;
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
    this.chunks = [];
    this.bytes = 0;
    const file = this.file;
    const filePath = this.filePath;
    this.file = undefined;
    this.filePath = undefined;
    await file?.close().catch(() => undefined);
    if (filePath) await fsp.rm(filePath, { force: true });
  }

  private async writeAll(chunk: Buffer): Promise<void> {
    let off = 0;
    while (off < chunk.length) {
      const { bytesWritten } = await this.file!.write(chunk, off, chunk.length - off, null);
      off += bytesWritten;
    }
  }
}
