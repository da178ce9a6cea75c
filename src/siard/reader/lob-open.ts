/**
 * Filesystem-backed access to LOB bytes, for checkout and restore: entries inside the .siard
 * (through the ZIP reader) and files beside it in the package folder. Split LOBs are joined into
 * one stream. Nothing outside the package folder is ever read: escaping and absolute locations
 * are refused with a clear error, unless an absolute location lies under a root the caller allows
 * explicitly; symbolic links that lead out of the package are refused as well.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { SiardOcflError } from '../../errors.js';
import { openFileStream } from '../../read-small-file.js';
import { describeLobTarget, findLob, type FoundLob, type LobLocation, type LobPart } from '../lob-location.js';
import type { SiardReader } from './siard-reader.js';
import type { SiardLobCell } from './types.js';
import { PackageFolder } from './package-folder.js';
import { withZippedLobFolders, type ZippedLobAccess } from './zipped-lob-folders.js';
import type { LobAccess } from './lob-access.js';

export interface PackageLobAccessOptions {
  /** package folder on disk (default: the reader's) */
  packageDir?: string;
}

/** LobAccess over the .siard's ZIP and the package folder on disk. */
export function packageLobAccess(reader: SiardReader, options: PackageLobAccessOptions = {}): ZippedLobAccess {
  const folder = new PackageFolder(path.resolve(options.packageDir ?? reader.packageDir));
  const plain: LobAccess = {
    async exists(part) {
      if (part.kind === 'internal') return reader.hasEntry(part.entry);
      try {
        return folder.isFile(part.path);
      } catch (err) {
        if (err instanceof SiardOcflError) throw err;
        return false;
      }
    },
    async open(part) {
      if (part.kind === 'internal') return reader.zip.openStream(reader.root + part.entry);
      const full = folder.diskPath(part.path);
      folder.checkFolder(full, part.path);
      return openFileStream(full, {
        highWaterMark: 64 * 1024,
        onLink: () => {
          folder.checkTarget(full, part.path);
          return createReadStream(full);
        },
      });
    },
    async size(part) {
      if (part.kind === 'internal') return reader.zip.entry(reader.root + part.entry)?.uncompressedSize ?? 0;
      return (await stat(folder.diskPath(part.path))).size;
    },
  };
  // A LOB segment folder may be a ZIP of the same stem (S_8.4-1); checked like any file of the package.
  return withZippedLobFolders(plain, async (zipPath) => {
    try {
      return folder.isFile(zipPath) ? folder.diskPath(zipPath) : undefined;
    } catch (err) {
      if (err instanceof SiardOcflError) throw err;
      return undefined;
    }
  });
}

/** Names a LOB cell in messages: table, row, column (and nested path). */
export function describeLobCell(reader: SiardReader, cell: SiardLobCell): string {
  const schema = reader.archive.schemas[cell.schemaIndex];
  const table = schema?.tables[cell.tableIndex];
  const column = table?.columns[cell.column - 1];
  const nested = cell.cellPath.length > 1 ? ` (${cell.cellPath.join('/')})` : '';
  return `${reader.file}: table ${schema?.name}.${table?.name}, row ${cell.row}, column ${column?.name ?? cell.cellPath[0]}${nested}`;
}

/** The outcome of looking a LOB up: found (with parts), missing, or pointing where we must not read. */
export type LobLookup =
  | { status: 'found'; location: LobLocation; found: FoundLob }
  | { status: 'missing'; location: LobLocation }
  | { status: 'outside'; location: LobLocation; reason?: string }
  | { status: 'invalid'; location: LobLocation; reason: string };

