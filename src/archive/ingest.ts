/**
 * Ingest: a database, or a SIARD package as received, becomes a new version of an OCFL object.
 *
 * From a database the export is written straight into the staged version (StagedVersionSink): no
 * second copy, every LOB byte read from the database once and hashed once for the manifest digest
 * and the LOB digest, which becomes both the cell `digest` and the inventory fixity value.
 *
 * From a SIARD package (a `.siard` with its external LOB folders beside it) the files as received
 * become the version's content, byte for byte: the `.siard` at the top, and every file of the LOB
 * folders its cells reference (resolved by the SIARD reader through the three lobFolder levels),
 * plus the other files of those LOB folders, so nothing received is dropped. Only files under the
 * package folder are taken. A package whose absolute lobFolder points elsewhere (a checkout of a
 * relocated version) has its LOB folders taken from the package folder (storage-base.ts), with a
 * note. A package some of whose LOBs are missing, or lie outside the package folder, is refused
 * (exit 1, nothing committed) unless the caller asks to store it as received anyway
 * (`allowMissingLobs`: each missing LOB reported, and the CLI still exits 1).
 *
 * Either way the version's state is exactly the new archive (clear() first), and content the
 * object already holds is not stored again.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { SiardOcflError, UsageError } from '../errors.js';
import { forEachConcurrent } from '../ocfl/concurrent.js';
import { rootOf, type OcflStorageRoot } from '../ocfl/root.js';
import type { StagedVersion } from '../ocfl/commit/stage.js';
import { describeLobTarget, type LobPart } from '../siard/lob-location.js';
import { SIARD_DIGEST_TYPES, type SiardDigestType } from '../siard/model.js';
import { describeLobCell, packageLobAccess, type LobLookup } from '../siard/reader/lob-open.js';
import { findUnreferencedLobFiles } from '../siard/reader/unreferenced.js';
import { DEFAULTS, writeSiard, type SiardExportSummary } from '../siard/writer.js';
import type { SiardExportOptions } from '../siard/export-options.js';
import { defaultArchiveName, isSiardSpec, openSource } from '../sources/open.js';
import type { ReceivedPackage } from '../sources/siard/provenance.js';
import { SiardSource } from '../sources/siard/siard-source.js';
import { describeWidened } from '../siard/database-source.js';
import type { DatabaseSource } from '../siard/database-source.js';
import { MetsIndexingSink } from '../siard/mets/indexing-sink.js';
import { OCFL_ALGORITHM_OF_DIGEST_TYPE, StagedVersionSink, type StagedSinkStats } from './ocfl-sink.js';
import { exportResumably, type IngestResume, type ResumableExport } from './resumable-ingest.js';
import { failpoint } from '../failpoint.js';
import { versionFields } from '../ocfl/commit/staged-inventory.js';
import { notResumable } from '../siard/export-directory.js';
import { PACKAGE_BASES, StorageBaseLookup } from './storage-base.js';
import { isSiardFileName } from '../siard/siard-file-name.js';
import { fingerprintsFileOf } from '../siard/fingerprint/fingerprint-file.js';
import { localSegmentSet, openLocalSiard } from '../siard/segments/segment-set-reader.js';
import { checkTemplateOnPackage, describeAfterIngest, type DescribedAfterIngest } from './describe/received.js';
import type { VersionInfoOptions } from './version-info.js';

export type { VersionInfoOptions } from './version-info.js';

export interface IngestResult {
  id: string;
  version: string;
  /** object root relative to the storage root */
  objectPath: string;
  /** logical path of the .siard */
  siardFile: string;
  /** logical files in the new version */
  files: number;
  /** files whose content was new to the object */
  stored: number;
  bytes: number;
  storedBytes: number;
  /** set when the source was a database */
  export?: Omit<SiardExportSummary, 'archive'>;
  /** things the user should know (missing or outside LOBs of a received package) */
  warnings: string[];
  /** not problems, but said: where a received package's LOB folders were taken from */
  notes: string[];
  /** LOB cells of a received package whose file was not stored (only with allowMissingLobs) */
  missingLobs: number;
  /** true when the source equalled the head version: no version was made (`version` is the head) */
  unchanged: boolean;
  /** a re-segmented package: the received .siard's name, size and SHA-256 */
  received?: ReceivedPackage;
  /** with keepReceived: the folder of the version that holds the package as received */
  receivedFolder?: string;
  /** a package stored as received with describeAfter: the version after it, described (`version` is the one as received) */
  described?: DescribedAfterIngest;
}

