/**
 * The root's list as the reading room makes it (Room.listObjects): started when serve starts,
 * the first page shown from the objects found so far while the rest is listed, and the listing
 * held while that page is made. The page's own reads (an inventory and its sidecar per object
 * shown) and the listing's pages of keys share one thread: on Ceph RGW the first page of a root
 * of 1,000 objects took 0.8 s of CPU beside the listing, 0.4 s alone.
 */
import { isObjectStore } from '../ocfl/storage/storage.js';
import type { OcflStorageRoot } from '../ocfl/root.js';
import { sortedObjects, type IndexedObject, type ObjectIndex } from '../archive/browse.js';

/** A first request waiting for `wanted` objects to be found; `filled` is called, once, when they are. */
interface Waiter {
  wanted: number;
  filled: () => void;
}

/** The objects found so far while a root is listed (a 0003 root), and the first requests waiting for them. */
export interface Found {
  found: IndexedObject[];
  waiting: Set<Waiter>;
}

/** The root's objects as listed at `at`: `ready` once listed (or the list before it, while it is listed again). */
export interface Listing extends Found {
  at: number;
  index: Promise<ObjectIndex>;
  ready: ObjectIndex | undefined;
  /** the first page made from the objects found so far has held the listing (the next ones, its reloads, do not) */
  firstPageHeld: boolean;
}

/** Objects found: added to the listing, and the first requests they fill told at once. */
export function addFound(listing: Found, objects: IndexedObject[]): void {
  listing.found.push(...objects);
  for (const w of listing.waiting)
    if (listing.found.length >= w.wanted) {
      listing.waiting.delete(w);
      w.filled();
    }
}

/**
 * How long the first request on a folder root waits for the whole list before it is shown the
 * objects found so far (a root of 10,000 objects is some 23,000 folder listings: 0.5 to 2 s of
 * CPU). On an object store the list of a root worth paging is never whole so soon (Ceph RGW: 1,000
 * objects 0.8 to 2 s): the first objects found are shown at once.
 */
const WHOLE_LIST_WAIT_MS = 300;

/**
 * The root's list once whole, or, from the wait above on, the objects found so far as soon as they
 * are `wanted` (fill the page asked for; said to be partial). `hold` is called at the moment they
 * are found, before any more keys are asked for (the partial page is made first).
 */
export async function firstList(root: OcflStorageRoot, listing: Listing, wanted: number, hold: () => void): Promise<ObjectIndex> {
  const wait = isObjectStore(root.storage) ? 0 : WHOLE_LIST_WAIT_MS;
  const whole = await Promise.race([listing.index, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), wait))]);
  if (whole) return whole;
  let waiter: Waiter | undefined;
  const filled = new Promise<undefined>((resolve) => {
    waiter = {
      wanted,
      filled: () => {
        hold();
        resolve(undefined);
      },
    };
    listing.waiting.add(waiter);
    addFound(listing, []);
  });
  try {
    return (await Promise.race([listing.index, filled])) ?? { objects: sortedObjects([...listing.found]), byLayout: true, partial: true };
  } finally {
    listing.waiting.delete(waiter!);
  }
}

/** What holds the root's listing: while any holder has not let go, it asks for no more keys. */
export class ListingHold {
  private holders = 0;
  private released: { promise: Promise<void>; resolve: () => void } | undefined;

  /** Holds the listing; the function returned lets go (once). */
  take(): () => void {
    this.holders++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.holders === 0 && this.released) {
        this.released.resolve();
        this.released = undefined;
      }
    };
  }

  /** Undefined when nothing holds the listing, else a promise that settles when nothing does. */
  held(): Promise<void> | undefined {
    if (this.holders === 0) return undefined;
    if (!this.released) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.released = { promise, resolve };
    }
    return this.released.promise;
  }
}
