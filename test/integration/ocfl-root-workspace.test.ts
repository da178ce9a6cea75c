/**
 * The workspace of a storage root (issue "A database of a million LOBs", part 3), through the
 * built CLI, on real tmpfs mounts:
 * 1. a root AT a mount point (its parent another filesystem): init puts the workspace in the
 *    root's extensions/siard-ocfl-workspace/work and remembers it; put (v1, v2, committed by
 *    exchange), ingest, mets, relocate and repair all succeed; the root validates after each with
 *    no warning about the extension; ls lists only the objects; nothing is made beside the root;
 * 2. while a put is paused before its exchange, and after one killed there, with a staged object
 *    (declaration and inventories) in that workspace, the root validates, ls and the validator
 *    count only the real objects, and the next put succeeds;
 * 3. --workspace on the root's filesystem is checked and remembered by init and used by later
 *    writers; SIARD_OCFL_WORKSPACE overrides the remembered one with a one-sentence note;
 *    --workspace overrides the variable;
 * 4. a root whose parent its user cannot write: init (as that user) remembers the workspace
 *    inside the root, and put works;
 * 5. init refuses a workspace on another filesystem, inside the storage hierarchy, or under a
 *    file, with one sentence and exit 2, and leaves nothing behind (no root, no workspace, the
 *    mount point empty); put refuses a workspace on another filesystem and leaves it uncreated.
 */
import test, { type ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openRoot } from '../../src/ocfl/root.js';
import { validateStorageRoot } from '../../src/ocfl/validate/index.js';
import { makeDatabase, runCliToEnd } from '../faults/harness.js';
import { BIN, runCli, type CliResult } from '../helpers/cli.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';
import { mountTmpfs, tmpfsTest } from '../helpers/tmpfs.js';

const IN_ROOT = ['extensions', 'siard-ocfl-workspace', 'work'];

function mount(t: ExecutionContext): string | undefined {
  const mnt = mountTmpfs();
  if (!mnt) t.fail('mounting a tmpfs was refused (CI is set, so this fails instead of skipping)');
  return mnt;
}

