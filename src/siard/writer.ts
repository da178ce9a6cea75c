/**
 * Database -> SIARD 2.2: the `.siard` ZIP64 archive and its external LOB folders, written through
 * an OutputSink (a folder on disk, or a staged OCFL version through src/archive/ocfl-sink.ts).
 *
 * ZIP entry order (content first, so tables are streamed before the metadata that counts them): `content/` with each schema and table
 * folder, tableJ.xml (streamed) and tableJ.xsd; then `header/`, `header/siardversion/2.2/`, `header/metadata.xsd`,
 * `header/metadata.xml`. The archive messageDigest (SHA-256 of bytes 0 .. offset of `header/`)
 * is taken by the ZIP writer as it writes, so metadata.xml, written last, can carry it.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SiardOcflError, UsageError } from '../errors.js';
import { ProvisionalTypesFailed, rowBatchesOf, type DatabaseSource, type KeyedBatch } from './database-source.js';
import { columnShape, fieldsOfShape, typeCatalog, type CellShape, type TypeCatalog } from './cell-shape.js';
import { countingSink } from './counting-sink.js';
import { createLobLayout, type LobLayout, type LobLayoutName, type LobLimits } from './lob-placement.js';
import { LobWriter } from './lob-writer.js';
import { LobsegZipSink } from './lobseg-zip-sink.js';
import { metadataXml } from './metadata-xml.js';
import {
  NODE_HASH_OF_DIGEST_TYPE,
  type SiardArchive,
  type SiardColumn,
  type SiardDigestType,
  type SiardSchema,
  type SiardTable,
} from './model.js';
import type { OutputSink } from './output-sink.js';
import { SinglePackage, type SiardPackageWriter, type WrittenPackageFile } from './package-writer.js';
import type { PackageCut } from './package-cut.js';
import { metadataXmlBound } from './segments/header-reserve.js';
import { SegmentedPackage } from './segments/segmented-package.js';
import { tableDataXml, type TableDataStats } from './table-data.js';
import { fingerprintsFileOf, fingerprintsJson, type TableFingerprintEntry } from './fingerprint/fingerprint-file.js';
import { SourceFingerprint } from './fingerprint/source-fingerprint.js';
import type { SiardExportOptions } from './export-options.js';
import { plainShape, tableXsd, xsdDependsOnRows, type ArrayUse } from './table-xsd.js';
import { checkCatalogUnchanged, checkKeysUnchanged, continueWork, ResumableRun, type ExportResume } from './resume/export-resume.js';
import { tableShape, type TableShape } from './resume/table-shape.js';
import type { BatchLine, JournalContents, LobMark, TableLine } from './resume/export-journal.js';
import { failpoint } from '../failpoint.js';
import type { SourceCatalog, SourceSchema, SourceTable } from './database-source.js';

export interface SiardExportSummary {
  /** the .siard, relative to the sink root (a segmented file: its first segment) */
  siardFile: string;
  /** a segmented SIARD file: every segment, `.1` ... `.z`, with its size and messageDigest */
  segmentFiles?: Array<{ file: string; bytes: number; messageDigest: string }>;
  /** things to say about the result that are not errors */
  warnings?: string[];
  /** LOB folders beside it (top-level names) */
  lobFolders: string[];
  tables: number;
  rows: number;
  /** LOBs written to files (LOB cells whose value is a file) */
  lobs: number;
  /** files those LOBs take, each part of a split LOB counted */
  lobFiles: number;
  /** bytes of those LOBs */
  lobBytes: number;
  /** segment folders used */
  segments: number;
  /** size of the .siard file (a segmented file: of all its segments) */
  siardBytes: number;
  /** archive messageDigest (SHA-256, lower-case hex; a segmented file: of its first segment) */
  messageDigest: string;
  archive: SiardArchive;
  siardDigests: Record<string, string>;
  /** the table fingerprints file beside the .siard, relative to the sink root (docs/fingerprints.md) */
  fingerprintsFile?: string;
}

