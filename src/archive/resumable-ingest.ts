/**
 * A resumable ingest of a database (docs/resume.md, "Ingest"): the export is written, resumably,
 * into the object's resumable-work folder of the workspace (`<workspace>/resume-<sha256 of id>/`,
 * under the object's lock, which the staged version holds), with the manifest's and the fixity
 * digests computed beside the LOB digest as each file is written; once the export is whole, its
 * files go into the stage with those digests (no byte copied or read again): its LOB folders moved
 * in whole, the rest hard-linked (StagedVersion.adoptFolder), and the work stays until the caller
 * has committed the version: a run killed before the commit leaves the work whole for the same
 * ingest to resume, every finished table kept (the dead stage gives the moved folders back before
 * it is removed, ocfl/commit/adopted-trees.ts). Before the commit the work folder records
 * durably which version is being committed (`committing.json`): from the commit on, its files are
 * the object's content (the same inodes), so a run that finds that version committed removes the
 * work and never resumes into it (a resume cuts the `.siard` back and writes it again). Nothing is
 * in the storage root before the commit; the recovery of the object's next writer (and repair,
 * unless asked) leaves the work alone.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { failpoint } from '../failpoint.js';
import type { StagedVersion } from '../ocfl/commit/stage.js';
import type { InventoryVersionSummary } from '../ocfl/inventory/inventory.js';
import { processAlive } from '../process-alive.js';
import { removeTree, removeTreeHere } from '../remove-tree.js';
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

/** The file in the work folder written, durably, before the version is committed, and removed last. */
const COMMITTING_FILE = 'committing.json';

/**
 * What the committing file records (with the ingest's resume key): the version about to be
 * committed, what tells it apart from another writer's version of the same name (its created, to
 * the second, and message), and the ingest's result (`R`), which a run finding it committed gives.
 */
export interface IngestCommit<R> {
  version: string;
  created: string;
  message?: string;
  result: R;
}

/** A whole export in the work folder, its files linked into the stage. */
export interface ResumableExport<R> {
  summary: DirectoryExportSummary;
  stats: StagedSinkStats;
  /** Records durably that the stage is about to be committed as `commit.version` (call right before the commit). */
  committing: (commit: IngestCommit<R>) => Promise<void>;
  /** Removes the work (once the version is committed, or when none was made). */
  remove: () => Promise<void>;
}

/**
 * Exports `source` into `staged` through the resumable work folder `work.dir`; or, when the work
 * there is that of this very ingest, killed once its version was committed, removes it and gives
 * that run's result (`committed`): nothing is exported again.
 */
export async function exportResumably<R>(
  source: DatabaseSource,
  staged: StagedVersion,
  work: { dir: string; inWorkspace: string; syncAll?: () => Promise<void> },
  options: SiardExportOptions,
  resume: IngestResume,
): Promise<ResumableExport<R> | { committed: R }> {
  const workDir = work.dir;
  const key = resumeKey(source, options, resume.sourceOptions);
  const earlier = await committedEarlier<R>(workDir, staged, resume.say);
  if (earlier && earlier.key === key && !resume.restart) return { committed: earlier.result };
  await clearOtherObjects(workDir, key, staged.id, resume.say);
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
        take: (staging, ledger) => linkIntoStage(staged, `${work.inWorkspace}/${path.basename(staging)}`, ledger, stats),
        ...(work.syncAll ? { syncAll: work.syncAll } : {}),
      },
    },
    { ...resume, verb: 'ingest' },
  );
  return {
    summary,
    stats,
    committing: (commit) => writeDurably(workDir, COMMITTING_FILE, JSON.stringify({ key, ...commit })),
    remove: () => removeWork(workDir),
  };
}

/**
 * The committing file of the work folder, when the version it names is in the object as it
 * recorded it (the work was committed, and is removed here, saying so); a version not committed
 * (killed before the commit, or no version made) leaves the work to resume, its record removed.
 */
