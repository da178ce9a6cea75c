/**
 * Durability work started while a version is still being staged, so the disk writes during the
 * export instead of taking every byte at commit: large placed files are fsynced a few at a time,
 * and every SYNC_AHEAD_BYTES stored one syncfs of the workspace's filesystem runs in the
 * background. Commit still makes the whole stage durable (fsyncTree) before any rename; this only
 * moves work earlier. A failure is kept and reported by settle(): Linux reports a writeback error
 * once, so the later fsync or syncfs might not see it again.
 */
import type { Storage } from '../storage/storage.js';

/** Placed files flushed at once: enough to keep the disk busy, few enough to leave libuv's pool (4 threads) to the writes. */
const EARLY_FLUSHES = 2;
/** Bytes stored between two background syncfs calls (put of 1 GB of small files waited ~1 s for them at commit). */
const SYNC_AHEAD_BYTES = 64 * 1024 * 1024;

export class EarlyFlushes {
  private readonly queue: string[] = [];
  private readonly flushing = new Set<Promise<void>>();
  /** The first failure, reported by settle(true). */
  private failure: Error | undefined;
  /** Bytes stored since the last background sync began, and that sync while it runs. */
  private unsyncedBytes = 0;
  private syncing: Promise<void> | undefined;

  constructor(private readonly workspace: Storage) {}

  /** Starts flushing a placed file (path in the workspace) once fewer than EARLY_FLUSHES run. */
  file(target: string): void {
    this.queue.push(target);
    this.pump();
  }

  /**
   * Counts bytes stored; past SYNC_AHEAD_BYTES, one syncfs in the background (never two at once;
   * nothing where the storage has no syncfs).
   */
  stored(size: number): void {
    this.unsyncedBytes += size;
    if (this.unsyncedBytes < SYNC_AHEAD_BYTES || this.syncing) return;
    this.unsyncedBytes = 0;
    const running: Promise<void> = this.workspace
      .syncAll()
      .then(
        () => {},
        (err: Error) => {
          this.failure ??= err;
        },
      )
      .finally(() => {
        if (this.syncing === running) this.syncing = undefined;
      });
    this.syncing = running;
  }

  /**
   * Drops the flushes not yet started (commit's fsyncTree covers them) and waits for the others;
   * throws the first failure when asked (commit), not when the version is dropped (abort).
   */
  async settle(throwFailure: boolean): Promise<void> {
    this.queue.length = 0;
    while (this.flushing.size > 0) await Promise.all([...this.flushing]);
    await this.syncing;
    if (throwFailure && this.failure) throw this.failure;
  }

  private pump(): void {
    while (this.flushing.size < EARLY_FLUSHES && this.queue.length > 0) {
      const target = this.queue.shift()!;
      const p: Promise<void> = this.workspace
        .fsyncFile(target)
        .catch((err: NodeJS.ErrnoException) => {
          // A file dropped from the stage meanwhile (replaced, removed) needs no flushing.
          if (err.code !== 'ENOENT') this.failure ??= err;
        })
        .finally(() => {
          this.flushing.delete(p);
          this.pump();
        });
      this.flushing.add(p);
    }
  }
}
