/**
 * Acceptance point 4 of issue 2: a `put` child process is killed with SIGKILL at named points
 * of the commit (SIARD_OCFL_FAILPOINT) and at random moments. After each kill a reader sees
 * the object at exactly its old or its new version; no empty folder is under the root; the
 * next `put` succeeds; afterwards the workspace holds only the locks folder, the object root
 * only what OCFL allows, and @ocfl/ocfl-fs reads the object.
 */
import test, { type ExecutionContext } from 'ava';
import { createHash } from 'node:crypto';
import path from 'node:path';
import ocflFs from '@ocfl/ocfl-fs';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { initRoot } from '../../src/ocfl/root.js';
import {
  emptyDirs,
  type Files,
  put,
  readHead,
  startPut,
  unexpectedObjectEntries,
  workspaceEntries,
  writeInput,
} from '../helpers/crash/harness.js';
import { tempDir } from '../helpers/tmp.js';

const ID = 'crash:object/1';
const V1: Files = { 'a.txt': 'alpha\n', 'b/c.txt': 'charlie\n', 'b/d.txt': 'delta\n', 'e.txt': 'alpha\n' };
// changed, unchanged, removed (b/d.txt), added, added twice
const V2: Files = { 'a.txt': 'alpha two\n', 'b/c.txt': 'charlie\n', 'f.txt': 'foxtrot\n', 'g.txt': 'foxtrot\n' };

type Outcome = 'old' | 'new';

// [failpoint, what a reader must see right after the kill]
const NEW_OBJECT_POINTS: Array<[string, Outcome]> = [
  ['stage-file-written#1', 'old'],
  ['stage-file-written#4', 'old'],
  ['stage-file-placed#2', 'old'],
  ['after-version-inventory', 'old'],
  ['after-root-inventory-staged', 'old'],
  ['after-stage-fsync', 'old'],
  ['after-tree-built', 'old'],
  ['before-object-rename', 'old'],
  ['after-object-rename', 'new'],
  ['after-root-fsync', 'new'],
  ['before-stage-cleanup', 'new'],
  ['after-stage-cleanup', 'new'],
];

// The default commit of a new version: a shadow object root exchanged with the live one.
const EXISTING_OBJECT_POINTS: Array<[string, Outcome]> = [
  ['stage-file-written#1', 'old'],
  ['stage-file-written#3', 'old'],
  ['stage-file-placed#2', 'old'],
  ['after-version-inventory', 'old'],
  ['after-root-inventory-staged', 'old'],
  ['after-stage-fsync', 'old'],
  ['after-shadow-linked', 'old'],
  ['before-exchange', 'old'],
  ['after-exchange', 'new'],
  ['after-exchange-fsync', 'new'],
  ['after-old-tree-removed', 'new'],
  ['before-stage-cleanup', 'new'],
  ['after-stage-cleanup', 'new'],
];

// The fallback where no exchange is available (SIARD_OCFL_COMMIT=rename forces it).
const RENAME = { SIARD_OCFL_COMMIT: 'rename' };
const RENAME_COMMIT_POINTS: Array<[string, Outcome]> = [
  ['after-stage-fsync', 'old'],
  ['after-version-rename', 'old'],
  ['after-version-fsync', 'old'],
  ['after-inventory-rename', 'new'],
  ['after-sidecar-rename', 'new'],
  ['after-sidecar-fsync', 'new'],
  ['before-stage-cleanup', 'new'],
];

// A writer crashes, then the next writer is killed while repairing: [first point, recovery point, outcome]
const RECOVERY_POINTS: Array<[string, string, Outcome]> = [
  ['after-shadow-linked', 'recovery-after-stage-removed', 'old'],
  ['after-exchange', 'recovery-after-stage-removed', 'new'],
  ['after-version-rename', 'recovery-after-stage-removed', 'old'],
  ['after-version-rename', 'recovery-after-orphan-moved', 'old'],
  ['after-inventory-rename', 'recovery-before-sidecar-repair', 'new'],
  ['after-inventory-rename', 'recovery-after-sidecar-repair', 'new'],
];

test('the deterministic kill points cover at least 20 distinct places of the commit', (t) => {
  const names = new Set([...NEW_OBJECT_POINTS, ...EXISTING_OBJECT_POINTS, ...RENAME_COMMIT_POINTS].map(([p]) => p));
  for (const [, p] of RECOVERY_POINTS) names.add(p);
  t.true(names.size >= 20, `${names.size} distinct points`);
});

