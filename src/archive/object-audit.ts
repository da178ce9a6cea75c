/**
 * The audit of one object (see audit.ts for what is checked), in named steps over shared state:
 * open (OCFL structure, the reader), measure (content sizes), plan (parse each SIARD archive and
 * decide what the one read computes), hash (that read), compare (content and fixity digests, LOB
 * cells) and report (METS index, archive messageDigests).
 */
import { Readable } from 'node:stream';
import { SiardOcflError } from '../errors.js';
import { forEachConcurrent } from '../ocfl/concurrent.js';
import type { OcflObjectReader } from '../ocfl/object.js';
import type { OcflStorageRoot } from '../ocfl/root.js';
import { joinPath } from '../ocfl/storage.js';
import { digestMismatches } from '../ocfl/validate/digest-mismatch.js';
import type { HashPool } from '../ocfl/validate/hash-pool.js';
import { hashStored } from '../ocfl/validate/hash-stored.js';
import { validateObject } from '../ocfl/validate/index.js';
import { describeLobTarget, type LobLocation, type LobPart } from '../siard/lob-location.js';
import { openFoundLob } from '../siard/reader/lob-open.js';
import type { LobAccess } from '../siard/reader/lob-access.js';
import { messageDigestEnd } from '../siard/reader/message-digest.js';
import { lobCellsOfRow, SiardReader, type SiardTableRef } from '../siard/reader/siard-reader.js';
import type { SiardLobCell } from '../siard/reader/types.js';
import { findUnreferencedLobFiles, pathListLister } from '../siard/reader/unreferenced.js';
import { lobLengthUnit, verifyLob } from '../siard/reader/verify-lob.js';
import { anyZipped, withZippedLobFolders, type ZippedLobAccess } from '../siard/reader/zipped-lob-folders.js';
import { auditMetsIndex } from '../siard/mets/checker.js';
import { METS_FILE_NAME, NODE_HASH_OF_CHECKSUM_TYPE } from '../siard/mets/types.js';
import { groupSegmentNames, type SegmentSetNames } from '../siard/segments/segment-names.js';
import { isSegmentedReader, openSiardSegments, setProblems } from '../siard/segments/segment-set-reader.js';
import { isSiardFileName } from '../siard/siard-file-name.js';
import { AuditContentFiles } from './audit-content-files.js';
import type { AuditFinding, AuditFindings, AuditSeverity } from './audit-findings.js';
import { PlannedLobs, type FindingPlace, type PlannedLob } from './audit-lobs.js';
import type { AuditOptions } from './audit-options.js';
import type { ObjectAuditSummary, SiardAuditSummary } from './audit-summary.js';
import { runSequential, type FileDigests, type SequentialJob, type SequentialResult } from './content-hash.js';
import { ExpectedDigests } from './expected-digests.js';
import { OCFL_ALGORITHM_OF_DIGEST_TYPE } from './ocfl-sink.js';
import { StorageBaseLookup, storageBaseOf } from './storage-base.js';
import { storedFile } from './stored.js';
import { checkMetadataXsd, checkTableXsd } from './xsd-check.js';

interface SiardPending {
  /** where the messageDigest outcome goes: the archive's summary, or one segment's entry in it */
  summary: Pick<SiardAuditSummary, 'messageDigest'>;
  logicalPath: string;
  contentPath: string;
  job: number;
  messageDigests: Array<{ digestType: string; digest: string }>;
  /** written by siard-ocfl: its messageDigest range is known exactly */
  ours: boolean;
}

/** What the cells of one archive share while they are planned. */
interface CellPlan {
  logicalPath: string;
  summary: SiardAuditSummary;
  access: ZippedLobAccess;
  lobs: StorageBaseLookup;
  /** parts referenced by cells not in this.lobs (those from firstLob on are referenced too) */
  referenced: LobPart[];
  firstLob: number;
  /** location warnings already given (each once per archive) */
  warned: Set<string>;
  /** the note on absolute LOB folders was given */
  noted: boolean;
}

/** Plain files handed to the hashing threads at once (see hash()). */
const HASH_BATCH = 20000;
const STAT_PARALLEL = 64;

function emptySiardSummary(path: string): SiardAuditSummary {
  return { path, siardVersion: '', tables: 0, rows: 0, lobs: 0, lobFiles: 0, xsd: 'not checked', messageDigest: 'not checked' };
}

export class ObjectAudit {
  private object: string;
  private readonly summary: ObjectAuditSummary;
  private readonly before: { e: number; w: number };
  private reader!: OcflObjectReader;
  private version = '';
  private state: ReadonlyMap<string, string> = new Map();
  private expected!: ExpectedDigests;
  /** the content files (numbered in manifest order), their sizes and what the read found */
  private files!: AuditContentFiles;
  /** the LOB cells checked once their files are read */
  private lobs!: PlannedLobs;
  private readonly jobs: SequentialJob[] = [];
  /** content files of each job */
  private readonly jobFiles: number[][] = [];
  private readonly siards: SiardPending[] = [];
  /** results of the jobs, without their per-file results once those are recorded in this.files */
  private readonly jobResults: SequentialResult[] = [];

