/**
 * Listing a root's objects by its layout (src/ocfl/layout/list-by-layout.ts): the ids read back from
 * the folder names at every object path of the extension's test vectors (spec/0003-vectors.json,
 * computed by the extension's own Python code), names cut for length left to the inventory, folders
 * where the layout puts no id named as such, and a tree that is not the layout's left to the scan.
 * Each case runs on a folder listed level by level and on the same tree as the keys of an object
 * store, outlined by pages of keys (s3-outline.ts; pages of 7 keys, so that pages end inside folders),
 * whose objects are told page by page.
 */
import test from 'ava';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadLayout0003 } from '../../../../src/ocfl/layout/extensions.js';
import { listByLayout, type LaidOutObject } from '../../../../src/ocfl/layout/list-by-layout.js';
import { FileSystemStorage } from '../../../../src/ocfl/storage/fs.js';
import { outlineFromKeys } from '../../../../src/ocfl/storage/s3-outline.js';
import type { OutlineEntry } from '../../../../src/ocfl/storage/storage.js';
import { tempDir } from '../../../helpers/tmp.js';
import { LAYOUT_0003_VECTORS, type Layout0003Vector } from '../../../helpers/layout-0003-vectors.js';

const vectors = LAYOUT_0003_VECTORS;

const byPath = (objects: LaidOutObject[]) => new Map(objects.map((o) => [o.path, o]));

