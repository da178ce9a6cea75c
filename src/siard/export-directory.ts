/**
 * Export into a folder on disk: `<out-dir>/<name>.siard` and its LOB folders, all or nothing.
 * Everything is written into a hidden staging folder inside `<out-dir>` and moved into place at
 * the end; on any failure the staging folder is removed and `<out-dir>` is as before.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { SiardOcflError, UsageError } from '../errors.js';
import type { DatabaseSource } from './database-source.js';
import { removeTree } from '../remove-tree.js';
import { DirectorySink, type OutputSink } from './output-sink.js';
import { parseSegmentName } from './segments/segment-names.js';
import { checkArchiveName, DEFAULTS, plannedTopLevelNames, writeSiard, type SiardExportSummary } from './writer.js';
import type { SiardExportOptions } from './export-options.js';
import { fingerprintsFileOf } from './fingerprint/fingerprint-file.js';
import { JOURNAL_FORMAT, readJournal } from './resume/export-journal.js';
import { ResumeRefused, type ExportResume } from './resume/export-resume.js';
import { hasWork, JOURNAL_FILE, resumeKey, takeInterruptedExport, type InterruptedExport } from './resume/interrupted-export.js';
import { keyWords } from '../sources/row-key.js';

export interface DirectoryExportHooks {
  /**
   * Wraps the directory sink, e.g. in a METS indexing sink; `finish` runs after the archive is
   * written and before anything is moved into place.
   */
  wrapSink?: (sink: OutputSink) => { sink: OutputSink; finish?: () => Promise<unknown> };
  /** further top-level names the export will create (refused when they exist), e.g. "mets.xml" */
  extraTopLevel?: string[];
  /**
   * Takes the finished files elsewhere instead of moving them into the out-dir (an ingest links
   * them into a staged OCFL version): `digests` are computed over every file as it is written,
   * and `take` is given the staging folder and the ledger of its files with those digests
   * (resume/file-ledger.ts). The staging folder is left as it is, with its journal: the taker
   * removes it once what it took is safe (an ingest: after the commit), and until then a run
   * killed resumes from it.
   */
  place?: {
    digests: string[];
    take: (staging: string, ledger: string | undefined) => Promise<void>;
    /** makes every write to the out-dir's filesystem durable at once (syncfs), instead of an fsync per file */
    syncAll?: () => Promise<void>;
  };
}

/** What an export into a folder reports: the writer's summary without the archive's metadata model. */
export type DirectoryExportSummary = Omit<SiardExportSummary, 'archive'>;

/** A resumable export (docs/resume.md): what is said and what starts it over. */
export interface DirectoryResume {
  /** throw the interrupted work away first */
  restart?: boolean;
  /** how the source chose its tables (part of what must be the same for a resume) */
  sourceOptions?: unknown;
  /** one sentence about interrupted work removed */
  say: (sentence: string) => void;
  /** what the sentences call the run: "export" (default) or "ingest" */
  verb?: string;
  onResume?: ExportResume['onResume'];
}

/** Why an export (or ingest) with these options is not resumable (it starts over), or undefined when it is. */
export function notResumable(options: Pick<SiardExportOptions, 'maxSiardBytes' | 'lobsegZip'> & { mets?: boolean }): string | undefined {
  if (options.mets) return '--mets';
  if (options.maxSiardBytes !== undefined) return '--max-siard-bytes';
  if (options.lobsegZip) return '--lobseg-zip';
  return undefined;
}

export async function exportToDirectory(
  source: DatabaseSource,
  outDir: string,
  options: SiardExportOptions,
  hooks: DirectoryExportHooks = {},
  resume?: DirectoryResume,
): Promise<DirectoryExportSummary> {
  checkArchiveName(options.name);
  const stat = await fsp.stat(outDir).catch(() => undefined);
  if (stat && !stat.isDirectory()) throw new UsageError(`The out-dir ${outDir} exists and is not a folder.`, 'OUTPUT_NOT_DIR');
  // --mets wraps the sink, a segmented or zipped package is not resumable yet: those start over
  const resumable = resume && !notResumable({ ...options, mets: !!hooks.wrapSink }) ? resume : undefined;
  const key = resumable ? resumeKey(source, options, resumable.sourceOptions) : '';
  let interrupted: InterruptedExport | undefined;
  if (stat) {
    if (resumable) {
      const work = await takeInterruptedExport(outDir, {
        name: options.name,
        key,
        restart: !!resumable.restart,
        say: resumable.say,
        verb: resumable.verb ?? 'export',
      });
      if (work.completed !== undefined) {
        // the same export, killed once its archive was whole: nothing is left to do, and its result is this run's
        if (work.taken) await removeTree(work.taken.staging);
        return work.completed as DirectoryExportSummary;
      }
      interrupted = work.taken;
    }
    await DirectorySink.removeStaleStaging(outDir, (dir) => isResumableWork(dir));
    await assertNoClash(outDir, options, hooks);
  }
  try {
    return await exportOnce(source, outDir, options, hooks, resumable && { ...resumable, key, interrupted });
  } catch (err) {
    if (!(err instanceof ResumeRefused) || !resumable) throw err;
    resumable.say(`${err.message} It starts over.`);
    return exportOnce(source, outDir, options, hooks, { ...resumable, key, interrupted: undefined });
  }
}