  constructor(
    private readonly root: OcflStorageRoot,
    private readonly objectPath: string,
    expectedId: string | undefined,
    private readonly options: AuditOptions,
    private readonly findings: AuditFindings,
    private readonly pool: HashPool,
  ) {
    this.object = expectedId ?? objectPath;
    this.summary = { id: this.object, objectPath, version: '', contentFiles: 0, contentBytes: 0, siards: [], errors: 0, warnings: 0 };
    this.before = { e: findings.count('error'), w: findings.count('warning') };
  }

  async run(): Promise<ObjectAuditSummary> {
    if (await this.open()) {
      await this.measureContent();
      await this.plan();
      await this.hash();
      this.compareContent();
      this.compareLobs();
      await this.checkMets();
      this.reportMessageDigests();
    }
    this.summary.errors = this.findings.count('error') - this.before.e;
    this.summary.warnings = this.findings.count('warning') - this.before.w;
    return this.summary;
  }

  private add(severity: AuditSeverity, code: string, message: string, where: Partial<AuditFinding> = {}): void {
    this.findings.add({ severity, code, message, object: this.object, ...where });
  }

  private contentOf(logicalPath: string): string | undefined {
    const digest = this.state.get(logicalPath);
    return digest === undefined ? undefined : this.reader.manifestPaths(digest)?.[0];
  }

  private stored(contentPath: string): string {
    return joinPath(this.objectPath, contentPath);
  }

  private siardAt(contentPath: string) {
    return storedFile(this.root.storage, this.stored(contentPath));
  }

  /** The number of a content file present in storage, or -1. */
  private presentFile(contentPath: string | undefined): number {
    const id = contentPath === undefined ? -1 : this.files.find(contentPath);
    return id >= 0 && this.files.isPresent(id) ? id : -1;
  }

  private algorithmsOf(id: number): string[] {
    return this.files.algorithmsOf(id, this.expected.of(this.files.path(id)));
  }

  /**
   * 1. OCFL structure (every version); content digests follow in our own single read. The validator
   * runs before the reader parses the inventory again, so a million-file inventory is never held
   * twice. False when the object cannot be read.
   */
  private async open(): Promise<boolean> {
    const structure = await validateObject({ storage: this.root.storage, path: this.objectPath }, { fixity: false });
    try {
      this.reader = await this.root.openObjectAt(this.objectPath);
      this.object = this.summary.id = this.reader.id;
    } catch (err) {
      this.add('error', 'OBJECT_UNREADABLE', `The object at ${this.objectPath} cannot be read: ${(err as Error).message}`, {
        path: this.objectPath,
      });
      return false;
    }
    for (const f of structure.errors) this.add('error', f.code, f.message, { path: f.path });
    for (const f of structure.warnings) this.add('warning', f.code, f.message, { path: f.path });
    const version = this.options.version ?? this.reader.head;
    if (!this.reader.hasVersion(version)) {
      throw new SiardOcflError(`Object "${this.object}" has no version ${version} (head is ${this.reader.head}).`, {
        code: 'NO_SUCH_VERSION',
        exitCode: 2,
      });
    }
    this.version = this.summary.version = version;
    this.state = this.reader.state(version);
    // Expected digests of every content file: manifest and fixity.
    this.expected = new ExpectedDigests(this.reader);
    this.files = new AuditContentFiles(this.expected);
    this.lobs = new PlannedLobs(this.files);
    return true;
  }

  /** The size of every content file present in storage; the hashing threads boot meanwhile. */
  private async measureContent(): Promise<void> {
    const { files } = this;
    for (const p of this.expected.contentPaths()) files.add(p);
    const storage = this.root.storage;
    if (storage.localPath) {
      // Many stats in flight at once: libuv's threads overlap their latency.
      const ids = Int32Array.from({ length: files.length }, (_, i) => i);
      await forEachConcurrent(ids, STAT_PARALLEL, async (id) => {
        const st = await storage.stat(this.stored(files.path(id))).catch(() => undefined);
        if (st?.isFile) files.setSize(id, st.size); // a missing file is the validator's E092
      });
    } else {
      // An object store: one listing of the object (a request per 1,000 files), not a HEAD per file.
      for (const f of (await storage.walk(this.objectPath)).files) {
        const id = files.find(f.relative);
        if (id >= 0) files.setSize(id, f.size);
      }
    }
    // The threads boot while the SIARD archives are parsed and planned.
    this.pool.prepare(files.present.bytes, files.present.files);
  }

  /** 2. Each SIARD archive of the version: parse, resolve, plan. */
  private async plan(): Promise<void> {
    for (const logicalPath of this.state.keys()) {
      if (!isSiardFileName(logicalPath)) continue;
      const contentPath = this.contentOf(logicalPath);
      if (this.presentFile(contentPath) < 0) continue; // reported by the validator
      await this.planSiard(logicalPath, contentPath!);
    }
    // Segmented SIARD files (`x.siard.1` ... `.z`): read as one archive, each segment's digest checked.
    for (const set of groupSegmentNames(this.state.keys())) await this.planSegmentSet(set);
  }

