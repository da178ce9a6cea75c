/**
 * Acceptance point 5 of issue 2: two processes commit to the same object at once. The first is
 * paused in the middle of its commit while it holds the lock (SIARD_OCFL_PAUSE); the second must
 * fail at once with exit 2 and the lock message, touching nothing; the first then completes.
 * Writers of different objects run side by side; a dead writer's lock is taken over at once.
 */
import test, { type ExecutionContext } from 'ava';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, promises as fsPromises, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import ocflFs from '@ocfl/ocfl-fs';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { FileLockProvider } from '../../src/ocfl/lock/lock.js';
import { initRoot, openRoot } from '../../src/ocfl/root.js';
import {
  emptyDirs,
  type Files,
  put,
  type PutChild,
  type PutRun,
  readHead,
  startPut,
  workspaceEntries,
  writeInput,
} from '../helpers/crash/harness.js';
import { tempDir } from '../helpers/tmp.js';

const ID = 'lock:object/1';
const V1: Files = { 'a.txt': 'one\n', 'b.txt': 'two\n' };
const V2A: Files = { 'a.txt': 'writer A\n', 'c.txt': 'only A\n' };
const V2B: Files = { 'a.txt': 'writer B\n', 'd.txt': 'only B\n' };

/** Waits until the paused child has created `file`; fails with the child's stderr if it ends first. */
async function waitForPause(file: string, child: PutChild): Promise<void> {
  let ended: PutRun | undefined;
  void child.done.then((r) => (ended = r));
  while (!existsSync(file)) {
    if (ended) throw new Error(`the first writer ended before pausing (${ended.code ?? ended.signal}): ${ended.stderr}`);
    await sleep(20);
  }
}

function lockMessage(rootDir: string, id: string): string {
  const ws = path.join(path.dirname(rootDir), `.${path.basename(rootDir)}.siard-ocfl-work`);
  const lock = path.join(ws, 'locks', createHash('sha256').update(id).digest('hex') + '.lock');
  return `siard-ocfl: Object "${id}" is being written by another process (lock ${lock}).\n`;
}

async function assertValidAt(t: ExecutionContext, rootDir: string, id: string, files: Files, versions: string[]): Promise<void> {
  const seen = await readHead(rootDir, id);
  t.deepEqual(seen?.files, files);
  t.deepEqual(seen?.versions, versions);
  const root = await openRoot(rootDir);
  const peer = ocflFs.object({ root: path.join(rootDir, root.objectPath(id)) });
  await peer.load();
  for (const [p, body] of Object.entries(files)) t.is(await peer.getFile(p).text(), body);
}

async function race(t: ExecutionContext, existing: boolean, pausePoint: string): Promise<void> {
  const base = tempDir('siard-ocfl-lock-');
  const rootDir = path.join(base, 'root');
  await initRoot(rootDir, await loadLayout0003());
  if (existing) t.is((await put(rootDir, ID, writeInput(path.join(base, 'v1'), V1))).code, 0);
  const go = path.join(base, 'go');
  const a = startPut(rootDir, ID, writeInput(path.join(base, 'a'), V2A), { SIARD_OCFL_PAUSE: pausePoint, SIARD_OCFL_PAUSE_FILE: go });
  await waitForPause(go + '.waiting', a);
  // A holds the lock in the middle of its commit. B fails at once and repairs nothing.
  const b = await put(rootDir, ID, writeInput(path.join(base, 'b'), V2B));
  t.is(b.code, 2);
  t.is(b.stderr, lockMessage(rootDir, ID));
  // Meanwhile a reader sees the old state.
  const during = await readHead(rootDir, ID);
  if (existing) t.deepEqual(during?.files, V1);
  else t.is(during, undefined);
  writeFileSync(go, '');
  const ra = await a.done;
  t.is(ra.code, 0, ra.stderr);
  await assertValidAt(t, rootDir, ID, V2A, existing ? ['v1', 'v2'] : ['v1']);
  t.deepEqual(emptyDirs(rootDir), []);
  t.deepEqual(workspaceEntries(rootDir), ['locks']);
  // Once A is done, B's put goes through.
  const b2 = await put(rootDir, ID, path.join(base, 'b'));
  t.is(b2.code, 0, b2.stderr);
  await assertValidAt(t, rootDir, ID, V2B, existing ? ['v1', 'v2', 'v3'] : ['v1', 'v2']);
}

test('existing object: the second writer exits 2 with the lock message while the first is about to exchange the object root', (t) =>
  race(t, true, 'before-exchange'));

test('new object: the second writer exits 2 with the lock message while the first is about to place the object', (t) =>
  race(t, false, 'after-tree-built'));

test('writers of different objects run at the same time', async (t) => {
  const base = tempDir('siard-ocfl-lock-');
  const rootDir = path.join(base, 'root');
  await initRoot(rootDir, await loadLayout0003());
  const go = path.join(base, 'go');
  const a = startPut(rootDir, 'object-a', writeInput(path.join(base, 'a'), V2A), {
    SIARD_OCFL_PAUSE: 'after-tree-built',
    SIARD_OCFL_PAUSE_FILE: go,
  });
  await waitForPause(go + '.waiting', a);
  const other = await put(rootDir, 'object-b', writeInput(path.join(base, 'b'), V2B));
  t.is(other.code, 0, other.stderr);
  writeFileSync(go, '');
  t.is((await a.done).code, 0);
  await assertValidAt(t, rootDir, 'object-a', V2A, ['v1']);
  await assertValidAt(t, rootDir, 'object-b', V2B, ['v1']);
});

