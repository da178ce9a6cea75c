/**
 * relocate: a new version of an object in which each `.siard` differs from the previous one only
 * in `header/metadata.xml`, whose database-level `lobFolder` names the new base URI. Every segment
 * of a segmented SIARD file (`.siard.1` ... `.z`) holds its own metadata.xml and is rewritten the
 * same way, each keeping its own messageDigest.
 *
 * Everything before `header/` (the `content/` entries, which the archive messageDigest covers) is
 * copied byte for byte, local headers included (ZipWriter.addVerbatim), so the stated
 * messageDigest, whoever computed it, still holds; the other header entries are copied raw
 * (ZipWriter.addRaw, no recompression). metadata.xml is edited as text: only the content of the
 * database-level <lobFolder> changes (or one is inserted after <dataOriginTimespan>), and the
 * result is parsed back to prove that nothing else changed. LOB files are not touched: the new
 * version's state keeps them, and the manifest points at the content stored earlier.
 *
 * A METS index beside a .siard (`mets.xml`, seed 002) describes the .siard's SIZE and CHECKSUM,
 * so the same version holds it written again for the new .siard (parent-update.ts): checksum
 * from the digests the version computes for the new .siard (the index's CHECKSUMTYPE is the LOB
 * digest, a fixity algorithm of the object), every other byte as before but a LASTMODDATE. Its
 * FLocat hrefs stay relative to it (the object keeps the segment folders where they were); the
 * child METS are not touched, so they are not stored again. A parent that cannot be written
 * again truthfully stops the relocation before anything is written.
 */
import { createHash } from 'node:crypto';
import { SiardOcflError, UsageError } from '../errors.js';
import type { OcflObjectReader } from '../ocfl/object/object.js';
import type { OcflStorageRoot } from '../ocfl/root.js';
import { countingSink } from '../siard/counting-sink.js';
import {
  ParentMetsNotUpdatable,
  planParentMetsUpdate,
  writeUpdatedParentMets,
  type ParentMetsUpdatePlan,
} from '../siard/mets/parent-update.js';
import { METS_FILE_NAME, NODE_HASH_OF_CHECKSUM_TYPE, type MetsChecksumType } from '../siard/mets/types.js';
import { parseSiardMetadata } from '../siard/reader/metadata.js';
import type { OutputSink } from '../siard/output-sink.js';
import type { SiardArchive } from '../siard/model.js';
import { messageDigestEnd } from '../siard/reader/message-digest.js';
import { SiardReader } from '../siard/reader/siard-reader.js';
import { checkLobFolderBase } from '../siard/writer.js';
import { escapeXml } from '../siard/xml-text.js';
import { ZipWriter } from '../siard/zip/writer.js';
import type { VersionInfoOptions } from './ingest.js';
import { rootOf } from '../ocfl/root.js';
import { storedFile } from './stored.js';
import { StagedVersionSink } from './ocfl-sink.js';
import { isAbsoluteUri } from './storage-base.js';
import { writableOf } from '../siard/writable.js';
import { isSiardFileName } from '../siard/siard-file-name.js';
import { isSiardSegmentName } from '../siard/segments/segment-names.js';

export interface RelocateOptions extends VersionInfoOptions {
  /** new database-level lobFolder: a URI ending in '/', e.g. file:///Archives/Northwind/ */
  lobFolder: string;
  /** progress: the bytes of the .siard files to copy, once, before the first */
  onPlan?: (plan: { archives: number; bytes: number }) => void;
  /** progress: bytes of the new .siard files written */
  onBytes?: (bytes: number) => void;
  /** progress: after each .siard */
  onArchiveDone?: () => void;
}

export interface RelocateResult {
  id: string;
  version: string;
  /** logical paths of the rewritten .siard files, with their old and new lobFolder */
  archives: Array<{ path: string; from?: string; to: string; messageDigestRangeBytes: number }>;
  /** files stored new in this version (the rewritten .siard files and METS parents) */
  stored: number;
  /** METS indexes (parent mets.xml beside a .siard) written again for the new .siard */
  mets: Array<{ path: string; siard: string; checksumType: MetsChecksumType; size: number; checksum: string; childrenUnchanged: number }>;
  /** what the user should know about the result that is not a problem */
  notes: string[];
}

/**
 * metadata.xml with its database-level lobFolder set to `uri`; every other byte unchanged.
 * The database-level element is the one before <schemas> (column lobFolders lie inside it).
 */
