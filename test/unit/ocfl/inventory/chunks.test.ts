/**
 * The inventory a commit writes piece by piece (src/ocfl/inventory/chunks.ts, staged-inventory.ts,
 * commit.ts): the file holds, byte for byte, the canonical form of what it says (written the
 * obvious way: one sorted copy through JSON.stringify), in both copies, with sidecars that hold the
 * digest of those bytes; and what it says is what the test staged, checked apart from the writer
 * (checkWritten: the files' own digests, the base as it was). Objects are large enough that the
 * inventory is written in several pieces, and hold what the grouping must get right: content shared
 * by several paths, paths above U+FFFF and from U+E000 (whose UTF-8 order differs from
 * JavaScript's), removed, renamed and re-added paths, fixity old and new. A base read plain in
 * windows (view-fixity.ts) is held to the base parsed in full (a caller's `known`
 * inventory, InventoryView.ofInventory), fixity included, on made cases and on every object of the
 * OCFL conformance fixtures.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadLayout0003 } from '../../../../src/ocfl/layout/extensions.js';
import { type Inventory, type InventoryVersion, parseInventory } from '../../../../src/ocfl/inventory/inventory.js';
import { inventoryChunks, serializeInventory, sourceOfInventory } from '../../../../src/ocfl/inventory/chunks.js';
import { initRoot } from '../../../../src/ocfl/root.js';
import { validatePath } from '../../../../src/ocfl/validate/index.js';
import { InventoryView } from '../../../../src/ocfl/inventory/view.js';
import { referenceBytes } from '../../../helpers/reference-inventory-bytes.js';
import { repetitions } from '../../../helpers/repetitions.js';
import { reference, sharedTest } from '../../../helpers/shared.js';
import { tempDir } from '../../../helpers/tmp.js';

const hex = (alg: string, data: Buffer) => createHash(alg).update(data).digest('hex');

/** Paths whose code-unit order and UTF-8 byte order differ, and plain ones. */
const NAMES = ['plain', 'caf\u00e9', '\u{1F600}emoji', '\uE000private', '\uFFFDreplacement', 'Zupper', 'sp ace'];

/**
 * What a test staged for the new version: its created, message and user, its files (logical path
 * -> content), the fixity asked for, the base read before.
 */
interface Staged {
  version: Omit<InventoryVersion, 'state'>;
  files: ReadonlyMap<string, string | Buffer>;
  fixity: readonly string[];
  base?: Inventory;
}

/**
 * The inventory a commit wrote, checked against what was staged, apart from the writer: both copies
 * the canonical bytes of what they say, with their sidecars; the new version's state the staged
 * files under their own digests; the base's versions and manifest entries kept as the base wrote
 * them; every content path under the digest of its bytes; each fixity block asked for listing every
 * stored file under its own digest besides what the base listed, the others as the base had them.
 */
