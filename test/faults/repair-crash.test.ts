/**
 * `siard-ocfl repair` and the validator's interrupted-commit hint, at the commit's kill points.
 * A `put` child is killed with SIGKILL (failpoints of src/ocfl/commit/commit.ts); the validator must keep
 * the spec's code (the object is invalid OCFL until repaired) and say it looks like an interrupted
 * commit that `siard-ocfl repair` settles; `repair` (the built CLI) must then leave a root that
 * validates, with the object at the version the core's crash test expects, and a clean workspace.
 * Real damage with the same codes must not get the hint.
 */
import test, { type ExecutionContext } from 'ava';
import { copyFileSync, cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import type { RootRepairReport } from '../../src/ocfl/commit/repair.js';
import { initRoot, openRoot } from '../../src/ocfl/root.js';
import { validateStorageRoot, type ValidationResult } from '../../src/ocfl/validate/index.js';
import { type Files, put, readHead, startPut, workspaceEntries, writeInput } from '../helpers/crash/harness.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const ID = 'urn:crash:repair/1';
const V1: Files = { 'a.txt': 'alpha\n', 'b/c.txt': 'charlie\n', 'b/d.txt': 'delta\n' };
const V2: Files = { 'a.txt': 'alpha two\n', 'b/c.txt': 'charlie\n', 'f.txt': 'foxtrot\n' };
// The interrupted states exist only in the fallback commit by renames (the default exchange has none).
const RENAME = { SIARD_OCFL_COMMIT: 'rename' };
const HINT = /looks like an interrupted commit.*`siard-ocfl repair` \(or the next write of this object\) (rolls it back|completes it)/;

const describe = (r: ValidationResult) => [...r.errors, ...r.warnings].map((f) => `${f.code} ${f.path}: ${f.message}`).join('\n');

async function rootWithV1(): Promise<{ base: string; rootDir: string; objectDir: string }> {
  const base = tempDir('siard-ocfl-repair-');
  const rootDir = path.join(base, 'root');
  await initRoot(rootDir, await loadLayout0003());
  const root = await openRoot(rootDir);
  const staged = await root.startVersion(ID);
  for (const [p, body] of Object.entries(V1)) await staged.addBuffer(p, body);
  await staged.commit({ message: 'v1', user: { name: 'T', address: 'mailto:t@example.org' } });
  return { base, rootDir, objectDir: path.join(rootDir, root.objectPath(ID)) };
}

async function repairCli(rootDir: string, ...extra: string[]): Promise<{ code: number; report: RootRepairReport; stderr: string }> {
  const r = await runCli(['repair', '--root', rootDir, '--json', ...extra]);
  return { code: r.code, report: JSON.parse(r.stdout) as RootRepairReport, stderr: r.stderr };
}

/** Validates: exactly these error codes, each with (or without) the hint. */
async function assertCodes(t: ExecutionContext, rootDir: string, codes: string[], hinted: boolean): Promise<void> {
  const r = await validateStorageRoot(rootDir);
  t.deepEqual([...new Set(r.errors.map((f) => f.code))].sort(), [...codes].sort(), describe(r));
  for (const f of r.errors) t.is(HINT.test(f.message), hinted, `${f.code}: ${f.message}`);
}

async function assertRepairedAt(t: ExecutionContext, rootDir: string, files: Files, versions: string[]): Promise<void> {
  const r = await validateStorageRoot(rootDir);
  t.deepEqual(r.errors, [], describe(r));
  const seen = await readHead(rootDir, ID);
  t.deepEqual(seen?.files, files);
  t.deepEqual(seen?.versions, versions);
  t.deepEqual(workspaceEntries(rootDir), ['locks'], 'the workspace holds only the (empty) locks folder');
}

// [failpoint, codes right after the kill, version the object is at (as faults/ocfl-crash.test.ts expects), what repair does]
const POINTS: Array<[string, string[], 'old' | 'new', string]> = [
  ['after-version-rename', ['E046'], 'old', 'rolled-back-version'],
  ['after-version-fsync', ['E046'], 'old', 'rolled-back-version'],
  ['after-inventory-rename', ['E060'], 'new', 'finished-sidecar'],
];

for (const [point, codes, outcome, action] of POINTS) {
  test(
    `killed at ${point}: ${codes.join(', ')} with the interrupted-commit hint; ` + `repair leaves the ${outcome} version, valid`,
    async (t) => {
      const { base, rootDir } = await rootWithV1();
      const killed = await put(rootDir, ID, writeInput(path.join(base, 'in'), V2), { ...RENAME, SIARD_OCFL_FAILPOINT: point });
      t.is(killed.signal, 'SIGKILL', `the failpoint was not reached: ${killed.stderr}`);
      await assertCodes(t, rootDir, codes, true);

      const first = await repairCli(rootDir);
      t.is(first.code, 0, first.stderr);
      t.is(first.report.repaired, 1);
      const kinds = first.report.objects.flatMap((o) => o.actions.map((a) => a.kind)).sort();
      t.deepEqual(kinds, [action, 'removed-dead-lock', 'removed-staging'].sort());
      t.is(first.report.objects[0].id, ID);
      await assertRepairedAt(t, rootDir, outcome === 'old' ? V1 : V2, outcome === 'old' ? ['v1'] : ['v1', 'v2']);

      // Idempotent: a second run finds nothing to do.
      const second = await repairCli(rootDir);
      t.is(second.code, 0, second.stderr);
      t.deepEqual(
        second.report.objects.map((o) => o.status),
        ['clean'],
      );
    },
  );
}

test('after a power loss that kept the new sidecar but not the new inventory: both hints, readers see v1, repair rolls back', async (t) => {
  const { base, rootDir, objectDir } = await rootWithV1();
  // Killed after the version folder was placed (and fsynced): the staged root files are still in the workspace.
  t.is(
    (await put(rootDir, ID, writeInput(path.join(base, 'in'), V2), { ...RENAME, SIARD_OCFL_FAILPOINT: 'after-version-fsync' })).signal,
    'SIGKILL',
  );
  const ws = path.join(path.dirname(rootDir), `.${path.basename(rootDir)}.siard-ocfl-work`);
  const stage = readdirSync(ws).find((n) => n.startsWith('stage-'))!;
  copyFileSync(path.join(ws, stage, 'root', 'inventory.json.sha512'), path.join(objectDir, 'inventory.json.sha512'));
  t.deepEqual((await readHead(rootDir, ID))?.files, V1, 'a reader sees v1');
  await assertCodes(t, rootDir, ['E046', 'E060'], true);
  const r = await validateStorageRoot(rootDir);
  t.true(
    r.errors.every((f) => f.message.includes('rolls it back')),
    describe(r),
  );
  const repaired = await repairCli(rootDir, '--id', ID);
  t.is(repaired.code, 0, repaired.stderr);
  await assertRepairedAt(t, rootDir, V1, ['v1']);
});

test('real damage with the same codes gets no interrupted-commit hint', async (t) => {
  const { rootDir, objectDir } = await rootWithV1();
  // A version folder that is not a successor: a copy of v1 named v2.
  cpSync(path.join(objectDir, 'v1'), path.join(objectDir, 'v2'), { recursive: true });
  await assertCodes(t, rootDir, ['E046'], false);
  // An inventory edited after the fact: the sidecar no longer matches, and v1's copy differs.
  const inventory = path.join(objectDir, 'inventory.json');
  writeFileSync(inventory, readFileSync(inventory, 'utf8').replace('"v1"', '"v1" '));
  const r = await validateStorageRoot(rootDir);
  t.true(
    r.errors.some((f) => f.code === 'E060'),
    describe(r),
  );
  for (const f of r.errors) t.notRegex(f.message, HINT);
  // Repair leaves real damage alone and says so with exit 1 only when it cannot read the object.
  const rep = await repairCli(rootDir);
  t.is(rep.code, 1, rep.stderr);
  t.is(rep.report.failed, 1);
  t.regex(rep.report.objects[0].message ?? '', /does not match its sha512 sidecar/);
});

test('repair removes what a crashed creation of a new object left in the workspace', async (t) => {
  const base = tempDir('siard-ocfl-repair-');
  const rootDir = path.join(base, 'root');
  await initRoot(rootDir, await loadLayout0003());
  const killed = await put(rootDir, 'never:created', writeInput(path.join(base, 'in'), V1), { SIARD_OCFL_FAILPOINT: 'after-tree-built' });
  t.is(killed.signal, 'SIGKILL');
  t.true(workspaceEntries(rootDir).some((e) => e.startsWith('stage-')));
  const r = await repairCli(rootDir);
  t.is(r.code, 0, r.stderr);
  t.deepEqual(
    r.report.objects.map((o) => [o.id, o.status]),
    [[undefined, 'repaired']],
  );
  t.deepEqual(r.report.objects[0].actions.map((a) => a.kind).sort(), ['removed-dead-lock', 'removed-staging']);
  t.deepEqual(workspaceEntries(rootDir), ['locks']);
  t.is((await validateStorageRoot(rootDir)).errors.length, 0);
});

test('repair exits 2 and touches nothing while a live writer holds the lock mid-commit', async (t) => {
  const { base, rootDir } = await rootWithV1();
  const go = path.join(base, 'go');
  const writer = startPut(rootDir, ID, writeInput(path.join(base, 'in'), V2), {
    ...RENAME,
    SIARD_OCFL_PAUSE: 'after-version-rename',
    SIARD_OCFL_PAUSE_FILE: go,
  });
  t.teardown(() => writeFileSync(go, '')); // never leave the writer paused, even when an assertion fails
  while (!existsSync(go + '.waiting')) await sleep(20);
  for (const args of [[], ['--id', ID]]) {
    const r = await repairCli(rootDir, ...args);
    t.is(r.code, 2, r.stderr);
    t.is(r.report.locked, 1);
    t.is(r.report.objects.find((o) => o.status === 'locked')?.id, ID);
  }
  await assertCodes(t, rootDir, ['E046'], true); // the version folder the writer placed is still there
  writeFileSync(go, '');
  t.is((await writer.done).code, 0);
  await assertRepairedAt(t, rootDir, V2, ['v1', 'v2']);
});

// An I/O error (not a kill) inside the publication: the writer settles the object itself before
// it reports the error, so the root validates at once, at the old or (switch passed) new version.
const ERROR_POINTS: Array<[string, 'old' | 'new', Record<string, string>]> = [
  ['after-shadow-linked', 'old', {}],
  ['before-exchange', 'old', {}],
  ['after-exchange', 'new', {}],
  ['after-exchange-fsync', 'new', {}],
  ['after-version-rename', 'old', RENAME],
  ['after-version-fsync', 'old', RENAME],
  ['after-inventory-rename', 'new', RENAME],
  ['after-sidecar-rename', 'new', RENAME],
];

for (const [point, outcome, env] of ERROR_POINTS) {
  test(`an i/o error at ${point}: put exits 2, and the object is valid at once at the ${outcome} version`, async (t) => {
    const { base, rootDir } = await rootWithV1();
    const failed = await put(rootDir, ID, writeInput(path.join(base, 'in'), V2), { ...env, SIARD_OCFL_FAILPOINT_ERROR: point });
    t.is(failed.code, 2, failed.stderr);
    t.regex(failed.stderr, new RegExp(`injected i/o error at ${point}`));
    await assertRepairedAt(t, rootDir, outcome === 'old' ? V1 : V2, outcome === 'old' ? ['v1'] : ['v1', 'v2']);
  });
}

test('repair without --json says what it did, one line per action, then a summary', async (t) => {
  const { base, rootDir, objectDir } = await rootWithV1();
  t.is(
    (await put(rootDir, ID, writeInput(path.join(base, 'in'), V2), { ...RENAME, SIARD_OCFL_FAILPOINT: 'after-version-rename' })).signal,
    'SIGKILL',
  );
  const r = await runCli(['repair', '--root', rootDir]);
  t.is(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  t.is(lines[0], `"${ID}": repaired`);
  t.true(lines.includes(`  rolled back the unlisted version folder ${path.join(objectDir, 'v2')}`), r.stdout);
  t.is(lines[lines.length - 1], '1 checked: 1 repaired, 0 needed nothing, 0 locked by a writer, 0 failed.');
});
