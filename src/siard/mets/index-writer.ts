/**
 * Writes the whole METS index through an output sink: one child `mets.xml` per segment folder
 * (from the LOB file records, grouped by segment) and then the parent `mets.xml` beside the
 * `.siard`, which needs the children's checksums. This is what export / ingest call for `--mets`.
 *
 * Streaming: records are taken one at a time and written straight into their segment's child
 * file, so the records need not be sorted and are never held as a list. Each segment's child
 * file stays open until finish() (one open file per segment folder).
 */
import { ChildMetsWriter, checkSegment, type WrittenChildMets } from './child-writer.js';
import type { MetsOutputFile, MetsOutputSink, WrittenMets } from './output.js';
import { writeParentMets, type ParentMetsSiardFile } from './parent-writer.js';
import { METS_FILE_NAME, NODE_HASH_OF_CHECKSUM_TYPE, type MetsChecksumType, type MetsLobRecord } from './types.js';

export interface MetsIndexWriterOptions {
  /** the archive identifier (the OCFL object id when ingesting): the parent's OBJID */
  objId: string;
  /** the LOB digest algorithm; the records' checksums are in it */
  checksumType: MetsChecksumType;
  /** folder of the parent METS inside the sink ('/'-separated); the sink root when omitted */
  baseDir?: string;
  createDate?: Date;
  agentName?: string;
}

export interface MetsIndexOptions extends MetsIndexWriterOptions {
  /** the `.siard`, path relative to the parent METS folder */
  siard: ParentMetsSiardFile;
  /** every LOB file (every part of a split LOB), segment folders relative to the parent METS folder */
  files: Iterable<MetsLobRecord> | AsyncIterable<MetsLobRecord>;
}

export interface WrittenMetsFile extends WrittenMets {
  /** path inside the sink */
  path: string;
}

export interface WrittenMetsIndex {
  parent: WrittenMetsFile;
  /** in the order segments first appeared in the records */
  children: Array<WrittenChildMets & { path: string }>;
}

interface OpenChild {
  file: MetsOutputFile;
  writer: ChildMetsWriter;
  path: string;
  /** there once the child is finished (endSegment) */
  written?: WrittenChildMets & { path: string };
}

/** Incremental form: add() each LOB file as it is written, finish() once the `.siard` is known. */
export class MetsIndexWriter {
  private readonly base: string;
  private readonly digests: string[];
  private readonly open = new Map<string, OpenChild>();
  private readonly unfinished = new Set<MetsOutputFile>();
  private state: 'open' | 'finished' | 'failed' = 'open';

  constructor(
    private readonly sink: MetsOutputSink,
    private readonly options: MetsIndexWriterOptions,
  ) {
    this.base = options.baseDir ? options.baseDir.replace(/\/+$/, '') : '';
    if (this.base) checkSegment(this.base);
    if (options.objId.length === 0) throw new Error('The METS index needs a non-empty archive identifier (OBJID).');
    this.digests = [NODE_HASH_OF_CHECKSUM_TYPE[options.checksumType]];
  }

  private inSink(rel: string): string {
    return this.base ? `${this.base}/${rel}` : rel;
  }

  private guard(): void {
    if (this.state !== 'open') throw new Error(`The METS index is already ${this.state}.`);
  }

  /** Lists one LOB file in its segment's child METS (opening that child on first use). */
  async add(record: MetsLobRecord): Promise<void> {
    this.guard();
    try {
      let child = this.open.get(record.segment);
      if (!child) {
        checkSegment(record.segment);
        const path = this.inSink(`${record.segment}/${METS_FILE_NAME}`);
        const file = await this.sink.openFile(path, { digests: this.digests });
        this.unfinished.add(file);
        const writer = new ChildMetsWriter(file, {
          segment: record.segment,
          parentObjId: this.options.objId,
          checksumType: this.options.checksumType,
          createDate: this.options.createDate,
          agentName: this.options.agentName,
        });
        this.open.set(record.segment, (child = { file, writer, path }));
      }
      await child.writer.addFile(record);
    } catch (err) {
      await this.abort();
      throw err;
    }
  }

  /**
   * Ends the child of a segment that gets no more files, so its file is closed and its memory let go
   * before finish(); a later add() to it fails. The parent still lists the children in first-seen order.
   */
  async endSegment(segment: string): Promise<void> {
    this.guard();
    const child = this.open.get(segment);
    if (!child) throw new Error(`The METS index has no child METS for segment ${segment}.`);
    try {
      await this.end(child);
    } catch (err) {
      await this.abort();
      throw err;
    }
  }

  private async end(child: OpenChild): Promise<WrittenChildMets & { path: string }> {
    if (!child.written) {
      const written = await child.writer.finish();
      await child.file.close();
      this.unfinished.delete(child.file);
      child.written = { ...written, path: child.path };
    }
    return child.written;
  }

  /** Ends every child, then writes the parent with their checksums and the `.siard`'s. */
  /** Writes the children and the parent; `more`: the segments after the first of a segmented SIARD file. */
  async finish(siard: ParentMetsSiardFile, more: ParentMetsSiardFile[] = []): Promise<WrittenMetsIndex> {
    this.guard();
    try {
      const children: WrittenMetsIndex['children'] = [];
      for (const child of this.open.values()) children.push(await this.end(child));
      const parentPath = this.inSink(METS_FILE_NAME);
      const parentFile = await this.sink.openFile(parentPath, { digests: this.digests });
      this.unfinished.add(parentFile);
      const parent = await writeParentMets(parentFile, {
        objId: this.options.objId,
        checksumType: this.options.checksumType,
        siard,
        ...(more.length > 0 ? { siardSegments: more } : {}),
        children: children.map((c) => ({ segment: c.segment, size: c.size, checksum: c.checksum })),
        createDate: this.options.createDate,
        agentName: this.options.agentName,
      });
      await parentFile.close();
      this.unfinished.delete(parentFile);
      this.state = 'finished';
      return { parent: { ...parent, path: parentPath }, children };
    } catch (err) {
      await this.abort();
      throw err;
    }
  }

  /** Gives up: aborts every METS file not yet closed (the caller usually aborts the sink too). */
  async abort(): Promise<void> {
    if (this.state === 'finished') return;
    this.state = 'failed';
    for (const file of this.unfinished) await file.abort().catch(() => undefined);
    this.unfinished.clear();
  }
}

/** Writes the whole index from a list (or stream) of LOB file records. */
export async function writeMetsIndex(sink: MetsOutputSink, options: MetsIndexOptions): Promise<WrittenMetsIndex> {
  const writer = new MetsIndexWriter(sink, options);
  try {
    for await (const record of options.files) await writer.add(record);
  } catch (err) {
    await writer.abort();
    throw err;
  }
  return writer.finish(options.siard);
}
