/**
 * What the reading room's routes share: the storage root, and the versions, archives and listing
 * it keeps open. A page of one version reads that version alone (OcflStorageRoot.openObjectVersion:
 * its state and content paths, not the other states, the manifest or the fixity), and a version
 * never changes, so its reader and archive are kept; which version is the head, and the listing,
 * are checked again after OBJECT_TTL_MS by the inventory sidecars, one small read each, so new
 * versions show and a million-file inventory is not read again while it stays the same. Only
 * the diff of two versions opens the whole object.
 */
import type { Readable } from 'node:stream';
import { AccessCopies } from '../archive/access-copy.js';
import { indexObjects, pageOfObjects, sidecarText, type KnownObject, type ObjectsPage } from '../archive/browse.js';
import { openObjectArchive, type OpenedArchive } from '../archive/open-archive.js';
import type { OcflObjectReader } from '../ocfl/object/object.js';
import type { OcflStorageRoot } from '../ocfl/root.js';
import type { ReadStorage } from '../ocfl/storage/storage.js';
import type { LobSummary } from '../siard/reader/table-summary.js';
import type { SiardReadRow } from '../siard/reader/types.js';
import { addFound, firstList, ListingHold, type Found, type Listing } from './root-listing.js';

/** A refusal or failure with its HTTP status; the message is shown (escaped) in the page. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const OBJECT_TTL_MS = 10_000;
/**
 * Readers kept open: a version of a million files holds some 250 MB (a whole object, for a diff,
 * some 400 MB), so few; an archive holds its version's reader.
 */
const OBJECTS_KEPT = 1;
const VERSIONS_KEPT = 2;
const ARCHIVES_KEPT = 4;
/**
 * Rows found by number, kept: a row's page, then its LOBs (a preview, a download), read the table
 * XML up to the row once (row 500,000 of the million-LOB table: 2 s of CPU each time). Few, as a
 * row may hold large inline values.
 */
const ROWS_KEPT = 4;

/** The head of an object as last read, and what tells whether it is still the head. */
interface KnownHead {
  at: number;
  head: string;
  /** the object root, the inventory's digest and its algorithm (its sidecar names the digest) */
  path: string;
  digest: string | undefined;
  algorithm: string;
}

export class Room {
  private listing: Listing | undefined;
  private readonly listingHold = new ListingHold();
  private readonly known = new Map<string, KnownObject>();
  private readonly objects = new Map<string, { at: number; object: Promise<OcflObjectReader> }>();
  /** light readers of one version each, by `id\nversion` (a version never changes) */
  private readonly versions = new Map<string, Promise<OcflObjectReader>>();
  private readonly heads = new Map<string, Promise<KnownHead>>();
  private readonly archives = new Map<string, Promise<OpenedArchive>>();
  /** rows found by number (foundRow), most recently used last */
  private readonly rows = new Map<string, Promise<SiardReadRow | undefined>>();
  /** LOB counts of tables already counted (by /lobs or an access copy), by archive and table */
  readonly lobCounts = new Map<string, LobSummary>();
  readonly copies: AccessCopies;

  constructor(
    readonly root: OcflStorageRoot,
    /** the reading room's workspace: a folder outside the root for access copies */
    workspace: string,
    /** tables of more rows than this are sorted and searched through an access copy */
    readonly copyFrom: number,
    /** the head and the listing are taken as known this long, then checked again */
    private readonly checkAfterMs = OBJECT_TTL_MS,
  ) {
    this.copies = new AccessCopies(workspace);
  }