export const DEFAULTS = {
  lobLayout: 'lobseg' as LobLayoutName,
  maxFiles: 100_000,
  maxBytes: 4_000_000_000,
  inlineMax: 2000,
  lobFolder: '../',
  lobDigest: 'SHA-256' as SiardDigestType,
  // Deflate level of the table XML: level 1 deflates narrow rows in a third of level 6's CPU for 6 %
  // more bytes (121.8 MB of XML: 16.0 against 15.1 MB), and under load the export's time follows its CPU.
  compressionLevel: 1,
};

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The official SIARD 2.2 metadata.xsd shipped in resources/ (see resources/README.md). */
export function officialMetadataXsd(): Buffer {
  return readFileSync(path.join(PACKAGE_ROOT, 'resources', 'metadata.xsd'));
}

/** A name usable as the .siard base name and LOB folder prefix. */
export function checkArchiveName(name: string): void {
  if (!name || name === '.' || name === '..' || /[/\\\0]/.test(name) || name.startsWith('.')) {
    throw new UsageError(
      `"${name}" cannot be an archive name: it must be a plain file name without '/', '\\' or a leading '.'.`,
      'BAD_NAME',
    );
  }
}

/** A lobFolder base must be a URI reference ending in '/'. */
export function checkLobFolderBase(uri: string): void {
  if (!uri.endsWith('/') || /[\s\\]/.test(uri)) {
    throw new UsageError(
      `--lob-folder "${uri}" must be a URI ending in '/' without spaces or back-slashes (encode a space as %20).`,
      'BAD_LOB_FOLDER',
    );
  }
}

/** Names this export will create at the top of the sink (for existence checks before starting). */
export function plannedTopLevelNames(name: string, layout: LobLayoutName): { siard: string; lobPrefix: string } {
  return { siard: `${name}.siard`, lobPrefix: layout === 'siard22' ? `${name}_lobs` : `${name}_lobseg_` };
}

type ResolvedOptions = typeof DEFAULTS & SiardExportOptions;

/** The options with their defaults, checked, and the LOB layout they name. */
function resolveOptions(options: SiardExportOptions): { o: ResolvedOptions; layout: LobLayout } {
  checkArchiveName(options.name);
  const o = { ...DEFAULTS, ...stripUndefined(options) } as ResolvedOptions;
  checkLobFolderBase(o.lobFolder);
  if (!Number.isSafeInteger(o.inlineMax) || o.inlineMax < 0)
    throw new UsageError('--inline-max must be a whole number of bytes.', 'BAD_OPTION');
  const limits: LobLimits = { maxFiles: o.maxFiles, maxBytes: o.maxBytes };
  let layout;
  try {
    layout = createLobLayout(o.lobLayout, o.name, limits);
  } catch (err) {
    throw new UsageError((err as Error).message, 'BAD_OPTION', err);
  }
  if (o.lobsegZip && layout.name !== 'lobseg') {
    throw new UsageError('--lobseg-zip needs the lobseg layout (--lob-layout lobseg).', 'BAD_OPTION');
  }
  return { o, layout };
}

/** What writing the tables adds up to. */
interface TableTotals {
  schemas: SiardSchema[];
  fingerprints: TableFingerprintEntry[];
  rows: number;
  tables: number;
  externalLobs: number;
  lobBytes: number;
}

interface WrittenTable {
  columns: SiardColumn[];
  stats: TableDataStats;
  fingerprint: SourceFingerprint | undefined;
}

/** A resumable run's part in writing one table: its cuts journaled, and where an interrupted run's last cut left it. */
interface TableResume {
  run: ResumableRun;
  sink: OutputSink;
  layout: LobLayout;
  /** the table's types were settled before its rows (a provisional table written again) */
  settled: boolean;
  /** the interrupted run's last cut in this table */
  from?: BatchLine;
  /** the table's columns and keys as the catalogue gave them, for each cut's line */
  shape: TableShape;
}