  private async planSiard(logicalPath: string, contentPath: string): Promise<void> {
    const s = emptySiardSummary(logicalPath);
    this.summary.siards.push(s);
    let siard: SiardReader;
    try {
      siard = await SiardReader.open(await this.siardAt(contentPath), { siardPath: logicalPath });
    } catch (err) {
      this.add('error', 'SIARD_UNREADABLE', `${logicalPath} cannot be read as a SIARD archive: ${(err as Error).message}`, {
        path: logicalPath,
      });
      return;
    }
    try {
      s.siardVersion = siard.metadata.siardVersion;
      // No verb extracts entries by name, but an archive holding such an entry is a trap for any
      // tool that unzips it (zip-slip), and duplicate names make tools read different archives.
      for (const entry of siard.zip.unsafeEntries) {
        this.add(
          'error',
          'SIARD_ZIP_UNSAFE_ENTRY',
          `${logicalPath} holds ZIP entry ${JSON.stringify(entry.name)}: ${entry.unsafeReason}.`,
          { path: logicalPath },
        );
      }
      for (const w of siard.warnings) this.add('warning', 'SIARD_IRREGULAR', w.replace(siard.file, logicalPath), { path: logicalPath });
      if (!this.options.noXsd) await this.checkXsds(siard, s, logicalPath);
      await this.planCells(siard, s, logicalPath);
      this.planDigest(siard, logicalPath, contentPath, s);
    } catch (err) {
      this.add('error', 'SIARD_UNREADABLE', `${logicalPath}: ${(err as Error).message.replace(siard.file, logicalPath)}`, {
        path: logicalPath,
      });
    } finally {
      siard.close();
    }
  }

  private async planSegmentSet(set: SegmentSetNames): Promise<void> {
    const s = emptySiardSummary(set.base);
    s.segments = [];
    this.summary.siards.push(s);
    const isPresent = (name: string) => this.presentFile(this.contentOf(name)) >= 0;
    const present = { ...set, members: set.members.filter((m) => isPresent(m.name)) };
    let siard: SiardReader;
    try {
      siard = await openSiardSegments(present, (name) => this.siardAt(this.contentOf(name)!), { tolerateProblems: true, label: set.base });
    } catch (err) {
      const why = (err as Error).message;
      this.add('error', 'SIARD_UNREADABLE', `${set.base} (a segmented SIARD file) cannot be read: ${why}`, { path: set.base });
      return;
    }
    try {
      s.siardVersion = siard.metadata.siardVersion;
      for (const p of setProblems(siard)) {
        this.add('error', p.code, p.message.endsWith('.') ? p.message : `${p.message}.`, { path: set.base });
      }
      for (const entry of siard.zip.unsafeEntries) {
        this.add('error', 'SIARD_ZIP_UNSAFE_ENTRY', `${set.base} holds ZIP entry ${JSON.stringify(entry.name)}: ${entry.unsafeReason}.`, {
          path: set.base,
        });
      }
      for (const w of siard.warnings) this.add('warning', 'SIARD_IRREGULAR', w, { path: set.base });
      if (!this.options.noXsd) await this.checkXsds(siard, s, set.base);
      await this.planCells(siard, s, set.base);
    } catch (err) {
      this.add('error', 'SIARD_UNREADABLE', `${set.base}: ${(err as Error).message}`, { path: set.base });
    } finally {
      siard.close();
    }
    await this.planSegmentDigests(present.members, s.segments);
  }

  /** Each segment: its own messageDigest over its own bytes before header/, read with its fixity. */
  private async planSegmentDigests(
    members: SegmentSetNames['members'],
    segments: NonNullable<SiardAuditSummary['segments']>,
  ): Promise<void> {
    for (const m of members) {
      const entry = { path: m.name, messageDigest: 'not checked' as SiardAuditSummary['messageDigest'] };
      segments.push(entry);
      const cp = this.contentOf(m.name)!;
      try {
        const one = await SiardReader.open(await this.siardAt(cp), { siardPath: m.name });
        try {
          this.planDigest(one, m.name, cp, entry);
        } finally {
          one.close();
        }
      } catch (err) {
        this.add('error', 'SIARD_UNREADABLE', `${m.name} cannot be read as a SIARD archive: ${(err as Error).message}`, { path: m.name });
      }
    }
  }