function checkWritten(t: import('ava').ExecutionContext, objectDir: string, staged: Staged): Inventory {
  const bytes = readFileSync(path.join(objectDir, 'inventory.json'));
  const inv = parseInventory(bytes);
  const version = inv.head;
  t.true(bytes.equals(referenceBytes(inv)), `${version}: the root inventory is in canonical form`);
  t.true(readFileSync(path.join(objectDir, version, 'inventory.json')).equals(bytes), `${version}: the version's copy too`);
  const alg = inv.digestAlgorithm;
  const sidecar = `${hex(alg, bytes)} inventory.json\n`;
  t.is(readFileSync(path.join(objectDir, `inventory.json.${alg}`), 'utf8'), sidecar);
  t.is(readFileSync(path.join(objectDir, version, `inventory.json.${alg}`), 'utf8'), sidecar);
  t.deepEqual(
    { ...inv.versions[version], state: undefined },
    { ...staged.version, state: undefined },
    `${version}: created, message, user`,
  );
  const state = new Map(Object.entries(inv.versions[version]!.state).flatMap(([key, paths]) => paths.map((p) => [p, key] as const)));
  t.deepEqual([...state.keys()].sort(), [...staged.files.keys()].sort(), `${version}: the staged paths`);
  const wrong = [...staged.files].filter(([p, content]) => state.get(p)?.toLowerCase() !== hex(alg, Buffer.from(content)));
  t.deepEqual(wrong, [], `${version}: each path under the digest of its content`);
  const base = staged.base;
  // Path lists in code-unit order: the canonical form sorts them, another tool may not have.
  const sorted = (block: Record<string, string[]> | undefined) =>
    block && Object.fromEntries(Object.entries(block).map(([k, v]) => [k, [...v].sort()]));
  for (const [name, v] of Object.entries(base?.versions ?? {}))
    t.deepEqual(
      { ...inv.versions[name]!, state: sorted(inv.versions[name]!.state) },
      { ...v, state: sorted(v.state) },
      `${name} as in the base`,
    );
  const manifest = sorted(inv.manifest)!;
  for (const [key, paths] of Object.entries(base?.manifest ?? {}))
    t.deepEqual(manifest[key], [...paths].sort(), `manifest ${key} as in the base`);
  const digests = new Map<string, Map<string, string>>();
  const digestOf = (a: string, cp: string) => {
    const byPath = digests.get(a) ?? digests.set(a, new Map()).get(a)!;
    return byPath.get(cp) ?? byPath.set(cp, hex(a, readFileSync(path.join(objectDir, cp)))).get(cp)!;
  };
  const misfiled = Object.entries(inv.manifest).flatMap(([key, cps]) => cps.filter((cp) => digestOf(alg, cp) !== key.toLowerCase()));
  t.deepEqual(misfiled, [], 'every content path under the digest of its bytes');
  const unlisted = [...state.values()].filter((key) => !inv.manifest[key]);
  t.deepEqual(unlisted, [], 'every state digest in the manifest, spelled as its key');
  // The manifest's algorithm asked for as fixity too adds no block.
  const asked = staged.fixity.filter((a) => a !== alg);
  for (const [a, block] of Object.entries(base?.fixity ?? {})) {
    if (!asked.includes(a)) t.deepEqual(inv.fixity?.[a], sorted(block), `${a} as the base had it`);
    else
      for (const [key, paths] of Object.entries(block))
        for (const cp of paths) t.true(inv.fixity![a]![key]?.includes(cp), `${a} keeps ${key}`);
  }
  for (const a of asked) {
    const listed = new Set(Object.entries(inv.fixity?.[a] ?? {}).flatMap(([key, cps]) => cps.map((cp) => `${key.toLowerCase()} ${cp}`)));
    const missing = Object.values(inv.manifest)
      .flat()
      .filter((cp) => !listed.has(`${digestOf(a, cp)} ${cp}`));
    t.deepEqual(missing, [], `${a} of every stored file`);
  }
  return inv;
}

/** The created of the head version, as the root inventory says (read with a pattern: the writer's file is what is checked). */
function v2CreatedOf(objectDir: string): string {
  const text = readFileSync(path.join(objectDir, 'inventory.json'), 'utf8');
  return /"v2": \{\s*"created": "([^"]+)"/.exec(text)![1]!;
}

/**
 * The first version's inventory must pass 5 MiB: more than one piece of 4 M characters, and more
 * than one window of 4 MiB when the second version reads it back as a view. The bench makes it of
 * 12,000 files of short paths; the unit tier of 2,000 files (most of the time goes to writing and
 * removing files), each path three folders of 229 characters longer (a path is in the inventory up
 * to four times: state, manifest and two fixity blocks; the whole path stays under 1,024 bytes).
 */
const STREAMED_FILES = repetitions(2_000, 12_000);
const LONG_FOLDERS = STREAMED_FILES < 12_000 ? Array.from({ length: 3 }, (_, n) => `${n}${'-long-folder'.repeat(19)}/`).join('') : '';
const streamedPath = (i: number) => `${NAMES[i % NAMES.length]}/${LONG_FOLDERS}d${i % 13}/file-${i}.bin`;

