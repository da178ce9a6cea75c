/**
 * What the reading room's routes share: the storage root, and the objects, archives and listing
 * it keeps open (a version never changes, so its archive is kept; an object and the listing are
 * checked again after OBJECT_TTL_MS by their inventory sidecars, one small read each, and read
 * again only when a sidecar changed, so new versions show and a million-file inventory is not
 * read again while it stays the same).
 */
import type { Readable } from 'node:stream';
import { AccessCopies } from '../archive/access-copy.js';
import { indexObjects, pageOfObjects, sidecarText, type KnownObject, type ObjectIndex, type ObjectsPage } from '../archive/browse.js';
import { openObjectArchive, type OpenedArchive } from '../archive/open-archive.js';
import type { OcflObjectReader } from '../ocfl/object/object.js';
import type { OcflStorageRoot } from '../ocfl/root.js';
import type { LobSummary } from '../siard/reader/table-summary.js';

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
/** Objects and archives kept open: an object of a million files holds a few hundred MB. */
const OBJECTS_KEPT = 4;
const ARCHIVES_KEPT = 4;

/** The root's objects as listed at `at`; `ready` once listed (or the list before it, while it is listed again). */
interface Listing {
  at: number;
  index: Promise<ObjectIndex>;
  ready: ObjectIndex | undefined;
}

export class Room {
  private listing: Listing | undefined;
  private readonly known = new Map<string, KnownObject>();
  private readonly objects = new Map<string, { at: number; object: Promise<OcflObjectReader> }>();
  private readonly archives = new Map<string, Promise<OpenedArchive>>();
  /** LOB counts of tables already counted (by /lobs or an access copy), by archive and table */
  readonly lobCounts = new Map<string, LobSummary>();
  readonly copies: AccessCopies;

  constructor(
    readonly root: OcflStorageRoot,
    /** the reading room's workspace: a folder outside the root for access copies */
    workspace: string,
    /** tables of more rows than this are sorted and searched through an access copy */
    readonly copyFrom: number,
  ) {
    this.copies = new AccessCopies(workspace);
  }

  /**
   * A page of the root's objects whose id holds `filter` (browse.ts: only the page's inventories
   * are read). The ids are listed again after OBJECT_TTL_MS; a list made from folder names is
   * used meanwhile (its rows are read fresh), so no page waits for the folders to be listed again.
   */
  async listObjects(filter: string, offset: number, limit: number): Promise<ObjectsPage> {
    if (!this.listing || Date.now() - this.listing.at > OBJECT_TTL_MS) {
      const stale = this.listing?.ready?.byLayout ? this.listing.ready : undefined;
      const listing: Listing = { at: Date.now(), index: indexObjects(this.root, this.known), ready: stale };
      this.listing = listing;
      listing.index.then(
        (index) => (listing.ready = index),
        () => {
          if (this.listing === listing) this.listing = undefined;
        },
      );
    }
    const index = this.listing.ready ?? (await this.listing.index);
    return pageOfObjects(this.root, index, filter, offset, limit, this.known);
  }

  async object(id: string): Promise<OcflObjectReader> {
    const kept = this.objects.get(id);
    if (kept && Date.now() - kept.at < OBJECT_TTL_MS) return kept.object;
    if (kept) {
      // The sidecar names the digest of the current inventory: unchanged, the reader already held is current.
      const o = await kept.object;
      const sidecar = await sidecarText(o.storage, o.path, o.digestAlgorithm);
      if (sidecar !== undefined && sidecar.split(/\s/)[0] === o.inventoryDigest) {
        kept.at = Date.now();
        return o;
      }
    }
    const entry = { at: Date.now(), object: this.root.openObject(id) };
    // A new version: the access copies made for the others go (they are kept until the version changes).
    if (kept) void entry.object.then((o) => this.copies.retire({ root: this.root.location, id }, o.head)).catch(() => {});
    this.objects.delete(id);
    this.objects.set(id, entry);
    entry.object.catch(() => this.objects.delete(id));
    if (this.objects.size > OBJECTS_KEPT) this.objects.delete(this.objects.keys().next().value!);
    return entry.object;
  }

  /** The archive of a version (versions never change, so it is kept; the oldest closed beyond ARCHIVES_KEPT). */
  async archive(id: string, version: string): Promise<OpenedArchive> {
    const key = `${id}\n${version}`;
    let opened = this.archives.get(key);
    if (!opened) {
      opened = this.object(id).then((o) => openObjectArchive(o, version));
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
