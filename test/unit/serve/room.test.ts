/**
 * What the reading room keeps open (src/serve/room.ts), over a real root of one object of three
 * versions written by the library: a page of one version gets a reader of that version alone
 * (OcflStorageRoot.openObjectVersion: another version's state is refused by it, so a reader of the
 * whole object would fail these tests), one reader for requests made at once, the head found again
 * when a version is added and the same reader kept while the inventory stays the same; the diff's
 * whole object still reads every version. The root's list: while it is being listed, the first
 * page comes from the objects found so far (a storage holding back most folders), then the whole;
 * no folder is asked for while that page is made (the page's reads first; but by an outliner
 * already on its way).
 */
import test from 'ava';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadLayout0003 } from '../../../src/ocfl/layout/extensions.js';
import { initRoot, OcflStorageRoot } from '../../../src/ocfl/root.js';
import { FileSystemStorage } from '../../../src/ocfl/storage/fs.js';
import type { OutlineEntry } from '../../../src/ocfl/storage/storage.js';
import { Room } from '../../../src/serve/room.js';
import { writeHandMadeObject } from '../../helpers/hand-made-object.js';
import { tempDir } from '../../helpers/tmp.js';

const ID = 'urn:test:room';

async function putVersion(root: OcflStorageRoot, files: Record<string, string>, remove: string[] = []): Promise<void> {
  const staged = await root.startVersion(ID);
  for (const [p, body] of Object.entries(files)) await staged.addBuffer(p, body);
  for (const p of remove) await staged.remove(p);
  await staged.commit({ message: 'test', user: { name: 'Test' } });
}

async function twoVersions(): Promise<{ root: OcflStorageRoot; base: string }> {
  const base = tempDir();
  const root = await initRoot(path.join(base, 'root'), await loadLayout0003(), { workspaceDir: path.join(base, 'work') });
  await putVersion(root, { 'a.txt': 'a of v1\n', 'b.txt': 'b\n' });
  await putVersion(root, { 'a.txt': 'a of v2\n', 'c.txt': 'c\n' }, ['b.txt']);
  return { root, base };
}

test("a version's reader holds that version only; the head is found; both read their files", async (t) => {
  const { root, base } = await twoVersions();
  const room = new Room(root, path.join(base, 'room'), 1000);
  t.is(await room.head(ID), 'v2');
  const head = await room.version(ID);
  t.deepEqual([...head.state('v2').keys()], ['a.txt', 'c.txt']);
  t.is((await head.readLogical('a.txt', 'v2')).toString(), 'a of v2\n');
  t.throws(() => head.state('v1'), { message: /holds version v2 only/ });
  const v1 = await room.version(ID, 'v1');
  t.deepEqual([...v1.state('v1').keys()], ['a.txt', 'b.txt']);
  t.is((await v1.readLogical('a.txt', 'v1')).toString(), 'a of v1\n');
  t.throws(() => v1.state('v2'), { message: /holds version v1 only/ });
  // Every version's metadata is there for the pages' links.
  t.deepEqual(
    v1.versions().map((v) => v.version),
    ['v1', 'v2'],
  );
  await t.throwsAsync(room.version(ID, 'v9'), { message: /has no version v9/ });
  await t.throwsAsync(room.version('urn:test:none'), { message: /holds no object "urn:test:none"/ });
  // The diff's object reads both.
  const whole = await room.object(ID);
  t.is(whole.state('v1').size, 2);
  t.is(whole.state('v2').size, 2);
});

test('requests at once share one reader; the same reader is kept while the inventory stays; a new version is the new head', async (t) => {
  const { root, base } = await twoVersions();
  // Checked again at every request: the sidecar decides.
  const room = new Room(root, path.join(base, 'room'), 1000, 0);
  const [a, b, c] = await Promise.all([room.version(ID), room.version(ID), room.version(ID, 'v2')]);
  t.is(a, b);
  t.is(a, c);
  t.is(await room.version(ID), a);
  await putVersion(root, { 'd.txt': 'd\n' });
  t.is(await room.head(ID), 'v3');
  const v3 = await room.version(ID);
  t.not(v3, a);
  t.deepEqual([...v3.state('v3').keys()], ['a.txt', 'c.txt', 'd.txt']);
  // The version asked for by name is still v2, as it was.
  t.deepEqual([...(await room.version(ID, 'v2')).state('v2').keys()], ['a.txt', 'c.txt']);
});

/**
 * A folder storage whose first-level folders after the first `open` wait for `release` to be
 * outlined; `openOutlined` settles once every `open` one has been.
 */
