/**
 * The validator against hostile input: absurd JSON, digests that are not hex, paths escaping the
 * object, links, special files, oversized inventories. Each gives a clear finding; none crashes,
 * hangs, or reads outside the object.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { validateObject, validateStorageRoot, type ValidationResult } from '../../src/ocfl/validate/index.js';
import { MAX_PER_CODE, MAX_PER_CODE_AND_PATH } from '../../src/ocfl/validate/findings.js';
import { MAX_INVENTORY_BYTES } from '../../src/ocfl/validate/read.js';
import { tempDir } from '../helpers/tmp.js';

const sha512 = (data: string | Buffer) => createHash('sha512').update(data).digest('hex');
const codes = (r: ValidationResult) => [...new Set([...r.errors, ...r.warnings].map((f) => f.code))].sort();
const describe = (r: ValidationResult) => [...r.errors, ...r.warnings].map((f) => `${f.code} ${f.message}`).join('\n');

type Inv = Record<string, any>;

/** Writes a one-version OCFL 1.1 object by hand (not with our writer, so any inventory can be made). */
function makeObject(dir: string, files: Record<string, string>, mutate?: (inv: Inv) => void, rawInventory?: string | Buffer): string {
  mkdirSync(path.join(dir, 'v1', 'content'), { recursive: true });
  writeFileSync(path.join(dir, '0=ocfl_object_1.1'), 'ocfl_object_1.1\n');
  const manifest: Record<string, string[]> = {};
  const state: Record<string, string[]> = {};
  for (const [p, body] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, 'v1', 'content', p)), { recursive: true });
    writeFileSync(path.join(dir, 'v1', 'content', p), body);
    const d = sha512(body);
    (manifest[d] ??= []).push(`v1/content/${p}`);
    (state[d] ??= []).push(p);
  }
  const inv: Inv = {
    id: 'urn:example:hostile',
    type: 'https://ocfl.io/1.1/spec/#inventory',
    digestAlgorithm: 'sha512',
    head: 'v1',
    manifest,
    versions: { v1: { created: '2024-01-01T00:00:00Z', message: 'm', user: { name: 'n', address: 'mailto:n@example.org' }, state } },
  };
  mutate?.(inv);
  const bytes = rawInventory ?? JSON.stringify(inv, null, 2);
  for (const where of ['', 'v1']) {
    writeFileSync(path.join(dir, where, 'inventory.json'), bytes);
    writeFileSync(path.join(dir, where, 'inventory.json.sha512'), `${sha512(bytes)}  inventory.json\n`);
  }
  return dir;
}

test('the hand-made object is valid (so every finding below comes from the change made)', async (t) => {
  const r = await validateObject(makeObject(tempDir(), { 'a.txt': 'a', 'sub/b.txt': 'b' }));
  t.true(r.valid, describe(r));
  t.deepEqual(r.warnings, []);
  t.is(r.files, 2);
  t.is(r.bytes, 2);
});

test('inventory JSON nested a million levels deep: E033, no crash', async (t) => {
  const deep = '['.repeat(1_000_000) + ']'.repeat(1_000_000);
  const r = await validateObject(makeObject(tempDir(), { 'a.txt': 'a' }, undefined, deep));
  t.false(r.valid);
  t.true(codes(r).includes('E033'));
});

test('deeply nested values inside the keys the specification defines: findings, no crash', async (t) => {
  // Built as text: the value is deeper than JSON.stringify (and any recursive walk) can handle.
  const nest = (depth: number) => '{"a":['.repeat(depth) + '"x"' + ']}'.repeat(depth);
  const dir = tempDir();
  let template = '';
  makeObject(dir, { 'a.txt': 'a' }, (inv) => {
    inv.id = '@ID@';
    inv.versions.v1.user = '@USER@';
    inv.versions.v1.message = '@MESSAGE@';
    inv.fixity = { md5: '@FIXITY@' };
    template = JSON.stringify(inv);
  });
  const raw = template
    .replace('"@ID@"', nest(5000))
    .replace('"@USER@"', nest(5000))
    .replace('"@MESSAGE@"', nest(5000))
    .replace('"@FIXITY@"', nest(3000));
  makeObject(dir, { 'a.txt': 'a' }, undefined, raw);
  const r = await validateObject(dir);
  t.false(r.valid);
  for (const code of ['E037', 'E054', 'E094', 'E057']) t.true(codes(r).includes(code), `${code}\n${describe(r)}`);
});

