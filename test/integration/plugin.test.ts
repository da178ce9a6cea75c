/**
 * The @ocfl/ocfl plugin: with `siard-ocfl/ocfl-js-plugin` imported, an @ocfl/ocfl-fs storage laid
 * out by extension 0003 puts objects at the specification's paths; without it, @ocfl/ocfl's own
 * 0003 puts the same object elsewhere. The "without" half runs in a child process, whose registry
 * is pristine; the "with" half runs both in a child (importing the built package by its name) and
 * here (importing the source).
 */
import test from 'ava';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import fg from 'fast-glob';
import { LAYOUT_0003_NAME, createLayout } from '../../src/ocfl/layout/index.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';
import { LAYOUT_0003_VECTORS } from '../helpers/layout-0003-vectors.js';
import { distBuilt } from '../helpers/built-dist.js';

const run = promisify(execFile);

const VECTORS = LAYOUT_0003_VECTORS;
const HORRIBLE = '..Hor/rib:lè-$id';
const SPEC_PATH = VECTORS.find((v) => v.id === HORRIBLE && v.digestAlgorithm === 'sha256' && v.tupleSize === 3)!.path;

/** Folders (relative to root, '/'-separated) holding an OCFL object marker. */
async function objectRoots(root: string): Promise<string[]> {
  const markers = await fg('**/0=ocfl_object_*', { cwd: root, dot: true });
  return markers.map((m) => path.posix.dirname(m)).sort();
}

/**
 * A child Node process that creates an @ocfl/ocfl-fs storage with the 0003 layout at `root` and
 * stores one object with `id`, optionally importing the plugin first by package name.
 */
async function storeInChild(root: string, id: string, withPlugin: boolean): Promise<void> {
  const importPlugin =
    "const plugin = await import('siard-ocfl/ocfl-js-plugin'); if (!plugin.isPluginActive()) throw new Error('plugin not active');";
  const script = `
    ${withPlugin ? importPlugin : ''}
    const { default: ocfl } = await import('@ocfl/ocfl-fs');
    const [root, workspace, id] = process.argv.slice(1);
    const storage = ocfl.storage({ root, workspace, layout: { extensionName: '${LAYOUT_0003_NAME}' } });
    await storage.create();
    await storage.object(id).update(async (t) => { await t.write('data.txt', 'hello'); });
  `;
  // -e code resolves packages from the working directory: the project, which names itself siard-ocfl.
  await run(process.execPath, ['--input-type=module', '-e', script, root, tempDir(), id], { cwd: PROJECT_ROOT });
}

test('without the plugin @ocfl/ocfl-fs misplaces the object; with it (by package name) it lies at the spec path', async (t) => {
  await distBuilt(); // the runner's tsc writes dist/ beside the first test files
  t.true(existsSync(path.join(PROJECT_ROOT, 'dist', 'ocfl', 'layout', 'ocfl-js-plugin.js')), 'build first: npx tsc -p .');
  const withoutRoot = path.join(tempDir(), 'root');
  const withRoot = path.join(tempDir(), 'root');
  await Promise.all([storeInChild(withoutRoot, HORRIBLE, false), storeInChild(withRoot, HORRIBLE, true)]);

  const misplaced = await objectRoots(withoutRoot);
  t.is(misplaced.length, 1);
  t.not(misplaced[0], SPEC_PATH, '@ocfl/ocfl alone does not follow the specification');

  t.deepEqual(await objectRoots(withRoot), [SPEC_PATH]);
  t.is(readFileSync(path.join(withRoot, SPEC_PATH, 'v1', 'content', 'data.txt'), 'utf8'), 'hello');
  t.is(JSON.parse(readFileSync(path.join(withRoot, SPEC_PATH, 'inventory.json'), 'utf8')).id, HORRIBLE);
  t.is(JSON.parse(readFileSync(path.join(withRoot, 'ocfl_layout.json'), 'utf8')).extension, LAYOUT_0003_NAME);
  // The full configuration is written, defaults spelled out.
  t.deepEqual(JSON.parse(readFileSync(path.join(withRoot, 'extensions', LAYOUT_0003_NAME, 'config.json'), 'utf8')), createLayout().config);
});

test("in process: the plugin replaces @ocfl/ocfl's 0003 and honours a root's configuration", async (t) => {
  const plugin = await import('../../src/ocfl/layout/ocfl-js-plugin.js');
  const { default: ocfl } = await import('@ocfl/ocfl-fs');
  t.true(plugin.isPluginActive());
  t.is(ocfl.StorageLayout.HashAndIdNTupleStorageLayout, plugin.HashAndIdNTupleStorageLayout);

  // A layout made by name maps every vector as our library does.
  for (const v of VECTORS.filter((x) => !x.id.includes('\0'))) {
    const layout = ocfl.storageLayout({
      extensionName: LAYOUT_0003_NAME,
      digestAlgorithm: v.digestAlgorithm,
      tupleSize: v.tupleSize,
      numberOfTuples: v.numberOfTuples,
    });
    t.is(layout.map(v.id).split(path.sep).join('/'), v.path, `${JSON.stringify(v.id)} ${v.digestAlgorithm}`);
  }

  // A root configured sha1 2/20: create, store, then load it afresh and find the object again.
  const expected = VECTORS.find((v) => v.id === HORRIBLE && v.digestAlgorithm === 'sha1' && v.tupleSize === 2)!;
  const root = path.join(tempDir(), 'root');
  const workspace = tempDir();
  const config = { extensionName: LAYOUT_0003_NAME, digestAlgorithm: 'sha1', tupleSize: 2, numberOfTuples: 20 };
  const created = ocfl.storage({ root, workspace, layout: config });
  await created.create();
  await created.object(HORRIBLE).update(async (tx: { write(p: string, d: string): Promise<void> }) => {
    await tx.write('a/b.txt', 'content');
  });
  t.deepEqual(await objectRoots(root), [expected.path]);
  t.deepEqual(JSON.parse(readFileSync(path.join(root, 'extensions', LAYOUT_0003_NAME, 'config.json'), 'utf8')), config);
  const ours = expected.path;

  const loaded = await ocfl.loadStorage({ root, workspace });
  t.is(loaded.objectRoot(HORRIBLE).split(path.sep).join('/'), ours);
  const object = loaded.object(HORRIBLE);
  await object.load();
  t.is(await object.getFile('a/b.txt').text(), 'content');

  // Bad configurations and ids are refused as our library refuses them.
  t.throws(() => ocfl.storageLayout({ extensionName: LAYOUT_0003_NAME, tupleSize: 0 }), { message: /both be 0/ });
  t.throws(() => ocfl.storageLayout(LAYOUT_0003_NAME).map('\ud800'), { message: /not well-formed Unicode/ });
  t.throws(() => ocfl.storageLayout(LAYOUT_0003_NAME).set('tupleSize', 4), { message: /fixed/ });
  // blake2b-256 works through the synchronous constructor @ocfl/ocfl calls: the plugin preloads it.
  const blake = VECTORS.find((v) => v.digestAlgorithm === 'blake2b-256')!;
  t.is(
    ocfl.storageLayout({ extensionName: LAYOUT_0003_NAME, digestAlgorithm: 'blake2b-256' }).map(blake.id).split(path.sep).join('/'),
    blake.path,
  );
});