export function rewriteDatabaseLobFolder(xml: string, uri: string, what = 'metadata.xml'): string {
  const encoding = /^\s*<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/.exec(xml)?.[1];
  if (encoding && !/^utf-?8$/i.test(encoding))
    throw new SiardOcflError(`${what} is encoded in ${encoding}; only UTF-8 metadata can be rewritten.`, { code: 'RELOCATE_ENCODING' });
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
  if (!after)
    throw new SiardOcflError(`${what} has no <dataOriginTimespan> to place a database-level <lobFolder> after.`, {
      code: 'RELOCATE_METADATA',
    });
  const prefix = after[1] ?? '';
  const lineStart = xml.lastIndexOf('\n', after.index);
  const indent = /^[ \t]*/.exec(xml.slice(lineStart + 1))![0];
  const at = after.index + after[0].length;
  return `${xml.slice(0, at)}\n${indent}<${prefix}lobFolder>${value}</${prefix}lobFolder>${xml.slice(at)}`;
}

async function readEntry(reader: SiardReader, name: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of (await reader.zip.openStream(name)) as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Writes `reader`'s archive with a new metadata.xml into `sink` at `logicalPath`. */
async function rewriteArchive(
  reader: SiardReader,
  sink: OutputSink,
  logicalPath: string,
  metadataXml: Buffer,
  digest?: { algorithm: string; fromVersion: boolean },
): Promise<{ end: number; size: number; checksum?: string }> {
  const end = messageDigestEnd(reader);
  if (end === undefined) throw new SiardOcflError(`${logicalPath} has no header/ entries.`, { code: 'RELOCATE_METADATA' });
  const entries = [...reader.zip.entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  const unsafe = entries.find((e) => e.unsafeReason !== null);
  if (unsafe)
    throw new SiardOcflError(
      `${logicalPath} holds the unsafe ZIP entry ${JSON.stringify(unsafe.name)} (${unsafe.unsafeReason}); it is not rewritten.`,
      { code: 'ZIP_UNSAFE_NAME', exitCode: 1 },
    );
  const file = await sink.openFile(logicalPath, digest?.fromVersion ? { digests: [digest.algorithm] } : {});
  // An algorithm the version does not compute (not a fixity algorithm of the object): hashed on the way.
  const own = digest && !digest.fromVersion ? createHash(digest.algorithm) : undefined;
  const zip = await ZipWriter.create(writableOf(own ? { write: (c: Uint8Array) => (own.update(c), file.write(c)) } : file));
  try {
    const prefix = entries.filter((e) => e.localHeaderOffset < end);
    if (prefix[0] && prefix[0].localHeaderOffset !== 0) {
      throw new SiardOcflError(`${logicalPath} does not start with a ZIP entry; it cannot be copied exactly.`, { code: 'RELOCATE_ZIP' });
    }
    for (const [i, e] of prefix.entries()) {
      const next = i + 1 < prefix.length ? prefix[i + 1]!.localHeaderOffset : end;
      await zip.addVerbatim(e, reader.zip.readRange(e.localHeaderOffset, next - 1), next - e.localHeaderOffset);
    }
    const mark = await zip.markDigestEnd();
    if (mark.offset !== end)
      throw new SiardOcflError(`${logicalPath}: the copied content ends at ${mark.offset}, not ${end}.`, { code: 'RELOCATE_ZIP' });
    const metadataName = `${reader.root}header/metadata.xml`;
    for (const e of entries.filter((x) => x.localHeaderOffset >= end)) {
      if (e.name === metadataName) await zip.addBuffer(e.name, metadataXml, { mtime: new Date() });
      else if (e.isDirectory) await zip.addDirectory(e.name, { mtime: e.mtime });
      else await zip.addRaw(e, await reader.zip.openRawStream(e));
    }
    await zip.close();
    const written = await file.close();
    const checksum = digest ? (own ? own.digest('hex') : written.digests[digest.algorithm]) : undefined;
    return { end, size: written.size, ...(checksum !== undefined ? { checksum } : {}) };
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
  // Each segment of a segmented SIARD file is a complete package with its own metadata.xml: each is rewritten.
  const siards = [...object.state().keys()].filter((p) => isSiardFileName(p) || isSiardSegmentName(p));
  if (siards.length === 0)
    throw new UsageError(`Object "${id}" holds no .siard file in ${object.head}; there is nothing to relocate.`, 'NO_SIARD');
  const fixityAlgorithms = object.fixityAlgorithms();
  const indexes = await metsIndexesOf(object, siards);
  const now = new Date();
  const staged = await root.startVersion(id, { fixityAlgorithms, known: object.known() });
  const sink = new StagedVersionSink(staged);
  const archiveSink = options.onBytes ? countingSink(sink, options.onBytes) : sink;
  const archives: RelocateResult['archives'] = [];
  const mets: RelocateResult['mets'] = [];
  const notes: string[] = [];
  try {
    if (options.onPlan) {
      let bytes = 0;
      for (const p of siards) bytes += (await object.storage.stat(object.storagePath(object.contentPath(p))))?.size ?? 0;
      options.onPlan({ archives: siards.length, bytes });
    }
    for (const logicalPath of siards) {
      const contentPath = object.contentPath(logicalPath);
      const index = indexes.get(logicalPath);
      const algorithm = index ? NODE_HASH_OF_CHECKSUM_TYPE[index.plan.checksumType] : undefined;
      const reader = await SiardReader.open(await storedFile(object.storage, object.storagePath(contentPath)), { siardPath: logicalPath });
      try {
        const { newXml, before } = await relocatedMetadata(reader, logicalPath, options.lobFolder);
        const digest = algorithm
          ? { algorithm, fromVersion: algorithm === staged.digestAlgorithm || staged.fixityAlgorithms.includes(algorithm) }
          : undefined;
        const written = await rewriteArchive(reader, archiveSink, logicalPath, Buffer.from(newXml, 'utf8'), digest);
        archives.push({
          path: logicalPath,
          ...(before.lobFolder !== undefined ? { from: before.lobFolder } : {}),
          to: options.lobFolder,
          messageDigestRangeBytes: written.end,
        });
        if (index) {
          const facts = { size: written.size, checksum: written.checksum! };
          const parent = await writeUpdatedParentMets(index.plan, facts, now);
          const file = await sink.openFile(index.parentPath, { size: parent.bytes.length });
          await file.write(parent.bytes);
          await file.close();
          mets.push({
            path: index.parentPath,
            siard: logicalPath,
            checksumType: index.plan.checksumType,
            ...facts,
            childrenUnchanged: index.plan.children,
          });
          if (isAbsoluteUri(options.lobFolder)) {
            notes.push(
              `${index.parentPath}: the METS index still locates the segment folders relative to itself, where the object keeps ` +
                `them, not at ${options.lobFolder}, which only metadata.xml names.`,
            );
          }
        }
      } finally {
        reader.close();
      }
      options.onArchiveDone?.();
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
  return { id, version: commit.version, archives, stored: sink.stats.stored, mets, notes };
}

/**
 * The archive's header/metadata.xml with its database lobFolder set to `lobFolder`, checked by
 * parsing both back: nothing else of the archive may change.
 */
async function relocatedMetadata(
  reader: SiardReader,
  logicalPath: string,
  lobFolder: string,
): Promise<{ newXml: string; before: SiardArchive }> {
  const metadataName = `${reader.root}header/metadata.xml`;
  const oldXml = (await readEntry(reader, metadataName)).toString('utf8');
  const newXml = rewriteDatabaseLobFolder(oldXml, lobFolder, `${logicalPath}: header/metadata.xml`);
  const before = parseSiardMetadata(oldXml, logicalPath).archive;
  const after = parseSiardMetadata(newXml, logicalPath).archive;
  if (
    after.lobFolder !== lobFolder ||
    JSON.stringify({ ...after, lobFolder: undefined }) !== JSON.stringify({ ...before, lobFolder: undefined })
  ) {
    throw new SiardOcflError(
      `${logicalPath}: rewriting the lobFolder of header/metadata.xml would change more than the lobFolder; nothing was written.`,
      {
        code: 'RELOCATE_METADATA',
      },
    );
  }
  return { newXml, before };
}

/**
 * The parent METS beside each .siard that lists it, read and planned before anything is staged:
 * one that cannot be written again for the new .siard stops the relocation here.
 */
async function metsIndexesOf(
  object: OcflObjectReader,
  siards: string[],
): Promise<Map<string, { parentPath: string; plan: ParentMetsUpdatePlan }>> {
  const state = object.state();
  const out = new Map<string, { parentPath: string; plan: ParentMetsUpdatePlan }>();
  for (const siard of siards) {
    const dir = siard.includes('/') ? siard.slice(0, siard.lastIndexOf('/') + 1) : '';
    const parentPath = `${dir}${METS_FILE_NAME}`;
    if (!state.has(parentPath)) continue;
    let plan: ParentMetsUpdatePlan;
    try {
      plan = await planParentMetsUpdate(await object.readLogical(parentPath), `${parentPath} (object "${object.id}")`);
    } catch (err) {
      if (!(err instanceof ParentMetsNotUpdatable)) throw err;
      if (isSiardSegmentName(siard)) {
        throw new SiardOcflError(
          `Object "${object.id}": the METS index ${parentPath} lists the segments of a segmented SIARD file (${siard} ...), and ` +
            `relocate cannot yet write such an index again for the rewritten segments, so nothing was written.`,
          { code: 'RELOCATE_METS', exitCode: 2 },
        );
      }
      throw new SiardOcflError(
        `Object "${object.id}": the METS index ${parentPath} beside ${siard} cannot be written again for the relocated archive ` +
          `(${err.message}), so nothing was written; write the index again with "siard-ocfl mets --replace" first.`,
        { code: 'RELOCATE_METS', exitCode: 2 },
      );
    }
    // A parent beside the .siard that describes another file does not depend on this one.
    if (plan.siardPath !== siard.slice(dir.length)) continue;
    out.set(siard, { parentPath, plan });
  }
  return out;
}
