/**
 * put of a folder large enough for the hashing threads (src/ocfl/commit/add-local-files.ts): each file is
 * copied into the stage and hashed in one read on another thread. The version must hold exactly
 * the folder, every digest right (computed here independently), duplicates stored once, fixity
 * for every content file, and the object valid.
 */
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const USER = ['--user-name', 'Test', '--user-address', 'mailto:test@example.org'];

test('put of 1,600 files through the hashing threads: exact state, digests, fixity, duplicates once, valid', async (t) => {
  const dir = tempDir();
  const input = path.join(dir, 'in');
  const expected = new Map<string, Buffer>();
  for (let i = 0; i < 1600; i++) {
    const sub = path.join(input, `seg_${i % 7}`);
    mkdirSync(sub, { recursive: true });
    // Every 10th file repeats the content of file 0; a few are large (past the one-read buffer).
    const bytes =
      i % 10 === 0 ? Buffer.from('the same content\n') : i % 200 === 1 ? randomBytes(1536 * 1024) : randomBytes(100 + (i % 900));
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
  for (const [digest, paths] of Object.entries(inv.versions.v1.state as Record<string, string[]>))
    for (const p of paths) state.set(p, digest);
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

test(
  'put v2 of an existing object through the hashing threads: ' + 'unchanged files reused, new content stored once, exact state',
  async (t) => {
    const dir = tempDir();
    const input = path.join(dir, 'in');
    const write = (rel: string, bytes: Buffer) => {
      mkdirSync(path.dirname(path.join(input, rel)), { recursive: true });
      writeFileSync(path.join(input, rel), bytes);
    };
    const v1 = new Map<string, Buffer>();
    for (let i = 0; i < 1600; i++) v1.set(`seg_${i % 8}/f${i}.bin`, randomBytes(100 + (i % 700)));
    for (const [p, b] of v1) write(p, b);
    const root = path.join(dir, 'root');
    t.is((await runCli(['init', root])).code, 0);
    t.is((await runCli(['put', '--root', root, '--id', 'urn:test:v2', input, '--fixity', 'md5', ...USER])).code, 0);

    // v2: seg_0..3 unchanged; seg_4 renamed copies of seg_0 files (content stored); seg_5..7 new
    // content, every 5th file of it the same bytes (stored once); one file removed.
    const v2 = new Map<string, Buffer>();
    const shared = randomBytes(333);
    for (const [p, b] of v1) {
      const seg = Number(/seg_(\d)/.exec(p)![1]);
      if (p === 'seg_1/f1.bin') continue;
      if (seg <= 3) v2.set(p, b);
      else if (seg === 4) v2.set(p.replace('.bin', '.copy'), v1.get(`seg_0/f${Number(/f(\d+)/.exec(p)![1]) - 4}.bin`)!);
      else v2.set(p, Number(/f(\d+)/.exec(p)![1]) % 5 === 0 ? shared : randomBytes(50 + seg * 10));
    }
    const { rmSync } = await import('node:fs');
    rmSync(input, { recursive: true });
    for (const [p, b] of v2) write(p, b);
    const put = await runCli(['put', '--root', root, '--id', 'urn:test:v2', input, '--fixity', 'md5', '--json', ...USER]);
    t.is(put.code, 0, put.stderr);
    const newContent = new Set([...v2.values()].map((b) => createHash('sha512').update(b).digest('hex')));
    for (const b of v1.values()) newContent.delete(createHash('sha512').update(b).digest('hex'));
    t.is(JSON.parse(put.stdout).files, v2.size);
    t.is(JSON.parse(put.stdout).stored, newContent.size, 'only content the object did not hold is stored');

    const objectPath = (await runCli(['path', '--root', root, 'urn:test:v2'])).stdout.trim();
    const inv = JSON.parse(readFileSync(path.join(root, objectPath, 'inventory.json'), 'utf8'));
    const state = new Map<string, string>();
    for (const [digest, paths] of Object.entries(inv.versions.v2.state as Record<string, string[]>))
      for (const p of paths) state.set(p, digest);
    t.is(state.size, v2.size);
    for (const [p, bytes] of v2) t.is(state.get(p), createHash('sha512').update(bytes).digest('hex'), p);
    const v2Paths = Object.values(inv.manifest as Record<string, string[]>)
      .flat()
      .filter((p) => p.startsWith('v2/'));
    t.is(v2Paths.length, newContent.size, 'each new content stored in v2 exactly once');
    const v = await runCli(['validate', root, '--json']);
    t.is(v.code, 0, v.stdout);
  },
);