async function committedEarlier<R>(
  workDir: string,
  staged: StagedVersion,
  say: (sentence: string) => void,
): Promise<(IngestCommit<R> & { key: string }) | undefined> {
  const file = path.join(workDir, COMMITTING_FILE);
  const record = await commitRecord<R>(workDir);
  if (!record || !isCommitted(record, staged.baseVersion(record.version))) {
    await fsp.rm(file, { force: true });
    return undefined;
  }
  say(
    `The interrupted ingest into object "${staged.id}" had been committed as ${record.version} when it stopped; ` + 'its work was removed.',
  );
  await removeWork(workDir);
  return record;
}

/** The committing record of a work folder; undefined when there is none, or it is torn (killed while writing it: before the commit). */
async function commitRecord<R>(workDir: string): Promise<(IngestCommit<R> & { key: string }) | undefined> {
  const text = await fsp.readFile(path.join(workDir, COMMITTING_FILE), 'utf8').catch(() => undefined);
  try {
    return text === undefined ? undefined : (JSON.parse(text) as IngestCommit<R> & { key: string });
  } catch {
    return undefined;
  }
}

/** Whether the object's version `found` is the one the record was written for (same created, to the second, and message). */
function isCommitted(record: IngestCommit<unknown>, found: InventoryVersionSummary | undefined): boolean {
  return found !== undefined && found.created === record.created && found.message === record.message;
}

/**
 * The version the resumable work in `workDir` had been committed as when its ingest stopped (its
 * removal interrupted), or undefined: repair's words for it (the next ingest of the object removes
 * it, never resumes into it).
 */
export async function committedWorkVersion(
  workDir: string,
  versions: () => Promise<InventoryVersionSummary[]>,
): Promise<string | undefined> {
  const record = await commitRecord(workDir);
  if (!record) return undefined;
  const found = (await versions().catch(() => [])).find((v) => v.version === record.version);
  return isCommitted(record, found) ? record.version : undefined;
}

/** Writes a file of `dir` and makes it and its name durable before returning. */
async function writeDurably(dir: string, name: string, text: string): Promise<void> {
  const handle = await fsp.open(path.join(dir, name), 'w');
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await syncFolder(dir);
}

async function syncFolder(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Removes the work folder: its export first, made durable (so that no power loss brings back
 * files the object now holds without the record that says so), then the committing record.
 */
async function removeWork(workDir: string): Promise<void> {
  const names = await fsp.readdir(workDir).catch(() => [] as string[]);
  // on this thread: once committed, the files are links to the object's content (remove-tree.ts)
  for (const name of names) if (name !== COMMITTING_FILE) await removeTreeHere(path.join(workDir, name));
  if (names.includes(COMMITTING_FILE)) {
    await syncFolder(workDir);
    await fsp.rm(path.join(workDir, COMMITTING_FILE), { force: true });
  }
  await fsp.rmdir(workDir).catch(() => undefined);
}

/**
 * The finished export taken into the stage with the digests of its ledger: its LOB folders moved
 * in whole (one rename each; given back if the stage is dropped before the commit), the rest (the
 * `.siard`, any folder holding content the object has already) hard-linked, or only listed when
 * the object holds it (StagedVersion.adoptFolder). Linking every file and removing every link
 * after the commit cost both an uninterrupted and a resumed ingest of 100,000 small LOB files
 * about 7 s of CPU (session 52). `inWorkspace`: the staging folder as a path of the workspace.
 */
async function linkIntoStage(
  staged: StagedVersion,
  inWorkspace: string,
  ledger: string | undefined,
  stats: StagedSinkStats,
): Promise<void> {
  if (ledger === undefined) return;
  await staged.adoptFolder(
    inWorkspace,
    () => ledgerFiles(ledger),
    async (added) => {
      await failpoint('ingest-file-staged');
      stats.files++;
      stats.bytes += added.size;
      if (added.stored) {
        stats.stored++;
        stats.storedBytes += added.size;
      }
    },
  );
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
