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
import { createWriteStream, promises as fsp, type WriteStream } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { processAlive } from '../process-alive.js';
import { removeTree } from '../remove-tree.js';

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
  private readonly open = new Set<DirectoryFile>();
  private created = false;

  /** `durable` (default true): every file is fsynced before it is closed. */
  constructor(
    readonly outDir: string,
    private readonly durable = true,
  ) {
    this.staging = path.join(outDir, `.siard-ocfl-export-${process.pid}-${randomBytes(4).toString('hex')}`);
  }

  /**
   * Removes staging folders left in `outDir` by exports whose process no longer runs (killed, or
   * the machine stopped); they are hidden, but should not pile up.
   */
  static async removeStaleStaging(outDir: string): Promise<string[]> {
    const removed: string[] = [];
    const names = await fsp.readdir(outDir).catch(() => [] as string[]);
    for (const name of names) {
      const m = /^\.siard-ocfl-export-(\d+)-[0-9a-f]{8}$/.exec(name);
      if (!m || processAlive(Number(m[1]))) continue;
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

  /** Temporary files of the writer go in the staging folder (removed with it). */
  get scratchDir(): string {
    return this.staging;
  }

  async openFile(relPath: string, options: OpenFileOptions = {}): Promise<OutputFile> {
    assertSafeRelPath(relPath);
    await this.ensureStaging();
    this.topLevel.add(relPath.split('/')[0]!);
    const full = path.join(this.staging, ...relPath.split('/'));
    await fsp.mkdir(path.dirname(full), { recursive: true });
    const rename = (from: string, to: string) => this.renamed(from, to);
    const file = new DirectoryFile(relPath, full, options.digests ?? [], () => this.open.delete(file), this.durable, rename);
    this.open.add(file);
    await file.ready();
    return file;
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

  async commit(): Promise<void> {
    if (!this.created) return;
    if (this.open.size > 0) throw new Error('Cannot commit an export while files are still open.');
    const names = [...this.topLevel];
    await this.assertAbsent(names);
    const moved: string[] = [];
    try {
      for (const name of names) {
        await fsp.rename(path.join(this.staging, name), path.join(this.outDir, name));
        moved.push(name);
      }
    } catch (err) {
      // Put back what was moved so the out-dir holds all of the export or none of it.
      for (const name of moved) await fsp.rename(path.join(this.outDir, name), path.join(this.staging, name)).catch(() => undefined);
      throw err;
    }
    await fsp.rm(this.staging, { recursive: true, force: true });
    await syncDirectory(this.outDir);
  }

  async abort(): Promise<void> {
    for (const f of [...this.open]) await f.abort();
    // A staging folder may hold a million LOB files: removed with bounded memory.
    if (this.created) await removeTree(this.staging);
  }
}

class DirectoryFile implements OutputFile {
  private readonly stream: WriteStream;
  private readonly hashes: Hashes;
  private size = 0;
  private failure: Error | undefined;

  constructor(
    private relPath: string,
    private fullPath: string,
    digests: DigestName[],
    private readonly onDone: () => void,
    durable: boolean,
    private readonly placeRename: (from: string, to: string) => Promise<string>,
  ) {
    this.hashes = new Hashes(digests);
    // flush: fsync before close, so a file moved into place by commit() has its bytes on disk.
    this.stream = createWriteStream(fullPath, { flags: 'wx', flush: durable });
    this.stream.on('error', (err) => (this.failure ??= err));
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
    this.onDone();
    return { relPath: this.relPath, size: this.size, digests: this.hashes.digests() };
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
