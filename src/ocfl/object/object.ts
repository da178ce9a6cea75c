/**
 * Reading an OCFL object: its inventory (checked against the sidecar), versions, the logical
 * state of any version, the content path behind a logical path, and a stream of a logical file.
 * Readers never write; what a crashed writer left is repaired by the next writer (see commit.ts).
 */
import type { Readable } from 'node:stream';
import { SiardOcflError } from '../../errors.js';
import {
  InventoryError,
  type InventoryHeader,
  inventoryHeaderOf,
  noSuchVersion,
  type InventorySummary,
  parseInventoryHeader,
  parseInventoryVersions,
  type InventoryVersionSummary,
  parseSidecar,
  summaryOfSkeleton,
  versionSummary,
} from '../inventory/inventory.js';
import { digestSync, isDigestAlgorithm } from '../digest.js';
import { type InventoryModel, InventoryView, type VersionListing } from '../inventory/view.js';
import { VersionView } from '../inventory/version-view.js';
import { InventoryWindows } from '../inventory/windows.js';
import { readHashedWindows } from '../inventory/hashed-windows.js';
import { plainOfParts, type PlainInventory } from '../inventory/plain.js';
import { StagingBase } from '../commit/staging-base.js';
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
async function verifiedInventoryBytes<H extends InventoryHeader>(
  storage: ReadStorage,
  objectPath: string,
  parse: (bytes: Buffer, where: string) => H,
): Promise<{ bytes: Buffer; header: H; sidecarStale: boolean; digest: string }> {
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
  const header = parse(bytes, `${storage.location}/${where}`);
  const alg = header.digestAlgorithm;
  const digest = isDigestAlgorithm(alg) ? digestSync(alg, bytes) : undefined;
  return { bytes, header, sidecarStale: await staleSidecar(storage, objectPath, header, digest), digest: digest! };
}

/**
 * Whether inventory bytes of `digest` are the object's by its sidecars: false when the root
 * sidecar records the digest; true (a stale sidecar) when the head version's copy has that digest
 * (streamed, never held beside the root's bytes) and its sidecar records it; else an error naming
 * the object.
 */
async function staleSidecar(
  storage: ReadStorage,
  objectPath: string,
  header: InventoryHeader,
  digest: string | undefined,
): Promise<boolean> {
  const alg = header.digestAlgorithm;
  const recorded = async (file: string) =>
    digest !== undefined && parseSidecar((await readText(storage, `${file}.${alg}`)) ?? '') === digest;
  if (await recorded(join(objectPath, 'inventory.json'))) return false;
  const headPath = join(objectPath, header.head, 'inventory.json');
  const headCopy = async () => (await readHashedWindows(storage, headPath, { write: () => true, digestAlgorithm: alg }))?.digest;
  if ((await recorded(headPath)) && (await headCopy()) === digest) return true;
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
  options: { fixity?: boolean } = {},
): Promise<{ view: InventoryView; digest: string } | undefined> {
  const where = join(objectPath, 'inventory.json');
  const windows = new InventoryWindows(options);
  const hashed = await readHashedWindows(storage, where, windows);
  if (!hashed) return undefined;
  // Throws, as the whole read would, where the header checks refuse the inventory.
  const view = InventoryView.fromWindows(windows, `${storage.location}/${where}`);
  if (!view || view.digestAlgorithm !== hashed.algorithm) return undefined;
  const sidecar = await readText(storage, `${where}.${hashed.algorithm}`);
  return sidecar !== undefined && parseSidecar(sidecar) === hashed.digest ? { view, digest: hashed.digest } : undefined;
}

/**
 * What verifiedInventoryBytes answers, the file streamed rather than held (a three-version
 * inventory of a million files is ~1 GB): read by InventoryWindows keeping the header fields and
 * the versions' metadata only (manifest, fixity and states checked and counted), parsed by `parse`,
 * its digest computed as it is read. Undefined when the inventory is not plain, `parse` refuses
 * it, or a read fails: the whole read then gives its own answer, an error worded on the whole bytes.
 */
async function streamedVerified<H extends InventoryHeader>(
  storage: ReadStorage,
  objectPath: string,
  parse: (plain: PlainInventory, where: string) => H,
): Promise<{ header: H; sidecarStale: boolean; digest: string } | undefined> {
  const where = join(objectPath, 'inventory.json');
  // No state is kept: the version '' is none.
  const windows = new InventoryWindows({ fixity: false, manifest: false, version: '' });
  const hashed = await readHashedWindows(storage, where, windows);
  const parts = hashed && windows.end();
  const plain = parts && plainOfParts(parts, { unknownFixity: true });
  if (!plain) return undefined;
  let header: H;
  try {
    header = parse(plain, `${storage.location}/${where}`);
  } catch {
    return undefined;
  }
  const { digest } = hashed;
  return { header, sidecarStale: await staleSidecar(storage, objectPath, header, digest), digest };
}

/** The header of a plain inventory streamed (streamedVerified). */
const plainHeader = (plain: PlainInventory, where: string) => inventoryHeaderOf(plain.skeleton, where);

/** The summary of a plain inventory streamed (streamedVerified): its states counted, not kept. */
const plainSummary = (plain: PlainInventory, where: string) =>
  summaryOfSkeleton(plain.skeleton, (v) => plain.blocks.states.get(v)!.pathCount, where);

