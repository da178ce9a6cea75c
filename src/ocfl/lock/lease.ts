/**
 * Object locks for many hosts on an object store: one small lease object per object id, taken by
 * a conditional create and kept alive by conditional replacement.
 *
 * - Take: PUT the lease with `If-None-Match: *`. Exactly one of any number of racers succeeds (the
 *   store decides; measured on Ceph RGW 16.2: one winner of 20, every round).
 * - Held elsewhere: read the lease. While its lease time runs, the answer is LockHeldError at once.
 * - Expired (its owner died, or stalled past the lease): take it over with `If-Match: <its ETag>`,
 *   so of several takers only one replaces the version they all read.
 * - Renew: every LEASE/3 the holder replaces its own lease with `If-Match: <its last ETag>` and a new
 *   expiry. A renewal refused with 412 means another took it over: the lock is lost, and
 *   assertHeld() fails, so the writer publishes nothing more (commit checks it before every switch).
 * - A conditional PUT answered with 5xx or not at all (RGW answers a lost If-Match race with 500)
 *   may have happened or not: the lease is read back, and it is ours only if it carries our token.
 * - Release: read the lease; delete it only while it is still ours. Object stores ignore a
 *   conditional DELETE (RGW does), so there is a window between that read and the delete; it only
 *   matters if our lease expired meanwhile, which renewal prevents while the process lives.
 *
 * Expiry is judged by the reader's clock against the time written in the lease; hosts whose
 * clocks differ by more than SKEW_MS could take a live lease over, so the lease is long.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { LockHeldError, SiardOcflError } from '../../errors.js';
import { digestSync } from '../digest.js';
import type { LockProvider, ObjectLock } from './lock.js';
import type { ObjectStorePublish, WriteStorage } from '../storage/storage.js';

const DEFAULT_LEASE_MS = 60_000;
/** Creations of a lease tried while none stands and ours is not confirmed, 0.2 s apart, doubling. */
const CLAIM_TRIES = 5;
const CLAIM_BACKOFF_MS = 200;
/** Clock difference between hosts tolerated before a lease counts as expired. */
const SKEW_MS = 5_000;

interface Lease {
  id: string;
  token: string;
  host: string;
  pid: number;
  /** ms since the epoch, by the holder's clock */
  expires: number;
  leaseMs: number;
}

/** Who holds a lease and until when, for the message that refuses a second writer. */
function holderWords(lease: Lease): string {
  return `pid ${lease.pid} on ${lease.host}, lease until ${new Date(lease.expires).toISOString()}`;
}

function parseLease(bytes: Buffer): Lease | undefined {
  try {
    const v = JSON.parse(bytes.toString('utf8')) as Lease;
    return typeof v.token === 'string' && typeof v.expires === 'number' ? v : undefined;
  } catch {
    return undefined;
  }
}

export class LeaseLockProvider implements LockProvider {
  constructor(
    readonly store: WriteStorage & ObjectStorePublish,
    /** Folder (in the store) of the lease objects. */
    readonly dir: string,
    readonly leaseMs = Number(process.env.SIARD_OCFL_LEASE_MS) || DEFAULT_LEASE_MS,
  ) {}

  /**
   * The ids named by the leases in the store: writers at work, or crashed ones whose leftovers the
   * next writer (or repair) settles; a crashed creation is found only this way.
   */
  async ids(): Promise<string[]> {
    const entries = await this.store.list(this.dir).catch(() => []);
    const ids: string[] = [];
    for (const e of entries) {
      if (!e.isFile || !e.name.endsWith('.lease')) continue;
      const lease = await this.store.getWithTag(`${this.dir}/${e.name}`).catch(() => undefined);
      const id = lease && parseLease(lease.bytes)?.id;
      if (typeof id === 'string') ids.push(id);
    }
    return ids;
  }

  leasePath(id: string): string {
    return `${this.dir}/${digestSync('sha256', id)}.lease`;
  }

