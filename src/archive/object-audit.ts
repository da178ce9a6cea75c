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
import { openFoundLob, type LobAccess } from '../siard/reader/lob-open.js';
import { messageDigestEnd } from '../siard/reader/message-digest.js';
import { lobCellsOfRow, SiardReader, type SiardTableRef } from '../siard/reader/siard-reader.js';
import type { SiardLobCell, SiardReadLobReference } from '../siard/reader/types.js';
import { findUnreferencedLobFiles } from '../siard/reader/unreferenced.js';
import { lobLengthUnit, verifyLob } from '../siard/reader/verify-lob.js';
import { anyZipped, withZippedLobFolders, type ZippedLobAccess } from '../siard/reader/zipped-lob-folders.js';
import { auditMetsIndex } from '../siard/mets/checker.js';
import { METS_FILE_NAME, NODE_HASH_OF_CHECKSUM_TYPE } from '../siard/mets/types.js';
import { groupSegmentNames, type SegmentSetNames } from '../siard/segments/segment-names.js';
import { isSegmentedReader, openSiardSegments, setProblems } from '../siard/segments/segment-set-reader.js';
import { isSiardFileName } from '../siard/siard-file-name.js';
import type { AuditFinding, AuditFindings, AuditSeverity } from './audit-findings.js';
import type { AuditOptions, ObjectAuditSummary, SiardAuditSummary } from './audit.js';
import { runSequential, type FileDigests, type SequentialJob, type SequentialResult } from './content-hash.js';
import { ExpectedDigests } from './expected-digests.js';
import { OCFL_ALGORITHM_OF_DIGEST_TYPE } from './ocfl-sink.js';
import { stateLister } from './state-lister.js';
import { StorageBaseLookup, storageBaseOf } from './storage-base.js';
import { storedFile } from './stored.js';
import { checkMetadataXsd, checkTableXsd } from './xsd-check.js';

type FindingPlace = Pick<AuditFinding, 'path' | 'table' | 'row' | 'column'>;

