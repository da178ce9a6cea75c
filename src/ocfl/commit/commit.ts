/**
 * Publishing a staged version, and repairing what a crashed writer left.
 *
 * THE COMMIT PROTOCOL. W is the workspace (same filesystem as the storage root R, outside its
 * storage hierarchy: beside R, or in R/extensions/siard-ocfl-workspace/, see workspace-choice.ts);
 * S = W/stage-<sha256(id)> is the object's staging folder, used only by the holder of the
 * object's lock. Every file is fsynced when written, every folder before it is renamed.
 *
 * New object (v1):
 *   1. S/object/ holds the complete object: 0=ocfl_object_1.1, v1/content/..., v1/inventory.json
 *      (+ sidecar), inventory.json (+ sidecar).
 *   2. S/object is moved to S/tree/<object path>, so the tree under S/tree mirrors the missing
 *      part of the path in R (the tuple folders that do not exist yet).
 *   3. The topmost missing folder of the object path is renamed from S/tree into R in ONE rename;
 *      the object, with its tuple folders, appears whole or not at all. (If another writer created
 *      that folder meanwhile, the rename fails and we retry one level lower.) fsync its parent.
 *   Before 3 the object does not exist; after 3 it exists at v1. No folder is created in R
 *   before the object is complete, so no empty folder can be left there.
 *
 * Existing object (vN, N > 1), by EXCHANGE (Linux renameat2 RENAME_EXCHANGE, macOS RENAME_SWAP):
 *   1. S/object/vN/ holds the new version directory with its inventory and sidecar; S/root/ holds
 *      identical copies of that inventory and sidecar.
 *   2. S/shadow/ is built as the complete new object root: every file of R/obj except the root
 *      inventory and sidecar is hard-linked into it (same inode, no byte copied), S/object/vN and
 *      S/root/* are renamed into it; its folders are fsynced.
 *   3. R/obj and S/shadow are exchanged in ONE atomic step; fsync the parent of R/obj.
 *   4. S/shadow, now the old object root, is removed (its files live on as the links in R/obj).
 *   Before 3 R/obj is untouched (v(N-1), valid); from 3 on it is the complete vN (valid). There is
 *   no instant at which the object is invalid OCFL, for a kill or a power loss (the exchange is
 *   one journaled metadata operation; the fsyncs in 2 make the shadow durable before it).
 *   The price is one link per file of the object per commit (measured in docs/reliability.md).
 *
 * Existing object, by RENAMES (where exchange is unavailable: other systems, filesystems that
 * refuse it, koffi missing; or SIARD_OCFL_COMMIT=rename):
 *   1. As above.
 *   2. rename S/object/vN -> R/obj/vN; fsync R/obj.
 *   3. rename S/root/inventory.json -> R/obj/inventory.json (replaces atomically);
 *   4. at once rename S/root/inventory.json.<alg> -> R/obj/inventory.json.<alg>; fsync R/obj.
 *   The root inventory is the switch: until 3 every reader sees v(N-1) (an extra vN folder is
 *   ignored by readers); from 3 on they see vN. Between 3 and 4 the root sidecar is stale; readers
 *   (loadInventory, loadStagingBase) then accept the root inventory because vN/inventory.json holds the same bytes
 *   with a matching sidecar, which only happens in that window.
 *   Which fsyncs are needed (power loss may persist renames of one folder in any order unless an
 *   fsync separates them): the fsync after 2 is, because an inventory naming vN must never be
 *   durable without vN. None between 3 and 4: if only 4 survives, the root holds the old
 *   inventory with the new sidecar, and since v(N-1)/inventory.json holds those same bytes with a
 *   matching sidecar, readers accept it as v(N-1) and recovery rewrites the sidecar and rolls vN
 *   back. The fsync after 4 makes the commit durable before it is reported.
 *   The object is invalid OCFL (though readable) in two windows: after 2 until 3 (an unlisted vN
 *   folder: one fsync long) and between 3 and 4 (stale sidecar: two renames back to back).
 *
 * Upgrade (upgrade.ts: a new version of a 1.0 object that conforms to 1.1, StartVersionOptions.upgradeTo):
 * the new inventory names 1.1 and the object declares 0=ocfl_object_1.1 from then on. By exchange the
 * shadow holds the new declaration instead of a link of the old one, so the upgrade is one atomic
 * step like any commit. By renames, after step 4: the new declaration moved in, the old one removed
 * (replaceDeclaration); killed between them the object reads at the new version but is invalid
 * (E038 with the old declaration alone, E003 with both) until recovery finishes it.
 *
 * Recovery (recoverObject), run by the next writer of the object while holding its lock, before
 * it stages anything: remove S (after an exchange commit that is all there is to do: S holds a
 * shadow that never went live, or the old tree that did not finish being removed); if the root
 * sidecar is stale as above, finish step 4; if the declaration lags the root inventory's type
 * (an upgrade by renames), finish it; move any vN folder newer than the inventory's head (a step 2 without its step 3) out of R into
 * S and delete it there. Every recovery step is itself idempotent, so a crash during recovery is
 * repaired by the next one. Afterwards the object is valid OCFL again, at its old or new version.
 * A writer whose publication fails with an error (not a kill) runs the same recovery itself before
 * it reports the error, while it still holds the lock; `siard-ocfl repair` runs it on demand.
 *
 * Locks and staging are in W, so R holds only what OCFL allows; with renames, the only transient
 * anomaly in R is an unreferenced vN folder or a stale sidecar of a crashed writer, until the
 * next writer runs.
 */
