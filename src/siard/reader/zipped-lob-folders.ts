/**
 * Reading LOBs from zipped LOB segment folders (seed 004, S_8.2-1 ... S_8.4-1): the folder
 * `[db]_lobseg_[h]/` may be a ZIP file `[db]_lobseg_[h].zip` beside where the folder would be.
 *
 * The rule (docs/segmented-siard.md, "Zipped LOB segment folders"): a cell's file reference is
 * resolved as always (cell, column and database lobFolder, DILCIS clarification of 2024-08-01),
 * giving a package path. When no file is at that path and one of its folders is a LOB segment
 * folder `X_lobseg_[h]` that is absent, the bytes are the entry named by the rest of the path
 * inside `X_lobseg_[h].zip`, the ZIP of the same stem in the same folder. A folder that exists
 * wins over a ZIP of the same stem. The ZIP's own entries are read through our ZIP reader, so a
 * stored or deflated entry is checked against its CRC-32 as it is read.
 */
import type { Readable } from 'node:stream';
import type { LobPart } from '../lob-location.js';
import { ZipReader, type ByteSource, type ZipEntry } from '../zip/reader.js';
import type { LobAccess } from './lob-access.js';

/** A ZIP file by package path: its file on disk or a byte source, undefined when there is none. */
export type ZipFileSource = (packagePath: string) => Promise<string | ByteSource | undefined>;

/** Where a package path may live in a zipped LOB folder: the ZIP's package path and the entry name. */
function zippedCandidates(packagePath: string): Array<{ zip: string; entry: string }> {
  const segments = packagePath.split('/');
  const out: Array<{ zip: string; entry: string }> = [];
  for (let i = segments.length - 2; i >= 0; i--) {
    if (!/_lobseg_\d+$/.test(segments[i]!)) continue;
    out.push({ zip: `${segments.slice(0, i + 1).join('/')}.zip`, entry: segments.slice(i + 1).join('/') });
  }
  return out;
}

/** Open ZIP readers kept for the next LOBs (they come in folder order, so a few suffice). */
const KEEP_OPEN = 4;

export interface ZippedLobAccess extends LobAccess {
  /** the ZIP (package path) a part was found in, or undefined for a plain file or internal entry */
  zipOf(part: LobPart): Promise<string | undefined>;
  close(): void;
}

/** `inner` extended to LOB parts inside zipped LOB segment folders. */
export function withZippedLobFolders(inner: LobAccess, zipFile: ZipFileSource): ZippedLobAccess {
  const readers = new Map<string, Promise<ZipReader | undefined>>();

  function readerOf(zipPath: string): Promise<ZipReader | undefined> {
    let r = readers.get(zipPath);
    if (r) {
      readers.delete(zipPath); // most recently used goes last
      readers.set(zipPath, r);
      return r;
    }
    r = zipFile(zipPath).then((src) => (src === undefined ? undefined : ZipReader.open(src)));
    readers.set(zipPath, r);
    while (readers.size > KEEP_OPEN) {
      const [oldest, old] = readers.entries().next().value as [string, Promise<ZipReader | undefined>];
      readers.delete(oldest);
      void old.then((z) => z?.close()).catch(() => undefined);
    }
    return r;
  }

  /** The ZIP entry holding an external part that is not a plain file, or undefined. */
  async function entryOf(part: LobPart): Promise<{ zip: ZipReader; zipPath: string; entry: ZipEntry } | undefined> {
    if (part.kind !== 'external' || (await inner.exists(part))) return undefined;
    for (const c of zippedCandidates(part.path)) {
      const zip = await readerOf(c.zip);
      const entry = zip?.entry(c.entry);
      if (zip && entry && !entry.isDirectory) return { zip, zipPath: c.zip, entry };
    }
    return undefined;
  }

  return {
    async exists(part) {
      return (await inner.exists(part)) || (await entryOf(part)) !== undefined;
    },
    async open(part): Promise<Readable> {
      const z = await entryOf(part);
      return z ? z.zip.openStream(z.entry) : inner.open(part);
    },
    async size(part) {
      const z = await entryOf(part);
      return z ? z.entry.uncompressedSize : inner.size(part);
    },
    async zipOf(part) {
      return (await entryOf(part))?.zipPath;
    },
    close() {
      for (const r of readers.values()) void r.then((z) => z?.close()).catch(() => undefined);
      readers.clear();
    },
  };
}

/** Whether any of `parts` lies in a zipped LOB folder. */
export async function anyZipped(access: ZippedLobAccess, parts: readonly LobPart[]): Promise<boolean> {
  for (const p of parts) if ((await access.zipOf(p)) !== undefined) return true;
  return false;
}

/** The first name among `paths` that is a zipped LOB segment folder (`..._lobseg_[h].zip`), if any. */
export function firstZippedLobFolder(paths: Iterable<string>): string | undefined {
  for (const p of paths) if (/_lobseg_\d+\.zip$/.test(p)) return p;
  return undefined;
}
