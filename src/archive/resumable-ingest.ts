/**
 * A resumable ingest of a database (docs/resume.md, "Ingest"): the export is written, resumably,
 * into the object's resumable-work folder of the workspace (`<workspace>/resume-<sha256 of id>/`,
 * under the object's lock, which the staged version holds), with the manifest's and the fixity
 * digests computed beside the LOB digest as each file is written; once the export is whole, each
 * file is renamed into the stage with those digests (no byte copied or read again) and the caller
 * commits the version. Nothing is in the storage root before the commit. A run killed or
 * interrupted before that leaves the folder for the same ingest to resume; the recovery of the
 * object's next writer (and repair, unless asked) leaves it alone.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { failpoint } from '../failpoint.js';
import type { StagedVersion } from '../ocfl/commit/stage.js';
import { processAlive } from '../process-alive.js';
import { removeTree } from '../remove-tree.js';
import type { DatabaseSource } from '../siard/database-source.js';
import { exportToDirectory, type DirectoryExportSummary, type DirectoryResume } from '../siard/export-directory.js';
import type { SiardExportOptions } from '../siard/export-options.js';
import { DirectorySink } from '../siard/output-sink.js';
import { readJournal } from '../siard/resume/export-journal.js';
import { ledgerFiles } from '../siard/resume/file-ledger.js';
import { JOURNAL_FILE, resumeKey } from '../siard/resume/interrupted-export.js';
import type { StagedSinkStats } from './ocfl-sink.js';

/** What a resumable ingest says and what starts it over (the CLI's sentences). */
export type IngestResume = Omit<DirectoryResume, 'verb'>;

/** The file in the work folder that names the object it is for (another id's work is told apart by it). */
const OBJECT_ID_FILE = 'object-id';

/** Exports `source` into `staged` through the resumable work folder `workDir`. */
export async function exportResumably(
  source: DatabaseSource,
  staged: StagedVersion,
  work: { dir: string; inWorkspace: string; syncAll?: () => Promise<void> },
  options: SiardExportOptions,
  resume: IngestResume,
): Promise<{ summary: DirectoryExportSummary; stats: StagedSinkStats }> {
  const workDir = work.dir;
  await clearOtherObjects(workDir, resumeKey(source, options, resume.sourceOptions), staged.id, resume.say);
  await fsp.mkdir(workDir, { recursive: true });
  await fsp.writeFile(path.join(workDir, OBJECT_ID_FILE), staged.id);
  const stats: StagedSinkStats = { files: 0, stored: 0, bytes: 0, storedBytes: 0 };
  const summary = await exportToDirectory(
    source,
    workDir,
    options,
    {
      place: {
        digests: [staged.digestAlgorithm, ...staged.fixityAlgorithms],
        take: (staging, ledger) => moveIntoStage(staged, `${work.inWorkspace}/${path.basename(staging)}`, staging, ledger, stats),
        ...(work.syncAll ? { syncAll: work.syncAll } : {}),
      },
    },
    { ...resume, verb: 'ingest' },
  );
  await fsp.rm(path.join(workDir, OBJECT_ID_FILE), { force: true });
  await fsp.rmdir(workDir).catch(() => undefined);
  return { summary, stats };
}

/**
 * Every file of the finished export renamed into the stage (or, when the object holds it already,
 * dropped). `inWorkspace`: the staging folder as a path of the workspace, whose files the staged
 * version renames once, straight to their place (by way of its incoming folder, two renames per file
 * cost a resumed ingest of 16,000 small LOB files a tenth of its CPU).
 */
async function moveIntoStage(
  staged: StagedVersion,
  inWorkspace: string,
  staging: string,
  ledger: string | undefined,
  stats: StagedSinkStats,
): Promise<void> {
  if (ledger === undefined) return;
  for await (const file of ledgerFiles(ledger)) {
    let added = await staged.addIfStored(file.relPath, file.digests, file.size);
    if (!added) {
      added = staged.storesContentRemotely
        ? await staged.addFile(file.relPath, path.join(staging, ...file.relPath.split('/')), file.size)
        : await staged.addCopied(file.relPath, `${inWorkspace}/${file.relPath}`, file.digests, file.size);
    }
    await failpoint('ingest-file-staged');
    stats.files++;
    stats.bytes += added.size;
    if (added.stored) {
      stats.stored++;
      stats.storedBytes += added.size;
    }
  }
}

/**
 * The same source and options interrupted while ingested into another object: not a resume (the
 * id is part of what must be the same), so that work is removed, with one sentence. Work of a
 * living writer, and work of another source or options (another ingest's), is left alone.
 */
async function clearOtherObjects(workDir: string, key: string, id: string, say: (sentence: string) => void): Promise<void> {
  const workspace = path.dirname(workDir);
  for (const name of await fsp.readdir(workspace).catch(() => [] as string[])) {
    const other = path.join(workspace, name);
    if (other === workDir || !name.startsWith('resume-')) continue;
    const stagings = (await fsp.readdir(other).catch(() => [] as string[])).filter((n) => DirectorySink.stagingOwner(n) !== undefined);
    if (stagings.some((n) => processAlive(DirectorySink.stagingOwner(n)!))) continue;
    for (const staging of stagings) {
      const contents = await readJournal(path.join(other, staging, JOURNAL_FILE)).catch(() => undefined);
      if (contents?.header.key !== key) continue;
      const otherId = await fsp.readFile(path.join(other, OBJECT_ID_FILE), 'utf8').catch(() => 'another object');
      say(
        `The interrupted ingest of ${contents.header.source} into object "${otherId}" was removed ` +
          `(this ingest of it goes into "${id}").`,
      );
      await removeTree(other);
      break;
    }
  }
}