/** One table's XML and XSD into the package; `takeBack`: nothing of it is written if its rows fail. */
async function writeTable(
  source: DatabaseSource,
  t: SourceTable,
  at: { si: number; ti: number; schema: SourceSchema; folder: string; base: string },
  pkg: SiardPackageWriter,
  o: ResolvedOptions,
  lobWriter: LobWriter,
  types: TypeCatalog,
  takeBack: boolean,
  resume?: TableResume,
): Promise<WrittenTable> {
  const { si, ti, schema: s, folder, base } = at;
  const from = resume?.from;
  o.onTable?.({ schema: s.name, name: t.name, rows: t.rows });
  const stats: TableDataStats = from
    ? { ...from.stats, externalColumns: new Set(from.stats.externalColumns) }
    : { rows: 0, lobs: 0, externalLobs: 0, lobBytes: 0, externalColumns: new Set() };
  const { columns, shapes } = prepareColumns(t, s, types);
  const arrayUse: ArrayUse = new Map(from?.arrayUse ?? []);
  // cells as the source's texts where it has them so: table-data.ts writes most of them from their bytes
  const batches = rowBatchesOf(source, s.name, t.name, from && { key: from.key, rows: from.stats.rows }, { texts: true });
  const observer = o.fingerprints === false ? undefined : new SourceFingerprint(shapes);
  if (observer && from?.fingerprint) observer.fingerprint.restore(from.fingerprint);
  const ctx = {
    schemaIndex: si,
    tableIndex: ti,
    tableName: t.name,
    folder,
    columns,
    inlineMax: o.inlineMax,
    lobWriter,
    shapes,
    arrayUse,
    ...(observer ? { observer } : {}),
    ...(resume
      ? {
          cutState: cutStateOf(resume, {
            si,
            ti,
            qualifiedName: `${s.name}.${t.name}`,
            t,
            stats,
            arrayUse,
            observer,
            settledTypes: resume.settled ? source.settledTypes?.(s.name, t.name) : undefined,
          }),
        }
      : {}),
    ...(from ? { continued: true } : {}),
  };
  await pkg.addTable({
    xmlName: `${base}/${folder}.xml`,
    xml: tableDataXml(
      takeBack ? whileInline(batches, t, o.inlineMax) : batches,
      takeBack ? { ...ctx, provisional: true } : ctx,
      stats,
      o.onRow,
    ),
    xsdName: `${base}/${folder}.xsd`,
    xsdBefore: tableXsd(columns, shapes),
    xsdDependsOnRows: xsdDependsOnRows(shapes),
    xsd: () => tableXsd(columns, shapes, arrayUse),
    ...(takeBack ? { takeBack } : {}),
    ...(resume ? { onCut: (cut: PackageCut, state: unknown) => journalCut(resume, cut, state) } : {}),
  });
  // a provisional table's source may have widened a column while its rows were read (a longer VARCHAR)
  if (t.provisional) {
    t.columns.forEach((c, ci) => {
      columns[ci]!.type = c.type;
      if (c.description !== undefined) columns[ci]!.description = c.description;
    });
  }
  return { columns, stats, fingerprint: observer };
}

/** What a cut after a row of a keyed table carries: the journal's mark and the batch line but for the package's part. */
interface CutState {
  mark: LobMark;
  line: Omit<BatchLine, 'lobs' | 'cut'>;
}

