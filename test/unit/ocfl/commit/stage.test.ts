/**
 * The staged-version API beyond the v1/v2 acceptance test: fixity completed for older content,
 * write streams, sha256 objects, 1.0 roots, where the workspace may lie, and a workspace folder
 * adopted (folders moved in whole, the rest linked; given back on abort).
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadLayout0003 } from '../../../../src/ocfl/layout/extensions.js';
import { parseInventory } from '../../../../src/ocfl/inventory/inventory.js';
import { initRoot, openRoot } from '../../../../src/ocfl/root.js';
import { diskTempDir, tempDir } from '../../../helpers/tmp.js';
import { headInventory } from '../../../helpers/fixture-inventories.js';
import { PassThrough } from 'node:stream';

const hex = (alg: string, data: string | Buffer) => createHash(alg).update(data).digest('hex');

test('fixity asked for later covers the content of earlier versions too, each value computed from the bytes', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  let staged = await root.startVersion('fx');
  await staged.addBuffer('old.txt', 'stored in v1 without fixity');
  await staged.addBuffer('again.txt', 'met again in v2');
  await staged.commit();
  staged = await root.startVersion('fx', { fixityAlgorithms: ['md5', 'sha1'] });
  await staged.addBuffer('again.txt', 'met again in v2');
  await staged.addBuffer('new.txt', 'new in v2');
  await staged.commit();
  const inventory = headInventory(root, 'fx');
  const objectDir = path.join(rootDir, root.objectPath('fx'));
  const expected: Record<string, Record<string, string[]>> = { md5: {}, sha1: {} };
  for (const cp of Object.values(inventory.manifest).flat()) {
    const bytes = readFileSync(path.join(objectDir, cp));
    for (const alg of ['md5', 'sha1']) (expected[alg][hex(alg, bytes)] ??= []).push(cp);
  }
  t.is(Object.values(inventory.manifest).flat().length, 3);
  t.deepEqual(parseInventory(readFileSync(path.join(objectDir, 'inventory.json'))).fixity, expected);
});

test('addStream stages pushed bytes and reports their digests; sha256 objects work', async (t) => {
  const base = tempDir();
  const root = await initRoot(path.join(base, 'root'), await loadLayout0003());
  const staged = await root.startVersion('ws', { digestAlgorithm: 'sha256', fixityAlgorithms: ['md5'] });
  const stream = new PassThrough();
  const added = staged.addStream('lob/record0.bin', stream);
  const parts = [Buffer.alloc(300_000, 1), Buffer.alloc(5, 2), Buffer.from('end')];
  for (const p of parts) stream.write(p);
  stream.end();
  const file = await added;
  const whole = Buffer.concat(parts);
  t.deepEqual(file.digests, { sha256: hex('sha256', whole), md5: hex('md5', whole) });
  t.is(file.size, whole.length);
  t.deepEqual(staged.digestsOf('lob/record0.bin'), file.digests);
  await t.throwsAsync(staged.addStream('../escape', [Buffer.from('x')]), { message: /is refused/ });
  await staged.commit();
  const inventory = headInventory(root, 'ws');
  t.is(inventory.digestAlgorithm, 'sha256');
  const objectDir = path.join(base, 'root', root.objectPath('ws'));
  t.true(existsSync(path.join(objectDir, 'inventory.json.sha256')));
  const reader = await root.openObject('ws');
  t.deepEqual(await reader.readLogical('lob/record0.bin'), whole);
});

test('a new object in an OCFL 1.0 root is a 1.0 object', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  await initRoot(rootDir, await loadLayout0003());
  // Turn the fresh root into a 1.0 root (same layout files).
  const fs = await import('node:fs/promises');
  await fs.rename(path.join(rootDir, '0=ocfl_1.1'), path.join(rootDir, '0=ocfl_1.0'));
  writeFileSync(path.join(rootDir, '0=ocfl_1.0'), 'ocfl_1.0\n');
  const root = await openRoot(rootDir);
  t.is(root.ocflVersion, '1.0');
  const staged = await root.startVersion('old-style');
  await staged.addBuffer('a', 'a');
  await staged.commit();
  t.is(headInventory(root, 'old-style').type, 'https://ocfl.io/1.0/spec/#inventory');
  const objectDir = path.join(rootDir, root.objectPath('old-style'));
  t.is(readFileSync(path.join(objectDir, '0=ocfl_object_1.0'), 'utf8'), 'ocfl_object_1.0\n');
  t.false(existsSync(path.join(objectDir, '0=ocfl_object_1.1')));
});

test('a version user without a name is refused at commit; nothing is published', async (t) => {
  const rootDir = path.join(tempDir(), 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  const staged = await root.startVersion('nameless');
  await staged.addBuffer('a', 'a');
  await t.throwsAsync(staged.commit({ user: { name: '', address: 'mailto:a@example.org' } }), { message: /needs a name/ });
  t.false(existsSync(path.join(rootDir, root.objectPath('nameless'))));
});

test('a workspace inside the storage root is refused; nothing is written', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  await initRoot(rootDir, await loadLayout0003());
  const before = readdirSync(rootDir).sort();
  const root = await openRoot(rootDir, { workspaceDir: path.join(rootDir, 'work') });
  await t.throwsAsync(root.startVersion('x'), { message: /lies inside the storage root/ });
  t.deepEqual(readdirSync(rootDir).sort(), before);
});

const shm = '/dev/shm';
// The root on a disk: the run's own temporary folder is in /dev/shm too (runner/test-temp.ts).
const otherDevice = existsSync(shm) && statSync(shm).dev !== statSync(diskTempDir()).dev;
(otherDevice ? test : test.skip)('a workspace on another filesystem is refused (no atomic rename across devices)', async (t) => {
  const base = diskTempDir();
  const rootDir = path.join(base, 'root');
  await initRoot(rootDir, await loadLayout0003());
  const ws = path.join(shm, `siard-ocfl-test-ws-${process.pid}`);
  mkdirSync(ws, { recursive: true });
  try {
    const root = await openRoot(rootDir, { workspaceDir: ws });
    await t.throwsAsync(root.startVersion('x'), { message: /is on another filesystem than the storage root/ });
    t.deepEqual(readdirSync(ws), []);
  } finally {
    (await import('node:fs')).rmSync(ws, { recursive: true, force: true });
  }
});

test('an existing object path holding another id is refused', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  const staged = await root.startVersion('real-id');
  await staged.addBuffer('a', 'a');
  await staged.commit();
  const invPath = path.join(rootDir, root.objectPath('real-id'), 'inventory.json');
  const inv = JSON.parse(readFileSync(invPath, 'utf8'));
  inv.id = 'someone-else';
  const bytes = JSON.stringify(inv, null, 2);
  writeFileSync(invPath, bytes);
  writeFileSync(invPath + '.sha512', `${hex('sha512', bytes)} inventory.json\n`);
  await t.throwsAsync(root.startVersion('real-id'), { message: /holds object "someone-else"/ });
  await t.throwsAsync(root.openObject('real-id'), { message: /has id "someone-else", not "real-id"/ });
});

test('an inventory that matches neither its sidecar nor its head copy is refused by readers and writers', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  const staged = await root.startVersion('tampered');
  await staged.addBuffer('a', 'a');
  await staged.commit();
  const invPath = path.join(rootDir, root.objectPath('tampered'), 'inventory.json');
  writeFileSync(invPath, readFileSync(invPath, 'utf8').replace('"head": "v1"', '"head":  "v1"'));
  await t.throwsAsync(root.openObject('tampered'), { message: /does not match its sha512 sidecar/ });
  await t.throwsAsync(root.startVersion('tampered'), { message: /does not match its sha512 sidecar/ });
});

test('initRoot takes a plain layout config; root-level openLogical and contentPath', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  const root = await initRoot(rootDir, {
    extensionName: '0003-hash-and-id-n-tuple-storage-layout',
    digestAlgorithm: 'md5',
    tupleSize: 2,
    numberOfTuples: 1,
  } as { extensionName: string });
  t.is(root.objectPath('abc'), `${hex('md5', 'abc').slice(0, 2)}/abc`);
  let staged = await root.startVersion('abc');
  await staged.addBuffer('x/y.txt', 'first');
  await staged.commit();
  staged = await root.startVersion('abc');
  await staged.addBuffer('x/y.txt', 'second');
  await staged.commit();
  const chunks: Buffer[] = [];
  for await (const c of await root.openLogical('abc', 'v1', 'x/y.txt')) chunks.push(c as Buffer);
  t.is(Buffer.concat(chunks).toString(), 'first');
  t.is(await root.contentPath('abc', undefined, 'x/y.txt'), 'v2/content/x/y.txt');
  t.is(await root.contentPath('abc', 'v1', 'x/y.txt'), 'v1/content/x/y.txt');
});

test("a writer handed a reader's inventory reuses it only while the object is at those bytes", async (t) => {
  const rootDir = path.join(tempDir(), 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  let staged = await root.startVersion('kn');
  // A logical path JSON writes with an escape: the inventory is not of the plain shape, and readers parse it in full (into the one view).
  await staged.addBuffer('a"1.txt', 'a in v1');
  await staged.commit();
  // Unchanged since it was read: the reader's view is the new version's base.
  const reader = await root.openObject('kn');
  const known = reader.known();
  t.true(known !== undefined && 'view' in known, 'a reader of an inventory parsed in full hands over its view, as any reader');
  staged = await root.startVersion('kn', { known });
  t.is(staged.version, 'v2');
  await staged.addBuffer('b.txt', 'b in v2');
  await staged.commit();
  t.deepEqual(
    reader.versions().map((v) => v.version),
    ['v1'],
    "the reader's inventory was not changed by the writer",
  );
  // Stale (another writer committed v2 since): the inventory is read again, and v3 follows v2.
  staged = await root.startVersion('kn', { known });
  t.is(staged.version, 'v3');
  t.deepEqual([...staged.currentState().keys()], ['a"1.txt', 'b.txt']);
  await staged.addBuffer('c.txt', 'c in v3');
  await staged.commit();
  const inventory = headInventory(root, 'kn');
  t.deepEqual(Object.keys(inventory.versions), ['v1', 'v2', 'v3']);
  t.deepEqual(Object.values(inventory.versions.v3!.state).flat().sort(), ['a"1.txt', 'b.txt', 'c.txt']);
});

test("a writer handed a reader's compact view uses that view while the object is at those bytes, else reads it again", async (t) => {
  const rootDir = path.join(tempDir(), 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  let staged = await root.startVersion('kv', { fixityAlgorithms: ['md5'] });
  await staged.addBuffer('a.txt', 'a in v1');
  await staged.commit();
  const reader = await root.openObject('kv');
  const known = reader.known();
  if (!known || !('view' in known)) return t.fail('a reader of a plain inventory holds its compact view');
  // The base of the new version is the reader's own view: no second view of a large inventory.
  const baseView = (s: unknown) => (s as { base: unknown }).base;
  staged = await root.startVersion('kv', { known, fixityAlgorithms: ['md5'] });
  t.is(baseView(staged), known.view);
  await staged.addBuffer('b.txt', 'b in v2');
  await staged.commit();
  // Stale (v2 committed since it was read): a view of the new bytes, and v3 follows v2.
  staged = await root.startVersion('kv', { known, fixityAlgorithms: ['md5'] });
  t.not(baseView(staged), known.view);
  t.is(staged.version, 'v3');
  t.deepEqual([...staged.currentState().keys()], ['a.txt', 'b.txt']);
  await staged.addBuffer('c.txt', 'c in v3');
  await staged.commit();
  const inventory = headInventory(root, 'kv');
  t.deepEqual(Object.keys(inventory.versions), ['v1', 'v2', 'v3']);
  t.deepEqual(Object.keys(inventory.fixity!.md5!).length, 3, 'the fixity of every version is carried over');
  t.deepEqual(
    reader.versions().map((v) => v.version),
    ['v1'],
    "the reader's view was not changed by the writer",
  );
});

/** Files written into a resumable work folder of `root`'s workspace, with their sha512 and sha256. */
function workFiles(dir: string, files: Record<string, string>) {
  for (const [rel, body] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), body);
  }
  return () =>
    (async function* () {
      for (const [relPath, body] of Object.entries(files))
        yield { relPath, size: Buffer.byteLength(body), digests: { sha512: hex('sha512', body), sha256: hex('sha256', body) } };
    })();
}