/** Folder of the object version that holds a received package kept beside its re-segmentation. */
const RECEIVED_FOLDER = 'received';

function summarise(
  staged: StagedVersion,
  siardFile: string,
  commit: { version: string },
  counts: { files: number; stored: number; bytes: number; storedBytes: number },
  objectPath: string,
) {
  return { id: staged.id, version: commit.version, objectPath, siardFile, ...counts };
}

/**
 * Commits the staged version, unless it would change nothing (the same files as the head): then it
 * is dropped and the head named, since an empty version only says "ingested again" in the log.
 */
async function commitStaged(
  staged: StagedVersion,
  options: VersionInfoOptions & { allowUnchanged?: boolean; created?: string },
  defaultMessage: string,
): Promise<{ version: string; unchanged: boolean }> {
  const head = options.allowUnchanged ? undefined : staged.unchangedFrom();
  if (head !== undefined) {
    await staged.abort();
    return { version: head, unchanged: true };
  }
  const commit = await staged.commit({
    message: options.message ?? defaultMessage,
    ...(options.user ? { user: options.user } : {}),
    ...(options.created ? { created: options.created } : {}),
  });
  return { version: commit.version, unchanged: false };
}

export interface IngestDatabaseOptions extends Partial<SiardExportOptions>, VersionInfoOptions {
  /** make a new version even when it would hold the same files as the head */
  allowUnchanged?: boolean;
  /** also write the METS index (mets.xml beside the .siard, one per segment folder) into the version */
  mets?: boolean;
  /** more files for the same version, stored as they are (a received package kept beside its re-segmentation) */
  extraFiles?: Array<{ logicalPath: string; file: string }>;
  /** fixity algorithms those files need besides the LOB digest's */
  extraFixityAlgorithms?: string[];
  /**
   * Resumable (docs/resume.md): an interrupted run of the same ingest is continued, and this run's
   * work is kept for the next when it is interrupted. Not with mets, maxSiardBytes or lobsegZip,
   * nor into a root on an object store: those start over.
   */
  resumable?: IngestResume;
}

/** Exports `source` straight into a new version of object `id`. */
export async function ingestDatabase(
  source: DatabaseSource,
  rootArg: string | OcflStorageRoot,
  id: string,
  options: IngestDatabaseOptions,
): Promise<IngestResult> {
  const root = await rootOf(rootArg);
  const lobDigest = (options.lobDigest ?? DEFAULTS.lobDigest) as SiardDigestType;
  if (!SIARD_DIGEST_TYPES.includes(lobDigest)) throw new UsageError(`--lob-digest must be MD5, SHA-1 or SHA-256, not "${lobDigest}".`);
  const staged = await root.startVersion(id, {
    ...(options.digestAlgorithm ? { digestAlgorithm: options.digestAlgorithm } : {}),
    fixityAlgorithms: [...new Set([OCFL_ALGORITHM_OF_DIGEST_TYPE[lobDigest]!, ...(options.extraFixityAlgorithms ?? [])])],
  });
  const sink = new StagedVersionSink(staged);
  let written: WrittenVersion;
  try {
    await staged.clear(); // the new version holds exactly the new export
    const got = await writeVersion(source, root, staged, sink, { ...options, lobDigest });
    if ('committed' in got) {
      await staged.abort(); // killed once its version was committed: that run's result, nothing written again
      return got.committed;
    }
    written = got;
  } catch (err) {
    await sink.abort().catch(() => undefined);
    throw err;
  }
  const { summary, counts, work } = written;
  const version = versionFields({
    created: new Date(),
    message: options.message ?? `siard-ocfl ingest of ${source.description}`,
    ...(options.user ? { user: options.user } : {}),
  });
  const result = (commit: { version: string; unchanged: boolean }): IngestResult => ({
    ...summarise(staged, summary.siardFile, commit, counts, root.objectPath(id)),
    export: summary,
    warnings: [...(summary.warnings ?? [])],
    notes: [],
    missingLobs: 0,
    unchanged: commit.unchanged,
  });
  // A resumable ingest's work holds the version's files until it is committed; from then on they are the object's.
  const { created, message } = version;
  await work?.committing({
    version: staged.version,
    created,
    ...(message !== undefined ? { message } : {}),
    result: result({ version: staged.version, unchanged: false }),
  });
  const commit = await commitStaged(staged, { ...options, created }, `siard-ocfl ingest of ${source.description}`);
  await failpoint('ingest-committed');
  await work?.remove();
  return result(commit);
}