async function newRoot(): Promise<{ base: string; rootDir: string }> {
  const base = tempDir('siard-ocfl-crash-');
  const rootDir = path.join(base, 'root');
  await initRoot(rootDir, await loadLayout0003());
  return { base, rootDir };
}

/** The root holding v1 = V1, written through the library in this process. */
async function rootWithV1(): Promise<{ base: string; rootDir: string }> {
  const r = await newRoot();
  const { openRoot } = await import('../../src/ocfl/root.js');
  const staged = await (await openRoot(r.rootDir)).startVersion(ID, { fixityAlgorithms: ['md5'] });
  for (const [p, body] of Object.entries(V1)) await staged.addBuffer(p, body);
  await staged.commit({ message: 'v1' });
  return r;
}

/** A short, order-independent fingerprint of a file set (keeps assertion output small). */
function fingerprint(files: Files): string {
  const sorted = Object.keys(files)
    .sort()
    .map((p) => [p, files[p]]);
  return `${sorted.length} files, sha256 ${createHash('sha256').update(JSON.stringify(sorted)).digest('hex').slice(0, 16)}`;
}

/** A reader sees exactly the old or the new version (or no object when old means none). */
async function assertOldOrNew(
  t: ExecutionContext,
  rootDir: string,
  oldFiles: Files | undefined,
  newFiles: Files,
  expected?: Outcome,
): Promise<Outcome> {
  const seen = await readHead(rootDir, ID);
  let outcome: Outcome;
  if (seen === undefined) {
    t.is(oldFiles, undefined, 'the object vanished');
    outcome = 'old';
  } else if (oldFiles && fingerprint(seen.files) === fingerprint(oldFiles)) {
    outcome = 'old';
  } else {
    t.is(fingerprint(seen.files), fingerprint(newFiles), 'the reader sees neither the old nor the new version');
    outcome = 'new';
  }
  if (expected) t.is(outcome, expected);
  return outcome;
}

/** After a successful writer: head = files, nothing left over, valid for @ocfl/ocfl-fs. */
async function assertCleanAndAt(t: ExecutionContext, rootDir: string, files: Files): Promise<void> {
  const seen = await readHead(rootDir, ID);
  t.truthy(seen);
  t.is(fingerprint(seen!.files), fingerprint(files));
  t.deepEqual(emptyDirs(rootDir), [], 'no empty folder under the root');
  t.deepEqual(workspaceEntries(rootDir), ['locks'], 'the workspace holds only the locks folder');
  const { openRoot } = await import('../../src/ocfl/root.js');
  const root = await openRoot(rootDir);
  const objectDir = path.join(rootDir, root.objectPath(ID));
  t.deepEqual(unexpectedObjectEntries(objectDir, seen!.versions), []);
  const peer = ocflFs.object({ root: objectDir });
  await peer.load();
  const peerFiles: Files = {};
  for (const p of Object.keys(files)) peerFiles[p] = await peer.getFile(p).text();
  t.is(fingerprint(peerFiles), fingerprint(files), '@ocfl/ocfl-fs reads the same bytes');
}

for (const [point, expected] of NEW_OBJECT_POINTS) {
  test(`new object: killed at ${point}, a reader sees the ${expected} state, the next put succeeds`, async (t) => {
    const { base, rootDir } = await newRoot();
    const input = writeInput(path.join(base, 'in1'), V1);
    const killed = await put(rootDir, ID, input, { SIARD_OCFL_FAILPOINT: point });
    t.is(killed.signal, 'SIGKILL', `the failpoint was not reached: ${killed.stderr}`);
    t.deepEqual(emptyDirs(rootDir), []);
    await assertOldOrNew(t, rootDir, undefined, V1, expected);
    const next = await put(rootDir, ID, input);
    t.is(next.code, 0, next.stderr);
    await assertCleanAndAt(t, rootDir, V1);
  });
}

for (const [mode, points, env] of [
  ['exchange', EXISTING_OBJECT_POINTS, {}],
  ['renames', RENAME_COMMIT_POINTS, RENAME],
] as Array<[string, Array<[string, Outcome]>, Record<string, string>]>) {
  for (const [point, expected] of points) {
    test(
      `existing object (commit by ${mode}): ` + `killed at ${point}, a reader sees the ${expected} version, the next put succeeds`,
      async (t) => {
        const { base, rootDir } = await rootWithV1();
        const input = writeInput(path.join(base, 'in2'), V2);
        const killed = await put(rootDir, ID, input, { ...env, SIARD_OCFL_FAILPOINT: point });
        t.is(killed.signal, 'SIGKILL', `the failpoint was not reached: ${killed.stderr}`);
        t.deepEqual(emptyDirs(rootDir), []);
        await assertOldOrNew(t, rootDir, V1, V2, expected);
        const next = await put(rootDir, ID, input);
        t.is(next.code, 0, next.stderr);
        await assertCleanAndAt(t, rootDir, V2);
      },
    );
  }
}

