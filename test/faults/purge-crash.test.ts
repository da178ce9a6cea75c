/**
 * `siard-ocfl purge` killed (issue 36: crash safe, an interrupted purge never leaves a half object
 * that validates as an object). The child is killed with SIGKILL at the purge's failpoints (after
 * the declaration is removed, after the folder is removed) and at random moments while it removes
 * an object of 2,000 files. After each kill the object is either whole (the root validates, `ls`
 * lists it) or no object at all (`ls` does not list it; the validator names any files left, E072, or
 * empty folders, E073);
 * the same purge run again then finishes, saying so, and leaves a root that validates with no
 * object and no folder of it.
 */
import test, { type ExecutionContext } from 'ava';
import { cpSync, existsSync } from 'node:fs';
import path from 'node:path';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { initRoot, openRoot } from '../../src/ocfl/root.js';
import { validateStorageRoot } from '../../src/ocfl/validate/index.js';
import { BIN, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const ID = 'urn:crash:purge/1';
const KEEP = 'urn:crash:purge/kept';

/** A root holding the object to purge (files in two versions) and one other object, which must stay. */
async function rootWithObjects(files: number): Promise<{ rootDir: string; objectDir: string }> {
  const rootDir = path.join(tempDir('siard-ocfl-purge-'), 'root');
  await initRoot(rootDir, await loadLayout0003());
  const root = await openRoot(rootDir);
  for (const [id, count] of [
    [ID, files],
    [KEEP, 3],
  ] as const) {
    for (const v of [1, 2]) {
      const staged = await root.startVersion(id);
      for (let i = 0; i < count; i++) await staged.addBuffer(`d${i % 20}/f${i}.txt`, `${id} file ${i} v${v}\n`);
      await staged.commit({ message: `v${v}`, user: { name: 'T', address: 'mailto:t@example.org' } });
    }
  }
  return { rootDir, objectDir: path.join(rootDir, root.objectPath(ID)) };
}

const listed = async (rootDir: string) =>
  (await runCli(['ls', '--root', rootDir])).stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t')[0]);

/** After a kill: the object whole, or no object at all; then the purge run again finishes. */
async function assertSettles(t: ExecutionContext, rootDir: string, objectDir: string, label: string): Promise<void> {
  const ids = await listed(rootDir);
  t.true(ids.includes(KEEP), `${label}: the other object is untouched`);
  const v = await validateStorageRoot(rootDir);
  if (ids.includes(ID)) {
    t.deepEqual(v.errors, [], `${label}: still listed, so it must be whole`);
  } else {
    t.deepEqual(
      [...new Set(v.errors.map((f) => f.code))].filter((c) => c !== 'E072' && c !== 'E073'),
      [],
      `${label}: only files outside any object`,
    );
  }
  const folderLeft = existsSync(objectDir);
  const parentLeft = existsSync(path.dirname(objectDir));
  const again = await runCli(['purge', '--root', rootDir, '--id', ID, '--yes', '--json']);
  if (!folderLeft && !parentLeft) {
    // Killed after everything went: nothing of the object is left to find.
    t.is(again.code, 2, `${label}: ${again.stderr}`);
  } else {
    t.is(again.code, 0, `${label}: ${again.stderr}`);
    t.is((JSON.parse(again.stdout) as { resumed: boolean }).resumed, !ids.includes(ID), label);
  }
  const after = await validateStorageRoot(rootDir);
  t.deepEqual(after.errors, [], `${label}: the root validates`);
  t.deepEqual(await listed(rootDir), [KEEP], label);
  t.false(existsSync(objectDir), `${label}: no folder of the object`);
  t.false(existsSync(path.dirname(objectDir)), `${label}: no empty folder of the layout left`);
}

for (const point of ['purge-declaration-removed', 'purge-folder-removed']) {
  test(`purge killed at ${point}: the object is gone or whole, and purge again finishes`, async (t) => {
    const { rootDir, objectDir } = await rootWithObjects(20);
    const killed = await runCli(['purge', '--root', rootDir, '--id', ID, '--yes'], { env: { SIARD_OCFL_FAILPOINT: point } });
    t.is(killed.code, 128, 'killed');
    await assertSettles(t, rootDir, objectDir, point);
  });
}

test('purge killed at random moments while it removes 2,000 files', async (t) => {
  const { spawn } = await import('node:child_process');
  const { setTimeout: sleep } = await import('node:timers/promises');
  // One root built, copied for each run (the copy is not what is measured: the kill is).
  const made = await rootWithObjects(2000);
  const outcomes: string[] = [];
  for (let run = 0; run < 5; run++) {
    const base = tempDir('siard-ocfl-purge-run-');
    const rootDir = path.join(base, 'root');
    cpSync(made.rootDir, rootDir, { recursive: true });
    const objectDir = path.join(rootDir, path.relative(made.rootDir, made.objectDir));
    const child = spawn(process.execPath, [BIN, 'purge', '--root', rootDir, '--id', ID, '--yes'], { stdio: 'ignore' });
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Killed while the folder is removed: a moment drawn after the declaration went (polled), or,
    // one run in five, at a random moment of start-up.
    if (run === 0) await sleep(Math.floor(Math.random() * 150));
    else {
      const declaration = path.join(objectDir, '0=ocfl_object_1.1');
      while (existsSync(declaration) && child.exitCode === null) await sleep(1);
      await sleep(Math.floor(Math.random() * 15));
    }
    child.kill('SIGKILL');
    const code = await closed;
    const whole = (await listed(rootDir)).includes(ID);
    outcomes.push(code === 0 ? 'finished' : whole ? 'whole' : existsSync(objectDir) ? 'declaration gone' : 'folder gone');
    await assertSettles(t, rootDir, objectDir, `run ${run}`);
  }
  t.log(`after the kill: ${outcomes.join(', ')}`);
});
