/**
 * An OCFL storage root: create one (`initRoot`), open an OCFL 1.0 or 1.1 root (`openRoot`),
 * find its objects, read them, and start new versions of them.
 */
import path from 'node:path';
import { SiardOcflError, UsageError } from '../errors.js';
import { recoverObject } from './commit/commit.js';
import type { CommitContext } from './commit/context.js';
import { chooseLayout } from './layout/layout-choice.js';
import { compareOcflVersions, declaredObjectVersion, declaredRootVersion, isObjectDeclaration } from './declaration.js';
import { layoutDescription } from './layout/extensions.js';
import { readLayoutConfig } from './layout/registry.js';
import type { StorageLayout } from './layout/storage-layout.js';
import type { LockProvider } from './lock/lock.js';
import { assertObjectId } from './inventory/logical-path.js';
import { loadInventorySummary, loadStagingBase, OcflObjectReader, type ReaderOptions } from './object/object.js';
import type { InventoryVersionSummary } from './inventory/inventory.js';
import type { InventorySummary, InventoryView } from './inventory/view.js';
import { repairObject, repairRoot, type ObjectRepairReport, type RepairOptions, type RootRepairReport } from './commit/repair.js';
import { StagedVersion, type StartVersionOptions } from './commit/stage.js';
import type { Readable } from 'node:stream';
import os from 'node:os';
import { digestSync } from './digest.js';
import { purgeObject, type PurgeReport } from './purge.js';
import { LeaseLockProvider } from './lock/lease.js';
import {
  isObjectStore,
  type ObjectStorePublish,
  type ReadStorage,
  type RootStorage,
  type Storage,
  type WriteStorage,
} from './storage/storage.js';
import { FileSystemStorage } from './storage/fs.js';
import { isObjectStoreUrl, openStorage } from './storage/open.js';
import { openLocalWorkspace, openWorkspace, type Workspace } from './commit/workspace.js';
import {
  checkWorkspace,
  chooseWorkspace,
  initialWorkspace,
  siblingWorkspaceDir,
  WORKSPACE_SETTING,
  workspaceSetting,
} from './commit/workspace-choice.js';

export type OcflVersion = '1.0' | '1.1';

export interface RootOptions {
  /**
   * Where versions are staged and locks kept; default: the one the root remembers, else a
   * sibling folder of the root or a folder in its extension folder (workspace-choice.ts).
   */
  workspaceDir?: string;
  /** Told, in one sentence, when a promise of docs/reliability.md may not hold for this run. */
  onNote?: (sentence: string) => void;
  /** Object locks; default: file locks in the workspace (proper-lockfile). */
  locks?: LockProvider;
}

export interface ObjectLocation {
  /** Object root relative to the storage root. */
  path: string;
  /** OCFL version its declaration names (`0=ocfl_object_1.1` -> 1.1). */
  ocflVersion: string;
}

function layoutJson(layout: StorageLayout): string {
  return JSON.stringify({ extension: layout.extensionName, description: layoutDescription(layout.extensionName) }, null, 2) + '\n';
}

async function writeDurable(storage: Storage, path: string, text: string): Promise<void> {
  const file = await storage.openWrite(path, { exclusive: true });
  await file.write(Buffer.from(text, 'utf8'));
  await file.close();
}

/**
 * Creates a storage root in `dir` (created when missing; an existing folder must be empty).
 * The declaration is written last, so an interrupted init never leaves something that claims
 * to be a root. `layoutOrConfig`: a layout, or a registered extension's name with its parameters
 * as its config.json holds them (`chooseLayout`: one it does not define is refused).
 */
