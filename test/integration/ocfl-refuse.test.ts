/**
 * Acceptance point 6 of issue 2: bad logical paths, an id that is not well-formed Unicode, and
 * `put` into a folder that is not a storage root are refused with a clear error and nothing is
 * written. Also: `checkout` never writes outside its destination.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { initRoot } from '../../src/ocfl/root.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

const BAD_PATHS = ['../x', '/abs', 'a//b', './a', 'a/..', '', 'a/\0b'];

test('bad logical paths are refused with a clear error and nothing is written', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  const before = tree(rootDir);
  for (const bad of BAD_PATHS) {
    const staged = await root.startVersion('obj');
    await staged.addBuffer('good.txt', 'fine');
    const err = await t.throwsAsync(staged.addBuffer(bad, 'evil'));
    t.true(err!.message.startsWith(`Logical path ${JSON.stringify(bad)} is refused:`), err!.message);
    await t.throwsAsync(staged.rename('good.txt', bad), { message: /is refused/ });
    await staged.abort();
  }
  t.deepEqual(tree(rootDir), before);
  t.false(existsSync(path.join(base, 'x')));
  // The workspace holds only the released locks folder.
  t.deepEqual(tree(path.join(base, '.root.siard-ocfl-work')), ['locks']);
});

test('an id with a lone surrogate is refused, not replaced', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  const before = tree(rootDir);
  for (const id of ['abc\uD800', '\uDC00abc', 'a\uDBFFb']) {
    const err = await t.throwsAsync(root.startVersion(id));
    t.regex(err!.message, /not well-formed Unicode/);
  }
  t.deepEqual(tree(rootDir), before);
  t.false(existsSync(path.join(base, '.root.siard-ocfl-work')), 'no workspace was even created');
});

test('put into a folder that is not a storage root: exit 2, clear message, nothing written', async (t) => {
  const base = tempDir();
  const notRoot = path.join(base, 'plain');
  mkdirSync(notRoot);
  writeFileSync(path.join(notRoot, 'readme.txt'), 'not a root');
  const input = path.join(base, 'input');
  mkdirSync(input);
  writeFileSync(path.join(input, 'a.txt'), 'content');
  const r = await runCli(['put', '--root', notRoot, '--id', 'obj', input]);
  t.is(r.code, 2);
  t.is(r.stderr.trim(), `siard-ocfl: ${notRoot} is not an OCFL storage root: it has no 0=ocfl_1.1 or 0=ocfl_1.0 declaration.`);
  t.deepEqual(readdirSync(base).sort(), ['input', 'plain']);
  t.deepEqual(tree(notRoot), ['readme.txt']);
});

test('checkout refuses an inventory whose logical path escapes the destination', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  const staged = await root.startVersion('evil');
  await staged.addBuffer('inside.txt', 'harmless');
  await staged.addBuffer('evil', 'would land outside');
  await staged.commit();
  // Hand-craft the escape: rename the logical path in the inventory and fix up both sidecars.
  const objectDir = path.join(rootDir, root.objectPath('evil'));
  for (const rel of ['inventory.json', 'v1/inventory.json']) {
    const inv = JSON.parse(readFileSync(path.join(objectDir, rel), 'utf8'));
    for (const paths of Object.values(inv.versions.v1.state) as string[][]) {
      const i = paths.indexOf('evil');
      if (i >= 0) paths[i] = '../evil';
    }
    const bytes = JSON.stringify(inv, null, 2);
    writeFileSync(path.join(objectDir, rel), bytes);
    writeFileSync(path.join(objectDir, `${rel}.sha512`), `${createHash('sha512').update(bytes).digest('hex')} inventory.json\n`);
  }
  const dest = path.join(base, 'out', 'dest');
  const r = await runCli(['checkout', '--root', rootDir, '--id', 'evil', dest]);
  t.is(r.code, 1, r.stderr);
  t.regex(r.stderr, /logical path "\.\.\/evil", which would escape/);
  t.false(existsSync(path.join(base, 'out', 'evil')));
  t.false(existsSync(dest), 'nothing was written, not even the destination folder');
});

test('checkout copies a version, refuses a non-empty destination, and detects corrupted content', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  let staged = await root.startVersion('co');
  await staged.addBuffer('dir/a.txt', 'A1');
  await staged.addBuffer('b.txt', 'B');
  await staged.commit();
  staged = await root.startVersion('co');
  await staged.addBuffer('dir/a.txt', 'A2');
  await staged.commit();
  const v1 = path.join(base, 'v1');
  const r = await runCli(['checkout', '--root', rootDir, '--id', 'co', '--version', 'v1', v1]);
  t.is(r.code, 0, r.stderr);
  t.deepEqual(tree(v1), ['b.txt', 'dir', 'dir/a.txt']);
  t.is(readFileSync(path.join(v1, 'dir/a.txt'), 'utf8'), 'A1');
  const again = await runCli(['checkout', '--root', rootDir, '--id', 'co', v1]);
  t.is(again.code, 2);
  t.regex(again.stderr, /is not empty/);
  // Corrupt the v2 content of dir/a.txt: checkout of head stops with exit 1 and says which file.
  writeFileSync(path.join(rootDir, root.objectPath('co'), 'v2/content/dir/a.txt'), 'XX');
  const bad = await runCli(['checkout', '--root', rootDir, '--id', 'co', path.join(base, 'v2')]);
  t.is(bad.code, 1);
  t.regex(bad.stderr, /Content v2\/content\/dir\/a\.txt of object "co" \(logical path "dir\/a\.txt"\) has sha512/);
  t.false(existsSync(path.join(base, 'v2', 'dir', 'a.txt')));
});

test('put refuses a file name that is not UTF-8 instead of storing a replaced name', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  await initRoot(rootDir, await loadLayout0003());
  const before = tree(rootDir);
  const input = path.join(base, 'input');
  mkdirSync(input);
  // fs accepts a Buffer path: the raw bytes 'x', 0xff (not UTF-8).
  writeFileSync(Buffer.concat([Buffer.from(input + '/'), Buffer.from([0x78, 0xff])]), 'x');
  const r = await runCli(['put', '--root', rootDir, '--id', 'obj', input]);
  t.is(r.code, 2);
  t.regex(r.stderr, /is not valid UTF-8/);
  t.deepEqual(tree(rootDir), before);
});
