/**
 * Where an export writes its files: the `.siard` archive and the LOB files beside it. The writer
 * knows only this interface, so the same export lands in a folder on disk (DirectorySink) or
 * straight in a staged OCFL version (the sink in src/archive/ocfl-sink.ts).
 *
 * Digests: every byte passes through the sink once. The writer names the algorithms it needs for
 * a file (the LOB digest) and the sink computes them together with any it needs itself (an OCFL
 * sink: sha512 for the manifest) in the same pass, returning all of them on close.
 */
import { createHash, randomBytes, type Hash } from 'node:crypto';
import {
  closeSync,
  constants,
  createWriteStream,
  fsync,
  fsyncSync,
  mkdirSync,
  openSync,
  promises as fsp,
  readSync,
  writeSync,
  type WriteStream,
} from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { failpoint } from '../failpoint.js';
import { processAlive } from '../process-alive.js';
import { readSmallFile, SMALL_FILE_BYTES } from '../read-small-file.js';
import { removeTree } from '../remove-tree.js';
import { FileLedger } from './resume/file-ledger.js';
import { writeWorkers } from './write-workers.js';

/** Digest algorithm names shared with OCFL's registry and node:crypto: 'md5', 'sha1', 'sha256', 'sha512'. */
export type DigestName = string;

export interface WrittenFile {
  /** path relative to the sink root, '/'-separated */
  relPath: string;
  size: number;
  /** algorithm -> lower-case hex, at least every algorithm requested in openFile */
  digests: Record<DigestName, string>;
}

export interface OutputFile {
  write(chunk: Uint8Array): Promise<void>;
  /** Ends the file; its digests cover every byte written. */
  close(): Promise<WrittenFile>;
  /** Gives up on the file (the whole sink is usually aborted next). */
  abort(): Promise<void>;
  /**
   * Gives the file another path before it is closed (a segmented SIARD file learns which segment is
   * the last, `.z`, only at the end). Optional: sinks that cannot do it leave it out.
   */
  renameTo?(relPath: string): Promise<void>;
  /** Makes every byte written so far durable (a resumable export's end of table, docs/resume.md). */
  sync?(): Promise<void>;
}

/** What a sink offers an export that continues the work of an interrupted one (docs/resume.md). */
export interface ResumableSink {
  /** every file the interrupted work left, relative to the sink root, '/'-separated */
  files(): AsyncIterable<string>;
  /**
   * An existing file cut back to `length` bytes, open for writing at its end; its first `length`
   * bytes are read and hashed again (also handed to `onPrefix`, in order) so that close() returns
   * digests over the whole file. A file shorter than `length` fails.
   */
  reopenFile(relPath: string, options: { length: number; digests?: DigestName[]; onPrefix?: (chunk: Buffer) => void }): Promise<OutputFile>;
  /**
   * An existing file kept as written: read and hashed again, as close() would have returned it.
   * `recorded`: the digests journaled, durably, with the file when it was written; when they hold
   * every digest asked for and the sink's own, only one of them (PROOF_DIGESTS) is computed and
   * the rest are taken from `recorded`: the caller compares every digest returned with it, and the
   * one computed proves the bytes are those the others were computed over.
   */
  adoptFile(
    relPath: string,
    options?: { digests?: DigestName[]; recorded?: Record<DigestName, string>; size?: number },
  ): Promise<WrittenFile>;
  /** Removes files of the interrupted work, then the folders they leave empty. */
  removeFiles(relPaths: string[]): Promise<void>;
  /** Makes every file closed so far, and every folder created, durable. */
  checkpoint(): Promise<void>;
}

export interface OpenFileOptions {
  /** digests the sink must compute over the file's bytes (returned by close) */
  digests?: DigestName[];
  /** bytes the file will hold, when known (a sink may choose how to write by it) */
  size?: number;
}

