/**
 * A checkout that fails half-way removes everything it wrote (issue "A database of a million
 * LOBs": 5,605 of 5,906 files were left without a word). The failure here is real: one content
 * file of the object is damaged on disk, so its digest no longer matches the inventory; files are
 * copied many at a time, so others are already written when the damage is found.
 */
import test from 'ava';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const USER = ['--user-name', 'Test', '--user-address', 'mailto:test@example.org'];

async function damagedObject(): Promise<{ dir: string; root: string; id: string }> {
  const dir = tempDir();
  const input = path.join(dir, 'in');
  for (let i = 0; i < 600; i++) {
    const sub = path.join(input, `seg_${Math.floor(i / 100)}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(path.join(sub, `record${i}.bin`), `record ${i}\n`);
  }
  const root = path.join(dir, 'root');
  const id = 'urn:test:checkout-cleanup';
  t0((await runCli(['init', root])).code);
  t0((await runCli(['put', '--root', root, '--id', id, input, ...USER])).code);
  const objectPath = (await runCli(['path', '--root', root, id])).stdout.trim();
  // The last file in path order: most of the others are written before it is verified.
  writeFileSync(path.join(root, objectPath, 'v1', 'content', 'seg_5', 'record599.bin'), 'damaged\n');
  return { dir, root, id };
}

function t0(code: number): void {
  if (code !== 0) throw new Error(`setup command exited ${code}`);
}

test('a checkout that meets a damaged file exits 1 and leaves no destination behind', async (t) => {
  const { dir, root, id } = await damagedObject();
  const dest = path.join(dir, 'copy');
  const r = await runCli(['checkout', '--root', root, '--id', id, dest]);
  t.is(r.code, 1, r.stderr);
  t.regex(r.stderr, /record599\.bin/);
  t.regex(r.stderr, /checkout was removed/);
  t.false(existsSync(dest), 'the destination it created is gone');
});

test('a checkout into an existing empty folder that fails leaves the folder empty', async (t) => {
  const { dir, root, id } = await damagedObject();
  const dest = path.join(dir, 'existing');
  mkdirSync(dest);
  const r = await runCli(['checkout', '--root', root, '--id', id, dest]);
  t.is(r.code, 1, r.stderr);
  t.true(existsSync(dest), 'the folder the user made is kept');
  t.deepEqual(readdirSync(dest), [], 'and holds nothing the checkout wrote');
});