/** What writeVersion staged: the export's summary, the files counted, and a resumable ingest's work. */
interface WrittenVersion {
  summary: Omit<SiardExportSummary, 'archive'>;
  counts: StagedSinkStats;
  work?: ResumableExport<IngestResult>;
}

/** The export (resumable when asked and possible) and the extra files, staged; or the result of an earlier run committed already. */
async function writeVersion(
  source: DatabaseSource,
  root: OcflStorageRoot,
  staged: StagedVersion,
  sink: StagedVersionSink,
  options: IngestDatabaseOptions & { lobDigest: SiardDigestType },
): Promise<WrittenVersion | { committed: IngestResult }> {
  const {
    message: _m,
    user: _u,
    digestAlgorithm: _d,
    allowUnchanged: _c,
    mets,
    extraFiles,
    extraFixityAlgorithms: _x,
    resumable,
    ...rest
  } = options;
  const exportOptions = { ...rest, name: options.name ?? 'database' };
  const work = resumable && !notResumable(options) ? await root.resumableWork(staged.id) : undefined;
  if (resumable && !notResumable(options) && !work)
    resumable.say('An ingest into a root on an object store is not resumable: if it is interrupted, it starts over (docs/resume.md).');
  let written: WrittenVersion;
  if (resumable && work) {
    const resumed = await exportResumably<IngestResult>(source, staged, work, exportOptions, resumable);
    if ('committed' in resumed) return resumed;
    written = { summary: resumed.summary, counts: { ...resumed.stats }, work: resumed };
  } else {
    // METS: the index sink records each LOB file with the digests the staging pass computed.
    const indexing = mets ? new MetsIndexingSink(sink, { objId: staged.id, checksumType: options.lobDigest }) : undefined;
    const { archive: _archive, ...summary } = await writeSiard(source, indexing ?? sink, exportOptions);
    await indexing?.finishIndex();
    written = { summary, counts: sink.stats };
  }
  await sink.commit();
  written.counts = { ...written.counts };
  for (const f of extraFiles ?? []) {
    const added = await staged.addFile(f.logicalPath, f.file);
    written.counts.files++;
    written.counts.bytes += added.size;
    if (added.stored) {
      written.counts.stored++;
      written.counts.storedBytes += added.size;
    }
  }
  return written;
}

export interface PackagePlan {
  /** the .siard on disk */
  siard: string;
  /** logical path -> file on disk, the .siard first */
  files: Array<{ logicalPath: string; file: string }>;
  /** LOB digest algorithms the cells use (OCFL names), for the fixity block */
  fixityAlgorithms: string[];
  warnings: string[];
  notes: string[];
  /** LOB cells whose file was not found / lies outside the package */
  missing: number;
  outside: number;
  /** the first such cell and why, in words */
  firstUnstored?: string;
}

/**
 * Which files of a received SIARD package belong in the object: the .siard, every LOB part its
 * cells reference inside the package folder, and the other files of those LOB folders.
 */
