/**
 * `siard-ocfl mets`: adds the METS index (seed 002) to an object that was ingested without it,
 * as a new version whose only new content is the METS files.
 *
 * Everything comes from the head state, without re-reading the LOBs:
 * - which LOB files there are, and the cell each belongs to (schema.table.column.row): from the
 *   cells of the .siard, read with the SIARD reader and resolved through the lobFolder levels
 *   against the object's logical paths (the cells are the truth, not the path names);
 * - the segment folder of each file: from its path (lob-paths.ts), else its top folder;
 * - checksums: the inventory's fixity block for the archive's LOB digest algorithm (the cells'
 *   digestType), or the manifest when that is the same algorithm. Only a file the block lacks is
 *   read and hashed (counted in `rehashed`);
 * - sizes: a stat of the content file.
 * A relocated archive (absolute database lobFolder) is indexed where the object keeps its LOB
 * folders (storage-base.ts); the result carries one note saying so.
 */
import path from 'node:path/posix';
import { SiardOcflError, UsageError } from '../errors.js';
import { firstZippedLobFolder } from '../siard/reader/zipped-lob-folders.js';
import { MultiHasher } from '../ocfl/digest.js';
import { nextVersionName } from '../ocfl/inventory/inventory.js';
import type { OcflObjectReader } from '../ocfl/object/object.js';
import type { OcflStorageRoot } from '../ocfl/root.js';
import type { LobPart } from '../siard/lob-location.js';
import { childMetsPaths } from '../siard/mets/checker.js';
import { MetsIndexWriter } from '../siard/mets/index-writer.js';
import { lobPathInfo } from '../siard/mets/lob-paths.js';
import { parseMets } from '../siard/mets/reader.js';
import { METS_FILE_NAME, type LobIdentity, type MetsChecksumType } from '../siard/mets/types.js';
import { LobFileTable, type LobFilePlace } from '../siard/mets/lob-file-table.js';
import { HEX_LENGTH_OF_DIGEST_NAME } from '../siard/digest-names.js';
import { SIARD_DIGEST_TYPES, type SiardDigestType } from '../siard/model.js';
import { describeLobCell } from '../siard/reader/lob-open.js';
import type { LobAccess } from '../siard/reader/lob-access.js';
import { SiardReader } from '../siard/reader/siard-reader.js';
import type { VersionInfoOptions } from './ingest.js';
import { rootOf } from '../ocfl/root.js';
import { storedFile } from './stored.js';
import type { ByteSource } from '../siard/zip/reader.js';
import { OCFL_ALGORITHM_OF_DIGEST_TYPE, StagedVersionSink } from './ocfl-sink.js';
import { StorageBaseLookup, storageBaseOf } from './storage-base.js';
import { isSiardFileName } from '../siard/siard-file-name.js';
import { groupSegmentNames } from '../siard/segments/segment-names.js';
import { openSiardSegments } from '../siard/segments/segment-set-reader.js';

export interface AddMetsOptions extends Pick<VersionInfoOptions, 'message' | 'user'> {
  /** write the index again when the head already has one (its old METS files are replaced) */
  replace?: boolean;
}

export interface AddMetsResult {
  id: string;
  version: string;
  objectPath: string;
  /** logical path of the .siard the index describes */
  siardFile: string;
  checksumType: MetsChecksumType;
  /** logical path of the parent METS */
  parent: string;
  children: Array<{ path: string; segment: string; files: number }>;
  /** LOB files listed (every part of a split LOB) */
  lobFiles: number;
  /** files whose checksum was not in the inventory and had to be read */
  rehashed: number;
  /** things the user should know that are not problems: where a relocated archive's LOBs were found */
  notes: string[];
}