/** The state taken at each cut of a table (table-data.ts), when its row has a key; else none, and the cut is not journaled. */
function cutStateOf(
  resume: TableResume,
  at: {
    si: number;
    ti: number;
    qualifiedName: string;
    t: SourceTable;
    stats: TableDataStats;
    arrayUse: ArrayUse;
    observer: SourceFingerprint | undefined;
    /** a settled table's types (DatabaseSource.settledTypes), for the resume to settle it without a scan */
    settledTypes: unknown;
  },
): (key: unknown) => CutState | undefined {
  return (key) => {
    if (key === undefined || key === null) return undefined;
    const { stats } = at;
    return {
      mark: resume.run.mark(),
      line: {
        ...(at.settledTypes !== undefined ? { settledTypes: at.settledTypes } : {}),
        schema: at.si,
        table: at.ti,
        qualifiedName: at.qualifiedName,
        key: String(key),
        shape: resume.shape,
        settled: resume.settled,
        stats: {
          rows: stats.rows,
          lobs: stats.lobs,
          externalLobs: stats.externalLobs,
          lobBytes: stats.lobBytes,
          externalColumns: [...stats.externalColumns],
        },
        arrayUse: [...at.arrayUse],
        ...(at.observer ? { fingerprint: at.observer.fingerprint.state() } : {}),
        ...(at.t.rowsExact ? { catalogRows: at.t.rows } : {}),
        layout: resume.layout.snapshot(),
      },
    };
  };
}

/** A cut's bytes are durable: its batch line journaled (docs/resume.md), then the test's failpoint. */
async function journalCut(resume: TableResume, cut: PackageCut, state: unknown): Promise<void> {
  if (!state) return;
  const { mark, line } = state as CutState;
  await resume.run.batch(resume.sink, mark, line, cut);
  await failpoint('export-cut');
}

/**
 * A provisional table's batches, given up (ProvisionalTypesFailed) as soon as its source learns that
 * a value is longer than `inlineMax` (SourceTable.provisional): it could not stay inline, and a LOB
 * file cannot be taken back. Stops early what table-data.ts would refuse at that value.
 */
async function* whileInline(batches: AsyncIterable<KeyedBatch>, t: SourceTable, inlineMax: number): AsyncIterable<KeyedBatch> {
  for await (const batch of batches) {
    if ((t.provisional?.longestValueBytes ?? 0) > inlineMax) throw new ProvisionalTypesFailed(t.name, '', 0);
    yield batch;
  }
}

/** A provisional table with its final types (the source's full scan). */
async function settle(source: DatabaseSource, schema: string, t: SourceTable, known?: unknown): Promise<SourceTable> {
  if (!source.settleTable) throw new Error(`${source.description} gave the provisional table "${t.name}" but cannot settle it.`);
  return source.settleTable(schema, t.name, known);
}

/** A resumable run's part in one table: `table` as the catalogue gave it, `t` as it is written (its types settled or not). */
function tableResume(
  resumable: { run: ResumableRun; sink: OutputSink },
  layout: LobLayout,
  table: SourceTable,
  t: SourceTable,
): TableResume {
  return { ...resumable, layout, settled: t.provisional === undefined && table.provisional !== undefined, shape: tableShape(table) };
}

