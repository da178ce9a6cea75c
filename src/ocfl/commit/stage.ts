/**
 * A version being built: it starts from the head state of the object (empty for a new object),
 * takes content from streams, files and buffers, removes and renames logical paths, and commits.
 *
 * Each added file is written once into the workspace (on an object store: straight to its key)
 * while its manifest digest and every fixity digest are computed, on worker threads for all but
 * small content. Content whose digest the manifest already holds (from an earlier version or from
 * this one) is dropped, not stored again.
 * Content paths are `vN/content/<logical path>` (suffixed when a renamed or removed path left
 * that name taken).
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { SiardOcflError, UsageError } from '../../errors.js';
import { assertDigestAlgorithm, MultiHasher } from '../digest.js';
import { failpoint } from '../../failpoint.js';
import { pruneEmptyDirs, recoverObject, stageInventoriesAndPublish } from './commit.js';
import type { CommitContext } from './context.js';
import { INVENTORY_TYPE_1_1, type InventoryVersionSummary, nextVersionName } from '../inventory/inventory.js';
import { compareOcflVersions, inventoryOcflVersion } from '../declaration.js';
import { inventoryChunks } from '../inventory/chunks.js';
import { stagedInventory, type VersionMetadata } from './staged-inventory.js';
import { assertLogicalPath } from '../inventory/logical-path.js';
import { EarlyFlushes } from './early-flush.js';
import { type NewContent, StagedState } from './staged-state.js';
import { type KnownInventory, loadSummary } from '../object/object.js';
import type { InventoryView } from '../inventory/view.js';
import type { ObjectLock } from '../lock/lock.js';
import { isObjectStore, type ObjectStorePublish, type WritableFile, type WriteStorage } from '../storage/storage.js';
import { streamHash } from '../validate/stream-hashes.js';
import { FileSystemStorage } from '../storage/fs.js';
import { giveBackAdopted, recordAdopted } from './adopted-trees.js';

/**
 * On a folder root, content of at least this size (or of unknown size) is hashed on worker threads
 * (stream-hashes.ts) while its next chunks are read and written. Smaller content is held whole
 * until its digest is known, and the writer waits for that digest (the SIARD cell carries it): a
 * worker hashing all of it only added copies and messages (bench/throughput in a quiet slot, 10,000
 * LOBs of 100 KiB: 9.15-9.37 s, 10.1-12.3 s CPU, 195-227 MB peak, against 6.65-6.88 s, 7.1-7.2 s
 * CPU, 170-179 MB with the hashing here). Computing sha512 here and the LOB's sha256 on a worker
 * side by side did not help either (7.6-9.8 s against 7.8-8.2 s, 215-232 MB against 174-178 MB).
 */
const WORKER_HASH_MIN = 256 * 1024;
/** Content of at least this size (or of unknown size) is written around the page cache. */
const DIRECT_MIN_BYTES = 256 * 1024;
/**
 * Content below the direct-write size is gathered in memory and written once to its place (see
 * addStream): no temporary file, no rename, no fsync of its own (commit's syncfs covers it).
 */
const SMALL_MAX_BYTES = DIRECT_MIN_BYTES - 1;
/** Small files written behind at once (at most this many times SMALL_MAX_BYTES, 16 MiB, held in memory). */
const PENDING_WRITES_MAX = 64;
/**
 * On an object store, content up to this size is held in memory until its digest decides (one
 * PUT, or none when the object holds it already); larger content is uploaded in parts while it
 * comes, straight to its final key (storage/s3.ts's part size: a part is held anyway).
 */
const STORE_HOLD_MAX = 8 * 1024 * 1024;
/** Bytes of held content being written behind at once on an object store (PUTs in flight). */
const STORE_PENDING_BYTES_MAX = 32 * 1024 * 1024;

/** Files of an adopted folder's own (not in a subfolder) held to be linked without listing the folder again (adoptFolder). */
const TOP_LEVEL_HELD = 4096;

/** Where the bytes of an added file are when its digest is known. */
type PlacedBytes =
  /** a file of the stage's incoming folder, renamed into place */
  | { incoming: string }
  /** in memory, written at their content path (or a key of the object store) */
  | { held: Uint8Array[]; bytes: number }
  /** being uploaded to the object store at the key of a content path reserved when it began */
  | { upload: WritableFile; reserved: string }
  /** a local file already hashed, uploaded to the object store only when new */
  | { local: string };

/** Content past what is held: the file (or upload) it goes on to, and where it is once written. */
interface Spilled {
  file: WritableFile;
  placed: { incoming: string } | { upload: WritableFile; reserved: string };
}

export interface StartVersionOptions {
  /** Manifest digest of a new object (an existing object keeps its own). Default sha512. */
  digestAlgorithm?: 'sha512' | 'sha256';
  /** Extra algorithms whose digests go into the fixity block for every content file. */
  fixityAlgorithms?: string[];
  /**
   * The object's inventory as the caller already read it (OcflObjectReader.known()): used as the
   * base when the object is still at those bytes, instead of being read a second time.
   */
  known?: KnownInventory;
  /**
   * OCFL version the new version of an existing object conforms to, when later than the object's
   * (an upgrade: its inventory gets this type and the object this declaration, its earlier
   * versions stay as they are, as E103 allows). Default: the object's own.
   */
  upgradeTo?: '1.1';
}

