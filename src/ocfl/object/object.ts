/**
 * Reading an OCFL object: its inventory (checked against the sidecar), versions, the logical
 * state of any version, the content path behind a logical path, and a stream of a logical file.
 * Readers never write; what a crashed writer left is repaired by the next writer (see commit.ts).
 */
import type { Readable } from 'node:stream';
import { SiardOcflError } from '../../errors.js';
import { InventoryError, noSuchVersion, type InventoryVersionSummary, parseSidecar, versionSummary } from '../inventory/inventory.js';
import { digestSync } from '../digest.js';
import { type InventoryModel, type InventorySummary, InventoryView, type VersionListing } from '../inventory/view.js';
import { VersionView } from '../inventory/version-view.js';
import { InventoryWindows } from '../inventory/windows.js';
import { readHashedWindows } from '../inventory/hashed-windows.js';
import { joinPath as join, type ReadStorage } from '../storage/storage.js';

/** A version's metadata and file count (what `log` shows), from a full or a compact read alike. */
export type VersionInfo = InventoryVersionSummary;

/** A copy of a version's metadata, keys in the order `log --json` prints them. */
function versionInfo(v: VersionInfo): VersionInfo {
  return versionSummary(v.version, { ...v, user: v.user && { ...v.user } }, v.fileCount);
}

