/**
 * Every registered layout, end to end (issue 36): a root initialised with the layout (and a
 * configuration that is not the default where the extension has parameters), a tiny SQLite
 * database ingested, audited, relocated, audited again and restored, compared value by value
 * with the original. The verbs run in process through the library, each opening the root from
 * what init wrote (ocfl_layout.json, config.json), so seven layouts cost a few seconds of CPU.
 *
 * Where each object lies is worked out independently of src/ocfl/layout/ (helpers/layout-cases.ts):
 * by hand from the extension documents (the id is 0010's first example, `druid:gh875jh5489`), and
 * with node:crypto for the hashing layouts. Also: one root on S3 (Ceph RGW) with layout 0007; a root made by
 * @ocfl/ocfl-fs with its own 0004 (no plugin in this file), and a copy of ocfl-py's OCFL 1.0 root
 * laid out by 0003 with four tuples (its extra fixtures): we ingest into each, and ocfl-fs still
 * lists and reads both their object and ours.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from '../../src/sources/sqlite/driver.js';
import { audit } from '../../src/archive/audit.js';
import { ingest } from '../../src/archive/ingest.js';
import { relocate } from '../../src/archive/relocate.js';
import { restore } from '../../src/archive/restore.js';
import { chooseLayout } from '../../src/ocfl/layout/layout-choice.js';
import { initRoot, openRoot } from '../../src/ocfl/root.js';
import { validatePath } from '../../src/ocfl/validate/index.js';
import { sqliteContents } from '../helpers/archive-support.js';
import { testIf } from '../helpers/requires.js';
import { reference, sharedTest } from '../helpers/shared.js';
import { startRgw, type RgwServer } from '../helpers/s3.js';
import { tempDir } from '../helpers/tmp.js';
import { D, ID, LAYOUT_CASES, S3_LAYOUT_CASE, tuples } from '../helpers/layout-cases.js';

const USER = { name: 'test', address: 'mailto:test@example.org' };
const CASES = LAYOUT_CASES;
/** Two tables, one with a photo large enough to be a LOB file outside the table XML. */
function tinyDatabase(dir: string): string {
  const file = path.join(dir, 'tiny.db');
  const db = new Database(file);
  db.exec(`CREATE TABLE shelf (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
           CREATE TABLE item (id INTEGER PRIMARY KEY, shelf INTEGER REFERENCES shelf(id), name TEXT, weight REAL, photo BLOB);`);
  db.prepare('INSERT INTO shelf VALUES (?, ?)').run(1, 'Émile’s shelf');
  const photo = Buffer.alloc(6000);
  for (let i = 0; i < photo.length; i++) photo[i] = (i * 131 + 7) & 0xff;
  const insert = db.prepare('INSERT INTO item VALUES (?, ?, ?, ?, ?)');
  insert.run(1, 1, 'with photo', 2.5, photo);
  insert.run(2, 1, null, -0.1, Buffer.from('small'));
  insert.run(3, null, 'no photo', null, null);
  db.close();
  return file;
}

const work = tempDir('siard-ocfl-layouts-');
const source = tinyDatabase(work);
const sourceRows = sqliteContents(source);

/** ingest, audit, relocate, audit, restore on `rootDir` (a folder or an s3:// prefix), with the checks. */
async function roundTrip(t: import('ava').ExecutionContext, rootDir: string, restoreTo: string): Promise<void> {
  const ingested = await ingest(`sqlite:${source}`, rootDir, ID, { name: 'tiny', inlineMax: 100, user: USER });
  t.is(ingested.version, 'v1');
  t.true((ingested.export?.lobs ?? 0) >= 1, 'the photo is a LOB file');
  const first = await audit(rootDir);
  t.true(first.ok, JSON.stringify(first.findings));
  t.deepEqual(
    first.objects.map((o) => o.id),
    [ID],
    'audit finds the object by scanning the root',
  );

  const moved = await relocate(rootDir, ID, { lobFolder: 'file:///Archives/tiny/', user: USER });
  t.is(moved.version, 'v2');
  const second = await audit(rootDir, { ids: [ID] });
  t.true(second.ok, JSON.stringify(second.findings));
  t.is(second.objects[0]?.version, 'v2');

  await restore({ root: rootDir, id: ID, version: 'v1' }, restoreTo);
  t.deepEqual(sqliteContents(restoreTo), sourceRows, 'every value restored as it was');
}

