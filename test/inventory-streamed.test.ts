/**
 * The inventory a commit writes piece by piece (src/ocfl/inventory-chunks.ts, staged-inventory.ts,
 * commit.ts): the file holds, byte for byte, the canonical form of the inventory nextInventory
 * computes from the same staged changes, written the obvious way (one sorted copy through
 * JSON.stringify), in both copies, with sidecars that hold the digest of those bytes. Objects are
 * large enough that the inventory is written in several pieces, and hold what the grouping must get
 * right: content shared by several paths, paths above U+FFFF and from U+E000 (whose UTF-8 order
 * differs from JavaScript's), removed, renamed and re-added paths, fixity old and new.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadLayout0003 } from '../src/ocfl/layout/hash-and-id-n-tuple-layout.js';
import { type Inventory, serializeInventory } from '../src/ocfl/inventory.js';
import { inventoryChunks, sourceOfInventory } from '../src/ocfl/inventory-chunks.js';
import { initRoot } from '../src/ocfl/root.js';
import { tempDir } from './helpers/tmp.js';

/** The canonical form written the obvious way: a sorted copy through one JSON.stringify. */
function referenceBytes(inv: Inventory): Buffer {
  const sortMap = (m: Record<string, string[]>) =>
    Object.fromEntries(
      Object.keys(m)
        .sort()
        .map((k) => [k, [...m[k]!].sort()]),
    );
  const out: Record<string, unknown> = {};
  if (inv.contentDirectory) out.contentDirectory = inv.contentDirectory;
  out.digestAlgorithm = inv.digestAlgorithm;
  if (inv.fixity && Object.keys(inv.fixity).length > 0)
    out.fixity = Object.fromEntries(
      Object.keys(inv.fixity)
        .sort()
        .map((a) => [a, sortMap(inv.fixity![a]!)]),
    );
  out.head = inv.head;
  out.id = inv.id;
  out.manifest = sortMap(inv.manifest);
  out.type = inv.type;
  out.versions = Object.fromEntries(
    Object.keys(inv.versions)
      .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)))
      .map((name) => {
        const v = inv.versions[name]!;
        const version: Record<string, unknown> = { created: v.created };
        if (v.message !== undefined) version.message = v.message;
        version.state = sortMap(v.state);
        if (v.user) version.user = Object.fromEntries(Object.entries(v.user).sort(([a], [b]) => (a < b ? -1 : 1)));
        return [name, version];
      }),
  );
  return Buffer.from(JSON.stringify(out, null, 2));
}

const hex = (alg: string, data: Buffer) => createHash(alg).update(data).digest('hex');

/** Paths whose code-unit order and UTF-8 byte order differ, and plain ones. */
const NAMES = ['plain', 'caf\u00e9', '\u{1F600}emoji', '\uE000private', '\uFFFDreplacement', 'Zupper', 'sp ace'];

function checkFiles(t: import('ava').ExecutionContext, objectDir: string, version: string, inv: Inventory): void {
  const expected = referenceBytes(inv);
  const rootCopy = readFileSync(path.join(objectDir, 'inventory.json'));
  t.true(rootCopy.equals(expected), `${version}: the root inventory is the canonical form of nextInventory's result`);
  t.true(readFileSync(path.join(objectDir, version, 'inventory.json')).equals(expected), `${version}: the version's copy too`);
  t.true(serializeInventory(inv).equals(expected), 'serializeInventory gives the same bytes');
  const alg = inv.digestAlgorithm;
  const sidecar = `${hex(alg, expected)} inventory.json\n`;
  t.is(readFileSync(path.join(objectDir, `inventory.json.${alg}`), 'utf8'), sidecar);
  t.is(readFileSync(path.join(objectDir, version, `inventory.json.${alg}`), 'utf8'), sidecar);
}

test('a new object and a new version of it: both inventory copies are the canonical bytes, written in several pieces', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  const id = 'urn:streamed:\u{1F600}';
  const objectDir = path.join(rootDir, root.objectPath(id));
  const files = 12_000;
  let staged = await root.startVersion(id, { fixityAlgorithms: ['sha1', 'md5'] });
  for (let i = 0; i < files; i++) {
    // Every seventh file repeats the content of the one before: one manifest entry, several paths.
    const content = `content ${i % 7 === 6 ? i - 1 : i}`;
    await staged.addBuffer(`${NAMES[i % NAMES.length]}/d${i % 13}/file-${i}.bin`, content);
  }
  const v1 = await staged.commit({ message: 'first', user: { name: 'Tester', address: 'mailto:t@example.org' } });
  const v1Inventory = v1.inventory;
  t.true(Object.keys(v1Inventory.manifest).length < files, 'some content is shared by several paths');
  t.true(referenceBytes(v1Inventory).length > 5 * 1024 * 1024, 'the inventory spans more than one piece (4 M characters)');
  checkFiles(t, objectDir, 'v1', v1Inventory);

  staged = await root.startVersion(id, { fixityAlgorithms: ['md5', 'sha256'] });
  await staged.remove(`${NAMES[0]}/d0/file-0.bin`);
  await staged.rename(`${NAMES[1]}/d1/file-1.bin`, 'renamed/\u{1F600}.bin');
  await staged.addBuffer('new/one.bin', 'new in v2');
  await staged.addBuffer('new/again.bin', 'content 5'); // content v1 stored: its fixity is known without rereading
  await staged.addBuffer(`${NAMES[2]}/d2/file-2.bin`, 'changed in v2');
  const v2 = await staged.commit({ created: '2026-11-24T12:00:00Z' });
  checkFiles(t, objectDir, 'v2', v2.inventory);
  t.deepEqual(Object.keys(v2.inventory.versions), ['v1', 'v2']);
});

test('the pieces of the serialisation join to the canonical bytes, none of them larger than a few MB', (t) => {
  const manifest: Record<string, string[]> = {};
  const state: Record<string, string[]> = {};
  for (let i = 0; i < 40_000; i++) {
    const digest = hex('sha512', Buffer.from(String(i)));
    manifest[digest] = [`v1/content/${NAMES[i % NAMES.length]}/${i}`];
    state[digest] = [`${NAMES[i % NAMES.length]}/${i}`, `copy/${i}`];
  }
  const inv: Inventory = {
    id: 'x',
    type: 'https://ocfl.io/1.1/spec/#inventory',
    digestAlgorithm: 'sha512',
    head: 'v1',
    contentDirectory: 'data',
    manifest,
    versions: { v1: { created: '2026-11-24T00:00:00Z', state } },
    fixity: {},
  };
  const pieces = [...inventoryChunks(sourceOfInventory(inv))];
  t.true(pieces.length > 3);
  t.true(pieces.every((p) => p.length < 16 * 1024 * 1024));
  t.true(Buffer.concat(pieces).equals(referenceBytes(inv)));
});
