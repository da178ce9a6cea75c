/**
 * Writes one externalised LOB through the output sink: places it (lob-placement.ts), writes its
 * part(s), and returns the cell attributes. Every byte is hashed once per digest the result
 * needs: for a LOB in one file the sink's digest of that file is the cell digest (the sink may add
 * its own algorithms in the same pass); for a split LOB the cell digest over the whole LOB is
 * computed here while the sink hashes each part for its own records.
 */
import { createHash } from 'node:crypto';
import type { SourceLob } from './database-source.js';
import type { LayoutSnapshot, LobAddress, LobLayout } from './lob-placement.js';
import { NODE_HASH_OF_DIGEST_TYPE, type SiardDigestType, type SiardLobReference } from './model.js';
import type { OutputSink, WrittenFile } from './output-sink.js';
import { encodeUriPath } from './uri-path.js';
import { countUtf8Characters } from './text-length.js';

/** Bytes of a LOB: in memory, or a stream of known size. */
export type LobBytes = Uint8Array | SourceLob;

export interface LobWriteResult {
  reference: SiardLobReference;
  files: WrittenFile[];
  /** SHA-256 of the whole LOB (lower-case hex), whatever the cell's digestType (table fingerprints use it) */
  sha256: string;
}

async function* chunksOf(bytes: LobBytes): AsyncIterable<Uint8Array> {
  if (bytes instanceof Uint8Array) {
    yield bytes;
    return;
  }
  const source = bytes.open();
  for await (const chunk of source as AsyncIterable<Uint8Array | string>) {
    yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
  }
}

export class LobWriter {
  private readonly nodeHash: string;

  constructor(
    private readonly sink: OutputSink,
    private readonly layout: LobLayout,
    private readonly digestType: SiardDigestType,
    /** told of every file once it is closed (a resumable export journals it) */
    private readonly onFile?: (file: WrittenFile, digestName: string) => void,
  ) {
    this.nodeHash = NODE_HASH_OF_DIGEST_TYPE[digestType];
  }

  private closed(file: WrittenFile): WrittenFile {
    this.onFile?.(file, this.nodeHash);
    return file;
  }

  /** Whether LOBs may be written side by side (the sink says so): begin() ahead of the cells, in order. */
  get concurrent(): boolean {
    return this.sink.concurrentFiles === true;
  }

  /** Writes a LOB of `address.size` bytes; `text` makes `length` count characters (CLOB). */
  write(address: LobAddress, bytes: LobBytes, text: boolean): Promise<LobWriteResult> {
    return this.run(address, bytes, text, (file) => this.closed(file));
  }

  /**
   * Begins writing a LOB ahead of its cell (its place is taken now, so begin LOBs in row order):
   * its files are told (onFile) only by report(), when its cell is written, so that a resumable
   * export's journal lists the files of the rows before a cut and no others.
   */
  begin(address: LobAddress, bytes: LobBytes, text: boolean): Promise<LobWriteResult> {
    return this.run(address, bytes, text, (file) => file);
  }

  /** The layout's counters now (LOBs begun ahead: a cut's state is taken as of its row, withLayoutAt). */
  layoutState(): LayoutSnapshot {
    return this.layout.snapshot();
  }

  /** `f()` run with the layout's counters as `state`, then back as they are now. */
  withLayoutAt<T>(state: LayoutSnapshot, f: () => T): T {
    const now = this.layout.snapshot();
    this.layout.restore(state);
    try {
      return f();
    } finally {
      this.layout.restore(now);
    }
  }

  /** The files of a LOB begun ahead, told now that its cell is written. */
  report(result: LobWriteResult): void {
    for (const file of result.files) this.closed(file);
  }

  private async run(
    address: LobAddress,
    bytes: LobBytes,
    text: boolean,
    closed: (file: WrittenFile) => WrittenFile,
  ): Promise<LobWriteResult> {
    const placement = this.layout.place(address);
    const split = placement.parts.length > 1;
    const whole = split ? createHash(this.nodeHash) : undefined;
    // the cell's digest is SHA-256 by default; another digestType needs SHA-256 beside it, here
    // (a sink such as a staged OCFL version computes only the algorithms it was started with)
    const other = this.nodeHash !== 'sha256';
    const wholeSha256 = other ? createHash('sha256') : undefined;
    const digests = [this.nodeHash];
    const files: WrittenFile[] = [];
    let characters = 0;
    let total = 0;
    let partIndex = 0;
    let file = await this.sink.openFile(placement.parts[0]!.relPath, { digests, size: placement.parts[0]!.length });
    let room = placement.parts[0]!.length;
    try {
      for await (let chunk of chunksOf(bytes)) {
        if (text) characters += countUtf8Characters(chunk);
        whole?.update(chunk);
        wholeSha256?.update(chunk);
        total += chunk.length;
        while (chunk.length > 0) {
          if (room === 0) {
            files.push(closed(await file.close()));
            partIndex++;
            const part = placement.parts[partIndex];
            if (!part) throw new Error(`The LOB at ${placement.cellFile} is longer than its announced ${address.size} bytes.`);
            file = await this.sink.openFile(part.relPath, { digests, size: part.length });
            room = part.length;
          }
          const take = Math.min(room, chunk.length);
          await file.write(take === chunk.length ? chunk : chunk.subarray(0, take));
          room -= take;
          chunk = chunk.subarray(take);
        }
      }
      files.push(closed(await file.close()));
    } catch (err) {
      await file.abort().catch(() => undefined);
      throw err;
    }
    if (total !== address.size || partIndex !== placement.parts.length - 1) {
      throw new Error(`The LOB at ${placement.cellFile} has ${total} bytes, not the announced ${address.size}.`);
    }
    const digest = whole ? whole.digest('hex') : files[0]!.digests[this.nodeHash]!;
    const sha256 = wholeSha256 ? wholeSha256.digest('hex') : digest;
    return {
      reference: { file: encodeUriPath(placement.cellFile), length: text ? characters : total, digestType: this.digestType, digest },
      files,
      sha256,
    };
  }
}

/** Reads a small streamed LOB fully (used only for values at most --inline-max bytes). */
export async function readAll(bytes: LobBytes): Promise<Buffer> {
  if (bytes instanceof Uint8Array) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: Buffer[] = [];
  for await (const c of chunksOf(bytes)) parts.push(Buffer.from(c));
  return Buffer.concat(parts);
}
