/** The local filesystem backend of Storage. */
import {
  createReadStream,
  linkSync,
  lstatSync,
  opendirSync,
  promises as fsp,
  readdirSync,
  realpathSync,
  renameSync,
  statSync,
  type Dir,
  type Dirent,
} from 'node:fs';
import { constants } from 'node:fs';
import path from 'node:path';
import { openFileStream, readSmallFile } from '../../read-small-file.js';
import type { Readable } from 'node:stream';
import { SiardOcflError } from '../../errors.js';
import { openDirect } from './direct-write.js';
import { exchangePaths } from './rename-exchange.js';
import { FilesystemSync } from './syncfs.js';
import { assertPlainPath, type EntryKind, type OutlineEntry, type Storage, type StorageEntry } from './storage.js';
import type { StorageStat, StorageWalk, WritableFile } from './storage.js';
import { forEachConcurrent } from '../concurrent.js';
import { removeTree } from '../../remove-tree.js';

function kindOf(d: Dirent): EntryKind {
  return d.isSymbolicLink() ? 'link' : d.isDirectory() ? 'dir' : d.isFile() ? 'file' : 'other';
}

/** Folders read at once by outline once the disk is read. */
const OUTLINE_WIDTH = 32;
/** A folder read synchronously in more than this came from the disk (from the page cache: some 15 microseconds). */
const FROM_DISK_MS = 1;

/** Folders remembered as free of links (a million-file object spreads its files over a few thousand). */
const LINK_FREE_FOLDERS_KEPT = 4096;

function linkOnTheWay(abs: string): SiardOcflError {
  return new SiardOcflError(`${abs} is, or lies behind, a symbolic link; storage holds no links, so it is not read.`, {
    code: 'STORAGE_LINK',
    exitCode: 1,
  });
}

/** Entries bytesUnder reads between two turns of the event loop (a few milliseconds). */
const BYTES_STEP = 1000;

export class FileSystemStorage implements Storage {
  readonly location: string;

  constructor(baseDir: string) {
    this.location = path.resolve(baseDir);
  }

  /** Absolute path of a relative storage path; refuses anything that would leave the base. */
  resolve(rel: string): string {
    if (rel === '' || rel === '.') return this.location;
    assertPlainPath(rel);
    return path.sep === '/' ? (this.location === '/' ? `/${rel}` : `${this.location}/${rel}`) : path.join(this.location, ...rel.split('/'));
  }

  localPath(rel: string): string {
    return this.resolve(rel);
  }