for (const [first, recovery, expected] of RECOVERY_POINTS) {
  test(`killed at ${first}, then the repairing writer killed at ${recovery}: still the ${expected} version, then repaired`, async (t) => {
    const { base, rootDir } = await rootWithV1();
    const input = writeInput(path.join(base, 'in2'), V2);
    const env = RENAME_COMMIT_POINTS.some(([p]) => p === first) ? RENAME : {};
    t.is((await put(rootDir, ID, input, { ...env, SIARD_OCFL_FAILPOINT: first })).signal, 'SIGKILL');
    const second = await put(rootDir, ID, input, { SIARD_OCFL_FAILPOINT: recovery });
    t.is(second.signal, 'SIGKILL', `the recovery failpoint was not reached: ${second.stderr}`);
    t.deepEqual(emptyDirs(rootDir), []);
    await assertOldOrNew(t, rootDir, V1, V2, expected);
    const next = await put(rootDir, ID, input);
    t.is(next.code, 0, next.stderr);
    await assertCleanAndAt(t, rootDir, V2);
  });
}

/** Small deterministic PRNG (mulberry32) so a failing delay can be reproduced from the title. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function bigFiles(tag: string, count: number): Files {
  const files: Files = {};
  for (let i = 0; i < count; i++) files[`d${i % 7}/f${i}.dat`] = `${tag} ${i} `.repeat(1500);
  return files;
}

const SEED = 20261121;
test(`random-timing kills (seed ${SEED}): every kill leaves old or new, the next put succeeds`, async (t) => {
  const random = prng(SEED);
  const oldFiles = bigFiles('old', 120);
  const newFiles = { ...bigFiles('new', 120), 'd0/f0.dat': oldFiles['d0/f0.dat'] };
  const outcomes: string[] = [];
  // Calibrate on this machine: how long one whole put takes, so kills fall all over it.
  const scratch = await newRoot();
  const started = Date.now();
  t.is((await put(scratch.rootDir, ID, writeInput(path.join(scratch.base, 'new'), newFiles))).code, 0);
  const duration = Date.now() - started;
  for (let round = 0; round < 8; round++) {
    const existing = round % 2 === 1;
    const { base, rootDir } = await newRoot();
    if (existing) {
      const r = await put(rootDir, ID, writeInput(path.join(base, 'old'), oldFiles));
      t.is(r.code, 0, r.stderr);
    }
    const input = writeInput(path.join(base, 'new'), newFiles);
    const delay = Math.floor(duration * (0.3 + random() * 0.9));
    const child = startPut(rootDir, ID, input);
    const timer = setTimeout(() => child.kill(), delay);
    const run = await child.done;
    clearTimeout(timer);
    t.deepEqual(emptyDirs(rootDir), []);
    outcomes.push(
      `${existing ? 'v2' : 'v1'} after ${delay} ms: ${run.signal ? 'killed' : 'finished'},` +
        ` ${await assertOldOrNew(t, rootDir, existing ? oldFiles : undefined, newFiles)}`,
    );
    const next = await put(rootDir, ID, input);
    t.is(next.code, 0, next.stderr);
    await assertCleanAndAt(t, rootDir, newFiles);
  }
  t.log(outcomes.join('\n'));
});

for (const [point, expected] of [
  ['after-version-rename', 'old'],
  ['after-inventory-rename', 'new'],
] as Array<[string, Outcome]>) {
  test(
    `repairObject after a kill at ${point} (commit by renames) ` + `leaves a valid object at the ${expected} version, no new version`,
    async (t) => {
      const { base, rootDir } = await rootWithV1();
      const input = writeInput(path.join(base, 'in2'), V2);
      t.is((await put(rootDir, ID, input, { ...RENAME, SIARD_OCFL_FAILPOINT: point })).signal, 'SIGKILL');
      const { openRoot } = await import('../../src/ocfl/root.js');
      await (await openRoot(rootDir)).repairObject(ID);
      await assertCleanAndAt(t, rootDir, expected === 'old' ? V1 : V2);
      t.deepEqual((await readHead(rootDir, ID))!.versions, expected === 'old' ? ['v1'] : ['v1', 'v2']);
    },
  );
}
