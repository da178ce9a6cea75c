/**
 * Every access the OCFL code (the validator included) and the archive verbs make to stored bytes
 * goes through these interfaces; only the backends touch a disk or a network. They are small
 * capabilities, which a backend offers or not (as ocfl-go's FS, WriteFS and CopyFS):
 *
 * - ReadStorage: stat, list, walk, outline, read a whole small file, stream a byte range. Every backend.
 * - WriteStorage: create a file (streamed, bounded memory), make a folder, delete. Every backend.
 * - FilesystemPublish: the atomic steps of a POSIX filesystem (rename, exchange, hard link, fsync)
 *   that commit.ts builds its crash-safe publication from. The filesystem backend.
 * - ObjectStorePublish: what an object store offers instead: single-key puts that are atomic
 *   (readers see the old or the new bytes whole) and a conditional create. The S3 backend; its
 *   publication order is in commit/object-store.ts.
 *
 * Paths are '/'-separated and relative to the backend's base; none may contain '..'.
 * An object store has no folders: a "folder" exists while some key lies below it, is never
 * empty, and making one is a no-op.
 */
import type { Readable } from 'node:stream';
import { forEachConcurrent } from '../concurrent.js';

export interface StorageStat {
  isFile: boolean;
  isDirectory: boolean;
  size: number;
}

export type EntryKind = 'file' | 'dir' | 'link' | 'other';

export interface StorageEntry {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
  /** 'link' and 'other' (sockets, devices) exist on filesystems only; they are never followed. */
  kind: EntryKind;
}

/** A folder or file of an outline (ReadStorage.outline). */
export interface OutlineEntry {
  /** '/'-separated, relative to the folder outlined */
  path: string;
  isDirectory: boolean;
  /** a folder at the outline's depth whose every key was in the pages read (an object store): its sizes */
  sizes?: OutlineSizes;
}

/** What the keys of a folder weigh, as listed. */
export interface OutlineSizes {
  /** every key below it */
  bytes: number;
  /** each file directly in it, by name */
  files: Map<string, number>;
}

export interface WalkedFile {
  /** '/'-separated path relative to the walk's base. */
  relative: string;
  /** NaN when the walk was asked for no sizes (walk's `sizes: false`, where sizes cost a stat each). */
  size: number;
}

export interface StorageWalk {
  /** Every regular file below the base, sorted by path. */
  files: WalkedFile[];
  /** Folders (relative) holding nothing at all (never on an object store). */
  emptyDirs: string[];
  /** Links and special files (relative): never followed or read. */
  links: string[];
}

export interface ReadStorage {
  /** Human-readable location (a folder path or an s3:// URL), for messages. */
  readonly location: string;
  /** Undefined when nothing is there. Never follows a link at the last component. */
  stat(path: string): Promise<StorageStat | undefined>;
  /**
   * stat of many paths in one call, in their order, where a backend has a cheaper way than one
   * stat after another (statEach uses it when there).
   */
  statMany?(paths: readonly string[]): Promise<Array<StorageStat | undefined>>;
  /** Entries of a folder (unsorted); rejects with code ENOENT when there is none. */
  list(path: string): Promise<StorageEntry[]>;
  /**
   * Every file below a folder with its size, in one call (an object store lists a prefix at once).
   * `sizes: false`: a backend whose sizes cost a call per file (the filesystem's lstat) leaves them
   * NaN, for a caller that learns them otherwise (reading every file).
   */
  walk(path: string, options?: { sizes?: boolean }): Promise<StorageWalk>;
  /**
   * The bytes of every file below a folder (links not followed nor counted), without holding its
   * listing: a million-file object's folders of 250,000 files are read a few entries at a time.
   */
  bytesUnder?(path: string): Promise<number>;
  /**
   * What lies at most `depth` levels below a folder (unsorted): the folders at that depth, not
   * what is in them, and the files and empty folders less deep; read many folders at once (the
   * filesystem), or from pages of keys (an object store, s3-outline.ts), not one after another.
   * `onEntries`: told of the entries as they are found, each once, before the promise resolves: an
   * object store page by page (a reader shows the first objects of a root while the rest is
   * listed), a filesystem all at once at the end (a caller outlines its folders one by one). A
   * promise `onEntries` returns holds the next page of keys until it settles: a reader asks for its
   * own first.
   */
  outline(path: string, depth: number, onEntries?: (entries: OutlineEntry[]) => void | Promise<void>): Promise<OutlineEntry[]>;
  /** `highWaterMark`: bytes per read (default 1 MiB). `end` is inclusive, as in fs.createReadStream. */
  readStream(path: string, options?: { start?: number; end?: number; highWaterMark?: number }): Readable;
  /** A whole file; rejects with code ENOENT when missing. */
  readFile(path: string): Promise<Buffer>;
  /**
   * The local filesystem path of a storage path, where the backend is a local folder: worker
   * threads then hash it themselves, and the SQLite file of a checkout can be opened in place.
   */
  localPath?(path: string): string;
  /**
   * The whole file read into `buffer` piece after piece, each piece valid until the next is asked
   * for: a reader that copies what it keeps reads a large file without a new buffer per piece (a
   * stream's pieces are garbage until the next collection, ~60 MB of a million-file inventory).
   */
  readInto?(path: string, buffer: Buffer): AsyncIterable<Buffer>;
}

export interface WritableFile {
  write(chunk: Uint8Array): Promise<void>;
  /** Closes the file, first flushing its bytes to stable storage when opened durable. */
  close(): Promise<void>;
  /** Closes and removes a file that will not be completed. */
  abort(): Promise<void>;
}

