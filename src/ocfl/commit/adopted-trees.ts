/**
 * Folders of the workspace a staged version took whole (StagedVersion.adoptFolder): each moved
 * into the stage by one rename instead of a hard link per file, so that nothing per file is left
 * to link, nor to remove once the version is committed. Their owner (a resumable ingest's work)
 * keeps no copy of them, so a stage dropped before its commit (a writer killed, aborted or failed)
 * gives them back first: the stage's `adopted.json`, written durably before the first move, says
 * where each came from, and every removal of a stage (recoverObject, abort, a failed commit,
 * repair) calls giveBackAdopted first.
 *
 * Where an adopted folder may be while its version is published (commit.ts): `S/object/<to>`
 * until the publication starts; `S/tree/<object path>/<to>` (new object) between the move into
 * the tree and the one rename into the root; `S/shadow/<to>` (by exchange) between the move of
 * the version into the shadow and the exchange. Once in the root it is the object's and stays.
 * The one place not looked in: by renames (no exchange), a version folder moved into the root
 * whose inventory switch did not follow is rolled back by the recovery (its content removed).
 */
import type { Storage } from '../storage/storage.js';

const RECORD = 'adopted.json';

/** A folder moved into the stage: `from` a path of the workspace, `to` its path below the object root (`vN/content/...`). */
export interface AdoptedTree {
  from: string;
  to: string;
}

interface AdoptedRecord {
  objectPath: string;
  trees: AdoptedTree[];
}

/** Writes the stage's record of the folders about to be adopted, durably (file and folder), before any of them moves. */
export async function recordAdopted(workspace: Storage, stage: string, objectPath: string, trees: AdoptedTree[]): Promise<void> {
  if (trees.length === 0) return;
  const record: AdoptedRecord = { objectPath, trees };
  const file = await workspace.openWrite(`${stage}/${RECORD}`, { durable: true });
  try {
    await file.write(Buffer.from(JSON.stringify(record)));
    await file.close();
  } catch (err) {
    await file.abort();
    throw err;
  }
  await workspace.fsyncDir(stage);
}

/**
 * Moves every adopted folder the stage still holds back where it came from (when that place is
 * free and its folder still there), before the stage is removed; how many. Idempotent: a kill
 * while giving back leaves the rest for the next call. No record, or a torn one (killed while it
 * was written: nothing had moved yet), gives back nothing.
 */
export async function giveBackAdopted(workspace: Storage, stage: string): Promise<number> {
  const record = await workspace
    .readFile(`${stage}/${RECORD}`)
    .then((bytes) => JSON.parse(bytes.toString('utf8')) as AdoptedRecord)
    .catch(() => undefined);
  if (!record || !Array.isArray(record.trees)) return 0;
  let given = 0;
  const parents = new Set<string>();
  for (const { from, to } of record.trees) {
    if (!safe(from) || !safe(to) || !safe(record.objectPath)) continue;
    const places = [`${stage}/object/${to}`, `${stage}/tree/${record.objectPath}/${to}`, `${stage}/shadow/${to}`];
    let found: string | undefined;
    for (const place of places) if (!found && (await workspace.stat(place))) found = place;
    const parent = from.slice(0, Math.max(0, from.lastIndexOf('/')));
    if (!found || (await workspace.stat(from)) || !(await workspace.stat(parent))) continue;
    await workspace.rename(found, from);
    parents.add(parent);
    given++;
  }
  // durable before the stage (and what is left in it) is removed
  for (const parent of parents) await workspace.fsyncDir(parent);
  return given;
}

/** A relative '/'-separated path that stays below its base (the record is the stage's own, but is read back from disk). */
function safe(p: unknown): p is string {
  return typeof p === 'string' && p.length > 0 && !p.startsWith('/') && !p.split('/').some((s) => s === '' || s === '.' || s === '..');
}