/** Resolves and looks up a LOB cell. Never throws for a missing or outside LOB: it says so. */
export async function lookupLob(reader: SiardReader, cell: SiardLobCell, access: LobAccess = packageLobAccess(reader)): Promise<LobLookup> {
  const location = reader.locate(cell);
  let found;
  try {
    found = await findLob(location, (p) => access.exists(p));
  } catch (err) {
    // A file that is there but leads out of the package (symbolic link): outside, not missing.
    if (err instanceof SiardOcflError && err.code === 'LOB_OUTSIDE') return { status: 'outside', location, reason: err.message };
    throw err;
  }
  if (found) return { status: 'found', location, found };
  const primary = location.primary;
  if (primary.kind === 'invalid') return { status: 'invalid', location, reason: primary.reason };
  if (primary.kind === 'outside') return { status: 'outside', location };
  return { status: 'missing', location };
}

/** The bytes of a found LOB: its parts joined in order, one stream. */
export function openFoundLob(found: FoundLob, access: LobAccess): Readable {
  return Readable.from(
    (async function* () {
      for (const part of found.parts) {
        const stream = await access.open(part);
        for await (const chunk of stream as AsyncIterable<Buffer>) yield chunk;
      }
    })(),
    { objectMode: false },
  );
}

/** Opens the bytes of a LOB cell, or throws one clear sentence saying why it cannot. */
export async function openLob(reader: SiardReader, cell: SiardLobCell, access: LobAccess = packageLobAccess(reader)): Promise<Readable> {
  return openLookedUp(reader, cell, await lookupLob(reader, cell, access), access);
}

/** Opens the bytes of a LOB cell already looked up (e.g. against a storage base), or throws why not. */
export function openLookedUp(reader: SiardReader, cell: SiardLobCell, lookup: LobLookup, access: LobAccess): Readable {
  const where = describeLobCell(reader, cell);
  switch (lookup.status) {
    case 'found':
      return openFoundLob(lookup.found, access);
    case 'invalid':
      throw new SiardOcflError(`${where}: LOB file "${cell.ref.file}" is not a usable location: ${lookup.reason}`, {
        code: 'LOB_INVALID',
        exitCode: 1,
      });
    case 'outside':
      if (lookup.reason !== undefined) throw new SiardOcflError(`${where}: ${lookup.reason}`, { code: 'LOB_OUTSIDE', exitCode: 1 });
      throw new SiardOcflError(
        `${where}: LOB file "${cell.ref.file}" points to ${describeLobTarget(lookup.location.primary)}; refusing to read ` +
          `outside the package folder ${reader.packageDir}.`,
        { code: 'LOB_OUTSIDE', exitCode: 1 },
      );
    case 'missing':
      throw new SiardOcflError(
        `${where}: LOB file "${cell.ref.file}" is missing (looked for ${describeLobTarget(lookup.location.primary)}).`,
        {
          code: 'LOB_MISSING',
          exitCode: 1,
        },
      );
  }
}

/**
 * LobAccess for a package whose files are known by their paths, not by a folder on disk: the
 * OCFL audit passes `toDiskPath(logicalPath)` from the inventory's state (the content path of that
 * logical path, or undefined when the object has no such file). Entries inside the .siard are
 * read through the reader's ZIP as usual. Paths are package-relative (`reader.siardPath` is the
 * .siard's own logical path).
 */
export function mappedLobAccess(reader: SiardReader, toDiskPath: (packagePath: string) => string | undefined): LobAccess {
  const disk = (part: LobPart): string | undefined => (part.kind === 'external' ? toDiskPath(part.path) : undefined);
  const plain: LobAccess = {
    async exists(part) {
      if (part.kind === 'internal') return reader.hasEntry(part.entry);
      return disk(part) !== undefined;
    },
    async open(part) {
      if (part.kind === 'internal') return reader.zip.openStream(reader.root + part.entry);
      const file = disk(part);
      if (file === undefined)
        throw new SiardOcflError(`LOB file "${part.path}" is not in the package.`, { code: 'LOB_MISSING', exitCode: 1 });
      return createReadStream(file);
    },
    async size(part) {
      if (part.kind === 'internal') return reader.zip.entry(reader.root + part.entry)?.uncompressedSize ?? 0;
      const file = disk(part);
      return file === undefined ? 0 : (await stat(file)).size;
    },
  };
  return withZippedLobFolders(plain, async (zipPath) => toDiskPath(zipPath));
}