/** Adds the METS index of the head's .siard to object `id` as a new version. */
export async function addMetsIndex(rootArg: string | OcflStorageRoot, id: string, options: AddMetsOptions = {}): Promise<AddMetsResult> {
  const root = await rootOf(rootArg);
  const object = await root.openObject(id);
  const head = object.head;
  const state = object.state();
  const { siardFile, members } = theOneSiard(id, head, state);
  const dir = path.dirname(siardFile) === '.' ? '' : path.dirname(siardFile);
  const inDir = (rel: string) => (dir ? `${dir}/${rel}` : rel);
  const parentPath = inDir(METS_FILE_NAME);
  if (state.has(parentPath) && !options.replace) {
    const message = `Object "${id}" already has a METS index (${parentPath} in ${head}); give --replace to write it again.`;
    throw new UsageError(message, 'METS_EXISTS');
  }

  const open = (cp: string) => storedFile(object.storage, object.storagePath(cp));
  const { files, digestTypes, note } = await lobFilesOfCells(object, state, siardFile, open);
  const checksumType = chooseChecksumType(id, digestTypes, object.digestAlgorithm, object.fixityAlgorithms());
  const facts = new ContentFacts(object, id, OCFL_ALGORITHM_OF_DIGEST_TYPE[checksumType]!);
  const segments = await files.place(HEX_LENGTH_OF_DIGEST_NAME[checksumType], placeInSegment({ id, siardFile, dir }, facts));
  const newChildren = segments.map((s) => inDir(`${s}/${METS_FILE_NAME}`));
  const taken = newChildren.filter((p) => state.has(p));
  if (taken.length > 0 && !options.replace) {
    const message = `Object "${id}" already holds ${taken[0]} in ${head}; give --replace to write the METS index again.`;
    throw new UsageError(message, 'METS_EXISTS');
  }
  const siardFacts = [];
  for (const m of members) siardFacts.push({ path: path.basename(m), ...(await facts.of(m)) });
  const oldFiles = async () => (options.replace ? oldMetsFiles(object, state, parentPath, newChildren) : []);
  const index = { id, checksumType, dir, files, siardFacts, oldFiles };
  const { version, written } = await commitMetsIndex(root, object, index, options);
  return {
    id,
    version,
    objectPath: object.path,
    siardFile,
    checksumType,
    parent: written.parent.path,
    children: written.children.map((c) => ({ path: c.path, segment: c.segment, files: c.fileCount })),
    lobFiles: files.size,
    rehashed: facts.rehashed,
    notes: note !== undefined ? [note] : [],
  };
}

/**
 * The one archive of the head a METS index describes, and the files it is made of (its segments for
 * a segmented SIARD file, which counts as one archive named by its stem; the parent lists every segment).
 */
function theOneSiard(id: string, head: string, state: ReadonlyMap<string, string>): { siardFile: string; members: string[] } {
  const sets = groupSegmentNames(state.keys());
  const siards = [...[...state.keys()].filter(isSiardFileName), ...sets.map((x) => x.base)];
  if (siards.length !== 1) {
    throw new SiardOcflError(
      siards.length === 0
        ? `Object "${id}" holds no .siard in ${head}, so there is nothing for a METS index to describe.`
        : `Object "${id}" holds ${siards.length} .siard files in ${head} (${siards.slice(0, 3).join(', ')}); a METS index describes one.`,
      { code: siards.length === 0 ? 'METS_NO_SIARD' : 'METS_MANY_SIARDS', exitCode: 2 },
    );
  }
  const siardFile = siards[0]!;
  return { siardFile, members: sets.find((x) => x.base === siardFile)?.members.map((m) => m.name) ?? [siardFile] };
}

/**
 * Size and checksum of a logical path's content: the checksum from the inventory (the manifest when
 * it uses the algorithm, else its fixity block); a file the inventory lacks is read and counted.
 */
class ContentFacts {
  /** content path -> lower-case checksum, of the files read because the inventory lacks it */
  private readonly hashed = new Map<string, string>();
  rehashed = 0;

  constructor(
    private readonly object: OcflObjectReader,
    private readonly id: string,
    private readonly algorithm: string,
  ) {}

  async of(logicalPath: string): Promise<{ size: number; checksum: string }> {
    const { object, algorithm } = this;
    const cp = object.contentPath(logicalPath);
    const st = await object.storage.stat(object.storagePath(cp));
    if (!st) {
      const message = `The content file ${cp} of ${logicalPath} (object "${this.id}") is missing from storage; run audit.`;
      throw new SiardOcflError(message, { code: 'CONTENT_MISSING', exitCode: 1 });
    }
    let checksum = object.contentDigest(algorithm, cp) ?? this.hashed.get(cp);
    if (checksum === undefined) {
      this.rehashed++;
      const hasher = await MultiHasher.create([algorithm]);
      for await (const chunk of object.storage.readStream(object.storagePath(cp))) hasher.update(chunk as Buffer);
      checksum = hasher.digests()[algorithm]!;
      this.hashed.set(cp, checksum);
    }
    return { size: st.size, checksum };
  }
}