export interface OutputSink {
  /**
   * Creates a new file at `relPath` (relative, '/'-separated, never existing before).
   * `digests` are the algorithms the caller needs back from close().
   */
  openFile(relPath: string, options?: OpenFileOptions): Promise<OutputFile>;
  /** Makes everything written visible at its final place, all or nothing. */
  commit(): Promise<void>;
  /** Removes everything written; nothing partial stays visible. */
  abort(): Promise<void>;
  /** a local folder on the same file system for the writer's temporary files, when the sink has one */
  readonly scratchDir?: string;
  /** set when the sink can continue an interrupted export's files */
  readonly resumable?: ResumableSink;
  /** set when several files may be open and written side by side (LOBs written ahead of their cells) */
  readonly concurrentFiles?: boolean;
}

/** Checks that a relative path cannot leave the sink's root. */
export function assertSafeRelPath(relPath: string): void {
  const parts = relPath.split('/');
  if (
    relPath.length === 0 ||
    relPath.startsWith('/') ||
    relPath.includes('\\') ||
    relPath.includes('\0') ||
    parts.some((p) => p === '' || p === '.' || p === '..')
  ) {
    throw new Error(`"${relPath}" is not a safe relative output path.`);
  }
}

/** Hashes bytes with several algorithms at once (node:crypto). */
export class Hashes {
  private readonly hashes: Array<[DigestName, Hash]>;
  constructor(names: DigestName[]) {
    this.hashes = [...new Set(names)].map((n) => [n, createHash(n === 'sha512/256' ? 'sha512-256' : n)]);
  }
  update(chunk: Uint8Array): void {
    for (const [, h] of this.hashes) h.update(chunk);
  }
  digests(): Record<DigestName, string> {
    return Object.fromEntries(this.hashes.map(([n, h]) => [n, h.digest('hex')]));
  }
}

/**
 * Writes into `<outDir>` through a hidden staging folder inside it (same file system), then moves
 * each top-level entry (the .siard, the LOB folders) into place on commit. Refuses to start when
 * any of the expected top-level names already exists, so an earlier export is never overwritten.
 */
export class DirectorySink implements OutputSink {
  private readonly staging: string;
  private readonly topLevel = new Set<string>();
  private readonly open = new Set<DirectoryFile | WholeFile | HandedFile>();
  private created = false;

  /** folders made since the last checkpoint (a resumable export makes them durable at each table's end) */
  private readonly madeFolders = new Set<string>();
  private ledger: FileLedger | undefined;

  /**
   * `durable` (default true): every file is fsynced before it is closed. `adopted`: the staging
   * folder of an interrupted export, already renamed to this process's name (stagingNameOf), whose
   * files this sink continues (resumable). `alsoDigests`: computed over every file besides those
   * asked for, and with `ledger`, every file closed or adopted is listed with them (file-ledger.ts).
   * `syncAll`: makes every write to the staging folder's filesystem durable at once (syncfs): then
   * files are not fsynced one by one as they close, and a checkpoint calls it instead.
   */
  constructor(
    readonly outDir: string,
    private readonly durable = true,
    adopted?: string,
    private readonly listed: { alsoDigests?: DigestName[]; ledger?: boolean; syncAll?: () => Promise<void> } = {},
  ) {
    this.staging = adopted ?? path.join(outDir, DirectorySink.stagingNameOf(process.pid));
    this.created = adopted !== undefined;
  }

  /** Whether each file is fsynced as it closes (not when one syncfs per checkpoint does it). */
  private get fsyncEach(): boolean {
    return this.durable && !this.listed.syncAll;
  }

  /** The digests of a file: those asked for and the sink's own. */
  private digestsFor(asked: DigestName[] | undefined): DigestName[] {
    return [...new Set([...(asked ?? []), ...(this.listed.alsoDigests ?? [])])];
  }

  /** A file closed or adopted, listed in the ledger (when the sink keeps one). */
  private list(written: WrittenFile): void {
    if (!this.listed.ledger) return;
    this.ledger ??= new FileLedger(path.join(this.staging, RESUME_FOLDER, LEDGER_FILE));
    this.ledger.add(written);
  }

  /** The ledger's file, complete, or undefined when the sink keeps none (or closed no file). */
  closeLedger(): string | undefined {
    this.ledger?.close();
    return this.ledger?.file;
  }

  /** A staging folder name for process `pid`: hidden, and naming its owner so that leftovers are found. */
  static stagingNameOf(pid: number): string {
    return `.siard-ocfl-export-${pid}-${randomBytes(4).toString('hex')}`;
  }

