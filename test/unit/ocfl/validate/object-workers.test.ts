/**
 * A storage root on a folder has its objects checked in worker threads (object-workers.ts): the
 * findings must be those of each object checked alone on this thread, in the walk's order. The
 * objects are the OCFL fixtures (good ones, and bad ones whose name gives the code they must raise).
 */
import { cpSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FileSystemStorage } from '../../../../src/ocfl/storage/fs.js';
import { validateObject, validateStorageRoot } from '../../../../src/ocfl/validate/index.js';
import { checkObjectsInWorkers } from '../../../../src/ocfl/validate/object-workers.js';
import { reference, sharedTest as test } from '../../../helpers/shared.js';
import { writeHandMadeObject } from '../../../helpers/hand-made-object.js';
import { tempDir } from '../../../helpers/tmp.js';

const GOOD = ['spec-ex-full', 'updates_three_versions_one_file', 'minimal_mixed_digests'];
const BAD = [
  'E001_extra_file_in_root',
  'E023_extra_file',
  'E040_wrong_head_format',
  'E058_no_sidecar',
  'E060_version_inventory_digest_mismatch',
  'E066_inconsistent_version_state',
  'E092_content_file_digest_mismatch',
  'E093_fixity_digest_mismatch',
  'E095_conflicting_logical_paths',
];

test('objects checked in worker threads: the findings of each object checked alone, in the walk order', async (t) => {
  const root = tempDir('siard-ocfl-object-workers-');
  writeFileSync(path.join(root, '0=ocfl_1.1'), 'ocfl_1.1\n');
  // Two levels, so the walk's order is not the order they were copied in.
  const rels = [...GOOD.map((n) => `good/${n}`), ...BAD.map((n) => `bad/${n}`)];
  for (const rel of rels) {
    const [kind, name] = rel.split('/');
    cpSync(reference('ocfl-fixtures', '1.1', `${kind}-objects`, name!), path.join(root, rel), { recursive: true });
  }
  const inWorkers = await validateStorageRoot(root);
  t.is(inWorkers.objects, rels.length);

  const storage = new FileSystemStorage(root);
  const alone = [...rels].sort();
  t.deepEqual(
    alone.slice(0, BAD.length),
    BAD.map((n) => `bad/${n}`),
  ); // the walk takes bad/ first, each folder sorted
  const expected = { errors: [] as unknown[], warnings: [] as unknown[], files: 0, bytes: 0 };
  for (const rel of alone) {
    const one = await validateObject({ storage, path: rel, display: path.join(root, rel) });
    expected.errors.push(...one.errors);
    expected.warnings.push(...one.warnings);
    expected.files += one.files;
    expected.bytes += one.bytes;
    const name = rel.split('/')[1]!;
    if (rel.startsWith('good/')) t.deepEqual(one.errors, [], name);
    else
      t.true(
        one.errors.some((f) => f.code === name.slice(0, 4)),
        `${name}: ${one.errors.map((f) => f.code).join(', ')}`,
      );
  }
  // The root's own finding among its objects: fixtures share ids (E037, object placement), not an object's.
  const ofObjects = inWorkers.errors.filter((f) => !(f.code === 'E037' && f.message.includes('is also used by the object at')));
  t.true(ofObjects.length < inWorkers.errors.length);
  t.deepEqual(ofObjects, expected.errors);
  t.deepEqual(inWorkers.warnings, expected.warnings);
  t.is(inWorkers.files, expected.files);
  t.is(inWorkers.bytes, expected.bytes);
});

test('objects whose inventories exceed the bytes checked at once run one after the other; alone, side by side', async (t) => {
  const root = tempDir('siard-ocfl-object-budget-');
  writeFileSync(path.join(root, '0=ocfl_1.1'), 'ocfl_1.1\n');
  // The first object is slow (3,000 files), the second quick: side by side the second finishes first.
  writeHandMadeObject(path.join(root, 'a'), 'urn:x:a', 3000);
  writeHandMadeObject(path.join(root, 'b'), 'urn:x:b', 2);
  const finished = async (inventoryBytesAtOnce?: number) => {
    const order: number[] = [];
    const checks = await checkObjectsInWorkers(root, ['a', 'b'], ['a', 'b'], {
      inventoryBytes: ['a', 'b'].map((dir) => statSync(path.join(root, dir, 'inventory.json')).size),
      fixity: true,
      onObject: (i) => order.push(i),
      ...(inventoryBytesAtOnce !== undefined ? { inventoryBytesAtOnce } : {}),
    });
    for (const c of checks) t.deepEqual([...c.findings.errors], [], 'both objects are valid');
    return order;
  };
  t.deepEqual(await finished(1), [0, 1], 'one at a time: the slow object first, as handed out');
  t.deepEqual(await finished(), [1, 0], 'side by side (small inventories): the quick object ends first');
});