class GatedStorage extends FileSystemStorage {
  release!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
  private outlinedOpen = new Set<string>();
  private allOpen!: () => void;
  readonly openOutlined = new Promise<void>((resolve) => (this.allOpen = resolve));
  constructor(
    dir: string,
    private readonly open: Set<string>,
  ) {
    super(dir);
  }
  override async outline(rel: string, depth: number): Promise<OutlineEntry[]> {
    if (rel !== '' && !this.open.has(rel)) await this.gate;
    const entries = await super.outline(rel, depth);
    if (this.open.has(rel)) {
      this.outlinedOpen.add(rel);
      if (this.outlinedOpen.size === this.open.size) this.allOpen();
    }
    return entries;
  }
}

test('a root being listed: its first page from the objects found so far, in id order, said to be partial; then the whole', async (t) => {
  const dir = tempDir();
  const layout = await loadLayout0003();
  writeFileSync(path.join(dir, '0=ocfl_1.1'), 'ocfl_1.1\n');
  const ids = Array.from({ length: 150 }, (_, i) => `urn:test:listed-${String(i).padStart(3, '0')}`);
  for (const id of ids) writeHandMadeObject(path.join(dir, layout.objectPath(id)), id);
  const firstLevel = (id: string) => layout.objectPath(id).split('/')[0]!;
  // The first 80 first-level folders in their order are listed at once; the rest waits.
  const open = new Set([...new Set(ids.map(firstLevel))].sort().slice(0, 80));
  const early = ids.filter((id) => open.has(firstLevel(id))).sort();
  t.true(early.length >= 50 && early.length < ids.length);
  const storage = new GatedStorage(dir, open);
  const room = new Room(new OcflStorageRoot(storage, '1.1', layout), path.join(dir, '..', 'room'), 1000);
  const shownIds = (rows: Array<{ id?: string }>) => rows.map((r) => r.id);
  // The open folders are outlined before the page is asked for, so "found so far" is exactly
  // `early` however slowly the machine runs (the page waits 300 ms for a whole list first).
  room.startListing();
  await storage.openOutlined;
  const partial = await room.listObjects('', 0, 50);
  t.true(partial.partial);
  t.is(partial.total, early.length);
  t.deepEqual(shownIds(partial.rows), early.slice(0, 50));
  // Each row read from its inventory, as in a whole list.
  t.true(partial.rows.every((r) => r.head === 'v1' && r.fileCount === 1));
  storage.release();
  // The page asked for beyond the objects found waits for the whole list.
  const second = await room.listObjects('', 50, 50);
  t.is(second.partial, undefined);
  t.is(second.total, ids.length);
  t.deepEqual(shownIds(second.rows), [...ids].sort().slice(50, 100));
  const whole = await room.listObjects('', 0, 50);
  t.is(whole.partial, undefined);
  t.deepEqual(shownIds(whole.rows), [...ids].sort().slice(0, 50));
});

/**
 * A folder storage whose first-level folders are outlined in order: `early` at once, then one every
 * `stepMs` from 0.3 s after it is made; the last `held` wait for `release`.
 */
class TricklingStorage extends FileSystemStorage {
  release!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
  private readonly started = Date.now();
  constructor(
    dir: string,
    private readonly order: string[],
    private readonly early: number,
    private readonly stepMs: number,
    private readonly held: number,
  ) {
    super(dir);
  }
  override async outline(rel: string, depth: number): Promise<OutlineEntry[]> {
    const k = this.order.indexOf(rel);
    if (k >= this.order.length - this.held) await this.gate;
    else if (k >= this.early) {
      const due = this.started + WAIT_BEFORE_PARTIAL_MS + (k - this.early) * this.stepMs;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
    }
    return super.outline(rel, depth);
  }
}

/** Room's WHOLE_LIST_WAIT_MS: by then fewer objects than a page are found in the test below. */
const WAIT_BEFORE_PARTIAL_MS = 300;

test('a root listed slowly (an object store): the first page once a page of objects is found, before the list is whole', async (t) => {
  const dir = tempDir();
  const layout = await loadLayout0003();
  writeFileSync(path.join(dir, '0=ocfl_1.1'), 'ocfl_1.1\n');
  const ids = Array.from({ length: 150 }, (_, i) => `urn:test:trickle-${String(i).padStart(3, '0')}`);
  for (const id of ids) writeHandMadeObject(path.join(dir, layout.objectPath(id)), id);
  const firstLevel = (id: string) => layout.objectPath(id).split('/')[0]!;
  const order = [...new Set(ids.map(firstLevel))].sort();
  // 20 folders at once, then one every 10 ms from 0.3 s on; the last 20 only when released.
  const storage = new TricklingStorage(dir, order, 20, 10, 20);
  const room = new Room(new OcflStorageRoot(storage, '1.1', layout), path.join(dir, '..', 'room'), 1000);
  const held = new Set(order.slice(-20));
  // the held folders come only once released, so a first page before then is one before the list is whole; the
  // wait is long only to carry a loaded machine (5 s failed at a load of 50)
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'waited for the whole list'>((resolve) => {
    timer = setTimeout(() => resolve('waited for the whole list'), 30_000);
  });
  const first = await Promise.race([room.listObjects('', 0, 50), timeout]);
  clearTimeout(timer);
  storage.release();
  if (typeof first === 'string') return t.fail(first);
  t.true(first.partial);
  t.true(first.total >= 50 && first.total < ids.length, `${first.total} found`);
  const shown = first.rows.map((r) => r.id!);
  t.is(shown.length, 50);
  t.deepEqual(shown, [...shown].sort(), 'in id order');
  t.true(
    shown.every((id) => !held.has(firstLevel(id))),
    'only objects already found',
  );
  await room.startListing().index;
  const whole = await room.listObjects('', 0, 50);
  t.is(whole.partial, undefined);
  t.deepEqual(
    whole.rows.map((r) => r.id),
    [...ids].sort().slice(0, 50),
  );
});