/** Writes every table's rows (and their LOB files) into the package, schema by schema. */
async function writeTables(
  source: DatabaseSource,
  catalog: SourceCatalog,
  pkg: SiardPackageWriter,
  o: ResolvedOptions,
  layout: LobLayout,
  lobWriter: LobWriter,
  types: TypeCatalog,
  resumable?: { run: ResumableRun; sink: OutputSink },
): Promise<TableTotals> {
  // (the table in progress of an interrupted run goes on after its last cut: ResumableRun.progressIn)
  const totals: TableTotals = { schemas: [], fingerprints: [], rows: 0, tables: 0, externalLobs: 0, lobBytes: 0 };
  await pkg.addDirectory('content/');
  for (const [si, s] of catalog.schemas.entries()) {
    const schemaFolder = `schema${si}`;
    await pkg.addDirectory(`content/${schemaFolder}/`);
    const tables: SiardTable[] = [];
    for (const [ti, table] of s.tables.entries()) {
      const kept = resumable?.run.kept(si, ti);
      if (kept) {
        addKept(totals, tables, kept);
        continue;
      }
      const folder = `table${ti}`;
      const base = `content/${schemaFolder}/${folder}`;
      await pkg.addDirectory(`${base}/`);
      const at = { si, ti, schema: s, folder, base };
      const from = resumable?.run.progressIn(si, ti);
      let t = table;
      if (from?.settled) t = await settle(source, s.name, t, from.settledTypes);
      // A provisional table (database-source.ts) is written where it can be taken back and no value can go to a LOB file.
      const takeBack = t.provisional !== undefined && pkg.takesBack && !((t.provisional.longestValueBytes ?? 0) > o.inlineMax);
      if (t.provisional && !takeBack) t = await settle(source, s.name, t);
      const resume = resumable && tableResume(resumable, layout, table, t);
      if (from && (from.cut.aside !== undefined) !== takeBack)
        throw new Error(`Table ${s.name}.${t.name} was written another way by the interrupted export; run it again with --restart.`);
      let written: WrittenTable;
      try {
        written = await writeTable(source, t, at, pkg, o, lobWriter, types, takeBack, resume && { ...resume, ...(from ? { from } : {}) });
      } catch (err) {
        if (!(takeBack && err instanceof ProvisionalTypesFailed)) throw err;
        resumable?.run.restartTable(si, ti);
        t = await settle(source, s.name, t);
        written = await writeTable(source, t, at, pkg, o, lobWriter, types, false, resume && { ...resume, settled: true });
      }
      const { columns, stats, fingerprint } = written;
      for (const ci of stats.externalColumns) columns[ci]!.lobFolder = layout.columnLobFolder(si, ti, ci + 1);
      const { provisional: _, rowsExact: _exact, ...siardTable } = t;
      const line: Omit<TableLine, 'lobs' | 'zip' | 'layout'> = {
        schema: si,
        table: ti,
        qualifiedName: `${s.name}.${table.name}`,
        written: { ...siardTable, folder, columns, rows: stats.rows },
        stats: { rows: stats.rows, externalLobs: stats.externalLobs, lobBytes: stats.lobBytes },
        ...(table.rowsExact ? { catalogRows: table.rows } : {}),
        ...(fingerprint
          ? {
              fingerprint: {
                schema: s.name,
                table: t.name,
                rows: fingerprint.fingerprint.rows,
                fingerprint: fingerprint.fingerprint.hex(),
              },
            }
          : {}),
      };
      addKept(totals, tables, line);
      if (resumable) {
        const keyRange = await source.keyRange?.(s.name, table.name);
        await resumable.run.endTable(pkg as SinglePackage, resumable.sink, layout, keyRange === undefined ? line : { ...line, keyRange });
      }
    }
    const schema: SiardSchema = { name: s.name, folder: schemaFolder, tables, views: s.views };
    if (s.description !== undefined) schema.description = s.description;
    if (s.types && s.types.length > 0) schema.types = s.types;
    if (s.routines && s.routines.length > 0) schema.routines = s.routines;
    totals.schemas.push(schema);
  }
  return totals;
}

/** A written table (or one the interrupted run wrote, kept) added to the totals. */
function addKept(totals: TableTotals, tables: SiardTable[], line: Pick<TableLine, 'written' | 'fingerprint' | 'stats'>): void {
  tables.push(line.written);
  if (line.fingerprint) totals.fingerprints.push(line.fingerprint);
  totals.rows += line.stats.rows;
  totals.externalLobs += line.stats.externalLobs;
  totals.lobBytes += line.stats.lobBytes;
  totals.tables++;
}