export async function initRoot(
  dir: string,
  layoutOrConfig: StorageLayout | { extensionName: string; [parameter: string]: unknown },
  options: RootOptions = {},
): Promise<OcflStorageRoot> {
  const layout: StorageLayout =
    typeof layoutOrConfig.objectPath === 'function'
      ? (layoutOrConfig as StorageLayout)
      : await chooseLayout({ extensionName: layoutOrConfig.extensionName, configJson: layoutOrConfig });
  if (isObjectStoreUrl(dir)) return initObjectStoreRoot((await openStorage(dir)) as WriteStorage & ObjectStorePublish, layout, options);
  const storage = new FileSystemStorage(dir);
  const st = await storage.stat('');
  if (st && !st.isDirectory) throw new UsageError(`Cannot create a storage root at ${storage.location}: it is a file.`, 'NOT_EMPTY');
  if (st) {
    const entries = await storage.list('');
    if (entries.some((e) => declaredRootVersion(e.name) !== undefined)) {
      throw new UsageError(`${storage.location} is already an OCFL storage root.`, 'ALREADY_ROOT');
    }
    if (entries.length > 0) {
      throw new UsageError(`Cannot create a storage root in ${storage.location}: the folder is not empty.`, 'NOT_EMPTY');
    }
  }
  // The workspace is checked before anything is created, so a refused one leaves nothing behind.
  const workspaceDir = options.workspaceDir ?? (await initialWorkspace(storage.location)).dir;
  await checkWorkspace(storage.location, workspaceDir);
  const remember = path.resolve(workspaceDir) !== siblingWorkspaceDir(storage.location);
  try {
    await storage.mkdir('');
    await writeDurable(storage, 'ocfl_layout.json', layoutJson(layout));
    const extDir = `extensions/${layout.extensionName}`;
    await writeDurable(storage, `${extDir}/config.json`, JSON.stringify(layout.config, null, 2) + '\n');
    await storage.fsyncDir(extDir);
    if (remember) {
      await writeDurable(storage, WORKSPACE_SETTING, workspaceSetting(storage.location, workspaceDir));
      await storage.fsyncDir(path.posix.dirname(WORKSPACE_SETTING));
    }
    await storage.fsyncDir('extensions');
    await writeDurable(storage, '0=ocfl_1.1', 'ocfl_1.1\n');
    await storage.fsyncDir('');
  } catch (err) {
    // Leave the folder as it was: removed when init made it, emptied (it was empty) otherwise.
    if (!st) await storage.remove('').catch(() => {});
    else for (const e of await storage.list('').catch(() => [])) await storage.remove(e.name).catch(() => {});
    throw err;
  }
  return new OcflStorageRoot(storage, '1.1', layout, { ...options, workspaceDir });
}

/**
 * A root on an object store: the same files, no folders to make or fsync, no workspace to
 * remember (it is a local folder of the writing host). The declaration is written last, and only
 * if absent, so an interrupted or concurrent init never leaves two roots' worth of claims.
 */
async function initObjectStoreRoot(
  storage: WriteStorage & ObjectStorePublish,
  layout: StorageLayout,
  options: RootOptions,
): Promise<OcflStorageRoot> {
  const entries = await storage.list('').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  if (entries.some((e) => declaredRootVersion(e.name) !== undefined)) {
    throw new UsageError(`${storage.location} is already an OCFL storage root.`, 'ALREADY_ROOT');
  }
  if (entries.length > 0)
    throw new UsageError(`Cannot create a storage root in ${storage.location}: the prefix is not empty.`, 'NOT_EMPTY');
  await storage.putBytes('ocfl_layout.json', Buffer.from(layoutJson(layout)));
  await storage.putBytes(`extensions/${layout.extensionName}/config.json`, Buffer.from(JSON.stringify(layout.config, null, 2) + '\n'));
  const declared = await storage.putIfAbsent('0=ocfl_1.1', Buffer.from('ocfl_1.1\n'));
  if (!declared.ok && declared.reason === 'exists')
    throw new UsageError(`${storage.location} is already an OCFL storage root.`, 'ALREADY_ROOT');
  if (!declared.ok) await storage.putBytes('0=ocfl_1.1', Buffer.from('ocfl_1.1\n'));
  return new OcflStorageRoot(storage, '1.1', layout, options);
}

/** The local workspace of a root on an object store: given, else one per root in the temporary folder. */
function objectStoreWorkspaceDir(location: string, given?: string): string {
  return given ?? path.join(os.tmpdir(), 'siard-ocfl-work', digestSync('sha256', location).slice(0, 16));
}

/** Where the lease objects of a root on an object store lie (inside our own root extension). */
const LEASE_DIR = 'extensions/siard-ocfl-workspace/locks';

/** An opened root, or the root at a location (a folder or an s3:// URL). */
export async function rootOf(root: string | OcflStorageRoot, options: RootOptions = {}): Promise<OcflStorageRoot> {
  return typeof root === 'string' ? openRoot(root, options) : root;
}