/**
 * The segment folder of a LOB file (from its path, else its top folder beside the .siard), with the
 * size and checksum the child METS lists; called for each file in the order the cells first name it.
 */
function placeInSegment(where: { id: string; siardFile: string; dir: string }, facts: ContentFacts) {
  const { id, siardFile, dir } = where;
  return async (logicalPath: string): Promise<LobFilePlace> => {
    const rel = dir ? logicalPath.slice(dir.length + 1) : logicalPath;
    const info = lobPathInfo(rel);
    const slash = rel.indexOf('/');
    if ((dir && !logicalPath.startsWith(`${dir}/`)) || (!info && slash < 0)) {
      const message =
        `The LOB file ${logicalPath} of object "${id}" lies in no folder beside ${siardFile}, ` + `so no segment METS can list it.`;
      throw new SiardOcflError(message, { code: 'METS_NO_SEGMENT', exitCode: 2 });
    }
    const segment = info?.segment ?? rel.slice(0, slash);
    const inner = info?.path ?? rel.slice(slash + 1);
    return { segment, path: inner, ...(await facts.of(logicalPath)) };
  };
}

/** What the new version holds: the METS files to write, and the old ones a --replace removes. */
interface MetsIndexPlan {
  id: string;
  checksumType: MetsChecksumType;
  dir: string;
  /** placed: the records, grouped by segment */
  files: LobFileTable;
  siardFacts: Array<{ path: string; size: number; checksum: string }>;
  /** read once the new version is started, as the object then is */
  oldFiles: () => Promise<string[]>;
}

/** Writes the index as the object's next version; nothing is committed if the object moved on meanwhile. */
async function commitMetsIndex(root: OcflStorageRoot, object: OcflObjectReader, index: MetsIndexPlan, options: AddMetsOptions) {
  const id = index.id;
  const algorithm = OCFL_ALGORITHM_OF_DIGEST_TYPE[index.checksumType]!;
  const staged = await root.startVersion(id, { fixityAlgorithms: [algorithm], known: object.known() });
  try {
    if (staged.version !== nextVersionName(object.head)) {
      const message = `Object "${id}" changed while its METS index was prepared (now ${staged.version} would follow); run mets again.`;
      throw new SiardOcflError(message, { code: 'OBJECT_CHANGED', exitCode: 2 });
    }
    for (const p of await index.oldFiles()) await staged.remove(p);
    const sink = new StagedVersionSink(staged);
    const writer = new MetsIndexWriter(sink, { objId: id, checksumType: index.checksumType, ...(index.dir ? { baseDir: index.dir } : {}) });
    for (const { segment, records } of index.files.segments()) {
      for (const r of records) await writer.add(r);
      await writer.endSegment(segment);
    }
    const written = await writer.finish(index.siardFacts[0]!, index.siardFacts.slice(1));
    await sink.commit();
    const message = options.message ?? 'siard-ocfl mets: METS index of the LOB segment folders';
    const commit = await staged.commit({ message, ...(options.user ? { user: options.user } : {}) });
    return { version: commit.version, written };
  } catch (err) {
    await staged.abort().catch(() => undefined);
    throw err;
  }
}

