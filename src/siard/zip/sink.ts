/**
 * Where the ZIP writer's bytes go: a file (written under a temporary name, fsynced and renamed
 * into place on finish, removed on abort, so no partial archive is ever visible under the final
 * name) or a caller's Writable (backpressure respected; the caller owns its cleanup).
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';

export interface ByteSink {
  /** Human name for error messages. */
  readonly description: string;
  write(chunk: Buffer): Promise<void>;
  finish(): Promise<void>;
  abort(reason?: Error): Promise<void>;
  /** Resolves once every byte written so far has been handed on (a resumable export syncs the file next). */
  flush?(): Promise<void>;
}

export class FileSink implements ByteSink {
  private closed = false;

  private constructor(
    private readonly handle: fsp.FileHandle,
    private readonly tempPath: string,
    readonly finalPath: string,
  ) {}

  get description(): string {
    return this.finalPath;
  }

  static async create(finalPath: string): Promise<FileSink> {
    const dir = path.dirname(path.resolve(finalPath));
    const tempPath = path.join(dir, `.${path.basename(finalPath)}.${process.pid}.${randomBytes(4).toString('hex')}.partial`);
    const handle = await fsp.open(tempPath, 'wx');
    return new FileSink(handle, tempPath, finalPath);
  }

  async write(chunk: Buffer): Promise<void> {
    let done = 0;
    while (done < chunk.length) {
      const { bytesWritten } = await this.handle.write(chunk, done, chunk.length - done);
      done += bytesWritten;
    }
  }

  async finish(): Promise<void> {
    await this.handle.sync();
    await this.handle.close();
    this.closed = true;
    await fsp.rename(this.tempPath, this.finalPath);
    await syncDirectory(path.dirname(path.resolve(this.finalPath)));
  }

  async abort(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      await this.handle.close().catch(() => undefined);
    }
    await fsp.rm(this.tempPath, { force: true });
  }
}

export class StreamSink implements ByteSink {
  readonly description = 'the output stream';
  private failure: Error | undefined;

  constructor(private readonly stream: Writable) {
    stream.on('error', (err) => {
      this.failure ??= err;
    });
  }

  write(chunk: Buffer): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const onError = (err: Error): void => {
        this.stream.off('drain', onDrain);
        reject(err);
      };
      const onDrain = (): void => {
        this.stream.off('error', onError);
        resolve();
      };
      if (this.stream.write(chunk)) {
        resolve();
      } else {
        this.stream.once('drain', onDrain);
        this.stream.once('error', onError);
      }
    });
  }

  /** An empty chunk's callback runs after every chunk written before it was processed. */
  flush(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.stream.write(Buffer.alloc(0), (err) => (err ? reject(err) : resolve()));
    });
  }

  finish(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.stream.once('error', reject);
      this.stream.end(() => {
        this.stream.off('error', reject);
        resolve();
      });
    });
  }

  async abort(reason?: Error): Promise<void> {
    this.stream.destroy(reason);
  }
}

/** fsync a directory so a rename into it survives a crash; not every platform allows it. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(dir, 'r');
    await handle.sync();
  } catch {
    // Windows and some file systems refuse to open or fsync a directory: nothing more to do.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
