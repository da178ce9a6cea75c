/**
 * One version read light (src/ocfl/inventory/version-view.ts, OcflObjectReader.openVersion) held to
 * the reader of the whole inventory (OcflObjectReader.open): the same state, listing, content path
 * of every logical path and digest, and versions, on every version of the OCFL conformance
 * fixtures' good and warn objects and of objects written here (content deduplicated across
 * versions, so a content path that is not `<version>/content/<logical path>`); what it declines (a
 * path with an escape, the file changed between its two passes) read as the whole reader reads it.
 */
import test, { type ExecutionContext } from 'ava';
import { readdirSync } from 'node:fs';
import { Readable } from 'node:stream';
import path from 'node:path';
import { VersionView } from '../../../../src/ocfl/inventory/version-view.js';
import { loadLayout0003 } from '../../../../src/ocfl/layout/extensions.js';
import { OcflObjectReader } from '../../../../src/ocfl/object/object.js';
import type { InventoryModel } from '../../../../src/ocfl/inventory/view.js';
import { initRoot } from '../../../../src/ocfl/root.js';
import { openStorage } from '../../../../src/ocfl/storage/open.js';
import type { ReadStorage } from '../../../../src/ocfl/storage/storage.js';
import { reference, sharedTest } from '../../../helpers/shared.js';
import { tempDir } from '../../../helpers/tmp.js';

/** What a reader of the room asks of one version: each path's digest and content path, in state order and as listed. */
function readVersion(model: Pick<InventoryModel, 'state' | 'listing' | 'manifestPaths' | 'versions'>, version: string) {
  const state = [...model.state(version)];
  const listing = model.listing(version);
  const listed = Array.from({ length: listing.size }, (_, i) => [listing.logicalPath(i), listing.digest(i), listing.contentPath(i)]);
  return {
    state,
    contentPaths: state.map(([, digest]) => model.manifestPaths(digest)![0]),
    listed: listed.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0)),
    versions: model.versions(),
  };
}

async function sameAsWhole(t: ExecutionContext, storage: ReadStorage, objectPath: string, label: string): Promise<number> {
  const whole = await OcflObjectReader.open(storage, objectPath);
  let light = 0;
  for (const { version } of whole.versions()) {
    const read = await VersionView.read(storage, path.posix.join(objectPath, 'inventory.json'), version);
    if (read) {
      light++;
      t.is(read.digest, whole.inventoryDigest, `${label} ${version}: the digest of the bytes read`);
      t.deepEqual(readVersion(read.view, version), readVersion(whole, version), `${label} ${version}`);
    }
    // Through the reader, read light or not: what the room reads.
    const reader = await OcflObjectReader.openVersion(storage, objectPath, version);
    t.deepEqual(readVersion(reader, version), readVersion(whole, version), `${label} ${version} (openVersion)`);
    for (const p of whole.state(version).keys()) t.is(reader.contentPath(p, version), whole.contentPath(p, version));
  }
  return light;
}

sharedTest('every version of the OCFL good and warn fixture objects reads light as the whole reader reads it', async (t) => {
  let objects = 0;
  let light = 0;
  for (const spec of ['1.0', '1.1'])
    for (const kind of ['good-objects', 'warn-objects']) {
      const dir = reference('ocfl-fixtures', spec, kind);
      for (const name of readdirSync(dir)) {
        let storage: ReadStorage;
        try {
          storage = await openStorage(path.join(dir, name));
          await OcflObjectReader.open(storage, '');
        } catch {
          continue; // a warn object the readers refuse (e.g. a sidecar they do not accept): not this test's
        }
        objects++;
        light += await sameAsWhole(t, storage, '', `${spec}/${kind}/${name}`);
      }
    }
  t.true(objects > 40, `${objects} fixture objects`);
  t.true(light > 40, `${light} versions read light`);
});

test('versions written here: deduplicated content, removals, renames; light where plain, whole where not', async (t) => {
  const rootDir = path.join(tempDir(), 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  let staged = await root.startVersion('vv', { fixityAlgorithms: ['md5'] });
  await staged.addBuffer('a.txt', 'same bytes');
  await staged.addBuffer('dir/b.txt', 'b');
  await staged.addBuffer('dir/é 😀.txt', 'u');
  await staged.commit();
  staged = await root.startVersion('vv');
  await staged.addBuffer('copy/of-a.txt', 'same bytes'); // stored once: its content path is v1/content/a.txt
  await staged.addBuffer('dir/b.txt', 'b changed');
  await staged.remove('a.txt');
  await staged.commit();
  staged = await root.startVersion('vv');
  await staged.rename('dir/b.txt', 'dir/c.txt');
  await staged.commit();
  const storage = await openStorage(rootDir);
  const objectPath = root.objectPath('vv');
  t.is(await sameAsWhole(t, storage, objectPath, 'vv'), 3, 'every version read light');

  const head = await root.openObjectVersion('vv');
  t.deepEqual([...head.state().keys()], ['copy/of-a.txt', 'dir/c.txt', 'dir/é 😀.txt']);
  t.is(head.contentPath('copy/of-a.txt'), 'v1/content/a.txt');
  t.is((await head.readLogical('dir/c.txt')).toString(), 'b changed');
  t.is(head.known(), undefined, 'a reader of one version is no base for a writer');
  t.throws(() => head.state('v1'), { message: /holds version v3 only/ });
  await t.throwsAsync(root.openObjectVersion('vv', 'v9'), { message: /has no version v9/ });

  // A logical path JSON writes with an escape: not plain, read whole, answers the same.
  staged = await root.startVersion('vv');
  await staged.addBuffer('quote".txt', 'q');
  await staged.commit();
  t.is(await VersionView.read(storage, path.posix.join(objectPath, 'inventory.json'), 'v4'), undefined);
  t.is((await root.openObjectVersion('vv', 'v4')).contentPath('quote".txt'), 'v4/content/quote".txt');
});

test('an inventory replaced between the two passes is not read light (read into one window, or streamed)', async (t) => {
  const rootDir = path.join(tempDir(), 'root');
  const root = await initRoot(rootDir, await loadLayout0003());
  const staged = await root.startVersion('ch');
  await staged.addBuffer('a.txt', 'a');
  await staged.commit();
  const storage = await openStorage(rootDir);
  t.truthy(storage.readInto, 'a folder is read into one window');
  const where = path.posix.join(root.objectPath('ch'), 'inventory.json');
  t.truthy(await VersionView.read(storage, where, 'head'));
  for (const way of ['readInto', 'readStream'] as const) {
    // The second read sees other bytes (a writer committed in between): same shape, one more space.
    let reads = 0;
    const changed = async function* (source: AsyncIterable<Buffer>) {
      const first = reads++ === 0;
      for await (const chunk of source) yield first ? chunk : Buffer.concat([chunk, Buffer.from(' ')]);
    };
    const changing = new Proxy(storage, {
      get(target, key) {
        if (key === 'readInto') return way === 'readInto' ? (p: string, b: Buffer) => changed(target.readInto!(p, b)) : undefined;
        if (key === 'readStream') return (p: string, o: object) => Readable.from(changed(target.readStream(p, o) as AsyncIterable<Buffer>));
        return Reflect.get(target, key) as unknown;
      },
    });
    t.is(await VersionView.read(changing, where, 'head'), undefined, way);
    t.is(reads, 2, way);
  }
});