import { SiardOcflError } from '../../errors.js';
import { giveBackAdopted } from './adopted-trees.js';
import { forEachConcurrent } from '../concurrent.js';
import { failpoint } from '../../failpoint.js';
import { MultiHasher } from '../digest.js';
import { sidecarOfDigest, versionNumber } from '../inventory/inventory.js';
import { listedVersions, type LoadedInventory } from '../object/object.js';
import type { InventorySummary } from '../inventory/view.js';
import { isObjectStore, type ReadStorage, type Storage, type StorageEntry } from '../storage/storage.js';
import { publishToObjectStore, recoverObjectStore } from './object-store.js';
import { declarationToSettle, isObjectDeclaration, objectDeclaration } from '../declaration.js';
import type { CommitContext, RecoveryAction } from './context.js';

function parentOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i);
}

const FSYNC_PARALLEL = 32;
const LINK_PARALLEL = 64;

/**
 * Makes every file and folder under `dir` durable: one syncfs of the whole filesystem where the
 * storage offers it, else fsyncs of every file (many at once: far faster than one after
 * another), then of every folder, children before parents, and `dir` itself.
 */
async function fsyncTree(storage: Storage, dir: string): Promise<void> {
  if (await storage.syncAll()) return;
  const files: string[] = [];
  const dirs: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const entry of await storage.list(d)) {
      if (entry.isDirectory) await walk(`${d}/${entry.name}`);
      else files.push(`${d}/${entry.name}`);
    }
    dirs.push(d);
  };
  await walk(dir);
  await forEachConcurrent(files, FSYNC_PARALLEL, (f) => storage.fsyncFile(f));
  for (const d of dirs) await storage.fsyncDir(d);
}

/** Removes empty folders under `dir`, and `dir` itself when it ends up empty. True when removed. */
export async function pruneEmptyDirs(storage: Storage, dir: string): Promise<boolean> {
  let remaining = 0;
  for (const entry of await storage.list(dir)) {
    if (entry.isDirectory && (await pruneEmptyDirs(storage, `${dir}/${entry.name}`))) continue;
    remaining++;
  }
  if (remaining > 0) return false;
  await storage.remove(dir);
  return true;
}

/**
 * Writes a new staged file from its pieces as they come (one held at a time: an inventory's text
 * is made piece by piece, its second copy read back from the first), each also handed to
 * `onPiece`; the file is removed when the write fails.
 */
async function writeStaged(
  workspace: Storage,
  path: string,
  pieces: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  onPiece?: (piece: Uint8Array) => void,
): Promise<void> {
  const file = await workspace.openWrite(path, { exclusive: true });
  try {
    for await (const piece of pieces) {
      onPiece?.(piece);
      await file.write(piece);
    }
    await file.close();
  } catch (err) {
    await file.abort();
    throw err;
  }
}

