/**
 * The planning step of one object's audit: each SIARD archive of the version is parsed (metadata
 * against the XSD, every table read, row counts), each LOB cell located and either checked at once
 * (inside the .siard, in a zipped LOB folder) or planned for the one read of the content, with the
 * jobs that read needs (split LOBs, CLOB character counts, each .siard's messageDigest range).
 * What it answers, the ReadPlan, is what the read and the comparisons after it work from.
 */
import type { LobPart } from '../siard/lob-location.js';
import type { LobAccess } from '../siard/reader/lob-access.js';
import { messageDigestEnd } from '../siard/reader/message-digest.js';
import { lobCellsOfRow, SiardReader, type SiardTableRef } from '../siard/reader/siard-reader.js';
import type { SiardLobCell } from '../siard/reader/types.js';
import { anyZipped, withZippedLobFolders, type ZippedLobAccess } from '../siard/reader/zipped-lob-folders.js';
import { groupSegmentNames, type SegmentSetNames } from '../siard/segments/segment-names.js';
import { isSegmentedReader, openSiardSegments, setProblems } from '../siard/segments/segment-set-reader.js';
import { isSiardFileName } from '../siard/siard-file-name.js';
import type { ObjectAuditContext, OpenedObject } from './audit-context.js';
import { PlannedLobs, type PlannedLob } from './audit-lobs.js';
import type { SiardAuditSummary } from './audit-summary.js';
import type { SequentialJob } from './content-hash.js';
import { OCFL_ALGORITHM_OF_DIGEST_TYPE } from './ocfl-sink.js';
import { StorageBaseLookup, storageBaseOf } from './storage-base.js';
import { checkTableXsd } from './xsd-check.js';
import { auditFail, auditMetadataXsd, auditZipEntries } from './audit-check.js';
import { rowCountVerdict } from '../siard/check/verdicts.js';
import { checkInternalLob, checkZippedLob, reportUnfound, reportUnreferenced } from './audit-cell-checks.js';
import { AuditFingerprints } from './audit-fingerprints.js';

export interface SiardPending {
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

/** What the planning answers: the read's jobs, each .siard's messageDigest to check, the LOB cells to compare. */
export interface ReadPlan {
  readonly jobs: SequentialJob[];
  /** content files of each job */
  readonly jobFiles: number[][];
  readonly siards: SiardPending[];
  /** the LOB cells checked once their files are read */
  readonly lobs: PlannedLobs;
}

function emptySiardSummary(path: string): SiardAuditSummary {
  return { path, siardVersion: '', tables: 0, rows: 0, lobs: 0, lobFiles: 0, xsd: 'not checked', messageDigest: 'not checked' };
}

export class ReadPlanner {
  private readonly jobs: SequentialJob[] = [];
  private readonly jobFiles: number[][] = [];
  private readonly siards: SiardPending[] = [];
  private readonly lobs: PlannedLobs;

  constructor(
    private readonly ctx: ObjectAuditContext,
    private readonly obj: OpenedObject,
  ) {
    this.lobs = new PlannedLobs(obj.files);
  }

  /** Each SIARD archive of the version: parse, resolve, plan. */
  async run(): Promise<ReadPlan> {
    for (const logicalPath of this.obj.state.keys()) {
      if (!isSiardFileName(logicalPath)) continue;
      const contentPath = this.obj.contentOf(logicalPath);
      if (this.obj.presentFile(contentPath) < 0) continue; // reported by the validator
      await this.planSiard(logicalPath, contentPath!);
    }
    // Segmented SIARD files (`x.siard.1` ... `.z`): read as one archive, each segment's digest checked.
    for (const set of groupSegmentNames(this.obj.state.keys())) await this.planSegmentSet(set);
    return { jobs: this.jobs, jobFiles: this.jobFiles, siards: this.siards, lobs: this.lobs };
  }