  /** metadata.xml against the XSD; for a segmented file also each split table file, parts joined, against its own XSD. */
  private async checkXsds(siard: SiardReader, s: SiardAuditSummary, label: string): Promise<void> {
    const xsd = await checkMetadataXsd(siard);
    if (xsd.status === 'valid') s.xsd = `valid against ${xsd.schema}`;
    else if (xsd.status === 'invalid') {
      s.xsd = `invalid against ${xsd.schema}`;
      const message = `${label}: header/metadata.xml is not valid against ${xsd.schema}: ${xsd.message}`;
      this.add('error', 'SIARD_METADATA_XSD', message, { path: label });
    } else {
      s.xsd = `skipped: ${xsd.reason}`;
      this.add('info', 'SIARD_XSD_SKIPPED', `${label}: XSD check skipped (${xsd.reason}).`, { path: label });
    }
    if (!isSegmentedReader(siard)) return;
    for (const t of siard.tables()) {
      if (siard.zip.partsOf(t.xmlEntry).length === 0) continue;
      const r = await checkTableXsd(siard, t.xmlEntry);
      const table = `${t.schema.name}.${t.table.name}`;
      const where = `${label}: table ${table}`;
      if (r.status === 'invalid') {
        this.add('error', 'SIARD_TABLE_XSD', `${where}: ${t.xmlEntry}, its parts joined, is not valid against ${r.schema}: ${r.message}`, {
          path: label,
          table,
        });
      } else if (r.status === 'skipped') {
        this.add('info', 'SIARD_XSD_SKIPPED', `${where}: XSD check of the joined parts skipped (${r.reason}).`, { path: label, table });
      }
    }
  }

  /** The .siard's (or one segment's) digests and messageDigest range in one read. */
  private planDigest(siard: SiardReader, logicalPath: string, contentPath: string, target: SiardPending['summary']): void {
    const end = messageDigestEnd(siard);
    const stated = siard.archive.messageDigests;
    const id = this.files.find(contentPath);
    const job: SequentialJob = { files: [this.stored(contentPath)], algorithms: [this.algorithmsOf(id)] };
    if (end !== undefined && stated.length > 0 && siard.metadata.siardVersion !== '1.0') {
      job.prefix = { end, algorithms: [...new Set(stated.map((m) => OCFL_ALGORITHM_OF_DIGEST_TYPE[m.digestType]!))] };
    } else {
      target.messageDigest = stated.length === 0 ? 'absent' : 'not checked';
      if (stated.length === 0) {
        this.add('info', 'SIARD_NO_MESSAGE_DIGEST', `${logicalPath} states no archive messageDigest.`, { path: logicalPath });
      }
    }
    this.jobs.push(job);
    this.jobFiles.push([id]);
    const ours = siard.metadata.dialect === 'siard-ocfl';
    this.siards.push({ summary: target, logicalPath, contentPath, job: this.jobs.length - 1, messageDigests: stated, ours });
  }

  private async planCells(siard: SiardReader, s: SiardAuditSummary, logicalPath: string): Promise<void> {
    const plain: LobAccess = {
      exists: async (part) => (part.kind === 'internal' ? siard.hasEntry(part.entry) : this.state.has(part.path)),
      open: async () => {
        throw new Error('not used');
      },
      size: async () => 0,
    };
    // Zipped LOB segment folders (S_8.4-1): their entries are read and checked here, one by one.
    const access = withZippedLobFolders(plain, async (zip) => {
      const cp = this.contentOf(zip);
      return cp === undefined ? undefined : this.siardAt(cp);
    });
    try {
      await this.planCellsWith(siard, s, logicalPath, access);
    } finally {
      access.close();
    }
  }

  private async planCellsWith(siard: SiardReader, s: SiardAuditSummary, logicalPath: string, access: ZippedLobAccess): Promise<void> {
    // After `relocate` the object keeps the LOB folders where they were: verified there, said once.
    const lobs = new StorageBaseLookup(siard, access, {
      bases: async () => [await storageBaseOf(this.reader, logicalPath, this.version, (cp) => this.siardAt(cp))],
      label: logicalPath,
      container: 'the object',
      verb: 'verified',
    });
    const firstLob = this.lobs.length;
    const plan: CellPlan = { logicalPath, summary: s, access, lobs, referenced: [], firstLob, warned: new Set(), noted: false };
    for (const t of siard.tables()) {
      s.tables++;
      const tableName = `${t.schema.name}.${t.table.name}`;
      let rows = 0;
      for await (const row of siard.rows(t)) {
        rows++;
        for (const cell of lobCellsOfRow(t, row)) await this.planCell(plan, siard, t, cell);
      }
      s.rows += rows;
      if (rows !== t.table.rows) {
        const message =
          `${logicalPath}: table ${tableName} has ${rows} rows in ${t.xmlEntry}, ` + `but metadata.xml says <rows>${t.table.rows}</rows>.`;
        this.add('error', 'SIARD_ROWS', message, { path: logicalPath, table: tableName });
      }
    }
    // The parts the planned cells reference are read back from their compact records, not kept twice.
    const planned = this.lobs.partPathsOf(firstLob, this.lobs.length);
    const referenced = (function* () {
      yield* plan.referenced;
      for (const path of planned) yield { kind: 'external' as const, path };
    })();
    await this.reportUnreferenced(siard, logicalPath, referenced);
  }

