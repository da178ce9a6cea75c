/**
 * relocate: a new version of an object in which each `.siard` differs from the previous one only
 * in `header/metadata.xml`, whose database-level `lobFolder` names the new base URI.
 *
 * Everything before `header/` (the `content/` entries, which the archive messageDigest covers) is
 * copied byte for byte, local headers included (ZipWriter.addVerbatim), so the stated
 * messageDigest, whoever computed it, still holds; the other header entries are copied raw
 * (ZipWriter.addRaw, no recompression). metadata.xml is edited as text: only the content of the
 * database-level <lobFolder> changes (or one is inserted after <dataOriginTimespan>), and the
 * result is parsed back to prove that nothing else changed. LOB files are not touched: the new
 * version's state keeps them, and the manifest points at the content stored earlier.
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { SiardOcflError, UsageError } from '../errors.js';
import type { OcflStorageRoot } from '../ocfl/root.js';
import { parseSiardMetadata } from '../siard/reader/metadata.js';
import { messageDigestEnd } from '../siard/reader/message-digest.js';
import { SiardReader } from '../siard/reader/siard-reader.js';
import { checkLobFolderBase } from '../siard/writer.js';
import { escapeXml } from '../siard/xml-text.js';
import { ZipWriter } from '../siard/zip/writer.js';
import { rootOf, type VersionInfoOptions } from './ingest.js';
import { StagedVersionSink } from './ocfl-sink.js';

export interface RelocateOptions extends VersionInfoOptions {
  /** new database-level lobFolder: a URI ending in '/', e.g. file:///Archives/Northwind/ */
  lobFolder: string;
}

export interface RelocateResult {
  id: string;
  version: string;
  /** logical paths of the rewritten .siard files, with their old and new lobFolder */
  archives: Array<{ path: string; from?: string; to: string; messageDigestRangeBytes: number }>;
  /** files stored new in this version (the rewritten .siard files) */
  stored: number;
}

/**
 * metadata.xml with its database-level lobFolder set to `uri`; every other byte unchanged.
 * The database-level element is the one before <schemas> (column lobFolders lie inside it).
 */
export function rewriteDatabaseLobFolder(xml: string, uri: string, what = 'metadata.xml'): string {
  const encoding = /^\s*<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/.exec(xml)?.[1];
  if (encoding && !/^utf-?8$/i.test(encoding)) throw new SiardOcflError(`${what} is encoded in ${encoding}; only UTF-8 metadata can be rewritten.`, { code: 'RELOCATE_ENCODING' });
  const schemas = /<([\w.-]+:)?schemas[\s>/]/.exec(xml);
  const head = schemas ? xml.slice(0, schemas.index) : xml;
  const value = escapeXml(uri);
  const existing = /<([\w.-]+:)?lobFolder(\s[^>]*)?>([\s\S]*?)<\/([\w.-]+:)?lobFolder\s*>|<([\w.-]+:)?lobFolder(\s[^>]*)?\/>/.exec(head);
  if (existing) {
    const prefix = existing[1] ?? existing[5] ?? '';
    const replacement = `<${prefix}lobFolder>${value}</${prefix}lobFolder>`;
    return xml.slice(0, existing.index) + replacement + xml.slice(existing.index + existing[0].length);
  }
  const after = /<\/([\w.-]+:)?dataOriginTimespan\s*>/.exec(head);
  if (!after) throw new SiardOcflError(`${what} has no <dataOriginTimespan> to place a database-level <lobFolder> after.`, { code: 'RELOCATE_METADATA' });
  const prefix = after[1] ?? '';
  const lineStart = xml.lastIndexOf('\n', after.index);
  const indent = /^[ \t]*/.exec(xml.slice(lineStart + 1))![0];
  const at = after.index + after[0].length;
  return `${xml.slice(0, at)}\n${indent}<${prefix}lobFolder>${value}</${prefix}lobFolder>${xml.slice(at)}`;
}

function writableOf(file: { write(chunk: Uint8Array): Promise<void> }): Writable {
  return new Writable({
    highWaterMark: 1 << 20,
    write(chunk: Buffer, _enc, cb) {
      file.write(chunk).then(() => cb(), cb);
    },
  });
}

