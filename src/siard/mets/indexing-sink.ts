/**
 * `--mets` during an export: an OutputSink wrapper that watches the files the SIARD writer closes.
 * Every LOB file (recognised by its path, lob-paths.ts) goes straight into its segment's child
 * METS with the size and digest the sink computed while writing it, and the `.siard`'s size and
 * digest are kept for the parent. No byte is read twice and no list of files is kept.
 *
 *   const indexing = new MetsIndexingSink(sink, { objId, checksumType: 'SHA-256' });
 *   const summary = await writeSiard(source, indexing, options);
 *   await indexing.finishIndex();      // children + parent mets.xml, into the same sink
 *   await sink.commit();
 *
 * The wrapped sink must return, from close(), the digests asked for in openFile (DirectorySink
 * and an OCFL staging sink do).
 */
import { SiardOcflError } from '../../errors.js';
import type { DigestName, OutputFile, OutputSink, WrittenFile } from '../output-sink.js';
import { MetsIndexWriter, type MetsIndexWriterOptions, type WrittenMetsIndex } from './index-writer.js';
import { lobRecordOfPath } from './lob-paths.js';
import { NODE_HASH_OF_CHECKSUM_TYPE } from './types.js';
import { isSiardFileName } from '../siard-file-name.js';
import { isSiardSegmentName } from '../segments/segment-names.js';

export interface MetsIndexingOptions extends MetsIndexWriterOptions {
  /** the `.siard` path inside the sink; by default the one `*.siard` file in baseDir */
  siardPath?: string;
  /** ZIP64 unless told otherwise (the seed's TRANSFORMALGORITHM) */
  transformAlgorithm?: string;
}

export class MetsIndexingSink implements OutputSink {
  private readonly index: MetsIndexWriter;
  private readonly nodeHash: string;
  private readonly base: string;
  private siard: WrittenFile | undefined;
  private readonly segments: WrittenFile[] = [];
  private queue: Promise<void> = Promise.resolve();
  private failure: unknown;
  private lobCount = 0;

  constructor(
    private readonly inner: OutputSink,
    private readonly options: MetsIndexingOptions,
  ) {
    this.index = new MetsIndexWriter(inner, options);
    this.nodeHash = NODE_HASH_OF_CHECKSUM_TYPE[options.checksumType];
    this.base = options.baseDir ? options.baseDir.replace(/\/+$/, '') + '/' : '';
  }

  get scratchDir(): string | undefined {
    return this.inner.scratchDir;
  }

  /** LOB files listed so far. */
  get lobFiles(): number {
    return this.lobCount;
  }

  async openFile(relPath: string, options: { digests?: DigestName[] } = {}): Promise<OutputFile> {
    const digests = [...new Set([...(options.digests ?? []), this.nodeHash])];
    const file = await this.inner.openFile(relPath, { ...options, digests });
    return {
      write: (chunk) => file.write(chunk),
      abort: () => file.abort(),
      ...(file.renameTo ? { renameTo: (to: string) => file.renameTo!(to) } : {}),
      close: async () => {
        const written = await file.close();
        await this.observe(written);
        return written;
      },
    };
  }

  private observe(written: WrittenFile): Promise<void> {
    const rel = written.relPath.startsWith(this.base) ? written.relPath.slice(this.base.length) : undefined;
    if (rel === undefined) return Promise.resolve();
    const isSiard =
      this.options.siardPath !== undefined ? written.relPath === this.options.siardPath : !rel.includes('/') && isSiardFileName(rel);
    if (isSiard) {
      if (this.siard)
        throw new Error(`Two .siard files (${this.siard.relPath}, ${written.relPath}) for one METS index; name one with siardPath.`);
      this.siard = written;
      return Promise.resolve();
    }
    // The segments of a segmented SIARD file (closed in order, the last renamed .z): all listed.
    if (this.options.siardPath === undefined && !rel.includes('/') && isSiardSegmentName(rel)) {
      this.segments.push(written);
      return Promise.resolve();
    }
    const digest = written.digests[this.nodeHash];
    const record = digest === undefined ? undefined : lobRecordOfPath(rel, written.size, digest);
    if (!record) {
      if (digest === undefined && lobRecordOfPath(rel, 0, '') !== undefined) {
        throw new Error(`The output sink returned no ${this.nodeHash} digest for ${written.relPath}.`);
      }
      return Promise.resolve();
    }
    this.lobCount++;
    // Files may close concurrently; the child METS must get them one at a time.
    this.queue = this.queue
      .then(() => this.index.add(record))
      .catch((err) => {
        this.failure ??= err;
      });
    return this.queue.then(() => {
      if (this.failure) throw this.failure;
    });
  }

  /** Writes the children and the parent; call after the SIARD writer finished, before commit. */
  async finishIndex(): Promise<WrittenMetsIndex> {
    await this.queue;
    if (this.failure) throw this.failure;
    if (!this.siard && this.segments.length > 0) return this.finishSegmented();
    const siard = this.siard;
    if (!siard) {
      await this.index.abort();
      throw new SiardOcflError('No .siard file was written, so there is nothing for the METS index to describe.', {
        code: 'METS_NO_SIARD',
      });
    }
    const checksum = siard.digests[this.nodeHash];
    if (checksum === undefined) throw new Error(`The output sink returned no ${this.nodeHash} digest for ${siard.relPath}.`);
    return this.index.finish({
      path: siard.relPath.slice(this.base.length),
      size: siard.size,
      checksum,
      transformAlgorithm: this.options.transformAlgorithm,
    });
  }

  /** A parent listing every segment, `.1` ... `.z`, with its size and checksum. */
  private async finishSegmented(): Promise<WrittenMetsIndex> {
    if (this.siard) throw new Error('Both a .siard and a segmented SIARD file for one METS index.');
    const facts = this.segments.map((f) => {
      const checksum = f.digests[this.nodeHash];
      if (checksum === undefined) throw new Error(`The output sink returned no ${this.nodeHash} digest for ${f.relPath}.`);
      return { path: f.relPath.slice(this.base.length), size: f.size, checksum, transformAlgorithm: this.options.transformAlgorithm };
    });
    return this.index.finish(facts[0]!, facts.slice(1));
  }

  commit(): Promise<void> {
    return this.inner.commit();
  }

  async abort(): Promise<void> {
    await this.index.abort();
    await this.inner.abort();
  }
}