async function planSiardPackage(siardFile: string): Promise<PackagePlan> {
  // A segmented SIARD file (named by a member or its stem) is taken whole, every segment as received.
  const set = localSegmentSet(siardFile);
  const st = set ? undefined : await fsp.stat(siardFile).catch(() => undefined);
  if (!set && !st?.isFile()) throw new UsageError(`${siardFile} is not a file.`, 'NOT_FOUND');
  const reader = await openLocalSiard(siardFile);
  const warnings = [...reader.warnings];
  const referenced = new Map<string, LobPart>();
  const zips = new Set<string>();
  const algorithms = new Set<string>();
  let missing = 0;
  let outside = 0;
  let firstUnstored: string | undefined;
  const access = packageLobAccess(reader);
  try {
    const lobs = new StorageBaseLookup(reader, access, {
      bases: () => PACKAGE_BASES,
      label: siardFile,
      container: `the package folder ${reader.packageDir}`,
      verb: 'taken',
    });
    for (const t of reader.tables()) {
      for await (const cell of reader.lobCells(t)) {
        if (cell.ref.digestType) algorithms.add(OCFL_ALGORITHM_OF_DIGEST_TYPE[cell.ref.digestType]!);
        const lookup = await lobs.lookup(cell);
        for (const w of lookup.location.warnings) if (!warnings.includes(w)) warnings.push(w);
        if (lookup.status === 'found') {
          for (const p of lookup.found.parts) {
            if (p.kind !== 'external') continue;
            // A part inside a zipped LOB folder (S_8.4-1): the ZIP is stored, as received.
            const zip = await access.zipOf(p);
            if (zip !== undefined) zips.add(zip);
            else referenced.set(p.path, p);
          }
        } else if (lookup.status === 'missing') {
          missing++;
          const lookedFor = describeLobTarget(lookup.location.primary);
          firstUnstored ??= `${describeLobCell(reader, cell)}: "${cell.ref.file}" is missing (looked for ${lookedFor})`;
          if (missing <= 20)
            warnings.push(`${describeLobCell(reader, cell)}: LOB file "${cell.ref.file}" is missing (looked for ${lookedFor}).`);
        } else {
          outside++;
          firstUnstored ??= `${describeLobCell(reader, cell)}: "${cell.ref.file}" ${whyNotStored(lookup)}`;
          if (outside <= 20) {
            warnings.push(
              `${describeLobCell(reader, cell)}: LOB file "${cell.ref.file}" ${notTakenWords(lookup)}; it is not taken into the object.`,
            );
          }
        }
      }
    }
    if (missing > 20) warnings.push(`... ${missing} LOB files are missing in all.`);
    if (outside > 20) warnings.push(`... ${outside} LOB files lie outside the package folder in all.`);
    const unreferenced = await findUnreferencedLobFiles(reader, referenced.values());
    const members = set ? set.members.map((m) => m.name) : [siardFile];
    const files = members.map((f) => ({ logicalPath: path.basename(f), file: path.resolve(f) }));
    const memberNames = new Set(files.map((f) => f.logicalPath));
    const external = [...new Set([...referenced.keys(), ...unreferenced.external, ...zips])].sort();
    for (const p of external) {
      if (memberNames.has(p)) continue;
      files.push({ logicalPath: p, file: path.join(reader.packageDir, ...p.split('/')) });
    }
    files.push(...(await fingerprintsBeside(set ? set.base : siardFile)));
    return {
      siard: siardFile,
      files,
      fixityAlgorithms: [...algorithms].sort(),
      warnings,
      notes: lobs.note !== undefined ? [lobs.note] : [],
      missing,
      outside,
      ...(firstUnstored !== undefined ? { firstUnstored } : {}),
    };
  } finally {
    access.close();
    reader.close();
  }
}

/** The table fingerprints an export of ours wrote beside the .siard: they belong to the package (docs/fingerprints.md). */
async function fingerprintsBeside(siard: string): Promise<Array<{ logicalPath: string; file: string }>> {
  const name = fingerprintsFileOf(path.basename(siard));
  const file = path.resolve(path.dirname(siard), name);
  return (await fsp.stat(file).catch(() => undefined))?.isFile() ? [{ logicalPath: name, file }] : [];
}

/** Why a LOB file the package does not hold is not taken into the object, for the warning about it. */
function notTakenWords(lookup: Exclude<LobLookup, { status: 'found' | 'missing' }>): string {
  return lookup.status === 'outside'
    ? `lies outside the package folder (${describeLobTarget(lookup.location.primary)})`
    : `has no usable location (${lookup.reason})`;
}

