/**
 * Publishing a staged version to a storage root on an object store, and repairing what a crashed
 * writer left there. An object store has no rename and no folders: each key is written whole
 * (readers see old or new bytes, never a mix), and nothing makes several keys change at once. So
 * the order of the writes carries the protocol:
 *
 *   1. every content file of the new version, at its final key vN/content/...: uploaded by
 *      stage.ts while the version is staged (large files in parts as their bytes come, small ones
 *      once their digest says they are new), never through the local workspace; what a caller
 *      staged in the workspace all the same is uploaded here first. No inventory names them yet,
 *      readers ignore them;
 *   2. vN/inventory.json, then its sidecar;
 *   3. the root inventory.json: THE SWITCH. Before it readers see v(N-1), after it vN;
 *   4. the root sidecar. Between 3 and 4 the root sidecar is stale; readers then accept the root
 *      inventory because vN/inventory.json holds the same bytes with a matching sidecar (as for
 *      the renames of commit.ts);
 *   5. for a new object, its declaration 0=ocfl_object_1.1, last: listings (ls, validate of the
 *      root) see an object only once it is complete; a reader looking it up by id finds it from 3;
 *   6. in an upgrade (upgrade.ts), the new declaration 0=ocfl_object_1.1, then the old one removed.
 *
 * A writer killed at any point leaves the object readable at its old or its new version. What
 * it may leave, and what the next writer (holding the lease) or `repair` does about it:
 *   - keys under an unlisted vN (killed in 1 or 2): deleted; uploads in parts never completed: aborted;
 *   - a stale root sidecar (killed between 3 and 4): rewritten;
 *   - a new object without its declaration (killed between 3 and 5): declaration written;
 *   - an upgraded object declaring its old version, or both (killed in 6): finished;
 *   - a new object without a root inventory (killed in 1 or 2): its v1 keys deleted.
 * Before the switch the writer checks that it still holds its lease (lock/lease.ts).
 */
import { SiardOcflError } from '../../errors.js';
import { forEachConcurrent } from '../concurrent.js';
import { failpoint } from '../../failpoint.js';
import { sidecarOfDigest, versionNumber } from '../inventory/inventory.js';
import { listedVersions, type LoadedInventory } from '../object/object.js';
import type { InventorySummary } from '../inventory/view.js';
import type { CommitContext, RecoveryAction } from './context.js';
import { CURRENT_OCFL_VERSION, declarationToSettle, inventoryOcflVersion, isObjectDeclaration, objectDeclaration } from '../declaration.js';
import type { ObjectStorePublish, WriteStorage } from '../storage/storage.js';

/** Content uploads in flight at once (each large one has its own parts in flight: see storage/s3.ts). */
const UPLOADS_AT_ONCE = 8;

type Store = WriteStorage & ObjectStorePublish;

export async function publishToObjectStore(
  ctx: CommitContext,
  store: Store,
  version: string,
  digestAlgorithm: string,
  isNew: boolean,
  /** OCFL version the object declares from now on (an upgrade), staged in S/root. */
  upgradeTo?: string,
): Promise<void> {
  const { workspace, stage, objectPath } = ctx;
  const staged = `${stage}/object/${version}`;
  const sidecar = `inventory.json.${digestAlgorithm}`;
  const walked = await workspace.walk(staged);
  const content = walked.files.filter((f) => f.relative.includes('/'));
  await forEachConcurrent(content, UPLOADS_AT_ONCE, (f) =>
    store.upload(workspace, `${staged}/${f.relative}`, `${objectPath}/${version}/${f.relative}`, f.size),
  );
  await failpoint('s3-after-content');
  // Streamed (in parts when large): the inventory of a million files is ~620 MB, never held whole.
  const uploadStaged = async (from: string, to: string) => store.upload(workspace, from, to, (await workspace.stat(from))?.size ?? 0);
  await uploadStaged(`${staged}/inventory.json`, `${objectPath}/${version}/inventory.json`);
  await store.putBytes(`${objectPath}/${version}/${sidecar}`, await workspace.readFile(`${staged}/${sidecar}`));
  await failpoint('s3-after-version-inventory');
  ctx.assertHeld?.();
  const rootFrom = isNew ? `${stage}/object` : `${stage}/root`;
  await uploadStaged(`${rootFrom}/inventory.json`, `${objectPath}/inventory.json`);
  await failpoint('s3-after-root-inventory');
  await store.putBytes(`${objectPath}/${sidecar}`, await workspace.readFile(`${rootFrom}/${sidecar}`));
  await failpoint('s3-after-root-sidecar');
  if (isNew) {
    const declaration = (await workspace.list(`${stage}/object`)).find((e) => isObjectDeclaration(e.name));
    if (!declaration) throw new SiardOcflError(`The staged object "${ctx.id}" has no declaration file.`, { code: 'STAGE_BROKEN' });
    await store.putBytes(`${objectPath}/${declaration.name}`, await workspace.readFile(`${stage}/object/${declaration.name}`));
    await failpoint('s3-after-declaration');
  }
  if (upgradeTo !== undefined) {
    // After the switch, as on disk (commit.ts, replaceDeclaration): the new declaration, then the old one removed.
    const { name } = objectDeclaration(upgradeTo);
    await store.putBytes(`${objectPath}/${name}`, await workspace.readFile(`${stage}/root/${name}`));
    await failpoint('s3-after-declaration-added');
    for (const entry of await store.list(objectPath)) {
      if (entry.isFile && isObjectDeclaration(entry.name) && entry.name !== name) await store.remove(`${objectPath}/${entry.name}`);
    }
  }
}

