/**
 * Issues 12 and 35: every verb reads an object's inventory through one loader (loadInventory):
 * windowed and hashed as it streams where the inventory is plain and its sidecar matches, else
 * whole. ls, log, purge and repair read it as a summary (loadSummary: manifest, states and fixity
 * checked and counted, not kept: ~1 GB of JSON at a million files is never held). Held here: the
 * summary answers as the whole read (same header, versions, digest, sidecar state, or the same
 * error) on fixture objects and on objects whose sidecars are stale, wrong or missing; and the
 * windows read for a summary keep no path of the large blocks and hash the whole file.
 */
import test, { type ExecutionContext } from 'ava';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { digestSync } from '../../../../src/ocfl/digest.js';
import { InventoryWindows } from '../../../../src/ocfl/inventory/windows.js';
import { readHashedWindows } from '../../../../src/ocfl/inventory/hashed-windows.js';
import { loadInventory, loadSummary, type LoadedInventory } from '../../../../src/ocfl/object/object.js';
import type { InventorySummary } from '../../../../src/ocfl/inventory/view.js';
import { FileSystemStorage } from '../../../../src/ocfl/storage/fs.js';
import { rng } from '../../../../fixtures/northwind.js';
import { inventoriesUnder } from '../../../helpers/fixture-inventories.js';
import { reference, sharedTest } from '../../../helpers/shared.js';

const hex = (r: () => number, n: number) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(r() * 16)]).join('');
test('the streamed read keeps no path of the large blocks and its digest is the whole file digest', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'streamed-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const paths = Array.from({ length: 20000 }, (_, i) => `v1/content/file-${i}.bin`);
  const r = rng(5);
  const state = Object.fromEntries(paths.map((p) => [hex(r, 128), [p.slice('v1/content/'.length)]]));
  const inv = {
    id: 'urn:x:streamed',
    type: 'https://ocfl.io/1.1/spec/#inventory',
    digestAlgorithm: 'sha512',
    head: 'v1',
    manifest: Object.fromEntries(Object.entries(state).map(([d, [p]]) => [d, [`v1/content/${p}`]])),
    versions: { v1: { created: '2026-11-26T00:00:00Z', state } },
  };
  const text = Buffer.from(JSON.stringify(inv, null, 2));
  writeFileSync(path.join(dir, 'inventory.json'), text);
  const windows = new InventoryWindows({ fixity: false, manifest: false, version: '' });
  const read = await readHashedWindows(new FileSystemStorage(dir), 'inventory.json', windows);
  t.is(read?.digest, digestSync('sha512', text));
  const parts = windows.end()!;
  t.is(parts.manifest!.pathCount, 20000);
  t.is(parts.manifest!.paths.bytes.length, 0);
  t.is(parts.versions![0]!.state.pathCount, 20000);
  t.is(parts.versions![0]!.state.paths.bytes.length, 0);
  t.is(parts.versions![0]!.state.digests.length, 0);
});

/** The summary's answer and the whole read's: same header, versions, digest and sidecar state, or same error. */
async function sameLoad(t: ExecutionContext, storage: FileSystemStorage, objectPath: string, label: string): Promise<void> {
  const settle = async (p: Promise<LoadedInventory<InventorySummary>>) =>
    p.then(
      ({ view, digest, sidecarStale }) => {
        const { id, head, type, digestAlgorithm } = view;
        return { value: { id, head, type, digestAlgorithm, versions: view.versions(), digest, sidecarStale } };
      },
      (err: Error) => ({ error: err.constructor.name, message: err.message }),
    );
  t.deepEqual(await settle(loadSummary(storage, objectPath)), await settle(loadInventory(storage, objectPath, { whole: true })), label);
}

sharedTest('the summary answers as the whole read: fixture objects, stale, wrong and missing sidecars', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'streamed-objects-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const objects = [...new Set(inventoriesUnder(reference('ocfl-fixtures')).map((f) => path.dirname(f)))].filter((d) => !/\/v\d+$/.test(d));
  t.true(objects.length > 40, `${objects.length} fixture objects`);
  let n = 0;
  for (const object of objects) {
    await sameLoad(t, new FileSystemStorage(path.dirname(object)), path.basename(object), object);
    const copy = path.join(dir, `o${n++}`);
    cpSync(object, copy, { recursive: true });
    const storage = new FileSystemStorage(dir);
    const rel = path.basename(copy);
    const text = readFileSync(path.join(copy, 'inventory.json'), 'utf8');
    const alg = /"digestAlgorithm"\s*:\s*"(sha512|sha256)"/.exec(text)?.[1];
    const head = /"head"\s*:\s*"(v\d+)"/.exec(text)?.[1];
    if (!alg || !head) continue;
    const digest = digestSync(alg, Buffer.from(text));
    // Stale: the root sidecar is an older one, the head's copy and sidecar match the inventory.
    writeFileSync(path.join(copy, `inventory.json.${alg}`), `${'0'.repeat(digest.length)}  inventory.json\n`);
    mkdirSync(path.join(copy, head), { recursive: true });
    writeFileSync(path.join(copy, head, 'inventory.json'), text);
    writeFileSync(path.join(copy, head, `inventory.json.${alg}`), `${digest}  inventory.json\n`);
    await sameLoad(t, storage, rel, `${object} (stale sidecar)`);
    // The head's copy differs by one byte: the sidecar does not match.
    writeFileSync(path.join(copy, head, 'inventory.json'), `${text} `);
    await sameLoad(t, storage, rel, `${object} (head copy differs)`);
    rmSync(path.join(copy, `inventory.json.${alg}`));
    await sameLoad(t, storage, rel, `${object} (no root sidecar)`);
  }
  await sameLoad(t, new FileSystemStorage(dir), 'absent', 'no object');
});
