/**
 * Where the LOB folders of a `.siard` sit inside an object when its database lobFolder is absolute
 * (after `relocate`, or as received): the "storage base" of the object extension (section 3 of
 * extensions/siard-ocfl-object/README.md), and a cell's location read against it.
 */
import type { OcflObjectReader } from '../ocfl/object.js';
import { resolveLobLocation, type LobLocation } from '../siard/lob-location.js';
import { SiardReader, type SiardTableRef } from '../siard/reader/siard-reader.js';
import type { SiardLobCell } from '../siard/reader/types.js';

export function isAbsoluteUri(v: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:|^[\\/]/.test(v.trim());
}

/**
 * Where the LOB folders of a .siard sit in the object when its lobFolder is absolute: the relative
 * database lobFolder of the earliest version of the same logical .siard whose lobFolder was not
 * absolute (the archive as exported or received, before `relocate`; none given = `./`, the
 * .siard-as-folder), else `../` (beside the .siard).
 */
export async function storageBaseOf(object: OcflObjectReader, logicalPath: string, upTo: string, abs: (contentPath: string) => string): Promise<string> {
  const versions = Object.keys(object.inventory.versions).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  for (const v of versions) {
    const digest = object.state(v).get(logicalPath);
    if (digest !== undefined) {
      const reader = await SiardReader.open(abs(object.contentPathOfDigest(digest)), { siardPath: logicalPath }).catch(() => undefined);
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
export function relativeReading(siard: SiardReader, t: SiardTableRef, cell: SiardLobCell, base: string): LobLocation {
  return resolveLobLocation({
    databaseLobFolder: base,
    columnLobFolders: cell.lobFolders.map((f) => (f !== undefined && isAbsoluteUri(f) ? undefined : f)),
    file: cell.ref.file,
    siardPath: siard.siardPath,
    tableFolder: t.folder,
    dialect: siard.metadata.dialect,
  });
}

