/**
 * The glue between the SIARD writer and OCFL: an OutputSink whose files are logical files of a
 * staged OCFL version. Each byte the writer hands over goes straight into StagedVersion.addStream,
 * which writes it once into the workspace while one MultiHasher computes the manifest digest and
 * every fixity digest; the digests the writer asked for (the LOB digest) come back from that same
 * pass, so the cell `digest` and the inventory fixity value are one computation.
 *
 * The sink neither commits nor aborts the version on its own: commit() only checks that every
 * file was closed (the caller commits the OCFL version with its message and user), abort() drops
 * the staged version.
 */
import { SiardOcflError } from '../errors.js';
import type { AddedFile, StagedVersion } from '../ocfl/commit/stage.js';
import { assertSafeRelPath, type OpenFileOptions, type OutputFile, type OutputSink, type WrittenFile } from '../siard/output-sink.js';
import { NODE_HASH_OF_DIGEST_TYPE } from '../siard/model.js';

/** SIARD digestType -> OCFL digest algorithm name. */
export const OCFL_ALGORITHM_OF_DIGEST_TYPE: Readonly<Record<string, string>> = NODE_HASH_OF_DIGEST_TYPE;

/**
 * A push -> pull bridge. write() resolves when the consumer asks for the next chunk, i.e. after it
 * has written the previous one, so the producer may reuse its buffer and memory stays bounded.
 */
class Channel implements AsyncIterable<Uint8Array> {
  private waiting: { resolve: (r: IteratorResult<Uint8Array>) => void; reject: (err: Error) => void } | undefined;
  private readonly queue: Array<{ chunk: Uint8Array; taken: () => void }> = [];
  private inHand: (() => void) | undefined;
  private ended = false;
  private failure: Error | undefined;

  push(chunk: Uint8Array): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve) => {
      this.queue.push({ chunk, taken: resolve });
      this.pump();
    });
  }

  end(): void {
    this.ended = true;
    this.pump();
  }

  fail(err: Error): void {
    this.failure ??= err;
    const w = this.waiting;
    this.waiting = undefined;
    w?.reject(err);
  }

  private pump(): void {
    if (!this.waiting) return;
    const next = this.queue.shift();
    if (next) {
      const w = this.waiting;
      this.waiting = undefined;
      this.inHand = next.taken;
      w.resolve({ value: next.chunk, done: false });
    } else if (this.ended) {
      const w = this.waiting;
      this.waiting = undefined;
      w.resolve({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return {
      next: () =>
        new Promise<IteratorResult<Uint8Array>>((resolve, reject) => {
          const taken = this.inHand;
          this.inHand = undefined;
          taken?.();
          if (this.failure) return reject(this.failure);
          this.waiting = { resolve, reject };
          this.pump();
        }),
      return: async () => {
        this.inHand?.();
        this.inHand = undefined;
        return { value: undefined, done: true };
      },
    };
  }
}

class StagedFile implements OutputFile {
  private readonly channel = new Channel();
  private readonly added: Promise<AddedFile>;
  private done = false;
  /** the logical path the content gets when it is placed (renameTo may change it until close) */
  private finalPath: string;

  constructor(
    private readonly relPath: string,
    staged: StagedVersion,
    private readonly onDone: (file: StagedFile, added?: AddedFile) => void,
    sizeHint?: number,
    private readonly prefix = '',
  ) {
    this.finalPath = relPath;
    this.added = staged.addStream(relPath, this.channel, { sizeHint, logicalPathAtEnd: () => this.finalPath });
    // Surface a failure of the staging side on the next write instead of as an unhandled rejection.
    this.added.catch((err: Error) => this.channel.fail(err));
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.done) throw new SiardOcflError(`${this.relPath} is already closed.`);
    await Promise.race([this.channel.push(chunk), this.added.then(() => undefined)]);
  }

  /** The content is placed under its logical path when it ends, so a rename before that costs nothing. */
  async renameTo(relPath: string): Promise<void> {
    if (this.done) throw new SiardOcflError(`${this.relPath} is already closed.`);
    assertSafeRelPath(relPath);
    this.finalPath = this.prefix ? `${this.prefix}/${relPath}` : relPath;
  }

  async close(): Promise<WrittenFile> {
    this.done = true;
    this.channel.end();
    const added = await this.added;
    this.onDone(this, added);
    return { relPath: this.finalPath, size: added.size, digests: added.digests };
  }

  async abort(): Promise<void> {
    if (!this.done) {
      this.done = true;
      this.channel.fail(new SiardOcflError(`Writing ${this.relPath} was aborted.`, { code: 'ABORTED' }));
    }
    await this.added.catch(() => undefined);
    this.onDone(this);
  }
}

export interface StagedSinkStats {
  files: number;
  /** files whose content was new to the object (others were deduplicated) */
  stored: number;
  bytes: number;
  storedBytes: number;
}

/** Writes an export into a staged OCFL version, `prefix` (a logical folder, may be '') first. */
export class StagedVersionSink implements OutputSink {
  private readonly open = new Set<StagedFile>();
  readonly stats: StagedSinkStats = { files: 0, stored: 0, bytes: 0, storedBytes: 0 };

  constructor(
    readonly staged: StagedVersion,
    private readonly prefix = '',
  ) {}

  async openFile(relPath: string, options: OpenFileOptions = {}): Promise<OutputFile> {
    assertSafeRelPath(relPath);
    const missing = (options.digests ?? []).filter((d) => d !== this.staged.digestAlgorithm && !this.staged.fixityAlgorithms.includes(d));
    if (missing.length > 0) {
      // The version must compute these in its single pass; start it with them as fixity algorithms.
      throw new SiardOcflError(
        `The staged version of "${this.staged.id}" does not compute ${missing.join(', ')}; start it with these fixity algorithms.`,
        {
          code: 'SINK_DIGEST',
        },
      );
    }
    const file = new StagedFile(
      this.prefix ? `${this.prefix}/${relPath}` : relPath,
      this.staged,
      (f, added) => {
        this.open.delete(f);
        if (!added) return;
        this.stats.files++;
        this.stats.bytes += added.size;
        if (added.stored) {
          this.stats.stored++;
          this.stats.storedBytes += added.size;
        }
      },
      options.size,
      this.prefix,
    );
    this.open.add(file);
    return file;
  }

  async commit(): Promise<void> {
    if (this.open.size > 0) throw new SiardOcflError('Cannot finish an export while files are still open.');
  }

  async abort(): Promise<void> {
    for (const f of [...this.open]) await f.abort();
    await this.staged.abort();
  }
}
