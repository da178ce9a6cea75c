/**
 * The @ocfl/ocfl plugin for every layout (issue 36): without it, @ocfl/ocfl-fs cannot place an
 * object of a 0006 or 0007 root (its classes are stubs) and knows no 0010 or 0012; with it, it
 * maps every worked example of their extension documents as they say, reads a root siard-ocfl made
 * (lists it, reads our .siard byte for byte) and writes objects there where siard-ocfl finds them;
 * a root it creates is one siard-ocfl opens with the same configuration.
 *
 * The plugin is imported only after the first (serial) test, which sees @ocfl/ocfl as it comes:
 * this file runs in a worker process of its own. The 0003 half of the plugin is
 * integration/plugin.test.ts.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from '../../src/sources/sqlite/driver.js';
import { ingest } from '../../src/archive/ingest.js';
import { chooseLayout } from '../../src/ocfl/layout/layout-choice.js';
import { initRoot, openRoot } from '../../src/ocfl/root.js';
import { validatePath } from '../../src/ocfl/validate/index.js';
import { extensionExamples } from '../helpers/extension-examples.js';
import { HAS_SHARED, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const L0006 = '0006-flat-omit-prefix-storage-layout';
const L0007 = '0007-n-tuple-omit-prefix-storage-layout';
const L0010 = '0010-differential-n-tuple-omit-prefix-storage-layout';
const L0012 = '0012-hash-and-no-prefix-id-n-tuple-storage-layout';
const NEW_LAYOUTS = ['0002-flat-direct-storage-layout', '0004-hashed-n-tuple-storage-layout', L0006, L0007, L0010, L0012];

interface OcflFsFile {
  buffer(): Promise<Buffer>;
  text(): Promise<string>;
}
interface OcflFsObject {
  id: string;
  load(): Promise<unknown>;
  getFile(logicalPath: string): OcflFsFile;
  update(fn: (tx: { write(p: string, d: string): Promise<void> }) => Promise<void>): Promise<unknown>;
}
interface OcflFs {
  storageLayout(config: string | Record<string, unknown>): { map(id: string): string };
  storage(config: { root: string; workspace: string; layout?: Record<string, unknown> }): {
    create(): Promise<unknown>;
    object(id: string): OcflFsObject;
  };
  loadStorage(config: { root: string; workspace: string }): Promise<{
    objects(): AsyncIterable<OcflFsObject>;
    object(id: string): OcflFsObject;
  }>;
}

async function ocflFs(): Promise<OcflFs> {
  return (await import('@ocfl/ocfl-fs')).default as OcflFs;
}

async function withPlugin(): Promise<OcflFs> {
  const plugin = await import('../../src/ocfl/layout/ocfl-js-plugin.js');
  if (!plugin.isPluginActive()) throw new Error('the plugin is not active');
  return ocflFs();
}

const toPosix = (p: string) => p.split(path.sep).join('/');

test.serial('without the plugin, @ocfl/ocfl maps no 0006 or 0007 id and knows no 0010 or 0012', async (t) => {
  const ocfl = await ocflFs();
  t.throws(() => ocfl.storageLayout(L0007).map('ns:ab12'));
  t.throws(() => ocfl.storageLayout({ extensionName: L0006, delimiter: ':' }).map('ns:ab12'));
  t.throws(() => ocfl.storageLayout(L0010), { message: /not supported/ });
  t.throws(() => ocfl.storageLayout(L0012), { message: /not supported/ });
});

sharedTest('with the plugin, every worked example of the six extensions maps as its document says', async (t) => {
  const ocfl = await withPlugin();
  let mapped = 0;
  for (const name of HAS_SHARED ? NEW_LAYOUTS : []) {
    for (const example of extensionExamples(name)) {
      const layout = ocfl.storageLayout(example.parameters ?? name);
      for (const { id, path: expected } of example.mappings) {
        if (/invalid on unix/i.test(example.prose)) t.throws(() => layout.map(id), undefined, `${name} ${id}`);
        else t.is(toPosix(layout.map(id)), expected, `${name} ${example.title} ${id}`);
        mapped++;
      }
    }
  }
  t.true(mapped >= 30, `${mapped} mappings`);
});

test('with the plugin, @ocfl/ocfl-fs lists and reads a 0007 root siard-ocfl made, and writes where siard-ocfl finds it', async (t) => {
  const ocfl = await withPlugin();
  const dir = tempDir('siard-ocfl-ocfl-js-');
  const db = path.join(dir, 'tiny.db');
  const conn = new Database(db);
  conn.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'one'), (2, 'two');");
  conn.close();
  const rootDir = path.join(dir, 'root');
  await initRoot(rootDir, await chooseLayout({ extensionName: L0007, configJson: { tupleSize: 2, numberOfTuples: 2 } }));
  const ingested = await ingest(`sqlite:${db}`, rootDir, 'urn:example:tiny-db', { name: 'tiny', user: { name: 'test' } });
  t.is(ingested.objectPath, 'ti/ny/tiny-db', "0007: the id's last part in two tuples of 2, then the whole of it");

  const storage = await ocfl.loadStorage({ root: rootDir, workspace: path.join(dir, 'ocfl-js-work') });
  const ours = storage.object('urn:example:tiny-db');
  await ours.load();
  const inventory = JSON.parse(readFileSync(path.join(rootDir, ingested.objectPath, 'inventory.json'), 'utf8'));
  const [digest] = Object.entries(inventory.versions.v1.state as Record<string, string[]>).find(([, p]) => p.includes(ingested.siardFile))!;
  t.is(
    createHash('sha512')
      .update(await ours.getFile(ingested.siardFile).buffer())
      .digest('hex'),
    digest,
  );

  await storage.object('urn:example:notes').update(async (tx) => tx.write('readme.txt', 'written by ocfl-fs'));
  const ids: string[] = [];
  for await (const object of storage.objects()) {
    await object.load();
    ids.push(object.id);
  }
  t.deepEqual(ids.sort(), ['urn:example:notes', 'urn:example:tiny-db']);
  t.true(existsSync(path.join(rootDir, 'no/te/notes/0=ocfl_object_1.1')), 'ocfl-fs wrote the object where 0007 puts it');
  const root = await openRoot(rootDir);
  const notes = await root.openObject('urn:example:notes');
  const chunks: Buffer[] = [];
  for await (const chunk of notes.openLogical('readme.txt')) chunks.push(chunk as Buffer);
  t.is(Buffer.concat(chunks).toString('utf8'), 'written by ocfl-fs');
  const validation = await validatePath(rootDir);
  t.true(validation.valid, JSON.stringify(validation));
});

test('a 0012 root @ocfl/ocfl-fs creates through the plugin is opened by siard-ocfl with the same configuration', async (t) => {
  const ocfl = await withPlugin();
  const dir = tempDir('siard-ocfl-ocfl-js-');
  const rootDir = path.join(dir, 'root');
  const config = { extensionName: L0012, delimiters: [':', '/'], tupleSize: 2, numberOfTuples: 3 };
  const storage = ocfl.storage({ root: rootDir, workspace: path.join(dir, 'work'), layout: config });
  await storage.create();
  await storage.object('ark:/13030/tf5p30086k').update(async (tx) => tx.write('a.txt', 'a'));
  const written = JSON.parse(readFileSync(path.join(rootDir, 'extensions', L0012, 'config.json'), 'utf8'));
  t.deepEqual(written, { ...config, digestAlgorithm: 'sha256' }, 'the whole configuration, the default spelled out');
  const root = await openRoot(rootDir);
  t.deepEqual(root.layout?.config, written);
  // 0003 of "tf5p30086k" (the part after the last delimiter): its sha256 in three tuples of 2, then the name.
  const digest = createHash('sha256').update('tf5p30086k').digest('hex');
  const expected = [digest.slice(0, 2), digest.slice(2, 4), digest.slice(4, 6), 'tf5p30086k'].join('/');
  t.is(root.objectPath('ark:/13030/tf5p30086k'), expected);
  t.true(existsSync(path.join(rootDir, expected, '0=ocfl_object_1.1')));
  t.true((await validatePath(rootDir)).valid);
});
