/**
 * Issue 7, kill tests: `put`, `ingest` and `relocate` are SIGKILLed at random moments while they
 * stream LOBs (FAULT_RUNS runs each, default 50; FAULT_SEED replays a series). A quarter of the
 * kills fall anywhere in an uninterrupted run's measured duration (start-up, lock, recovery,
 * staging, commit); the rest within the measured time a run spends after its stage folder has
 * appeared in the workspace, i.e. while LOB bytes stream into the version being built and while
 * it is committed. Timings are re-measured on every uninterrupted rerun (the load changes).
 * After every kill:
 *   - the storage root validates (the validator of `siard-ocfl validate`; structure after each
 *     kill, with fixity at the end of the series), with no exception: the commit exchanges the
 *     whole object root in one step (src/ocfl/commit/commit.ts), so there is no in-between state;
 *   - the object is at its previous version or at the next one (put: with exactly the state of
 *     the old or the new folder);
 *   - the same command, run again, succeeds and makes exactly one more version;
 *   - afterwards the workspace holds no stage, no trash and no lock.
 * At the end of each series `siard-ocfl validate` and `siard-ocfl audit` run on the root.
 */
import test, { type ExecutionContext } from 'ava';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { validateStorageRoot } from '../../src/ocfl/validate/index.js';
import { openRoot } from '../../src/ocfl/root.js';
import { tempDir } from '../helpers/tmp.js';
import { mountTmpfs, tmpfsTest } from '../helpers/tmpfs.js';
import {
  faultRuns,
  faultSeed,
  makeDatabase,
  objectState,
  prng,
  runWatched,
  runCliToEnd,
  sameState,
  workspaceLeftovers,
  type ObjectState,
  type WatchedResult,
} from './harness.js';

const RUNS = faultRuns();
const SEED = faultSeed();
console.log(`[faults] kill tests: FAULT_SEED=${SEED} FAULT_RUNS=${RUNS}`);

interface Series {
  id: string;
  /** brings the object to v1 */
  setup(rootDir: string): Promise<void>;
  /** the command of run i (the rerun after a kill is the same command) */
  args(rootDir: string, i: number): string[];
  /** the head state a completed run i must leave, when it is known in advance */
  newState?(i: number, before: ObjectState): Map<string, string> | undefined;
  /**
   * The rerun's sentence when the killed run had committed its version already (a resumable
   * ingest, docs/resume.md): that rerun finishes the killed run and makes no version of its own.
   * It must be said exactly when the kill left the new version, and then no version is added.
   */
  committedByKilledRun?: RegExp;
}

interface Tally {
  runs: number;
  killed: number;
  /** killed while streaming into the stage */
  killedStaging: number;
  finishedFirst: number;
  oldVersion: number;
  newVersion: number;
  leftoversAfterKill: number;
  /** reruns that found the killed run's version committed and finished that run */
  finishedKilledRun: number;
  failures: string[];
}