async function readEntry(reader: SiardReader, name: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of (await reader.zip.openStream(name)) as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Writes `reader`'s archive with a new metadata.xml into `sink` at `logicalPath`. */
async function rewriteArchive(reader: SiardReader, sink: StagedVersionSink, logicalPath: string, metadataXml: Buffer): Promise<number> {
  const end = messageDigestEnd(reader);
  if (end === undefined) throw new SiardOcflError(`${logicalPath} has no header/ entries.`, { code: 'RELOCATE_METADATA' });
  const entries = [...reader.zip.entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  const unsafe = entries.find((e) => e.unsafeReason !== null);
  if (unsafe) throw new SiardOcflError(`${logicalPath} holds the unsafe ZIP entry ${JSON.stringify(unsafe.name)} (${unsafe.unsafeReason}); it is not rewritten.`, { code: 'ZIP_UNSAFE_NAME', exitCode: 1 });
  const file = await sink.openFile(logicalPath);
  const zip = await ZipWriter.create(writableOf(file));
  try {
    const prefix = entries.filter((e) => e.localHeaderOffset < end);
    if (prefix[0] && prefix[0].localHeaderOffset !== 0) {
      throw new SiardOcflError(`${logicalPath} does not start with a ZIP entry; it cannot be copied exactly.`, { code: 'RELOCATE_ZIP' });
    }
    for (const [i, e] of prefix.entries()) {
      const next = i + 1 < prefix.length ? prefix[i + 1]!.localHeaderOffset : end;
      await zip.addVerbatim(e, createReadStream(reader.file, { start: e.localHeaderOffset, end: next - 1 }), next - e.localHeaderOffset);
    }
    const mark = await zip.markDigestEnd();
    if (mark.offset !== end) throw new SiardOcflError(`${logicalPath}: the copied content ends at ${mark.offset}, not ${end}.`, { code: 'RELOCATE_ZIP' });
    const metadataName = `${reader.root}header/metadata.xml`;
    for (const e of entries.filter((x) => x.localHeaderOffset >= end)) {
      if (e.name === metadataName) await zip.addBuffer(e.name, metadataXml, { mtime: new Date() });
      else if (e.isDirectory) await zip.addDirectory(e.name, { mtime: e.mtime });
      else await zip.addRaw(e, await reader.zip.openRawStream(e));
    }
    await zip.close();
    await file.close();
    return end;
  } catch (err) {
    await zip.abort().catch(() => undefined);
    await file.abort().catch(() => undefined);
    throw err;
  }
}

/** Rewrites the database-level lobFolder of every .siard in the head of object `id`, as a new version. */
export async function relocate(rootArg: string | OcflStorageRoot, id: string, options: RelocateOptions): Promise<RelocateResult> {
  try {
    checkLobFolderBase(options.lobFolder);
  } catch (err) {
    throw new UsageError((err as Error).message, 'BAD_LOB_FOLDER');
  }
  const root = await rootOf(rootArg);
  const object = await root.openObject(id);
  const siards = [...object.state().keys()].filter((p) => /\.siard$/i.test(p));
  if (siards.length === 0) throw new UsageError(`Object "${id}" holds no .siard file in ${object.head}; there is nothing to relocate.`, 'NO_SIARD');
  const objectAbs = path.join(root.location, ...object.path.split('/'));
  const staged = await root.startVersion(id, { fixityAlgorithms: Object.keys(object.inventory.fixity ?? {}) });
  const sink = new StagedVersionSink(staged);
  const archives: RelocateResult['archives'] = [];
  try {
    for (const logicalPath of siards) {
      const contentPath = object.contentPath(logicalPath);
      const reader = await SiardReader.open(path.join(objectAbs, ...contentPath.split('/')), { siardPath: logicalPath });
      try {
        const metadataName = `${reader.root}header/metadata.xml`;
        const oldXml = (await readEntry(reader, metadataName)).toString('utf8');
        const newXml = rewriteDatabaseLobFolder(oldXml, options.lobFolder, `${logicalPath}: header/metadata.xml`);
        // Parsed back: the lobFolder is the new one and nothing else of the archive changed.
        const before = parseSiardMetadata(oldXml, logicalPath).archive;
        const after = parseSiardMetadata(newXml, logicalPath).archive;
        if (after.lobFolder !== options.lobFolder || JSON.stringify({ ...after, lobFolder: undefined }) !== JSON.stringify({ ...before, lobFolder: undefined })) {
          throw new SiardOcflError(`${logicalPath}: rewriting the lobFolder of header/metadata.xml would change more than the lobFolder; nothing was written.`, { code: 'RELOCATE_METADATA' });
        }
        const end = await rewriteArchive(reader, sink, logicalPath, Buffer.from(newXml, 'utf8'));
        archives.push({ path: logicalPath, ...(before.lobFolder !== undefined ? { from: before.lobFolder } : {}), to: options.lobFolder, messageDigestRangeBytes: end });
      } finally {
        reader.close();
      }
    }
    await sink.commit();
  } catch (err) {
    await sink.abort().catch(() => undefined);
    throw err;
  }
  const commit = await staged.commit({
    message: options.message ?? `siard-ocfl relocate: lobFolder ${options.lobFolder}`,
    ...(options.user ? { user: options.user } : {}),
  });
  return { id, version: commit.version, archives, stored: sink.stats.stored };
}
