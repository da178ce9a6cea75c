/**
 * A new version of an object in which each `.siard` differs from the previous one only in
 * `header/metadata.xml`, changed by a "metadata.xml -> metadata.xml" function: what `relocate`
 * (database lobFolder) and `describe` (descriptions) both do, so either composes with the other.
 * Every segment of a segmented SIARD file (`.siard.1` ... `.z`) holds its own metadata.xml and is
 * rewritten the same way, each keeping its own messageDigest.
 *
 * Everything before `header/` (the `content/` entries, which the archive messageDigest covers) is
 * copied byte for byte, local headers included (ZipWriter.addVerbatim), so the stated
 * messageDigest, whoever computed it, still holds; the other header entries are copied raw
 * (ZipWriter.addRaw, no recompression). LOB files are not touched: the new version's state keeps
 * them, and the manifest points at the content stored earlier.
 *
 * Every new metadata.xml is made before anything is staged, so a function that refuses one (bad
 * input) leaves nothing behind, and one that changes nothing anywhere makes no version at all.
 *
 * A METS index beside a .siard (`mets.xml`, seed 002) describes the .siard's SIZE and CHECKSUM,
 * so the same version holds it written again for the new .siard (parent-update.ts): checksum
 * from the digests the version computes for the new .siard (the index's CHECKSUMTYPE is the LOB
 * digest, a fixity algorithm of the object), every other byte as before but a LASTMODDATE. Its
 * FLocat hrefs stay relative to it; the child METS are not touched, so they are not stored again.
 * A parent that cannot be written again truthfully stops the version before anything is written.
 */
import { createHash } from 'node:crypto';
import { SiardOcflError, UsageError } from '../errors.js';
import type { OcflObjectReader } from '../ocfl/object/object.js';
import { rootOf, type OcflStorageRoot } from '../ocfl/root.js';
import { countingSink } from '../siard/counting-sink.js';
import {
  ParentMetsNotUpdatable,
  planParentMetsUpdate,
  writeUpdatedParentMets,
  type ParentMetsUpdatePlan,
} from '../siard/mets/parent-update.js';
import { METS_FILE_NAME, NODE_HASH_OF_CHECKSUM_TYPE, type MetsChecksumType } from '../siard/mets/types.js';
import type { OutputSink } from '../siard/output-sink.js';
import { messageDigestEnd } from '../siard/reader/message-digest.js';
import { SiardReader } from '../siard/reader/siard-reader.js';
import { isSiardFileName } from '../siard/siard-file-name.js';
import { isSiardSegmentName } from '../siard/segments/segment-names.js';
import { writableOf } from '../siard/writable.js';
import { ZipWriter } from '../siard/zip/writer.js';
import type { VersionInfoOptions } from './version-info.js';
import { StagedVersionSink } from './ocfl-sink.js';
import { storedFile } from './stored.js';

/** What a metadata function makes of one archive's metadata.xml: the new text and what it says of it. */
export interface EditedMetadata<R> {
  /** undefined: this archive is left as it is */
  xml: string | undefined;
  report: R;
}

export interface MetadataVersionOptions<R> extends VersionInfoOptions {
  /** the verb, in messages ("relocate", "describe") */
  verb: string;
  edit: (xml: string, logicalPath: string, reader: SiardReader) => Promise<EditedMetadata<R>>;
  /** the version message when none is given, from the edited archives' reports */
  defaultMessage: (reports: R[]) => string;
  /** a METS index written again for an archive: a note the user should read, if any */
  metsNote?: (parentPath: string) => string | undefined;
  /** progress: the bytes of the .siard files to copy, once, before the first */
  onPlan?: (plan: { archives: number; bytes: number }) => void;
  /** progress: bytes of the new .siard files written */
  onBytes?: (bytes: number) => void;
  /** progress: after each .siard */
  onArchiveDone?: () => void;
}

export interface MetsRewritten {
  path: string;
  siard: string;
  checksumType: MetsChecksumType;
  size: number;
  checksum: string;
  childrenUnchanged: number;
}

export interface MetadataVersionResult<R> {
  id: string;
  /** undefined when no archive changed: no version was written */
  version: string | undefined;
  archives: Array<{ path: string; report: R; messageDigestRangeBytes: number }>;
  /** files stored new in this version (the rewritten .siard files and METS parents) */
  stored: number;
  mets: MetsRewritten[];
  notes: string[];
}

