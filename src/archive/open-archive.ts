/**
 * Opens a SIARD archive for reading wherever it is: a `.siard` file (its external LOB folders
 * beside it), a folder holding one `.siard` (a checkout), or an OCFL object version read in place
 * (the `.siard` and every LOB file at their content paths, which may sit in different vN/content
 * folders). LOBs are looked up through `StorageBaseLookup`, so a relocated archive is read where
 * the object or the folder keeps its LOB folders. Used by restore, tables and rows.
 */
import { readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { UsageError } from '../errors.js';
import { openRoot } from '../ocfl/root.js';
import type { OcflObjectReader } from '../ocfl/object/object.js';
import { withZippedLobFolders } from '../siard/reader/zipped-lob-folders.js';
import type { LobPart } from '../siard/lob-location.js';
import { packageLobAccess } from '../siard/reader/lob-open.js';
import type { LobAccess } from '../siard/reader/lob-access.js';
import { SiardReader } from '../siard/reader/siard-reader.js';
import { PACKAGE_BASES, StorageBaseLookup, storageBaseOf } from './storage-base.js';
import { isSiardFileName } from '../siard/siard-file-name.js';
import { groupSegmentNames, parseSegmentName } from '../siard/segments/segment-names.js';
import { localSegmentSet, openLocalSiard, openSiardSegments } from '../siard/segments/segment-set-reader.js';
import { storedFile } from './stored.js';

/** Where the archive comes from. */
export type ArchiveSource = { siard: string } | { dir: string } | { root: string; id: string; version?: string };

export interface OpenedArchive {
  reader: SiardReader;
  access: LobAccess;
  /** every LOB is looked up through it (a relocated archive: at its storage base) */
  lobs: StorageBaseLookup;
  /** names the archive in messages and summaries: the file, or `id vN: logical path` */
  name: string;
  /** set when the archive was opened inside an object: the version read */
  version?: string;
  /** The bytes of a small file beside the .siard (`name` in its folder; in an object, of the same version); undefined: none. */
  besideFile(name: string): Promise<Buffer | undefined>;
}

/** The single .siard (or segmented SIARD file, named by its stem) in a folder, or a clear error. */
function siardInFolder(dir: string, purpose: string): string {
  let names: string[];
  try {
    const all = readdirSync(dir);
    names = all.filter((n) => isSiardFileName(n) && statSync(path.join(dir, n)).isFile());
    for (const set of groupSegmentNames(all)) if (!names.includes(set.base)) names.push(set.base);
  } catch (err) {
    throw new UsageError(`Cannot read the folder ${dir}: ${(err as Error).message}.`, 'RESTORE_SOURCE', err);
  }
  if (names.length === 0) throw new UsageError(`The folder ${dir} holds no .siard file to ${purpose}.`, 'RESTORE_SOURCE');
  if (names.length > 1)
    throw new UsageError(
      `The folder ${dir} holds several .siard files (${names.sort().join(', ')}); name the one to ${purpose}.`,
      'RESTORE_SOURCE',
    );
  return path.join(dir, names[0]!);
}

/** LobAccess over an OCFL object version: package paths are logical paths, read at their content paths. */
function ocflLobAccess(reader: SiardReader, object: OcflObjectReader, version: string): LobAccess {
  const state = object.state(version);
  const plain: LobAccess = {
    async exists(part: LobPart) {
      return part.kind === 'internal' ? reader.hasEntry(part.entry) : state.has(part.path);
    },
    async open(part: LobPart): Promise<Readable> {
      if (part.kind === 'internal') return reader.zip.openStream(reader.root + part.entry);
      // LOB files are mostly small: a 64 KiB buffer each, not the 1 MiB meant for large content.
      return object.openLogical(part.path, version, { highWaterMark: 64 * 1024 });
    },
    async size(part: LobPart) {
      if (part.kind === 'internal') return reader.zip.entry(reader.root + part.entry)?.uncompressedSize ?? 0;
      const st = await object.storage.stat(object.storagePath(object.contentPath(part.path, version)));
      if (!st)
        throw Object.assign(
          new Error(`${object.storage.location}/${object.storagePath(object.contentPath(part.path, version))} does not exist.`),
          { code: 'ENOENT' },
        );
      return st.size;
    },
  };
  // A LOB segment folder stored as a ZIP of the same stem (S_8.4-1): read from the object's copy.
  return withZippedLobFolders(plain, async (zipPath) =>
    state.has(zipPath) ? storedFile(object.storage, object.storagePath(object.contentPath(zipPath, version))) : undefined,
  );
}

export interface OpenArchiveOptions {
  /** what the verb does with the LOBs, for the note about a relocated archive ("read", "listed") */
  verb?: string;
  /** what the archive is opened for, in messages about a folder ("restore", the default "read") */
  purpose?: string;
}

/**
 * Opens the archive of `source` for reading: only the ZIP directory and metadata.xml are read
 * here (plus, inside an object, its inventory); table data and LOBs are read when asked for.
 */
export async function openArchive(source: ArchiveSource, options: OpenArchiveOptions = {}): Promise<OpenedArchive> {
  const verb = options.verb ?? 'read';
  if ('root' in source) {
    const object = await (await openRoot(source.root)).openObject(source.id);
    return openObjectArchive(object, source.version ?? object.head, verb);
  }
  const file = 'dir' in source ? siardInFolder(source.dir, options.purpose ?? 'read') : source.siard;
  const set = localSegmentSet(file);
  let s;
  try {
    s = set ? undefined : statSync(file);
  } catch {
    throw new UsageError(`The SIARD archive ${file} does not exist.`, 'RESTORE_SOURCE');
  }
  if (s && !s.isFile()) throw new UsageError(`${file} is not a file.`, 'RESTORE_SOURCE');
  const reader = await openLocalSiard(file);
  const access = packageLobAccess(reader);
  const lobs = new StorageBaseLookup(reader, access, {
    bases: () => PACKAGE_BASES,
    label: file,
    container: `the package folder ${reader.packageDir}`,
    verb,
  });
  const besideFile = async (name: string) => readFile(path.join(path.dirname(file), name)).catch(() => undefined);
  return { reader, access, lobs, name: file, besideFile };
}

/**
 * The archive of an object version already opened (the reading room keeps its versions open):
 * the version's one top-level `.siard` (or segmented SIARD file), its LOBs read at their content
 * paths. `readerOf`: the reader of another version, where `object` holds this one only (a
 * relocated archive's LOB folders are found in the earlier versions, storage-base.ts).
 */
export async function openObjectArchive(
  object: OcflObjectReader,
  version: string,
  verb = 'read',
  readerOf?: (version: string) => Promise<OcflObjectReader>,
): Promise<OpenedArchive> {
  if (!object.versions().some((v) => v.version === version)) {
    throw new UsageError(
      `Object "${object.id}" has no version ${version} (it has ${object
        .versions()
        .map((v) => v.version)
        .join(', ')}).`,
      'NO_VERSION',
    );
  }
  // Only the names of archives and their segments are gathered: a million LOB files' paths are not.
  const names: string[] = [];
  for (const name of object.state(version).keys()) if (isSiardFileName(name) || parseSegmentName(name)) names.push(name);
  let siards = [...names.filter(isSiardFileName), ...groupSegmentNames(names).map((set) => set.base)];
  if (siards.length === 0) throw new UsageError(`Object "${object.id}" version ${version} holds no .siard file.`, 'RESTORE_SOURCE');
  // A re-segmented package kept as received sits in a folder; the archive to read is the top-level one.
  const topLevel = siards.filter((p) => !p.includes('/'));
  if (siards.length > 1 && topLevel.length === 1) siards = topLevel;
  if (siards.length > 1)
    throw new UsageError(`Object "${object.id}" version ${version} holds several .siard files (${siards.join(', ')}).`, 'RESTORE_SOURCE');
  const logical = siards[0]!;
  const siardAt = (cp: string) => storedFile(object.storage, object.storagePath(cp));
  const set = groupSegmentNames(names).find((x) => x.base === logical);
  const reader = set
    ? await openSiardSegments(set, (name) => siardAt(object.contentPath(name, version)), {
        label: `${object.id} ${version}: ${logical}.1 ... .z`,
      })
    : await SiardReader.open(await siardAt(object.contentPath(logical, version)), { siardPath: logical });
  const access = ocflLobAccess(reader, object, version);
  const lobs = new StorageBaseLookup(reader, access, {
    bases: async () => [await storageBaseOf(object, logical, version, siardAt, readerOf)],
    label: `${object.id} ${version}: ${logical}`,
    container: 'the object',
    verb,
  });
  const besideFile = async (name: string) => {
    const p = path.posix.join(path.posix.dirname(logical), name);
    if (!object.state(version).has(p)) return undefined;
    const parts: Buffer[] = [];
    for await (const chunk of object.openLogical(p, version) as AsyncIterable<Buffer>) parts.push(chunk);
    return Buffer.concat(parts);
  };
  return { reader, access, lobs, name: `${object.id} ${version}: ${logical}`, version, besideFile };
}