test('inventories that are not objects, or hold every key with the wrong type', async (t) => {
  for (const raw of ['null', '[]', '42', '"text"', '{', Buffer.from([0xff, 0xfe, 0x7b, 0x7d])]) {
    const r = await validateObject(makeObject(tempDir(), { 'a.txt': 'a' }, undefined, raw));
    t.true(codes(r).includes('E033'), String(raw));
  }
  const r = await validateObject(
    makeObject(tempDir(), { 'a.txt': 'a' }, (inv) => {
      inv.id = 7;
      inv.type = ['x'];
      inv.digestAlgorithm = { a: 1 };
      inv.head = 1;
      inv.contentDirectory = '../..';
      inv.manifest = [];
      inv.versions = 'v1';
      inv.fixity = 'no';
      inv.extra = true;
    }),
  );
  t.false(r.valid);
  t.deepEqual(
    codes(r).filter((c) => c.startsWith('E')),
    ['E017', 'E025', 'E037', 'E038', 'E040', 'E045', 'E102', 'E106', 'E111'].sort(),
    describe(r),
  );
});

test('digests that are not hex, or of the wrong length, are E025 (manifest), E050 (state) and E057 (fixity)', async (t) => {
  const r = await validateObject(
    makeObject(tempDir(), { 'a.txt': 'a' }, (inv) => {
      const [d] = Object.keys(inv.manifest);
      const bad = 'z'.repeat(128);
      inv.manifest = { [bad]: inv.manifest[d] };
      inv.versions.v1.state = { [bad]: ['a.txt'] };
      inv.fixity = { md5: { 'not-hex!': ['v1/content/a.txt'] } };
    }),
  );
  t.false(r.valid);
  for (const code of ['E025', 'E050', 'E057']) t.true(codes(r).includes(code), `${code}\n${describe(r)}`);
});

test('content paths escaping the object are refused and never read, not even a FIFO outside', async (t) => {
  const base = tempDir();
  // A FIFO: reading it would block for ever, so the test hangs if the validator ever opens it.
  execFileSync('mkfifo', [path.join(base, 'outside.fifo')]);
  writeFileSync(path.join(base, 'secret.txt'), 'secret');
  const dir = makeObject(path.join(base, 'obj'), { 'a.txt': 'a' }, (inv) => {
    inv.manifest[sha512('secret')] = ['v1/content/../../secret.txt'];
    inv.manifest[sha512('fifo')] = ['v1/content/../../outside.fifo', '/etc/passwd'];
    inv.versions.v1.state[sha512('secret')] = ['../secret.txt'];
    inv.versions.v1.state[sha512('fifo')] = ['/abs'];
    inv.fixity = { sha256: { ['0'.repeat(64)]: ['v1/content/../../secret.txt'] } };
  });
  const r = await validateObject(dir);
  t.false(r.valid);
  for (const code of ['E099', 'E100', 'E052', 'E053']) t.true(codes(r).includes(code), `${code}\n${describe(r)}`);
  t.false(r.errors.some((f) => f.message.includes(sha512('secret').slice(0, 20)) && f.code === 'E092'));
});

test('links inside the object are E090 and are not followed', async (t) => {
  const base = tempDir();
  execFileSync('mkfifo', [path.join(base, 'outside.fifo')]);
  const dir = makeObject(path.join(base, 'obj'), { 'a.txt': 'a' }, (inv) => {
    inv.manifest[sha512('x')] = ['v1/content/link.txt'];
    inv.versions.v1.state[sha512('x')] = ['link.txt'];
  });
  symlinkSync(path.join(base, 'outside.fifo'), path.join(dir, 'v1', 'content', 'link.txt'));
  symlinkSync(base, path.join(dir, 'v1', 'content', 'dirlink'));
  symlinkSync(base, path.join(dir, 'rootlink'));
  const r = await validateObject(dir);
  t.false(r.valid);
  t.true(codes(r).includes('E090'));
  t.is(r.errors.filter((f) => f.code === 'E090').length, 3, describe(r));
  // The linked-to "file" does not exist as content: E092, not a read of the FIFO.
  t.true(r.errors.some((f) => f.code === 'E092' && f.path.endsWith('link.txt')));
});