/** `runs` (default FAULT_RUNS) kills; `rootDir` (default a new folder) must not exist or be empty. */
async function runSeries(
  t: ExecutionContext,
  name: string,
  series: Series,
  seedOffset: number,
  options: { runs?: number; rootDir?: string } = {},
): Promise<Tally> {
  const runs = options.runs ?? RUNS;
  const rootDir = options.rootDir ?? path.join(tempDir(`siard-ocfl-kill-${name}-`), 'root');
  const init = await runCliToEnd(['init', rootDir]);
  t.is(init.code, 0, init.stderr);
  await series.setup(rootDir);
  const rand = prng(SEED + seedOffset);

  // Timings of uninterrupted runs, measured here and refreshed by every uninterrupted rerun
  // (the machine's load changes): whole duration, and time spent after the stage appeared.
  const ws = await (await openRoot(rootDir)).workspaceDir();
  const durations: number[] = [];
  const staging: number[] = [];
  const learn = (r: WatchedResult) => {
    durations.push(r.ms);
    if (r.stageAtMs !== undefined) staging.push(Math.max(1, r.ms - r.stageAtMs));
    if (durations.length > 7) durations.shift();
    if (staging.length > 7) staging.shift();
  };
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  for (let i = 0; i < 3; i++) {
    const r = await runWatched(series.args(rootDir, 0), ws);
    t.is(r.code, 0, r.stderr);
    learn(r);
  }
  t.log(`${name}: uninterrupted run ${Math.round(med(durations))} ms, of which ${Math.round(med(staging))} ms after its stage appeared`);

  const tally: Tally = {
    runs: 0,
    killed: 0,
    killedStaging: 0,
    finishedFirst: 0,
    oldVersion: 0,
    newVersion: 0,
    leftoversAfterKill: 0,
    finishedKilledRun: 0,
    failures: [],
  };
  for (let i = 1; i <= runs; i++) {
    const before = (await objectState(rootDir, series.id))!;
    // A quarter of the kills anywhere in the run (start-up, lock, recovery, staging, commit);
    // the rest while content streams into the stage.
    const anywhere = rand() < 0.25;
    const delay = rand() * (anywhere ? med(durations) : med(staging));
    const when = anywhere ? `${Math.round(delay)} ms after the start` : `${Math.round(delay)} ms after the stage appeared`;
    const fail = (what: string) => tally.failures.push(`${name} run ${i} (FAULT_SEED=${SEED}, killed ${when}): ${what}`);
    const args = series.args(rootDir, i);
    const r = await runWatched(args, ws, anywhere ? { afterStartMs: delay } : { afterStageMs: delay });
    tally.runs++;
    if (r.killed) {
      tally.killed++;
      if (!anywhere) tally.killedStaging++;
    } else {
      tally.finishedFirst++;
      if (r.code !== 0) fail(`finished before the kill with exit ${r.code}: ${r.stderr.trim()}`);
    }
    let after: ObjectState | undefined;
    try {
      after = await objectState(rootDir, series.id);
    } catch (err) {
      fail(`object unreadable after the kill: ${(err as Error).message}`);
    }
    // Structure after every kill (digests of content the kill could not touch would be re-read
    // each time, growing with the series); full fixity by `siard-ocfl validate` at the end.
    const validation = await validateStorageRoot(rootDir, { fixity: false });
    if (!validation.valid)
      fail(`root invalid after the kill: ${validation.errors.map((e) => `${e.code} ${e.path}: ${e.message}`).join('; ')}`);
    if (after) {
      const expectedNew = series.newState?.(i, before);
      if (after.versions === before.versions) {
        tally.oldVersion++;
        if (!sameState(after.state, before.state)) fail('same version number but a different state');
      } else if (after.versions === before.versions + 1) {
        tally.newVersion++;
        if (expectedNew && !sameState(after.state, expectedNew)) fail(`${after.head} does not hold the new state`);
      } else fail(`went from ${before.versions} to ${after.versions} versions`);
    }
    if (workspaceLeftovers(rootDir, ws).length > 0) tally.leftoversAfterKill++;
    // The same command again, uninterrupted: it must succeed at once. (A writer killed between
    // creating its lock and writing the lock's owner file is recognised by its intent file.)
    const again = await runWatched(args, ws);
    if (again.code === 0) learn(again);
    const revalidated = await validateStorageRoot(rootDir, { fixity: false });
    if (!revalidated.valid) fail(`root invalid after the next run: ${revalidated.errors.map((e) => e.code).join(', ')}`);
    if (again.code !== 0) fail(`the next run failed with exit ${again.code}: ${again.stderr.trim()}`);
    const final = await objectState(rootDir, series.id);
    const finishedKilled = series.committedByKilledRun?.test(again.stderr) ?? false;
    if (finishedKilled && after?.versions !== before.versions + 1)
      fail(`the next run said the killed run had committed, but the kill left ${after?.versions} versions (before: ${before.versions})`);
    if (finishedKilled) tally.finishedKilledRun++;
    const expected = (after?.versions ?? 0) + (finishedKilled ? 0 : 1);
    if (after && final && final.versions !== expected) fail(`the next run left ${final.versions} versions, expected ${expected}`);
    const left = workspaceLeftovers(rootDir, ws);
    if (left.length > 0) fail(`workspace leftovers after the next run: ${left.join(', ')}`);
    if (tally.failures.length >= 5) break;
  }

  // The CLI's own verdicts on the root after the whole series.
  const validate = await runCliToEnd(['validate', rootDir]);
  if (validate.code !== 0) tally.failures.push(`${name}: siard-ocfl validate exit ${validate.code}: ${validate.stdout.slice(0, 500)}`);
  const audit = await runCliToEnd(['audit', '--root', rootDir, '--no-xsd']);
  if (audit.code !== 0) tally.failures.push(`${name}: siard-ocfl audit exit ${audit.code}: ${audit.stdout.slice(0, 500)}`);
  t.log(
    `${name}: ${tally.runs} runs, ${tally.killed} killed (${tally.killedStaging} while streaming into the ` +
      `stage; ${tally.finishedFirst} finished first); after the kill ${tally.oldVersion} at the old ` +
      `version, ${tally.newVersion} at the new; ${tally.leftoversAfterKill} kills left workspace debris that the next run removed` +
      (series.committedByKilledRun ? `; ${tally.finishedKilledRun} reruns finished a killed run that had committed` : ''),
  );
  return tally;
}

function report(t: ExecutionContext, tally: Tally, runs = RUNS): void {
  t.deepEqual(tally.failures, [], `replay with FAULT_SEED=${SEED} FAULT_RUNS=${RUNS}`);
  t.true(tally.runs >= Math.min(runs, 50) || tally.failures.length > 0);
  // A series where nothing was ever killed mid-way would prove nothing.
  t.true(tally.killed >= Math.ceil(tally.runs / 4), `only ${tally.killed} of ${tally.runs} runs were killed`);
}

