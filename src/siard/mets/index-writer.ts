/**
 * Writes the whole METS index through an output sink: one child `mets.xml` per segment folder
 * (from the LOB file records, grouped by segment) and then the parent `mets.xml` beside the
 * `.siard`, which needs the children's checksums. This is what export / ingest call for `--mets`.
 *
 * Streaming: records are taken one at a time and written straight into their segment's child
 * file, so the records need not be sorted and are never held as a list. Each segment's child
 * file stays open until the input ends (one open file per segment folder).
 */
import { ChildMetsWriter, checkSegment, type WrittenChildMets } from './child-writer.js';
import type { MetsOutputFile, MetsOutputSink, WrittenMets } from './output.js';
import { writeParentMets, type ParentMetsSiardFile } from './parent-writer.js';
import { METS_FILE_NAME, NODE_HASH_OF_CHECKSUM_TYPE, type MetsChecksumType, type MetsLobRecord } from './types.js';

export interface MetsIndexOptions {
  /** the archive identifier (the OCFL object id when ingesting): the parent's OBJID */
  objId: string;
  /** the LOB digest algorithm; the records' checksums are in it */
  checksumType: MetsChecksumType;
  /** the `.siard`, path relative to the parent METS folder */
  siard: ParentMetsSiardFile;
  /** every LOB file (every part of a split LOB), segment folders relative to the parent METS folder */
  files: Iterable<MetsLobRecord> | AsyncIterable<MetsLobRecord>;
  /** folder of the parent METS inside the sink ('/'-separated); the sink root when omitted */
  baseDir?: string;
  createDate?: Date;
  agentName?: string;
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
}

export async function writeMetsIndex(sink: MetsOutputSink, options: MetsIndexOptions): Promise<WrittenMetsIndex> {
  const base = options.baseDir ? options.baseDir.replace(/\/+$/, '') : '';
  if (base) checkSegment(base);
  const inSink = (rel: string) => (base ? `${base}/${rel}` : rel);
  const digests = [NODE_HASH_OF_CHECKSUM_TYPE[options.checksumType]];
  const open = new Map<string, OpenChild>();
  const opened: MetsOutputFile[] = [];
  try {
    for await (const record of options.files) {
      let child = open.get(record.segment);
      if (!child) {
        checkSegment(record.segment);
        const path = inSink(`${record.segment}/${METS_FILE_NAME}`);
        const file = await sink.openFile(path, { digests });
        opened.push(file);
        const writer = new ChildMetsWriter(file, {
          segment: record.segment,
          parentObjId: options.objId,
          checksumType: options.checksumType,
          createDate: options.createDate,
          agentName: options.agentName,
        });
        open.set(record.segment, (child = { file, writer, path }));
      }
      await child.writer.addFile(record);
    }
    const children: WrittenMetsIndex['children'] = [];
    for (const child of open.values()) {
      const written = await child.writer.finish();
      await child.file.close();
      opened.splice(opened.indexOf(child.file), 1);
      children.push({ ...written, path: child.path });
    }
    const parentPath = inSink(METS_FILE_NAME);
    const parentFile = await sink.openFile(parentPath, { digests });
    opened.push(parentFile);
    const parent = await writeParentMets(parentFile, {
      objId: options.objId,
      checksumType: options.checksumType,
      siard: options.siard,
      children: children.map((c) => ({ segment: c.segment, size: c.size, checksum: c.checksum })),
      createDate: options.createDate,
      agentName: options.agentName,
    });
    await parentFile.close();
    opened.pop();
    return { parent: { ...parent, path: parentPath }, children };
  } catch (err) {
    // Leave nothing half-written behind in the sink (the caller usually aborts the sink too).
    for (const file of opened) await file.abort().catch(() => undefined);
    throw err;
  }
}