  /**
   * A page of the root's objects whose id holds `filter` (browse.ts: only the page's inventories
   * are read). The ids are listed again after checkAfterMs; a list made from folder names is
   * used meanwhile (its rows are read fresh), so no page waits for the folders to be listed again.
   * The first list, before it is whole, gives the objects found so far (`partial`: the page says
   * so, and reloads itself) as soon as they fill the page asked for (root-listing.ts). The listing
   * asks for no more keys while the first such page is made.
   */
  async listObjects(filter: string, offset: number, limit: number): Promise<ObjectsPage> {
    const listing = this.startListing();
    let release: (() => void) | undefined;
    try {
      const wanted = filter === '' ? offset + limit : Infinity;
      // The first page of a partial list holds the listing while its inventories are read (later ones, reloads, do not).
      const hold = () => {
        if (listing.firstPageHeld) return;
        listing.firstPageHeld = true;
        release = this.listingHold.take();
      };
      const index = listing.ready ?? (await firstList(this.root, listing, wanted, hold));
      return await pageOfObjects(this.root, index, filter, offset, limit, this.known);
    } finally {
      release?.();
    }
  }

  /** The root's listing, started now if there is none or it is older than checkAfterMs (serve starts it at once). */
  startListing(): Listing {
    if (this.listing && Date.now() - this.listing.at <= this.checkAfterMs) return this.listing;
    const stale = this.listing?.ready?.byLayout ? this.listing.ready : undefined;
    const seen: Found = { found: [], waiting: new Set() };
    const index = indexObjects(
      this.root,
      this.known,
      stale
        ? undefined
        : (objects) => {
            addFound(seen, objects);
            return this.listingHold.held();
          },
    );
    const listing: Listing = { at: Date.now(), index, ready: stale, firstPageHeld: false, ...seen };
    this.listing = listing;
    listing.index.then(
      (index) => {
        listing.ready = index;
        listing.found.length = 0;
      },
      () => {
        if (this.listing === listing) this.listing = undefined;
      },
    );
    return listing;
  }

  /** The whole object (every version's state): for what compares versions (the diff). */
  async object(id: string): Promise<OcflObjectReader> {
    const kept = this.objects.get(id);
    if (kept && Date.now() - kept.at < this.checkAfterMs) return kept.object;
    if (kept) {
      // The sidecar names the digest of the current inventory: unchanged, the reader already held is current.
      const o = await kept.object;
      if (await sameInventory(o.storage, o.path, o.digestAlgorithm, o.inventoryDigest)) {
        kept.at = Date.now();
        return o;
      }
    }
    const entry = { at: Date.now(), object: this.root.openObject(id) };
    this.objects.delete(id);
    this.objects.set(id, entry);
    entry.object.catch(() => this.objects.delete(id));
    if (this.objects.size > OBJECTS_KEPT) this.objects.delete(this.objects.keys().next().value!);
    return entry.object;
  }

  /**
   * The row `key` names (its object, version, table and number: a version never changes), found by
   * `find` unless one of the last ROWS_KEPT rows asked for; requests at once share one search.
   */
  foundRow(key: string, find: () => Promise<SiardReadRow | undefined>): Promise<SiardReadRow | undefined> {
    let found = this.rows.get(key);
    if (found) this.rows.delete(key);
    else {
      found = find();
      const kept = found;
      kept.catch(() => {
        if (this.rows.get(key) === kept) this.rows.delete(key);
      });
    }
    this.rows.set(key, found);
    if (this.rows.size > ROWS_KEPT) this.rows.delete(this.rows.keys().next().value!);
    return found;
  }

  /** Whether a head of the object was read (so access copies of its versions may exist). */
  knowsHead(id: string): boolean {
    return this.heads.has(id);
  }

  /**
   * The head version's name: read with the head's reader (kept as that version's), then taken
   * as known for OBJECT_TTL_MS and while the inventory sidecar names the same digest.
   */
  async head(id: string): Promise<string> {
    const kept = this.heads.get(id);
    const before = kept && (await kept.catch(() => undefined));
    if (before && Date.now() - before.at < this.checkAfterMs) return before.head;
    if (kept && this.heads.get(id) !== kept) return this.head(id); // another request is checking it
    const next = this.checkHead(id, before);
    this.heads.set(id, next);
    next.catch(() => {
      if (this.heads.get(id) === next) this.heads.delete(id);
    });
    return (await next).head;
  }