test('a new object and a new version of it: both inventory copies are the canonical bytes, written in several pieces', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  const id = 'urn:streamed:\u{1F600}';
  const objectDir = path.join(rootDir, root.objectPath(id));
  const files = STREAMED_FILES;
  let staged = await root.startVersion(id, { fixityAlgorithms: ['sha1', 'md5'] });
  const v1Files = new Map<string, string>();
  for (let i = 0; i < files; i++) {
    // Every seventh file repeats the content of the one before: one manifest entry, several paths.
    const content = `content ${i % 7 === 6 ? i - 1 : i}`;
    await staged.addBuffer(streamedPath(i), content);
    v1Files.set(streamedPath(i), content);
  }
  const first = { created: '2026-11-24T11:00:00Z', message: 'first', user: { name: 'Tester', address: 'mailto:t@example.org' } };
  await staged.commit(first);
  const v1 = checkWritten(t, objectDir, { version: first, files: v1Files, fixity: ['sha1', 'md5'] });
  t.true(Object.keys(v1.manifest).length < files, 'some content is shared by several paths');
  t.true(
    statSync(path.join(objectDir, 'inventory.json')).size > 5 * 1024 * 1024,
    'the inventory spans more than one piece (4 M characters)',
  );
  t.true(serializeInventory(v1).equals(readFileSync(path.join(objectDir, 'inventory.json'))), 'serializeInventory gives the same bytes');

  staged = await root.startVersion(id, { fixityAlgorithms: ['md5', 'sha256'] });
  const v2Files = new Map(v1Files);
  await staged.remove(streamedPath(0));
  v2Files.delete(streamedPath(0));
  await staged.rename(streamedPath(1), 'renamed/\u{1F600}.bin');
  v2Files.set('renamed/\u{1F600}.bin', v2Files.get(streamedPath(1))!).delete(streamedPath(1));
  const added = { 'new/one.bin': 'new in v2', 'new/again.bin': 'content 5', [streamedPath(2)]: 'changed in v2' };
  // new/again.bin: content v1 stored, its fixity known without rereading.
  for (const [p, content] of Object.entries(added)) {
    await staged.addBuffer(p, content);
    v2Files.set(p, content);
  }
  // No created given: now, to the second.
  const toSecond = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const before = toSecond();
  await staged.commit({});
  const created = v2CreatedOf(objectDir);
  t.true(created >= before && created <= toSecond(), created);
  const v2 = checkWritten(t, objectDir, { version: { created }, files: v2Files, fixity: ['md5', 'sha256'], base: v1 });
  t.deepEqual(Object.keys(v2.versions), ['v1', 'v2']);
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

/** Rewrites an object's inventory (both copies and sidecars) as another tool might: keys in reverse order, no indentation. */
function rewriteShuffled(objectDir: string, head: string): void {
  const inv = JSON.parse(readFileSync(path.join(objectDir, 'inventory.json'), 'utf8')) as Inventory;
  const reversed = (m: Record<string, string[]>) =>
    Object.fromEntries(
      Object.keys(m)
        .reverse()
        .map((k) => [k, [...m[k]!].reverse()]),
    );
  const shuffled = {
    versions: Object.fromEntries(Object.entries(inv.versions).map(([n, v]) => [n, { ...v, state: reversed(v.state) }])),
    manifest: reversed(inv.manifest),
    type: inv.type,
    id: inv.id,
    head: inv.head,
    digestAlgorithm: inv.digestAlgorithm,
  };
  const bytes = Buffer.from(JSON.stringify(shuffled));
  const sidecar = `${hex(inv.digestAlgorithm, bytes)} inventory.json\n`;
  for (const dir of [objectDir, path.join(objectDir, head)]) {
    writeFileSync(path.join(dir, 'inventory.json'), bytes);
    writeFileSync(path.join(dir, `inventory.json.${inv.digestAlgorithm}`), sidecar);
  }
}

/** Files of the first version of a view-base case: 300 in the unit tier (as the fixity cases below), 3,000 in the bench. */
const VIEW_BASE_FILES = repetitions(300, 3_000);

for (const shape of ['canonical', 'other tool'] as const) {
  test(`a new version on a base read as a compact view is byte for byte the one on the base parsed in full (${shape} base)`, async (t) => {
    const id = 'urn:view-base';
    const objectDirs: string[] = [];
    let base: Inventory | undefined;
    const v1Files = firstVersionFiles(VIEW_BASE_FILES);
    for (const compact of [false, true]) {
      const root = await initRoot(path.join(tempDir(), 'root'), await loadLayout0003());
      const objectDir = path.join(root.location, root.objectPath(id));
      let staged = await root.startVersion(id);
      for (const [p, content] of v1Files) await staged.addBuffer(p, content);
      await staged.commit({ created: '2026-11-24T10:00:00Z', message: 'one', user: { name: 'A' } });
      if (shape === 'other tool') rewriteShuffled(objectDir, 'v1');
      const bytes = readFileSync(path.join(objectDir, 'inventory.json'));
      base = parseInventory(bytes);
      // A caller's `known` view of the inventory parsed in full makes the base; without it, the inventory read plain in windows.
      const known = compact
        ? undefined
        : { view: InventoryView.ofInventory(parseInventory(bytes), 'inventory.json'), digest: hex('sha512', bytes) };
      staged = await root.startVersion(id, known ? { known } : {});
      const staging = (staged as unknown as { base: unknown }).base;
      // Given the caller's view, the writer starts from it; else from its own read.
      t.true(known ? staging === known.view : staging instanceof InventoryView, compact ? 'the base read plain' : "the caller's base");
      await stageSecondVersion(staged);
      await staged.commit(SECOND);
      objectDirs.push(objectDir);
    }
    const [full, view] = objectDirs.map((dir) => readFileSync(path.join(dir, 'inventory.json')));
    t.true(view!.equals(full!), 'the same bytes through both bases');
    checkWritten(t, objectDirs[1]!, { version: SECOND, files: secondVersionFiles(v1Files), fixity: [], base: base! });
  });
}

/**
 * Rewrites an object's inventory (both copies and sidecars) as `change` leaves it, its fixity out of
 * canonical order (algorithms, digests and path lists reversed), as another tool may write it.
 */
function rewriteInventory(objectDir: string, head: string, change: (inv: Inventory) => void): void {
  const inv = parseInventory(readFileSync(path.join(objectDir, 'inventory.json')));
  change(inv);
  const reversed = (m: Record<string, string[]>) =>
    Object.fromEntries(
      Object.keys(m)
        .sort()
        .reverse()
        .map((k) => [k, [...m[k]!].sort().reverse()]),
    );
  const fixity = inv.fixity;
  if (fixity)
    inv.fixity = Object.fromEntries(
      Object.keys(fixity)
        .sort()
        .reverse()
        .map((alg) => [alg, reversed(fixity[alg]!)]),
    );
  const bytes = Buffer.from(JSON.stringify(inv, null, 1));
  const sidecar = `${hex(inv.digestAlgorithm, bytes)} inventory.json\n`;
  for (const dir of [objectDir, path.join(objectDir, head)]) {
    writeFileSync(path.join(dir, 'inventory.json'), bytes);
    writeFileSync(path.join(dir, `inventory.json.${inv.digestAlgorithm}`), sidecar);
  }
}

/** The content path of stored content (by its bytes) in an inventory. */
const contentPathOf = (inv: Inventory, content: string) => inv.manifest[hex(inv.digestAlgorithm, Buffer.from(content))]![0]!;

interface FixityCase {
  title: string;
  /** Fixity asked for by the first version and by the second. */
  v1: string[];
  v2: string[];
  /** What another writer left in the first version's inventory. */
  rewrite?: (inv: Inventory) => void;
  /** Whether the compact view can be the base (else the writer parses the base in full). */
  view: boolean;
}

const FIXITY_CASES: FixityCase[] = [
  { title: 'fixity in the base, none asked for', v1: ['md5'], v2: [], view: true },
  { title: 'fixity asked for on a base without (every stored file read again)', v1: [], v2: ['md5'], view: true },
  { title: 'both, with an algorithm only in the base and one only asked for', v1: ['md5', 'sha1'], v2: ['md5', 'sha256'], view: true },
  {
    title: 'a content path under two digests, a digest in both, paths above U+FFFF, content lacking fixity',
    v1: ['md5'],
    v2: ['md5'],
    view: true,
    rewrite: (inv) => {
      const md5 = inv.fixity!.md5!;
      // The digest of content the second version stores, listing two stored paths (each now under two digests)
      // whose code-unit order (U+1F600 before U+E000) is not their UTF-8 order.
      md5[hex('md5', Buffer.from('new in v2'))] = [contentPathOf(inv, 'content 3'), contentPathOf(inv, 'content 2')];
      // And a digest the second version leaves alone, listing such paths too.
      md5[hex('md5', Buffer.from('content 12'))]!.push(contentPathOf(inv, 'content 17'), contentPathOf(inv, 'content 16'));
      // Content met again by the second version, and content not met, both without their md5: found again, read again.
      delete md5[hex('md5', Buffer.from('content 8'))];
      delete md5[hex('md5', Buffer.from('content 10'))];
    },
  },
  { title: 'an empty fixity member', v1: [], v2: [], view: true, rewrite: (inv) => void (inv.fixity = {}) },
  {
    title: 'an algorithm this tool does not compute (the base parsed in full)',
    v1: ['md5'],
    v2: ['md5'],
    view: false,
    rewrite: (inv) => void (inv.fixity!['x-size'] = { '9': [contentPathOf(inv, 'content 0')] }),
  },
];

/** The second version of every case: a removal, a rename, new content, content met again (with and without its fixity), a replacement. */
async function stageSecondVersion(staged: Awaited<ReturnType<Awaited<ReturnType<typeof initRoot>>['startVersion']>>): Promise<void> {
  await staged.remove(`${NAMES[0]}/f0`);
  await staged.rename(`${NAMES[1]}/f1`, 'moved/\uE001.bin');
  await staged.addBuffer('added/\u{1F600}new.bin', 'new in v2');
  await staged.addBuffer('added/again.bin', 'content 8');
  await staged.addBuffer('added/again-too.bin', 'content 11');
  await staged.addBuffer(`${NAMES[3]}/f3`, 'replaced in v2');
}

/** The created and message of the second version of every case. */
const SECOND = { created: '2026-11-24T11:00:00Z', message: 'two' };

/** The files of the second version of every case, as stageSecondVersion leaves them. */
function secondVersionFiles(first: ReadonlyMap<string, string>): Map<string, string> {
  const files = new Map(first);
  files.delete(`${NAMES[0]}/f0`);
  files.set('moved/\uE001.bin', files.get(`${NAMES[1]}/f1`)!).delete(`${NAMES[1]}/f1`);
  files.set('added/\u{1F600}new.bin', 'new in v2').set('added/again.bin', 'content 8').set('added/again-too.bin', 'content 11');
  return files.set(`${NAMES[3]}/f3`, 'replaced in v2');
}

/** The first version of the view-base and fixity cases: every fifth file repeats the content of the one before. */
function firstVersionFiles(count: number): Map<string, string> {
  return new Map(Array.from({ length: count }, (_, i) => [`${NAMES[i % NAMES.length]}/f${i}`, `content ${i % 5 === 4 ? i - 1 : i}`]));
}

/** Files of the first version of a fixity case: 100 in the unit tier (the cases name content up to the 18th), 300 in the bench. */
const FIXITY_FILES = repetitions(100, 300);

for (const c of FIXITY_CASES) {
  test(`fixity on a base read as a compact view is written byte for byte as on the base parsed in full: ${c.title}`, async (t) => {
    const id = 'urn:view-fixity';
    const written: Buffer[] = [];
    let base: Inventory | undefined;
    const v1Files = firstVersionFiles(FIXITY_FILES);
    let objectDir = '';
    for (const compact of [false, true]) {
      const root = await initRoot(path.join(tempDir(), 'root'), await loadLayout0003());
      objectDir = path.join(root.location, root.objectPath(id));
      let staged = await root.startVersion(id, { fixityAlgorithms: c.v1 });
      for (const [p, content] of v1Files) await staged.addBuffer(p, content);
      await staged.commit({ created: '2026-11-24T10:00:00Z', message: 'one' });
      rewriteInventory(objectDir, 'v1', c.rewrite ?? (() => undefined));
      const bytes = readFileSync(path.join(objectDir, 'inventory.json'));
      base = parseInventory(bytes);
      const known = compact
        ? undefined
        : { view: InventoryView.ofInventory(parseInventory(bytes), 'inventory.json'), digest: hex('sha512', bytes) };
      staged = await root.startVersion(id, { fixityAlgorithms: c.v2, ...(known ? { known } : {}) });
      const staging = (staged as unknown as { base: unknown }).base;
      t.true(
        known ? staging === known.view : staging instanceof InventoryView,
        compact && c.view ? 'the base read plain' : 'parsed in full',
      );
      await stageSecondVersion(staged);
      await staged.commit(SECOND);
      written.push(readFileSync(path.join(objectDir, 'inventory.json')));
    }
    const [full, view] = written;
    t.true(view!.equals(full!), 'the same bytes through both bases');
    checkWritten(t, objectDir, { version: SECOND, files: secondVersionFiles(v1Files), fixity: c.v2, base: base! });
  });
}

test('a new version on a base with upper-case digests keeps every key as the base writes it, and the object stays valid', async (t) => {
  const id = 'urn:upper-case';
  const root = await initRoot(path.join(tempDir(), 'root'), await loadLayout0003());
  const objectDir = path.join(root.location, root.objectPath(id));
  let staged = await root.startVersion(id, { fixityAlgorithms: ['md5'] });
  for (let i = 0; i < 20; i++) await staged.addBuffer(`${NAMES[i % NAMES.length]}/f${i}`, `content ${i}`);
  await staged.commit({ created: '2026-11-24T10:00:00Z', message: 'one', user: { name: 'A', address: 'mailto:a@example.org' } });
  // As another tool may write it: every digest in upper case (manifest, state, fixity).
  const upper = (block: Record<string, string[]>) => Object.fromEntries(Object.entries(block).map(([k, v]) => [k.toUpperCase(), v]));
  rewriteInventory(objectDir, 'v1', (inv) => {
    inv.manifest = upper(inv.manifest);
    inv.versions.v1!.state = upper(inv.versions.v1!.state);
    inv.fixity!.md5 = upper(inv.fixity!.md5!);
  });
  const before = parseInventory(readFileSync(path.join(objectDir, 'inventory.json')));
  staged = await root.startVersion(id, { fixityAlgorithms: ['md5', 'sha1'] });
  await staged.remove(`${NAMES[0]}/f0`);
  await staged.addBuffer('added/again.bin', 'content 3');
  await staged.addBuffer('added/new.bin', 'new in v2');
  await staged.commit({
    created: '2026-11-24T11:00:00Z',
    message: 'two',
    user: { name: 'A', address: 'mailto:a@example.org' },
  });
  const written = readFileSync(path.join(objectDir, 'inventory.json'));
  const after = parseInventory(written);
  t.true(written.equals(referenceBytes(after)), 'the canonical form');
  t.deepEqual(after.versions.v1, before.versions.v1, 'the first version as the base writes it');
  for (const [key, paths] of Object.entries(before.manifest)) t.deepEqual(after.manifest[key], paths, `manifest ${key}`);
  for (const [key, paths] of Object.entries(before.fixity!.md5!)) t.deepEqual(after.fixity!.md5![key], paths, `md5 ${key}`);
  // Content met again is listed under the manifest's key as written; new content under its digest.
  const again = hex('sha512', Buffer.from('content 3')).toUpperCase();
  t.deepEqual(after.versions.v2!.state[again]!.sort(), [`${NAMES[3]}/f3`, 'added/again.bin'].sort());
  const added = hex('sha512', Buffer.from('new in v2'));
  t.deepEqual(after.manifest[added], ['v2/content/added/new.bin']);
  t.deepEqual(after.versions.v2!.state[added], ['added/new.bin']);
  t.deepEqual(after.fixity!.md5![hex('md5', Buffer.from('new in v2'))], ['v2/content/added/new.bin']);
  t.is(Object.keys(after.fixity!.sha1!).length, Object.keys(after.manifest).length, 'sha1 of every stored file');
  const report = await validatePath(objectDir);
  t.deepEqual(report.errors, [], 'valid OCFL, the versions agreeing with their own inventories');
});

sharedTest(
  'on every object of the OCFL conformance fixtures, a version with fixity is written the same through the view and in full',
  async (t) => {
    const objects = ['1.0', '1.1'].flatMap((v) =>
      ['good-objects', 'warn-objects'].flatMap((kind) => {
        const dir = reference('ocfl-fixtures', v, kind);
        return readdirSync(dir).map((name) => path.join(dir, name));
      }),
    );
    let viewed = 0;
    let withFixity = 0;
    for (const fixture of objects) {
      const outcomes: string[] = [];
      for (const compact of [false, true]) {
        const root = await initRoot(path.join(tempDir(), 'root'), await loadLayout0003());
        const bytes = readFileSync(path.join(fixture, 'inventory.json'));
        const inv = parseInventory(bytes);
        const objectDir = path.join(root.location, root.objectPath(inv.id));
        cpSync(fixture, objectDir, { recursive: true });
        try {
          const known = compact
            ? undefined
            : { view: InventoryView.ofInventory(inv, 'inventory.json'), digest: hex(inv.digestAlgorithm, bytes) };
          const staged = await root.startVersion(inv.id, { fixityAlgorithms: ['md5', 'sha1', 'sha256'], ...(known ? { known } : {}) });
          if (compact && (staged as unknown as { base: unknown }).base instanceof InventoryView) {
            viewed++;
            if (inv.fixity) withFixity++;
          }
          const files = new Map(
            Object.entries(inv.versions[inv.head]!.state).flatMap(([key, paths]) =>
              paths.map((p) => [p, readFileSync(path.join(objectDir, inv.manifest[key]![0]!))] as const),
            ),
          );
          await staged.addBuffer('added/new.bin', `new in ${fixture}`);
          files.set('added/new.bin', Buffer.from(`new in ${fixture}`));
          const stored = Object.values(inv.manifest)[0]?.[0];
          // Content the object holds, met again: its fixity is known without rereading.
          if (stored) {
            await staged.addBuffer('added/again.bin', readFileSync(path.join(objectDir, stored)));
            files.set('added/again.bin', readFileSync(path.join(objectDir, stored)));
          }
          const version = { created: '2026-11-24T12:00:00Z', message: 'fixity' };
          await staged.commit(version);
          const written = readFileSync(path.join(objectDir, 'inventory.json'));
          checkWritten(t, objectDir, { version, files, fixity: ['md5', 'sha1', 'sha256'], base: inv });
          outcomes.push(written.toString('utf8'));
        } catch (err) {
          outcomes.push(`refused: ${(err as Error).message.replace(path.dirname(objectDir), '')}`);
        }
      }
      t.is(outcomes[1], outcomes[0], fixture);
    }
    t.true(viewed >= 40 && withFixity >= 8, `${viewed} objects written on the view, ${withFixity} with fixity`);
  },
);
