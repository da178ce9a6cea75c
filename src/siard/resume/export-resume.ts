/**
 * Continuing an interrupted export (docs/resume.md): the work its journal proves is checked file
 * by file, everything else is removed, and the `.siard` is reopened where its last finished table
 * ended. Nothing is kept because the journal says so: every kept byte is read and hashed again
 * (the running hashes of the first run could not be saved, so they are computed again anyway).
 */
import { createHash } from 'node:crypto';
import { SiardOcflError, UsageError } from '../../errors.js';
import { failpoint } from '../../failpoint.js';
import { noKeyNow } from '../../sources/row-key.js';
import type { DatabaseSource, SourceCatalog } from '../database-source.js';
import type { LobLayout } from '../lob-placement.js';
import type { OutputSink, ResumableSink, WrittenFile } from '../output-sink.js';
import { SinglePackage } from '../package-writer.js';
import type { PackageCut } from '../package-cut.js';
import { Spill } from '../segments/spill.js';
import { writableOf } from '../writable.js';
import { ZipWriter, type ZipWriterOptions } from '../zip/writer.js';
import {
  journaledLobs,
  JournalWriter,
  type BatchLine,
  type JournalContents,
  type JournalHeader,
  type LobMark,
  type TableLine,
} from './export-journal.js';
import { shapeChange, tableShape } from './table-shape.js';

/** What an export is given to make its work resumable, or to continue interrupted work. */
export interface ExportResume {
  /** the journal file (in the sink's staging folder) */
  journalFile: string;
  /** what the work is: header of a new journal (archivalDay is the writer's) */
  header: Omit<JournalHeader, 'archivalDay'>;
  /** the interrupted work, as its journal was read (continued when set) */
  from?: JournalContents;
  /** told once the interrupted work is checked: what is kept and where the export goes on */
  onResume?: (r: { kept: number; tables: number; rows: number; next?: string; within?: { key: string; rows: number } }) => void;
}

/** The interrupted work cannot be proved: it is removed and the export starts over (never kept unproved). */
export class ResumeRefused extends SiardOcflError {
  constructor(reason: string) {
    super(`The interrupted export cannot be resumed: ${reason}`, { code: 'RESUME_REFUSED' });
  }
}

/** `schema.table` indexes of the finished tables. */
function finishedTables(from: JournalContents): Map<string, TableLine> {
  return new Map(from.tables.map((t) => [`${t.schema}.${t.table}`, t]));
}

/**
 * Refuses (one sentence, exit 2) when a finished table is not where it was in the catalogue or its
 * row count changed, or when the table in progress at the last cut has other columns, column types
 * or keys (table-shape.ts): the database changed since the interrupted run, and keeping that table
 * would mix two states of it.
 */
export function checkCatalogUnchanged(catalog: SourceCatalog, from: JournalContents): void {
  for (const line of [...from.tables, ...(from.progress ? [from.progress] : [])]) {
    const s = catalog.schemas[line.schema];
    const t = s?.tables[line.table];
    if (!s || !t || `${s.name}.${t.name}` !== line.qualifiedName)
      throw new UsageError(
        `The tables of the source changed since the interrupted export (${line.qualifiedName} is not where it was); ` +
          'run it again with --restart to start over.',
        'RESUME_CHANGED',
      );
    // a planner's estimate (PostgreSQL, MariaDB) may move without a change: only exact counts are compared
    if (line.catalogRows !== undefined && t.rowsExact && t.rows !== line.catalogRows)
      throw new UsageError(
        `Table ${line.qualifiedName} had ${line.catalogRows} rows when the interrupted export wrote it and has ${t.rows} now; ` +
          'run it again with --restart to start over.',
        'RESUME_CHANGED',
      );
    const change = line === from.progress && from.progress.shape && shapeChange(from.progress.shape, tableShape(t), line.qualifiedName);
    if (change) throw new UsageError(`${change}; run it again with --restart to start over.`, 'RESUME_CHANGED');
  }
}

/**
 * Refuses (one sentence, exit 2) when a finished table's first or last key is not what it was when
 * the interrupted run wrote it (rows added or removed at its ends): two index lookups per table,
 * where the source can make them (PostgreSQL, MariaDB, whose row counts are only estimates); or
 * when the table in progress at the last cut has no key now.
 */
