/**
 * The commit of a new version by exchange (src/ocfl/commit/commit.ts): the live object root is swapped
 * with a shadow whose existing files are hard links, so nothing is copied and nothing the object
 * held is lost, including what OCFL lets an object root hold beside its versions (extensions/,
 * logs/). The fallback by renames keeps the object root folder itself.
 */
import test from 'ava';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadLayout0003 } from '../../../../src/ocfl/layout/extensions.js';
import { exchangeAvailable, exchangePaths } from '../../../../src/ocfl/storage/rename-exchange.js';
import { initRoot, openRoot } from '../../../../src/ocfl/root.js';
import { validateStorageRoot } from '../../../../src/ocfl/validate/index.js';
import { defaultWorkspaceDir } from '../../../../src/ocfl/commit/workspace.js';
import { tempDir } from '../../../helpers/tmp.js';

const ID = 'urn:exchange:1';

function inodes(dir: string, base = dir, out = new Map<string, number>()): Map<string, number> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) inodes(abs, base, out);
    else out.set(path.relative(base, abs), statSync(abs).ino);
  }
  return out;
}

async function objectWithV1(): Promise<{ rootDir: string; objectDir: string }> {
  const rootDir = path.join(tempDir('siard-ocfl-exchange-'), 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  const staged = await root.startVersion(ID);
  for (let i = 0; i < 30; i++) await staged.addBuffer(`lobs/seg_${i % 3}/record${i}.bin`, `record ${i}\n`);
  await staged.commit({ message: 'v1' });
  const objectDir = path.join(rootDir, root.objectPath(ID));
  // What an object root may hold beside its versions (OCFL 1.1 sections 3.1, 3.3, 3.5).
  mkdirSync(path.join(objectDir, 'extensions', 'local-notes'), { recursive: true });
  writeFileSync(path.join(objectDir, 'extensions', 'local-notes', 'note.txt'), 'kept\n');
  mkdirSync(path.join(objectDir, 'logs'));
  writeFileSync(path.join(objectDir, 'logs', 'audit.log'), 'kept too\n');
  return { rootDir, objectDir };
}

async function addV2(rootDir: string): Promise<void> {
  const staged = await (await openRoot(rootDir)).startVersion(ID);
  await staged.addBuffer('lobs/seg_0/record0.bin', 'changed\n');
  await staged.commit({ message: 'v2' });
}

test('exchange is available on this machine (the kill tests rely on it)', (t) => {
  t.true(exchangeAvailable(), 'koffi or renameat2 missing: commits would fall back to renames');
});

test('exchangePaths swaps a file and a folder in one step, and names the errno when a path is missing', (t) => {
  const dir = tempDir('siard-ocfl-exchange-');
  mkdirSync(path.join(dir, 'a'));
  writeFileSync(path.join(dir, 'a', 'inside'), 'A');
  writeFileSync(path.join(dir, 'b'), 'B');
  t.true(exchangePaths(path.join(dir, 'a'), path.join(dir, 'b')));
  t.is(readFileSync(path.join(dir, 'a'), 'utf8'), 'B');
  t.is(readFileSync(path.join(dir, 'b', 'inside'), 'utf8'), 'A');
  const err = t.throws(() => exchangePaths(path.join(dir, 'a'), path.join(dir, 'missing')));
  t.is((err as NodeJS.ErrnoException).code, 'ENOENT');
});

test('a new version keeps every existing file as the same inode (linked, not copied), and keeps extensions/ and logs/', async (t) => {
  const { rootDir, objectDir } = await objectWithV1();
  const before = inodes(objectDir);
  const rootFolderBefore = statSync(objectDir).ino;
  await addV2(rootDir);
  const after = inodes(objectDir);
  t.not(statSync(objectDir).ino, rootFolderBefore, 'the object root was exchanged, not edited in place');
  for (const [p, ino] of before) {
    if (p === 'inventory.json' || p.startsWith('inventory.json.')) continue;
    t.is(after.get(p), ino, `${p} is the same file`);
  }
  t.is(readFileSync(path.join(objectDir, 'logs', 'audit.log'), 'utf8'), 'kept too\n');
  t.is(readFileSync(path.join(objectDir, 'extensions', 'local-notes', 'note.txt'), 'utf8'), 'kept\n');
  t.true(after.has('v2/inventory.json'));
  t.is(statSync(path.join(objectDir, 'v1', 'content', 'lobs', 'seg_1', 'record1.bin')).nlink, 1, 'the old tree is gone: one link left');
  t.deepEqual(readdirSync(defaultWorkspaceDir(rootDir)), ['locks'], 'no shadow or old tree left in the workspace');
  const v = await validateStorageRoot(rootDir);
  t.deepEqual(v.errors, []);
});

test.serial('with SIARD_OCFL_COMMIT=rename the object root folder stays the same and the result is the same', async (t) => {
  const { rootDir, objectDir } = await objectWithV1();
  const rootFolderBefore = statSync(objectDir).ino;
  process.env.SIARD_OCFL_COMMIT = 'rename';
  try {
    await addV2(rootDir);
  } finally {
    delete process.env.SIARD_OCFL_COMMIT;
  }
  t.is(statSync(objectDir).ino, rootFolderBefore);
  t.is(readFileSync(path.join(objectDir, 'logs', 'audit.log'), 'utf8'), 'kept too\n');
  t.true(inodes(objectDir).has('v2/inventory.json'));
  t.deepEqual((await validateStorageRoot(rootDir)).errors, []);
});