/** Opens a storage root; a folder without a root declaration is refused with a clear error. */
export async function openRoot(dir: string, options: RootOptions = {}): Promise<OcflStorageRoot> {
  const storage = await openStorage(dir);
  const st = await storage.stat('');
  if (!st) throw new UsageError(`Storage root ${storage.location} does not exist.`, 'NOT_A_STORAGE_ROOT');
  if (!st.isDirectory) throw new UsageError(`${storage.location} is a file, not an OCFL storage root.`, 'NOT_A_STORAGE_ROOT');
  const declared = (await storage.list(''))
    .map((e) => (e.isFile ? declaredRootVersion(e.name) : undefined))
    .filter((v) => v !== undefined)
    .sort(compareOcflVersions);
  const newer = declared.find((v) => v !== '1.0' && v !== '1.1');
  if (newer !== undefined) {
    throw new UsageError(`${storage.location} is an OCFL ${newer} storage root; siard-ocfl reads OCFL 1.0 and 1.1 only.`, 'NEWER_OCFL');
  }
  const versions = declared as OcflVersion[];
  if (versions.length === 0) {
    throw new UsageError(
      `${storage.location} is not an OCFL storage root: it has no 0=ocfl_1.1 or 0=ocfl_1.0 declaration.`,
      'NOT_A_STORAGE_ROOT',
    );
  }
  let layout: StorageLayout | undefined;
  try {
    layout = await readLayoutConfig(storage);
  } catch (err) {
    // A root without ocfl_layout.json, or with a layout we do not implement, can still be read:
    // its objects are found by scanning. Writing new objects into it is refused (objectPath).
    if (!(err instanceof SiardOcflError && (err.code === 'NO_LAYOUT' || err.code === 'UNKNOWN_LAYOUT'))) throw err;
  }
  return new OcflStorageRoot(storage, versions[versions.length - 1], layout, options);
}

/** Folders listed ahead of the walk in scanObjects, per level. */
const SCAN_AHEAD = 16;

export class OcflStorageRoot {
  private workspacePromise: Promise<Workspace> | undefined;
  /** In a root without a layout: where scanning found objects, by id (objectPath answers from it). */
  private readonly scanned = new Map<string, string>();

  constructor(
    readonly storage: RootStorage,
    readonly ocflVersion: OcflVersion,
    /** Undefined for a root that declares no layout (objects are then found by scanning). */
    readonly layout: StorageLayout | undefined,
    private readonly options: RootOptions = {},
  ) {}

  get location(): string {
    return this.storage.location;
  }

  /**
   * Object root of an id, relative to the storage root: where the layout puts it or, in a root
   * without a layout, where findObject found it (a new object cannot be placed there).
   */
  objectPath(id: string): string {
    assertObjectId(id);
    if (this.layout) return this.layout.objectPath(id);
    const found = this.scanned.get(id);
    if (found !== undefined) return found;
    throw new UsageError(
      `Storage root ${this.location} declares no storage layout siard-ocfl implements, so a new object cannot be placed by id.`,
      'NO_LAYOUT',
    );
  }

  /** objectPath for a writer: in a root without a layout, the object is looked for first (other tools' roots). */
  private async writePath(id: string): Promise<string> {
    if (!this.layout && !this.scanned.has(id)) await this.findObject(id);
    return this.objectPath(id);
  }