export async function checkKeysUnchanged(source: DatabaseSource, from: JournalContents): Promise<void> {
  if (!source.keyRange) return;
  const catalog = await source.catalog();
  // the table in progress must still have a key to go on after (a unique key over nullable columns may hold a NULL now)
  const p = from.progress;
  const inProgress = p && catalog.schemas[p.schema]!;
  if (p && inProgress && (await source.keyRange(inProgress.name, inProgress.tables[p.table]!.name)) === undefined)
    throw noKeyNow(p.key, p.qualifiedName);
  for (const line of from.tables) {
    if (line.keyRange === undefined) continue;
    const s = catalog.schemas[line.schema]!;
    const now = await source.keyRange(s.name, s.tables[line.table]!.name);
    if (now !== line.keyRange)
      throw new UsageError(
        `The keys of table ${line.qualifiedName} ran from ${keyWords(line.keyRange)} when the interrupted export wrote it and ` +
          `run from ${keyWords(now)} now: the table changed; run it again with --restart to start over.`,
        'RESUME_CHANGED',
      );
  }
}

/** "1 to 150" from a key range's text (several key columns joined by a comma). */
function keyWords(range: string | undefined): string {
  const [first, last] = range === undefined ? [] : (JSON.parse(range) as Array<unknown[] | null>);
  const one = (k: unknown[] | null | undefined) => (k ? k.join(', ') : 'nothing');
  return first || last ? `${one(first)} to ${one(last)}` : 'nothing (no rows)';
}

/**
 * Removes every file of the interrupted work that no finished table owns, nor the table in
 * progress before its last cut (its journaled LOB files); returns how many files were kept.
 */
async function removeUnfinished(
  resumable: ResumableSink,
  from: JournalContents,
  layout: LobLayout,
  siardFile: string,
  journalFile: string,
): Promise<number> {
  const finished = finishedTables(from);
  const progress = from.progress;
  const beforeCut = new Set<string>();
  const inProgress = (relPath: string) => {
    const owner = layout.tableOfFile(relPath);
    return progress !== undefined && owner?.schema === progress.schema && owner.table === progress.table;
  };
  if (progress) for await (const [relPath] of journaledLobs(journalFile, from.validLength)) if (inProgress(relPath)) beforeCut.add(relPath);
  let kept = 0;
  const unfinished: string[] = [];
  for await (const relPath of resumable.files()) {
    if (relPath === siardFile) continue;
    const owner = layout.tableOfFile(relPath);
    if ((owner && finished.has(`${owner.schema}.${owner.table}`)) || beforeCut.has(relPath)) kept++;
    else unfinished.push(relPath);
  }
  await resumable.removeFiles(unfinished);
  return kept;
}

/** Every journaled LOB file read again: its size and LOB digest must be the journal's. */
async function checkLobFiles(resumable: ResumableSink, from: JournalContents, journalFile: string, lobHash: string): Promise<number> {
  let checked = 0;
  for await (const [relPath, size, digest, also] of journaledLobs(journalFile, from.validLength)) {
    const recorded = { ...also, [lobHash]: digest };
    const file = await resumable.adoptFile(relPath, { digests: [lobHash], recorded, size }).catch((err: Error) => {
      throw new ResumeRefused(`the LOB file ${relPath} could not be read (${err.message}).`);
    });
    // one digest computed proves the file (adoptFile); every digest it returns is the journal's
    if (file.size !== size || Object.entries(file.digests).some(([name, value]) => (recorded[name] ?? value) !== value))
      throw new ResumeRefused(`the LOB file ${relPath} is not what the journal recorded (${file.size} bytes, ${size} recorded).`);
    checked++;
  }
  return checked;
}

/**
 * Checks the interrupted work and returns the package to continue: the layout's counters put
 * back, the files of the table in progress after its last cut (and any other leftover) removed,
 * every kept LOB file, the `.siard`'s bytes before the recorded offset and the table data held
 * back before the cut hashed again and compared.
 */