/** Why a LOB that was not found is not stored, in words (after the cell file). */
function whyNotStored(lookup: Exclude<LobLookup, { status: 'found' | 'missing' }>): string {
  const primary = lookup.location.primary;
  if (lookup.status === 'invalid') return `has no usable location (${lookup.reason})`;
  if (lookup.reason !== undefined) return `is not taken: ${lookup.reason}`;
  // An absolute location was also looked for in the package folder (StorageBaseLookup).
  const alsoHere = primary.kind === 'outside' && primary.absolutePath !== undefined ? ' and is not in it either' : '';
  return `points outside the package folder (${describeLobTarget(primary)})${alsoHere}`;
}

export interface IngestPackageOptions extends VersionInfoOptions {
  /** make a new version even when it would hold the same files as the head */
  allowUnchanged?: boolean;
  /** store the package even though some LOB files its cells reference are not in the package folder */
  allowMissingLobs?: boolean;
  /** progress: the files of the package and their bytes, once, before the first is stored */
  onPackagePlan?: (plan: { files: number; bytes: number }) => void;
  /** progress: after each file of the package is stored */
  onFile?: (logicalPath: string, size: number) => void;
}

/** Stores a received SIARD package, unchanged, as a new version of object `id`. */
async function ingestSiardPackage(
  siardFile: string,
  rootArg: string | OcflStorageRoot,
  id: string,
  options: IngestPackageOptions = {},
): Promise<IngestResult> {
  const root = await rootOf(rootArg);
  const plan = await planSiardPackage(siardFile);
  const unstored = plan.missing + plan.outside;
  // A package whose LOBs cannot all be stored is not what was received: refused before anything is staged.
  if (unstored > 0 && !options.allowMissingLobs) {
    throw new SiardOcflError(
      `${siardFile}: ${unstored} LOB ${unstored === 1 ? 'cell references a file' : 'cells reference files'} the package folder ` +
        `does not hold (the first: ${plan.firstUnstored}), so nothing was stored in object "${id}" (--allow-missing-lobs stores ` +
        `the package as received anyway).`,
      { code: 'LOB_MISSING', exitCode: 1 },
    );
  }
  const staged = await root.startVersion(id, {
    ...(options.digestAlgorithm ? { digestAlgorithm: options.digestAlgorithm } : {}),
    fixityAlgorithms: plan.fixityAlgorithms,
  });
  const counts = { files: 0, stored: 0, bytes: 0, storedBytes: 0 };
  try {
    await staged.clear();
    if (options.onPackagePlan) {
      let bytes = 0;
      // Many at once: a package of a million LOB files would otherwise wait a million round trips.
      await forEachConcurrent(plan.files, 32, async (f) => {
        const { size } = await fsp.stat(f.file); // not `bytes += await ...`: that reads bytes before waiting
        bytes += size;
      });
      options.onPackagePlan({ files: plan.files.length, bytes });
    }
    for (const f of plan.files) {
      const added = await staged.addFile(f.logicalPath, f.file);
      options.onFile?.(f.logicalPath, added.size);
      counts.files++;
      counts.bytes += added.size;
      if (added.stored) {
        counts.stored++;
        counts.storedBytes += added.size;
      }
    }
  } catch (err) {
    await staged.abort().catch(() => undefined);
    throw err instanceof SiardOcflError
      ? err
      : new SiardOcflError(`Ingest of ${siardFile} into object "${id}" failed: ${(err as Error).message}`, { cause: err });
  }
  const commit = await commitStaged(staged, options, `siard-ocfl ingest of the SIARD package ${path.basename(siardFile)}`);
  return {
    ...summarise(staged, plan.files[0]!.logicalPath, commit, counts, root.objectPath(id)),
    warnings: plan.warnings,
    notes: plan.notes,
    missingLobs: unstored,
    unchanged: commit.unchanged,
  };
}