  /** The pid in a staging folder's name, or undefined for another name. */
  static stagingOwner(name: string): number | undefined {
    const m = /^\.siard-ocfl-export-(\d+)-[0-9a-f]{8}$/.exec(name);
    return m ? Number(m[1]) : undefined;
  }

  /** The staging folder (hidden, inside the out-dir). */
  get stagingDir(): string {
    return this.staging;
  }

  /**
   * Removes staging folders left in `outDir` by exports whose process no longer runs (killed, or
   * the machine stopped); they are hidden, but should not pile up.
   */
  static async removeStaleStaging(outDir: string, keep?: (dir: string) => Promise<boolean>): Promise<string[]> {
    const removed: string[] = [];
    const names = await fsp.readdir(outDir).catch(() => [] as string[]);
    for (const name of names) {
      const owner = DirectorySink.stagingOwner(name);
      if (owner === undefined || processAlive(owner)) continue;
      if (keep && (await keep(path.join(outDir, name)))) continue;
      await removeTree(path.join(outDir, name));
      removed.push(name);
    }
    return removed;
  }

  /** Fails with a usage error when `names` (top-level entries) already exist in the out-dir. */
  async assertAbsent(names: string[]): Promise<void> {
    for (const name of names) {
      const target = path.join(this.outDir, name);
      if (await exists(target)) {
        throw new UsageError(`${target} already exists; choose another --name or out-dir, or remove it first.`, 'OUTPUT_EXISTS');
      }
    }
  }

  /** The staging folder made, with its `.resume/` folder; the journal's path in it. */
  async prepareResumable(): Promise<string> {
    await this.ensureStaging();
    await fsp.mkdir(path.join(this.staging, RESUME_FOLDER), { recursive: true });
    return path.join(this.staging, RESUME_FOLDER, JOURNAL_FILE);
  }

  /** Each file is written on its own (LobWriter.begin). */
  readonly concurrentFiles = true;

  /** Temporary files of the writer go in the staging folder (removed with it). */
  get scratchDir(): string {
    return this.staging;
  }

  async openFile(relPath: string, options: OpenFileOptions = {}): Promise<OutputFile> {
    assertSafeRelPath(relPath);
    await this.ensureStaging();
    this.topLevel.add(relPath.split('/')[0]!);
    const full = path.join(this.staging, ...relPath.split('/'));
    this.makeFolder(path.dirname(full));
    const rename = (from: string, to: string) => this.renamed(from, to);
    const done = (written?: WrittenFile) => (this.open.delete(file), written && this.list(written));
    const digests = this.digestsFor(options.digests);
    const size = options.size ?? Infinity;
    const file =
      size <= WHOLE_FILE_BYTES
        ? new WholeFile(relPath, full, digests, done, this.fsyncEach, rename)
        : size <= HANDED_FILE_BYTES
          ? new HandedFile(relPath, full, digests, done, this.fsyncEach)
          : new DirectoryFile(relPath, full, digests, done, this.fsyncEach, rename);
    this.open.add(file);
    if (file instanceof DirectoryFile) await file.ready();
    return file;
  }

  /** Synchronous: one step on the folders' metadata, done for every file (a thread pool round trip cost more than the step). */
  private makeFolder(dir: string): void {
    const first = mkdirSync(dir, { recursive: true });
    if (first === undefined) return;
    for (let d = dir; d.length >= first.length; d = path.dirname(d)) this.madeFolders.add(d);
    this.madeFolders.add(path.dirname(first));
  }

  /** The staging folder's files can be continued by a resuming export (docs/resume.md). */
  get resumable(): ResumableSink {
    return {
      files: () => this.stagedFiles(),
      reopenFile: (relPath, options) => this.reopenFile(relPath, options),
      adoptFile: (relPath, options) => this.adoptFile(relPath, options?.digests ?? [], options?.recorded, options?.size),
      removeFiles: (relPaths) => this.removeFiles(relPaths),
      checkpoint: () => this.checkpoint(),
    };
  }