test('a version asked for by name tells the head: a page of the head reads no inventory again', async (t) => {
  const { root, base } = await twoVersions();
  const room = new Room(root, path.join(base, 'room'), 1000);
  const v2 = await room.version(ID, 'v2');
  let opened = 0;
  const open = root.openObjectVersion.bind(root);
  root.openObjectVersion = (...args) => {
    opened++;
    return open(...args);
  };
  t.is(await room.head(ID), 'v2');
  t.is(await room.version(ID), v2);
  t.is(opened, 0);
});

test('a row found by number is kept for its LOBs: found once for requests together and after, not after 4 others nor failed', async (t) => {
  const { root, base } = await twoVersions();
  const room = new Room(root, path.join(base, 'room'), 1000);
  const finds: string[] = [];
  const find = (key: string) => () => {
    finds.push(key);
    return Promise.resolve({ index: finds.length, cells: [key] });
  };
  const [a, b] = await Promise.all([room.foundRow('r1', find('r1')), room.foundRow('r1', find('r1'))]);
  t.is(a, b);
  t.is(await room.foundRow('r1', find('r1')), a);
  t.deepEqual(finds, ['r1']);
  for (const key of ['r2', 'r3', 'r4', 'r5']) await room.foundRow(key, find(key));
  await room.foundRow('r5', find('r5'));
  t.deepEqual(finds, ['r1', 'r2', 'r3', 'r4', 'r5']);
  t.not(await room.foundRow('r1', find('r1')), a, 'the oldest row is forgotten');
  await t.throwsAsync(room.foundRow('bad', () => Promise.reject(new Error('unreadable'))));
  t.deepEqual((await room.foundRow('bad', find('bad')))?.cells, ['bad']);
});

/** A folder storage whose first-level folders take 20 ms each to outline; when each was asked for, and when each inventory was read. */
class SlowFolders extends FileSystemStorage {
  readonly asked: number[] = [];
  readonly inventoriesRead: number[] = [];
  override async outline(rel: string, depth: number): Promise<OutlineEntry[]> {
    if (rel !== '') {
      this.asked.push(performance.now());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return super.outline(rel, depth);
  }
  override readInto(rel: string, buffer: Buffer): AsyncGenerator<Buffer> {
    if (rel.endsWith('/inventory.json')) this.inventoriesRead.push(performance.now());
    return super.readInto(rel, buffer);
  }
}

test("a root being listed: no folder is asked for while the first page's inventories are read; then the list goes on", async (t) => {
  const dir = tempDir();
  const layout = await loadLayout0003();
  writeFileSync(path.join(dir, '0=ocfl_1.1'), 'ocfl_1.1\n');
  const ids = Array.from({ length: 150 }, (_, i) => `urn:test:held-${String(i).padStart(3, '0')}`);
  for (const id of ids) writeHandMadeObject(path.join(dir, layout.objectPath(id)), id);
  const storage = new SlowFolders(dir);
  const room = new Room(new OcflStorageRoot(storage, '1.1', layout), path.join(dir, '..', 'room'), 1000);
  room.startListing();
  const first = await room.listObjects('', 0, 50);
  const made = performance.now();
  t.true(first.partial, 'the list is not whole when the first page is made');
  t.is(first.rows.length, 50);
  t.true(first.rows.every((r) => r.head === 'v1' && r.fileCount === 1));
  const pageStart = storage.inventoriesRead[0]!;
  // A folder outliner (4 at once, list-by-layout.ts) that was told to go on just before the hold may ask for one more; no other.
  const during = storage.asked.filter((at) => at > pageStart && at < made);
  t.true(during.length <= 4, `${during.length} folders asked for while the page was made`);
  t.true(storage.asked.length < ids.length, 'folders remain to be listed after the page');
  await room.startListing().index;
  const whole = await room.listObjects('', 0, 50);
  t.is(whole.total, ids.length);
});