/** The object-store counterpart of commit.ts's recoverObject (see the list at the top). */
export async function recoverObjectStore<L extends LoadedInventory<InventorySummary>>(
  ctx: CommitContext,
  store: Store,
  actions: RecoveryAction[],
  load: (storage: Store, objectPath: string) => Promise<L>,
): Promise<L | undefined> {
  const { workspace, stage, objectPath } = ctx;
  if (await workspace.stat(stage)) {
    await workspace.remove(stage);
    actions.push({ kind: 'removed-staging', path: stage });
  }
  // A writer killed while uploading content in parts leaves uploads that are no key (stage.ts).
  if ((await store.abortUploads(objectPath)) > 0) actions.push({ kind: 'aborted-uploads', path: objectPath });
  const entries = await store.list(objectPath).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!entries) return undefined;
  if (!entries.some((e) => e.isFile && e.name === 'inventory.json')) {
    // No root inventory: the object does not exist. What lies there is a first commit that did
    // not reach its switch, but only if it is nothing but version folders; anything else is not ours.
    if (entries.every((e) => e.isDirectory && /^v\d+$/.test(e.name))) {
      for (const e of entries) {
        await store.remove(`${objectPath}/${e.name}`);
        actions.push({ kind: 'rolled-back-version', path: `${objectPath}/${e.name}` });
      }
      return undefined;
    }
    throw new SiardOcflError(
      `The object path of "${ctx.id}", ${store.location}/${objectPath}, holds files but no inventory.json, so it is not an ` +
        `object this tool may repair.`,
      {
        code: 'PATH_CONFLICT',
      },
    );
  }
  const loaded = await load(store, objectPath);
  const { view: inventory, digest } = loaded;
  const listed = listedVersions(loaded);
  const alg = inventory.digestAlgorithm;
  if (loaded.sidecarStale) {
    await store.putBytes(`${objectPath}/inventory.json.${alg}`, Buffer.from(sidecarOfDigest(digest)));
    actions.push({ kind: 'finished-sidecar', path: `${objectPath}/inventory.json.${alg}` });
    loaded.sidecarStale = false;
  }
  if (!entries.some((e) => e.isFile && isObjectDeclaration(e.name))) {
    const declared = objectDeclaration(inventoryOcflVersion(inventory.type) ?? CURRENT_OCFL_VERSION);
    await store.putBytes(`${objectPath}/${declared.name}`, Buffer.from(declared.text));
    actions.push({ kind: 'finished-declaration', path: `${objectPath}/${declared.name}` });
  }
  const settle = declarationToSettle(
    inventory.type,
    entries.filter((e) => e.isFile).map((e) => e.name),
  );
  if (settle) {
    // An upgrade killed after its switch: finished as publishToObjectStore would have.
    const wanted = settle.add === undefined ? undefined : objectDeclaration(settle.add);
    if (wanted) await store.putBytes(`${objectPath}/${wanted.name}`, Buffer.from(wanted.text));
    for (const version of settle.remove) await store.remove(`${objectPath}/${objectDeclaration(version).name}`);
    actions.push({ kind: 'finished-declaration', path: wanted ? `${objectPath}/${wanted.name}` : objectPath });
  }
  const head = versionNumber(inventory.head);
  for (const entry of entries) {
    if (!entry.isDirectory || !/^v\d+$/.test(entry.name) || listed.has(entry.name)) continue;
    if (versionNumber(entry.name) <= head) continue; // not a crashed commit's: leave it to the validator
    await store.remove(`${objectPath}/${entry.name}`);
    actions.push({ kind: 'rolled-back-version', path: `${objectPath}/${entry.name}` });
  }
  return loaded;
}