async function readEntry(reader: SiardReader, name: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of (await reader.zip.openStream(name)) as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** The `header/metadata.xml` of `reader`'s archive, refused unless UTF-8 (it is edited as text). */
export async function metadataText(reader: SiardReader, what: string): Promise<string> {
  const xml = (await readEntry(reader, `${reader.root}header/metadata.xml`)).toString('utf8');
  const encoding = /^\s*<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/.exec(xml)?.[1];
  if (encoding && !/^utf-?8$/i.test(encoding))
    throw new SiardOcflError(`${what} is encoded in ${encoding}; only UTF-8 metadata can be rewritten.`, { code: 'RELOCATE_ENCODING' });
  return xml;
}

/** Writes `reader`'s archive with a new metadata.xml into `sink` at `logicalPath`. */
export async function rewriteArchive(
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

async function openStoredSiard(object: OcflObjectReader, logicalPath: string): Promise<SiardReader> {
  return SiardReader.open(await storedFile(object.storage, object.storagePath(object.contentPath(logicalPath))), {
    siardPath: logicalPath,
  });
}

/** The new metadata.xml of every .siard, made before anything is staged. */
async function editAll<R>(
  object: OcflObjectReader,
  siards: string[],
  options: MetadataVersionOptions<R>,
): Promise<Array<{ path: string; xml: string | undefined; report: R }>> {
  const out: Array<{ path: string; xml: string | undefined; report: R }> = [];
  for (const logicalPath of siards) {
    const reader = await openStoredSiard(object, logicalPath);
    try {
      const xml = await metadataText(reader, `${logicalPath}: header/metadata.xml`);
      const edited = await options.edit(xml, logicalPath, reader);
      out.push({ path: logicalPath, xml: edited.xml, report: edited.report });
    } finally {
      reader.close();
    }
  }
  return out;
}

/** Rewrites the metadata.xml of every .siard in the head of object `id` with `options.edit`, as a new version. */
export async function rewriteMetadataVersion<R>(
  rootArg: string | OcflStorageRoot,
  id: string,
  options: MetadataVersionOptions<R>,
): Promise<MetadataVersionResult<R>> {
  const root = await rootOf(rootArg);
  const object = await root.openObject(id);
  // Each segment of a segmented SIARD file is a complete package with its own metadata.xml: each is rewritten.
  const siards = [...object.state().keys()].filter((p) => isSiardFileName(p) || isSiardSegmentName(p));
  if (siards.length === 0)
    throw new UsageError(`Object "${id}" holds no .siard file in ${object.head}; there is nothing to ${options.verb}.`, 'NO_SIARD');
  const edited = (await editAll(object, siards, options)).filter((e) => e.xml !== undefined);
  if (edited.length === 0) return { id, version: undefined, archives: [], stored: 0, mets: [], notes: [] };
  const indexes = await metsIndexesOf(
    object,
    edited.map((e) => e.path),
    options.verb,
  );
  const staged = await root.startVersion(id, { fixityAlgorithms: object.fixityAlgorithms(), known: object.known() });
  const sink = new StagedVersionSink(staged);
  const archiveSink = options.onBytes ? countingSink(sink, options.onBytes) : sink;
  const result: MetadataVersionResult<R> = { id, version: undefined, archives: [], stored: 0, mets: [], notes: [] };
  const now = new Date();
  try {
    if (options.onPlan) {
      let bytes = 0;
      for (const e of edited) bytes += (await object.storage.stat(object.storagePath(object.contentPath(e.path))))?.size ?? 0;
      options.onPlan({ archives: edited.length, bytes });
    }
    for (const e of edited) {
      const index = indexes.get(e.path);
      const algorithm = index ? NODE_HASH_OF_CHECKSUM_TYPE[index.plan.checksumType] : undefined;
      const digest = algorithm
        ? { algorithm, fromVersion: algorithm === staged.digestAlgorithm || staged.fixityAlgorithms.includes(algorithm) }
        : undefined;
      const reader = await openStoredSiard(object, e.path);
      let written;
      try {
        written = await rewriteArchive(reader, archiveSink, e.path, Buffer.from(e.xml!, 'utf8'), digest);
      } finally {
        reader.close();
      }
      result.archives.push({ path: e.path, report: e.report, messageDigestRangeBytes: written.end });
      if (index) {
        const facts = { size: written.size, checksum: written.checksum! };
        const parent = await writeUpdatedParentMets(index.plan, facts, now);
        const file = await sink.openFile(index.parentPath, { size: parent.bytes.length });
        await file.write(parent.bytes);
        await file.close();
        result.mets.push({
          path: index.parentPath,
          siard: e.path,
          checksumType: index.plan.checksumType,
          ...facts,
          childrenUnchanged: index.plan.children,
        });
        const note = options.metsNote?.(index.parentPath);
        if (note) result.notes.push(note);
      }
      options.onArchiveDone?.();
    }
    await sink.commit();
  } catch (err) {
    await sink.abort().catch(() => undefined);
    throw err;
  }
  const commit = await staged.commit({
    message: options.message ?? options.defaultMessage(result.archives.map((a) => a.report)),
    ...(options.user ? { user: options.user } : {}),
  });
  return { ...result, version: commit.version, stored: sink.stats.stored };
}

/**
 * The parent METS beside each .siard that lists it, read and planned before anything is staged:
 * one that cannot be written again for the new .siard stops the version here.
 */
async function metsIndexesOf(
  object: OcflObjectReader,
  siards: string[],
  verb: string,
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
            `${verb} cannot yet write such an index again for the rewritten segments, so nothing was written.`,
          { code: 'RELOCATE_METS', exitCode: 2 },
        );
      }
      throw new SiardOcflError(
        `Object "${object.id}": the METS index ${parentPath} beside ${siard} cannot be written again for the rewritten archive ` +
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
