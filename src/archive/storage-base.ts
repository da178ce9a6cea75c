/**
 * Where the LOB folders of a `.siard` sit inside an object when its database lobFolder is absolute
 * (after `relocate`, or as received): the "storage base" of the object extension (section 3 of
 * extensions/siard-ocfl-object/README.md), and a cell's location read against it.
 *
 * Every verb that reads LOBs (audit, restore, mets, checkout --join-chunks, ingest of a received
 * package) goes through `StorageBaseLookup`, so a relocated archive is read the same way by all:
 * - inside an object, always the object's own copy (the one its fixity covers); the absolute
 *   location is never read, whether it exists on this machine or not;
 * - in a plain folder (a checkout, a received package), the copy the package folder holds, read
 *   against `PACKAGE_BASES`: nothing outside the package folder is read (lob-open.ts), and every
 *   LOB is checked against its cell's length and digest, so which copy is read cannot change a byte.
 * Either way the verb says so once per archive (`note`), never per cell and never silently.
 */
import type { OcflObjectReader } from '../ocfl/object/object.js';
import { describeLobTarget, findLob, resolveLobLocation, type LobLocation } from '../siard/lob-location.js';
import { lookupLob, type LobLookup } from '../siard/reader/lob-open.js';
import type { LobAccess } from '../siard/reader/lob-access.js';
import { SiardReader, type SiardTableRef } from '../siard/reader/siard-reader.js';
import type { ByteSource } from '../siard/zip/reader.js';
import type { SiardLobCell } from '../siard/reader/types.js';

export function isAbsoluteUri(v: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:|^[\\/]/.test(v.trim());
}

/**
 * Storage bases tried for a plain folder, whose history is unknown: `../` (beside the .siard, our
 * export's default and the lobseg seed's), then `./` (the .siard-as-folder, for archives with
 * column lobFolders and no database lobFolder, as SiardApi writes them).
 */
export const PACKAGE_BASES: readonly string[] = ['../', './'];

/**
 * Where the LOB folders of a .siard sit in the object when its lobFolder is absolute: the relative
 * database lobFolder of the earliest version of the same logical .siard whose lobFolder was not
 * absolute (the archive as exported or received, before `relocate`; none given = `./`, the
 * .siard-as-folder), else `../` (beside the .siard). `readerOf` gives the reader of an earlier
 * version where `object` holds one version only (the reading room's).
 */
export async function storageBaseOf(
  object: OcflObjectReader,
  logicalPath: string,
  upTo: string,
  open: (contentPath: string) => Promise<string | ByteSource>,
  readerOf: (version: string) => Promise<OcflObjectReader> = async () => object,
): Promise<string> {
  const versions = object.versions().map((v) => v.version);
  for (const v of versions) {
    const inV = await readerOf(v);
    // A segmented SIARD file (named by its stem) is read in its first segment, a complete package.
    const digest = inV.state(v).get(logicalPath) ?? inV.state(v).get(`${logicalPath}.1`);
    if (digest !== undefined) {
      const reader = await open(inV.contentPathOfDigest(digest))
        .then((file) => SiardReader.open(file, { siardPath: logicalPath }))
        .catch(() => undefined);
      if (reader) {
        const base = reader.archive.lobFolder;
        reader.close();
        // No database lobFolder: column folders are relative to the .siard-as-folder, i.e. "./".
        if (base === undefined || base.trim() === '') return './';
        if (!isAbsoluteUri(base)) return base;
      }
    }
    if (v === upTo) break;
  }
  return '../';
}

/** The cell's location read with `base` as database lobFolder. */
function relativeReading(siard: SiardReader, t: SiardTableRef, cell: SiardLobCell, base: string): LobLocation {
  return resolveLobLocation({
    databaseLobFolder: base,
    columnLobFolders: cell.lobFolders.map((f) => (f !== undefined && isAbsoluteUri(f) ? undefined : f)),
    file: cell.ref.file,
    siardPath: siard.siardPath,
    tableFolder: t.folder,
    dialect: siard.metadata.dialect,
  });
}

export interface StorageBaseLookupOptions {
  /** the storage bases to try, in order (computed on first need: storageBaseOf reads old versions) */
  bases: () => Promise<readonly string[]> | readonly string[];
  /** names the archive in the note: its logical path in an object, its file for a folder */
  label: string;
  /** who keeps the copies, for the note: "the object" or "the package folder /x" */
  container: string;
  /** what the verb did with them, for the note: "verified", "read", "listed", "stored" */
  verb: string;
}

/**
 * Looks LOB cells up as `lookupLob` does; a cell whose lobFolder reading lands outside the package
 * at an absolute location is read against the storage bases instead, where the package keeps its
 * LOB folders. `note` is set, once, the first time that happens.
 */
export class StorageBaseLookup {
  note: string | undefined;
  private bases: readonly string[] | undefined;
  private tables: Map<string, SiardTableRef> | undefined;

  constructor(
    readonly siard: SiardReader,
    readonly access: LobAccess,
    private readonly options: StorageBaseLookupOptions,
  ) {}

  async lookup(cell: SiardLobCell): Promise<LobLookup> {
    const lookup = await lookupLob(this.siard, cell, this.access);
    const primary = lookup.location.primary;
    // Only an absolute location, never a symbolic link leading out (reason) or a climbing path.
    if (lookup.status !== 'outside' || lookup.reason !== undefined || primary.kind !== 'outside' || primary.absolutePath === undefined)
      return lookup;
    this.bases ??= await this.options.bases();
    this.tables ??= new Map(this.siard.tables().map((t) => [`${t.schemaIndex}/${t.tableIndex}`, t]));
    const t = this.tables.get(`${cell.schemaIndex}/${cell.tableIndex}`);
    if (!t) return lookup;
    for (const base of this.bases) {
      const location = relativeReading(this.siard, t, cell, base);
      const found = await findLob(location, (p) => this.access.exists(p));
      if (!found) continue;
      this.note ??=
        `${this.options.label}: the database lobFolder "${this.siard.archive.lobFolder ?? ''}" points elsewhere ` +
        `(${describeLobTarget(primary)} and the like); ` +
        `the LOB files were ${this.options.verb} where ${this.options.container} keeps them instead, ` +
        `at ${describeLobTarget(found.parts[0]!)} and the like (lobFolder read as "${base}").`;
      return { status: 'found', location, found };
    }
    return lookup;
  }
}