/** The folder as an object store holds it: its files as keys, in byte order, read 7 at a time after StartAfter. */
class KeyStorage extends FileSystemStorage {
  /** as the S3 storage says it (isObjectStore): its tree is outlined whole, by pages of keys */
  readonly objectStore = true;
  async outline(rel: string, depth: number, onEntries?: (entries: OutlineEntry[]) => void): Promise<OutlineEntry[]> {
    const keys = readdirSync(this.location, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => path.relative(this.location, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const top = await this.list(rel);
    const files = top.filter((e) => e.isFile).map((e) => ({ path: e.name, isDirectory: false }));
    onEntries?.(files);
    const below = await outlineFromKeys(
      '',
      top.filter((e) => e.isDirectory).map((e) => e.name),
      depth,
      (after, max) => {
        const from = after === undefined ? 0 : keys.findIndex((k) => Buffer.compare(Buffer.from(k), Buffer.from(after)) > 0);
        const page = from < 0 ? [] : keys.slice(from, from + Math.min(7, max));
        return Promise.resolve({ keys: page, truncated: from >= 0 && from + 7 < keys.length });
      },
      onEntries,
    );
    return [...files, ...below];
  }
}

const STORAGES = [
  ['a folder', (dir: string) => new FileSystemStorage(dir)],
  ['keys', (dir: string) => new KeyStorage(dir)],
] as const;

for (const [storageName, storageOf] of STORAGES) {
  test(`${storageName}: the 0003 vectors' object paths listed with the ids they encode; cut names wait for their inventory`, async (t) => {
    const configs = new Map<string, Layout0003Vector[]>();
    for (const v of vectors) {
      const key = `${v.digestAlgorithm} ${v.tupleSize} ${v.numberOfTuples}`;
      configs.set(key, [...(configs.get(key) ?? []), v]);
    }
    let cut = 0;
    for (const [key, group] of configs) {
      const dir = tempDir();
      const { digestAlgorithm, tupleSize, numberOfTuples } = group[0]!;
      // An object named "extensions" at depth 0 would be the root's extensions folder: no root can hold it.
      const placed = group.filter((v) => v.path !== 'extensions');
      for (const v of placed) mkdirSync(path.join(dir, ...v.path.split('/')), { recursive: true });
      for (const v of placed) writeFileSync(path.join(dir, ...v.path.split('/'), '0=ocfl_object_1.1'), '');
      mkdirSync(path.join(dir, 'extensions', 'some-extension'), { recursive: true });
      writeFileSync(path.join(dir, 'extensions', 'some-extension', 'config.json'), '{}');
      writeFileSync(path.join(dir, '0=ocfl_1.1'), 'ocfl_1.1\n');
      const listed = await listByLayout(storageOf(dir), await loadLayout0003({ digestAlgorithm, tupleSize, numberOfTuples }));
      t.truthy(listed, key);
      const found = byPath(listed!);
      t.is(found.size, new Set(placed.map((v) => v.path)).size, key);
      for (const v of placed) {
        const o = found.get(v.path);
        t.is(o?.problem, undefined, `${key}: ${v.path}`);
        if (v.path.split('/').pop()!.length > 100) {
          t.true(o?.cut, `${key}: ${v.path}`);
          t.is(o?.id, undefined);
          cut++;
        } else t.is(o?.id, v.id, `${key}: ${v.path}`);
      }
    }
    t.true(cut >= 4, `${cut} cut names among the vectors`);
  });

  test(`${storageName}: a folder where the layout puts no id is listed with the reason, never under an id`, async (t) => {
    const dir = tempDir();
    const layout = await loadLayout0003();
    const good = layout.objectPath('a b');
    const tuples = good.split('/').slice(0, 3).join('/');
    const wrong = [
      `${tuples}/a%20B`, // decodes to "a B", which lies elsewhere
      `${tuples}/a%2Fb`, // upper-case escape: 0003 writes lower case
      `${tuples}/a%ff`, // not UTF-8
      `${tuples}/a.b`, // '.' is always escaped
      `${tuples}/${'a'.repeat(150)}`, // long, but not cut the 0003 way
      `${tuples}/${'a'.repeat(100)}-${'0'.repeat(64)}`, // cut, but its digest is not the folder's tuples
    ];
    for (const p of [good, ...wrong]) mkdirSync(path.join(dir, p), { recursive: true });
    for (const p of [good, ...wrong]) writeFileSync(path.join(dir, p, 'inventory.json'), '');
    writeFileSync(path.join(dir, tuples, 'stray-file'), '');
    const found = byPath((await listByLayout(storageOf(dir), layout))!);
    t.deepEqual(found.get(good), { path: good, id: 'a b' });
    t.is(found.size, 1 + wrong.length);
    for (const p of wrong) {
      t.is(found.get(p)?.id, undefined, p);
      t.falsy(found.get(p)?.cut, p);
      t.regex(found.get(p)?.problem ?? '', /storage layout/, p);
    }
    t.regex(found.get(wrong[0]!)!.problem!, /puts object "a B" at [0-9a-f/]+a%20B, not here/);
  });

  test(`${storageName}: a tree not the layout's (a folder at a tuple level), a layout without names: left to the scan`, async (t) => {
    const dir = tempDir();
    const layout = await loadLayout0003();
    mkdirSync(path.join(dir, layout.objectPath('x')), { recursive: true });
    writeFileSync(path.join(dir, layout.objectPath('x'), '0=ocfl_object_1.1'), '');
    const storage = storageOf(dir);
    t.is((await listByLayout(storage, layout))?.length, 1);
    // An object by hand whose only files lie at the depth of the layout's objects: no folder reaches that depth.
    mkdirSync(path.join(dir, 'by-hand', 'v1', 'content'), { recursive: true });
    writeFileSync(path.join(dir, 'by-hand', 'v1', 'content', 'a'), '');
    t.is(await listByLayout(storage, layout), undefined);
    t.is(await listByLayout(storage, undefined), undefined);
  });

  test(`${storageName}: told as found: every object once, the whole list returned; a tree not the layout's still undefined`, async (t) => {
    const dir = tempDir();
    const layout = await loadLayout0003();
    const ids = Array.from({ length: 60 }, (_, i) => `urn:told:${i}`);
    for (const id of ids) mkdirSync(path.join(dir, layout.objectPath(id)), { recursive: true });
    for (const id of ids) writeFileSync(path.join(dir, layout.objectPath(id), '0=ocfl_object_1.1'), '');
    mkdirSync(path.join(dir, 'extensions', 'x'), { recursive: true });
    const batches: LaidOutObject[][] = [];
    const listed = await listByLayout(storageOf(dir), layout, (found) => batches.push(found));
    t.deepEqual(
      batches
        .flat()
        .map((o) => o.id)
        .sort(),
      [...ids].sort(),
    );
    // An object store's objects are told page by page (pages of 7 keys here), not at the end of its outline.
    if (storageName === 'keys') t.true(batches.length > 10, `${batches.length} batches`);
    t.deepEqual(listed!.map((o) => o.id).sort(), [...ids].sort());
    mkdirSync(path.join(dir, 'zzz-not-a-tuple', 'a'), { recursive: true });
    writeFileSync(path.join(dir, 'zzz-not-a-tuple', 'a', 'f'), '');
    t.is(await listByLayout(storageOf(dir), layout, () => {}), undefined);
  });
}

test('a folder told as found: the first objects before most first-level folders are outlined', async (t) => {
  const dir = tempDir();
  const layout = await loadLayout0003();
  const ids = Array.from({ length: 200 }, (_, i) => `urn:early:${i}`);
  for (const id of ids) mkdirSync(path.join(dir, layout.objectPath(id)), { recursive: true });
  const firstLevel = new Set(ids.map((id) => layout.objectPath(id).split('/')[0]));
  let outlined = 0;
  let outlinedAtFirst = -1;
  class Counting extends FileSystemStorage {
    override outline(rel: string, depth: number): Promise<OutlineEntry[]> {
      if (rel !== '') outlined++;
      return super.outline(rel, depth);
    }
  }
  const listed = await listByLayout(new Counting(dir), layout, () => {
    if (outlinedAtFirst < 0) outlinedAtFirst = outlined;
  });
  t.is(listed?.length, ids.length);
  t.is(outlined, firstLevel.size);
  t.true(outlinedAtFirst > 0 && outlinedAtFirst <= 8, `${outlinedAtFirst} of ${firstLevel.size} first-level folders outlined first`);
});
