/**
 * The reading room's list of a root's objects (src/archive/browse.ts: indexObjects, pageOfObjects)
 * over a real root of 120 objects written as OCFL, its storage counting the inventories read: on a
 * 0003 root the ids come from folder names and only the shown page's inventories are read (a
 * broken inventory elsewhere breaks nothing); pages and the id filter give the objects in id
 * order; an object whose inventory declares another id, or a folder naming no id, is shown by its
 * path with the reason, never under an id; a long id (a cut folder name) is read from its
 * inventory; a root without a layout is scanned, every inventory read, in the same order.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { bytesUnder, indexObjects, pageOfObjects } from '../../../src/archive/browse.js';
import { loadLayout0003 } from '../../../src/ocfl/layout/extensions.js';
import type { StorageLayout } from '../../../src/ocfl/layout/storage-layout.js';
import { OcflStorageRoot } from '../../../src/ocfl/root.js';
import { FileSystemStorage } from '../../../src/ocfl/storage/fs.js';
import { tempDir } from '../../helpers/tmp.js';

/** A folder storage that counts the root inventories read. */
class CountingStorage extends FileSystemStorage {
  inventoriesRead = 0;
  private count(p: string): void {
    if (/(^|\/)[^/]+\/inventory\.json$/.test(p) && !/\/v\d+\/inventory\.json$/.test(p)) this.inventoriesRead++;
  }
  override readFile(p: string): Promise<Buffer> {
    this.count(p);
    return super.readFile(p);
  }
  override readStream(p: string, options?: { start?: number; end?: number; highWaterMark?: number }): Readable {
    this.count(p);
    return super.readStream(p, options);
  }
  override readInto(p: string, buffer: Buffer): AsyncGenerator<Buffer> {
    this.count(p);
    return super.readInto(p, buffer);
  }
}

const sha512 = (data: string | Buffer) => createHash('sha512').update(data).digest('hex');

/** One object of one file, written as OCFL 1.1 at `dir` with `id` in its inventory (its text replaced by `text` if given). */
function writeObject(dir: string, id: string, text?: string): void {
  const content = `the file of ${id}\n`;
  const inventory =
    text ??
    JSON.stringify({
      id,
      type: 'https://ocfl.io/1.1/spec/#inventory',
      digestAlgorithm: 'sha512',
      head: 'v1',
      contentDirectory: 'content',
      manifest: { [sha512(content)]: ['v1/content/file.txt'] },
      versions: {
        v1: { created: '2026-11-28T12:00:00Z', message: 'test', user: { name: 'Test' }, state: { [sha512(content)]: ['file.txt'] } },
      },
    });
  mkdirSync(path.join(dir, 'v1', 'content'), { recursive: true });
  writeFileSync(path.join(dir, '0=ocfl_object_1.1'), 'ocfl_object_1.1\n');
  for (const at of [dir, path.join(dir, 'v1')]) {
    writeFileSync(path.join(at, 'inventory.json'), inventory);
    writeFileSync(path.join(at, 'inventory.json.sha512'), `${sha512(inventory)}  inventory.json\n`);
  }
  writeFileSync(path.join(dir, 'v1', 'content', 'file.txt'), content);
}

/** Bytes of every file under `folder`. */
/** Bytes of the regular files under a folder, descending into real folders only (Node 24's recursive readdir follows links). */
function bytesOnDisk(folder: string): number {
  let sum = 0;
  for (const e of readdirSync(folder, { withFileTypes: true })) {
    const p = path.join(folder, e.name);
    if (e.isDirectory()) sum += bytesOnDisk(p);
    else if (e.isFile()) sum += statSync(p).size;
  }
  return sum;
}

const N = 120;
const ids = Array.from({ length: N }, (_, i) => `urn:test:object-${String((i * 7) % N).padStart(3, '0')}`);
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const inIdOrder = [...ids].sort(byCodeUnit);
const BROKEN = inIdOrder[105]!; // on page 3 of 50
const LONG = `urn:test:object-${'x'.repeat(120)}`; // its folder name is cut: sorts after every other id
let dir: string;
let layout: StorageLayout;

test.before(async () => {
  dir = tempDir();
  layout = await loadLayout0003();
  writeFileSync(path.join(dir, '0=ocfl_1.1'), 'ocfl_1.1\n');
  for (const id of ids) writeObject(path.join(dir, layout.objectPath(id)), id, id === BROKEN ? '{"id": "broken' : undefined);
  writeObject(path.join(dir, layout.objectPath(LONG)), LONG);
  // An object at the place of urn:test:zmoved (the last id) whose inventory names another id.
  writeObject(path.join(dir, layout.objectPath('urn:test:zmoved')), 'urn:test:intruder');
});

function rootOver(storage: FileSystemStorage, withLayout: boolean): OcflStorageRoot {
  return new OcflStorageRoot(storage, '1.1', withLayout ? layout : undefined);
}