/** A LOB cell whose bytes lie in content files: checked once the files are hashed. */
interface LobCheck {
  where: FindingPlace;
  ref: SiardReadLobReference;
  text: boolean;
  /** logical paths of the parts, in order */
  parts: string[];
  contentPaths: string[];
  /** index into the sequential jobs, when the cell needs more than per-file digests */
  job?: number;
}

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
  referenced: LobPart[];
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
  /** content path -> size, of the content files present in storage */
  private readonly sizes = new Map<string, number>();
  /** digest algorithms a LOB cell needs that the inventory does not record for its file */
  private readonly extraAlgorithms = new Map<string, Set<string>>();
  private readonly jobs: SequentialJob[] = [];
  /** content paths of each job */
  private readonly jobFiles: string[][] = [];
  private readonly lobChecks: LobCheck[] = [];
  private readonly siards: SiardPending[] = [];
  private readonly results = new Map<string, FileDigests>();
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

  private needAlgorithm(contentPath: string, alg: string): void {
    if (this.expected.has(contentPath, alg)) return;
    const extra = this.extraAlgorithms;
    (extra.get(contentPath) ?? extra.set(contentPath, new Set()).get(contentPath)!).add(alg);
  }

  private algorithmsOf(contentPath: string): string[] {
    return [...new Set([...this.expected.of(contentPath).map((e) => e.algorithm), ...(this.extraAlgorithms.get(contentPath) ?? [])])];
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
    return true;
  }

  /** The size of every content file present in storage; the hashing threads boot meanwhile. */
  private async measureContent(): Promise<void> {
    const contentPaths = [...this.expected.contentPaths()];
    const storage = this.root.storage;
    if (storage.localPath) {
      // Many stats in flight at once: libuv's threads overlap their latency.
      await forEachConcurrent(contentPaths, STAT_PARALLEL, async (p) => {
        const st = await storage.stat(this.stored(p)).catch(() => undefined);
        if (st?.isFile) this.sizes.set(p, st.size); // a missing file is the validator's E092
      });
    } else {
      // An object store: one listing of the object (a request per 1,000 files), not a HEAD per file.
      const wanted = new Set(contentPaths);
      for (const f of (await storage.walk(this.objectPath)).files) if (wanted.has(f.relative)) this.sizes.set(f.relative, f.size);
    }
    // The threads boot while the SIARD archives are parsed and planned.
    this.pool.prepare(
      [...this.sizes.values()].reduce((a, b) => a + b, 0),
      this.sizes.size,
    );
  }

  /** 2. Each SIARD archive of the version: parse, resolve, plan. */
  private async plan(): Promise<void> {
    for (const logicalPath of this.state.keys()) {
      if (!isSiardFileName(logicalPath)) continue;
      const contentPath = this.contentOf(logicalPath);
      if (!contentPath || !this.sizes.has(contentPath)) continue; // reported by the validator
      await this.planSiard(logicalPath, contentPath);
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
    const isPresent = (name: string) => this.contentOf(name) !== undefined && this.sizes.has(this.contentOf(name)!);
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
    const job: SequentialJob = { files: [this.stored(contentPath)], algorithms: [this.algorithmsOf(contentPath)] };
    if (end !== undefined && stated.length > 0 && siard.metadata.siardVersion !== '1.0') {
      job.prefix = { end, algorithms: [...new Set(stated.map((m) => OCFL_ALGORITHM_OF_DIGEST_TYPE[m.digestType]!))] };
    } else {
      target.messageDigest = stated.length === 0 ? 'absent' : 'not checked';
      if (stated.length === 0) {
        this.add('info', 'SIARD_NO_MESSAGE_DIGEST', `${logicalPath} states no archive messageDigest.`, { path: logicalPath });
      }
    }
    this.jobs.push(job);
    this.jobFiles.push([contentPath]);
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
    const plan: CellPlan = { logicalPath, summary: s, access, lobs, referenced: [], warned: new Set(), noted: false };
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
    await this.reportUnreferenced(siard, logicalPath, plan.referenced);
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
    plan.referenced.push(...found.parts);
    if (found.parts[0]!.kind === 'internal') {
      await this.checkInternalLob(
        siard,
        found.parts.map((p) => (p as { entry: string }).entry),
        cell,
        where,
      );
    } else if (await anyZipped(plan.access, found.parts)) {
      plan.summary.lobFiles += found.parts.length;
      await this.checkZippedLob(plan.access, found.parts, cell, where);
    } else {
      this.planExternalLob(
        plan.summary,
        cell,
        where,
        found.parts.map((p) => (p as { path: string }).path),
      );
    }
  }

  /** A LOB in content files of the object: its check waits for the read, which may need a job of its own. */
  private planExternalLob(s: SiardAuditSummary, cell: SiardLobCell, where: FindingPlace, parts: string[]): void {
    const contentPaths = parts.map((p) => this.contentOf(p)!);
    const lost = parts.find((_p, i) => !contentPaths[i] || !this.sizes.has(contentPaths[i]!));
    if (lost !== undefined) {
      // In the version's state, but its content file is gone from storage (the validator says E092 too).
      const cellText = `${where.path}: table ${where.table}, row ${cell.row}, column ${where.column}`;
      const message =
        `${cellText}: LOB file ${lost} is in ${this.version} but its content file ${this.contentOf(lost) ?? '(none)'} ` +
        `is missing from storage.`;
      this.add('error', 'LOB_MISSING', message, { ...where, path: lost });
      return;
    }
    s.lobFiles += parts.length;
    const check: LobCheck = { where, ref: cell.ref, text: cell.family === 'clob' || cell.family === 'xml', parts, contentPaths };
    const alg = cell.ref.digestType ? OCFL_ALGORITHM_OF_DIGEST_TYPE[cell.ref.digestType] : undefined;
    if (cell.ref.digestTypeRaw !== undefined) {
      this.add(
        'warning',
        'LOB_DIGEST_TYPE',
        `${where.path}: digestType "${cell.ref.digestTypeRaw}" is not one SIARD names; the digest was not checked.`,
        where,
      );
    }
    const bytes = contentPaths.reduce((n, c) => n + this.sizes.get(c)!, 0);
    const needText = check.text && cell.ref.length !== undefined && cell.ref.length !== bytes;
    if (parts.length > 1 || needText) {
      this.jobs.push({
        files: contentPaths.map((c) => this.stored(c)),
        algorithms: contentPaths.map((c) => this.algorithmsOf(c)),
        ...(parts.length > 1 && alg ? { wholeAlgorithms: [alg] } : {}),
        countText: needText,
      });
      this.jobFiles.push(contentPaths);
      check.job = this.jobs.length - 1;
    } else if (alg) this.needAlgorithm(contentPaths[0]!, alg);
    this.lobChecks.push(check);
  }

  /** Files in LOB folders, and entries of the archive, that no cell references. */
  private async reportUnreferenced(siard: SiardReader, logicalPath: string, referenced: LobPart[]): Promise<void> {
    const unreferenced = await findUnreferencedLobFiles(siard, referenced, stateLister(this.state));
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

  /** 3. One read of every content file: the worker pool hashes plain files while this thread reads the planned jobs. */
  private async hash(): Promise<void> {
    const { sizes, options } = this;
    const inJobs = new Set(this.jobFiles.flat());
    const plain = [...sizes.keys()].filter((p) => !inJobs.has(p)).sort();
    const totalBytes = [...sizes.values()].reduce((a, b) => a + b, 0);
    this.summary.contentFiles = sizes.size;
    this.summary.contentBytes = totalBytes;
    options.onPlan?.(totalBytes);
    const sequential = (async () => {
      for (const [i, job] of this.jobs.entries()) {
        this.jobResults[i] = await runSequential(job, this.root.storage);
        options.onBytes?.(this.jobFiles[i]!.reduce((n, p) => n + (sizes.get(p) ?? 0), 0));
      }
    })();
    // In batches: a task holds the file's absolute path and its algorithms, which for a million
    // files is gigabytes if made all at once; a batch's are dropped once it is hashed.
    const hashing = (async () => {
      for (let i = 0; i < plain.length; i += HASH_BATCH) {
        const batch = plain.slice(i, i + HASH_BATCH);
        const algorithms = batch.map((p) => this.algorithmsOf(p));
        const batchSizes = batch.map((p) => sizes.get(p)!);
        const onHashed = (_n: number, bytes: number) => options.onBytes?.(bytes);
        const batchResults = await hashStored(this.root.storage, this.objectPath, batch, algorithms, batchSizes, this.pool, onHashed);
        batch.forEach((p, k) => this.results.set(p, batchResults[k]!));
      }
    })();
    await Promise.all([hashing, sequential]);
    this.jobs.forEach((_job, i) => this.jobFiles[i]!.forEach((p, k) => this.results.set(p, this.jobResults[i]!.files[k]!)));
  }

  /** 4. Content and fixity digests against the inventory. */
  private compareContent(): void {
    const logicalOf = new Map<string, string[]>();
    for (const [lp, d] of this.state) {
      for (const cp of this.reader.manifestPaths(d) ?? []) (logicalOf.get(cp) ?? logicalOf.set(cp, []).get(cp)!).push(lp);
    }
    for (const cp of this.expected.contentPaths()) {
      const r = this.results.get(cp);
      if (!r) continue;
      const named = logicalOf.get(cp)?.[0];
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
    for (const check of this.lobChecks) {
      const { where, ref } = check;
      const cellText = `${where.path}: table ${where.table}, row ${where.row}, column ${where.column}`;
      const files = check.contentPaths.map((c) => this.results.get(c));
      if (files.some((f) => !f?.digests)) continue; // unreadable: reported above
      const job = check.job !== undefined ? this.jobResults[check.job] : undefined;
      const bytes = files.reduce((n, f) => n + f!.size!, 0);
      const fileLabel = check.parts.length > 1 ? `${check.parts[0]} (+${check.parts.length - 1} parts)` : check.parts[0]!;
      if (ref.length !== undefined) {
        const counts = { bytes, codePoints: job?.text?.codePoints, utf16Units: job?.text?.utf16Units };
        if (lobLengthUnit(ref.length, counts, check.text) === undefined) {
          const characters = job?.text ? ` (${job.text.codePoints} characters)` : '';
          const message = `${cellText}: LOB file ${fileLabel} has ${bytes} bytes${characters}, but the cell says length ${ref.length}.`;
          this.add('error', 'LOB_LENGTH', message, { ...where, path: check.parts[0]! });
        }
      }
      const alg = ref.digestType ? OCFL_ALGORITHM_OF_DIGEST_TYPE[ref.digestType] : undefined;
      if (alg && ref.digest !== undefined) {
        const got = check.parts.length > 1 ? job?.whole?.[alg] : files[0]!.digests![alg];
        if (got !== undefined && got !== ref.digest.toLowerCase()) {
          const message = `${cellText}: LOB file ${fileLabel} has ${ref.digestType} ${got}, but the cell says ${ref.digest}.`;
          this.add('error', 'LOB_DIGEST', message, { ...where, path: check.parts[0]! });
        }
      }
    }
  }

  /**
   * 6. METS index (ingest --mets, or received with the package): checked by the METS checker with
   * sizes and digests from the one read (nothing is hashed again).
   */
  private async checkMets(): Promise<void> {
    const { state, sizes } = this;
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
          return cp && sizes.has(cp) ? this.root.storage.readFile(this.stored(cp)) : undefined;
        },
        facts: {
          size: (p) => (state.has(p) ? sizes.get(this.contentOf(p)!) : undefined),
          digest: (p, type) => {
            if (!state.has(p)) return undefined;
            return this.results.get(this.contentOf(p)!)?.digests?.[NODE_HASH_OF_CHECKSUM_TYPE[type]];
          },
        },
        presentFiles: state.keys(),
        referencedFiles: this.lobChecks.flatMap((c) => c.parts),
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
