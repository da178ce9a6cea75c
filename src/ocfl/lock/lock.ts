/**
 * Writers of the same object exclude each other; a held lock is an immediate LockHeldError,
 * never a wait. The file lock (proper-lockfile: an atomic mkdir, its mtime refreshed while held)
 * lives in the workspace, outside the storage hierarchy, one per object named by the digest of
 * its id. A lock whose owner died is taken over: at once when the owner was a process on this
 * host that no longer exists, otherwise when proper-lockfile finds it stale (mtime too old).
 * Behind the LockProvider interface so a database row lock can serve several hosts later.
 *
 * Taking a lock is two steps (proper-lockfile's mkdir, then our owner file inside it); a taker
 * killed between them would leave a lock nobody can attribute. So a taker first leaves an intent
 * file `<lock>.intent-<pid>` beside the lock and removes it once the owner file is written: an
 * owner-less lock whose intents all belong to dead processes is dead at once.
 */
import fs, { promises as fsp, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { LockHeldError } from '../../errors.js';
import { digestSync } from '../digest.js';
import { processAlive } from '../../process-alive.js';

export interface ObjectLock {
  readonly id: string;
  /** True when a lock left by a dead owner was removed to take this one. */
  readonly tookOverDeadLock?: boolean;
  /** Throws when the lock was lost (e.g. the process was stalled past the stale time). */
  assertHeld(): void;
  release(): Promise<void>;
}

export interface LockProvider {
  acquire(id: string): Promise<ObjectLock>;
}

// A live holder refreshes the lock's mtime every UPDATE_MS; only a lock untouched for STALE_MS
// (owner on another host, or a pid reused) is taken over by age. Generous, because a loaded
// machine can delay the refresh timer, and a holder whose lock was declared stale must stop.
const STALE_MS = 60_000;
const UPDATE_MS = 5_000;
const OWNER = 'owner.json';
/** How long an owner-less lock with no intent file is left alone (a taker of an older version). */
const OWNERLESS_MS = 2_000;
const INTENT = '.intent-';
/** Suffix of a lock folder renamed away on release or take-over, before it is removed. */
const GRAVE = '.grave-';

/** Lock folders whose owner file is being written, with the promise that settles when it is. */
const ownerPending = new Map<string, Promise<void>>();

/**
 * The file system proper-lockfile works through, with one change: its refresh (a stat comparing
 * the folder's mtime with the one it set) waits while our owner file is being written into the
 * folder. Otherwise a machine slow enough to stretch that write past the first refresh made a
 * writer believe its own lock lost ("Unable to update lock within the stale threshold").
 */
const lockFs: typeof fs = {
  ...fs,
  stat: ((file: string, ...rest: unknown[]) => {
    const pending = ownerPending.get(file);
    if (!pending) return (fs.stat as (...a: unknown[]) => void)(file, ...rest);
    void pending.then(() => (fs.stat as (...a: unknown[]) => void)(file, ...rest));
  }) as typeof fs.stat,
};

interface Owner {
  pid: number;
  host: string;
}

/** Locks this process holds, removed on a normal exit even if a caller forgot to release them. */
const held = new Set<string>();
process.once('exit', () => {
  for (const lockPath of held) rmSync(lockPath, { recursive: true, force: true });
});

export class FileLockProvider implements LockProvider {
  constructor(readonly lockDir: string) {}

  lockPath(id: string): string {
    return path.join(this.lockDir, digestSync('sha256', id) + '.lock');
  }

  acquire(id: string): Promise<ObjectLock> {
    return this.acquireAt(this.lockPath(id), id);
  }

  /**
   * The lock named by a key (the sha256 of an id, as lockPath names it), for leftovers of a
   * writer whose id is not known any more (a crashed creation of an object). `label` names it.
   */
  acquireKey(key: string, label: string): Promise<ObjectLock> {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error(`Not a lock key: ${key}`);
    return this.acquireAt(path.join(this.lockDir, `${key}.lock`), label);
  }

  /** Keys of the locks present in the lock folder (held, or left by dead owners). */
  async keys(): Promise<string[]> {
    const names = await fsp.readdir(this.lockDir).catch(() => [] as string[]);
    return names.map((n) => /^([0-9a-f]{64})\.lock$/.exec(n)?.[1]).filter((k): k is string => k !== undefined);
  }

  private async acquireAt(lockPath: string, id: string): Promise<ObjectLock> {
    await fsp.mkdir(this.lockDir, { recursive: true });
    const intent = `${lockPath}${INTENT}${process.pid}`;
    await fsp.writeFile(intent, os.hostname());
    try {
      const lock = await this.acquireWithIntent(lockPath, id);
      await this.pruneDeadIntents();
      return lock;
    } finally {
      await fsp.rm(intent, { force: true });
    }
  }

  /**
   * Removes what killed processes left beside the locks: intent files they could not remove, and
   * lock folders they renamed away (released or taken over) but could not delete.
   */
  private async pruneDeadIntents(): Promise<void> {
    for (const name of await fsp.readdir(this.lockDir).catch(() => [] as string[])) {
      const file = path.join(this.lockDir, name);
      const grave = /\.grave-(\d+)-\d+$/.exec(name);
      if (grave) {
        if (Number(grave[1]) !== process.pid && !processAlive(Number(grave[1]))) await fsp.rm(file, { recursive: true, force: true });
        continue;
      }
      const at = name.lastIndexOf(INTENT);
      const pid = at < 0 ? NaN : Number(name.slice(at + INTENT.length));
      if (!Number.isSafeInteger(pid) || pid === process.pid) continue;
      const host = await fsp.readFile(file, 'utf8').catch(() => undefined);
      if ((host === '' || host === os.hostname()) && !processAlive(pid)) await fsp.rm(file, { force: true });
    }
  }

  private async acquireWithIntent(lockPath: string, id: string): Promise<ObjectLock> {
    let release: () => Promise<void>;
    let tookOverDeadLock = false;
    try {
      release = await this.tryLock(lockPath);
    } catch (err) {
      const takeover = await this.takeOverIfDead(lockPath);
      if (!takeover) throw this.heldError(id, lockPath, err);
      tookOverDeadLock = takeover === 'removed';
      try {
        release = await this.tryLock(lockPath);
      } catch (err2) {
        throw this.heldError(id, lockPath, err2);
      }
    }
    let compromised: Error | undefined;
    this.onCompromised.set(lockPath, (err) => (compromised = err));
    // Set before any timer can run: proper-lockfile's first refresh must not see the mtime our
    // owner file changes (see lockFs).
    let ownerWritten!: () => void;
    ownerPending.set(lockPath, new Promise<void>((resolve) => (ownerWritten = resolve)));
    try {
      // Writing into the lock folder changes its mtime, which proper-lockfile checks as its own
      // token before each refresh: put the mtime back.
      const taken = await fsp.stat(lockPath);
      await fsp.writeFile(path.join(lockPath, OWNER), JSON.stringify({ pid: process.pid, host: os.hostname() } satisfies Owner));
      await fsp.utimes(lockPath, taken.atime, taken.mtime);
    } finally {
      ownerPending.delete(lockPath);
      ownerWritten();
    }
    held.add(lockPath);
    return {
      id,
      tookOverDeadLock,
      assertHeld() {
        if (compromised) throw new LockHeldError(`The lock on object "${id}" was lost (${compromised.message}); nothing was committed.`);
      },
      release: async () => {
        held.delete(lockPath);
        this.onCompromised.delete(lockPath);
        // One rename frees the lock: emptying it first for proper-lockfile's rmdir would leave,
        // if we were killed in between, an owner-less lock that blocks the next writer.
        const grave = `${lockPath}${GRAVE}${process.pid}-${Date.now()}`;
        await fsp.rename(lockPath, grave).catch(() => {});
        await release().catch(() => {});
        await fsp.rm(grave, { recursive: true, force: true });
      },
    };
  }

  private readonly onCompromised = new Map<string, (err: Error) => void>();

  private tryLock(lockPath: string): Promise<() => Promise<void>> {
    return lockfile.lock(lockPath, {
      lockfilePath: lockPath,
      realpath: false,
      retries: 0,
      stale: STALE_MS,
      update: UPDATE_MS,
      fs: lockFs,
      onCompromised: (err) => this.onCompromised.get(lockPath)?.(err),
    });
  }

  /**
   * Removes a lock whose owner is gone ('removed'); 'gone' when it was released meanwhile; false
   * when it is held. Atomic: only one taker wins the rename.
   */
  private async takeOverIfDead(lockPath: string): Promise<'removed' | 'gone' | false> {
    let stat;
    try {
      stat = await fsp.stat(lockPath);
    } catch {
      return 'gone'; // released meanwhile: try again
    }
    let dead = stat.mtimeMs < Date.now() - STALE_MS;
    if (!dead) {
      try {
        const owner = JSON.parse(await fsp.readFile(path.join(lockPath, OWNER), 'utf8')) as Owner;
        dead = owner.host === os.hostname() && !processAlive(owner.pid);
      } catch {
        // No (complete) owner file: its taker is between mkdir and writing the owner file, or was
        // killed there. Its intent file says which: the lock is alive while any taker is.
        const takers = await this.otherTakers(lockPath);
        if (takers === 'alive') return false;
        if (takers === 'none' && stat.mtimeMs >= Date.now() - OWNERLESS_MS) return false;
        dead = true;
      }
    }
    if (!dead) return false;
    const grave = `${lockPath}${GRAVE}${process.pid}-${Date.now()}`;
    try {
      await fsp.rename(lockPath, grave);
    } catch {
      return false;
    }
    // Another taker may have replaced the dead lock by its own live one between our stat and rename.
    if ((await fsp.stat(grave)).ino !== stat.ino) {
      await fsp.rename(grave, lockPath).catch(() => {});
      return false;
    }
    await fsp.rm(grave, { recursive: true, force: true });
    return 'removed';
  }

  /**
   * Whether another process announced it is taking this lock and still lives: 'alive', 'dead'
   * (announcements only from dead processes, which are removed), or 'none'. A taker on another
   * host (shared filesystem) cannot be checked and counts as alive.
   */
  private async otherTakers(lockPath: string): Promise<'alive' | 'dead' | 'none'> {
    const dir = path.dirname(lockPath);
    const prefix = path.basename(lockPath) + INTENT;
    let result: 'alive' | 'dead' | 'none' = 'none';
    for (const name of await fsp.readdir(dir).catch(() => [] as string[])) {
      const pid = Number(name.slice(prefix.length));
      if (!name.startsWith(prefix) || !Number.isSafeInteger(pid) || pid === process.pid) continue;
      const host = await fsp.readFile(path.join(dir, name), 'utf8').catch(() => undefined);
      if (host === undefined) continue; // removed meanwhile
      // An empty file is one whose writer was killed before it wrote its host: ours, judge by pid.
      if ((host !== '' && host !== os.hostname()) || processAlive(pid)) return 'alive';
      await fsp.rm(path.join(dir, name), { force: true });
      result = 'dead';
    }
    return result;
  }

  private heldError(id: string, lockPath: string, cause: unknown): LockHeldError {
    return new LockHeldError(`Object "${id}" is being written by another process (lock ${lockPath}).`, cause);
  }
}