function folder(dir: string, files: Record<string, string>): string {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

async function assertValid(t: ExecutionContext, rootDir: string, objects: number, after: string): Promise<void> {
  const v = await validateStorageRoot(rootDir);
  t.true(v.valid, `${after}: ${v.errors.map((e) => `${e.code} ${e.path}: ${e.message}`).join('; ')}`);
  t.is(v.objects, objects, `${after}: objects counted`);
  t.deepEqual(
    v.warnings.filter((w) => w.code === 'W016'),
    [],
    `${after}: no warning about our extension's name`,
  );
}

function ok(t: ExecutionContext, r: CliResult, what: string): void {
  t.is(r.code, 0, `${what}: ${r.stderr}`);
}

/** One line on stderr, exit 2. */
function refused(t: ExecutionContext, r: CliResult, pattern: RegExp): void {
  t.is(r.code, 2, r.stdout);
  t.regex(r.stderr, pattern);
  t.is(r.stderr.trim().split('\n').length, 1, r.stderr);
}

tmpfsTest('a root at a mount point: init, put v1 and v2, ingest, mets, relocate, repair, each followed by a valid root', async (t) => {
  const mnt = mount(t);
  if (!mnt) return;
  const init = await runCli(['init', mnt, '--json']);
  ok(t, init, 'init');
  const workspace = path.join(mnt, ...IN_ROOT);
  t.is(JSON.parse(init.stdout).workspace, workspace);
  t.deepEqual(JSON.parse(readFileSync(path.join(mnt, 'extensions/siard-ocfl-workspace/config.json'), 'utf8')), {
    workspace: IN_ROOT.join('/'),
  });
  t.deepEqual(readdirSync(path.dirname(mnt)), ['mnt'], 'nothing beside the root');
  await assertValid(t, mnt, 0, 'init');

  const base = tempDir('siard-ocfl-root-ws-');
  const id = 'urn:x-ws:put';
  ok(t, await runCli(['put', folder(path.join(base, 'a'), { 'a.txt': 'one\n' }), '--root', mnt, '--id', id]), 'put v1');
  await assertValid(t, mnt, 1, 'put v1');
  const root = await openRoot(mnt);
  const objectDir = path.join(mnt, root.objectPath(id));
  const before = statSync(objectDir).ino;
  ok(t, await runCli(['put', folder(path.join(base, 'b'), { 'a.txt': 'one\n', 'b.txt': 'two\n' }), '--root', mnt, '--id', id]), 'put v2');
  await assertValid(t, mnt, 1, 'put v2');
  t.not(statSync(objectDir).ino, before, 'v2 replaced the object root by exchange on the tmpfs');
  t.is((await root.openObject(id)).head, 'v2');

  const db = makeDatabase(path.join(base, 'lobs.sqlite'), 7, { lobs: 6, lobSize: 300 * 1024, inline: 20 });
  const dbId = 'urn:x-ws:db';
  ok(t, await runCli(['ingest', `sqlite:${db}`, '--root', mnt, '--id', dbId]), 'ingest');
  await assertValid(t, mnt, 2, 'ingest');
  ok(t, await runCli(['mets', '--root', mnt, '--id', dbId]), 'mets');
  await assertValid(t, mnt, 2, 'mets');
  ok(t, await runCli(['relocate', '--root', mnt, '--id', dbId, '--lob-folder', 'file:///Archives/ws/']), 'relocate');
  await assertValid(t, mnt, 2, 'relocate');
  const repair = await runCli(['repair', '--root', mnt, '--json']);
  ok(t, repair, 'repair');
  t.is(JSON.parse(repair.stdout).workspace, workspace);
  t.is(JSON.parse(repair.stdout).repaired, 0);
  await assertValid(t, mnt, 2, 'repair');
  t.is((await root.openObject(dbId)).head, 'v3');

  const ls = await runCli(['ls', '--root', mnt]);
  ok(t, ls, 'ls');
  t.deepEqual(
    ls.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t')[0])
      .sort(),
    [dbId, id].sort(),
  );
  t.deepEqual(readdirSync(workspace), ['locks'], 'the workspace holds only the locks folder');
  t.deepEqual(readdirSync(path.join(workspace, 'locks')), []);
  t.deepEqual(readdirSync(path.dirname(mnt)), ['mnt'], 'still nothing beside the root');
});

/** Starts a put paused at `point`; resolves once it waits there. */
function pausedPut(args: string[], point: string, go: string): { done: Promise<number | null>; waiting: Promise<void> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, SIARD_OCFL_PAUSE: point, SIARD_OCFL_PAUSE_FILE: go },
    stdio: 'ignore',
  });
  const done = new Promise<number | null>((resolve) => child.on('close', resolve));
  const waiting = (async () => {
    for (let i = 0; i < 3000 && !existsSync(go + '.waiting'); i++) await new Promise((r) => setTimeout(r, 10));
    if (!existsSync(go + '.waiting')) throw new Error(`the put never reached ${point}`);
  })();
  return { done, waiting };
}

tmpfsTest("a stage in the root's extension folder, live and after a kill, is not an object and the root stays valid", async (t) => {
  const mnt = mount(t);
  if (!mnt) return;
  ok(t, await runCli(['init', mnt]), 'init');
  const base = tempDir('siard-ocfl-root-ws-stage-');
  const a = folder(path.join(base, 'a'), { 'x.txt': 'x\n' });
  const b = folder(path.join(base, 'b'), { 'x.txt': 'x\n', 'y.txt': 'y\n' });
  const c = folder(path.join(base, 'c'), { 'z.txt': 'z\n' });
  const workspace = path.join(mnt, ...IN_ROOT);
  const stages = () => readdirSync(workspace).filter((n) => n.startsWith('stage-'));

  // A new object killed with its complete tree (declaration, inventories) staged in the workspace.
  const killedNew = await runCli(['put', a, '--root', mnt, '--id', 'urn:x-ws:new'], {
    env: { SIARD_OCFL_FAILPOINT: 'before-object-rename' },
  });
  t.not(killedNew.code, 0);
  t.is(stages().length, 1, 'the killed writer left its stage');
  await assertValid(t, mnt, 0, 'killed before the new object was renamed in');
  t.is((await runCli(['ls', '--root', mnt])).stdout.trim(), '', 'ls finds no object in the stage');

  ok(t, await runCli(['put', a, '--root', mnt, '--id', 'urn:x-ws:live']), 'put v1');
  // A live writer paused with the shadow of the new object root built in the workspace.
  const go = path.join(base, 'go');
  const paused = pausedPut(['put', b, '--root', mnt, '--id', 'urn:x-ws:live'], 'before-exchange', go);
  await paused.waiting;
  t.is(stages().length, 2);
  await assertValid(t, mnt, 1, 'a writer paused before its exchange');
  t.deepEqual(
    (await runCli(['ls', '--root', mnt])).stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t')[0]),
    ['urn:x-ws:live'],
  );
  writeFileSync(go, '');
  t.is(await paused.done, 0);
  await assertValid(t, mnt, 1, 'the paused writer finished');

  // Killed right before the exchange: the object stays at v2, the root valid; the next put works.
  const killed = await runCli(['put', c, '--root', mnt, '--id', 'urn:x-ws:live'], { env: { SIARD_OCFL_FAILPOINT: 'before-exchange' } });
  t.not(killed.code, 0);
  await assertValid(t, mnt, 1, 'killed before the exchange');
  const root = await openRoot(mnt);
  t.is((await root.openObject('urn:x-ws:live')).head, 'v2');
  ok(t, await runCli(['put', c, '--root', mnt, '--id', 'urn:x-ws:live']), 'put after the kill');
  ok(t, await runCli(['put', a, '--root', mnt, '--id', 'urn:x-ws:new']), 'put of the object whose creation was killed');
  await assertValid(t, mnt, 2, 'after the next writers');
  t.deepEqual(stages(), [], 'the next writers removed the stages');
});

