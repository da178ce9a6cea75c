/**
 * Issue 7, disk full and I/O errors. A write that fails makes the command exit 2 with one clear
 * sentence, leaves the object exactly as it was, leaves nothing in the workspace but an ingest's
 * resumable work (issue 38: `resume-<sha256 of id>`, which the same ingest resumes), and the same
 * command succeeds once the cause is gone.
 *   - A file-size limit: `ulimit -f` with SIGXFSZ ignored, so the write gets EFBIG as on a full
 *     quota (put, ingest, relocate).
 *   - A read-only folder: the object's folder (or the storage root) made read-only, the command
 *     run as an unprivileged user (root ignores permissions), for put and relocate.
 */
import test, { type ExecutionContext } from 'ava';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openRoot } from '../../src/ocfl/root.js';
import { validateStorageRoot } from '../../src/ocfl/validate/index.js';
import { tempDir } from '../helpers/tmp.js';
import { faultSeed, makeDatabase, objectState, prng, runCliToEnd, sameState, workspaceLeftovers, type ObjectState } from './harness.js';
import { testIf } from '../helpers/requires.js';
import { canMount } from '../helpers/tmpfs.js';

const SEED = faultSeed();
/** 1 MiB: `ulimit -f` counts 512-byte blocks */
const LIMIT = 'trap "" XFSZ; ulimit -f 2048';

function bigFolder(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const rand = prng(SEED);
  const buf = Buffer.alloc(3 * 1024 * 1024);
  for (let k = 0; k < buf.length; k += 4) buf.writeUInt32LE(Math.floor(rand() * 2 ** 32) >>> 0, k);
  writeFileSync(path.join(dir, 'large.bin'), buf);
  writeFileSync(path.join(dir, 'small.txt'), 'small\n');
  return dir;
}

/** The workspace folder an interrupted ingest of `id` keeps to resume from (docs/resume.md). */
const resumable = (id: string) => `resume-${createHash('sha256').update(id).digest('hex')}`;

async function assertUnchanged(
  t: ExecutionContext,
  rootDir: string,
  id: string,
  before: ObjectState | undefined,
  kept: string[] = [],
): Promise<void> {
  const after = await objectState(rootDir, id);
  if (before === undefined) t.is(after, undefined, 'no object appeared');
  else {
    t.is(after?.head, before.head, 'the head did not move');
    t.true(after !== undefined && sameState(after.state, before.state), 'the state is unchanged');
  }
  const v = await validateStorageRoot(rootDir);
  t.true(v.valid, v.errors.map((e) => e.message).join('; '));
  t.deepEqual(workspaceLeftovers(rootDir), kept, 'nothing left in the workspace but resumable work');
}

function assertClearError(
  t: ExecutionContext,
  r: { code: number | null; signal: NodeJS.Signals | null; stderr: string },
  pattern: RegExp,
  id?: string,
): void {
  t.is(r.signal, null, 'not killed by a signal');
  t.is(r.code, 2, r.stderr);
  const lines = r.stderr.trim().split('\n');
  t.is(lines.length, 1, `one sentence, no stack trace: ${r.stderr}`);
  t.regex(lines[0]!, /^siard-ocfl: /);
  t.regex(lines[0]!, pattern);
  // Node's EFBIG/ENOSPC name no file: the sentence must say which object the work was on.
  if (id !== undefined) t.true(lines[0]!.includes(`object ${JSON.stringify(id)}`), lines[0]);
}

async function newRoot(prefix: string): Promise<{ base: string; rootDir: string }> {
  const base = tempDir(prefix);
  const rootDir = path.join(base, 'root');
  t0((await runCliToEnd(['init', rootDir])).code);
  return { base, rootDir };
}
function t0(code: number | null): void {
  if (code !== 0) throw new Error(`init failed (${code})`);
}

test('put: a file-size limit (EFBIG) on a new and on an existing object', async (t) => {
  const { base, rootDir } = await newRoot('siard-ocfl-efbig-put-');
  const input = bigFolder(path.join(base, 'in'));
  const id = 'urn:x-disk:put';
  // New object: nothing may appear.
  const r1 = await runCliToEnd(['put', input, '--root', rootDir, '--id', id], { shell: LIMIT });
  assertClearError(t, r1, /too large|EFBIG|file size/i, id);
  await assertUnchanged(t, rootDir, id, undefined);
  // Existing object: stays at v1.
  writeFileSync(path.join(base, 'small.txt'), 'v1\n');
  const v1Dir = path.join(base, 'v1');
  mkdirSync(v1Dir);
  writeFileSync(path.join(v1Dir, 'small.txt'), 'v1\n');
  t.is((await runCliToEnd(['put', v1Dir, '--root', rootDir, '--id', id])).code, 0);
  const before = await objectState(rootDir, id);
  const r2 = await runCliToEnd(['put', input, '--root', rootDir, '--id', id], { shell: LIMIT });
  assertClearError(t, r2, /too large|EFBIG|file size/i, id);
  await assertUnchanged(t, rootDir, id, before);
  const again = await runCliToEnd(['put', input, '--root', rootDir, '--id', id]);
  t.is(again.code, 0, again.stderr);
  t.is((await objectState(rootDir, id))?.head, 'v2');
});