/** How the cheap loaders read: streamed (the default), or `streamed: false` for the whole read they stand in for. */
export interface CheapLoadOptions {
  streamed?: boolean;
}

/** A reader's view of an inventory with the digest of the bytes it read, for a writer to reuse (StartVersionOptions.known). */
export interface KnownInventory {
  view: InventoryView;
  digest: string;
}

/**
 * The id, head, type and digest algorithm of an object, its inventory checked against its sidecar
 * but not parsed beyond those fields: listing a root of million-file objects (ls) must not build
 * each object's manifest and states.
 */
export async function loadInventoryHeader(
  storage: ReadStorage,
  objectPath: string,
  options: CheapLoadOptions = {},
): Promise<InventoryHeader> {
  const read =
    (options.streamed !== false ? await streamedVerified(storage, objectPath, plainHeader) : undefined) ??
    (await verifiedInventoryBytes(storage, objectPath, parseInventoryHeader));
  const { id, head, type, digestAlgorithm } = read.header;
  return { id, head, type, digestAlgorithm };
}

/** What recovery after a crash needs of an inventory: its header, version names and digest. */
export interface LoadedInventorySummary {
  inventory: InventorySummary;
  /** Absent when the inventory was streamed, not held. */
  bytes?: Buffer;
  digest: string;
  sidecarStale: boolean;
}

/**
 * The root inventory, checked against its sidecar, without the manifest and states: the versions
 * (metadata and file counts) `log` shows, and enough to finish a stale sidecar and roll back an unlisted version folder (repair of
 * a million-file object need not build its inventory).
 */
export async function loadInventorySummary(
  storage: ReadStorage,
  objectPath: string,
  options: CheapLoadOptions = {},
): Promise<LoadedInventorySummary> {
  const streamed = options.streamed !== false ? await streamedVerified(storage, objectPath, plainSummary) : undefined;
  if (streamed) return { inventory: streamed.header, digest: streamed.digest, sidecarStale: streamed.sidecarStale };
  const { bytes, header: inventory, sidecarStale, digest } = await verifiedInventoryBytes(storage, objectPath, parseInventoryVersions);
  return { inventory, bytes, digest, sidecarStale };
}

/**
 * The inventory a writer starts from (staging-base.ts), with what recovery needs: the compact view,
 * read plain in windows where it keeps every block to write again (keepsEveryBlock), else read
 * whole (parsed in full where it is not plain). What a reader already holds (`known`) is taken when
 * the object is still at its bytes: a second copy of a million-entry inventory would cost as much again.
 */
export async function loadStagingBase(
  storage: ReadStorage,
  objectPath: string,
  known?: KnownInventory,
): Promise<LoadedInventorySummary & { base: StagingBase }> {
  // A plain inventory is viewed in windows, hashed as they stream: its JSON (~600 MB at a million files) is never held whole.
  const viewed =
    known && known.view.keepsEveryBlock && (await stillAt(storage, objectPath, known)) ? known : await windowedView(storage, objectPath);
  if (viewed?.view.keepsEveryBlock) return { ...baseSummary(viewed.view), digest: viewed.digest, sidecarStale: false };
  const read = (bytes: Buffer, where: string) => InventoryView.read(bytes, where, { everyBlock: true });
  const { bytes, header: view, sidecarStale, digest } = await verifiedInventoryBytes(storage, objectPath, read);
  return { ...baseSummary(view), bytes, digest, sidecarStale };
}

/** A writer's base over an inventory read, with the summary recovery reads of it. */
function baseSummary(view: InventoryView): { inventory: InventorySummary; base: StagingBase } {
  const { id, head, type, digestAlgorithm } = view;
  return { inventory: { id, head, type, digestAlgorithm, versions: view.versions() }, base: new StagingBase(view) };
}

/** Whether the root inventory still has the bytes `known` was viewed from, its sidecar agreeing (streamed, not held). */
async function stillAt(storage: ReadStorage, objectPath: string, known: KnownInventory): Promise<boolean> {
  const where = join(objectPath, 'inventory.json');
  const hashed = await readHashedWindows(storage, where, { write: () => true, digestAlgorithm: known.view.digestAlgorithm });
  if (!hashed || hashed.digest !== known.digest) return false;
  const sidecar = await readText(storage, `${where}.${hashed.algorithm}`);
  return sidecar !== undefined && parseSidecar(sidecar) === hashed.digest;
}

/** The version names an inventory lists. */
export function listedVersions(loaded: LoadedInventorySummary): Set<string> {
  return new Set(loaded.inventory.versions.map((v) => v.version));
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
    const windowed = await windowedView(storage, objectPath, options);
    if (windowed) return new OcflObjectReader(storage, objectPath, windowed.view, windowed.digest);
    const { header, digest } = await verifiedInventoryBytes(storage, objectPath, InventoryView.read);
    return new OcflObjectReader(storage, objectPath, header, digest);
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
    const sidecar = read && (await readText(storage, `${where}.${read.view.digestAlgorithm}`));
    if (read && sidecar !== undefined && parseSidecar(sidecar) === read.digest)
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