  /** One LOB cell: located, then checked now (inside the .siard or a zipped folder) or planned for the read. */
  private async planCell(plan: CellPlan, siard: SiardReader, t: SiardTableRef, cell: SiardLobCell): Promise<void> {
    const { logicalPath, lobs } = plan;
    plan.summary.lobs++;
    const column = t.table.columns[cell.column - 1]?.name ?? cell.cellPath[0]!;
    const where = { path: logicalPath, table: `${t.schema.name}.${t.table.name}`, row: cell.row, column };
    const lookup = await lobs.lookup(cell);
    const location = lookup.location;
    if (lobs.note !== undefined && !plan.noted) {
      plan.noted = true;
      this.add('info', 'SIARD_LOBFOLDER_ABSOLUTE', lobs.note, { path: logicalPath });
    }
    for (const w of location.warnings) {
      if (plan.warned.has(w)) continue;
      plan.warned.add(w);
      this.add('warning', /back-slash/.test(w) ? 'SIARD_LOBFOLDER_BACKSLASH' : 'SIARD_LOB_LOCATION', `${logicalPath}: ${w}`, {
        path: logicalPath,
      });
    }
    const found = lookup.status === 'found' ? lookup.found : undefined;
    if (!found) {
      this.reportUnfound(location, cell, where);
      return;
    }
    if (found.parts[0]!.kind === 'internal') {
      plan.referenced.push(...found.parts);
      await this.checkInternalLob(
        siard,
        found.parts.map((p) => (p as { entry: string }).entry),
        cell,
        where,
      );
    } else if (await anyZipped(plan.access, found.parts)) {
      plan.referenced.push(...found.parts);
      plan.summary.lobFiles += found.parts.length;
      await this.checkZippedLob(plan.access, found.parts, cell, where);
    } else {
      const parts = found.parts.map((p) => (p as { path: string }).path);
      if (!this.planExternalLob(plan.summary, cell, where, parts)) plan.referenced.push(...found.parts);
    }
  }

  /**
   * A LOB in content files of the object: its check waits for the read, which may need a job of its
   * own. False when a file is missing (reported here), so the cell is not planned.
   */
  private planExternalLob(s: SiardAuditSummary, cell: SiardLobCell, where: PlannedLob['where'], parts: string[]): boolean {
    const files = parts.map((p) => this.presentFile(this.contentOf(p)));
    const lost = parts.find((_p, i) => files[i]! < 0);
    if (lost !== undefined) {
      // In the version's state, but its content file is gone from storage (the validator says E092 too).
      const cellText = `${where.path}: table ${where.table}, row ${cell.row}, column ${where.column}`;
      const message =
        `${cellText}: LOB file ${lost} is in ${this.version} but its content file ${this.contentOf(lost) ?? '(none)'} ` +
        `is missing from storage.`;
      this.add('error', 'LOB_MISSING', message, { ...where, path: lost });
      return false;
    }
    s.lobFiles += parts.length;
    const { ref } = cell;
    const text = cell.family === 'clob' || cell.family === 'xml';
    const alg = ref.digestType ? OCFL_ALGORITHM_OF_DIGEST_TYPE[ref.digestType] : undefined;
    if (ref.digestTypeRaw !== undefined) {
      this.add(
        'warning',
        'LOB_DIGEST_TYPE',
        `${where.path}: digestType "${ref.digestTypeRaw}" is not one SIARD names; the digest was not checked.`,
        where,
      );
    }
    const bytes = files.reduce((n, id) => n + this.files.size(id)!, 0);
    const needText = text && ref.length !== undefined && ref.length !== bytes;
    let job: number | undefined;
    const expected = files.length === 1 ? this.expected.of(this.files.path(files[0]!)) : undefined;
    if (parts.length > 1 || needText) {
      this.jobs.push({
        files: files.map((id) => this.stored(this.files.path(id))),
        algorithms: files.map((id) => this.algorithmsOf(id)),
        ...(parts.length > 1 && alg ? { wholeAlgorithms: [alg] } : {}),
        countText: needText,
      });
      this.jobFiles.push(files);
      job = this.jobs.length - 1;
    } else if (alg) this.files.needAlgorithm(files[0]!, alg, expected!);
    // A digest the inventory records of the file (in the cell's algorithm) needs not be kept.
    const recorded = alg === undefined ? undefined : expected?.find((e) => e.algorithm === alg)?.digest;
    const digestRecorded = recorded !== undefined && recorded === ref.digest;
    this.lobs.add({ where, ref, text, parts, files, ...(job !== undefined ? { job } : {}), digestRecorded });
    return true;
  }