  private async checkHead(id: string, before: KnownHead | undefined): Promise<KnownHead> {
    if (before && (await sameInventory(this.root.storage, before.path, before.algorithm, before.digest)))
      return { ...before, at: Date.now() };
    const reader = this.root.openObjectVersion(id);
    const o = await reader;
    this.keepVersion(`${id}\n${o.head}`, reader);
    // A new version: the access copies made for the others go (they are kept until the version changes).
    if (before && before.head !== o.head) this.copies.retire({ root: this.root.location, id }, o.head);
    return knownHead(o);
  }

  /** A reader of one version of an object (default: the head), its state and content paths only. */
  async version(id: string, version?: string): Promise<OcflObjectReader> {
    const v = version ?? (await this.head(id));
    const key = `${id}\n${v}`;
    // The head being read may be this version: one reader, not two (a million-file version holds some 250 MB).
    if (!this.versions.has(key)) await this.heads.get(id)?.catch(() => undefined);
    const kept = this.versions.get(key);
    if (kept) {
      // Most recently used last: the oldest goes first.
      this.versions.delete(key);
      this.versions.set(key, kept);
      return kept;
    }
    const reader = this.root.openObjectVersion(id, v);
    this.keepVersion(key, reader);
    // The inventory read names the head too: a page of the head then reads nothing more.
    void reader.then(
      (o) => {
        if (!this.heads.has(id)) this.heads.set(id, Promise.resolve(knownHead(o)));
      },
      () => {},
    );
    return reader;
  }

  private keepVersion(key: string, reader: Promise<OcflObjectReader>): void {
    if (this.versions.get(key) === reader) return;
    this.versions.delete(key);
    this.versions.set(key, reader);
    reader.catch(() => {
      if (this.versions.get(key) === reader) this.versions.delete(key);
    });
    if (this.versions.size > VERSIONS_KEPT) this.versions.delete(this.versions.keys().next().value!);
  }

  /** The archive of a version (versions never change, so it is kept; the oldest closed beyond ARCHIVES_KEPT). */
  async archive(id: string, version: string): Promise<OpenedArchive> {
    const key = `${id}\n${version}`;
    let opened = this.archives.get(key);
    if (!opened) {
      // A relocated archive's earlier versions are read, one at a time, when its first LOB is looked up.
      const earlier = (v: string) => (v === version ? this.version(id, v) : this.root.openObjectVersion(id, v));
      opened = this.version(id, version).then((o) => openObjectArchive(o, version, 'read', earlier));
      this.archives.set(key, opened);
      opened.catch(() => this.archives.delete(key));
      if (this.archives.size > ARCHIVES_KEPT) {
        const [oldKey, old] = this.archives.entries().next().value!;
        this.archives.delete(oldKey);
        // Streams already reading it finish first: the reader closes after a minute.
        old.then((a) => setTimeout(() => closeArchive(a), 60_000).unref()).catch(() => {});
      }
    }
    return opened;
  }

  async closeAll(): Promise<void> {
    for (const a of this.archives.values()) await a.then(closeArchive).catch(() => {});
    this.archives.clear();
    this.copies.close();
  }
}

function knownHead(o: OcflObjectReader): KnownHead {
  return { at: Date.now(), head: o.head, path: o.path, digest: o.inventoryDigest, algorithm: o.digestAlgorithm };
}

/** Whether the inventory at `objectPath` is still the one of `digest` (its sidecar names it). */
async function sameInventory(storage: ReadStorage, objectPath: string, algorithm: string, digest: string | undefined): Promise<boolean> {
  const sidecar = await sidecarText(storage, objectPath, algorithm);
  return digest !== undefined && sidecar !== undefined && sidecar.split(/\s/)[0] === digest;
}

function closeArchive(a: OpenedArchive): void {
  a.access.close?.();
  a.reader.close();
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** an HTML page, or a stream of bytes */
  body: string | Readable | AsyncIterable<string | Buffer>;
}