/** The new version's message, user and time (default now). */
export type CommitOptions = VersionMetadata;

export interface AddedFile {
  logicalPath: string;
  size: number;
  /** Every digest computed while the bytes were written: manifest algorithm and fixity algorithms. */
  digests: Record<string, string>;
  /** Content path (relative to the object root) holding these bytes. */
  contentPath: string;
  /** False when the content was already in the object and was not stored again. */
  stored: boolean;
}

export interface CommitResult {
  id: string;
  version: string;
}

/** The folder of a '/'-separated path ('' for a top-level name). */
function parentPath(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i);
}

/** The folders a set of paths implies (with the number of paths below each), to find file/folder conflicts. */
class FolderTree {
  private readonly dirs = new Map<string, number>();

  /** `hasFile`: whether a path is one of the set's files (the set itself is kept elsewhere, compactly). */
  constructor(private readonly hasFile: (p: string) => boolean) {}

  conflict(p: string): string | undefined {
    if (this.dirs.has(p)) return `"${p}" is a folder`;
    for (let i = p.indexOf('/'); i >= 0; i = p.indexOf('/', i + 1)) {
      const a = p.slice(0, i);
      if (this.hasFile(a)) return `"${a}" is a file`;
    }
    return undefined;
  }
  /** Counts the folders of a path that joins the set. */
  add(p: string): void {
    for (let i = p.indexOf('/'); i >= 0; i = p.indexOf('/', i + 1)) {
      const a = p.slice(0, i);
      this.dirs.set(a, (this.dirs.get(a) ?? 0) + 1);
    }
  }
  /** Uncounts the folders of a path that left the set. */
  delete(p: string): void {
    for (let i = p.indexOf('/'); i >= 0; i = p.indexOf('/', i + 1)) {
      const a = p.slice(0, i);
      const n = (this.dirs.get(a) ?? 1) - 1;
      if (n === 0) this.dirs.delete(a);
      else this.dirs.set(a, n);
    }
  }
}

export class StagedVersion {
  readonly version: string;
  readonly digestAlgorithm: string;
  readonly fixityAlgorithms: string[];
  private readonly contentDir: string;
  /** The logical state, the content stored by this version and the content paths it took (below vN/<contentDir>/). */
  private readonly staged: StagedState;
  private readonly logical: FolderTree;
  private readonly contentFolders: FolderTree;
  /** digests computed this session for content the base inventory already has */
  private readonly extraFixity = new Map<string, Record<string, string>>();
  private counter = 0;
  /**
   * The base's head state is loaded into `state` on first use, not at start: a put that empties
   * the state first (clear) never builds a million entries only to drop them.
   */
  private baseStatePending: boolean;
  private incomingMade: Promise<void> | undefined;
  private closed = false;
  /** Folders of the staged object made so far: staging removes files, never folders, before commit. */
  private readonly madeDirs = new Map<string, Promise<void>>();
  /** Small content being written behind (see writeBehind), by content path. */
  private readonly pendingWrites = new Map<string, Promise<void>>();
  private writeFailure: Error | undefined;
  /** Durability work started while the export goes on (see early-flush.ts). */
  private readonly flushes: EarlyFlushes;
  /** The new inventory's type when an upgrade changes it (see StartVersionOptions.upgradeTo). */
  private readonly upgradeType: string | undefined;
  /** The root's object store, where content goes straight to its key (undefined: a local root, content staged in the workspace). */
  private readonly store: (WriteStorage & ObjectStorePublish) | undefined;
  /** Bytes of held content being written behind (see STORE_PENDING_BYTES_MAX). */
  private pendingBytes = 0;

  constructor(
    private readonly ctx: CommitContext,
    private readonly lock: ObjectLock,
    /** The inventory the version starts from (every block kept: InventoryView.keepsEveryBlock); none for a new object. */
    private readonly base: InventoryView | undefined,
    options: StartVersionOptions,
    private readonly onClose: () => Promise<void>,
    /** OCFL version of a new object: that of its storage root (an existing object keeps its own). */
    private readonly ocflVersion: '1.0' | '1.1' = '1.1',
  ) {
    this.digestAlgorithm = base?.digestAlgorithm ?? options.digestAlgorithm ?? 'sha512';
    if (this.digestAlgorithm !== 'sha512' && this.digestAlgorithm !== 'sha256') {
      throw new UsageError(`The content digest algorithm must be sha512 or sha256, not "${this.digestAlgorithm}".`);
    }
    this.fixityAlgorithms = [...new Set(options.fixityAlgorithms ?? [])].filter((a) => a !== this.digestAlgorithm);
    for (const alg of this.fixityAlgorithms) assertDigestAlgorithm(alg);
    this.version = nextVersionName(base?.head);
    this.flushes = new EarlyFlushes(ctx.workspace);
    this.store = isObjectStore(ctx.root) ? ctx.root : undefined;
    this.contentDir = base?.contentDirectory ?? 'content';
    const from = base && inventoryOcflVersion(base.type);
    const upgrading = options.upgradeTo !== undefined && from !== undefined && compareOcflVersions(from, options.upgradeTo) < 0;
    this.upgradeType = upgrading ? INVENTORY_TYPE_1_1 : undefined;
    this.baseStatePending = base !== undefined;
    this.staged = new StagedState(this.digestAlgorithm, this.fixityAlgorithms, this.contentPrefix());
    this.logical = new FolderTree((p) => this.staged.has(p));
    this.contentFolders = new FolderTree((p) => this.staged.isTaken(p));
  }