  /** Every file under the staging folder but its `.resume/` folder, found folder by folder. */
  private async *stagedFiles(): AsyncIterable<string> {
    const pending = [''];
    while (pending.length > 0) {
      const rel = pending.pop()!;
      const entries = await fsp.readdir(path.join(this.staging, ...rel.split('/').filter(Boolean)), { withFileTypes: true });
      for (const e of entries) {
        const child = rel ? `${rel}/${e.name}` : e.name;
        if (!rel && e.name === RESUME_FOLDER) continue;
        if (e.isDirectory()) pending.push(child);
        else yield child;
      }
    }
  }

  private async reopenFile(
    relPath: string,
    options: { length: number; digests?: DigestName[]; onPrefix?: (chunk: Buffer) => void },
  ): Promise<OutputFile> {
    assertSafeRelPath(relPath);
    const full = path.join(this.staging, ...relPath.split('/'));
    const hashes = new Hashes(this.digestsFor(options.digests));
    await hashPrefix(full, options.length, (chunk) => {
      hashes.update(chunk);
      options.onPrefix?.(chunk);
    });
    await fsp.truncate(full, options.length);
    this.topLevel.add(relPath.split('/')[0]!);
    const rename = (from: string, to: string) => this.renamed(from, to);
    const done = (written?: WrittenFile) => (this.open.delete(file), written && this.list(written));
    const file = new DirectoryFile(relPath, full, [], done, this.fsyncEach, rename, { hashes, size: options.length });
    this.open.add(file);
    await file.ready();
    return file;
  }

  private async adoptFile(
    relPath: string,
    digests: DigestName[],
    recorded?: Record<DigestName, string>,
    size?: number,
  ): Promise<WrittenFile> {
    assertSafeRelPath(relPath);
    const wanted = this.digestsFor(digests);
    const proof = recorded && wanted.every((d) => recorded[d] !== undefined) ? PROOF_DIGESTS.find((d) => wanted.includes(d)) : undefined;
    const hashes = new Hashes(proof ? [proof] : wanted);
    const full = path.join(this.staging, ...relPath.split('/'));
    // a resume adopts every kept LOB file: a small one read on this thread, without the thread pool's
    // five round trips (read-small-file.ts), which cost 6x the reading and hashing of 8 KiB; of its
    // recorded size, in one read into a buffer shared by every check (no fstat, no buffer per file)
    const whole = (size !== undefined ? readOfSize(full, size) : undefined) ?? readSmallFile(full);
    if (whole) hashes.update(whole);
    const length = whole ? whole.length : await hashPrefix(full, Infinity, (chunk) => hashes.update(chunk));
    this.topLevel.add(relPath.split('/')[0]!);
    const computed = hashes.digests();
    const written = {
      relPath,
      size: length,
      digests: proof ? { ...Object.fromEntries(wanted.map((d) => [d, recorded![d]!])), ...computed } : computed,
    };
    this.list(written);
    return written;
  }

  /**
   * Removes the files, a few at a time on the thread pool (each frees its data: slow on this thread),
   * then each folder they leave empty, deepest first, up to the staging folder: one rmdir per folder,
   * not one per file (the files after a cut share a few folders).
   */
  private async removeFiles(relPaths: string[]): Promise<void> {
    const folders = new Set<string>();
    for (let i = 0; i < relPaths.length; i += REMOVALS_AT_ONCE) {
      await Promise.all(
        relPaths.slice(i, i + REMOVALS_AT_ONCE).map((relPath) => {
          assertSafeRelPath(relPath);
          const parts = relPath.split('/');
          for (let n = parts.length - 1; n > 0; n--) folders.add(parts.slice(0, n).join('/'));
          return fsp.rm(path.join(this.staging, ...parts), { force: true });
        }),
      );
    }
    const deepestFirst = [...folders].sort((a, b) => b.split('/').length - a.split('/').length);
    for (const folder of deepestFirst) await fsp.rmdir(path.join(this.staging, ...folder.split('/'))).catch(() => undefined);
  }