  private async planSiard(logicalPath: string, contentPath: string): Promise<void> {
    const s = emptySiardSummary(logicalPath);
    this.ctx.summary.siards.push(s);
    let siard: SiardReader;
    try {
      siard = await SiardReader.open(await this.ctx.siardAt(contentPath), { siardPath: logicalPath });
    } catch (err) {
      this.ctx.add('error', 'SIARD_UNREADABLE', `${logicalPath} cannot be read as a SIARD archive: ${(err as Error).message}`, {
        path: logicalPath,
      });
      return;
    }
    try {
      s.siardVersion = siard.metadata.siardVersion;
      // No verb extracts entries by name, but an archive holding such an entry is a trap for any
      // tool that unzips it (zip-slip), and duplicate names make tools read different archives.
      auditZipEntries(this.ctx, siard, logicalPath);
      for (const w of siard.warnings) this.ctx.add('warning', 'SIARD_IRREGULAR', w.replace(siard.file, logicalPath), { path: logicalPath });
      if (!this.ctx.options.noXsd) await this.checkXsds(siard, s, logicalPath);
      await this.planCells(siard, s, logicalPath);
      this.planDigest(siard, logicalPath, contentPath, s);
    } catch (err) {
      this.ctx.add('error', 'SIARD_UNREADABLE', `${logicalPath}: ${(err as Error).message.replace(siard.file, logicalPath)}`, {
        path: logicalPath,
      });
    } finally {
      siard.close();
    }
  }

  private async planSegmentSet(set: SegmentSetNames): Promise<void> {
    const s = emptySiardSummary(set.base);
    s.segments = [];
    this.ctx.summary.siards.push(s);
    const isPresent = (name: string) => this.obj.presentFile(this.obj.contentOf(name)) >= 0;
    const present = { ...set, members: set.members.filter((m) => isPresent(m.name)) };
    let siard: SiardReader;
    try {
      siard = await openSiardSegments(present, (name) => this.ctx.siardAt(this.obj.contentOf(name)!), {
        tolerateProblems: true,
        label: set.base,
      });
    } catch (err) {
      const why = (err as Error).message;
      this.ctx.add('error', 'SIARD_UNREADABLE', `${set.base} (a segmented SIARD file) cannot be read: ${why}`, { path: set.base });
      return;
    }
    try {
      s.siardVersion = siard.metadata.siardVersion;
      for (const p of setProblems(siard)) {
        this.ctx.add('error', p.code, p.message.endsWith('.') ? p.message : `${p.message}.`, { path: set.base });
      }
      auditZipEntries(this.ctx, siard, set.base);
      for (const w of siard.warnings) this.ctx.add('warning', 'SIARD_IRREGULAR', w, { path: set.base });
      if (!this.ctx.options.noXsd) await this.checkXsds(siard, s, set.base);
      await this.planCells(siard, s, set.base);
    } catch (err) {
      this.ctx.add('error', 'SIARD_UNREADABLE', `${set.base}: ${(err as Error).message}`, { path: set.base });
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
      const cp = this.obj.contentOf(m.name)!;
      try {
        const one = await SiardReader.open(await this.ctx.siardAt(cp), { siardPath: m.name });
        try {
          this.planDigest(one, m.name, cp, entry);
        } finally {
          one.close();
        }
      } catch (err) {
        this.ctx.add('error', 'SIARD_UNREADABLE', `${m.name} cannot be read as a SIARD archive: ${(err as Error).message}`, {
          path: m.name,
        });
      }
    }
  }

  /** metadata.xml against the XSD; for a segmented file also each split table file, parts joined, against its own XSD. */
  private async checkXsds(siard: SiardReader, s: SiardAuditSummary, label: string): Promise<void> {
    const xsd = await auditMetadataXsd(this.ctx, siard, label);
    if (xsd.status !== 'skipped') s.xsd = `${xsd.status} against ${xsd.schema}`;
    else {
      s.xsd = `skipped: ${xsd.reason}`;
      this.ctx.add('info', 'SIARD_XSD_SKIPPED', `${label}: XSD check skipped (${xsd.reason}).`, { path: label });
    }
    if (!isSegmentedReader(siard)) return;
    for (const t of siard.tables()) {
      if (siard.zip.partsOf(t.xmlEntry).length === 0) continue;
      const r = await checkTableXsd(siard, t.xmlEntry);
      const table = `${t.schema.name}.${t.table.name}`;
      const where = `${label}: table ${table}`;
      if (r.status === 'invalid') {
        this.ctx.add(
          'error',
          'SIARD_TABLE_XSD',
          `${where}: ${t.xmlEntry}, its parts joined, is not valid against ${r.schema}: ${r.message}`,
          {
            path: label,
            table,
          },
        );
      } else if (r.status === 'skipped') {
        this.ctx.add('info', 'SIARD_XSD_SKIPPED', `${where}: XSD check of the joined parts skipped (${r.reason}).`, { path: label, table });
      }
    }
  }