  /** Asynchronous: callers stat many files at once (audit), and libuv's threads overlap their latency. */
  async stat(rel: string): Promise<StorageStat | undefined> {
    try {
      // The base itself may be a link the user chose (as a folder path given to any tool); nothing below it is followed.
      const abs = this.resolve(rel);
      const s = abs === this.location ? await fsp.stat(abs) : await fsp.lstat(abs);
      return { isFile: s.isFile(), isDirectory: s.isDirectory(), size: s.size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /**
   * One synchronous lstat after another: at 200,000 content files (bench/against-c182370) they
   * cost 0.7 s of CPU against 3.7 s for asynchronous ones 32 at once through libuv's pool, and
   * from a cold page cache they were faster too (3.3 s against 5.1 s wall).
   */
  statMany(rels: readonly string[]): Promise<Array<StorageStat | undefined>> {
    try {
      return Promise.resolve(
        rels.map((rel) => {
          const abs = this.resolve(rel);
          const s = abs === this.location ? statSync(abs, { throwIfNoEntry: false }) : lstatSync(abs, { throwIfNoEntry: false });
          return s && { isFile: s.isFile(), isDirectory: s.isDirectory(), size: s.size };
        }),
      );
    } catch (err) {
      return Promise.reject(err);
    }
  }

  // list and walk are synchronous on purpose (as the validator's reads always were): for many
  // small folders readdir and lstat cost far less than promises through libuv's pool.

  async walk(rel: string, options: { sizes?: boolean } = {}): Promise<StorageWalk> {
    const sizes = options.sizes !== false;
    const base = this.resolve(rel);
    const result: StorageWalk = { files: [], emptyDirs: [], links: [] };
    const stack: string[] = [''];
    while (stack.length > 0) {
      const dirRel = stack.pop()!;
      const abs = dirRel === '' ? base : `${base}/${dirRel}`;
      let dirents;
      try {
        dirents = readdirSync(abs, { withFileTypes: true });
      } catch {
        continue;
      }
      if (dirents.length === 0 && dirRel !== '') result.emptyDirs.push(dirRel);
      for (const d of dirents) {
        const childRel = dirRel === '' ? d.name : `${dirRel}/${d.name}`;
        if (d.isSymbolicLink()) result.links.push(childRel);
        else if (d.isDirectory()) stack.push(childRel);
        else if (d.isFile()) {
          // An lstat per file was a third of this walk's CPU in a root of 100,000 small files.
          const size = sizes ? (lstatSync(`${abs}/${d.name}`, { throwIfNoEntry: false })?.size ?? 0) : NaN;
          result.files.push({ relative: childRel, size });
        } else result.links.push(childRel);
      }
    }
    result.files.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
    return result;
  }

  readStream(rel: string, options: { start?: number; end?: number; highWaterMark?: number } = {}): Readable {
    // A whole file, most often a small content file: read on this thread (read-small-file.ts), its
    // last component refused as a link by the open itself.
    if (options.start === undefined && options.end === undefined) {
      const file = this.readable(rel, false);
      return openFileStream(file, {
        highWaterMark: 1 << 20,
        ...options,
        onLink: () => {
          throw linkOnTheWay(file);
        },
      });
    }
    return createReadStream(this.readable(rel), { highWaterMark: 1 << 20, ...options });
  }

  async *readInto(rel: string, buffer: Buffer): AsyncGenerator<Buffer> {
    // O_NOFOLLOW: a link as the last component fails as readStream's onLink refuses it.
    const file = await fsp.open(this.readable(rel, false), constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      for (;;) {
        const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) return;
        yield buffer.subarray(0, bytesRead);
      }
    } finally {
      await file.close();
    }
  }

  readFile(rel: string): Promise<Buffer> {
    try {
      const file = this.readable(rel, false);
      // A small file on this thread (read-small-file.ts); anything else, and any error, the usual way.
      let whole: Buffer | undefined;
      try {
        whole = readSmallFile(file, { noFollow: true });
      } catch {
        throw linkOnTheWay(file);
      }
      return whole ? Promise.resolve(whole) : fsp.readFile(file);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private realLocation: string | undefined;
  /** Folders (storage paths) found to be real folders, with no link on the way: most reads are of files in a folder just read. */
  private readonly linkFreeFolders = new Set<string>();
  /** Cleared when this filesystem refuses O_DIRECT (then every file is written the ordinary way). */
  private directWrites = true;

  /**
   * The path to read, refused when a symbolic link lies on the way below the storage location:
   * OCFL storage holds no links (E090), and following one would read outside the root (a link in
   * an object to any file whose digest an attacker put in the inventory). A folder is checked with
   * one realpath(3) (the JavaScript realpath lstats every component) and remembered; the file
   * itself with one lstat (`checkLastComponent`; a caller opening with O_NOFOLLOW leaves it out). A
   * link made after the check is the race every path check has.
   */
  private readable(rel: string, checkLastComponent = true): string {
    const abs = this.resolve(rel);
    const slash = rel.lastIndexOf('/');
    const folder = slash < 0 ? '' : rel.slice(0, slash);
    try {
      if (!this.linkFreeFolders.has(folder)) {
        this.realLocation ??= realpathSync.native(this.location);
        const real = realpathSync.native(this.resolve(folder));
        if (real !== path.join(this.realLocation, ...(folder === '' ? [] : folder.split('/')))) throw linkOnTheWay(abs);
        if (this.linkFreeFolders.size >= LINK_FREE_FOLDERS_KEPT) this.linkFreeFolders.clear();
        this.linkFreeFolders.add(folder);
      }
      if (checkLastComponent && rel !== '' && rel !== '.' && lstatSync(abs).isSymbolicLink()) throw linkOnTheWay(abs);
    } catch (err) {
      if (err instanceof SiardOcflError) throw err;
      return abs; // missing: the read reports it
    }
    return abs;
  }

  /** Opened before the first write, so that syncAll hears of every write lost after it. */
  private filesystemSync: FilesystemSync | undefined | null;

  async syncAll(): Promise<boolean> {
    const handle = (this.filesystemSync ??= FilesystemSync.open(this.location) ?? null);
    if (!handle) return false;
    await handle.sync();
    return true;
  }

  async openWrite(rel: string, options: { exclusive?: boolean; durable?: boolean; direct?: boolean } = {}): Promise<WritableFile> {
    const durable = options.durable ?? true;
    this.filesystemSync ??= FilesystemSync.open(this.location) ?? null;
    const abs = this.resolve(rel);
    // The folder is made only when the open finds it missing: a version's 10,000 files in one
    // folder cost 10,000 mkdir calls through libuv's pool otherwise.
    const missingFolder = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';
    if (options.direct && this.directWrites) {
      const direct = () => openDirect(abs, { exclusive: options.exclusive ?? false, durable });
      const file = await direct().catch(async (err) => {
        if (!missingFolder(err)) throw err;
        await fsp.mkdir(path.dirname(abs), { recursive: true });
        return direct();
      });
      if (file) return file;
      this.directWrites = false; // this filesystem refuses O_DIRECT: ordinary writes from now on
    }
    const flags = options.exclusive ? 'wx' : 'w';
    const handle = await fsp.open(abs, flags).catch(async (err) => {
      if (!missingFolder(err)) throw err;
      await fsp.mkdir(path.dirname(abs), { recursive: true });
      return fsp.open(abs, flags);
    });
    let closed = false;
    return {
      async write(chunk) {
        let off = 0;
        while (off < chunk.byteLength) {
          const { bytesWritten } = await handle.write(chunk, off, chunk.byteLength - off);
          off += bytesWritten;
        }
      },
      async close() {
        if (closed) return;
        closed = true;
        if (durable) await handle.sync();
        await handle.close();
      },
      async abort() {
        if (!closed) {
          closed = true;
          await handle.close().catch(() => {});
        }
        await fsp.rm(abs, { force: true });
      },
    };
  }

  /** A file's data, or a folder's entries (fsyncDir): on Linux fsync through any descriptor flushes them. */
  async fsyncFile(rel: string): Promise<void> {
    const handle = await fsp.open(this.resolve(rel), 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /**
   * Entry after entry (opendir), one folder at a time, each file lstat'ed (links are neither
   * followed nor counted), the event loop given a turn every BYTES_STEP entries: nothing held but
   * the folders still to read (a listing of a 250,000-file folder of the million-LOB object would
   * hold its entries while its files were stat'ed).
   */
  async bytesUnder(rel: string): Promise<number> {
    const top = this.resolve(rel);
    const dirs = [top];
    let bytes = 0;
    let entries = 0;
    while (dirs.length > 0) {
      const dir = dirs.pop()!;
      let handle: Dir;
      try {
        handle = opendirSync(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' && dir !== top) continue; // removed while counted
        throw err;
      }
      try {
        for (let e = handle.readSync(); e !== null; e = handle.readSync()) {
          const at = path.join(dir, e.name);
          if (e.isDirectory()) dirs.push(at);
          else if (e.isFile()) bytes += lstatSync(at, { throwIfNoEntry: false })?.size ?? 0;
          if (++entries % BYTES_STEP === 0) await new Promise((resolve) => setImmediate(resolve));
        }
      } finally {
        handle.closeSync();
      }
    }
    return bytes;
  }

  async list(rel: string): Promise<StorageEntry[]> {
    const entries = readdirSync(this.resolve(rel), { withFileTypes: true });
    return entries.map((e) => ({ name: e.name, isFile: e.isFile(), isDirectory: e.isDirectory(), kind: kindOf(e) }));
  }

  /**
   * Level by level; each level read synchronously while its folders come from the page cache
   * (a third of the CPU of reads through libuv's pool: 0.35 against 0.9 s for the 23,000 folders
   * of a root of 10,000 objects), the rest of it OUTLINE_WIDTH at once as soon as one read waits
   * for the disk: one after another, a root on disk took 8 to 200 s on this project's machine
   * under load, 1 to 45 s 32 at once.
   */
  async outline(rel: string, depth: number, onEntries?: (entries: OutlineEntry[]) => void): Promise<OutlineEntry[]> {
    const base = this.resolve(rel);
    const out: OutlineEntry[] = [];
    let level = [''];
    for (let d = 1; d <= depth && level.length > 0; d++) {
      const next: string[] = [];
      const take = (dir: string, entries: Dirent[]) => {
        if (entries.length === 0 && dir !== '') out.push({ path: dir, isDirectory: true });
        for (const e of entries) {
          const at = dir === '' ? e.name : `${dir}/${e.name}`;
          if (e.isDirectory() && d < depth) next.push(at);
          else if (e.isDirectory() || e.isFile()) out.push({ path: at, isDirectory: e.isDirectory() });
        }
      };
      const gone = (dir: string, err: unknown) => {
        if (dir === '' || (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; // else removed while listed
      };
      let i = 0;
      while (i < level.length) {
        const dir = level[i++]!;
        const start = performance.now();
        try {
          take(dir, readdirSync(dir === '' ? base : `${base}/${dir}`, { withFileTypes: true }));
        } catch (err) {
          gone(dir, err);
        }
        if (performance.now() - start > FROM_DISK_MS) break;
      }
      await forEachConcurrent(level.slice(i), OUTLINE_WIDTH, async (dir) => {
        try {
          take(dir, await fsp.readdir(`${base}/${dir}`, { withFileTypes: true }));
        } catch (err) {
          gone(dir, err);
        }
      });
      level = next;
    }
    onEntries?.(out);
    return out;
  }

  async mkdir(rel: string): Promise<void> {
    await fsp.mkdir(this.resolve(rel), { recursive: true });
  }

  /**
   * Synchronous inside: a rename is one step on the folder's metadata, and a put renames every
   * staged file into place; through libuv's pool 30,000 renames cost 1.3 s of CPU, on this thread 0.7 s.
   */
  rename(from: string, to: string): Promise<void> {
    try {
      renameSync(this.resolve(from), this.resolve(to));
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err);
    }
  }

  async remove(rel: string): Promise<void> {
    // Not fs.rm({ recursive }): removing the old tree of a million-file object took it 1.5 GB (remove-tree.ts).
    await removeTree(this.resolve(rel));
  }

  fsyncDir(rel: string): Promise<void> {
    return this.fsyncFile(rel);
  }

  async moveFrom(source: Storage, from: string, to: string, options: { replace?: boolean } = {}): Promise<void> {
    if (!(source instanceof FileSystemStorage))
      throw new Error(`Cannot move from ${source.location} into ${this.location}: different backends.`);
    const target = this.resolve(to);
    // rename(2) replaces an empty folder or a file silently; refuse to replace anything.
    const existing = await this.stat(to);
    if (existing && !(options.replace && existing.isFile)) throw Object.assign(new Error(`${target} exists.`), { code: 'EEXIST' });
    await fsp.rename(source.resolve(from), target);
  }

  /**
   * A file just written is linked on this thread, as rename: a resumable ingest links every file of
   * its export into the stage, and for 50,000 files that took 4.3 s of CPU through libuv's pool,
   * 1.6-1.8 s here. Other files (an existing object's tree, linked by a commit by exchange) go
   * through the pool, several at once: their inodes may have to be read from disk first. A put of
   * one file into a 1,000,000-file object on a cold cache took 148-155 s linked here against
   * 122-130 s through the pool (load 14-25), for 8 s less CPU.
   */
  linkFrom(source: Storage, from: string, to: string, options?: { justWritten?: boolean }): Promise<void> {
    try {
      if (!(source instanceof FileSystemStorage))
        throw new Error(`Cannot link from ${source.location} into ${this.location}: different backends.`);
      if (!options?.justWritten) return fsp.link(source.resolve(from), this.resolve(to));
      linkSync(source.resolve(from), this.resolve(to));
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err);
    }
  }

  async exchangeWith(source: Storage, from: string, to: string): Promise<boolean> {
    if (!(source instanceof FileSystemStorage)) return false;
    return exchangePaths(source.resolve(from), this.resolve(to));
  }

  async canMoveFrom(other: Storage): Promise<boolean> {
    if (!(other instanceof FileSystemStorage)) return false;
    const [a, b] = await Promise.all([fsp.stat(this.location), fsp.stat(other.location)]);
    return a.dev === b.dev;
  }
}