test('the lock of a writer that was killed is taken over at once by the next writer', async (t) => {
  const base = tempDir('siard-ocfl-lock-');
  const rootDir = path.join(base, 'root');
  await initRoot(rootDir, await loadLayout0003());
  const input = writeInput(path.join(base, 'a'), V1);
  const killed = await put(rootDir, ID, input, { SIARD_OCFL_FAILPOINT: 'after-tree-built' });
  t.is(killed.signal, 'SIGKILL');
  const locks = path.join(path.dirname(rootDir), '.root.siard-ocfl-work', 'locks');
  t.is(readdirSync(locks).length, 1, 'the dead writer left its lock');
  // The lock is fresh (far from proper-lockfile's staleness age): it is taken over because its
  // owner process is gone; otherwise this put would fail with the lock message.
  const next = await put(rootDir, ID, input);
  t.is(next.code, 0, next.stderr);
  await assertValidAt(t, rootDir, ID, V1, ['v1']);
  t.deepEqual(readdirSync(locks), []);
});

/**
 * A taker killed between proper-lockfile's mkdir and writing its owner file leaves a fresh lock
 * with no owner. Its intent file names the dead process, so the lock is taken over at once; an
 * owner-less lock whose taker lives is respected.
 */
test('an owner-less lock is taken over at once when its taker is dead, and respected while it lives', async (t) => {
  const base = tempDir('siard-ocfl-lock-');
  const rootDir = path.join(base, 'root');
  await initRoot(rootDir, await loadLayout0003());
  const input = writeInput(path.join(base, 'a'), V1);
  const locks = path.join(path.dirname(rootDir), '.root.siard-ocfl-work', 'locks');
  const lockDir = path.join(locks, createHash('sha256').update(ID).digest('hex') + '.lock');
  const hostname = (await import('node:os')).hostname();
  mkdirSync(lockDir, { recursive: true });

  // A live taker (this test process) is between the two steps: the writer must refuse.
  writeFileSync(`${lockDir}.intent-${process.pid}`, hostname);
  const refused = await put(rootDir, ID, input);
  t.is(refused.code, 2);
  t.is(refused.stderr, lockMessage(rootDir, ID));
  rmSync(`${lockDir}.intent-${process.pid}`);

  // The taker died there: the next writer takes the lock at once (the lock is seconds from stale).
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  writeFileSync(`${lockDir}.intent-${dead}`, hostname);
  const next = await put(rootDir, ID, input);
  t.is(next.code, 0, next.stderr);
  await assertValidAt(t, rootDir, ID, V1, ['v1']);
  t.deepEqual(readdirSync(locks), [], 'the lock and the dead intent are gone');
});

test('what killed takers leave beside the locks (intent files, renamed-away lock folders) is removed by the next writer', async (t) => {
  const base = tempDir('siard-ocfl-lock-');
  const rootDir = path.join(base, 'root');
  await initRoot(rootDir, await loadLayout0003());
  const locks = path.join(path.dirname(rootDir), '.root.siard-ocfl-work', 'locks');
  const key = createHash('sha256').update('another object').digest('hex');
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  mkdirSync(path.join(locks, `${key}.lock.grave-${dead}-1`), { recursive: true });
  writeFileSync(path.join(locks, `${key}.lock.grave-${dead}-1`, 'owner.json'), '{}');
  writeFileSync(path.join(locks, `${key}.lock.intent-${dead}`), (await import('node:os')).hostname());
  // A taker killed between creating its intent file and writing into it leaves it empty.
  const dead2 = spawnSync(process.execPath, ['-e', '0']).pid;
  writeFileSync(path.join(locks, `${key}.lock.intent-${dead2}`), '');
  const r = await put(rootDir, ID, writeInput(path.join(base, 'a'), V1));
  t.is(r.code, 0, r.stderr);
  t.deepEqual(readdirSync(locks), []);
});

test('a holder whose owner file took longer to write than the first refresh keeps its lock', async (t) => {
  // On a loaded machine the write of the owner file into the lock folder (which changes the
  // folder's mtime until it is put back) outlasted proper-lockfile's first refresh 5 s later,
  // which took the changed mtime for another taker: the writer lost its own lock and failed at
  // commit. Here that write is made to end 6 s after it changed the folder.
  const locks = tempDir('siard-ocfl-lock-refresh-');
  const real = fsPromises.writeFile;
  fsPromises.writeFile = (async (...args: Parameters<typeof real>) => {
    await real(...args);
    if (String(args[0]).endsWith(`${path.sep}owner.json`)) await sleep(6000);
  }) as typeof real;
  let lock;
  try {
    lock = await new FileLockProvider(locks).acquire('slow owner file');
  } finally {
    fsPromises.writeFile = real;
  }
  await sleep(6000); // past the refresh the owner file held back
  t.notThrows(() => lock.assertHeld());
  await lock.release();
  t.deepEqual(readdirSync(locks), []);
});