export interface StagedInventory {
  version: string;
  digestAlgorithm: string;
  /** OCFL version declared by a new object. */
  ocflVersion: '1.0' | '1.1';
  /** OCFL version an existing object declares from this version on, when an upgrade changes it. */
  declaration?: string | undefined;
  /** The new inventory's bytes, in pieces (a generator: each piece is written and let go before the next is made). */
  inventory: Iterable<Uint8Array>;
  newObject: boolean;
  /** Called between staging and publishing (the last moment to find the lock lost). */
  beforePublish: () => void;
}

/**
 * Step 1's last part, then steps 2 and 3: writes the new inventory and its sidecar into the stage
 * (S/object/vN/, and S/root/ for a new version or S/object/ with the declaration for a new
 * object), then publishes.
 */
export async function stageInventoriesAndPublish(ctx: CommitContext, staged: StagedInventory): Promise<void> {
  const { workspace, stage } = ctx;
  const { version, digestAlgorithm, inventory } = staged;
  const sidecarName = `inventory.json.${digestAlgorithm}`;
  const versionInventory = `${stage}/object/${version}/inventory.json`;
  const hasher = MultiHasher.createSync([digestAlgorithm]);
  await writeStaged(workspace, versionInventory, inventory, (piece) => hasher.update(piece));
  const sidecar = [Buffer.from(sidecarOfDigest(hasher.digests()[digestAlgorithm]!))];
  await writeStaged(workspace, `${stage}/object/${version}/${sidecarName}`, sidecar);
  await failpoint('after-version-inventory');
  // The root's copy is copied from the version's file: the text is not kept to be written twice.
  const copy = () => workspace.readStream(versionInventory, { highWaterMark: 4 << 20 });
  if (!staged.newObject) {
    await writeStaged(workspace, `${stage}/root/inventory.json`, copy());
    await writeStaged(workspace, `${stage}/root/${sidecarName}`, sidecar);
    if (staged.declaration !== undefined) {
      const upgraded = objectDeclaration(staged.declaration);
      await writeStaged(workspace, `${stage}/root/${upgraded.name}`, [Buffer.from(upgraded.text)]);
    }
    await failpoint('after-root-inventory-staged');
    staged.beforePublish();
    await publishNewVersion(ctx, version, digestAlgorithm, staged.declaration);
    return;
  }
  const declaration = objectDeclaration(staged.ocflVersion);
  await writeStaged(workspace, `${stage}/object/${declaration.name}`, [Buffer.from(declaration.text)]);
  await writeStaged(workspace, `${stage}/object/inventory.json`, copy());
  await writeStaged(workspace, `${stage}/object/${sidecarName}`, sidecar);
  await failpoint('after-root-inventory-staged');
  staged.beforePublish();
  await publishNewObject(ctx, version, digestAlgorithm);
}

/** Publishes S/object as a new object (steps 2 and 3 above). */
async function publishNewObject(ctx: CommitContext, version = 'v1', digestAlgorithm = 'sha512'): Promise<void> {
  if (isObjectStore(ctx.root)) return publishToObjectStore(ctx, ctx.root, version, digestAlgorithm, true);
  const { workspace, stage, objectPath } = ctx;
  const root = ctx.root;
  const parts = objectPath.split('/');
  await fsyncTree(workspace, `${stage}/object`);
  await failpoint('after-stage-fsync');
  const treeParent = [`${stage}/tree`, ...parts.slice(0, -1)].join('/');
  await workspace.mkdir(treeParent);
  await workspace.rename(`${stage}/object`, `${stage}/tree/${objectPath}`);
  for (let i = parts.length - 1; i >= 0; i--) await workspace.fsyncDir([`${stage}/tree`, ...parts.slice(0, i)].join('/'));
  await failpoint('after-tree-built');
  for (let attempt = 0; ; attempt++) {
    let missing = -1;
    for (let i = 0; i < parts.length; i++) {
      const here = parts.slice(0, i + 1).join('/');
      const st = await root.stat(here);
      if (!st) {
        missing = i;
        break;
      }
      if (!st.isDirectory) {
        throw new SiardOcflError(`Cannot place object "${ctx.id}": ${root.location}/${here} is a file, not a folder.`, {
          code: 'PATH_CONFLICT',
        });
      }
    }
    if (missing < 0)
      throw new SiardOcflError(`Object "${ctx.id}" appeared at ${root.location}/${objectPath} while it was being created.`, {
        code: 'OBJECT_EXISTS',
      });
    const top = parts.slice(0, missing + 1).join('/');
    await failpoint('before-object-rename');
    try {
      await root.moveFrom(workspace, `${stage}/tree/${top}`, top);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code === 'EEXIST' || code === 'ENOTEMPTY') && attempt < 100) continue;
      throw err;
    }
    await failpoint('after-object-rename');
    await root.fsyncDir(parentOf(top));
    await failpoint('after-root-fsync');
    return;
  }
}