async function readText(storage: ReadStorage, path: string): Promise<string | undefined> {
  try {
    return (await storage.readFile(path)).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * The root inventory's bytes, checked against its sidecar. Of the two files a commit replaces one
 * after the other (inventory, then sidecar), a reader may see either pairing; the bytes are
 * accepted when the sidecar matches them, or when the head version holds the same bytes with a
 * matching sidecar. Anything else is an error naming the object.
 */
async function verifiedInventoryBytes(
  storage: ReadStorage,
  objectPath: string,
  read: (bytes: Buffer, where: string) => InventoryView,
): Promise<LoadedInventory> {
  const where = join(objectPath, 'inventory.json');
  let bytes: Buffer;
  try {
    bytes = await storage.readFile(where);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new SiardOcflError(`No OCFL object at ${storage.location}/${objectPath}: it has no inventory.json.`, { code: 'NO_OBJECT' });
    }
    throw err;
  }
  const view = read(bytes, `${storage.location}/${where}`);
  const digest = digestSync(view.digestAlgorithm, bytes);
  return { view, digest, sidecarStale: await staleSidecar(storage, objectPath, view, digest) };
}

/** Whether the sidecar of the inventory at `where` records `digest`. */
async function sidecarRecords(storage: ReadStorage, where: string, algorithm: string, digest: string | undefined): Promise<boolean> {
  return digest !== undefined && parseSidecar((await readText(storage, `${where}.${algorithm}`)) ?? '') === digest;
}

/** The digest of the file at `where` in `algorithm`, streamed (never held whole); undefined when it cannot be read. */
async function streamedDigest(storage: ReadStorage, where: string, algorithm: string): Promise<string | undefined> {
  return (await readHashedWindows(storage, where, { write: () => true, digestAlgorithm: algorithm }))?.digest;
}

/**
 * Whether inventory bytes of `digest` are the object's by its sidecars: false when the root
 * sidecar records the digest; true (a stale sidecar) when the head version's copy has that digest
 * (streamed, never held beside the root's bytes) and its sidecar records it; else an error naming
 * the object.
 */
async function staleSidecar(storage: ReadStorage, objectPath: string, header: InventorySummary, digest: string): Promise<boolean> {
  const alg = header.digestAlgorithm;
  if (await sidecarRecords(storage, join(objectPath, 'inventory.json'), alg, digest)) return false;
  const headPath = join(objectPath, header.head, 'inventory.json');
  if ((await sidecarRecords(storage, headPath, alg, digest)) && (await streamedDigest(storage, headPath, alg)) === digest) return true;
  throw new InventoryError(
    `The inventory of object "${header.id}" at ${storage.location}/${objectPath} does not match its ${alg} sidecar.`,
  );
}

/**
 * The compact view of an object's inventory read in windows and hashed as it comes (the inventory
 * of a million files is ~600 MB: not held whole), with the digest its sidecar records. Undefined
 * when that way cannot answer alone (not of the plain shape, a sidecar that does not match, a read
 * error): the inventory is then read whole as before, which gives the answer or words the error.
 */
async function windowedView(
  storage: ReadStorage,
  objectPath: string,
  options: LoadOptions = {},
): Promise<{ view: InventoryView; digest: string } | undefined> {
  const where = join(objectPath, 'inventory.json');
  const windows = new InventoryWindows(options.versionsOnly ? { fixity: false, manifest: false, version: '' } : options);
  const hashed = await readHashedWindows(storage, where, windows);
  if (!hashed) return undefined;
  // Throws, as the whole read would, where the header checks refuse the inventory.
  const view = InventoryView.fromWindows(windows, `${storage.location}/${where}`);
  if (!view || view.digestAlgorithm !== hashed.algorithm) return undefined;
  return (await sidecarRecords(storage, where, hashed.algorithm, hashed.digest)) ? { view, digest: hashed.digest } : undefined;
}

/** A reader's view of an inventory with the digest of the bytes it read, for a writer to reuse (StartVersionOptions.known). */
export interface KnownInventory {
  view: InventoryView;
  digest: string;
}

/** An object's inventory as every verb reads it: its compact view, the digest of its bytes, and whether its root sidecar is stale. */
export interface LoadedInventory<V extends InventorySummary = InventoryView> {
  view: V;
  digest: string;
  sidecarStale: boolean;
}

/**
 * How loadInventory reads. `fixity: false` (a reader of states and content only): the fixity
 * blocks checked, not kept. `everyBlock`: every block kept, so that the inventory can be written
 * again (a writer's base, keepsEveryBlock). `versionsOnly`: a summary (ls, log, purge, repair):
 * the manifest, the states and fixity checked and counted, not kept (a 200,000-file log took 1.29x
 * the CPU of c182370's with them kept, 2026-11-30). `whole`: read whole at once (the windowed read
 * is held to it in object.streamed.test).
 */
interface LoadOptions {
  fixity?: boolean;
  everyBlock?: boolean;
  versionsOnly?: boolean;
  whole?: boolean;
}

/**
 * The one read of an object's inventory, checked against its sidecar: the compact view, read
 * plain in windows, hashed as they stream (its JSON, ~600 MB at a million files, never held
 * whole), else read whole (InventoryView.read: parsed in full where it is not plain, which words
 * the error), which also accepts a stale root sidecar.
 */
export async function loadInventory(storage: ReadStorage, objectPath: string, options: LoadOptions = {}): Promise<LoadedInventory> {
  const windowed = options.whole ? undefined : await windowedView(storage, objectPath, options);
  if (windowed && (!options.everyBlock || windowed.view.keepsEveryBlock)) return { ...windowed, sidecarStale: false };
  const read = (bytes: Buffer, where: string) => InventoryView.read(bytes, where, options);
  return verifiedInventoryBytes(storage, objectPath, read);
}

/**
 * The inventory a writer starts from (every block kept), with what recovery needs: what a reader
 * already holds (`known`) when the object is still at its bytes (a second copy of a million-entry
 * inventory would cost as much again), else loadInventory's, every block kept.
 */
export async function loadStagingBase(storage: ReadStorage, objectPath: string, known?: KnownInventory): Promise<LoadedInventory> {
  return known && known.view.keepsEveryBlock && (await stillAt(storage, objectPath, known))
    ? { ...known, sidecarStale: false }
    : loadInventory(storage, objectPath, { everyBlock: true });
}

/** Whether the root inventory still has the bytes `known` was viewed from, its sidecar agreeing (streamed, not held). */
async function stillAt(storage: ReadStorage, objectPath: string, known: KnownInventory): Promise<boolean> {
  const where = join(objectPath, 'inventory.json');
  const alg = known.view.digestAlgorithm;
  return (await streamedDigest(storage, where, alg)) === known.digest && (await sidecarRecords(storage, where, alg, known.digest));
}

/** The summary of an object's inventory (its header and versions: ls, log, purge, repair), as loadInventory reads it. */
export function loadSummary(storage: ReadStorage, objectPath: string): Promise<LoadedInventory<InventorySummary>> {
  return loadInventory(storage, objectPath, { versionsOnly: true });
}

/** loadSummary's, an inventory it cannot read refused in one sentence sending to `validate`, which says what is wrong with it. */
export async function loadInventorySummary(storage: ReadStorage, objectPath: string): Promise<InventorySummary> {
  try {
    return (await loadSummary(storage, objectPath)).view;
  } catch (err) {
    if (!(err instanceof InventoryError)) throw err;
    throw new InventoryError(`${err.message.replace(/\.$/, '')}; \`validate\` says what is wrong with the object.`);
  }
}

/** The version names an inventory lists. */
export function listedVersions(loaded: LoadedInventory<InventorySummary>): Set<string> {
  return new Set(loaded.view.versions().map((v) => v.version));
}

/** How a reader holds the inventory (OcflObjectReader.open). */
export interface ReaderOptions {
  fixity?: boolean;
}

export class OcflObjectReader {
  constructor(
    readonly storage: ReadStorage,
    /** Object root, relative to the storage. */
    readonly path: string,
    /** The inventory, held compactly (InventoryView, or VersionView of one version). */
    private readonly model: InventoryModel,
    /** Digest of the inventory bytes read (lets a writer of the same object reuse this inventory). */
    readonly inventoryDigest?: string,
  ) {}

  /**
   * Reads the object's inventory into its compact view: read plain in windows where it can, else
   * read whole (InventoryView.read). `fixity: false` (a reader of states and content only): a compact read
   * checks the fixity blocks without keeping them (contentDigest then knows only the manifest's algorithm).
   */
  static async open(storage: ReadStorage, objectPath: string, options: ReaderOptions = {}): Promise<OcflObjectReader> {
    const { view, digest } = await loadInventory(storage, objectPath, options);
    return new OcflObjectReader(storage, objectPath, view, digest);
  }

  /**
   * A reader of one version (default: the head) read light (VersionView: that version's state and
   * content paths; 353 MiB peak at a million files, 468 MiB for `open`): state, listing,
   * contentPath and openLogical answer for it, versions() lists them all. Read as `open` reads
   * where the light read declines (then every version is there). NO_SUCH_VERSION when the object
   * lacks the version.
   */
  static async openVersion(storage: ReadStorage, objectPath: string, version = 'head'): Promise<OcflObjectReader> {
    const where = join(objectPath, 'inventory.json');
    const read = await VersionView.read(storage, where, version);
    if (read && (await sidecarRecords(storage, where, read.view.digestAlgorithm, read.digest)))
      return new OcflObjectReader(storage, objectPath, read.view, read.digest);
    const reader = await OcflObjectReader.open(storage, objectPath, { fixity: false });
    if (version !== 'head' && !reader.hasVersion(version)) throw noSuchVersion(reader.id, version, reader.head);
    return reader;
  }

  /** The inventory as this reader holds it with the digest of its bytes: a writer's `known` (StartVersionOptions). */
  known(): KnownInventory | undefined {
    const { model, inventoryDigest: digest } = this;
    if (digest === undefined) return undefined;
    return model instanceof InventoryView ? { view: model, digest } : undefined;
  }

  get id(): string {
    return this.model.id;
  }

  get head(): string {
    return this.model.head;
  }

  get digestAlgorithm(): string {
    return this.model.digestAlgorithm;
  }

  hasVersion(version: string): boolean {
    return this.model.hasVersion(version);
  }

  versions(): VersionInfo[] {
    return this.model.versions().map(versionInfo);
  }

  /**
   * logical path -> digest of a version (default head), sorted by path. Built once per version
   * and shared: callers must not change it (the reader treats its inventory as immutable).
   */
  state(version = this.head): ReadonlyMap<string, string> {
    return this.model.state(version);
  }

  /**
   * A version's files by position, in the inventory's order, with the content path of each: for
   * a reader that goes through them all in an order of its own (show), without `state`'s sort and
   * lookup table.
   */
  listing(version = this.head): VersionListing {
    return this.model.listing(version);
  }

  /** Digest of a logical path in a version. */
  digestOf(logicalPath: string, version = this.head): string {
    const digest = this.state(version).get(logicalPath);
    if (digest === undefined) {
      throw new SiardOcflError(`Object "${this.id}" version ${version} has no file "${logicalPath}".`, { code: 'NO_SUCH_FILE' });
    }
    return digest;
  }

  /** Content paths of a digest (any case), or undefined when the manifest lacks it. */
  manifestPaths(digest: string): string[] | undefined {
    return this.model.manifestPaths(digest.toLowerCase());
  }

  /** The content paths of the manifest in its order, each once. */
  contentPaths(): IterableIterator<string> {
    return this.model.contentPaths();
  }

  /** The names of the inventory's fixity blocks. */
  fixityAlgorithms(): string[] {
    return this.model.fixityAlgorithms();
  }

  /** The lower-case digest the inventory records for a content path in `algorithm` (see InventoryModel.contentDigest). */
  contentDigest(algorithm: string, contentPath: string): string | undefined {
    return this.model.contentDigest(algorithm, contentPath);
  }

  /** Content path (relative to the object root) holding a digest's bytes. */
  contentPathOfDigest(digest: string): string {
    const paths = this.manifestPaths(digest);
    if (!paths || paths.length === 0) {
      throw new InventoryError(`Object "${this.id}" has no manifest entry for digest ${digest}.`);
    }
    return paths[0];
  }

  /** Content path (relative to the object root) behind a logical path. */
  contentPath(logicalPath: string, version = this.head): string {
    return this.contentPathOfDigest(this.digestOf(logicalPath, version));
  }

  /** Path relative to the storage of a content path. */
  storagePath(contentPath: string): string {
    return join(this.path, contentPath);
  }

  openLogical(logicalPath: string, version = this.head, options: { highWaterMark?: number } = {}): Readable {
    return this.storage.readStream(this.storagePath(this.contentPath(logicalPath, version)), options);
  }

  async readLogical(logicalPath: string, version = this.head): Promise<Buffer> {
    return this.storage.readFile(this.storagePath(this.contentPath(logicalPath, version)));
  }
}
