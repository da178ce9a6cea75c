/**
 * The fixity blocks of the next inventory of an object read as a compact view (InventoryView): the
 * base's blocks kept, and in each algorithm asked for, the fixity of the content the version
 * stores, that of content stored before and met again (a content path listed once under a
 * digest), and that of stored content the block lacks, read again from storage. Only what is
 * added is held as strings; the base's blocks are read from the view as they are written.
 */
import { byCodeUnit, type PathBlock } from '../inventory/chunks.js';
import type { StagedState } from './staged-state.js';
import type { DigestBlock } from '../inventory/digest-block.js';
import type { InventoryView } from '../inventory/view.js';

/** digest -> content paths: what a version adds to one fixity block */
type Added = Map<string, string[]>;

function addTo(block: Added, digest: string, contentPaths: readonly string[]): void {
  const paths = block.get(digest);
  if (paths) paths.push(...contentPaths);
  else block.set(digest, [...contentPaths]);
}

/** A digest block as the canonical inventory lists it: digests in order, each one's paths sorted. */
function sortedBlock(block: DigestBlock): PathBlock {
  return function* () {
    for (const k of block.sortedEntries()) yield [block.keyOf(k), block.pathsOf(k).sort(byCodeUnit)] as const;
  };
}

/** The base's block (when it has one) with the entries added, in canonical order. */
function unitedBlock(base: PathBlock | undefined, added: Added): PathBlock {
  return function* () {
    const keys = [...added.keys()].sort(byCodeUnit);
    const addedEntry = (key: string) => [key, [...added.get(key)!].sort(byCodeUnit)] as const;
    let i = 0;
    for (const [key, paths] of base?.() ?? []) {
      for (; i < keys.length && byCodeUnit(keys[i]!, key) < 0; i++) yield addedEntry(keys[i]!);
      if (keys[i] === key) yield [key, [...paths, ...added.get(keys[i++]!)!].sort(byCodeUnit)] as const;
      else yield [key, paths] as const;
    }
    for (; i < keys.length; i++) yield addedEntry(keys[i]!);
  };
}

/** What a version asks of fixity: its algorithms, and digests computed this session for content the base already has. */
export interface FixityChanges {
  fixityAlgorithms: readonly string[];
  /** digest -> algorithm -> value */
  extraFixity: ReadonlyMap<string, Record<string, string>>;
}

/** What the staged version adds to the fixity blocks: each content path once under a digest (the base's paths included). */
function stagedFixity(base: InventoryView, staged: StagedState, changes: FixityChanges): Map<string, Added> {
  const out = new Map<string, Added>();
  for (const alg of changes.fixityAlgorithms) {
    const block: Added = new Map();
    out.set(alg, block);
    const inBase = base.fixityBlock(alg);
    const add = (value: string, contentPath: string) => {
      // Under the key the base writes for the digest (it may be upper case).
      const k = inBase ? inBase.findHex(value) : -1;
      const key = k < 0 ? value : inBase!.keyOf(k);
      if (block.get(key)?.includes(contentPath) || (k >= 0 && inBase!.pathsOf(k).includes(contentPath))) return;
      addTo(block, key, [contentPath]);
    };
    for (const [, c] of staged.newContent) add(c.digests![alg]!, c.contentPath);
    // Content stored earlier and met again now: its digest for `alg` is known without rereading.
    for (const [digest, digests] of changes.extraFixity) for (const cp of base.manifestPaths(digest)!) add(digests[alg]!, cp);
  }
  return out;
}

/** The fixity of stored content that a block asked for lacks, read again through `digestsOf`. */
async function completedFixity(
  base: InventoryView,
  staged: Map<string, Added>,
  digestsOf: (contentPath: string, algorithms: string[]) => Promise<Record<string, string>>,
): Promise<Map<string, Added>> {
  const algorithms = [...staged.keys()];
  const out = new Map(algorithms.map((alg) => [alg, new Map() as Added]));
  if (algorithms.length === 0) return out;
  const addedPaths = new Map(algorithms.map((alg) => [alg, new Set([...staged.get(alg)!.values()].flat())]));
  for (const contentPath of base.contentPaths()) {
    const lacking = algorithms.filter(
      (alg) => !addedPaths.get(alg)!.has(contentPath) && base.fixityBlock(alg)?.digestOfPath(contentPath) === undefined,
    );
    if (lacking.length === 0) continue;
    const digests = await digestsOf(contentPath, lacking);
    for (const alg of lacking) addTo(out.get(alg)!, digests[alg]!, [contentPath]);
  }
  return out;
}

/** Algorithm -> block, in code-unit order of the algorithms (none: no fixity member). */
export async function viewFixity(
  base: InventoryView,
  stagedState: StagedState,
  changes: FixityChanges,
  digestsOf: (contentPath: string, algorithms: string[]) => Promise<Record<string, string>>,
): Promise<Array<readonly [string, PathBlock]>> {
  const staged = stagedFixity(base, stagedState, changes);
  const completed = await completedFixity(base, staged, digestsOf);
  const algorithms = [...new Set([...base.fixityAlgorithms(), ...changes.fixityAlgorithms])].sort(byCodeUnit);
  return algorithms.map((alg) => {
    const inBase = base.fixityAlgorithms().includes(alg) ? sortedBlock(base.fixityBlock(alg)!) : undefined;
    const added = staged.get(alg);
    if (!added) return [alg, inBase!] as const;
    const all: Added = new Map([...added].map(([digest, paths]) => [digest, [...paths]]));
    for (const [digest, paths] of completed.get(alg)!) addTo(all, digest, paths);
    return [alg, unitedBlock(inBase, all)] as const;
  });
}