  /** Files are fsynced as they close; the folders made since the last checkpoint are fsynced here (or all at once by syncAll). */
  private async checkpoint(): Promise<void> {
    if (this.listed.syncAll) {
      this.madeFolders.clear();
      return this.listed.syncAll();
    }
    const folders = [...this.madeFolders].sort((a, b) => b.length - a.length);
    this.madeFolders.clear();
    for (const dir of folders) await syncDirectory(dir);
  }

  private async ensureStaging(): Promise<void> {
    if (!this.created) {
      await fsp.mkdir(this.outDir, { recursive: true });
      await fsp.mkdir(this.staging);
      this.created = true;
    }
  }

  /** A file's new path, checked, its folder made, before the file is moved there. */
  private async renamed(from: string, to: string): Promise<string> {
    assertSafeRelPath(to);
    const full = path.join(this.staging, ...to.split('/'));
    if (await exists(full)) throw new Error(`Cannot rename ${from} to ${to}: ${to} exists.`);
    await fsp.mkdir(path.dirname(full), { recursive: true });
    if (!from.includes('/')) this.topLevel.delete(from); // a top-level file now named otherwise
    this.topLevel.add(to.split('/')[0]!);
    return full;
  }

  /**
   * Moves the finished files into the out-dir. `result` (a resumable export's summary) is kept in
   * the commit marker, so that a run killed during the moves is finished by the next run with it.
   */
  async commit(result?: unknown): Promise<void> {
    if (!this.created) return;
    if (this.open.size > 0) throw new Error('Cannot commit an export while files are still open.');
    const names = [...this.topLevel];
    await this.assertAbsent(names);
    await this.markCommitting(names, result);
    await failpoint('export-commit-marked');
    const moved: string[] = [];
    try {
      for (const name of names) {
        await fsp.rename(path.join(this.staging, name), path.join(this.outDir, name));
        moved.push(name);
        await failpoint('export-commit-moved');
      }
    } catch (err) {
      // Put back what was moved so the out-dir holds all of the export or none of it.
      for (const name of moved) await fsp.rename(path.join(this.outDir, name), path.join(this.staging, name)).catch(() => undefined);
      await fsp.rm(path.join(this.staging, RESUME_FOLDER, COMMIT_MARKER), { force: true });
      throw err;
    }
    await syncDirectory(this.outDir);
    await removeCommitted(this.staging);
  }

  /**
   * A resumable export's staging folder says, durably, that its files are whole and being moved
   * into place: a kill between the moves is finished by the next run (finishCommit), not undone.
   */
  private async markCommitting(names: string[], result: unknown): Promise<void> {
    const folder = path.join(this.staging, RESUME_FOLDER);
    if (!(await exists(folder))) return;
    // written aside and renamed: the marker is whole or absent, whenever the kill comes
    const aside = path.join(folder, `${COMMIT_MARKER}.partial`);
    const handle = await fsp.open(aside, 'w');
    try {
      const marker: CommitMarker = { names, ...(result !== undefined ? { result } : {}) };
      await handle.writeFile(JSON.stringify(marker));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fsp.rename(aside, path.join(folder, COMMIT_MARKER));
    await syncDirectory(folder);
  }

  /**
   * Finishes the commit of a dead export's staging folder that was marked committing: its files
   * still in it are moved into the out-dir (those already there stay), then it is removed.
   * Returns what the marker keeps (the export's result, when it kept one), or undefined, changing
   * nothing, for a folder not marked.
   */
  static async finishCommit(outDir: string, staging: string): Promise<{ result?: unknown } | undefined> {
    const marker = await fsp
      .readFile(path.join(staging, RESUME_FOLDER, COMMIT_MARKER), 'utf8')
      .then((text) => JSON.parse(text) as unknown)
      .catch(() => undefined);
    // an array: a marker written before results were kept in it
    const names = Array.isArray(marker) ? marker : (marker as CommitMarker | undefined)?.names;
    if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) return undefined;
    for (const name of names) {
      assertSafeRelPath(name);
      if (await exists(path.join(staging, name))) await fsp.rename(path.join(staging, name), path.join(outDir, name));
    }
    await syncDirectory(outDir);
    await removeCommitted(staging);
    const result = Array.isArray(marker) ? undefined : (marker as CommitMarker).result;
    return result !== undefined ? { result } : {};
  }