  /** Files in LOB folders, and entries of the archive, that no cell references. */
  private async reportUnreferenced(
    siard: SiardReader,
    logicalPath: string,
    referenced: Parameters<typeof findUnreferencedLobFiles>[1],
  ): Promise<void> {
    const unreferenced = await findUnreferencedLobFiles(siard, referenced, pathListLister(this.state.keys()));
    // The METS index (--mets) puts a mets.xml at the top of each segment folder: part of the package.
    const isSegmentMets = (p: string) => {
      const parts = p.split('/');
      return parts.at(-1) === METS_FILE_NAME && parts.length >= 2 && /(_lobseg_|^seg_?)\d+$/.test(parts.at(-2)!);
    };
    const mets = unreferenced.external.filter(isSegmentMets);
    if (mets.length > 0) {
      const message =
        `${logicalPath}: ${mets.length} segment folders hold a METS index (${METS_FILE_NAME}), ` +
        `checked with the parent METS beside the .siard.`;
      this.add('info', 'SIARD_METS_INDEX', message, { path: logicalPath });
    }
    for (const p of unreferenced.external.filter((x) => !isSegmentMets(x))) {
      this.add('warning', 'LOB_UNREFERENCED', `${p} lies in a LOB folder of ${logicalPath} but no cell references it.`, { path: p });
    }
    for (const e of unreferenced.internal) {
      this.add('warning', 'LOB_UNREFERENCED', `${logicalPath}: entry ${e} inside the archive is referenced by no cell.`, {
        path: logicalPath,
      });
    }
  }

  private reportUnfound(location: LobLocation, cell: SiardLobCell, where: FindingPlace): void {
    const p = location.primary;
    const cellText = `table ${where.table}, row ${where.row}, column ${where.column}`;
    if (p.kind === 'invalid') {
      this.add(
        'error',
        'LOB_INVALID_LOCATION',
        `${where.path}: ${cellText}: LOB file "${cell.ref.file}" has no usable location: ${p.reason}`,
        where,
      );
    } else if (p.kind === 'outside') {
      if (p.absolutePath !== undefined) {
        const message =
          `${where.path}: ${cellText}: LOB file "${cell.ref.file}" lies outside the object ` +
          `at ${describeLobTarget(p)}; it was not verified.`;
        this.add('warning', 'LOB_OUTSIDE', message, where);
      } else {
        const message =
          `${where.path}: ${cellText}: LOB file "${cell.ref.file}" resolves to ${describeLobTarget(p)}, above the ` +
          `object's logical root.`;
        this.add('error', 'LOB_ESCAPES', message, where);
      }
    } else {
      const target = p.kind === 'internal' ? `entry ${p.entry} inside the .siard` : p.path;
      const ext = p.kind === 'external' ? p.path : undefined;
      const first = ext !== undefined ? [`${ext}.0`, `${ext}_part001`].find((x) => this.state.has(x)) : undefined;
      if (ext !== undefined && first) {
        const message =
          `${where.path}: ${cellText}: the split LOB ${ext} is incomplete: ${first} is ` +
          `there but a later part (or the final .z) is missing.`;
        this.add('error', 'LOB_SPLIT_INCOMPLETE', message, { ...where, path: ext });
      } else {
        this.add('error', 'LOB_MISSING', `${where.path}: ${cellText}: LOB file ${target} is missing.`, {
          ...where,
          path: p.kind === 'external' ? p.path : where.path,
        });
      }
    }
  }

  private async checkInternalLob(siard: SiardReader, entries: string[], cell: SiardLobCell, where: FindingPlace): Promise<void> {
    const cellAt = `${where.path}: table ${where.table}, row ${where.row}, column ${where.column}`;
    try {
      const joined = (async function* () {
        for (const e of entries) for await (const c of (await siard.zip.openStream(siard.root + e)) as AsyncIterable<Buffer>) yield c;
      })();
      const v = await verifyLob(Readable.from(joined), cell.ref, { family: cell.family });
      const at = `the LOB inside the archive (${entries[0]})`;
      if (v.lengthOk === false) {
        this.add('error', 'LOB_LENGTH', `${cellAt}: ${at} has ${v.bytes} bytes, but the cell says length ${cell.ref.length}.`, where);
      }
      if (v.digestOk === false) {
        this.add('error', 'LOB_DIGEST', `${cellAt}: ${at} has ${v.digestType} ${v.digest}, but the cell says ${cell.ref.digest}.`, where);
      }
    } catch (err) {
      this.add('error', 'SIARD_ENTRY', `${cellAt}: ${(err as Error).message}`, where);
    }
  }

  private async checkZippedLob(access: LobAccess, parts: LobPart[], cell: SiardLobCell, where: FindingPlace): Promise<void> {
    const first = (parts[0] as { path: string }).path;
    const cellAt = `${where.path}: table ${where.table}, row ${where.row}, column ${where.column}`;
    try {
      const found = { target: parts[0]!, parts, split: parts.length > 1 ? ('lobseg' as const) : ('whole' as const) };
      const v = await verifyLob(openFoundLob(found, access), cell.ref, { family: cell.family });
      const at = `the LOB ${first} (in its zipped LOB folder)`;
      if (v.lengthOk === false) {
        this.add('error', 'LOB_LENGTH', `${cellAt}: ${at} has ${v.bytes} bytes, but the cell says length ${cell.ref.length}.`, where);
      }
      if (v.digestOk === false) {
        this.add('error', 'LOB_DIGEST', `${cellAt}: ${at} has ${v.digestType} ${v.digest}, but the cell says ${cell.ref.digest}.`, where);
      }
    } catch (err) {
      this.add('error', 'LOB_ZIPPED', `${cellAt}: ${first} cannot be read from its zipped LOB folder: ${(err as Error).message}`, where);
    }
  }