/** The archive-level metadata, once the rows are written (a source may add what it met while streaming them). */
function archiveOf(
  source: DatabaseSource,
  catalog: SourceCatalog,
  o: ResolvedOptions,
  layout: LobLayout,
  archivalDay: Date,
  totals: TableTotals,
): SiardArchive {
  const info = source.archiveInfo?.() ?? catalog.archive ?? {};
  for (const k of ['description', 'archiver', 'archiverContact', 'dataOwner', 'dataOriginTimespan'] as const) {
    if (o[k] === undefined && info[k] !== undefined) o[k] = info[k];
  }
  const archive: SiardArchive = {
    version: '2.2',
    dbname: o.name,
    dataOwner: o.dataOwner ?? 'unspecified',
    dataOriginTimespan: o.dataOriginTimespan ?? 'unspecified',
    producerApplication: o.producerApplication ?? 'siard-ocfl',
    archivalDate: archivalDay.toISOString().slice(0, 10) + 'Z',
    messageDigests: [],
    schemas: totals.schemas,
    users: catalog.users ?? [],
  };
  if (catalog.roles && catalog.roles.length > 0) archive.roles = catalog.roles;
  if (catalog.privileges && catalog.privileges.length > 0) archive.privileges = catalog.privileges;
  if (info.clientMachine !== undefined) archive.clientMachine = info.clientMachine;
  if (totals.externalLobs > 0) archive.lobFolder = layout.databaseLobFolder(o.lobFolder);
  for (const k of ['description', 'archiver', 'archiverContact'] as const) if (o[k] !== undefined) archive[k] = o[k];
  if (catalog.databaseProduct) archive.databaseProduct = catalog.databaseProduct;
  if (catalog.connection) archive.connection = catalog.connection;
  if (catalog.databaseUser) archive.databaseUser = catalog.databaseUser;
  return archive;
}

/**
 * Writes the archive and its LOB files into `sink`. Does not commit or abort the sink: the caller
 * decides (exportToDirectory commits on success and aborts on failure).
 */