  /** The .siard's (or one segment's) digests and messageDigest range in one read. */
  private planDigest(siard: SiardReader, logicalPath: string, contentPath: string, target: SiardPending['summary']): void {
    const end = messageDigestEnd(siard);
    const stated = siard.archive.messageDigests;
    const id = this.obj.files.find(contentPath);
    const job: SequentialJob = { files: [this.ctx.stored(contentPath)], algorithms: [this.obj.algorithmsOf(id)] };
    if (end !== undefined && stated.length > 0 && siard.metadata.siardVersion !== '1.0') {
      job.prefix = { end, algorithms: [...new Set(stated.map((m) => OCFL_ALGORITHM_OF_DIGEST_TYPE[m.digestType]!))] };
    } else {
      target.messageDigest = stated.length === 0 ? 'absent' : 'not checked';
      if (stated.length === 0) {
        this.ctx.add('info', 'SIARD_NO_MESSAGE_DIGEST', `${logicalPath} states no archive messageDigest.`, { path: logicalPath });
      }
    }
    this.jobs.push(job);
    this.jobFiles.push([id]);
    this.obj.files.markInJob(id);
    const ours = siard.metadata.dialect === 'siard-ocfl';
    this.siards.push({ summary: target, logicalPath, contentPath, job: this.jobs.length - 1, messageDigests: stated, ours });
  }