export interface IngestOptions extends IngestDatabaseOptions, Pick<IngestPackageOptions, 'onPackagePlan' | 'onFile'> {
  /** comma-separated table patterns (database sources) */
  tables?: string;
  /** comma-separated patterns of tables to leave out */
  excludeTables?: string;
  /** SQLite: refuse columns whose values do not fit their declared type instead of widening them */
  strict?: boolean;
  /** an Access file: its database or encryption password */
  password?: string;
  /** a received package only: store it even though some of its LOB files are not there */
  allowMissingLobs?: boolean;
  /** a .siard package: re-segment it into our layout (export options apply) instead of storing it as received */
  resegment?: boolean;
  /** with resegment: keep the package as received too, under `received/` in the same version */
  keepReceived?: boolean;
  /** with resegment: keep LOBs whose bytes differ from their received cell, recording them */
  acceptDigestMismatch?: boolean;
  /**
   * A package stored as received: a describe template (as `describe --template` prints it),
   * applied as the version after the one that holds the package as received (describe/received.ts).
   * A database or a re-segmented package is described as it is written (`describe`).
   */
  describeAfter?: unknown;
}

/**
 * A received package re-segmented into a new version: the package is read once through SiardSource
 * and written by the ordinary export; with keepReceived its files as received (the .siard and its
 * LOB folders, planned as a plain package ingest plans them) go under `received/` in the same
 * version, so the object holds both, each with fixity.
 */
async function ingestResegmented(
  siardFile: string,
  root: string | OcflStorageRoot,
  id: string,
  options: IngestOptions,
): Promise<IngestResult> {
  const { tables, allowMissingLobs, resegment: _r, keepReceived, acceptDigestMismatch, describeAfter, ...rest } = options;
  if (describeAfter !== undefined)
    throw new UsageError(
      `describeAfter applies to a package stored as received; ${siardFile} re-segmented is described as it is written (describe).`,
    );
  if (tables !== undefined) throw new UsageError(`--tables applies to databases; a SIARD package (${siardFile}) is re-segmented whole.`);
  let extraFiles: Array<{ logicalPath: string; file: string }> | undefined;
  let extraFixityAlgorithms: string[] | undefined;
  const warnings: string[] = [];
  if (keepReceived) {
    const plan = await planSiardPackage(siardFile);
    const unstored = plan.missing + plan.outside;
    if (unstored > 0 && !allowMissingLobs) {
      throw new SiardOcflError(
        `${siardFile}: ${unstored} LOB ${unstored === 1 ? 'cell references a file' : 'cells reference files'} the package ` +
          `folder does not hold (the first: ${plan.firstUnstored}), so it cannot be kept as received in object "${id}".`,
        {
          code: 'LOB_MISSING',
          exitCode: 1,
        },
      );
    }
    extraFiles = plan.files.map((f) => ({ logicalPath: `${RECEIVED_FOLDER}/${f.logicalPath}`, file: f.file }));
    extraFixityAlgorithms = plan.fixityAlgorithms;
    warnings.push(...plan.warnings);
  }
  const source = await SiardSource.open(siardFile, acceptDigestMismatch ? { acceptDigestMismatch: true } : {});
  try {
    const result = await ingestDatabase(source, root, id, {
      ...rest,
      name: options.name ?? defaultArchiveName(siardFile),
      ...(extraFiles ? { extraFiles } : {}),
      ...(extraFixityAlgorithms ? { extraFixityAlgorithms } : {}),
      message: options.message ?? `siard-ocfl ingest --resegment of the SIARD package ${path.basename(siardFile)}`,
    });
    warnings.push(...source.reader.warnings);
    // What the received metadata says that the new archive cannot hold, named as a database ingest names it.
    const notExported = (await source.catalog()).notExported ?? [];
    if (notExported.length > 0) result.notes.push(`Not exported: ${notExported.join(', ')}.`);
    if (source.mismatches.count > 0) {
      warnings.push(
        `${source.mismatches.count} LOB ${source.mismatches.count === 1 ? 'cell' : 'cells'} did not match the received digest ` +
          `or length and ${source.mismatches.count === 1 ? 'was' : 'were'} kept as read (recorded in the archive's ` +
          `description): ${source.mismatches.first.join('; ')}.`,
      );
    }
    return {
      ...result,
      warnings: [...result.warnings, ...warnings],
      ...(source.receivedPackage ? { received: source.receivedPackage } : {}),
      ...(keepReceived ? { receivedFolder: RECEIVED_FOLDER } : {}),
    };
  } finally {
    await source.close();
  }
}

