/**
 * Where METS bytes go. The interfaces are the structural subset of the export's OutputSink /
 * OutputFile (src/siard/output-sink.ts) that METS needs, so a DirectorySink, an OCFL staging sink
 * or a test's array all fit without an adapter.
 */
import { createHash, type Hash } from 'node:crypto';

/** Anything that takes bytes in order (an OutputFile, a stream wrapper, a test collector). */
export interface ByteWriter {
  write(chunk: Uint8Array): Promise<void>;
}

export interface MetsOutputFile extends ByteWriter {
  close(): Promise<unknown>;
  abort(): Promise<void>;
}

export interface MetsOutputSink {
  /** Creates a new file at `relPath` ('/'-separated, relative to the sink root). */
  openFile(relPath: string, options?: { digests?: string[] }): Promise<MetsOutputFile>;
}

/** Size and digest of what went through a MetsTextOutput. */
export interface WrittenMets {
  size: number;
  /** lower-case hex in the algorithm the output was created with */
  checksum: string;
}

/**
 * Collects XML text, flushes it as UTF-8 in chunks of about 64 KiB, and hashes and counts every
 * byte on the way, so a METS file of 100,000 entries never exists whole in memory.
 */
export class MetsTextOutput {
  private pending: string[] = [];
  private pendingLength = 0;
  private size = 0;
  private readonly hash: Hash;

  constructor(
    private readonly out: ByteWriter,
    nodeHash: string,
    private readonly flushAt = 64 * 1024,
  ) {
    this.hash = createHash(nodeHash);
  }

  async text(s: string): Promise<void> {
    this.pending.push(s);
    this.pendingLength += s.length;
    if (this.pendingLength >= this.flushAt) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const bytes = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.pendingLength = 0;
    this.hash.update(bytes);
    this.size += bytes.length;
    await this.out.write(bytes);
  }

  /** Flushes the rest; the result covers every byte written. */
  async end(): Promise<WrittenMets> {
    await this.flush();
    return { size: this.size, checksum: this.hash.digest('hex') };
  }
}

/** A ByteWriter that keeps everything (for small documents and tests). */
export class BufferWriter implements ByteWriter {
  private readonly chunks: Buffer[] = [];
  async write(chunk: Uint8Array): Promise<void> {
    this.chunks.push(Buffer.from(chunk));
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