export async function writeSiard(source: DatabaseSource, target: OutputSink, options: SiardExportOptions): Promise<SiardExportSummary> {
  const sink = options.onBytes ? countingSink(target, options.onBytes) : target;
  const { o, layout } = resolveOptions(options);
  const catalog = await source.catalog();
  o.onPlan?.({
    tables: catalog.schemas.reduce((n, s) => n + s.tables.length, 0),
    rows: catalog.schemas.reduce((n, s) => n + s.tables.reduce((m, t) => m + t.rows, 0), 0),
  });

  // A source that already has archive-level metadata (a SIARD package) fills what options leave open.
  const receivedDate = catalog.archive?.archivalDate !== undefined ? archivalDateOf(catalog.archive.archivalDate) : undefined;
  if (options.archivalDate === undefined && receivedDate !== undefined) o.archivalDate = receivedDate;

  const siardFile = `${o.name}.siard`;
  // Entries are dated at the start of the archival day (UTC): the same database exported the same day
  // gives the same bytes, so a re-ingest can see that nothing changed (no empty version).
  // A resumed export keeps the first run's day (docs/resume.md): its entries so far carry it.
  const resume = resumeOf(options);
  const day = resume?.from?.header.archivalDay ?? (o.archivalDate ?? new Date()).toISOString().slice(0, 10);
  const archivalDay = new Date(`${day}T00:00:00Z`);
  if (resume?.from) {
    checkCatalogUnchanged(catalog, resume.from);
    await checkKeysUnchanged(source, resume.from);
  }
  // Zipped LOB folders: entries dated like the archive's, so the same export gives the same bytes.
  const zipSink = o.lobsegZip ? new LobsegZipSink(sink, o.name, { mtime: archivalDay }) : undefined;
  const run = resume ? await ResumableRun.start(resume, day) : undefined;
  const lobWriter = new LobWriter(zipSink ?? sink, layout, o.lobDigest, run && ((file, hash) => run.lob(file, hash)));
  const types = typeCatalog(catalog.schemas);
  const headerBound = () => metadataXmlBound(catalog, o, layout, (t, s) => prepareColumns(t, s, types));
  const scratchDir = o.scratchDir ?? sink.scratchDir ?? os.tmpdir();
  const pkg = resume?.from
    ? await continuePackage(target, { ...resume, from: resume.from }, catalog, { o, layout, siardFile, archivalDay, scratchDir })
    : await openPackage(sink, siardFile, o, archivalDay, headerBound);
  if (resume && pkg instanceof SinglePackage) pkg.holdBackIn(spillFileOf(resume));
  try {
    const totals = await writeTables(source, catalog, pkg, o, layout, lobWriter, types, run && { run, sink: target });
    run?.close();
    const archive = archiveOf(source, catalog, o, layout, archivalDay, totals);
    options.describe?.(archive);
    await zipSink?.finishZips();
    const written = await pkg.finish({
      metadataXsd: officialMetadataXsd(),
      metadataXml: (digest) => metadataXml({ ...archive, messageDigests: [{ digestType: 'SHA-256', digest }] }),
    });
    const first = written.files[0]!;
    archive.messageDigests = [{ digestType: 'SHA-256', digest: first.messageDigest }];
    const fingerprintsFile = o.fingerprints === false ? undefined : await writeFingerprints(sink, siardFile, totals.fingerprints);
    const segmented = written.files.length > 1;
    return {
      siardFile: first.relPath,
      ...(segmented ? { segmentFiles: written.files.map(segmentOf) } : {}),
      ...(written.warnings.length > 0 ? { warnings: written.warnings } : {}),
      lobFolders: zipSink ? layout.topLevelFolders().map((f) => `${f}.zip`) : layout.topLevelFolders(),
      tables: totals.tables,
      rows: totals.rows,
      lobs: totals.externalLobs,
      lobFiles: layout.fileCount(),
      lobBytes: totals.lobBytes,
      segments: layout.segmentCount(),
      siardBytes: written.files.reduce((n, f) => n + f.size, 0),
      messageDigest: first.messageDigest,
      archive,
      siardDigests: first.digests,
      ...(fingerprintsFile !== undefined ? { fingerprintsFile } : {}),
    };
  } catch (err) {
    // resumable work stays for the next run (its journal says what of it is whole); the sink keeps its files
    await (run && pkg.suspend ? pkg.suspend() : pkg.abort()).catch(() => undefined);
    run?.close();
    throw err instanceof SiardOcflError
      ? err
      : new SiardOcflError(`Export to ${siardFile} failed: ${(err as Error).message}`, { cause: err });
  }
}

/** The resume asked for, where this export can be resumed (one .siard, LOB folders not zipped). */
function resumeOf(options: SiardExportOptions): ExportResume | undefined {
  if (!options.resume) return undefined;
  if (options.maxSiardBytes !== undefined || options.lobsegZip)
    throw new Error('A segmented SIARD file or zipped LOB folders cannot be written resumably yet.');
  return options.resume;
}

/** The interrupted work checked and its package continued (resume/export-resume.ts), then said. */
async function continuePackage(
  target: OutputSink,
  resume: ExportResume & { from: JournalContents },
  catalog: SourceCatalog,
  at: { o: ResolvedOptions; layout: LobLayout; siardFile: string; archivalDay: Date; scratchDir: string },
): Promise<SiardPackageWriter> {
  const pkg = await continueWork(target, resume, {
    layout: at.layout,
    siardFile: at.siardFile,
    lobHash: NODE_HASH_OF_DIGEST_TYPE[at.o.lobDigest],
    zip: { compressionLevel: at.o.compressionLevel, mtime: at.archivalDay },
    scratchDir: at.scratchDir,
    spillFile: spillFileOf(resume),
  });
  announceResume(resume, catalog);
  return pkg;
}

/** Where a resumable export holds back a table's data (a provisional table), durable at each cut: beside its journal. */
function spillFileOf(resume: ExportResume): string {
  return path.join(path.dirname(resume.journalFile), 'table.spill');
}