  /**
   * Writes our lease: created when there is none, taken over when the one there has expired; throws
   * `held()` when a live lease stands. An answer that may hide a success is settled by `readBack`.
   */
  private async claim(
    path: string,
    body: () => Buffer,
    readBack: () => Promise<string | undefined>,
    held: (current?: Lease) => LockHeldError,
  ): Promise<{ etag: string; tookOver: boolean }> {
    for (let attempt = 1; ; attempt++) {
      const created = await this.store.putIfAbsent(path, body());
      let etag = created.ok ? created.etag || (await readBack()) : created.reason === 'unknown' ? await readBack() : undefined;
      if (etag) return { etag, tookOver: false };
      const current = await this.store.getWithTag(path);
      if (!current) {
        // No lease, and ours not written: it was released between our create and our read, or the
        // store failed our create (a loaded RGW answers 500 or 503). Either way, try again.
        if (attempt < CLAIM_TRIES) {
          await sleep(CLAIM_BACKOFF_MS * 2 ** (attempt - 1));
          continue;
        }
        if (created.ok || created.reason !== 'unknown') throw held();
        const said = `The store ${this.store.location} did not take the lease ${path} in ${CLAIM_TRIES} tries; nothing was written.`;
        throw new SiardOcflError(said, { code: 'STORAGE_UNAVAILABLE' });
      }
      const owner = parseLease(current.bytes);
      if (owner && owner.expires + SKEW_MS > Date.now()) throw held(owner);
      const taken = await this.store.putIfMatch(path, body(), current.etag);
      etag = taken.ok ? taken.etag || (await readBack()) : taken.reason === 'unknown' ? await readBack() : undefined;
      if (!etag) throw held(owner);
      return { etag, tookOver: true };
    }
  }

  async acquire(id: string): Promise<ObjectLock> {
    const path = this.leasePath(id);
    const token = randomUUID();
    const lease = (): Lease => ({
      id,
      token,
      host: os.hostname(),
      pid: process.pid,
      expires: Date.now() + this.leaseMs,
      leaseMs: this.leaseMs,
    });
    const body = () => Buffer.from(JSON.stringify(lease()));
    const held = (current?: Lease) =>
      new LockHeldError(
        `Object "${id}" is being written by another process${current ? ` (${holderWords(current)})` : ''} ` +
          `(lease ${this.store.location}/${path}).`,
      );
    /** After an answer that may or may not have been a success: ours only if the lease names our token. */
    const readBack = async (): Promise<string | undefined> => {
      const now = await this.store.getWithTag(path);
      return now && parseLease(now.bytes)?.token === token ? now.etag : undefined;
    };

    const claimed = await this.claim(path, body, readBack, held);
    let etag: string | undefined = claimed.etag;
    const tookOver = claimed.tookOver;

    let lost: Error | undefined;
    let released = false;
    let renewing: Promise<void> = Promise.resolve();
    // Counted from before the request that wrote it: the lease surely holds until then, less a margin
    // for the time a commit step takes after asking.
    const margin = Math.min(SKEW_MS, this.leaseMs / 4);
    let validUntil = Date.now() + this.leaseMs;
    const renew = async () => {
      if (released || lost) return;
      const sentAt = Date.now();
      const r = await this.store.putIfMatch(path, body(), etag!).catch(() => ({ ok: false as const, reason: 'unknown' as const }));
      let ok = r.ok;
      if (r.ok) etag = r.etag || (await readBack().catch(() => undefined)) || etag;
      else if (r.reason === 'unknown') {
        // The answer may hide a success: the lease read back says whose it is now.
        const now = await this.store.getWithTag(path).catch(() => 'unreadable' as const);
        const holder = now === 'unreadable' ? undefined : now && parseLease(now.bytes)?.token;
        if (now !== 'unreadable' && holder === token) {
          etag = now!.etag;
          ok = true;
        } else if (now !== 'unreadable') lost = new Error(`another process took over the lease ${this.store.location}/${path}`);
        // Unreadable: tried again at the next tick; the lease stands until validUntil.
      } else lost = new Error(`another process took over the lease ${this.store.location}/${path}`);
      if (ok) validUntil = sentAt + this.leaseMs;
    };
    const timer = setInterval(
      () => {
        renewing = renewing.then(renew, renew);
      },
      Math.max(100, Math.floor(this.leaseMs / 3)),
    );
    timer.unref();

    return {
      id,
      tookOverDeadLock: tookOver,
      assertHeld() {
        if (!lost && Date.now() > validUntil - margin) lost = new Error('the lease ran out before it could be renewed');
        if (lost) throw new LockHeldError(`The lock on object "${id}" was lost (${lost.message}); nothing was committed.`);
      },
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(timer);
        await renewing.catch(() => {});
        if (lost) return;
        const mine = await readBack().catch(() => undefined);
        if (mine) await this.store.remove(path);
      },
    };
  }
}