test('adoptFolder moves folders of new content in whole, links the rest, and makes the object addFile makes', async (t) => {
  const base = tempDir();
  const files = {
    'db.siard': 'the archive',
    'lobs_0/t0/r0.bin': 'zero',
    'lobs_0/t0/r1.bin': 'one',
    'lobs_0/t1/r2.bin': 'two',
    'lobs_0/t1/r3.bin': 'zero', // the content of r0: stored once, so its folder is linked file by file
    'lobs_1/t2/r4.bin': 'four',
  };
  const root = await initRoot(path.join(base, 'root'), await loadLayout0003());
  const work = (await root.resumableWork('ad'))!;
  const list = workFiles(path.join(work.dir, 'x'), files);
  const staged = await root.startVersion('ad', { fixityAlgorithms: ['sha256'] });
  const told: string[] = [];
  await staged.adoptFolder(`${work.inWorkspace}/x`, list, async (added) => void told.push(`${added.logicalPath} ${added.stored}`));
  t.deepEqual(
    told.sort(),
    Object.keys(files)
      .map((p) => `${p} ${p !== 'lobs_0/t1/r3.bin'}`)
      .sort(),
  );
  // moved: the folders of new content only (lobs_1 whole, lobs_0/t0); linked: the .siard and lobs_0/t1's file
  t.false(existsSync(path.join(work.dir, 'x', 'lobs_1')));
  t.false(existsSync(path.join(work.dir, 'x', 'lobs_0', 't0')));
  t.deepEqual(readdirSync(path.join(work.dir, 'x', 'lobs_0', 't1')).sort(), ['r2.bin', 'r3.bin']);
  t.is(statSync(path.join(work.dir, 'x', 'db.siard')).nlink, 2);
  await staged.commit();
  const inventory = headInventory(root, 'ad');

  const ref = await initRoot(path.join(base, 'ref'), await loadLayout0003());
  const direct = await ref.startVersion('ad', { fixityAlgorithms: ['sha256'] });
  for (const [p, body] of Object.entries(files)) await direct.addBuffer(p, body);
  await direct.commit();
  const expected = headInventory(ref, 'ad');
  t.deepEqual(inventory.manifest, expected.manifest);
  t.deepEqual(inventory.fixity, expected.fixity);
  t.deepEqual(inventory.versions.v1!.state, expected.versions.v1!.state);
  const reader = await root.openObject('ad');
  for (const [p, body] of Object.entries(files)) t.is((await reader.readLogical(p)).toString(), body, p);
});

test('adoptFolder then abort: the moved folders are back in the work folder, nothing lost', async (t) => {
  const base = tempDir();
  const files = { 'a.siard': 'archive', 'lobs_0/t0/r0.bin': 'zero', 'lobs_0/t0/r1.bin': 'one' };
  const root = await initRoot(path.join(base, 'root'), await loadLayout0003());
  const work = (await root.resumableWork('ab'))!;
  const staged = await root.startVersion('ab');
  await staged.adoptFolder(`${work.inWorkspace}/x`, workFiles(path.join(work.dir, 'x'), files), async () => undefined);
  t.false(existsSync(path.join(work.dir, 'x', 'lobs_0')));
  await staged.abort();
  for (const [p, body] of Object.entries(files)) t.is(readFileSync(path.join(work.dir, 'x', p), 'utf8'), body, p);
  t.is(await root.openObject('ab').catch(() => undefined), undefined);
});