  /**
   * 3. One read of every content file: the worker pool hashes plain files while this thread reads the
   * planned jobs. Each result is recorded compactly as it comes (this.files) and let go.
   */
  private async hash(): Promise<void> {
    const { files, options } = this;
    const inJobs = new Set(this.jobFiles.flat());
    const plain = files.inPathOrder(inJobs);
    const totalBytes = files.present.bytes;
    this.summary.contentFiles = files.present.files;
    this.summary.contentBytes = totalBytes;
    options.onPlan?.(totalBytes);
    const sequential = (async () => {
      for (const [i, job] of this.jobs.entries()) {
        this.jobResults[i] = await runSequential(job, this.root.storage);
        options.onBytes?.(this.jobFiles[i]!.reduce((n, id) => n + (files.size(id) ?? 0), 0));
      }
    })();
    // In batches: a task holds the file's absolute path and its algorithms, which for a million
    // files is gigabytes if made all at once; a batch's tasks and results are dropped once recorded.
    const hashing = (async () => {
      for (let i = 0; i < plain.length; i += HASH_BATCH) {
        const batch = plain.subarray(i, i + HASH_BATCH);
        const paths = Array.from(batch, (id) => files.path(id));
        const expected = paths.map((p) => this.expected.of(p));
        const algorithms = Array.from(batch, (id, k) => files.algorithmsOf(id, expected[k]!));
        const batchSizes = Array.from(batch, (id) => files.size(id)!);
        const onHashed = (_n: number, bytes: number) => options.onBytes?.(bytes);
        const results = await hashStored(this.root.storage, this.objectPath, paths, algorithms, batchSizes, this.pool, onHashed);
        batch.forEach((id, k) => files.record(id, results[k]!, expected[k]!));
      }
    })();
    await Promise.all([hashing, sequential]);
    // A file read by several jobs: the last one's result counts.
    const last = new Map<number, FileDigests>();
    this.jobs.forEach((_job, i) => this.jobFiles[i]!.forEach((id, k) => last.set(id, this.jobResults[i]!.files[k]!)));
    for (const [id, result] of last) files.record(id, result);
    for (const r of this.jobResults) r.files = [];
  }

  /** 4. Content and fixity digests against the inventory: the files whose read did not confirm them. */
  private compareContent(): void {
    const { files } = this;
    const kept = files.keptIds();
    if (kept.length === 0) return;
    // Each file named by the first logical path (in state order) whose digest lists it.
    const wanted = new Map(kept.map((id) => [files.path(id), undefined as string | undefined]));
    for (const [lp, d] of this.state) {
      for (const cp of this.reader.manifestPaths(d) ?? []) if (wanted.has(cp) && wanted.get(cp) === undefined) wanted.set(cp, lp);
    }
    for (const id of kept) {
      const cp = files.path(id);
      const r = files.keptResult(id)!;
      const named = wanted.get(cp);
      const label = named ? `${cp} (logical path ${named} in ${this.version})` : cp;
      if (r.error !== undefined || !r.digests) {
        this.add('error', 'E092', `The content file ${label} cannot be read: ${r.error}.`, { path: named ?? cp });
        continue;
      }
      for (const m of digestMismatches(r.digests, this.expected.of(cp))) {
        const block = m.block === 'manifest' ? 'manifest' : `${m.algorithm} fixity block`;
        this.add('error', m.code, `The content file ${label} has ${m.algorithm} ${m.actual}, but the ${block} records ${m.digest}.`, {
          path: named ?? cp,
        });
      }
    }
  }

  /** 5. LOB cells against the verified digests and sizes. */
  private compareLobs(): void {
    const { lobs, files } = this;
    for (let i = 0; i < lobs.length; i++) {
      const n = lobs.partCount(i);
      const ids = Array.from({ length: n }, (_, k) => lobs.fileOf(i, k));
      if (ids.some((id) => !files.hasDigests(id))) continue; // unreadable: reported above
      const jobIndex = lobs.job(i);
      const job = jobIndex !== undefined ? this.jobResults[jobIndex] : undefined;
      const bytes = ids.reduce((sum, id) => sum + files.readSize(id)!, 0);
      const length = lobs.lengthAttribute(i);
      const text = lobs.isText(i);
      if (length !== undefined) {
        const counts = { bytes, codePoints: job?.text?.codePoints, utf16Units: job?.text?.utf16Units };
        if (lobLengthUnit(length, counts, text) === undefined) {
          const characters = job?.text ? ` (${job.text.codePoints} characters)` : '';
          const message =
            `${this.cellText(i)}: LOB file ${this.fileLabel(i)} has ${bytes} bytes${characters}, ` + `but the cell says length ${length}.`;
          this.add('error', 'LOB_LENGTH', message, { ...lobs.where(i), path: lobs.partPathOf(i, 0) });
        }
      }
      const digestType = lobs.digestType(i);
      const alg = digestType ? OCFL_ALGORITHM_OF_DIGEST_TYPE[digestType] : undefined;
      // Confirmed against the inventory, which records the cell's digest: nothing to compare.
      if (!alg || (n === 1 && lobs.digestRecorded(i) && files.isConfirmed(ids[0]!))) continue;
      const want = lobs.digest(i, () => this.expected.digest(files.path(ids[0]!), alg));
      if (want === undefined) continue;
      const got = n > 1 ? job?.whole?.[alg] : files.digest(ids[0]!, alg);
      if (got !== undefined && got !== want) {
        const message = `${this.cellText(i)}: LOB file ${this.fileLabel(i)} has ${digestType} ${got}, but the cell says ${want}.`;
        this.add('error', 'LOB_DIGEST', message, { ...lobs.where(i), path: lobs.partPathOf(i, 0) });
      }
    }
  }