tmpfsTest(
  '--workspace is checked and remembered by init; SIARD_OCFL_WORKSPACE overrides it with a note; --workspace overrides the variable',
  async (t) => {
    const mnt = mount(t);
    if (!mnt) return;
    const rootDir = path.join(mnt, 'root');
    const chosen = path.join(mnt, 'chosen-ws');
    ok(t, await runCli(['init', rootDir, '--workspace', chosen]), 'init --workspace');
    t.deepEqual(JSON.parse(readFileSync(path.join(rootDir, 'extensions/siard-ocfl-workspace/config.json'), 'utf8')), { workspace: chosen });
    t.false(existsSync(chosen), 'init checks the workspace but does not make it');
    await assertValid(t, rootDir, 0, 'init --workspace');

    const base = tempDir('siard-ocfl-root-ws-choice-');
    const input = folder(path.join(base, 'in'), { 'f.txt': 'f\n' });
    const remembered = await runCli(['put', input, '--root', rootDir, '--id', 'urn:x-ws:1']);
    ok(t, remembered, 'put with the remembered workspace');
    t.is(remembered.stderr, '');
    t.deepEqual(readdirSync(chosen), ['locks'], 'the remembered workspace was used');
    t.false(existsSync(path.join(mnt, '.root.siard-ocfl-work')), 'not the default sibling');

    const fromEnv = path.join(mnt, 'env-ws');
    const env = await runCli(['put', input, '--root', rootDir, '--id', 'urn:x-ws:2'], { env: { SIARD_OCFL_WORKSPACE: fromEnv } });
    ok(t, env, 'put with SIARD_OCFL_WORKSPACE');
    t.deepEqual(readdirSync(fromEnv), ['locks'], 'the variable beat the remembered workspace');
    t.regex(
      env.stderr,
      /^siard-ocfl: note: The workspace .*env-ws is not the one this root uses otherwise .*chosen-ws.*do not exclude each other\.\n$/,
    );

    const fromOption = path.join(mnt, 'option-ws');
    const option = await runCli(['put', input, '--root', rootDir, '--id', 'urn:x-ws:3', '--workspace', fromOption], {
      env: { SIARD_OCFL_WORKSPACE: path.join(mnt, 'unused-ws') },
    });
    ok(t, option, 'put --workspace');
    t.deepEqual(readdirSync(fromOption), ['locks'], 'the option beat the variable');
    t.false(existsSync(path.join(mnt, 'unused-ws')));
    await assertValid(t, rootDir, 3, 'three writers with three workspaces');
  },
);