/** Refuses an out-dir that already holds an archive of this name. */
async function assertNoClash(outDir: string, options: SiardExportOptions, hooks: DirectoryExportHooks): Promise<void> {
  const { siard, lobPrefix } = plannedTopLevelNames(options.name, options.lobLayout ?? DEFAULTS.lobLayout);
  const exact = new Set([siard, lobPrefix, fingerprintsFileOf(siard), ...(hooks.extraTopLevel ?? [])]);
  const clash = (await fsp.readdir(outDir)).find(
    (n) => exact.has(n) || (lobPrefix.endsWith('_') && n.startsWith(lobPrefix)) || parseSegmentName(n)?.base === siard,
  );
  if (clash) {
    throw new UsageError(
      `${path.join(outDir, clash)} already exists: the out-dir already holds an archive named "${options.name}".`,
      'OUTPUT_EXISTS',
    );
  }
}

/**
 * One attempt: into a new staging folder, or continuing `interrupted`; a resumable run that is
 * interrupted (not one that found its input wrong) keeps its work.
 */
async function exportOnce(
  source: DatabaseSource,
  outDir: string,
  options: SiardExportOptions,
  hooks: DirectoryExportHooks,
  resume: (DirectoryResume & { key: string; interrupted: InterruptedExport | undefined }) | undefined,
): Promise<DirectoryExportSummary> {
  const existed = await fsp.stat(outDir).then(
    () => true,
    () => false,
  );
  const place = hooks.place;
  const listed = place && { alsoDigests: place.digests, ledger: true, ...(place.syncAll ? { syncAll: place.syncAll } : {}) };
  const sink = new DirectorySink(outDir, true, resume?.interrupted?.staging, listed);
  let exportResume: ExportResume | undefined;
  if (resume) {
    const journalFile = await sink.prepareResumable();
    exportResume = {
      journalFile,
      header: { format: JOURNAL_FORMAT, key: resume.key, name: options.name, source: source.description },
      ...(resume.interrupted ? { from: resume.interrupted.contents } : {}),
      ...(resume.onResume ? { onResume: resume.onResume } : {}),
    };
  }
  try {
    const wrapped = hooks.wrapSink?.(sink);
    const { archive: _archive, ...summary } = await writeSiard(source, wrapped?.sink ?? sink, {
      ...options,
      ...(exportResume ? { resume: exportResume } : {}),
    });
    await wrapped?.finish?.();
    if (place) {
      await place.take(sink.stagingDir, sink.closeLedger());
      await sink.suspend();
    } else await sink.commit(exportResume ? summary : undefined);
    return summary;
  } catch (err) {
    const kept = exportResume && !(err instanceof ResumeRefused) && !foundWrong(err) ? await keptWork(sink.stagingDir) : undefined;
    if (kept) {
      await sink.suspend();
      const stop = /[.!?]$/.test(err instanceof Error ? err.message : '') ? '' : '.';
      throw err instanceof SiardOcflError && err.code !== 'RESUME_CHANGED'
        ? Object.assign(err, { message: `${err.message}${stop} ${kept}: run the same ${resume?.verb ?? 'export'} again to resume it.` })
        : err;
    }
    await sink.abort().catch(() => undefined);
    if (!existed) await fsp.rmdir(outDir).catch(() => undefined); // we created it; leave nothing behind
    throw err;
  }
}

/**
 * Whether the export stopped because the input was examined and found wrong (exit 1: a LOB whose
 * digest is not the cell's, ...): the same run would stop there again, so nothing is kept, and the
 * out-dir is left as it was, as before resume existed. An interruption (a full disk, a lost
 * connection, an I/O error: exit 2) keeps the finished tables.
 */
function foundWrong(err: unknown): boolean {
  return err instanceof SiardOcflError && err.exitCode === 1;
}

/** Whether a staging folder holds work to keep: a finished table, or a cut inside the table in progress (hasWork). */
async function isResumableWork(staging: string): Promise<boolean> {
  return (await keptWork(staging)) !== undefined;
}

/**
 * What a staging folder keeps, said as the start of the error's last sentence; undefined when it
 * holds no work. A stop inside the first table keeps its cuts though no table is finished: said so.
 */
async function keptWork(staging: string): Promise<string | undefined> {
  const contents = await readJournal(path.join(staging, JOURNAL_FILE)).catch(() => undefined);
  if (!hasWork(contents)) return undefined;
  const at = contents.progress;
  if (!at) return 'The tables finished so far are kept';
  const finished = `${contents.tables.length} ${contents.tables.length === 1 ? 'table' : 'tables'} finished`;
  return `The work done so far is kept (${finished}, ${at.qualifiedName} up to its row of key ${keyWords(at.key)})`;
}