  private cellText(i: number): string {
    const where = this.lobs.where(i);
    return `${where.path}: table ${where.table}, row ${where.row}, column ${where.column}`;
  }

  private fileLabel(i: number): string {
    const n = this.lobs.partCount(i);
    const first = this.lobs.partPathOf(i, 0);
    return n > 1 ? `${first} (+${n - 1} parts)` : first;
  }

  /**
   * 6. METS index (ingest --mets, or received with the package): checked by the METS checker with
   * sizes and digests from the one read (nothing is hashed again).
   */
  private async checkMets(): Promise<void> {
    const { state, files } = this;
    const metsChecked = new Set<string>(); // the segments of a segmented file share one parent
    for (const s of this.siards) {
      const dir = s.logicalPath.includes('/') ? s.logicalPath.slice(0, s.logicalPath.lastIndexOf('/') + 1) : '';
      const parentPath = `${dir}${METS_FILE_NAME}`;
      if (!state.has(parentPath) || metsChecked.has(parentPath)) continue;
      metsChecked.add(parentPath);
      const metsFindings = await auditMetsIndex({
        parentPath,
        open: async (p) => {
          const cp = state.has(p) ? this.contentOf(p) : undefined;
          return this.presentFile(cp) >= 0 ? this.root.storage.readFile(this.stored(cp!)) : undefined;
        },
        facts: {
          size: (p) => {
            const id = state.has(p) ? this.presentFile(this.contentOf(p)) : -1;
            return id >= 0 ? files.size(id) : undefined;
          },
          digest: (p, type) => {
            if (!state.has(p)) return undefined;
            const id = this.presentFile(this.contentOf(p));
            return id >= 0 ? files.digest(id, NODE_HASH_OF_CHECKSUM_TYPE[type]) : undefined;
          },
        },
        presentFiles: state.keys(),
        referencedFiles: this.lobs.partPathsOf(),
      });
      for (const f of metsFindings) this.add(f.severity, f.code, f.message, { path: f.path });
    }
  }

  /** 7. Archive messageDigests; a segmented file's is verified when every segment's is. */
  private reportMessageDigests(): void {
    for (const s of this.siards) {
      const r = this.jobResults[s.job]!;
      if (!this.jobs[s.job]!.prefix) continue;
      if (!r.prefix) {
        s.summary.messageDigest = 'mismatch';
        this.add('error', 'SIARD_MESSAGE_DIGEST', `${s.logicalPath}: the archive messageDigest range could not be read.`, {
          path: s.logicalPath,
        });
        continue;
      }
      const bad = s.messageDigests.filter((m) => r.prefix![OCFL_ALGORITHM_OF_DIGEST_TYPE[m.digestType]!] !== m.digest.toLowerCase());
      s.summary.messageDigest = bad.length === 0 ? 'verified' : s.ours ? 'mismatch' : 'not reproduced';
      for (const m of bad) {
        const got = r.prefix[OCFL_ALGORITHM_OF_DIGEST_TYPE[m.digestType]!];
        const stated = `${s.logicalPath}: the archive messageDigest (${m.digestType})`;
        if (s.ours) {
          this.add('error', 'SIARD_MESSAGE_DIGEST', `${stated} is ${m.digest}, but the content entries hash to ${got}.`, {
            path: s.logicalPath,
          });
        } else {
          // Producers differ in the range they digest (SIARD Suite's cannot be reproduced from its
          // samples), so for their archives a mismatch is reported but does not fail the audit.
          const message = `${stated} ${m.digest} does not match the bytes before header/ (${got}); this producer may digest another range.`;
          this.add('warning', 'SIARD_MESSAGE_DIGEST_UNVERIFIED', message, { path: s.logicalPath });
        }
      }
    }
    for (const s of this.summary.siards) {
      if (!s.segments || s.segments.length === 0) continue;
      const states = s.segments.map((x) => x.messageDigest);
      const worst = (['mismatch', 'not reproduced', 'absent', 'not checked'] as const).find((x) => states.includes(x));
      s.messageDigest = worst ?? 'verified';
    }
  }
}