test('an inventory larger than the limit is E033 without being read', async (t) => {
  const dir = makeObject(tempDir(), { 'a.txt': 'a' });
  // A sparse file: no disk space used, and reading it would take long and much memory.
  truncateSync(path.join(dir, 'inventory.json'), MAX_INVENTORY_BYTES + 1);
  const r = await validateObject(dir);
  t.true(
    r.errors.some((f) => f.code === 'E033' && /too-large/.test(f.message)),
    describe(r),
  );
});

test('a flood of bad keys is capped per code and path', async (t) => {
  const r = await validateObject(
    makeObject(tempDir(), { 'a.txt': 'a' }, (inv) => {
      for (let i = 0; i < 10_000; i++) inv[`junk${i}`] = i;
    }),
  );
  const e102 = r.errors.filter((f) => f.code === 'E102');
  t.is(e102.length, MAX_PER_CODE_AND_PATH + 1);
  t.regex(e102.at(-1)!.message, /not listed/);
});

test('version names with huge numbers and odd forms are findings, not crashes', async (t) => {
  const r = await validateObject(
    makeObject(tempDir(), { 'a.txt': 'a' }, (inv) => {
      inv.versions['v99999999999999999999999'] = inv.versions.v1;
      inv.versions['v-1'] = inv.versions.v1;
      inv.versions['v0'] = inv.versions.v1;
    }),
  );
  t.false(r.valid);
  for (const code of ['E104', 'E105']) t.true(codes(r).includes(code), describe(r));
});

test('a file changed on disk is caught by its digest, and --no-fixity skips only that', async (t) => {
  const dir = makeObject(tempDir(), { 'a.txt': 'a', 'b.txt': 'b' });
  writeFileSync(path.join(dir, 'v1', 'content', 'b.txt'), 'B');
  const r = await validateObject(dir);
  t.deepEqual(codes(r), ['E092']);
  t.is(r.errors[0].path, path.join(dir, 'v1/content/b.txt'));
  t.true((await validateObject(dir, { fixity: false })).valid);
});

test('a storage root with a link, a stray file in a hierarchy, an unknown declaration and bad ocfl_layout.json', async (t) => {
  const root = tempDir();
  writeFileSync(path.join(root, '0=ocfl_1.1'), 'ocfl_1.1\n');
  writeFileSync(path.join(root, 'ocfl_layout.json'), '{"description": 5}');
  writeFileSync(path.join(root, 'README.txt'), 'top-level files are ignored (E087)');
  makeObject(path.join(root, 'ab', 'obj'), { 'a.txt': 'a' });
  writeFileSync(path.join(root, 'ab', 'stray.txt'), 'x');
  symlinkSync(root, path.join(root, 'loop'));
  mkdirSync(path.join(root, 'extensions'));
  writeFileSync(path.join(root, 'extensions', 'file'), 'x');
  const r = await validateStorageRoot(root);
  t.deepEqual(codes(r), ['E070', 'E072', 'E090', 'E112'], describe(r));
  t.is(r.objects, 1);
});

// ------------------------------------------------ codes that no fixture shows, one case each

const only = async (t: import('ava').ExecutionContext, dir: string, code: string) => {
  const r = await validateObject(dir);
  t.false(r.valid);
  t.true(codes(r).includes(code), `${code} expected, got:\n${describe(r)}`);
};

test('E012: version names padded two ways', async (t) => {
  await only(
    t,
    makeObject(tempDir(), { 'a.txt': 'a' }, (inv) => {
      inv.versions = { v01: inv.versions.v1, v002: { ...inv.versions.v1 } };
      inv.head = 'v002';
    }),
    'E012',
  );
});

test('E018: contentDirectory ".."', async (t) => {
  await only(
    t,
    makeObject(tempDir(), { 'a.txt': 'a' }, (inv) => (inv.contentDirectory = '..')),
    'E018',
  );
});

test('E043: no versions block', async (t) => {
  await only(
    t,
    makeObject(tempDir(), { 'a.txt': 'a' }, (inv) => delete inv.versions),
    'E043',
  );
});

