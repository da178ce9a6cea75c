/**
 * The outline of a tree from pages of keys (src/ocfl/storage/s3-outline.ts), over keys held here
 * and paged as ListObjectsV2 pages them (byte order, StartAfter exclusive, a page size), the
 * requests counted: the folders at the depth asked for and the files above them, the same as
 * computed from the keys directly; an object of 5,000 keys costs one page more, not five; folder
 * names that sort apart from their keys ("a-b/" before "a/") and pages ending anywhere; each page's
 * entries told as it comes, while later pages are held; a folder whose keys one page held whole told
 * with their sizes, summed here from the keys, and one a page ends in told without.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { outlineFromKeys, type KeyPage } from '../../../../src/ocfl/storage/s3-outline.js';
import type { OutlineEntry } from '../../../../src/ocfl/storage/storage.js';

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** A key's size in these stores: its length times 3, plus 1 for every 'a' (any function of the key would do). */
const sizeOf = (key: string) => key.length * 3 + key.split('a').length - 1;

/** The keys below `prefix` paged `size` at a time, as the store pages them; `requests` counts the pages asked for. */
function store(keys: string[], prefix: string, size: number): { page: KeyPage; requests: () => number; keysRead: () => number } {
  const sorted = keys.filter((k) => k.startsWith(prefix)).sort(byteOrder);
  let requests = 0;
  let keysRead = 0;
  const page: KeyPage = (after, max) => {
    requests++;
    const from = after === undefined ? 0 : sorted.findIndex((k) => byteOrder(k, after) > 0);
    const got = from < 0 ? [] : sorted.slice(from, from + Math.min(size, max));
    keysRead += got.length;
    return Promise.resolve({ keys: got, sizes: got.map(sizeOf), truncated: from >= 0 && from + got.length < sorted.length });
  };
  return { page, requests: () => requests, keysRead: () => keysRead };
}

/** What the outline must be, from every key: its folder at `depth`, or the file itself when less deep (first level excluded). */
function expected(keys: string[], prefix: string, depth: number): string[] {
  const out = new Set<string>();
  for (const k of keys) {
    if (!k.startsWith(prefix)) continue;
    const parts = k.slice(prefix.length).split('/');
    if (parts.length === 1 || parts[parts.length - 1] === '') continue;
    out.add(parts.length > depth ? `dir ${parts.slice(0, depth).join('/')}` : `file ${parts.join('/')}`);
  }
  return [...out].sort();
}

const shown = (entries: OutlineEntry[]) => entries.map((e) => `${e.isDirectory ? 'dir' : 'file'} ${e.path}`).sort();
const firstLevel = (keys: string[], prefix: string) => [
  ...new Set(
    keys.filter((k) => k.startsWith(prefix) && k.slice(prefix.length).includes('/')).map((k) => k.slice(prefix.length).split('/')[0]!),
  ),
];

test('500 small objects and one of 5,000 files: every object folder, a small page per run, the large object skipped', async (t) => {
  const keys = [
    'root/0=ocfl_1.1',
    'root/ocfl_layout.json',
    'root/extensions/0003-hash-and-id-n-tuple-storage-layout/config.json',
    'other/x/y/z/w/v',
  ];
  const objectAt = (i: number) => {
    const h = createHash('sha256').update(`object ${i}`).digest('hex');
    return `root/${h.slice(0, 3)}/${h.slice(3, 6)}/${h.slice(6, 9)}/object-${i}`;
  };
  for (let i = 0; i < 500; i++)
    for (const f of ['0=ocfl_object_1.1', 'inventory.json', 'inventory.json.sha512', 'v1/inventory.json', 'v1/content/a'])
      keys.push(`${objectAt(i)}/${f}`);
  for (let i = 0; i < 5000; i++) keys.push(`${objectAt(7)}/v2/content/many/${i}`);
  keys.push(`root/${objectAt(3).split('/')[1]}/stray-file`);
  const { page, requests, keysRead } = store(keys, 'root/', 1000);
  const folders = firstLevel(keys, 'root/');
  const outline = await outlineFromKeys('root/', folders, 4, page);
  t.deepEqual(shown(outline), expected(keys, 'root/', 4));
  t.is(outline.filter((e) => e.isDirectory).length, 500);
  // 32 runs of about 15 first-level folders (some 80 keys): a page each; the large object's run ends a page inside it.
  t.true(requests() <= 32 + 3, `${requests()} requests`);
  // Each run's first page is small: it ends past the run's keys (pages of 1,000 from the start read some 20,000 keys).
  t.true(keysRead() < 5000, `${keysRead()} keys read`);
});