/** Every external LOB file the cells reference (each part of a split LOB), and the digestTypes seen. */
async function lobFilesOfCells(
  object: OcflObjectReader,
  state: ReadonlyMap<string, string>,
  siardFile: string,
  abs: (contentPath: string) => Promise<string | ByteSource>,
) {
  const zipped = firstZippedLobFolder(state.keys());
  if (zipped !== undefined) {
    const why = 'a METS index of zipped LOB folders is not supported yet';
    throw new UsageError(`Object "${object.id}" keeps its LOB folders zipped (${zipped}); ${why}.`, 'METS_ZIPPED_LOBS');
  }
  const set = groupSegmentNames(state.keys()).find((x) => x.base === siardFile);
  const siard = set
    ? await openSiardSegments(set, (name) => abs(object.contentPath(name)), { label: `${siardFile}.1 ... .z` })
    : await SiardReader.open(await abs(object.contentPath(siardFile)), { siardPath: siardFile });
  const files = new LobFileTable();
  const digestTypes = new Set<SiardDigestType>();
  let lobs: StorageBaseLookup | undefined;
  try {
    const access: LobAccess = {
      exists: async (part: LobPart) => (part.kind === 'internal' ? siard.hasEntry(part.entry) : state.has(part.path)),
      open: async () => {
        throw new Error('not used');
      },
      size: async () => 0,
    };
    lobs = new StorageBaseLookup(siard, access, {
      bases: async () => [await storageBaseOf(object, siardFile, object.head, abs)],
      label: siardFile,
      container: 'the object',
      verb: 'listed',
    });
    for (const t of siard.tables()) {
      for await (const cell of siard.lobCells(t)) {
        const lookup = await lobs.lookup(cell);
        const found = lookup.status === 'found' ? lookup.found : undefined;
        if (!found) {
          throw new SiardOcflError(
            `${describeLobCell(siard, cell)}: LOB file "${cell.ref.file}" is not in ${object.head} of object "${object.id}", so ` +
              `the METS index would be incomplete; run audit.`,
            {
              code: 'LOB_MISSING',
              exitCode: 1,
            },
          );
        }
        if (found.parts[0]!.kind === 'internal') continue; // inside the .siard: not in a segment folder
        if (cell.ref.digestType) digestTypes.add(cell.ref.digestType);
        const identity: LobIdentity = { schema: cell.schemaIndex, table: cell.tableIndex, column: cell.column, row: cell.row };
        found.parts.forEach((p, i) => {
          const logicalPath = (p as { path: string }).path;
          const partName = found.parts.length > 1 ? (lobPathInfo(logicalPath)?.identity.part ?? String(i)) : undefined;
          // two cells sharing one file: listed once, under the first (add() keeps the first)
          files.add(logicalPath, partName === undefined ? identity : { ...identity, part: partName }, cell.mimeType || undefined);
        });
      }
    }
  } finally {
    siard.close();
  }
  return { files, digestTypes, note: lobs?.note };
}

/** The one LOB digest algorithm of the archive: the cells', else the inventory's, else SHA-256. */
function chooseChecksumType(
  id: string,
  digestTypes: Set<SiardDigestType>,
  manifestAlgorithm: string,
  fixityAlgorithms: string[],
): MetsChecksumType {
  if (digestTypes.size > 1) {
    throw new SiardOcflError(
      `The LOB cells of object "${id}" use more than one digestType (${[...digestTypes].join(', ')}); a METS index has one CHECKSUMTYPE.`,
      { code: 'METS_MIXED_DIGESTS', exitCode: 2 },
    );
  }
  if (digestTypes.size === 1) return [...digestTypes][0]!;
  const inInventory = SIARD_DIGEST_TYPES.filter((t) =>
    [manifestAlgorithm, ...fixityAlgorithms].includes(OCFL_ALGORITHM_OF_DIGEST_TYPE[t]!),
  );
  return (inInventory.includes('SHA-256') ? 'SHA-256' : (inInventory[0] ?? 'SHA-256')) as MetsChecksumType;
}

/** With --replace: the head's parent METS, the children it lists, and any at the new children's places. */
async function oldMetsFiles(
  object: OcflObjectReader,
  state: ReadonlyMap<string, string>,
  parentPath: string,
  newChildren: string[],
): Promise<string[]> {
  const out = new Set<string>();
  if (state.has(parentPath)) {
    out.add(parentPath);
    try {
      const parent = await parseMets(await object.readLogical(parentPath), parentPath);
      for (const p of childMetsPaths(parentPath, parent)) if (state.has(p)) out.add(p);
    } catch {
      // An unreadable old parent: its children are found at the new children's places below.
    }
  }
  for (const p of newChildren) if (state.has(p)) out.add(p);
  return [...out];
}