  private async planCells(siard: SiardReader, s: SiardAuditSummary, logicalPath: string): Promise<void> {
    const plain: LobAccess = {
      exists: async (part) => (part.kind === 'internal' ? siard.hasEntry(part.entry) : this.obj.state.has(part.path)),
      open: async () => {
        throw new Error('not used');
      },
      size: async () => 0,
    };
    // Zipped LOB segment folders (S_8.4-1): their entries are read and checked here, one by one.
    const access = withZippedLobFolders(plain, async (zip) => {
      const cp = this.obj.contentOf(zip);
      return cp === undefined ? undefined : this.ctx.siardAt(cp);
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
      bases: async () => [await storageBaseOf(this.obj.reader, logicalPath, this.obj.version, (cp) => this.ctx.siardAt(cp))],
      label: logicalPath,
      container: 'the object',
      verb: 'verified',
    });
    const firstLob = this.lobs.length;
    const plan: CellPlan = { logicalPath, summary: s, access, lobs, referenced: [], firstLob, warned: new Set(), noted: false };
    // the table fingerprints the export took from the source, taken again from the rows read here
    const fingerprints = await AuditFingerprints.load(this.ctx, this.obj, logicalPath);
    for (const t of siard.tables()) {
      s.tables++;
      const tableName = `${t.schema.name}.${t.table.name}`;
      let rows = 0;
      fingerprints?.startTable(t);
      for await (const row of siard.rows(t)) {
        rows++;
        const cells = [...lobCellsOfRow(t, row)];
        fingerprints?.row(row, cells);
        for (const cell of cells) await this.planCell(plan, siard, t, cell);
      }
      s.rows += rows;
      rowCountVerdict(
        auditFail(this.ctx, 'SIARD_ROWS', `${logicalPath}: `, { path: logicalPath, table: tableName }),
        tableName,
        t.xmlEntry,
        rows,
        t.table.rows,
      );
    }
    fingerprints?.finish(logicalPath);
    // The parts the planned cells reference are read back from their compact records, not kept twice.
    const planned = this.lobs.partPathsOf(firstLob, this.lobs.length);
    const referenced = (function* () {
      yield* plan.referenced;
      for (const path of planned) yield { kind: 'external' as const, path };
    })();
    await reportUnreferenced(this.ctx, this.obj.state, siard, logicalPath, referenced);
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
      this.ctx.add('info', 'SIARD_LOBFOLDER_ABSOLUTE', lobs.note, { path: logicalPath });
    }
    for (const w of location.warnings) {
      if (plan.warned.has(w)) continue;
      plan.warned.add(w);
      this.ctx.add('warning', /back-slash/.test(w) ? 'SIARD_LOBFOLDER_BACKSLASH' : 'SIARD_LOB_LOCATION', `${logicalPath}: ${w}`, {
        path: logicalPath,
      });
    }
    const found = lookup.status === 'found' ? lookup.found : undefined;
    if (!found) {
      await reportUnfound(this.ctx, plan.access, location, cell, where);
      return;
    }
    if (found.parts[0]!.kind === 'internal') {
      plan.referenced.push(...found.parts);
      await checkInternalLob(
        this.ctx,
        siard,
        found.parts.map((p) => (p as { entry: string }).entry),
        cell,
        where,
      );
    } else if (await anyZipped(plan.access, found.parts)) {
      plan.referenced.push(...found.parts);
      plan.summary.lobFiles += found.parts.length;
      await checkZippedLob(this.ctx, plan.access, found.parts, cell, where);
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
    const files = parts.map((p) => this.obj.presentFile(this.obj.contentOf(p)));
    const lost = parts.find((_p, i) => files[i]! < 0);
    if (lost !== undefined) {
      // In the version's state, but its content file is gone from storage (the validator says E092 too).
      const cellText = `${where.path}: table ${where.table}, row ${cell.row}, column ${where.column}`;
      const message =
        `${cellText}: LOB file ${lost} is in ${this.obj.version} but its content file ${this.obj.contentOf(lost) ?? '(none)'} ` +
        `is missing from storage.`;
      this.ctx.add('error', 'LOB_MISSING', message, { ...where, path: lost });
      return false;
    }
    s.lobFiles += parts.length;
    const { ref } = cell;
    const text = cell.family === 'clob' || cell.family === 'xml';
    const alg = ref.digestType ? OCFL_ALGORITHM_OF_DIGEST_TYPE[ref.digestType] : undefined;
    if (ref.digestTypeRaw !== undefined) {
      this.ctx.add(
        'warning',
        'LOB_DIGEST_TYPE',
        `${where.path}: digestType "${ref.digestTypeRaw}" is not one SIARD names; the digest was not checked.`,
        where,
      );
    }
    const bytes = files.reduce((n, id) => n + this.obj.files.size(id)!, 0);
    const needText = text && ref.length !== undefined && ref.length !== bytes;
    let job: number | undefined;
    const expected = files.length === 1 ? this.obj.expected.of(this.obj.files.path(files[0]!)) : undefined;
    // A single file's digest in the cell's algorithm, whoever reads it (the pool, or a job counting a CLOB's characters).
    if (alg && files.length === 1) this.obj.files.needAlgorithm(files[0]!, alg, expected!);
    if (parts.length > 1 || needText) {
      this.jobs.push({
        files: files.map((id) => this.ctx.stored(this.obj.files.path(id))),
        algorithms: files.map((id) => this.obj.algorithmsOf(id)),
        ...(parts.length > 1 && alg ? { wholeAlgorithms: [alg] } : {}),
        countText: needText,
      });
      this.jobFiles.push(files);
      for (const id of files) this.obj.files.markInJob(id);
      job = this.jobs.length - 1;
    }
    // A digest the inventory records of the file (in the cell's algorithm) needs not be kept.
    const recorded = alg === undefined ? undefined : expected?.find((e) => e.algorithm === alg)?.digest;
    const digestRecorded = recorded !== undefined && recorded === ref.digest;
    this.lobs.add({ where, ref, text, parts, files, ...(job !== undefined ? { job } : {}), digestRecorded });
    return true;
  }
}