test.serial('a 0003 root: ids from folder names, one page of inventories read; pages and the filter in id order', async (t) => {
  const storage = new CountingStorage(dir);
  const root = rootOver(storage, true);
  const index = await indexObjects(root);
  t.true(index.byLayout);
  t.is(storage.inventoriesRead, 1, 'only the inventory of the cut folder name');
  t.deepEqual(
    index.objects.map((o) => o.id),
    [...ids, LONG, 'urn:test:zmoved'].sort(byCodeUnit),
  );
  const page1 = await pageOfObjects(root, index, '', 0, 50);
  t.is(storage.inventoriesRead, 1 + 50);
  t.deepEqual(
    page1.rows.map((r) => r.id),
    index.objects.slice(0, 50).map((o) => o.id),
  );
  t.is(page1.total, N + 2);
  t.is(page1.rows[0]!.head, 'v1');
  t.is(page1.rows[0]!.created, '2026-11-28T12:00:00Z');
  t.is(page1.rows[0]!.fileCount, 1);
  // The bytes stored: every file under the object's folder, summed here by a walk of its own.
  t.deepEqual(
    page1.rows.map((r) => r.bytes),
    page1.rows.map((r) => bytesOnDisk(path.join(dir, r.path))),
  );
  t.true(page1.rows.every((r) => r.error === undefined));
  // Page 3 holds the broken inventory and the object that is not what its folder names.
  const page3 = await pageOfObjects(root, index, '', 100, 50);
  const broken = page3.rows.find((r) => r.path === layout.objectPath(BROKEN))!;
  t.is(broken.id, undefined);
  t.truthy(broken.error);
  const moved = page3.rows.find((r) => r.path === layout.objectPath('urn:test:zmoved'))!;
  t.is(moved.id, undefined);
  t.regex(moved.error!, /encodes the id "urn:test:zmoved", but its inventory declares "urn:test:intruder"/);
  const filtered = await pageOfObjects(root, index, 'object-01', 0, 50);
  t.deepEqual(
    filtered.rows.map((r) => r.id),
    inIdOrder.filter((id) => id.includes('object-01')),
  );
  t.is(filtered.matching, 10);
});

test.serial('a folder of the tree naming no id is listed by its path with the reason', async (t) => {
  const stray = path.join(dir, ...layout.objectPath('urn:test:object-000').split('/').slice(0, 3), 'not%zzan-id');
  mkdirSync(stray);
  try {
    const root = rootOver(new FileSystemStorage(dir), true);
    const index = await indexObjects(root);
    const last = index.objects[index.objects.length - 1]!;
    t.is(last.id, undefined);
    const page = await pageOfObjects(root, index, '', N + 2, 50);
    t.is(page.rows.length, 1);
    t.regex(page.rows[0]!.error!, /The folder name not%zzan-id is no id encoded by the storage layout/);
  } finally {
    rmSync(stray, { recursive: true });
  }
});

test.serial('a root without a layout is scanned (every inventory read) and listed by the ids the inventories declare', async (t) => {
  const storage = new CountingStorage(dir);
  const root = rootOver(storage, false);
  const index = await indexObjects(root);
  t.false(index.byLayout);
  t.true(storage.inventoriesRead >= N + 2);
  const declared = [...ids.filter((id) => id !== BROKEN), LONG, 'urn:test:intruder'].sort(byCodeUnit);
  t.deepEqual(
    index.objects.map((o) => o.id),
    [...declared, undefined],
  );
  const read = storage.inventoriesRead;
  const page1 = await pageOfObjects(root, index, '', 0, 50);
  t.deepEqual(
    page1.rows.map((r) => r.id),
    declared.slice(0, 50),
  );
  t.is(storage.inventoriesRead, read, 'no inventory read again for the page');
});

test('the bytes under a folder, read entry after entry: nested folders, a folder of 2,500 files, a link not followed', async (t) => {
  const base = tempDir();
  const object = path.join(base, 'object');
  let expected = 0;
  for (const [folder, files] of [
    ['v1/content/lobs', 2500],
    ['v1/content/a/b/c', 7],
    ['v2/content', 1],
  ] as const) {
    mkdirSync(path.join(object, folder), { recursive: true });
    for (let i = 0; i < files; i++) {
      const body = 'x'.repeat(i % 97);
      writeFileSync(path.join(object, folder, `f${i}`), body);
      expected += body.length;
    }
  }
  mkdirSync(path.join(object, 'v3'));
  writeFileSync(path.join(base, 'outside'), 'y'.repeat(10_000));
  symlinkSync(path.join(base, 'outside'), path.join(object, 'v3', 'link'));
  symlinkSync(base, path.join(object, 'v3', 'folder-link'));
  t.is(await bytesUnder(new FileSystemStorage(base), 'object'), expected);
  t.is(bytesOnDisk(object), expected, 'the walk of the test counts the same files');
});