export interface WriteStorage extends ReadStorage {
  /**
   * Creates parent folders as needed; refuses to overwrite when `exclusive`. close() flushes the
   * bytes to stable storage unless `durable` is false (the caller then calls fsyncFile later,
   * e.g. for many files at once). `direct` asks to write around the page cache where the
   * filesystem allows it (large content written once; see direct-write.ts). On an object store
   * the bytes become visible, whole, at close().
   */
  openWrite(path: string, options?: { exclusive?: boolean; durable?: boolean; direct?: boolean }): Promise<WritableFile>;
  /** A no-op on an object store (no folders). */
  mkdir(path: string): Promise<void>;
  /** Removes a file or a whole folder; nothing there is no error. */
  remove(path: string): Promise<void>;
}

export interface FilesystemPublish {
  /**
   * Makes every file and folder written through this storage so far durable in one call, where
   * the backend can (syncfs(2)); resolves false where it cannot, and the caller then flushes file
   * by file (fsyncFile, fsyncDir). Rejects when a write since this storage's first write was lost.
   */
  syncAll(): Promise<boolean>;
  /** Flushes a written file's bytes to stable storage. */
  fsyncFile(path: string): Promise<void>;
  /** Atomic rename within the backend (same filesystem). */
  rename(from: string, to: string): Promise<void>;
  /** Makes a folder's entries (after create, rename, remove) durable. */
  fsyncDir(path: string): Promise<void>;
  /**
   * Moves `from` of another storage (a workspace on the same backend) to `to` here, atomically:
   * a rename on a filesystem. Fails when `to` exists (EEXIST / ENOTEMPTY for a folder), unless
   * `replace` is set and both are files (the atomic replacement of an inventory).
   */
  moveFrom(source: Storage, from: string, to: string, options?: { replace?: boolean }): Promise<void>;
  /**
   * Hard-links file `from` of another storage on the same filesystem to `to` here (its folder must
   * exist). `justWritten`: the file was written moments ago by this process (its inode in memory).
   */
  linkFrom(source: Storage, from: string, to: string, options?: { justWritten?: boolean }): Promise<void>;
  /**
   * Swaps `to` here with `from` of another storage on the same filesystem in one atomic step
   * (both exist; folders or files). Resolves false, changing nothing, where the platform or the
   * filesystem cannot exchange.
   */
  exchangeWith(source: Storage, from: string, to: string): Promise<boolean>;
  /** Whether moveFrom from `other` is an atomic rename (same backend, same device). */
  canMoveFrom(other: Storage): Promise<boolean>;
}

/** A conditional write's outcome: an ETag-like version token, or why not. */
export type ConditionalPut = { ok: true; etag: string } | { ok: false; reason: 'exists' | 'changed' | 'unknown' };

export interface ObjectStorePublish {
  readonly objectStore: true;
  /** Puts a small object whole; readers see the old bytes or these, never a mix. */
  putBytes(path: string, bytes: Uint8Array): Promise<void>;
  /** Creates `path` only if absent (If-None-Match: *); 'exists' when another got there first. */
  putIfAbsent(path: string, bytes: Uint8Array): Promise<ConditionalPut>;
  /** Replaces `path` only if its version token is still `etag` (If-Match). */
  putIfMatch(path: string, bytes: Uint8Array, etag: string): Promise<ConditionalPut>;
  /** Bytes and version token of a small object; undefined when missing. */
  getWithTag(path: string): Promise<{ bytes: Buffer; etag: string; lastModified: Date } | undefined>;
  /** Aborts the multipart uploads begun below a folder and never completed (a killed writer's); how many. */
  abortUploads(path: string): Promise<number>;
  /** Copies a file of a local storage (a staged version) to `to` here, streamed (multipart when large). */
  upload(source: ReadStorage, from: string, to: string, size: number): Promise<void>;
}

/** The POSIX storage the commit protocol of commit.ts needs: a local folder. */
export type Storage = WriteStorage & FilesystemPublish;

/** Where a storage root can live: a local folder or an object store. */
export type RootStorage = Storage | (WriteStorage & ObjectStorePublish);

export function isObjectStore(s: ReadStorage): s is WriteStorage & ObjectStorePublish {
  return (s as Partial<ObjectStorePublish>).objectStore === true;
}

/** A path below a storage, as messages show it (the location and the path, '/'-joined). */
export function describePath(storage: ReadStorage, path: string): string {
  return path === '' ? storage.location : `${storage.location}/${path}`;
}

/** An empty, '.' or '..' segment (so also a leading or trailing '/'), or a NUL. */
const NOT_PLAIN = /(?:^|\/)\.{0,2}(?:\/|$)|\0/;

/**
 * Refuses a storage path that could leave the backend's base ('' and '.' are the base itself).
 * One regular expression instead of splitting: it runs for every file of a million-file object.
 */
export function assertPlainPath(rel: string): void {
  if (rel !== '' && rel !== '.' && NOT_PLAIN.test(rel)) throw new Error(`Storage path "${rel}" is not a plain relative path.`);
}

/** Joins storage path parts, skipping empty ones. */
export function joinPath(...parts: string[]): string {
  let out = '';
  for (const p of parts) if (p !== '' && p !== '.') out = out === '' ? p : `${out}/${p}`;
  return out;
}

/** Requests in flight for backends without statMany (an object store: one round trip each). */
const STATS_AT_ONCE = 32;

/** The stat of each path, in their order: the backend's statMany, else many stats at once. */
export async function statEach(storage: ReadStorage, paths: readonly string[]): Promise<Array<StorageStat | undefined>> {
  if (storage.statMany) return storage.statMany(paths);
  const out = new Array<StorageStat | undefined>(paths.length);
  await forEachConcurrent(paths, STATS_AT_ONCE, async (p, i) => {
    out[i] = await storage.stat(p);
  });
  return out;
}