/**
 * Publishes S/object/<version> and S/root/* into an existing object, by exchange where possible.
 * `declaration`: the OCFL version the object declares from now on (an upgrade), staged in S/root.
 */
async function publishNewVersion(ctx: CommitContext, version: string, digestAlgorithm: string, declaration?: string): Promise<void> {
  if (isObjectStore(ctx.root)) return publishToObjectStore(ctx, ctx.root, version, digestAlgorithm, false, declaration);
  if (process.env.SIARD_OCFL_COMMIT !== 'rename' && (await canExchange(ctx))) {
    await publishByExchange(ctx, version, digestAlgorithm, declaration);
  } else {
    await publishByRenames(ctx, version, digestAlgorithm);
    if (declaration !== undefined) await replaceDeclaration(ctx, declaration);
  }
}

/**
 * After the switch of an upgrade by renames: the new declaration moved in, then the old one
 * removed. Killed between the switch and here, the object is read at its new version but declares
 * the old one (E038), or declares both (E003); recoverObject (settleDeclaration) finishes it.
 */
async function replaceDeclaration(ctx: CommitContext, version: string): Promise<void> {
  const { workspace, stage, objectPath } = ctx;
  const root = ctx.root as Storage;
  const { name } = objectDeclaration(version);
  await root.moveFrom(workspace, `${stage}/root/${name}`, `${objectPath}/${name}`);
  await root.fsyncDir(objectPath);
  await failpoint('after-declaration-added');
  for (const entry of await root.list(objectPath)) {
    if (entry.isFile && isObjectDeclaration(entry.name) && entry.name !== name) await root.remove(`${objectPath}/${entry.name}`);
  }
  await root.fsyncDir(objectPath);
  await failpoint('after-declaration-replaced');
}

/** Whether the workspace's filesystem exchanges folders atomically: tried on two empty ones. */
async function canExchange(ctx: CommitContext): Promise<boolean> {
  const { workspace, stage } = ctx;
  const a = `${stage}/probe-a`;
  const b = `${stage}/probe-b`;
  await workspace.mkdir(a);
  await workspace.mkdir(b);
  try {
    return await workspace.exchangeWith(workspace, a, b);
  } finally {
    await workspace.remove(a);
    await workspace.remove(b);
  }
}

/** Links made at once (LINK_PARALLEL in flight): the walk goes on when a batch is done. */
const LINK_BATCH = 4096;

/**
 * Hard-links every file under `from` in `source` to the same place under `to` in `target`,
 * creating the folders; `skip` drops top-level names. Returns the folders created. Files are linked
 * in batches as the walk finds them: the paths of a million-file object are never all held at once.
 */
async function linkTree(source: Storage, from: string, target: Storage, to: string, skip: (name: string) => boolean): Promise<string[]> {
  const dirs: string[] = [to];
  const batch: Array<[string, string]> = [];
  const flush = () => forEachConcurrent(batch.splice(0), LINK_PARALLEL, ([f, t]) => target.linkFrom(source, f, t));
  await target.mkdir(to);
  const walk = async (src: string, dst: string, top: boolean): Promise<void> => {
    const entries: StorageEntry[] = await source.list(src);
    for (const entry of entries) {
      if (top && skip(entry.name)) continue;
      if (entry.isDirectory) {
        await target.mkdir(`${dst}/${entry.name}`);
        dirs.push(`${dst}/${entry.name}`);
        await walk(`${src}/${entry.name}`, `${dst}/${entry.name}`, false);
      } else {
        batch.push([`${src}/${entry.name}`, `${dst}/${entry.name}`]);
        if (batch.length >= LINK_BATCH) await flush();
      }
    }
  };
  await walk(from, to, true);
  await flush();
  return dirs;
}