/** Tells what the interrupted work keeps and where the export goes on (inside a table after a key, when it can). */
function announceResume(resume: ExportResume, catalog: SourceCatalog): void {
  const from = resume.from!;
  const tables = catalog.schemas.flatMap((s) => s.tables.map((t) => `${s.name}.${t.name}`));
  const kept = new Set(from.tables.map((t) => t.qualifiedName));
  const next = tables.find((name) => !kept.has(name));
  const p = from.progress;
  resume.onResume?.({
    kept: from.tables.length,
    tables: tables.length,
    rows: from.tables.reduce((n, t) => n + t.stats.rows, 0),
    ...(next !== undefined ? { next } : {}),
    ...(p && p.qualifiedName === next ? { within: { key: p.key, rows: p.stats.rows } } : {}),
  });
}

/** The table fingerprints file beside the .siard (docs/fingerprints.md); its path relative to the sink. */
async function writeFingerprints(sink: OutputSink, siardFile: string, tables: TableFingerprintEntry[]): Promise<string> {
  const relPath = fingerprintsFileOf(siardFile);
  const file = await sink.openFile(relPath);
  try {
    await file.write(Buffer.from(fingerprintsJson(siardFile, tables), 'utf8'));
    await file.close();
  } catch (err) {
    await file.abort().catch(() => undefined);
    throw err;
  }
  return relPath;
}

/** One `.siard`, or a segmented SIARD file when `maxSiardBytes` is set. */
async function openPackage(
  sink: OutputSink,
  siardFile: string,
  o: SiardExportOptions,
  mtime: Date,
  metadataBound: () => number,
): Promise<SiardPackageWriter> {
  if (o.maxSiardBytes === undefined)
    return SinglePackage.open(sink, siardFile, {
      compressionLevel: o.compressionLevel,
      mtime,
      scratchDir: o.scratchDir ?? sink.scratchDir ?? os.tmpdir(),
    });
  try {
    return new SegmentedPackage(sink, {
      base: siardFile,
      maxBytes: o.maxSiardBytes,
      metadataXmlBound: metadataBound(),
      metadataXsd: officialMetadataXsd(),
      scratchDir: o.scratchDir ?? sink.scratchDir ?? os.tmpdir(),
      compressionLevel: o.compressionLevel,
      mtime,
    });
  } catch (err) {
    throw err instanceof SiardOcflError && err.code === 'BAD_OPTION' ? new UsageError(err.message, 'BAD_OPTION', err) : err;
  }
}

/** A table's columns as written (a structured type's shape from the schemas' <types>, <fields> if they have none). */
/** A segment as the summary names it. */
function segmentOf(f: WrittenPackageFile): { file: string; bytes: number; messageDigest: string } {
  return { file: f.relPath, bytes: f.size, messageDigest: f.messageDigest };
}

function prepareColumns(
  t: SourceTable,
  s: SourceSchema,
  types: ReturnType<typeof typeCatalog>,
): { columns: SiardColumn[]; shapes: CellShape[] } {
  const columns = t.columns.map((c) => ({ ...c }));
  const shapes: CellShape[] = columns.map((c) =>
    c.type === undefined && c.baseType === undefined && c.typeName !== undefined
      ? columnShape(c, s.name, types, `Table "${t.name}", column "${c.name}"`)
      : plainShape(c),
  );
  columns.forEach((c, ci) => {
    const fields = c.fields === undefined ? fieldsOfShape(shapes[ci]!) : undefined;
    if (fields) c.fields = fields;
  });
  return { columns, shapes };
}

/** The day of an xs:date as received ("2019-05-03", "2019-05-03Z", "2019-05-03+02:00"); today if unreadable. */
function archivalDateOf(xsDate: string): Date | undefined {
  const m = /^\s*(\d{4}-\d{2}-\d{2})/.exec(xsDate);
  const d = m ? new Date(`${m[1]}T00:00:00Z`) : undefined;
  return d && !Number.isNaN(d.getTime()) ? d : undefined;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