for (const c of CASES) {
  test(`${c.extensionName}: init, ingest, audit, relocate, restore`, async (t) => {
    const dir = tempDir('siard-ocfl-layout-');
    const rootDir = path.join(dir, 'root');
    const layout = await chooseLayout({ extensionName: c.extensionName, configJson: c.config });
    await initRoot(rootDir, layout);
    // What init wrote, read as plain JSON: the declaration, and every parameter given.
    t.is(JSON.parse(readFileSync(path.join(rootDir, 'ocfl_layout.json'), 'utf8')).extension, c.extensionName);
    const written = JSON.parse(readFileSync(path.join(rootDir, 'extensions', c.extensionName, 'config.json'), 'utf8'));
    t.like(written, { extensionName: c.extensionName, ...c.config });

    await roundTrip(t, rootDir, path.join(dir, 'restored.db'));

    t.true(existsSync(path.join(rootDir, c.expected, '0=ocfl_object_1.1')), `the object lies at ${c.expected}`);
    t.is(JSON.parse(readFileSync(path.join(rootDir, c.expected, 'inventory.json'), 'utf8')).head, 'v2');
    const reopened = await openRoot(rootDir);
    t.is(reopened.layout?.extensionName, c.extensionName);
    t.is(reopened.objectPath(ID), c.expected);
    const validation = await validatePath(rootDir);
    t.true(validation.valid, JSON.stringify(validation));
  });
}

const started = startRgw();
const rgw: RgwServer | undefined = 'skipped' in started ? undefined : started;
test.after.always(async () => rgw?.stop());

testIf(rgw !== undefined, 'no Ceph RADOS Gateway')('S3: a root laid out by 0007 (tuples of 2) on Ceph RGW', async (t) => {
  const rootUrl = await rgw!.bucket('layouts', 'root');
  const layout = await chooseLayout({ extensionName: S3_LAYOUT_CASE.extensionName, configJson: S3_LAYOUT_CASE.config });
  await initRoot(rootUrl, layout);
  await roundTrip(t, rootUrl, path.join(tempDir('siard-ocfl-layout-s3-'), 'restored.db'));
  const root = await openRoot(rootUrl);
  t.is(root.layout?.extensionName, S3_LAYOUT_CASE.extensionName);
  const expected = S3_LAYOUT_CASE.expected;
  const found: string[] = [];
  for await (const object of root.scanObjects()) found.push(object.path);
  t.deepEqual(found, [expected]);
});

test('a root made by @ocfl/ocfl-fs with its own 0004: we ingest into it, ocfl-fs still lists and reads both objects', async (t) => {
  const { default: ocfl } = await import('@ocfl/ocfl-fs');
  const dir = tempDir('siard-ocfl-ocfl-fs-');
  const rootDir = path.join(dir, 'root');
  const theirs = ocfl.storage({
    root: rootDir,
    workspace: path.join(dir, 'their-work'),
    layout: { extensionName: '0004-hashed-n-tuple-storage-layout' },
  });
  await theirs.create();
  await theirs.object('their-object').update(async (tx: { write(p: string, d: string): Promise<void> }) => {
    await tx.write('notes/readme.txt', 'made by ocfl-fs');
  });

  const ingested = await ingest(`sqlite:${source}`, rootDir, ID, { name: 'tiny', inlineMax: 100, user: USER });
  // Our object lies where 0004 with its defaults puts it: three tuples of 3, then the whole digest.
  t.is(ingested.objectPath, [...tuples(D, 3, 3), D].join('/'));
  const checked = await audit(rootDir, { ids: [ID] });
  t.true(checked.ok, JSON.stringify(checked.findings));
  t.true((await validatePath(rootDir)).valid);

  const loaded = await ocfl.loadStorage({ root: rootDir, workspace: path.join(dir, 'their-work') });
  const ids: string[] = [];
  for await (const object of loaded.objects()) {
    await object.load();
    ids.push(object.id);
  }
  t.deepEqual(ids.sort(), [ID, 'their-object'].sort());
  const ours = loaded.object(ID);
  await ours.load();
  const inventory = JSON.parse(readFileSync(path.join(rootDir, ingested.objectPath, 'inventory.json'), 'utf8'));
  const siardDigest = Object.entries(inventory.versions.v1.state as Record<string, string[]>).find(([, paths]) =>
    paths.includes(ingested.siardFile),
  )![0];
  const siardBytes: Buffer = await ours.getFile(ingested.siardFile).buffer();
  t.is(createHash('sha512').update(siardBytes).digest('hex'), siardDigest, 'ocfl-fs reads our .siard byte for byte');
  const their = loaded.object('their-object');
  await their.load();
  t.is(await their.getFile('notes/readme.txt').text(), 'made by ocfl-fs');
});

