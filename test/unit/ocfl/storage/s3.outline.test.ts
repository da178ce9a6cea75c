/**
 * S3Storage.outline over more first-level folders than one page of a listing by '/' holds (1,000):
 * each page's folders outlined as it comes, every entry once, the files of the first level among
 * them, a missing folder refused as missing; a promise returned by the listener holds every request
 * for more keys until it settles. The store is held here, answering ListObjectsV2 as S3
 * does (keys in byte order, CommonPrefixes counted with the keys toward MaxKeys, StartAfter and the
 * continuation token exclusive); serve-s3.test and s3-backends.test run the same code on Ceph RGW.
 */
import test from 'ava';
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { S3Storage } from '../../../../src/ocfl/storage/s3.js';
import type { OutlineEntry } from '../../../../src/ocfl/storage/storage.js';

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** A bucket of `keys` answering ListObjectsV2 only; `delimited` counts the listings by '/', `paged` the others. */
function bucket(keys: string[]): { client: S3Client; delimited: () => number; paged: () => number } {
  const sorted = [...keys].sort(byteOrder);
  let delimited = 0;
  let paged = 0;
  const send = (command: unknown) => {
    if (!(command instanceof ListObjectsV2Command)) throw new Error('only ListObjectsV2 here');
    const { Prefix = '', Delimiter, MaxKeys = 1000, StartAfter, ContinuationToken } = command.input;
    if (Delimiter) delimited++;
    else paged++;
    const after = ContinuationToken ?? StartAfter;
    const Contents: Array<{ Key: string; Size: number }> = [];
    const CommonPrefixes: Array<{ Prefix: string }> = [];
    let i = after === undefined ? 0 : sorted.findIndex((k) => byteOrder(k, after) > 0);
    if (i < 0) i = sorted.length;
    let last: string | undefined;
    while (i < sorted.length) {
      const key = sorted[i]!;
      if (!key.startsWith(Prefix)) {
        i++;
        continue;
      }
      if (Contents.length + CommonPrefixes.length === MaxKeys) {
        return Promise.resolve({ Contents, CommonPrefixes, IsTruncated: true, NextContinuationToken: last });
      }
      const cut = Delimiter ? key.indexOf(Delimiter, Prefix.length) : -1;
      if (cut < 0) {
        Contents.push({ Key: key, Size: 1 });
        last = key;
        i++;
        continue;
      }
      const common = key.slice(0, cut + 1);
      CommonPrefixes.push({ Prefix: common });
      while (i < sorted.length && sorted[i]!.startsWith(common)) last = sorted[i++];
    }
    return Promise.resolve({ Contents, CommonPrefixes, IsTruncated: false });
  };
  return { client: { send } as unknown as S3Client, delimited: () => delimited, paged: () => paged };
}

const shown = (entries: OutlineEntry[]) => entries.map((e) => `${e.isDirectory ? 'dir' : 'file'} ${e.path}`).sort();

test('2,500 first-level folders: four pages of folders, each outlined as it comes, every entry once', async (t) => {
  const folders = Array.from({ length: 2500 }, (_, i) => `f${String(i).padStart(4, '0')}`);
  const keys = ['root/0=ocfl_1.1', 'root/ocfl_layout.json', 'other/f0001/x/y'];
  for (const f of folders) keys.push(`root/${f}/obj/inventory.json`, `root/${f}/obj/v1/content/a`, `root/${f}/stray`);
  const { client, delimited } = bucket(keys);
  const storage = new S3Storage(client, 'b', 'root');
  const told: OutlineEntry[][] = [];
  const outline = await storage.outline('', 2, (entries) => void told.push(entries));
  const expected = ['file 0=ocfl_1.1', 'file ocfl_layout.json', ...folders.flatMap((f) => [`dir ${f}/obj`, `file ${f}/stray`])].sort();
  t.deepEqual(shown(outline), expected);
  t.deepEqual(shown(told.flat()), expected, 'every entry told once');
  // A first page of 64 names (its folders' objects asked for at once), then pages of 1,000.
  t.is(delimited(), 4);
  // Depth 1: the first level itself, over its three pages.
  t.deepEqual(shown(await storage.outline('', 1)), ['file 0=ocfl_1.1', 'file ocfl_layout.json', ...folders.map((f) => `dir ${f}`)].sort());
  const missing = await storage.outline('nothing-here', 2).catch((err: NodeJS.ErrnoException) => err.code);
  t.is(missing, 'ENOENT');
});

test('a promise the listener returns holds every request for keys until it settles; then the outline goes on', async (t) => {
  const folders = Array.from({ length: 300 }, (_, i) => `f${String(i).padStart(3, '0')}`);
  const keys = folders.flatMap((f) => [`root/${f}/obj/inventory.json`, `root/${f}/obj/v1/content/a`]);
  const { client, paged } = bucket(keys);
  const storage = new S3Storage(client, 'b', 'root');
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  let pagedWhenHeld: number | undefined;
  const told: OutlineEntry[] = [];
  const outline = storage.outline('', 2, (entries) => {
    told.push(...entries);
    pagedWhenHeld ??= paged();
    return hold;
  });
  // Turns of the event loop (the bucket answers at once): the pages asked for before the hold are answered and told.
  for (let i = 0; i < 200; i++) await new Promise((resolve) => setImmediate(resolve));
  t.not(pagedWhenHeld, undefined);
  t.is(paged(), pagedWhenHeld, 'no page of keys asked for while held');
  t.true(told.length < folders.length, `${told.length} told while held`);
  release();
  const whole = await outline;
  t.deepEqual(shown(whole), folders.map((f) => `dir ${f}/obj`).sort());
  t.deepEqual(shown(told), shown(whole), 'every entry told once');
});
