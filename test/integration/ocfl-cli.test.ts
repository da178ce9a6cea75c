/**
 * The OCFL verbs as a user runs them: init, put (the version's state is exactly the folder),
 * ls, log, show, checkout, with --json, and the exit statuses.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const sha512 = (s: string) => createHash('sha512').update(s).digest('hex');

test('init, put twice, ls, log, show and checkout round-trip a folder', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  const init = await runCli(['init', rootDir, '--tuple-size', '2', '--number-of-tuples', '2', '--json']);
  t.is(init.code, 0, init.stderr);
  t.deepEqual(JSON.parse(init.stdout).layout, {
    extensionName: '0003-hash-and-id-n-tuple-storage-layout',
    digestAlgorithm: 'sha256',
    tupleSize: 2,
    numberOfTuples: 2,
  });

  const input = path.join(base, 'in');
  mkdirSync(path.join(input, 'sub'), { recursive: true });
  writeFileSync(path.join(input, 'keep.txt'), 'keep');
  writeFileSync(path.join(input, 'sub', 'drop.txt'), 'drop');
  const id = 'ark:/99999/fk4 test';
  const put1 = await runCli([
    'put',
    '--root',
    rootDir,
    '--id',
    id,
    input,
    '--message',
    'first',
    '--user-name',
    'Ada',
    '--user-address',
    'mailto:ada@example.org',
    '--fixity',
    'sha256,md5',
    '--json',
  ]);
  t.is(put1.code, 0, put1.stderr);
  t.deepEqual(JSON.parse(put1.stdout), { id, version: 'v1', files: 2, stored: 2 });

  // The second version is exactly the folder: sub/drop.txt is gone, new.txt added, keep.txt unchanged.
  rmSync(path.join(input, 'sub'), { recursive: true });
  writeFileSync(path.join(input, 'new.txt'), 'new');
  const put2 = await runCli(['put', '--root', rootDir, '--id', id, input, '--message', 'second', '--user-name', 'Bob']);
  t.is(put2.code, 0, put2.stderr);
  t.is(put2.stdout, `Committed v2 of object "${id}": 2 files, 1 stored new.\n`);

  const ls = await runCli(['ls', '--root', rootDir, '--json']);
  t.is(ls.code, 0, ls.stderr);
  const listed = JSON.parse(ls.stdout);
  t.is(listed.length, 1);
  t.like(listed[0], { id, head: 'v2' });
  const pathCli = await runCli(['path', '--root', rootDir, id]);
  t.is(listed[0].path, pathCli.stdout.trim(), pathCli.stderr);

  const log = await runCli(['log', '--root', rootDir, '--id', id, '--json']);
  t.is(log.code, 0, log.stderr);
  t.like(JSON.parse(log.stdout), [
    { version: 'v1', message: 'first', user: { name: 'Ada', address: 'mailto:ada@example.org' }, fileCount: 2 },
    { version: 'v2', message: 'second', user: { name: 'Bob' }, fileCount: 2 },
  ]);

  const show1 = await runCli(['show', '--root', rootDir, '--id', id, '--version', 'v1', '--json']);
  t.is(show1.code, 0, show1.stderr);
  t.deepEqual(JSON.parse(show1.stdout).files, [
    { logicalPath: 'keep.txt', digest: sha512('keep'), contentPath: 'v1/content/keep.txt', size: 4 },
    { logicalPath: 'sub/drop.txt', digest: sha512('drop'), contentPath: 'v1/content/sub/drop.txt', size: 4 },
  ]);
  const show2 = await runCli(['show', '--root', rootDir, '--id', id]);
  t.is(show2.stdout, `keep.txt\tv1/content/keep.txt\t${sha512('keep')}\t4\nnew.txt\tv2/content/new.txt\t${sha512('new')}\t3\n`);

  const dest = path.join(base, 'out');
  const co = await runCli(['checkout', '--root', rootDir, '--id', id, '--version', 'v1', dest]);
  t.is(co.code, 0, co.stderr);
  t.deepEqual(readdirSync(dest, { recursive: true, encoding: 'utf8' }).sort(), ['keep.txt', 'sub', 'sub/drop.txt']);
  t.is(readFileSync(path.join(dest, 'sub', 'drop.txt'), 'utf8'), 'drop');
});

test('verbs name what is missing: unknown object, unknown version, bad --digest', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  t.is((await runCli(['init', rootDir])).code, 0);
  const log = await runCli(['log', '--root', rootDir, '--id', 'nobody']);
  t.is(log.code, 2);
  t.is(log.stderr, `siard-ocfl: Storage root ${rootDir} holds no object "nobody".\n`);
  const input = path.join(base, 'in');
  mkdirSync(input);
  writeFileSync(path.join(input, 'a'), 'a');
  t.is((await runCli(['put', '--root', rootDir, '--id', 'o', input])).code, 0);
  const show = await runCli(['show', '--root', rootDir, '--id', 'o', '--version', 'v7']);
  t.is(show.code, 2);
  t.is(show.stderr, 'siard-ocfl: Object "o" has no version v7 (head is v1).\n');
  const digest = await runCli(['put', '--root', rootDir, '--id', 'p', input, '--digest', 'md5']);
  t.is(digest.code, 2);
  t.is(digest.stderr, 'siard-ocfl: --digest must be sha512 or sha256, not "md5".\n');
  const fixity = await runCli(['put', '--root', rootDir, '--id', 'p', input, '--fixity', 'crc32']);
  t.is(fixity.code, 2);
  t.regex(fixity.stderr, /Unknown digest algorithm "crc32"/);
});
