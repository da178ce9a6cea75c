/**
 * Checkout with `--join-chunks`: a version materialised as plain files (ocfl/object/checkout.ts verifies
 * every digest and refuses escaping paths), then every split LOB of its SIARD archives written back
 * as one whole file under the name its cell gives (`record7.bin` rather than `record7.bin.0` ...
 * `.z`, or `_part001` ...). Each joined file is checked against the cell's length and digest while
 * it is written, under a temporary name, and only then are the parts removed; a mismatch stops with
 * the parts left as they were. A relocated version (absolute lobFolder) is joined where the object
 * keeps its LOB folders (the storage base, storage-base.ts).
 */
import { createHash } from 'node:crypto';
import { createWriteStream, promises as fsp } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { SiardOcflError } from '../errors.js';
import { firstZippedLobFolder } from '../siard/reader/zipped-lob-folders.js';
import { checkoutVersion, type CheckoutOptions, type CheckoutResult } from '../ocfl/object/checkout.js';
import type { OcflObjectReader } from '../ocfl/object/object.js';
import { isTextFamily, NODE_HASH_OF_DIGEST_TYPE } from '../siard/model.js';
import { describeLobCell, openFoundLob, packageLobAccess } from '../siard/reader/lob-open.js';
import { groupSegmentNames } from '../siard/segments/segment-names.js';
import { openLocalSiard } from '../siard/segments/segment-set-reader.js';
import { joinSegments } from './join-segments.js';
import { PACKAGE_BASES, StorageBaseLookup, storageBaseOf } from './storage-base.js';
import { isSiardFileName } from '../siard/siard-file-name.js';
import { storedFile } from './stored.js';

export interface ArchiveCheckoutOptions extends CheckoutOptions {
  /** write split LOBs back as whole files */
  joinChunks?: boolean;
  /** write each segmented SIARD file (`.siard.1` ... `.z`) back as one `.siard` */
  joinSegments?: boolean;
}

export interface ArchiveCheckoutResult extends CheckoutResult {
  /** split LOBs joined into whole files */
  joined: number;
  /** segmented SIARD files joined into one `.siard` each */
  joinedSegments?: Array<{ siard: string; segments: string[] }>;
}

export async function checkoutArchive(
  reader: OcflObjectReader,
  dest: string,
  options: ArchiveCheckoutOptions = {},
): Promise<ArchiveCheckoutResult> {
  const result = await checkoutVersion(reader, dest, options);
  let joined = 0;
  const names = [...reader.state(result.version).keys()];
  // A segmented SIARD file is named by its stem (x.siard): its segments are read as one archive.
  const archives = [...names.filter(isSiardFileName), ...groupSegmentNames(names).map((set) => set.base)];
  if (options.joinChunks) {
    const siardAt = (contentPath: string) => storedFile(reader.storage, reader.storagePath(contentPath));
    for (const logicalPath of archives) {
      const storageBase = await storageBaseOf(reader, logicalPath, result.version, siardAt);
      joined += await joinSplitLobs(path.join(dest, ...logicalPath.split('/')), logicalPath, storageBase);
    }
  }
  const joinedSegments: NonNullable<ArchiveCheckoutResult['joinedSegments']> = [];
  if (options.joinSegments) {
    for (const set of groupSegmentNames(names)) {
      joinedSegments.push({ siard: set.base, segments: await joinSegments(path.join(dest, ...set.base.split('/'))) });
    }
  }
  return { ...result, joined, ...(options.joinSegments ? { joinedSegments } : {}) };
}

/**
 * Joins the split LOBs of the archive at `siardFile` (package folder = dest); returns how many.
 * `storageBase`: where the LOB folders lie when the archive's lobFolder is absolute (relocated).
 */
async function joinSplitLobs(siardFile: string, siardPath = path.basename(siardFile), storageBase?: string): Promise<number> {
  const zipped = firstZippedLobFolder(await fsp.readdir(path.dirname(siardFile)));
  if (zipped !== undefined) {
    const why = '--join-chunks joins split LOBs in plain folders only, so check out without it';
    throw new SiardOcflError(`${siardPath}: its LOB folders are zipped (${zipped}); ${why}.`, {
      code: 'JOIN_ZIPPED_LOBS',
      exitCode: 1,
    });
  }
  const siard = await openLocalSiard(siardFile, { siardPath });
  const access = packageLobAccess(siard);
  // The checkout is the object's copy: split LOBs are joined there, never at the absolute lobFolder.
  const lobs = new StorageBaseLookup(siard, access, {
    bases: () => (storageBase ? [storageBase] : PACKAGE_BASES),
    label: siardPath,
    container: 'the checkout',
    verb: 'joined',
  });
  const done = new Set<string>();
  let joined = 0;
  try {
    for (const t of siard.tables()) {
      for await (const cell of siard.lobCells(t)) {
        const lookup = await lobs.lookup(cell);
        if (lookup.status !== 'found' || lookup.found.split === 'whole' || lookup.found.target.kind !== 'external') continue;
        const target = lookup.found.target.path;
        if (done.has(target)) continue;
        const whole = path.join(siard.packageDir, ...target.split('/'));
        const temp = `${whole}.joining-${process.pid}`;
        const hash = cell.ref.digestType ? createHash(NODE_HASH_OF_DIGEST_TYPE[cell.ref.digestType]) : undefined;
        let bytes = 0;
        const tap = new Transform({
          transform(chunk: Buffer, _enc, cb) {
            hash?.update(chunk);
            bytes += chunk.length;
            cb(null, chunk);
          },
        });
        await pipeline(openFoundLob(lookup.found, access), tap, createWriteStream(temp, { flags: 'wx' }));
        const digest = hash?.digest('hex');
        const lengthOk = cell.ref.length === undefined || isTextFamily(cell.family) || cell.ref.length === bytes;
        if ((cell.ref.digest !== undefined && digest !== undefined && digest !== cell.ref.digest.toLowerCase()) || !lengthOk) {
          await fsp.rm(temp, { force: true });
          throw new SiardOcflError(
            `${describeLobCell(siard, cell)}: the parts of ${target} joined give ${bytes} bytes ` +
              `with ${cell.ref.digestType} ${digest}, not what the cell states; the parts were left as they are.`,
            {
              code: 'LOB_DIGEST',
              exitCode: 1,
            },
          );
        }
        await fsp.rename(temp, whole);
        for (const part of lookup.found.parts) {
          if (part.kind === 'external' && part.path !== target)
            await fsp.rm(path.join(siard.packageDir, ...part.path.split('/')), { force: true });
        }
        done.add(target);
        joined++;
      }
    }
  } finally {
    siard.close();
  }
  await removeEmptyFolders(path.dirname(siardFile));
  return joined;
}

async function removeEmptyFolders(dir: string): Promise<boolean> {
  const entries = await fsp.readdir(dir, { withFileTypes: true });
  let left = entries.length;
  for (const e of entries) if (e.isDirectory() && (await removeEmptyFolders(path.join(dir, e.name)))) left--;
  if (left > 0) return false;
  await fsp.rmdir(dir);
  return true;
}