  /**
   * Stops a resumable export that failed: open files are closed as they are, nothing is removed,
   * and the staging folder waits (named by this process) for the next run to continue it.
   */
  async suspend(): Promise<void> {
    for (const f of [...this.open]) await f.close().catch(() => undefined);
  }

  async abort(): Promise<void> {
    for (const f of [...this.open]) await f.abort();
    // A staging folder may hold a million LOB files: removed with bounded memory.
    if (this.created) await removeTree(this.staging);
  }
}

/**
 * The digests a kept file's recorded digests may be proved by, the first the sink computes taken
 * (DirectorySink.adoptFile): both resist collisions, and with the CPU's SHA extensions sha256
 * costs half of sha512 (7 against 14.5 µs per 8 KiB, session 53).
 */
const PROOF_DIGESTS = ['sha256', 'sha512'];

/** Files of at most this many bytes (as the writer says: a LOB's size is known) are written whole on this thread (WholeFile). */
const WHOLE_FILE_BYTES = 64 * 1024;

/**
 * Files above WHOLE_FILE_BYTES and up to this size (as the writer says) are held until they close,
 * then written and hashed whole on a worker thread (HandedFile): at most this many bytes of each
 * LOB the writer has started ahead are held twice.
 */
const HANDED_FILE_BYTES = 4 * 1024 * 1024;

/** Writes all of `chunk` at the file's position. */
function writeAll(fd: number, chunk: Uint8Array): void {
  for (let at = 0; at < chunk.length;) at += writeSync(fd, chunk, at);
}

/**
 * A small file held until it closes, then written whole on this thread (opened, written, fsynced
 * when durable, closed): through the thread pool each small LOB file cost four round trips (open,
 * write, close, its folder), which took an ingest of 200,000 LOBs of 2-4 KiB about 12 s more CPU
 * than c182370's writes (sys time in futex and epoll_pwait). Nothing is on disk before close, sync
 * or renameTo; sync() writes what came so far, later bytes are appended.
 */
class WholeFile implements OutputFile {
  private readonly chunks: Uint8Array[] = [];
  private readonly hashes: Hashes;
  private size = 0;
  private made = false;

  constructor(
    private relPath: string,
    private fullPath: string,
    digests: DigestName[],
    private readonly onDone: (written?: WrittenFile) => void,
    private readonly durable: boolean,
    private readonly placeRename: (from: string, to: string) => Promise<string>,
  ) {
    this.hashes = new Hashes(digests);
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.hashes.update(chunk);
    this.size += chunk.length;
    this.chunks.push(chunk);
  }