export async function continueWork(
  sink: OutputSink,
  resume: ExportResume & { from: JournalContents },
  at: { layout: LobLayout; siardFile: string; lobHash: string; zip: ZipWriterOptions; scratchDir: string; spillFile: string },
): Promise<SinglePackage> {
  const { from } = resume;
  const last = from.tables.at(-1);
  const progress = from.progress;
  const resumable = sink.resumable;
  const mark = progress?.cut.zip ?? last?.zip;
  if (!resumable || !mark) throw new ResumeRefused('nothing of it can be continued.');
  at.layout.restore((progress ?? last)!.layout as Parameters<LobLayout['restore']>[0]);
  const kept = await removeUnfinished(resumable, from, at.layout, at.siardFile, resume.journalFile);
  const checked = await checkLobFiles(resumable, from, resume.journalFile, at.lobHash);
  if (checked !== kept || checked !== from.lobFiles)
    throw new ResumeRefused(`it holds ${kept} LOB files of finished tables, the journal ${checked}.`);
  const hash = createHash('sha256');
  const out = await resumable
    .reopenFile(at.siardFile, { length: mark.offset, digests: [], onPrefix: (chunk) => hash.update(chunk) })
    .catch((err: Error) => {
      throw new ResumeRefused(`${at.siardFile} could not be read (${err.message}).`);
    });
  if (hash.copy().digest('hex') !== mark.sha256) {
    await out.abort().catch(() => undefined);
    throw new ResumeRefused(`the first ${mark.offset} bytes of ${at.siardFile} are not what the journal recorded.`);
  }
  const tableEntries = from.tables.flatMap((t) => t.zip.entries);
  const entries = [...tableEntries, ...(progress?.cut.zip.entries ?? [])];
  const open = progress?.cut.zip.open;
  const zip = ZipWriter.resume(writableOf(out), at.zip, { offset: mark.offset, entries, hash, ...(open ? { open } : {}) });
  const aside = progress?.cut.aside;
  const spill =
    aside &&
    (await Spill.durable(at.spillFile, aside).catch(async (err: Error) => {
      await out.abort().catch(() => undefined);
      throw new ResumeRefused(`${err.message}.`);
    }));
  return SinglePackage.resumed(at.siardFile, out, zip, at.scratchDir, {
    checkpointed: tableEntries.length,
    ...(spill && aside ? { aside: { spill, sums: aside.sums } } : {}),
  });
}

/** One run of a resumable export: its journal, and the finished tables it keeps. */
export class ResumableRun {
  private constructor(
    private readonly journal: JournalWriter,
    private readonly finished: Map<string, TableLine>,
  ) {}

  /** The table in progress at the interrupted run's last cut, to go on after (taken once). */
  private progress: BatchLine | undefined;

  /** The journal continued (cut back to its last table or batch line) or created with the run's archival day. */
  static async start(resume: ExportResume, archivalDay: string): Promise<ResumableRun> {
    if (resume.from) {
      const journal = await JournalWriter.continue(resume.journalFile, resume.from.validLength, resume.from.lobsSinceTable);
      const run = new ResumableRun(journal, finishedTables(resume.from));
      run.progress = resume.from.progress;
      return run;
    }
    return new ResumableRun(JournalWriter.create(resume.journalFile, { ...resume.header, archivalDay }), new Map());
  }

  /** The interrupted run's last cut inside this table, if it was the one in progress. */
  progressIn(schema: number, table: number): BatchLine | undefined {
    const p = this.progress;
    return p && p.schema === schema && p.table === table ? p : undefined;
  }

  /** A cut after a row: the LOB lines so far, with the rest of what the batch line will say. */
  mark(): LobMark {
    return this.journal.mark();
  }

  /**
   * A cut's bytes are durable (the package made the `.siard` or the held-back data durable): the
   * LOB files and folders made durable too, then the batch line appended and fsynced. (Failpoint
   * export-before-journal-line first: killed there, the work has no durable point for this cut.)
   */
  async batch(sink: OutputSink, mark: LobMark, line: Omit<BatchLine, 'lobs' | 'cut'>, cut: PackageCut): Promise<void> {
    await failpoint('export-before-journal-line');
    await sink.resumable!.checkpoint();
    this.journal.batch(mark, { ...line, cut });
  }

  /** The table in progress is written again from its first row: its cuts no longer count. */
  restartTable(schema: number, table: number): void {
    if (this.progress?.schema === schema && this.progress.table === table) this.progress = undefined;
    this.journal.restartTable(schema, table);
  }

  /** A LOB file closed: journaled with its LOB digest. */
  lob(file: WrittenFile, digestName: string): void {
    const { [digestName]: digest, ...also } = file.digests;
    this.journal.lob(Object.keys(also).length > 0 ? [file.relPath, file.size, digest!, also] : [file.relPath, file.size, digest!]);
  }

  /** The journal's line of a finished table, which is kept and not read again. */
  kept(schema: number, table: number): TableLine | undefined {
    return this.finished.get(`${schema}.${table}`);
  }

  /**
   * A table is written: its bytes made durable (the .siard fsynced, the folders made since the last
   * table fsynced; LOB files are fsynced as they close), then its line appended and fsynced
   * (failpoint export-before-journal-line first).
   */
  async endTable(pkg: SinglePackage, sink: OutputSink, layout: LobLayout, line: Omit<TableLine, 'lobs' | 'zip' | 'layout'>): Promise<void> {
    await failpoint('export-before-journal-line');
    const zip = await pkg.checkpoint();
    await sink.resumable!.checkpoint();
    this.journal.table({ ...line, zip, layout: layout.snapshot() });
    await pkg.tableJournaled();
  }

  close(): void {
    this.journal.close();
  }
}
