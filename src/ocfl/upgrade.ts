/**
 * Upgrade to OCFL 1.1, as the 1.1 specification allows it: never by rewriting what exists.
 *
 * An object: a new version whose inventory names 1.1, with the head's state unchanged, and the
 * declaration 0=ocfl_object_1.1 instead of 0=ocfl_object_1.0; every earlier version directory
 * stays byte for byte as it was (a version may conform to a later OCFL version than the one
 * before it, E103). It is a commit like any other (commit.ts, StartVersionOptions.upgradeTo):
 * atomic by exchange; by renames or on an object store the declaration follows the switch and a
 * writer's recovery (or `repair`, or the same upgrade again) finishes an interrupted one.
 * An object may only declare the version of its root or an earlier one (E081): in a 1.0 root the
 * root is upgraded first.
 *
 * A root: 0=ocfl_1.1 written (durable), then 0=ocfl_1.0 removed. Its objects keep their versions
 * (a 1.1 root may hold 1.0 objects). Killed between the two, the root declares both: it is read as
 * 1.1, and the same upgrade again removes the old declaration.
 */
import { SiardOcflError, UsageError } from '../errors.js';
import { failpoint } from '../failpoint.js';
import type { VersionMetadata } from './commit/staged-inventory.js';
import { compareOcflVersions, CURRENT_OCFL_VERSION, declaredRootVersion, rootDeclaration } from './declaration.js';
import type { OcflStorageRoot } from './root.js';
import { isObjectStore } from './storage/storage.js';

export interface ObjectUpgradeReport {
  id: string;
  /** the object root, relative to the storage root */
  path: string;
  /** the OCFL version the object's head conformed to before */
  from: string;
  to: string;
  /** the new version that carries the upgrade; absent when there was nothing to do */
  version?: string;
  upgraded: boolean;
}

export interface RootUpgradeReport {
  root: string;
  from: string;
  to: string;
  upgraded: boolean;
}

/** Upgrades an object to OCFL 1.1 in a new version (see above); `upgraded: false` when it is 1.1 already. */
export async function upgradeObject(root: OcflStorageRoot, id: string, metadata: VersionMetadata = {}): Promise<ObjectUpgradeReport> {
  const path = await root.findObject(id);
  if (path === undefined) throw new SiardOcflError(`Storage root ${root.location} holds no object "${id}".`, { code: 'NO_OBJECT' });
  const staged = await root.startVersion(id, { upgradeTo: CURRENT_OCFL_VERSION });
  const from = staged.baseOcflVersion ?? CURRENT_OCFL_VERSION;
  const order = compareOcflVersions(from, CURRENT_OCFL_VERSION);
  if (order >= 0) {
    await staged.abort();
    if (order > 0) {
      throw new UsageError(
        `Object "${id}" conforms to OCFL ${from}, newer than the ${CURRENT_OCFL_VERSION} siard-ocfl writes.`,
        'NEWER_OCFL',
      );
    }
    return { id, path, from, to: CURRENT_OCFL_VERSION, upgraded: false };
  }
  if (root.ocflVersion !== CURRENT_OCFL_VERSION) {
    await staged.abort();
    throw new UsageError(
      `Storage root ${root.location} declares OCFL ${root.ocflVersion}, and an object may not declare a later version than ` +
        `its root (E081): upgrade the root first (siard-ocfl upgrade --root ${root.location}).`,
      'ROOT_OLDER',
    );
  }
  const message = metadata.message ?? `Upgraded from OCFL ${from} to OCFL ${CURRENT_OCFL_VERSION}; no content changed.`;
  const result = await staged.commit({ ...metadata, message });
  return { id, path, from, to: CURRENT_OCFL_VERSION, version: result.version, upgraded: true };
}

/** Upgrades a storage root's declaration to OCFL 1.1 (see above); `upgraded: false` when it is 1.1 already. */
export async function upgradeRoot(root: OcflStorageRoot): Promise<RootUpgradeReport> {
  const { storage } = root;
  const declared = (await storage.list('')).map((e) => (e.isFile ? declaredRootVersion(e.name) : undefined)).filter((v) => v !== undefined);
  const older = declared.filter((v) => compareOcflVersions(v, CURRENT_OCFL_VERSION) < 0).sort(compareOcflVersions);
  const from = older[0] ?? CURRENT_OCFL_VERSION;
  const report = { root: root.location, from, to: CURRENT_OCFL_VERSION, upgraded: older.length > 0 };
  if (older.length === 0) return report;
  const wanted = rootDeclaration(CURRENT_OCFL_VERSION);
  if (!declared.includes(CURRENT_OCFL_VERSION)) {
    if (isObjectStore(storage)) await storage.putBytes(wanted.name, Buffer.from(wanted.text));
    else {
      const file = await storage.openWrite(wanted.name, { exclusive: true });
      await file.write(Buffer.from(wanted.text));
      await file.close();
      await storage.fsyncDir('');
    }
  }
  await failpoint('root-upgrade-declared');
  for (const version of older) await storage.remove(rootDeclaration(version).name);
  if (!isObjectStore(storage)) await storage.fsyncDir('');
  return report;
}
