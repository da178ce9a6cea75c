/**
 * Storage roots and versioned objects: init, opening 1.0/1.1 roots, inventories against the
 * official fixtures, and acceptance point 3 of issue 2 (v1 then v2: inventory, deduplication,
 * fixity, interoperability with @ocfl/ocfl-fs).
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ocflFs from '@ocfl/ocfl-fs';
import { loadLayout0003 } from '../../../../src/ocfl/layout/extensions.js';
import { InventoryError, parseInventory, sidecarMatches } from '../../../../src/ocfl/inventory/inventory.js';
import { InventoryView } from '../../../../src/ocfl/inventory/view.js';
import { serializeInventory } from '../../../../src/ocfl/inventory/chunks.js';
import { initRoot, openRoot } from '../../../../src/ocfl/root.js';
import { reference, sharedTest } from '../../../helpers/shared.js';
import { tempDir } from '../../../helpers/tmp.js';
import { headInventory } from '../../../helpers/fixture-inventories.js';

const hex = (alg: string, data: string | Buffer) => createHash(alg).update(data).digest('hex');

function allFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = path.join(dir, e.name);
    return e.isDirectory() ? allFiles(abs, base) : [path.relative(base, abs).split(path.sep).join('/')];
  });
}

function sortLists(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortLists).sort();
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sortLists(v)]));
  return value;
}

function emptyDirs(dir: string): string[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  if (entries.length === 0) return [dir];
  return entries.filter((e) => e.isDirectory()).flatMap((e) => emptyDirs(path.join(dir, e.name)));
}

test('init writes the declaration, ocfl_layout.json and the full 0003 config', async (t) => {
  const dir = path.join(tempDir(), 'root');
  const layout = await loadLayout0003({ tupleSize: 2, numberOfTuples: 4 });
  await initRoot(dir, layout);
  t.deepEqual(readdirSync(dir).sort(), ['0=ocfl_1.1', 'extensions', 'ocfl_layout.json']);
  t.is(readFileSync(path.join(dir, '0=ocfl_1.1'), 'utf8'), 'ocfl_1.1\n');
  const declared = JSON.parse(readFileSync(path.join(dir, 'ocfl_layout.json'), 'utf8'));
  t.is(declared.extension, '0003-hash-and-id-n-tuple-storage-layout');
  t.is(typeof declared.description, 'string');
  const config = JSON.parse(readFileSync(path.join(dir, 'extensions/0003-hash-and-id-n-tuple-storage-layout/config.json'), 'utf8'));
  t.deepEqual(config, {
    extensionName: '0003-hash-and-id-n-tuple-storage-layout',
    digestAlgorithm: 'sha256',
    tupleSize: 2,
    numberOfTuples: 4,
  });
  // The parameters are read back from the root.
  const root = await openRoot(dir);
  t.is(root.ocflVersion, '1.1');
  t.is(root.objectPath('x').split('/').length, 5);
  // A second init, or an init into a non-empty folder, is refused.
  await t.throwsAsync(initRoot(dir, layout), { message: /already an OCFL storage root/ });
  const other = tempDir();
  writeFileSync(path.join(other, 'something'), 'x');
  await t.throwsAsync(initRoot(other, layout), { message: /not empty/ });
  t.deepEqual(readdirSync(other), ['something']);
});

test('a folder that is not a storage root is refused with a clear error', async (t) => {
  const dir = tempDir();
  await t.throwsAsync(openRoot(dir), { message: new RegExp(`${dir} is not an OCFL storage root`) });
  await t.throwsAsync(openRoot(path.join(dir, 'missing')), { message: /does not exist/ });
});

sharedTest('inventories of the official 1.0 and 1.1 good fixtures parse, and serialise back to their bytes', (t) => {
  // These fixtures are written with sorted keys and 2-space indentation (the form we write).
  const canonical = ['spec-ex-full', 'minimal_one_version_one_file', 'minimal_mixed_digests', 'minimal_uppercase_digests'];
  for (const v of ['1.0', '1.1']) {
    const good = reference('ocfl-fixtures', v, 'good-objects');
    for (const name of readdirSync(good)) {
      const bytes = readFileSync(path.join(good, name, 'inventory.json'));
      const inv = parseInventory(bytes);
      t.true(
        sidecarMatches(bytes, readFileSync(path.join(good, name, `inventory.json.${inv.digestAlgorithm}`), 'utf8'), inv.digestAlgorithm),
        name,
      );
      const out = serializeInventory(inv);
      // Nothing is lost (path lists are sorted in our form, so compare them as sets).
      t.deepEqual(sortLists(JSON.parse(out.toString('utf8'))), sortLists(JSON.parse(bytes.toString('utf8'))), `${v}/${name} round trip`);
      if (canonical.includes(name)) t.is(out.toString('utf8').trim(), bytes.toString('utf8').trim(), `${v}/${name} bytes`);
    }
  }
});

sharedTest('an OCFL 1.0 root (no layout declared) is opened, scanned and read', async (t) => {
  const dir = path.join(tempDir(), 'root10');
  mkdirSync(dir);
  writeFileSync(path.join(dir, '0=ocfl_1.0'), 'ocfl_1.0\n');
  cpSync(reference('ocfl-fixtures', '1.0', 'good-objects', 'spec-ex-full'), path.join(dir, 'a', 'full'), { recursive: true });
  cpSync(reference('ocfl-fixtures', '1.0', 'good-objects', 'minimal_one_version_one_file'), path.join(dir, 'b'), { recursive: true });
  const root = await openRoot(dir);
  t.is(root.ocflVersion, '1.0');
  const found = [];
  for await (const loc of root.scanObjects()) found.push(loc);
  t.deepEqual(found, [
    { path: 'a/full', ocflVersion: '1.0' },
    { path: 'b', ocflVersion: '1.0' },
  ]);
  const obj = await root.openObject('ark:/12345/bcd987');
  t.deepEqual(
    obj.versions().map((v) => v.version),
    ['v1', 'v2', 'v3'],
  );
  t.deepEqual([...obj.state('v2').keys()], ['empty.txt', 'empty2.txt', 'foo/bar.xml']);
  t.is(obj.contentPath('image.tiff', 'v3'), 'v1/content/image.tiff');
  const fixtureBytes = readFileSync(reference('ocfl-fixtures', '1.0', 'good-objects', 'spec-ex-full', 'v2/content/foo/bar.xml'));
  t.deepEqual(await obj.readLogical('foo/bar.xml', 'v3'), fixtureBytes);
  const chunks: Buffer[] = [];
  for await (const c of obj.openLogical('foo/bar.xml')) chunks.push(c as Buffer);
  t.deepEqual(Buffer.concat(chunks), fixtureBytes);
});

test('v1 then v2: inventory, fixity, deduplication, and @ocfl/ocfl-fs reads the same bytes', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  const id = 'urn:test:object/1';
  const v1Files: Record<string, string> = {
    'changed.txt': 'version one of the changed file\n',
    'removed.txt': 'this file is removed in v2\n',
    'same/unchanged.bin': 'unchanged content kept across versions\n',
  };
  const fixity = ['sha256', 'md5'];
  let staged = await root.startVersion(id, { fixityAlgorithms: fixity });
  for (const [p, body] of Object.entries(v1Files)) {
    const added = await staged.addBuffer(p, body);
    // The digests the hasher computed while writing are handed back (the SIARD ingest needs them).
    t.deepEqual(added.digests, { sha512: hex('sha512', body), sha256: hex('sha256', body), md5: hex('md5', body) });
  }
  const r1 = await staged.commit({
    message: 'first',
    user: { name: 'Ada', address: 'mailto:ada@example.org' },
    created: '2024-01-02T03:04:05Z',
  });
  t.is(r1.version, 'v1');

  const dup = 'one content under two names\n';
  staged = await root.startVersion(id, { fixityAlgorithms: fixity });
  await staged.addBuffer('changed.txt', 'version two of the changed file\n');
  await staged.remove('removed.txt');
  await staged.addBuffer('added.txt', 'a new file\n');
  const d1 = await staged.addBuffer('dup/first.txt', dup);
  const d2 = await staged.addBuffer('dup/second.txt', dup);
  const again = await staged.addBuffer('same/unchanged.bin', v1Files['same/unchanged.bin']);
  t.true(d1.stored);
  t.false(d2.stored);
  t.false(again.stored);
  t.is(again.contentPath, 'v1/content/same/unchanged.bin');
  const r2 = await staged.commit({ message: 'second', user: { name: 'Bob' } });
  t.is(r2.version, 'v2');

  const objectPath = root.objectPath(id);
  const objectDir = path.join(rootDir, objectPath);
  const inv = parseInventory(readFileSync(path.join(objectDir, 'inventory.json')));
  t.true(
    sidecarMatches(
      readFileSync(path.join(objectDir, 'inventory.json')),
      readFileSync(path.join(objectDir, 'inventory.json.sha512'), 'utf8'),
      'sha512',
    ),
  );
  t.deepEqual(readFileSync(path.join(objectDir, 'inventory.json')), readFileSync(path.join(objectDir, 'v2', 'inventory.json')));

  // Expected inventory, computed here from the bytes.
  const v2Files: Record<string, string> = {
    'added.txt': 'a new file\n',
    'changed.txt': 'version two of the changed file\n',
    'dup/first.txt': dup,
    'dup/second.txt': dup,
    'same/unchanged.bin': v1Files['same/unchanged.bin'],
  };
  const stateOf = (files: Record<string, string>) => {
    const state: Record<string, string[]> = {};
    for (const [p, body] of Object.entries(files)) (state[hex('sha512', body)] ??= []).push(p);
    for (const k of Object.keys(state)) state[k].sort();
    return state;
  };
  const stored: Record<string, string> = {
    'v1/content/changed.txt': v1Files['changed.txt'],
    'v1/content/removed.txt': v1Files['removed.txt'],
    'v1/content/same/unchanged.bin': v1Files['same/unchanged.bin'],
    'v2/content/changed.txt': v2Files['changed.txt'],
    'v2/content/added.txt': v2Files['added.txt'],
    'v2/content/dup/first.txt': dup,
  };
  const manifest: Record<string, string[]> = {};
  const fixityExpected: Record<string, Record<string, string[]>> = { sha256: {}, md5: {} };
  for (const [cp, body] of Object.entries(stored)) {
    (manifest[hex('sha512', body)] ??= []).push(cp);
    for (const alg of fixity) (fixityExpected[alg][hex(alg, body)] ??= []).push(cp);
  }
  t.is(inv.id, id);
  t.is(inv.type, 'https://ocfl.io/1.1/spec/#inventory');
  t.is(inv.digestAlgorithm, 'sha512');
  t.is(inv.head, 'v2');
  t.deepEqual(inv.manifest, manifest);
  t.deepEqual(inv.fixity, fixityExpected);
  t.deepEqual(inv.versions.v1, {
    created: '2024-01-02T03:04:05Z',
    message: 'first',
    user: { name: 'Ada', address: 'mailto:ada@example.org' },
    state: stateOf(v1Files),
  });
  t.deepEqual(inv.versions.v2.state, stateOf(v2Files));
  t.deepEqual(inv.versions.v2.user, { name: 'Bob' });

  // On disk: exactly the stored content, once each; no empty folder anywhere in the root.
  const onDisk = allFiles(objectDir)
    .filter((f) => f.includes('/content/'))
    .sort();
  t.deepEqual(onDisk, Object.keys(stored).sort());
  for (const [cp, body] of Object.entries(stored)) t.is(readFileSync(path.join(objectDir, cp), 'utf8'), body);
  t.deepEqual(emptyDirs(rootDir), []);
  t.deepEqual(readFileSync(path.join(objectDir, '0=ocfl_object_1.1'), 'utf8'), 'ocfl_object_1.1\n');
  // The workspace holds nothing but the (released) lock folder.
  const ws = path.join(base, '.root.siard-ocfl-work');
  t.deepEqual(readdirSync(ws), ['locks']);
  t.deepEqual(readdirSync(path.join(ws, 'locks')), []);

  // Our reader and @ocfl/ocfl-fs agree with the bytes put in, for both versions.
  const reader = await (await openRoot(rootDir)).openObject(id);
  const peer = ocflFs.object({ root: objectDir });
  await peer.load();
  for (const [version, files] of [
    ['v1', v1Files],
    ['v2', v2Files],
  ] as const) {
    t.deepEqual([...reader.state(version).keys()], Object.keys(files).sort());
    for (const [p, body] of Object.entries(files)) {
      t.is((await reader.readLogical(p, version)).toString('utf8'), body);
      t.is((await peer.getFile(p, version).buffer()).toString('utf8'), body, `@ocfl/ocfl-fs ${version} ${p}`);
    }
  }
  t.true(statSync(objectDir).isDirectory());
});

test('rename, clear and re-add within one staged version keep content paths unique', async (t) => {
  const base = tempDir();
  const root = await initRoot(path.join(base, 'root'), await loadLayout0003());
  const staged = await root.startVersion('ren');
  await staged.addBuffer('a', 'first a');
  await staged.rename('a', 'b/c');
  await staged.addBuffer('a', 'second a');
  await t.throwsAsync(staged.addBuffer('b', 'conflicts with folder b'), { message: /"b" is a folder/ });
  await t.throwsAsync(staged.addBuffer('a/x', 'under file a'), { message: /"a" is a file/ });
  await staged.addBuffer('gone', 'removed before commit');
  await staged.remove('gone');
  await staged.commit();
  const inventory = headInventory(root, 'ren');
  const state = Object.fromEntries(Object.entries(inventory.versions.v1.state).flatMap(([d, ps]) => ps.map((p) => [p, d])));
  t.deepEqual(Object.keys(state).sort(), ['a', 'b/c']);
  const objectDir = path.join(base, 'root', root.objectPath('ren'));
  // 'gone' was dropped from the workspace: only two content files exist.
  t.deepEqual(allFiles(path.join(objectDir, 'v1', 'content')).sort(), ['a', 'a~1']);
  t.is(readFileSync(path.join(objectDir, inventory.manifest[state['b/c']][0]), 'utf8'), 'first a');
  t.is(readFileSync(path.join(objectDir, inventory.manifest[state.a][0]), 'utf8'), 'second a');
  t.false(existsSync(path.join(objectDir, 'v1', 'content', 'gone')));
});

sharedTest('objects whose manifest writes digests in upper or mixed case are read by digest in any case', async (t) => {
  for (const name of ['minimal_uppercase_digests', 'minimal_mixed_digests']) {
    const dir = path.join(tempDir(), 'root');
    mkdirSync(dir);
    writeFileSync(path.join(dir, '0=ocfl_1.1'), 'ocfl_1.1\n');
    const fixture = reference('ocfl-fixtures', '1.1', 'good-objects', name);
    cpSync(fixture, path.join(dir, 'obj'), { recursive: true });
    const root = await openRoot(dir);
    const obj = await root.openObjectAt('obj');
    for (const [logicalPath, digest] of obj.state()) {
      t.is(digest, digest.toLowerCase(), `${name}: state digests are lower-case`);
      const contentPath = obj.contentPath(logicalPath);
      t.is(obj.contentPathOfDigest(digest.toUpperCase()), contentPath, `${name}: ${logicalPath} by upper-case digest`);
      const bytes = await obj.readLogical(logicalPath);
      t.deepEqual(bytes, readFileSync(path.join(fixture, contentPath)), `${name}: ${logicalPath}`);
      t.is(
        createHash(JSON.parse(readFileSync(path.join(fixture, 'inventory.json'), 'utf8')).digestAlgorithm)
          .update(bytes)
          .digest('hex'),
        digest,
      );
    }
  }
});

sharedTest('the versions log reads without the manifest are those of the full reader, for every official good fixture', async (t) => {
  let compared = 0;
  for (const v of ['1.0', '1.1']) {
    const good = reference('ocfl-fixtures', v, 'good-objects');
    for (const name of readdirSync(good)) {
      const dir = path.join(tempDir(), 'root');
      mkdirSync(dir);
      writeFileSync(path.join(dir, `0=ocfl_${v}`), `ocfl_${v}\n`);
      cpSync(path.join(good, name), path.join(dir, 'obj'), { recursive: true });
      const root = await openRoot(dir);
      const full = await root.openObjectAt('obj');
      const light = await root.objectVersions(full.id);
      t.deepEqual(JSON.stringify(light), JSON.stringify(full.versions()), `${v}/${name}`);
      compared += light.length;
    }
  }
  t.true(compared > 20, `${compared} versions compared`);
});

test('the versions as every verb reads them (the view) refuse what the full parse refuses, with an inventory error', (t) => {
  const good = {
    id: 'urn:x',
    type: 'https://ocfl.io/1.1/spec/#inventory',
    digestAlgorithm: 'sha512',
    head: 'v2',
    manifest: { aa: ['v1/content/a'] },
    versions: {
      v1: { created: '2024-01-01T00:00:00Z', state: { aa: ['a', 'b'] }, user: { name: 'n' } },
      v2: { created: '2024-01-02T00:00:00Z', message: 'm', state: { aa: ['a'] } },
    },
  };
  const bytes = (inv: unknown) => Buffer.from(JSON.stringify(inv, null, 2));
  t.deepEqual(
    InventoryView.read(bytes(good), 'inv')
      .versions()
      .map((v) => [v.version, v.fileCount, v.message, v.user?.name]),
    [
      ['v1', 2, undefined, 'n'],
      ['v2', 1, 'm', undefined],
    ],
  );
  const broken: Array<[string, (inv: any) => void]> = [
    ['no created', (inv) => delete inv.versions.v1.created],
    ['a user without name', (inv) => (inv.versions.v1.user = { address: 'mailto:x@example.org' })],
    ['a state entry that is not a list', (inv) => (inv.versions.v2.state = { aa: 'a' })],
    ['a message that is not a string', (inv) => (inv.versions.v2.message = 5)],
    ['a head that is not a version', (inv) => (inv.head = 'v3')],
    ['a version name that is not vN', (inv) => (inv.versions.x1 = inv.versions.v1)],
  ];
  for (const [what, breakIt] of broken) {
    const inv = JSON.parse(JSON.stringify(good));
    breakIt(inv);
    t.throws(() => parseInventory(bytes(inv)), { instanceOf: InventoryError }, `full parse: ${what}`);
    t.throws(() => InventoryView.read(bytes(inv), 'inv'), { instanceOf: InventoryError }, `the view: ${what}`);
  }
  t.throws(
    () =>
      InventoryView.read(
        Buffer.from(
          '{"id": "x", "head": "v1", "type": "t", "digestAlgorithm": "sha512", "versions": {"v1": {"created": "c", "state": {"aa": ["a"',
        ),
        'inv',
      ),
    { instanceOf: InventoryError },
  );
});