test('ingest and relocate: a file-size limit (EFBIG) leaves the object as it was', async (t) => {
  const { base, rootDir } = await newRoot('siard-ocfl-efbig-ingest-');
  const db = makeDatabase(path.join(base, 'db.sqlite'), SEED, { lobs: 8, lobSize: 64 * 1024, inline: 1500 });
  const id = 'urn:x-disk:ingest';
  const r1 = await runCliToEnd(['ingest', `sqlite:${db}`, '--root', rootDir, '--id', id], { shell: LIMIT });
  assertClearError(t, r1, /too large|EFBIG|file size/i, id);
  await assertUnchanged(t, rootDir, id, undefined, [resumable(id)]);
  t.is((await runCliToEnd(['ingest', `sqlite:${db}`, '--root', rootDir, '--id', id])).code, 0);
  const before = await objectState(rootDir, id);
  const r2 = await runCliToEnd(['ingest', `sqlite:${db}`, '--root', rootDir, '--id', id], { shell: LIMIT });
  assertClearError(t, r2, /too large|EFBIG|file size/i, id);
  await assertUnchanged(t, rootDir, id, before, [resumable(id)]);
  const r3 = await runCliToEnd(['relocate', '--root', rootDir, '--id', id, '--lob-folder', 'file:///Archives/x/'], { shell: LIMIT });
  assertClearError(t, r3, /too large|EFBIG|file size/i, id);
  await assertUnchanged(t, rootDir, id, before, [resumable(id)]);
  const again = await runCliToEnd(['relocate', '--root', rootDir, '--id', id, '--lob-folder', 'file:///Archives/x/']);
  t.is(again.code, 0, again.stderr);
});

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

function chownTree(dir: string): void {
  execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, dir]);
}

testIf(asRoot, 'needs root, to run the writer as an unprivileged user')(
  'a read-only object folder or storage root: exit 2, object unchanged (run as an unprivileged user)',
  async (t) => {
    const { base, rootDir } = await newRoot('siard-ocfl-readonly-');
    chmodSync(base, 0o755);
    const db = makeDatabase(path.join(base, 'db.sqlite'), SEED, { lobs: 4, lobSize: 64 * 1024, inline: 50 });
    const id = 'urn:x-disk:readonly';
    const ingest = await runCliToEnd(['ingest', `sqlite:${db}`, '--root', rootDir, '--id', id]);
    t.is(ingest.code, 0, ingest.stderr);
    const input = bigFolder(path.join(base, 'in'));
    // The workspace must exist and be the user's: it is where the user may write.
    chownTree(base);
    const objectDir = path.join(rootDir, (await openRoot(rootDir)).objectPath(id));
    chmodSync(objectDir, 0o555);
    const as = { uid: NOBODY, gid: NOBODY };
    const before = await objectState(rootDir, id);
    const put = await runCliToEnd(['put', input, '--root', rootDir, '--id', id], as);
    assertClearError(t, put, /permission denied|EACCES|read-only|not writable/i);
    await assertUnchanged(t, rootDir, id, before);
    const relocate = await runCliToEnd(['relocate', '--root', rootDir, '--id', id, '--lob-folder', 'file:///Archives/y/'], as);
    assertClearError(t, relocate, /permission denied|EACCES|read-only|not writable/i);
    await assertUnchanged(t, rootDir, id, before);
    // A read-only storage root: a new object cannot be placed.
    chmodSync(objectDir, 0o755);
    chmodSync(rootDir, 0o555);
    const other = 'urn:x-disk:new';
    const fresh = await runCliToEnd(['put', input, '--root', rootDir, '--id', other], as);
    assertClearError(t, fresh, /permission denied|EACCES|read-only|not writable/i);
    await assertUnchanged(t, rootDir, other, undefined);
    chmodSync(rootDir, 0o755);
    const again = await runCliToEnd(['relocate', '--root', rootDir, '--id', id, '--lob-folder', 'file:///Archives/y/'], as);
    t.is(again.code, 0, again.stderr);
  },
);

/** Mounts a small tmpfs (root in a container that allows it); undefined when mounting is refused. */
function mountTmpfs(dir: string, size: string): boolean {
  if (!asRoot) return false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

testIf(canMount, 'this process may not mount a tmpfs (needs root)')(
  'a full filesystem (ENOSPC on a 2 MiB tmpfs): put and ingest exit 2, object unchanged',
  async (t) => {
    const outside = tempDir('siard-ocfl-enospc-');
    const mnt = path.join(outside, 'fs');
    mkdirSync(mnt);
    t.true(mountTmpfs(mnt, '2m'), 'a 2 MiB tmpfs is mounted');
    try {
      const rootDir = path.join(mnt, 'root');
      t.is((await runCliToEnd(['init', rootDir])).code, 0);
      const small = path.join(outside, 'small');
      mkdirSync(small);
      writeFileSync(path.join(small, 'a.txt'), 'fits\n');
      const id = 'urn:x-disk:enospc';
      t.is((await runCliToEnd(['put', small, '--root', rootDir, '--id', id])).code, 0);
      const before = await objectState(rootDir, id);
      const input = bigFolder(path.join(outside, 'in'));
      const put = await runCliToEnd(['put', input, '--root', rootDir, '--id', id]);
      assertClearError(t, put, /no space left|ENOSPC/i, id);
      await assertUnchanged(t, rootDir, id, before);
      const db = makeDatabase(path.join(outside, 'db.sqlite'), SEED, { lobs: 40, lobSize: 64 * 1024, inline: 10 });
      const ingest = await runCliToEnd(['ingest', `sqlite:${db}`, '--root', rootDir, '--id', id]);
      assertClearError(t, ingest, /no space left|ENOSPC/i, id);
      await assertUnchanged(t, rootDir, id, before, [resumable(id)]);
      // Space again: the same object takes a new version.
      const again = await runCliToEnd(['put', small, '--root', rootDir, '--id', id, '--message', 'after the disk was full']);
      t.is(again.code, 0, again.stderr);
    } finally {
      execFileSync('umount', [mnt]);
    }
  },
);