/** Every object @ocfl/ocfl-fs finds in `rootDir` (by scanning, whatever its layout), loaded: id -> object. */
async function ocflFsObjects(
  rootDir: string,
  workspace: string,
): Promise<Map<string, { getFile(p: string): { buffer(): Promise<Buffer> } }>> {
  const { default: ocfl } = await import('@ocfl/ocfl-fs');
  const storage = await ocfl.loadStorage({ root: rootDir, workspace });
  const found = new Map();
  for await (const object of storage.objects()) {
    await object.load();
    found.set(object.id, object);
  }
  return found;
}

sharedTest(
  "a copy of ocfl-py's OCFL 1.0 root laid out by 0003 (4 tuples): we ingest into it, its object untouched, ocfl-fs reads both",
  async (t) => {
    const dir = tempDir('siard-ocfl-ocfl-py-');
    const rootDir = path.join(dir, 'root');
    cpSync(reference('ocfl-extra-fixtures', '1.0', 'good-storage-roots', 'reg-extension-dir-root'), rootDir, { recursive: true });
    const theirs = 'a47/817/83d/cec/ark%3a123%2fabc';
    const theirInventory = readFileSync(path.join(rootDir, theirs, 'inventory.json'));

    const ingested = await ingest(`sqlite:${source}`, rootDir, ID, { name: 'tiny', inlineMax: 100, user: USER });
    // The root's own configuration: four tuples of 3 of the id's sha256, then the percent-encoded id.
    t.is(ingested.objectPath, [...tuples(D, 3, 4), 'druid%3agh875jh5489'].join('/'));
    t.is(
      readFileSync(path.join(rootDir, ingested.objectPath, '0=ocfl_object_1.0'), 'utf8'),
      'ocfl_object_1.0\n',
      'a 1.0 object in a 1.0 root',
    );
    t.true(readFileSync(path.join(rootDir, theirs, 'inventory.json')).equals(theirInventory), 'their object is untouched');
    const checked = await audit(rootDir, { ids: [ID] });
    t.true(checked.ok, JSON.stringify(checked.findings));
    const validation = await validatePath(rootDir);
    t.true(validation.valid, JSON.stringify(validation));

    const objects = await ocflFsObjects(rootDir, path.join(dir, 'ocfl-fs-work'));
    t.deepEqual([...objects.keys()].sort(), [ID, 'ark:123/abc'].sort());
    t.is(
      (await objects.get('ark:123/abc')!.getFile('a_file.txt').buffer()).toString('utf8'),
      readFileSync(path.join(rootDir, theirs, 'v1/content/a_file.txt'), 'utf8'),
    );
    const inventory = JSON.parse(readFileSync(path.join(rootDir, ingested.objectPath, 'inventory.json'), 'utf8'));
    const [digest] = Object.entries(inventory.versions.v1.state as Record<string, string[]>).find(([, p]) =>
      p.includes(ingested.siardFile),
    )!;
    const bytes = await objects.get(ID)!.getFile(ingested.siardFile).buffer();
    t.is(createHash(inventory.digestAlgorithm).update(bytes).digest('hex'), digest);
  },
);
