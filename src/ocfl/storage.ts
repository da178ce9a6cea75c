/**
 * Every access the OCFL code makes to stored bytes goes through this interface, so that an
 * object-store backend can follow the filesystem one without touching the rest.
 * Paths are '/'-separated and relative to the backend's base folder; none may contain '..'.
 */
import type { Readable } from 'node:stream';

export interface StorageStat {
  isFile: boolean;
  isDirectory: boolean;
  size: number;
}

export interface StorageEntry {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
}

export interface WritableFile {
  write(chunk: Uint8Array): Promise<void>;
  /** Closes the file, first flushing its bytes to stable storage when opened durable. */
  close(): Promise<void>;
  /** Closes and removes a file that will not be completed. */
  abort(): Promise<void>;
}

export interface Storage {
  /** Human-readable location (a folder path or a bucket URL), for messages. */
  readonly location: string;
  stat(path: string): Promise<StorageStat | undefined>;
  /** `highWaterMark`: bytes per read (default 1 MiB; less for many small files, each stream allocating one buffer). */
  readStream(path: string, options?: { start?: number; end?: number; highWaterMark?: number }): Readable;
  readFile(path: string): Promise<Buffer>;
  /**
   * Creates parent folders as needed; refuses to overwrite when `exclusive`. close() flushes the
   * bytes to stable storage unless `durable` is false (the caller then calls fsyncFile later,
   * e.g. for many files at once). `direct` asks to write around the page cache where the
   * filesystem allows it (large content written once; see direct-write.ts).
   */
  openWrite(path: string, options?: { exclusive?: boolean; durable?: boolean; direct?: boolean }): Promise<WritableFile>;
  /**
   * Makes every file and folder written through this storage so far durable in one call, where
   * the backend can (syncfs(2)); resolves false where it cannot, and the caller then flushes file
   * by file (fsyncFile, fsyncDir). Rejects when a write since this storage's first write was lost.
   */
  syncAll(): Promise<boolean>;
  /** The local filesystem path of a storage path, where the backend is a local folder (for worker threads that write files themselves). */
  localPath?(path: string): string;
  /** Flushes a written file's bytes to stable storage. */
  fsyncFile(path: string): Promise<void>;
  list(path: string): Promise<StorageEntry[]>;
  mkdir(path: string): Promise<void>;
  /** Atomic rename within the backend (same filesystem). */
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
  /** Makes a folder's entries (after create, rename, remove) durable. */
  fsyncDir(path: string): Promise<void>;
  /**
   * Moves `from` of another storage (a workspace on the same backend) to `to` here, atomically:
   * a rename on a filesystem. Fails when `to` exists (EEXIST / ENOTEMPTY for a folder), unless
   * `replace` is set and both are files (the atomic replacement of an inventory).
   */
  moveFrom(source: Storage, from: string, to: string, options?: { replace?: boolean }): Promise<void>;
  /** Hard-links file `from` of another storage on the same filesystem to `to` here (its folder must exist). */
  linkFrom(source: Storage, from: string, to: string): Promise<void>;
  /**
   * Swaps `to` here with `from` of another storage on the same filesystem in one atomic step
   * (both exist; folders or files). Resolves false, changing nothing, where the platform or the
   * filesystem cannot exchange.
   */
  exchangeWith(source: Storage, from: string, to: string): Promise<boolean>;
  /** Whether moveFrom from `other` is an atomic rename (same backend, same device). */
  canMoveFrom(other: Storage): Promise<boolean>;
}