/** Two folders of LOB-sized files that differ in a few files: each put is a real new version. */
function putSeries(t: ExecutionContext, id: string, seedOffset: number): Series {
  const base = tempDir('siard-ocfl-kill-put-input-');
  const folders = ['a', 'b'].map((v, n) => {
    const dir = path.join(base, v);
    const rand = prng(SEED + seedOffset + n);
    for (let i = 0; i < 48; i++) {
      mkdirSync(path.join(dir, `lobs_${i % 3}`), { recursive: true });
      const size = 96 * 1024;
      const buf = Buffer.alloc(size);
      for (let k = 0; k < size; k += 4) buf.writeUInt32LE(Math.floor(rand() * 2 ** 32) >>> 0, k);
      // Two thirds of the files are the same in both folders (deduplicated), the rest differ.
      const content = i % 3 === 0 ? buf : Buffer.from(`shared ${i}\n`.repeat(8000));
      writeFileSync(path.join(dir, `lobs_${i % 3}`, `record${i}.bin`), content);
    }
    return dir;
  });
  const stateOf = new Map<string, Map<string, string>>();
  return {
    id,
    async setup(rootDir) {
      for (const f of folders) {
        const r = await runCliToEnd(['put', f, '--root', rootDir, '--id', id, '--fixity', 'sha256']);
        t.is(r.code, 0, r.stderr);
        stateOf.set(f, (await objectState(rootDir, id))!.state);
      }
    },
    args: (rootDir, i) => ['put', folders[i % 2]!, '--root', rootDir, '--id', id, '--fixity', 'sha256'],
    newState: (i) => stateOf.get(folders[i % 2]!),
  };
}

test.serial(`put: ${RUNS} SIGKILLs while LOB files stream into the stage`, async (t) => {
  const tally = await runSeries(t, 'put', putSeries(t, 'urn:x-fault:put', 100), 1);
  report(t, tally);
});

// A root at a mount point: its workspace is inside the root (extensions/siard-ocfl-workspace/work),
// the only place on its filesystem; the same promises hold after every kill.
const MOUNT_RUNS = Math.min(RUNS, 10);
tmpfsTest(`put on a root at a tmpfs mount point: ${MOUNT_RUNS} SIGKILLs`, async (t) => {
  const mnt = mountTmpfs('siard-ocfl-kill-tmpfs-', '128m');
  if (!mnt) return t.fail('mounting a tmpfs was refused (CI is set, so this fails instead of skipping)');
  const tally = await runSeries(t, 'put-mount-point', putSeries(t, 'urn:x-fault:put-mount', 400), 4, { runs: MOUNT_RUNS, rootDir: mnt });
  t.is(await (await openRoot(mnt)).workspaceDir(), path.join(mnt, 'extensions', 'siard-ocfl-workspace', 'work'));
  report(t, tally, MOUNT_RUNS);
});

test.serial(`ingest: ${RUNS} SIGKILLs while a database's LOBs are exported into the stage`, async (t) => {
  const base = tempDir('siard-ocfl-kill-ingest-input-');
  const db = makeDatabase(path.join(base, 'lobs.sqlite'), SEED + 200);
  const id = 'urn:x-fault:ingest';
  const tally = await runSeries(
    t,
    'ingest',
    {
      id,
      async setup(rootDir) {
        const r = await runCliToEnd(['ingest', `sqlite:${db}`, '--root', rootDir, '--id', id, '--allow-unchanged']);
        t.is(r.code, 0, r.stderr);
      },
      args: (rootDir) => ['ingest', `sqlite:${db}`, '--root', rootDir, '--id', id, '--allow-unchanged'],
      committedByKilledRun:
        /^note: The interrupted ingest into object ".*" had been committed as v\d+ when it stopped; its work was removed\.$/m,
    },
    2,
  );
  report(t, tally);
});

test.serial(`relocate: ${RUNS} SIGKILLs while the .siard is copied with its new lobFolder`, async (t) => {
  const base = tempDir('siard-ocfl-kill-relocate-input-');
  const db = makeDatabase(path.join(base, 'lobs.sqlite'), SEED + 300, { inline: 1500 });
  const id = 'urn:x-fault:relocate';
  const tally = await runSeries(
    t,
    'relocate',
    {
      id,
      async setup(rootDir) {
        const r = await runCliToEnd(['ingest', `sqlite:${db}`, '--root', rootDir, '--id', id, '--allow-unchanged']);
        t.is(r.code, 0, r.stderr);
      },
      args: (rootDir, i) => ['relocate', '--root', rootDir, '--id', id, '--lob-folder', i % 2 === 0 ? '../' : `file:///Archives/run-${i}/`],
    },
    3,
  );
  report(t, tally);
});