  /** Every object root under the storage root, in sorted order; never descends into an object. */
  async *scanObjects(): AsyncGenerator<ObjectLocation> {
    const list = (storage: ReadStorage, dir: string) =>
      storage.list(dir).then((entries) => entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
    type Listed = ReturnType<typeof list>;
    // Each folder's subfolders are listed SCAN_AHEAD at a time ahead of the walk (one listing at a
    // time made a root of 10,000 objects a second of waiting); the order yielded is the same.
    const walk = async function* (storage: ReadStorage, dir: string, listed: Listed): AsyncGenerator<ObjectLocation> {
      const entries = await listed;
      const declaration = entries.find((e) => e.isFile && isObjectDeclaration(e.name));
      if (declaration) {
        yield { path: dir, ocflVersion: declaredObjectVersion(declaration.name) };
        return;
      }
      const children = entries
        .filter((e) => e.isDirectory && !(dir === '' && e.name === 'extensions'))
        .map((e) => (dir === '' ? e.name : `${dir}/${e.name}`));
      const ahead: Array<Listed | undefined> = [];
      let next = 0;
      for (let i = 0; i < children.length; i++) {
        for (; next < Math.min(children.length, i + SCAN_AHEAD); next++) {
          ahead[next] = list(storage, children[next]!);
          ahead[next]!.catch(() => {}); // awaited in its turn
        }
        const listed = ahead[i]!;
        ahead[i] = undefined;
        yield* walk(storage, children[i]!, listed);
      }
    };
    yield* walk(this.storage, '', list(this.storage, ''));
  }

  /** Where the object with this id lies, or undefined when it does not exist. */
  async findObject(id: string): Promise<string | undefined> {
    assertObjectId(id);
    if (this.layout) {
      const p = this.layout.objectPath(id);
      return (await this.storage.stat(`${p}/inventory.json`)) ? p : undefined;
    }
    for await (const loc of this.scanObjects()) {
      const header = await loadInventorySummary(this.storage, loc.path).catch(() => undefined);
      if (header?.id === id) {
        this.scanned.set(id, loc.path);
        return loc.path;
      }
    }
    return undefined;
  }

  /** Opens an object for reading; a clear error when it does not exist. */
  openObject(id: string, options: ReaderOptions = {}): Promise<OcflObjectReader> {
    return this.openReader(id, (p) => OcflObjectReader.open(this.storage, p, options));
  }

  /**
   * Opens one version of an object (default: the head) read light, its state and content paths
   * only (OcflObjectReader.openVersion): the reading room's object at a million files.
   */
  openObjectVersion(id: string, version = 'head'): Promise<OcflObjectReader> {
    return this.openReader(id, (p) => OcflObjectReader.openVersion(this.storage, p, version));
  }

  private async openReader(id: string, open: (objectPath: string) => Promise<OcflObjectReader>): Promise<OcflObjectReader> {
    const p = await this.findObject(id);
    if (p === undefined) throw new SiardOcflError(`Storage root ${this.location} holds no object "${id}".`, { code: 'NO_OBJECT' });
    const reader = await open(p);
    if (reader.id !== id) {
      throw new SiardOcflError(`The object at ${this.location}/${p} has id "${reader.id}", not "${id}".`, {
        code: 'ID_MISMATCH',
        exitCode: 1,
      });
    }
    return reader;
  }

  /** The versions of an object, oldest first, read without building its manifest and states (log). */
  async objectVersions(id: string): Promise<InventoryVersionSummary[]> {
    const p = await this.findObject(id);
    if (p === undefined) throw new SiardOcflError(`Storage root ${this.location} holds no object "${id}".`, { code: 'NO_OBJECT' });
    const loaded = await loadInventorySummary(this.storage, p);
    if (loaded.id !== id) {
      throw new SiardOcflError(`The object at ${this.location}/${p} has id "${loaded.id}", not "${id}".`, {
        code: 'ID_MISMATCH',
        exitCode: 1,
      });
    }
    return loaded.versions();
  }

  /** A stream of a logical file of an object's version (undefined version: head). */
  async openLogical(id: string, version: string | undefined, logicalPath: string): Promise<Readable> {
    return (await this.openObject(id)).openLogical(logicalPath, version);
  }

  /** The content path (relative to the object root) behind a logical path of a version. */
  async contentPath(id: string, version: string | undefined, logicalPath: string): Promise<string> {
    return (await this.openObject(id)).contentPath(logicalPath, version);
  }

  /** Opens the object at a path relative to the root (as scanObjects yields it). */
  openObjectAt(objectPath: string, options: ReaderOptions = {}): Promise<OcflObjectReader> {
    return OcflObjectReader.open(this.storage, objectPath, options);
  }

  /** id and head of the object at a path, without building its manifest and states (for listings). */
  objectHeaderAt(objectPath: string): Promise<InventorySummary> {
    return loadInventorySummary(this.storage, objectPath);
  }

  /**
   * The folder of the workspace for an object's resumable work (docs/resume.md), absolute, with the
   * workspace's syncfs when it has one (one call makes a checkpoint's writes durable, instead of an
   * fsync per file); undefined on an object store (an ingest there is not resumable: it starts over).
   * `inWorkspace`: the same folder as a path of the workspace, from which a staged version takes files by rename.
   */
  async resumableWork(id: string): Promise<{ dir: string; inWorkspace: string; syncAll?: () => Promise<void> } | undefined> {
    if (isObjectStore(this.storage)) return undefined;
    const ws = await this.workspace();
    const dir = ws.storage.localPath?.(ws.resumeDir(id));
    if (dir === undefined) return undefined;
    // opened now, before the work's first write, so that it hears of every write lost after it
    const inWorkspace = ws.resumeDir(id);
    if (!(await ws.storage.syncAll())) return { dir, inWorkspace };
    return {
      dir,
      inWorkspace,
      syncAll: async () => {
        await ws.storage.syncAll();
      },
    };
  }

  /** The workspace folder this root's writers use (given, remembered or default). */
  async workspaceDir(): Promise<string> {
    if (isObjectStore(this.storage)) return objectStoreWorkspaceDir(this.location, this.options.workspaceDir);
    return (await chooseWorkspace(this.storage, this.location, this.options.workspaceDir)).dir;
  }

  private workspace(): Promise<Workspace> {
    this.workspacePromise ??= (async () => {
      if (isObjectStore(this.storage)) {
        // Content goes to the store as it is staged, the inventories through this host's disk; writers on all hosts
        // exclude each other by lease objects in the store.
        const ws = await openLocalWorkspace(objectStoreWorkspaceDir(this.location, this.options.workspaceDir));
        return { ...ws, locks: this.options.locks ?? new LeaseLockProvider(this.storage, LEASE_DIR) };
      }
      const storage = this.storage;
      const choice = await chooseWorkspace(storage, this.location, this.options.workspaceDir);
      const ws = await openWorkspace(storage, this.location, choice.dir);
      // Only for a workspace that was accepted: a refused one is the error, alone.
      if (choice.dir !== choice.usual) {
        this.options.onNote?.(
          `The workspace ${choice.dir} is not the one this root uses otherwise (${choice.usual}), so this writer and writers ` +
            `using that one do not exclude each other.`,
        );
      }
      return this.options.locks ? { ...ws, locks: this.options.locks } : ws;
    })();
    return this.workspacePromise;
  }

  /**
   * Repairs what a crashed writer left in an object (see commit.ts), without writing a version,
   * and says what it did. LockHeldError when a writer is at work on it.
   */
  async repairObject(id: string): Promise<ObjectRepairReport> {
    await this.writePath(id);
    return repairObject(this, await this.workspace(), id);
  }

  /**
   * Repairs the objects with these ids, or every object of the root and the workspace's
   * leftovers (see repair.ts). Held locks and damaged objects are reported, not thrown.
   */
  async repair(ids?: string[], options: RepairOptions = {}): Promise<RootRepairReport> {
    for (const id of this.layout ? [] : (ids ?? [])) await this.findObject(id);
    return repairRoot(this, await this.workspace(), ids, options);
  }

  /**
   * Removes an object entirely, every version (purge.ts), each step told to `onStep`; NO_OBJECT
   * when there is none, LockHeldError when a writer is at work on it.
   */
  async purge(id: string, onStep?: (sentence: string) => void): Promise<PurgeReport> {
    assertObjectId(id);
    return purgeObject(this, await this.workspace(), id, onStep);
  }

  /**
   * Recovers the object (see commit.ts) and reads the inventory its new version starts from: the
   * caller's `known` one when the object is still at its bytes; else the compact view when it is
   * plain (one read: the JSON is let go once viewed), else parsed in full (see loadStagingBase).
   */
  private async stagingBase(ctx: CommitContext, options: StartVersionOptions): Promise<InventoryView | undefined> {
    // Only the base is kept: the recovery's result holds the inventory's bytes.
    return (await recoverObject(ctx, [], (storage, at) => loadStagingBase(storage, at, options.known)))?.view;
  }

  /**
   * Starts a new version of an object (new or existing): takes the object's lock (LockHeldError
   * at once when another writer has it), repairs what a crashed writer left, and returns a
   * staged version that starts from the head state. Commit or abort it to release the lock.
   */
  async startVersion(id: string, options: StartVersionOptions = {}): Promise<StagedVersion> {
    const objectPath = await this.writePath(id);
    const ws = await this.workspace();
    const lock = await ws.locks.acquire(id);
    try {
      const ctx: CommitContext = {
        root: this.storage,
        workspace: ws.storage,
        stage: ws.stageDir(id),
        objectPath,
        id,
        assertHeld: () => lock.assertHeld(),
      };
      const base = await this.stagingBase(ctx, options);
      if (base && base.id !== id) {
        throw new SiardOcflError(`The object path of "${id}", ${this.location}/${objectPath}, holds object "${base.id}".`, {
          code: 'ID_MISMATCH',
        });
      }
      return new StagedVersion(ctx, lock, base, options, () => lock.release(), this.ocflVersion);
    } catch (err) {
      await lock.release();
      throw err;
    }
  }
}