test('E047 and E048: a version that is not an object, one without created and state', async (t) => {
  await only(
    t,
    makeObject(tempDir(), { 'a.txt': 'a' }, (inv) => (inv.versions.v1 = 'v1')),
    'E047',
  );
  await only(
    t,
    makeObject(tempDir(), { 'a.txt': 'a' }, (inv) => {
      delete inv.versions.v1.created;
      delete inv.versions.v1.state;
    }),
    'E048',
  );
});

test('E051: a logical path that is not a string', async (t) => {
  await only(
    t,
    makeObject(tempDir(), { 'a.txt': 'a' }, (inv) => {
      const [d] = Object.keys(inv.versions.v1.state);
      inv.versions.v1.state[d].push(42);
    }),
    'E051',
  );
});

test('E110 (and E037): the id changes between versions', async (t) => {
  const dir = makeObject(tempDir(), { 'a.txt': 'a' });
  const v1 = JSON.parse(execFileSync('cat', [path.join(dir, 'v1', 'inventory.json')]).toString());
  v1.id = 'urn:example:other';
  // Make v1 an earlier version: a v2 with the same state becomes the head.
  const root = {
    ...v1,
    id: 'urn:example:hostile',
    head: 'v2',
    versions: { v1: v1.versions.v1, v2: { ...v1.versions.v1, created: '2024-01-02T00:00:00Z' } },
  };
  const v1Bytes = JSON.stringify(v1);
  const rootBytes = JSON.stringify(root);
  writeFileSync(path.join(dir, 'v1', 'inventory.json'), v1Bytes);
  writeFileSync(path.join(dir, 'v1', 'inventory.json.sha512'), `${sha512(v1Bytes)} inventory.json\n`);
  mkdirSync(path.join(dir, 'v2'));
  for (const where of ['', 'v2']) {
    writeFileSync(path.join(dir, where, 'inventory.json'), rootBytes);
    writeFileSync(path.join(dir, where, 'inventory.json.sha512'), `${sha512(rootBytes)} inventory.json\n`);
  }
  const r = await validateObject(dir);
  t.deepEqual(codes(r), ['E037', 'E110'], describe(r));
});

test('E080 and E081: a root declaration with wrong contents; an object newer than its root', async (t) => {
  const root = tempDir();
  writeFileSync(path.join(root, '0=ocfl_1.0'), 'ocfl_1.0');
  makeObject(path.join(root, 'obj'), { 'a.txt': 'a' });
  const r = await validateStorageRoot(root);
  t.deepEqual(codes(r), ['E080', 'E081'], describe(r));
});

test('E019: contentDirectory set by the root inventory (v2) but not by the first version', async (t) => {
  const dir = makeObject(tempDir(), { 'a.txt': 'a' });
  const v1 = JSON.parse(execFileSync('cat', [path.join(dir, 'v1', 'inventory.json')]).toString());
  const root = {
    ...v1,
    contentDirectory: 'content',
    head: 'v2',
    versions: { v1: v1.versions.v1, v2: { ...v1.versions.v1, created: '2024-01-02T00:00:00Z' } },
  };
  const rootBytes = JSON.stringify(root);
  mkdirSync(path.join(dir, 'v2'));
  for (const where of ['', 'v2']) {
    writeFileSync(path.join(dir, where, 'inventory.json'), rootBytes);
    writeFileSync(path.join(dir, where, 'inventory.json.sha512'), `${sha512(rootBytes)} inventory.json\n`);
  }
  const r = await validateObject(dir);
  t.deepEqual(codes(r), ['E019'], describe(r));
  t.is(r.errors[0].path, path.join(dir, 'inventory.json'));
});

test('thousands of stray files: each code is listed at most MAX_PER_CODE times, then summarised', async (t) => {
  const dir = makeObject(tempDir(), { 'a.txt': 'a' });
  mkdirSync(path.join(dir, 'v1', 'content', 'stray'));
  for (let i = 0; i < MAX_PER_CODE + 200; i++) writeFileSync(path.join(dir, 'v1', 'content', 'stray', `${i}.txt`), '');
  const r = await validateObject(dir);
  const e023 = r.errors.filter((f) => f.code === 'E023');
  t.is(e023.length, MAX_PER_CODE + 1);
  t.regex(e023.at(-1)!.message, /More E023 findings are not listed/);
  t.is(r.files, MAX_PER_CODE + 201, 'every file is still counted');
});