test('folder names that sort apart from their keys, pages of 2 keys: nothing missed, nothing twice', async (t) => {
  const names = ['a', 'a-b', 'a.b', 'a0', 'ab', 'b', 'é', 'z'];
  const keys = names.flatMap((n) => [`${n}/x/1`, `${n}/x/2`, `${n}/y/1`, `${n}/f`, `${n}-file`]);
  for (const size of [1, 2, 3, 1000]) {
    const { page } = store(keys, '', size);
    const outline = await outlineFromKeys('', names, 2, page);
    t.deepEqual(shown(outline), expected(keys, '', 2), `pages of ${size}`);
    t.is(new Set(outline.map((e) => e.path)).size, outline.length, `pages of ${size}: nothing twice`);
  }
});

test('each page told as it comes: the first runs told while later pages are held, every entry once, together the outline', async (t) => {
  const names = Array.from({ length: 64 }, (_, i) => `f${String(i).padStart(2, '0')}`);
  const keys = names.flatMap((n) => [`${n}/a/1`, `${n}/a/2`, `${n}/b/1`, `${n}/file`]);
  const { page } = store(keys, '', 3);
  // The first 10 pages asked for are answered at once; the rest only when released.
  let asked = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const held: KeyPage = async (after, max) => {
    if (++asked > 10) await gate;
    return page(after, max);
  };
  const told: OutlineEntry[][] = [];
  const outline = outlineFromKeys('', names, 2, held, (entries) => told.push(entries));
  // Turns of the event loop until the answered pages are told (no timer: the pages answer at once).
  for (let i = 0; i < 100 && told.length < 10; i++) await new Promise((resolve) => setImmediate(resolve));
  t.is(told.length, 10, 'the 10 pages answered are told before the outline ends');
  t.true(told.every((entries) => entries.length > 0));
  release();
  const whole = await outline;
  t.deepEqual(shown(whole), expected(keys, '', 2));
  t.deepEqual(shown(told.flat()), shown(whole), 'every entry told once');
});

test('sizes: a folder whose keys one page held is told with their bytes and its files; one a page ends in without', async (t) => {
  const names = ['a', 'a-b', 'b', 'c'];
  const keys = names.flatMap((n) => [
    `${n}/x/o1/inventory.json`,
    `${n}/x/o1/inventory.json.sha512`,
    `${n}/x/o1/v1/content/a`,
    `${n}/x/o1/v1/content/bb`,
    `${n}/x/o2/inventory.json`,
    `${n}/x/o2/v1/`, // a folder marker: counted, no file
    `${n}/x/o2/v1/content/c`,
    `${n}/y/o3/inventory.json`,
    `${n}/file`,
  ]);
  /** What each folder at depth 3 weighs, from the keys: every key below it, and the files directly in it. */
  const weighs = (folder: string) => {
    const below = keys.filter((k) => k.startsWith(`${folder}/`));
    const files = below
      .filter((k) => !k.slice(folder.length + 1).includes('/'))
      .map((k) => [k.slice(folder.length + 1), sizeOf(k)] as const);
    return { bytes: below.reduce((sum, k) => sum + sizeOf(k), 0), files: new Map(files) };
  };
  for (const size of [1, 2, 3, 5, 1000]) {
    const { page } = store(keys, '', size);
    const outline = await outlineFromKeys('', names, 3, page);
    t.deepEqual(shown(outline), expected(keys, '', 3), `pages of ${size}`);
    const folders = outline.filter((e) => e.isDirectory);
    for (const e of folders) if (e.sizes) t.deepEqual(e.sizes, weighs(e.path), `pages of ${size}: ${e.path}`);
    if (size === 1000)
      t.true(
        folders.every((e) => e.sizes !== undefined),
        'pages of 1,000: every folder sized',
      );
    // Pages of 1 key: every page ends in its folder; only the store's last page ends the listing, so only its folder is whole.
    if (size === 1)
      t.deepEqual(
        folders.filter((e) => e.sizes).map((e) => e.path),
        ['c/y/o3'],
      );
  }
  // A store that gives no sizes: none told.
  const { page } = store(keys, '', 1000);
  const unsized: KeyPage = async (after, max) => ({ ...(await page(after, max)), sizes: undefined });
  t.true((await outlineFromKeys('', names, 3, unsized)).every((e) => e.sizes === undefined));
});