  get id(): string {
    return this.ctx.id;
  }

  /** The OCFL version the object's head inventory names (its `type`); undefined for a new object. */
  get baseOcflVersion(): string | undefined {
    return this.base && (inventoryOcflVersion(this.base.type) ?? this.base.type);
  }

  /** The logical state as it stands: logical path -> manifest digest. */
  currentState(): Map<string, string> {
    this.loadBaseState();
    return new Map([...this.staged.state].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  has(logicalPath: string): boolean {
    this.loadBaseState();
    return this.staged.has(logicalPath);
  }

  /**
   * The head version when the staged state equals its state (same paths, same digests), so that
   * committing would make a version that changes nothing; undefined otherwise or for a new object.
   */
  unchangedFrom(): string | undefined {
    this.loadBaseState();
    if (!this.base) return undefined;
    let paths = 0;
    for (const [p, digest] of this.base.state()) {
      paths++;
      if (this.staged.get(p) !== digest) return undefined;
    }
    return paths === this.staged.size ? this.base.head : undefined;
  }

  /** The base's manifest key of a lower-case digest, or undefined when the base lacks it. */
  private knownKey(digest: string): string | undefined {
    return this.base?.manifestKey(digest);
  }

  private loadBaseState(): void {
    if (!this.baseStatePending) return;
    this.baseStatePending = false;
    for (const [p, digest] of this.base!.state()) this.setState(p, digest);
  }

  /** Throws once committed or aborted; loads the base state (every operation past it reads or changes the state). */
  private assertOpen(): void {
    this.loadBaseState();
    if (this.closed) throw new SiardOcflError(`The staged version ${this.version} of object "${this.id}" is already committed or aborted.`);
  }

  private setState(p: string, digest: string): void {
    this.staged.add(p, digest);
    this.logical.add(p);
  }

  /**
   * Removes a logical path from the state; returns the content staged this session that nothing
   * refers to any more (its content path stays reserved until dropOrphan has removed its file).
   */
  private unsetStateSync(p: string): NewContent | undefined {
    if (!this.staged.has(p)) return undefined;
    this.logical.delete(p);
    return this.staged.remove(p);
  }

  private async dropOrphan(staged: NewContent): Promise<void> {
    await this.pendingWrites.get(staged.contentPath);
    if (this.store) await this.store.remove(`${this.ctx.objectPath}/${staged.contentPath}`);
    else await this.ctx.workspace.remove(`${this.ctx.stage}/object/${staged.contentPath}`);
    this.releaseContentPath(staged.contentPath.slice(this.contentPrefix().length));
  }

  /** Removes a logical path; drops staged content nothing refers to any more. */
  private async unsetState(p: string): Promise<void> {
    const orphan = this.unsetStateSync(p);
    if (orphan) await this.dropOrphan(orphan);
  }

  private contentPrefix(): string {
    return `${this.version}/${this.contentDir}/`;
  }

  private assertPlaceable(logicalPath: string, replacing: boolean): void {
    assertLogicalPath(logicalPath);
    if (replacing && this.staged.has(logicalPath)) return;
    const conflict = this.logical.conflict(logicalPath);
    if (conflict) {
      throw new UsageError(
        `Logical path "${logicalPath}" of object "${this.id}" is refused: ${conflict} in this version.`,
        'PATH_CONFLICT',
      );
    }
  }

  private chooseContentPath(logicalPath: string): string {
    const parts = logicalPath.split('/');
    for (let n = 0; ; n++) {
      let candidate = logicalPath;
      if (n > 0) candidate = parts.length > 1 ? [`${parts[0]}~${n}`, ...parts.slice(1)].join('/') : `${logicalPath}~${n}`;
      if (!this.staged.isTaken(candidate) && !this.contentFolders.conflict(candidate)) return candidate;
    }
  }

  /**
   * Adds (or replaces) a logical file with the bytes of a stream. `sizeHint` (bytes expected, when
   * known) lets large or unknown-size content be written around the page cache (direct-write.ts).
   * Content that stays small is gathered in memory and written once, straight to its content path
   * (or not at all when the object already holds it): no temporary file, no rename, no 1 MiB
   * buffer per file. Larger content goes on to an incoming file of the stage, or on an object
   * store (no byte in the local workspace; held up to STORE_HOLD_MAX) to an upload in parts to the
   * key of a content path reserved from the logical path: completed when the digest says the
   * content is new, else aborted, leaving no key (a file renamed before its end, `logicalPathAtEnd`,
   * keeps the content path it began with). Adds may run concurrently: what a file's digest decides
   * (store, reuse, which content path) is settled without awaiting anything in between.
   */
  async addStream(
    logicalPath: string,
    source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array> | Readable,
    options: { sizeHint?: number; logicalPathAtEnd?: () => string } = {},
  ): Promise<AddedFile> {
    this.assertOpen();
    this.assertPlaceable(logicalPath, true);
    const store = this.store !== undefined;
    const algorithms = [this.digestAlgorithm, ...this.fixityAlgorithms];
    const hash = await streamHash(algorithms, store ? {} : { size: options.sizeHint, inlineBelow: WORKER_HASH_MIN });
    const large = !store && (options.sizeHint === undefined || options.sizeHint >= DIRECT_MIN_BYTES);
    const holdMax = store ? STORE_HOLD_MAX : SMALL_MAX_BYTES;
    let held: Uint8Array[] | undefined = large ? undefined : [];
    let heldBytes = 0;
    let spilled: Spilled | undefined;
    let finished = false;
    let hashed: { digests: Record<string, string>; size: number };
    try {
      if (large) spilled = await this.spill(logicalPath, true);
      for await (const chunk of source) {
        let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        // Copied where kept past this call (held, or in an upload's part): a producer may reuse its buffer once it is handed over.
        if (held || store) bytes = Buffer.from(bytes);
        if (held && heldBytes + bytes.byteLength <= holdMax) {
          held.push(bytes);
          heldBytes += bytes.byteLength;
          hash.update(bytes);
          await hash.drained();
          continue;
        }
        if (held) {
          // Larger than its hint (or than what a store holds): what was held goes on like any large content.
          spilled = await this.spill(logicalPath, false);
          for (const h of held) await spilled.file.write(h);
          held = undefined;
        }
        // The write runs (on libuv's thread pool, or to the store) while a worker hashes a copy of the same bytes.
        const written = spilled!.file.write(bytes);
        try {
          hash.update(bytes);
        } finally {
          await written;
        }
        await hash.drained();
      }
      finished = true;
      hashed = await hash.finish();
      // An upload is completed (or aborted) by settleAndPlace, once the digest decides.
      if (spilled && 'incoming' in spilled.placed) await spilled.file.close();
    } catch (err) {
      if (!finished) hash.drop();
      if (spilled && 'upload' in spilled.placed) await this.dropUpload(spilled.placed);
      else await spilled?.file.abort();
      throw err;
    }
    await failpoint('stage-file-written');
    // A writer may learn the file's name only at its end (the last segment of a SIARD file is `.z`).
    const placed: PlacedBytes = spilled?.placed ?? { held: held!, bytes: heldBytes };
    return this.settleAndPlace(options.logicalPathAtEnd?.() ?? logicalPath, hashed.digests, hashed.size, placed);
  }

  /**
   * Where content goes on once it outgrows what is held: an incoming file of the stage (flushed at
   * commit, all files at once, before anything is renamed into the root), or on an object store an
   * upload to the key of a content path reserved for it.
   */
  private async spill(logicalPath: string, direct: boolean): Promise<Spilled> {
    if (this.store) {
      const placed = await this.beginUpload(logicalPath);
      return { file: placed.upload, placed };
    }
    const incoming = `${this.ctx.stage}/incoming/${++this.counter}`;
    const file = await this.ctx.workspace.openWrite(incoming, { exclusive: true, durable: false, direct });
    return { file, placed: { incoming } };
  }

  /** Aborts an upload that will not be completed (no key is left) and frees its content path. */
  private async dropUpload(upload: { upload: WritableFile; reserved: string }): Promise<void> {
    await upload.upload.abort();
    this.releaseContentPath(upload.reserved);
  }

  /** Reserves a content path for content not yet hashed and starts its upload to the object store. */
  private async beginUpload(logicalPath: string): Promise<{ upload: WritableFile; reserved: string }> {
    const reserved = this.chooseContentPath(logicalPath);
    this.staged.reserve(reserved);
    this.contentFolders.add(reserved);
    try {
      const upload = await this.store!.openWrite(`${this.ctx.objectPath}/${this.contentPrefix()}${reserved}`);
      return { upload, reserved };
    } catch (err) {
      this.releaseContentPath(reserved);
      throw err;
    }
  }

  private releaseContentPath(rel: string): void {
    this.staged.release(rel);
    this.contentFolders.delete(rel);
  }

  /**
   * Where a worker may write a file to be added with addCopied: a fresh incoming path of the
   * stage, and its absolute path when the workspace is a local folder (undefined otherwise: the
   * caller adds the file with addFile instead).
   */
  async incomingFile(): Promise<{ incoming: string; absolute: string } | undefined> {
    this.assertOpen();
    // On an object store content goes to the store, never through the workspace.
    const absolute = this.store ? undefined : this.ctx.workspace.localPath?.(`${this.ctx.stage}/incoming`);
    if (absolute === undefined) return undefined;
    if (!this.incomingMade) {
      this.incomingMade = this.ctx.workspace.mkdir(`${this.ctx.stage}/incoming`);
    }
    await this.incomingMade;
    const name = String(++this.counter);
    return { incoming: `${this.ctx.stage}/incoming/${name}`, absolute: `${absolute}/${name}` };
  }

  /**
   * Adds a file that another thread has already written to `incoming` (from incomingFile, or any
   * file of the workspace the caller gives up: a resumed ingest's) while computing its digests in
   * the same read (put hashes on every core that way); it is renamed into place, or removed when the
   * object holds its content. The digests must be this version's algorithms: the manifest's and
   * every fixity algorithm.
   */
  async addCopied(logicalPath: string, incoming: string, digests: Record<string, string>, size: number): Promise<AddedFile> {
    this.assertOpen();
    this.assertDigests(logicalPath, digests);
    return this.settleAndPlace(logicalPath, digests, size, { incoming });
  }

  /**
   * Takes the files of a workspace folder (`folder`, a path of the workspace) into this version,
   * each as the logical path of its path in the folder, their digests known: `files` lists them
   * and is read twice (a million files are not held). Each topmost subfolder whose every file is
   * new content placed at its own logical path is moved into the stage whole, one rename
   * (adopted-trees.ts: a stage dropped before its commit gives it back); every other file is
   * hard-linked into place (the caller keeps it), or only listed when the version or the object holds its content.
   * `onFile` is told of each file as it is added. The caller must not touch the folder again before
   * the commit (what was moved is gone from it, what was linked becomes the object's content).
   */
  async adoptFolder(
    folder: string,
    files: () => AsyncIterable<{ relPath: string; size: number; digests: Record<string, string> }>,
    onFile: (added: AddedFile) => Promise<void>,
  ): Promise<void> {
    this.assertOpen();
    if (this.store) throw new SiardOcflError('adoptFolder is for versions staged in a workspace on a filesystem.');
    const prefix = this.contentPrefix();
    const folders = new Set<string>();
    // folders holding a file not moved with them ('' is the folder itself: never moved)
    const kept = new Set<string>(['']);
    /** new content this version stores under another name than its logical path (rare) */
    const elsewhere = new Map<string, string>();
    /** the folder's own files (undefined past TOP_LEVEL_HELD: listed again instead) */
    let topLevel: Array<{ relPath: string; size: number; digests: Record<string, string> }> | undefined = [];
    for await (const { relPath, size, digests } of files()) {
      this.assertDigests(relPath, digests);
      this.assertPlaceable(relPath, true);
      const decision = this.settle(relPath, digests[this.digestAlgorithm]!, digests, size);
      if (decision.orphan) await this.dropOrphan(decision.orphan);
      for (let f = parentPath(relPath); f !== '' && !folders.has(f); f = parentPath(f)) folders.add(f);
      if (!decision.stored || decision.contentPath !== prefix + relPath) {
        for (let f = parentPath(relPath); !kept.has(f); f = parentPath(f)) kept.add(f);
        if (decision.stored) elsewhere.set(relPath, decision.contentPath);
      }
      if (!relPath.includes('/') && topLevel && topLevel.push({ relPath, size, digests }) > TOP_LEVEL_HELD) topLevel = undefined;
      await onFile({ logicalPath: relPath, size, digests, contentPath: decision.contentPath, stored: decision.stored });
    }
    const trees = [...folders].filter((f) => !kept.has(f) && kept.has(parentPath(f)));
    const { workspace, stage } = this.ctx;
    await recordAdopted(
      workspace,
      stage,
      this.ctx.objectPath,
      trees.map((f) => ({ from: `${folder}/${f}`, to: prefix + f })),
    );
    for (const f of trees) {
      const target = `${stage}/object/${prefix}${f}`;
      await this.folderOf(target);
      await workspace.rename(`${folder}/${f}`, target);
      await failpoint('stage-tree-adopted');
    }
    // when every subfolder moved, only the folder's own files (a .siard beside its LOB folders) are left: not listed again
    for await (const { relPath, size, digests } of kept.size === 1 && topLevel ? topLevel : files()) {
      if (!kept.has(parentPath(relPath))) continue;
      const own = prefix + relPath;
      const contentPath =
        elsewhere.get(relPath) ?? (this.staged.content(digests[this.digestAlgorithm]!)?.contentPath === own ? own : undefined);
      if (contentPath !== undefined) await this.placeStaged(`${folder}/${relPath}`, `${stage}/object/${contentPath}`, size, true);
    }
  }

  /**
   * A version of the object as this stage's base (the head inventory) records it: its created,
   * message and user; undefined for a version it does not have (or a new object). The next writer
   * of an object tells by it whether a version it meant to commit was committed.
   */
  baseVersion(version: string): InventoryVersionSummary | undefined {
    return this.base?.versions().find((v) => v.version === version);
  }

  /** Refuses digests given for a file that lack one of `algorithms` (default: this version's, the manifest's and every fixity one). */
  private assertDigests(
    logicalPath: string,
    digests: Record<string, string>,
    algorithms = [this.digestAlgorithm, ...this.fixityAlgorithms],
  ): void {
    for (const alg of algorithms) if (!digests[alg]) throw new SiardOcflError(`The digests of "${logicalPath}" lack its ${alg} digest.`);
  }

  /**
   * Adds a file whose digests are known and whose content the object already holds (an earlier
   * version, or a file added before): no bytes are needed. Returns undefined, changing nothing,
   * when the content is new; the caller then adds the file with its bytes.
   */
  async addIfStored(logicalPath: string, digests: Record<string, string>, size: number): Promise<AddedFile | undefined> {
    this.assertOpen();
    const digest = digests[this.digestAlgorithm];
    if (digest === undefined || (this.knownKey(digest) === undefined && !this.staged.isStored(digest))) return undefined;
    this.assertDigests(logicalPath, digests, this.fixityAlgorithms);
    this.assertPlaceable(logicalPath, true);
    // Synchronous after the check above: the content cannot be dropped in between, so nothing is stored.
    const decision = this.settle(logicalPath, digest, digests, size);
    if (decision.orphan) await this.dropOrphan(decision.orphan);
    return { logicalPath, size, digests, contentPath: decision.contentPath, stored: false };
  }

  /** Whether content goes straight to an object store (addHashedLocal), not through the workspace. */
  get storesContentRemotely(): boolean {
    return this.store !== undefined;
  }

  /**
   * On an object store: adds a local file that another thread has hashed (put hashes on every
   * core that way); its bytes are uploaded from the file, and only when the object lacks them.
   */
  async addHashedLocal(logicalPath: string, absolute: string, digests: Record<string, string>, size: number): Promise<AddedFile> {
    this.assertOpen();
    if (!this.store) throw new SiardOcflError('addHashedLocal is for versions on an object store.');
    this.assertDigests(logicalPath, digests);
    return this.settleAndPlace(logicalPath, digests, size, { local: absolute });
  }

  /** Whether this version updates an existing object (whose content a new file may already match). */
  get updatesExisting(): boolean {
    return this.base !== undefined;
  }

  /**
   * What the digests decide (see settle), then the bytes put in place: renamed from an incoming
   * file, written from memory (to the workspace, or PUT to the object store), or an upload to the
   * object store completed (or aborted when the content is not new).
   */
  private async settleAndPlace(
    logicalPath: string,
    digests: Record<string, string>,
    size: number,
    placed: PlacedBytes,
  ): Promise<AddedFile> {
    const digest = digests[this.digestAlgorithm]!;
    if ('held' in placed) await this.roomToWriteBehind(placed.bytes);
    let decision: ReturnType<StagedVersion['settle']>;
    try {
      // Checked again: another add may have taken a conflicting path while these bytes were read.
      this.assertPlaceable(logicalPath, true);
      decision = this.settle(logicalPath, digest, digests, size, 'upload' in placed ? placed.reserved : undefined);
    } catch (err) {
      await this.discard(placed);
      throw err;
    }
    // Registered before anything is awaited: an add that orphans this content meanwhile (the same
    // logical path replaced) must find the placement to wait for before it removes the file.
    let placing: Promise<void> | undefined;
    if (decision.stored) {
      placing = this.place(placed, decision.contentPath, size);
      const behind = 'held' in placed ? placed.bytes : 0;
      this.pendingBytes += behind;
      const registered = placing
        .catch((err: Error) => {
          if ('held' in placed) this.writeFailure ??= err;
        })
        .finally(() => {
          this.pendingBytes -= behind;
          if (this.pendingWrites.get(decision.contentPath) === registered) this.pendingWrites.delete(decision.contentPath);
        });
      this.pendingWrites.set(decision.contentPath, registered);
    }
    if (decision.orphan) await this.dropOrphan(decision.orphan);
    if (!decision.stored) {
      await this.discard(placed);
      return { logicalPath, size: size, digests, contentPath: decision.contentPath, stored: false };
    }
    // Large content: the caller waits for its placement. Small content is written behind: the
    // digests are known already, so the caller (the next row of an export, the next file of a put)
    // goes on while the bytes go to disk; commit waits for them all (settleWrites).
    if (!('held' in placed)) await placing;
    return { logicalPath, size: size, digests, contentPath: decision.contentPath, stored: true };
  }

  /** Bounded memory: at most PENDING_WRITES_MAX small files (on an object store, STORE_PENDING_BYTES_MAX bytes) held for writing behind. */
  private async roomToWriteBehind(bytes: number): Promise<void> {
    const full = () =>
      this.pendingWrites.size >= PENDING_WRITES_MAX ||
      (this.store !== undefined && this.pendingBytes > 0 && this.pendingBytes + bytes > STORE_PENDING_BYTES_MAX);
    while (full()) await Promise.race(this.pendingWrites.values());
  }

  /** Starts putting new content at its content path (the caller registers the promise). */
  private place(placed: PlacedBytes, contentPath: string, size: number): Promise<void> {
    if ('upload' in placed) return placed.upload.close();
    if ('local' in placed) return this.uploadLocal(placed.local, contentPath, size);
    if (this.store && 'held' in placed) return this.putInStore(contentPath, placed.held);
    this.flushes.stored(size);
    const target = `${this.ctx.stage}/object/${contentPath}`;
    return 'incoming' in placed ? this.placeStaged(placed.incoming, target, size) : this.placeHeld(target, placed.held);
  }

  /** Drops bytes that will not be placed: an incoming file removed, an upload aborted (its reserved content path freed). */
  private async discard(placed: PlacedBytes): Promise<void> {
    if ('incoming' in placed) await this.ctx.workspace.remove(placed.incoming);
    else if ('upload' in placed) await this.dropUpload(placed);
  }

  private async uploadLocal(absolute: string, contentPath: string, size: number): Promise<void> {
    await this.store!.upload(
      new FileSystemStorage(path.dirname(absolute)),
      path.basename(absolute),
      `${this.ctx.objectPath}/${contentPath}`,
      size,
    );
    await failpoint('stage-file-placed');
  }

  private async putInStore(contentPath: string, chunks: Uint8Array[]): Promise<void> {
    await this.store!.putBytes(`${this.ctx.objectPath}/${contentPath}`, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    await failpoint('stage-file-placed');
  }

  /** A file of the workspace put at its place in the stage: renamed, or hard-linked when its owner keeps it (`link`). */
  private async placeStaged(incoming: string, target: string, size: number, link = false): Promise<void> {
    await this.folderOf(target);
    if (link) await this.ctx.workspace.linkFrom(this.ctx.workspace, incoming, target, { justWritten: true });
    else await this.ctx.workspace.rename(incoming, target);
    await failpoint('stage-file-placed');
    // Large content is flushed while later files are written; the rest waits for commit's syncfs.
    if (size >= DIRECT_MIN_BYTES) this.flushes.file(target);
  }

  private async placeHeld(target: string, chunks: Uint8Array[]): Promise<void> {
    await this.folderOf(target);
    const out = await this.ctx.workspace.openWrite(target, { exclusive: true, durable: false });
    try {
      for (const chunk of chunks) await out.write(chunk);
      await out.close();
    } catch (err) {
      await out.abort();
      throw err;
    }
    await failpoint('stage-file-placed');
  }

  /** Makes the folder of a staged file once (concurrent adds share the one mkdir). */
  private folderOf(target: string): Promise<void> {
    const folder = target.slice(0, target.lastIndexOf('/'));
    let made = this.madeDirs.get(folder);
    if (!made) {
      made = this.ctx.workspace.mkdir(folder);
      this.madeDirs.set(folder, made);
    }
    return made;
  }

  /** Waits for every write behind; throws the first failure when asked (commit), not on abort. */
  private async settleWrites(throwFailure: boolean): Promise<void> {
    while (this.pendingWrites.size > 0) await Promise.all([...this.pendingWrites.values()]);
    if (throwFailure && this.writeFailure) throw this.writeFailure;
  }

  /**
   * What the digest of a new logical file decides, settled synchronously so that concurrent adds
   * never both store the same content or take the same content path: the state is updated, and
   * the content path is reserved when the bytes are new (stored: the caller writes them there).
   */
  private settle(
    logicalPath: string,
    digest: string,
    digests: Record<string, string>,
    size: number,
    /** the content path reserved (below the version's content folder) when the bytes began to be stored, if they were */
    reserved?: string,
  ): { contentPath: string; stored: boolean; orphan?: NewContent } {
    const previous = this.staged.get(logicalPath);
    if (previous === digest) {
      const contentPath = this.staged.content(digest)?.contentPath ?? this.base!.manifestPaths(digest)![0]!;
      return { contentPath, stored: false };
    }
    const orphan = this.unsetStateSync(logicalPath);
    const known = this.knownKey(digest);
    const staged = this.staged.content(digest);
    let result: { contentPath: string; stored: boolean; orphan?: NewContent };
    if (known !== undefined || staged) {
      result = { contentPath: staged ? staged.contentPath : this.base!.manifestPaths(digest)![0]!, stored: false };
      // Kept for the fixity block only: a put of a million files already stored must not hold them all.
      if (!staged && this.fixityAlgorithms.length > 0) this.extraFixity.set(digest, digests);
    } else {
      const rel = reserved ?? this.chooseContentPath(logicalPath);
      const contentPath = this.staged.store(digest, rel, digests, size);
      if (reserved === undefined) this.contentFolders.add(rel);
      result = { contentPath, stored: true };
    }
    if (orphan) result.orphan = orphan;
    this.setState(logicalPath, digest);
    return result;
  }

  async addBuffer(logicalPath: string, bytes: Uint8Array | string): Promise<AddedFile> {
    return this.addStream(logicalPath, [typeof bytes === 'string' ? Buffer.from(bytes) : bytes]);
  }

  async addFile(logicalPath: string, sourcePath: string, knownSize?: number): Promise<AddedFile> {
    const size = knownSize ?? (await stat(sourcePath).catch(() => undefined))?.size;
    // A small file is read whole (one buffer of its size, not a 1 MiB stream buffer per file).
    if (size !== undefined && size <= SMALL_MAX_BYTES) return this.addStream(logicalPath, [await readFile(sourcePath)], { sizeHint: size });
    return this.addStream(logicalPath, createReadStream(sourcePath, { highWaterMark: 1 << 20 }), { sizeHint: size });
  }

  async remove(logicalPath: string): Promise<void> {
    this.assertOpen();
    if (!this.staged.has(logicalPath)) throw new UsageError(`Object "${this.id}" has no file "${logicalPath}" to remove.`, 'NO_SUCH_FILE');
    await this.unsetState(logicalPath);
  }

  async rename(from: string, to: string): Promise<void> {
    this.assertOpen();
    if (!this.staged.has(from)) throw new UsageError(`Object "${this.id}" has no file "${from}" to rename.`, 'NO_SUCH_FILE');
    if (from === to) return;
    if (this.staged.has(to))
      throw new UsageError(`Cannot rename "${from}" to "${to}" in object "${this.id}": "${to}" exists.`, 'PATH_CONFLICT');
    assertLogicalPath(to);
    // Placed as if `from` were gone already: "a" may become "a/b".
    this.staged.rename(from, to);
    this.logical.delete(from);
    try {
      this.assertPlaceable(to, false);
    } catch (err) {
      this.staged.rename(to, from);
      this.logical.add(from);
      throw err;
    }
    this.logical.add(to);
  }

  /** Empties the state (content stays available for deduplication): for "state = this folder". */
  async clear(): Promise<void> {
    // Never loaded: nothing was added or removed yet, so the state becomes empty without loading it.
    this.baseStatePending = false;
    this.assertOpen();
    for (const [p] of [...this.staged.state]) await this.unsetState(p);
  }

  /** Digests of a logical path added in this session (manifest + fixity), or its manifest digest otherwise. */
  digestsOf(logicalPath: string): Record<string, string> | undefined {
    this.loadBaseState();
    const digest = this.staged.get(logicalPath);
    if (digest === undefined) return undefined;
    return this.staged.content(digest)?.digests ?? this.extraFixity.get(digest) ?? { [this.digestAlgorithm]: digest };
  }

  /** Digests of content stored by an earlier version, read once more (fixity its inventory lacks). */
  private async storedDigests(contentPath: string, algorithms: string[]): Promise<Record<string, string>> {
    const hasher = await MultiHasher.create(algorithms);
    for await (const chunk of this.ctx.root.readStream(`${this.ctx.objectPath}/${contentPath}`)) hasher.update(chunk as Buffer);
    return hasher.digests();
  }

  /** Makes the version durable and visible; see commit.ts for the protocol. */
  async commit(options: CommitOptions = {}): Promise<CommitResult> {
    this.assertOpen();
    this.lock.assertHeld();
    const { workspace, stage } = this.ctx;
    let publishing = false;
    try {
      await this.settleWrites(true);
      await this.flushes.settle(true);
      const next = await stagedInventory(
        this.staged,
        {
          id: this.id,
          version: this.version,
          ocflVersion: this.ocflVersion,
          type: this.upgradeType,
          digestAlgorithm: this.digestAlgorithm,
          fixityAlgorithms: this.fixityAlgorithms,
          extraFixity: this.extraFixity,
        },
        this.base,
        options,
        (contentPath, algorithms) => this.storedDigests(contentPath, algorithms),
      );
      if (await workspace.stat(`${stage}/incoming`)) await workspace.remove(`${stage}/incoming`);
      const contentRoot = `${stage}/object/${this.version}/${this.contentDir}`;
      if (await workspace.stat(contentRoot)) await pruneEmptyDirs(workspace, contentRoot);
      await stageInventoriesAndPublish(this.ctx, {
        version: this.version,
        digestAlgorithm: this.digestAlgorithm,
        ocflVersion: this.ocflVersion,
        declaration: this.upgradeType === undefined ? undefined : inventoryOcflVersion(this.upgradeType),
        // Made piece by piece as it is written: the inventory of a million files is ~620 MB of JSON.
        inventory: inventoryChunks(next),
        newObject: !this.base,
        beforePublish: () => {
          this.lock.assertHeld();
          publishing = true;
        },
      });
      this.closed = true;
      await failpoint('before-stage-cleanup');
      await workspace.remove(stage);
      await failpoint('after-stage-cleanup');
      return { id: this.id, version: this.version };
    } catch (err) {
      // A failure before the switch leaves the old version; recovery is the next writer's job
      // either way, but we can tidy the workspace now.
      this.closed = true;
      // An error between the renames of the publication (EIO, EROFS...) may leave an unlisted
      // version folder or a stale sidecar: settle it now, as the next writer would, while the
      // lock is still ours, instead of leaving the object invalid OCFL until then.
      // On an object store the content is in the store already: its keys are rolled back the same way.
      // Folders adopted whole go back to their owner first (adopted-trees.ts).
      if (!this.store) await giveBackAdopted(workspace, stage).catch(() => 0);
      if ((publishing || this.store) && this.lockHeld()) await recoverObject(this.ctx, [], loadSummary).catch(() => {});
      await workspace.remove(stage).catch(() => {});
      throw err;
    } finally {
      await this.onClose();
    }
  }

  private lockHeld(): boolean {
    try {
      this.lock.assertHeld();
      return true;
    } catch {
      return false;
    }
  }

  /** Drops everything staged and releases the object. */
  async abort(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.settleWrites(false);
      await this.flushes.settle(false);
      // Content already uploaded to an object store: rolled back as a crashed writer's would be.
      if (this.store && this.lockHeld()) await recoverObject(this.ctx, [], loadSummary).catch(() => {});
      else await giveBackAdopted(this.ctx.workspace, this.ctx.stage);
      await this.ctx.workspace.remove(this.ctx.stage);
    } finally {
      await this.onClose();
    }
  }
}
