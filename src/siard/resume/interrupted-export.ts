/**
 * The interrupted exports an out-dir holds (docs/resume.md): hidden staging folders of processes
 * that no longer run. One with a journal of the same archive name is resumed when its key (source
 * and options) is the run's, and removed with one sentence otherwise or with `--restart`; one of
 * another archive name is another export's work and is left alone; one without a journal (a run
 * that was not resumable) is removed, as it always was. A living process's folder is never touched.
 */
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { processAlive } from '../../process-alive.js';
import { removeTree } from '../../remove-tree.js';
import type { DatabaseSource } from '../database-source.js';
import type { SiardExportOptions } from '../export-options.js';
import { DirectorySink, RESUME_FOLDER } from '../output-sink.js';
import { DEFAULTS } from '../writer.js';
import { readJournal, type JournalContents } from './export-journal.js';

export const JOURNAL_FILE = `${RESUME_FOLDER}/journal.jsonl`;

/**
 * SHA-256 of what shapes the bytes of tables and LOB files: the source (and how its tables were
 * chosen) and the writer's options with their defaults. Header texts (data owner, descriptions)
 * are written at the end and may differ between the runs.
 */
export function resumeKey(source: DatabaseSource, options: SiardExportOptions, sourceOptions: unknown = {}): string {
  const o = { ...DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) } as typeof DEFAULTS &
    SiardExportOptions;
  const shape = {
    source: source.description,
    sourceOptions,
    name: o.name,
    lobLayout: o.lobLayout,
    maxFiles: o.maxFiles,
    maxBytes: o.maxBytes,
    inlineMax: o.inlineMax,
    lobDigest: o.lobDigest,
    compressionLevel: o.compressionLevel ?? null,
    fingerprints: o.fingerprints !== false,
    archivalDate: o.archivalDate?.toISOString().slice(0, 10) ?? null,
  };
  return createHash('sha256').update(JSON.stringify(shape)).digest('hex');
}

export interface InterruptedExport {
  /** the staging folder, now named by this process */
  staging: string;
  contents: JournalContents;
}

/** What an out-dir's dead staging folders held for this run. */
export interface InterruptedWork {
  /** an interrupted export of this archive to continue */
  taken?: InterruptedExport;
  /**
   * The result an interrupted run of this very export (same name and key) kept when it was killed
   * while moving its whole archive into place: the move is now finished, and nothing is left to do.
   */
  completed?: unknown;
}

/** Whether a journal proves any work: a finished table, or a cut inside the table in progress. */
export function hasWork(contents: JournalContents | undefined): contents is JournalContents {
  return contents !== undefined && (contents.tables.length > 0 || contents.progress !== undefined);
}

/**
 * Looks at the dead staging folders of `outDir`: finishes the moves of runs killed while moving
 * their whole archive into place, removes what is not resumable (saying so in one sentence through
 * `say` when it was resumable work of this archive), and takes the one to resume by renaming it to
 * this process's name (one rename: of two runs, one takes it).
 */
export async function takeInterruptedExport(
  outDir: string,
  run: { name: string; key: string; restart: boolean; say: (sentence: string) => void; verb: string },
): Promise<InterruptedWork> {
  const work: InterruptedWork = {};
  for (const name of await fsp.readdir(outDir).catch(() => [] as string[])) {
    const owner = DirectorySink.stagingOwner(name);
    if (owner === undefined || processAlive(owner)) continue;
    const dir = path.join(outDir, name);
    // read before a finished commit removes it: whose archive the folder held
    const contents = await readJournal(path.join(dir, JOURNAL_FILE)).catch(() => undefined);
    const finished = await DirectorySink.finishCommit(outDir, dir);
    if (finished) {
      const same = contents?.header.name === run.name && contents.header.key === run.key;
      if (same && !run.restart && finished.result !== undefined && work.completed === undefined) {
        run.say(
          `The interrupted ${run.verb} of "${run.name}" into ${outDir} had written its whole archive and was killed while ` +
            'moving it into place; the move was finished, and nothing is left to do.',
        );
        work.completed = finished.result;
      } else run.say(`An ${run.verb} into ${outDir} was killed while its files were moved into place; the move was finished.`);
      continue;
    }
    if (contents && contents.header.name !== run.name) continue;
    const resumable = contents !== undefined && contents.header.key === run.key && !run.restart && !work.taken;
    if (resumable && hasWork(contents)) {
      const staging = path.join(outDir, DirectorySink.stagingNameOf(process.pid));
      if (
        await fsp.rename(dir, staging).then(
          () => true,
          () => false,
        )
      ) {
        work.taken = { staging, contents };
        continue;
      }
    }
    if (resumable && !hasWork(contents))
      run.say(
        `The interrupted ${run.verb} of "${run.name}" in ${outDir} had made none of its work durable yet (no finished table, ` +
          'no cut inside the table in progress), so nothing of it could be kept: it starts over.',
      );
    else if (contents && hasWork(contents) && !resumable)
      run.say(
        run.restart
          ? `The interrupted ${run.verb} of "${run.name}" in ${outDir} (${contents.tables.length} tables) was removed (--restart).`
          : `The interrupted ${run.verb} of "${run.name}" in ${outDir} was made from another source or with other options; ` +
              `its ${contents.tables.length} finished tables were removed.`,
      );
    await removeTree(dir);
  }
  return work;
}