tmpfsTest('init refuses a bad workspace with one sentence and leaves nothing behind; put refuses one on another filesystem', async (t) => {
  const mnt = mount(t);
  if (!mnt) return;
  const base = tempDir('siard-ocfl-root-ws-bad-');
  // A root on the temporary folder's filesystem, a workspace on the tmpfs.
  const rootDir = path.join(base, 'root');
  refused(
    t,
    await runCli(['init', rootDir, '--workspace', path.join(mnt, 'ws')]),
    /another filesystem than the storage root .*extensions\/siard-ocfl-workspace\/work/,
  );
  t.false(existsSync(rootDir), 'no root made');
  t.deepEqual(readdirSync(mnt), [], 'no workspace made');
  // A root at the mount point, a workspace on the temporary folder's filesystem.
  refused(t, await runCli(['init', mnt, '--workspace', path.join(base, 'ws')]), /another filesystem/);
  refused(t, await runCli(['init', mnt], { env: { SIARD_OCFL_WORKSPACE: path.join(base, 'ws') } }), /another filesystem/);
  t.deepEqual(readdirSync(mnt), [], 'the mount point is still empty');
  // Inside the storage hierarchy, or under a file.
  refused(t, await runCli(['init', mnt, '--workspace', path.join(mnt, 'objects', 'ws')]), /lies inside the storage root/);
  writeFileSync(path.join(base, 'file'), '');
  refused(t, await runCli(['init', rootDir, '--workspace', path.join(base, 'file', 'ws')]), /is a file/);
  t.deepEqual(readdirSync(mnt), []);
  t.deepEqual(readdirSync(base).sort(), ['file'], 'nothing made beside the input file');

  // A root that works, written with a workspace on another filesystem: refused, nothing made.
  ok(t, await runCli(['init', mnt]), 'init');
  const input = folder(path.join(base, 'in'), { 'f.txt': 'f\n' });
  const put = await runCli(['put', input, '--root', mnt, '--id', 'urn:x-ws:far', '--workspace', path.join(base, 'far', 'ws')]);
  refused(t, put, /another filesystem than the storage root/);
  t.false(existsSync(path.join(base, 'far', 'ws')), 'the refused workspace was not left behind');
  await assertValid(t, mnt, 0, 'refused put');
  ok(t, await runCli(['put', input, '--root', mnt, '--id', 'urn:x-ws:far']), "put with the root's workspace");
});

test('a root whose parent is on its filesystem keeps the sibling workspace and writes no extension folder', async (t) => {
  const base = tempDir('siard-ocfl-root-ws-sibling-');
  const rootDir = path.join(base, 'root');
  const init = await runCli(['init', rootDir, '--json']);
  ok(t, init, 'init');
  t.is(JSON.parse(init.stdout).workspace, path.join(base, '.root.siard-ocfl-work'));
  t.deepEqual(readdirSync(path.join(rootDir, 'extensions')), ['0003-hash-and-id-n-tuple-storage-layout']);
  ok(t, await runCli(['put', folder(path.join(base, 'in'), { 'f.txt': 'f\n' }), '--root', rootDir, '--id', 'urn:x-ws:s']), 'put');
  t.deepEqual(readdirSync(path.join(base, '.root.siard-ocfl-work')), ['locks']);
});

(process.getuid?.() === 0 ? test : test.skip)(
  'a root in a folder its user cannot write: init remembers the workspace inside the root, and put works (run as an unprivileged user)',
  async (t) => {
    const base = tempDir('siard-ocfl-root-ws-readonly-parent-');
    chmodSync(base, 0o755);
    const parent = path.join(base, 'parent');
    mkdirSync(parent, { mode: 0o755 });
    const rootDir = path.join(parent, 'root');
    mkdirSync(rootDir);
    chownSync(rootDir, 65534, 65534);
    const input = folder(path.join(base, 'in'), { 'f.txt': 'f\n' });
    chmodSync(path.join(base, 'in'), 0o755);
    const as = { uid: 65534, gid: 65534 };
    const init = await runCliToEnd(['init', rootDir], as);
    t.is(init.code, 0, init.stderr);
    t.deepEqual(JSON.parse(readFileSync(path.join(rootDir, 'extensions/siard-ocfl-workspace/config.json'), 'utf8')), {
      workspace: IN_ROOT.join('/'),
    });
    const put = await runCliToEnd(['put', input, '--root', rootDir, '--id', 'urn:x-ws:ro'], as);
    t.is(put.code, 0, put.stderr);
    t.deepEqual(readdirSync(parent), ['root'], 'nothing beside the root');
    await assertValid(t, rootDir, 1, 'put');
  },
);