async function publishByExchange(ctx: CommitContext, version: string, digestAlgorithm: string, declaration?: string): Promise<void> {
  const { workspace, stage, objectPath } = ctx;
  const root = ctx.root as Storage;
  const shadow = `${stage}/shadow`;
  const sidecar = `inventory.json.${digestAlgorithm}`;
  await fsyncTree(workspace, `${stage}/object/${version}`);
  await failpoint('after-stage-fsync');
  // The root inventory and every sidecar of it are replaced (an older version may have used
  // another digest algorithm), and the declaration in an upgrade; everything else of the object is
  // kept, whatever it is. The new declaration goes in with the new inventory, in the same exchange.
  const dirs = await linkTree(
    root,
    objectPath,
    workspace,
    shadow,
    (name) => name === 'inventory.json' || name.startsWith('inventory.json.') || (declaration !== undefined && isObjectDeclaration(name)),
  );
  await failpoint('after-shadow-linked');
  if (declaration !== undefined) {
    const { name } = objectDeclaration(declaration);
    await workspace.rename(`${stage}/root/${name}`, `${shadow}/${name}`);
  }
  await workspace.rename(`${stage}/object/${version}`, `${shadow}/${version}`);
  await workspace.rename(`${stage}/root/inventory.json`, `${shadow}/inventory.json`);
  await workspace.rename(`${stage}/root/${sidecar}`, `${shadow}/${sidecar}`);
  if (!(await workspace.syncAll())) {
    await forEachConcurrent(dirs, FSYNC_PARALLEL, (d) => workspace.fsyncDir(d));
    await workspace.fsyncDir(stage);
  }
  await failpoint('before-exchange');
  if (!(await root.exchangeWith(workspace, shadow, objectPath))) {
    throw new SiardOcflError(`The filesystem of ${root.location} stopped exchanging folders during the commit of "${ctx.id}".`, {
      code: 'EXCHANGE_FAILED',
    });
  }
  await failpoint('after-exchange');
  await root.fsyncDir(parentOf(objectPath));
  await failpoint('after-exchange-fsync');
  await workspace.remove(shadow);
  await failpoint('after-old-tree-removed');
}

/** Publishes S/object/<version> and S/root/* into an existing object by renames (steps 2 to 4 above). */
async function publishByRenames(ctx: CommitContext, version: string, digestAlgorithm: string): Promise<void> {
  const { workspace, stage, objectPath } = ctx;
  const root = ctx.root as Storage;
  await fsyncTree(workspace, `${stage}/object/${version}`);
  await workspace.fsyncDir(`${stage}/root`);
  await failpoint('after-stage-fsync');
  await root.moveFrom(workspace, `${stage}/object/${version}`, `${objectPath}/${version}`);
  await failpoint('after-version-rename');
  await root.fsyncDir(objectPath);
  await failpoint('after-version-fsync');
  // Inventory and sidecar back to back, one fsync after both: a crash between them (E060 until
  // repaired) is the gap between two renames. No fsync is needed between them: whichever of the
  // two renames survives a power loss, the loaders and recoverObject settle on old or new.
  const sidecar = `inventory.json.${digestAlgorithm}`;
  await root.moveFrom(workspace, `${stage}/root/inventory.json`, `${objectPath}/inventory.json`, { replace: true });
  await failpoint('after-inventory-rename');
  await root.moveFrom(workspace, `${stage}/root/${sidecar}`, `${objectPath}/${sidecar}`, { replace: true });
  await failpoint('after-sidecar-rename');
  await root.fsyncDir(objectPath);
  await failpoint('after-sidecar-fsync');
}

