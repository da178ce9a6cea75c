/**
 * put of a folder large enough for the hashing threads (src/ocfl/add-local-files.ts): each file is
 * copied into the stage and hashed in one read on another thread. The version must hold exactly
 * the folder, every digest right (computed here independently), duplicates stored once, fixity
 * for every content file, and the object valid.
 */
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/tmp.js';

const USER = ['--user-name', 'Test', '--user-address', 'mailto:test@example.org'];

test('put of 1,600 files through the hashing threads: exact state, digests, fixity, duplicates once, valid', async (t) => {
  const dir = tempDir();
  const input = path.join(dir, 'in');
  const expected = new Map<string, Buffer>();
  for (let i = 0; i < 1600; i++) {
    const sub = path.join(input, `seg_${i % 7}`);
    mkdirSync(sub, { recursive: true });
    // Every 10th file repeats the content of file 0; a few are large (past the one-read buffer).
    const bytes = i % 10 === 0 ? Buffer.from('the same content\n') : i % 200 === 1 ? randomBytes(1536 * 1024) : randomBytes(100 + (i % 900));
    writeFileSync(path.join(sub, `f${i}.bin`), bytes);
    expected.set(`seg_${i % 7}/f${i}.bin`, bytes);
  }
  const root = path.join(dir, 'root');
  t.is((await runCli(['init', root])).code, 0);
  const put = await runCli(['put', '--root', root, '--id', 'urn:test:pool', input, '--fixity', 'md5', '--json', ...USER]);
  t.is(put.code, 0, put.stderr);
  t.deepEqual(JSON.parse(put.stdout).files, 1600);
  t.is(JSON.parse(put.stdout).stored, 1600 - 159, 'the 160 identical files stored once');
  const objectPath = (await runCli(['path', '--root', root, 'urn:test:pool'])).stdout.trim();
  const inv = JSON.parse(readFileSync(path.join(root, objectPath, 'inventory.json'), 'utf8'));
  const state = new Map<string, string>();
  for (const [digest, paths] of Object.entries(inv.versions.v1.state as Record<string, string[]>)) for (const p of paths) state.set(p, digest);
  t.is(state.size, expected.size);
  for (const [p, bytes] of expected) t.is(state.get(p), createHash('sha512').update(bytes).digest('hex'), p);
  const md5 = new Map<string, string>();
  for (const [digest, paths] of Object.entries(inv.fixity.md5 as Record<string, string[]>)) for (const p of paths) md5.set(p, digest);
  for (const [digest, paths] of Object.entries(inv.manifest as Record<string, string[]>)) {
    t.is(paths.length, 1);
    const bytes = readFileSync(path.join(root, objectPath, paths[0]!));
    t.is(createHash('sha512').update(bytes).digest('hex'), digest);
    t.is(md5.get(paths[0]!), createHash('md5').update(bytes).digest('hex'));
  }
  const v = await runCli(['validate', root, '--json']);
  t.is(v.code, 0, v.stdout);
});