/** Options of an export that do not apply to a SIARD package stored as received. */
export const EXPORT_ONLY_OPTIONS = [
  'lobLayout',
  'maxFiles',
  'maxBytes',
  'maxSiardBytes',
  'lobsegZip',
  'inlineMax',
  'lobFolder',
  'lobDigest',
  'name',
  'tables',
  'excludeTables',
  'strict',
  'password',
  'mets',
] as const;

/** `<source>` as the CLI takes it: a database (sqlite:, .db, postgres://) or a .siard package. */
export async function ingest(
  sourceSpec: string,
  root: string | OcflStorageRoot,
  id: string,
  options: IngestOptions = {},
): Promise<IngestResult> {
  if ((isSiardSpec(sourceSpec) || localSegmentSet(sourceSpec)) && options.resegment)
    return ingestResegmented(sourceSpec, root, id, options);
  for (const k of ['keepReceived', 'acceptDigestMismatch'] as const) {
    if (options[k])
      throw new UsageError(
        `${k === 'keepReceived' ? '--keep-received' : '--accept-digest-mismatch'} applies to ingest --resegment of a .siard package.`,
      );
  }
  if (options.resegment) throw new UsageError(`--resegment applies to a .siard package, not to the database ${sourceSpec}.`);
  if (isSiardFileName(sourceSpec) || localSegmentSet(sourceSpec)) {
    const exportOnly = EXPORT_ONLY_OPTIONS.filter((k) => options[k] !== undefined);
    if (exportOnly.length > 0)
      throw new UsageError(
        `A SIARD package is stored as received; export options (${exportOnly.join(', ')}) do not apply to ${sourceSpec}.`,
      );
    const { describeAfter, describe, ...packageOptions } = options;
    if (describe !== undefined)
      throw new UsageError(`${sourceSpec} is stored as received: describe it with describeAfter (a template), not as it is written.`);
    if (describeAfter === undefined) return ingestSiardPackage(sourceSpec, root, id, packageOptions);
    // The template is tried on the package's metadata.xml first: what it cannot apply stops the ingest before anything is stored.
    await checkTemplateOnPackage(sourceSpec, describeAfter);
    const received = await ingestSiardPackage(sourceSpec, root, id, packageOptions);
    const { described, notes } = await describeAfterIngest(root, id, received.version, describeAfter, options);
    return { ...received, described, notes: [...received.notes, ...notes] };
  }
  if (options.describeAfter !== undefined)
    throw new UsageError(`describeAfter applies to a package stored as received; ${sourceSpec} is described as it is written (describe).`);
  if (options.allowMissingLobs)
    throw new UsageError(`allowMissingLobs applies to a received .siard package, not to the database ${sourceSpec}.`);
  const {
    tables,
    excludeTables,
    strict,
    password,
    allowMissingLobs: _a,
    resegment: _r,
    keepReceived: _k,
    acceptDigestMismatch: _m,
    onPackagePlan: _p,
    onFile: _f,
    ...rest
  } = options;
  const source = await openSource(sourceSpec, {
    ...(tables ? { tables } : {}),
    ...(excludeTables ? { excludeTables } : {}),
    ...(strict ? { strict } : {}),
    ...(password !== undefined ? { password } : {}),
  });
  try {
    // how the tables were chosen is part of what a resumed ingest must share with the interrupted one
    const sourceOptions = { tables, excludeTables, strict };
    const result = await ingestDatabase(source, root, id, {
      ...rest,
      name: options.name ?? defaultArchiveName(sourceSpec),
      ...(rest.resumable ? { resumable: { ...rest.resumable, sourceOptions } } : {}),
    });
    // columns widened to keep their values are worth a line each
    const catalog = await source.catalog();
    result.notes.push(...(catalog.widened ?? []).map(describeWidened));
    if (catalog.notExported?.length) result.notes.push(`Not exported: ${catalog.notExported.join(', ')}.`);
    return result;
  } finally {
    await source.close();
  }
}