/** Finishes an upgrade killed after its switch (see replaceDeclaration): the declaration the inventory names, then the others removed. */
async function settleDeclaration(
  ctx: CommitContext,
  inventoryType: string,
  entries: StorageEntry[],
  actions: RecoveryAction[],
): Promise<void> {
  const settle = declarationToSettle(
    inventoryType,
    entries.filter((e) => e.isFile).map((e) => e.name),
  );
  if (!settle) return;
  const { workspace, stage, objectPath } = ctx;
  const root = ctx.root as Storage;
  if (settle.add !== undefined) {
    const wanted = objectDeclaration(settle.add);
    await writeStaged(workspace, `${stage}/root/${wanted.name}`, [Buffer.from(wanted.text)]);
    await root.moveFrom(workspace, `${stage}/root/${wanted.name}`, `${objectPath}/${wanted.name}`);
    await root.fsyncDir(objectPath);
    actions.push({ kind: 'finished-declaration', path: `${objectPath}/${wanted.name}` });
    await failpoint('recovery-after-declaration-added');
  }
  for (const version of settle.remove) await root.remove(`${objectPath}/${objectDeclaration(version).name}`);
  await root.fsyncDir(objectPath);
  if (settle.add === undefined) actions.push({ kind: 'finished-declaration', path: objectPath });
}

/**
 * Repairs what a crashed writer of this object left (see the protocol above), appending what it
 * did to `actions`. Returns the object's inventory as `load` reads it (its summary, or a writer's
 * base: loadStagingBase), or undefined when the object does not exist.
 */
export async function recoverObject<L extends LoadedInventory<InventorySummary>>(
  ctx: CommitContext,
  actions: RecoveryAction[],
  load: (storage: ReadStorage, objectPath: string) => Promise<L>,
): Promise<L | undefined> {
  if (isObjectStore(ctx.root)) return recoverObjectStore(ctx, ctx.root, actions, load);
  const { workspace, stage, objectPath } = ctx;
  const root = ctx.root;
  if (await workspace.stat(stage)) {
    await giveBackAdopted(workspace, stage); // folders a dead writer adopted go back to their owner first
    await workspace.remove(stage);
    actions.push({ kind: 'removed-staging', path: stage });
    await failpoint('recovery-after-stage-removed');
  }
  const st = await root.stat(objectPath);
  if (!st) return undefined;
  if (!st.isDirectory) {
    throw new SiardOcflError(`The object path of "${ctx.id}", ${root.location}/${objectPath}, is a file.`, { code: 'PATH_CONFLICT' });
  }
  const loaded = await load(root, objectPath);
  const { view: inventory, digest } = loaded;
  const alg = inventory.digestAlgorithm;
  const listed = listedVersions(loaded);
  if (loaded.sidecarStale) {
    const file = await workspace.openWrite(`${stage}/root/inventory.json.${alg}`);
    await file.write(Buffer.from(sidecarOfDigest(digest)));
    await file.close();
    await failpoint('recovery-before-sidecar-repair');
    await root.moveFrom(workspace, `${stage}/root/inventory.json.${alg}`, `${objectPath}/inventory.json.${alg}`, { replace: true });
    await root.fsyncDir(objectPath);
    actions.push({ kind: 'finished-sidecar', path: `${objectPath}/inventory.json.${alg}` });
    await failpoint('recovery-after-sidecar-repair');
    loaded.sidecarStale = false;
  }
  const entries = await root.list(objectPath);
  await settleDeclaration(ctx, inventory.type, entries, actions);
  const head = versionNumber(inventory.head);
  for (const entry of entries) {
    if (!entry.isDirectory || !/^v\d+$/.test(entry.name) || listed.has(entry.name)) continue;
    if (versionNumber(entry.name) <= head) continue; // not a crashed commit's: leave it to the validator
    await workspace.mkdir(`${stage}/trash`);
    await workspace.moveFrom(root, `${objectPath}/${entry.name}`, `${stage}/trash/${entry.name}`);
    await root.fsyncDir(objectPath);
    actions.push({ kind: 'rolled-back-version', path: `${objectPath}/${entry.name}` });
    await failpoint('recovery-after-orphan-moved');
  }
  if (await workspace.stat(stage)) await workspace.remove(stage);
  return loaded;
}