  /** The bytes held written to the file (made by the first call: it must not exist), fsynced when `durable`. */
  private flush(durable: boolean): void {
    const fd = openSync(this.fullPath, this.made ? 'a' : 'wx');
    this.made = true;
    try {
      for (const chunk of this.chunks) writeAll(fd, chunk);
      this.chunks.length = 0;
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  async sync(): Promise<void> {
    this.flush(true);
  }

  async renameTo(relPath: string): Promise<void> {
    const full = await this.placeRename(this.relPath, relPath);
    if (this.made) await fsp.rename(this.fullPath, full);
    this.relPath = relPath;
    this.fullPath = full;
  }

  async close(): Promise<WrittenFile> {
    this.flush(this.durable);
    const written = { relPath: this.relPath, size: this.size, digests: this.hashes.digests() };
    this.onDone(written);
    return written;
  }

  async abort(): Promise<void> {
    this.onDone();
    this.chunks.length = 0;
    if (this.made) await fsp.rm(this.fullPath, { force: true });
  }
}

/**
 * A file of known size held until it closes, then created, written, fsynced when durable and
 * hashed whole on a worker thread (write-workers.ts) while this thread goes on: no thread-pool
 * round trip per step, no hashing here. Nothing is on disk before close; no sync() or renameTo()
 * (a LOB file is written once, whole).
 */
class HandedFile implements OutputFile {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;
  private writing: Promise<string[]> | undefined;

  constructor(
    private readonly relPath: string,
    private readonly fullPath: string,
    private readonly digests: DigestName[],
    private readonly onDone: (written?: WrittenFile) => void,
    private readonly durable: boolean,
  ) {}

  async write(chunk: Uint8Array): Promise<void> {
    this.size += chunk.length;
    this.chunks.push(chunk);
  }

  async close(): Promise<WrittenFile> {
    // one copy, made here: the caller's buffers stay its own, and the copy is moved to the worker whole
    const bytes = writeWorkers().buffer(this.size);
    let at = 0;
    for (const chunk of this.chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    this.chunks.length = 0;
    let hex: string[];
    try {
      this.writing = writeWorkers().write(this.fullPath, bytes, this.digests, this.durable);
      hex = await this.writing;
    } catch (err) {
      this.onDone();
      throw err;
    }
    const written = { relPath: this.relPath, size: this.size, digests: Object.fromEntries(this.digests.map((d, i) => [d, hex[i]!])) };
    this.onDone(written);
    return written;
  }

  /** Given up; a write the worker has begun is waited for, so its file is there for the sink's removal. */
  async abort(): Promise<void> {
    this.onDone();
    this.chunks.length = 0;
    await this.writing?.catch(() => undefined);
  }
}

class DirectoryFile implements OutputFile {
  private readonly stream: WriteStream;
  private readonly hashes: Hashes;
  private size = 0;
  private failure: Error | undefined;

  /** `continued`: an existing file written on from its end, its bytes so far already hashed (reopenFile). */
  constructor(
    private relPath: string,
    private fullPath: string,
    digests: DigestName[],
    private readonly onDone: (written?: WrittenFile) => void,
    durable: boolean,
    private readonly placeRename: (from: string, to: string) => Promise<string>,
    continued?: { hashes: Hashes; size: number },
  ) {
    this.hashes = continued?.hashes ?? new Hashes(digests);
    this.size = continued?.size ?? 0;
    // flush: fsync before close, so a file moved into place by commit() has its bytes on disk.
    this.stream = continued
      ? createWriteStream(fullPath, { flags: 'r+', start: continued.size, flush: durable })
      : createWriteStream(fullPath, { flags: 'wx', flush: durable });
    this.stream.on('error', (err) => (this.failure ??= err));
  }

  /** Every chunk written so far reaches the file (an empty write's callback runs after them), then fsync. */
  async sync(): Promise<void> {
    if (this.failure) throw this.failure;
    await new Promise<void>((resolve, reject) => this.stream.write(Buffer.alloc(0), (err) => (err ? reject(err) : resolve())));
    const fd = (this.stream as unknown as { fd: number | null }).fd; // set once open (not in the typings)
    if (typeof fd === 'number') await new Promise<void>((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
  }

  ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.stream.once('ready', () => resolve());
      this.stream.once('error', reject);
    });
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    this.hashes.update(chunk);
    this.size += chunk.length;
    if (!this.stream.write(chunk)) {
      await new Promise<void>((resolve, reject) => {
        const onError = (err: Error) => {
          this.stream.off('drain', onDrain);
          reject(err);
        };
        const onDrain = () => {
          this.stream.off('error', onError);
          resolve();
        };
        this.stream.once('drain', onDrain);
        this.stream.once('error', onError);
      });
    }
  }

  /** The open file moves (POSIX keeps writing to it); the sink commits it under its new name. */
  async renameTo(relPath: string): Promise<void> {
    const full = await this.placeRename(this.relPath, relPath);
    await fsp.rename(this.fullPath, full);
    this.relPath = relPath;
    this.fullPath = full;
  }

  async close(): Promise<WrittenFile> {
    if (this.failure) throw this.failure;
    await new Promise<void>((resolve, reject) => {
      this.stream.once('error', reject);
      this.stream.end(() => resolve());
    });
    const written = { relPath: this.relPath, size: this.size, digests: this.hashes.digests() };
    this.onDone(written);
    return written;
  }

  async abort(): Promise<void> {
    this.onDone();
    await new Promise<void>((resolve) => {
      if (this.stream.closed) return resolve();
      this.stream.once('close', () => resolve());
      this.stream.destroy();
    });
    await fsp.rm(this.fullPath, { force: true });
  }
}

/** The folder of a staging folder that holds a resumable export's journal (never moved into the out-dir). */
export const RESUME_FOLDER = '.resume';
/** In RESUME_FOLDER: the top-level names being moved into the out-dir (DirectorySink.commit). */
const COMMIT_MARKER = 'committing.json';
/** What COMMIT_MARKER holds. */
interface CommitMarker {
  names: string[];
  result?: unknown;
}

/**
 * Removes a committed staging folder with its commit marker and journal last: a kill during the
 * removal leaves them, so the next run still knows whose archive was whole and moved (finishCommit).
 */
async function removeCommitted(staging: string): Promise<void> {
  for (const name of await fsp.readdir(staging).catch(() => [] as string[]))
    if (name !== RESUME_FOLDER) await removeTree(path.join(staging, name));
  const folder = path.join(staging, RESUME_FOLDER);
  for (const name of await fsp.readdir(folder).catch(() => [] as string[]))
    if (name !== COMMIT_MARKER && name !== JOURNAL_FILE) await fsp.rm(path.join(folder, name), { recursive: true, force: true });
  await failpoint('export-commit-marker-left');
  await fsp.rm(staging, { recursive: true, force: true });
}

/** In RESUME_FOLDER: the journal of the finished tables (resume/export-journal.ts). */
const JOURNAL_FILE = 'journal.jsonl';
/** Files of interrupted work removed at once (DirectorySink.removeFiles): the thread pool's four threads kept busy. */
const REMOVALS_AT_ONCE = 16;

/** In RESUME_FOLDER: the ledger of the files with their digests (file-ledger.ts), written anew by every run. */
const LEDGER_FILE = 'files.jsonl';

/** The buffer every kept file of a small recorded size is read into for its check (readOfSize), grown as needed. */
let checkBuffer = Buffer.allocUnsafe(64 * 1024);

/**
 * The bytes of a regular file of the recorded `size` (at most SMALL_FILE_BYTES), read in one call
 * into checkBuffer (valid until the next call: hashed at once, never kept); undefined when its
 * size is not that (a longer file is read as any other, for its true size) or it is larger.
 * A file that cannot be opened throws (the caller's refusal names it); O_NONBLOCK: a FIFO put
 * there would otherwise wait for a writer.
 */
function readOfSize(full: string, size: number): Buffer | undefined {
  if (size > SMALL_FILE_BYTES) return undefined;
  if (checkBuffer.length <= size) checkBuffer = Buffer.allocUnsafe(size + 1);
  const fd = openSync(full, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    let filled = 0;
    for (;;) {
      const asked = size + 1 - filled;
      const n = readSync(fd, checkBuffer, filled, asked, null);
      filled += n;
      // a regular file reads short only at its end: size + 1 asked, one call (a longer file fills it)
      if (n < asked || filled > size) break;
    }
    return filled === size ? checkBuffer.subarray(0, size) : undefined;
  } finally {
    closeSync(fd);
  }
}

/** Reads the first `length` bytes of a file (all of it for Infinity) into `take`; fails if it is shorter. Returns the bytes read. */
async function hashPrefix(full: string, length: number, take: (chunk: Buffer) => void): Promise<number> {
  const handle = await fsp.open(full, 'r');
  try {
    // sized to the file when smaller: a resume reads a million small LOB files, and a 1 MiB buffer
    // for each of them kept the garbage collector busy for longer than the reads took
    const known = length === Infinity ? (await handle.stat()).size + 1 : length;
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(1 << 20, known)));
    let done = 0;
    while (done < length) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, length - done), done);
      if (bytesRead === 0) break;
      take(buffer.subarray(0, bytesRead)); // hashed at once, before the buffer is read into again
      done += bytesRead;
    }
    if (length !== Infinity && done < length) throw new Error(`${full} holds ${done} bytes, fewer than the ${length} recorded.`);
    return done;
  } finally {
    await handle.close();
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await fsp.lstat(p);
    return true;
  } catch {
    return false;
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r').catch(() => undefined);
  if (!handle) return;
  await handle.sync().catch(() => undefined);
  await handle.close().catch(() => undefined);
}
