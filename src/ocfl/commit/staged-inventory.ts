/**
 * The new version's inventory as a source of its canonical bytes (inventory/chunks.ts), taken from
 * the staged changes. For a new object every block comes straight from the staged maps: no
 * Inventory of JavaScript objects is built (at a million files its manifest and state objects and
 * their million small arrays cost some 300 MB). An existing object goes through nextInventory, as
 * before when it is held as JavaScript objects (FullBase), and from the blocks of its compact view
 * otherwise (ViewBase). Either way the bytes are those of serializeInventory(nextInventory(...)).
 */
import { byCodeUnit, type InventorySource, type PathBlock, sourceOfInventory, type VersionSource } from '../inventory/chunks.js';
import { FullBase, type StagingBase, ViewBase } from './staging-base.js';
import { INVENTORY_TYPE_1_0, INVENTORY_TYPE_1_1, type Inventory } from '../inventory/inventory.js';
import { nextInventory, type StagedChanges, versionFields, type VersionMetadata } from './next-inventory.js';
import { viewFixity } from './view-fixity.js';
import { compactStaged } from './staged-state.js';

/**
 * A block of n (key, path) pairs grouped by key: keys in code-unit order, each key's paths sorted.
 * Pairs are sorted as indexes (4 bytes each), not as a million small arrays.
 */
function groupedBlock(keys: readonly string[], paths: readonly string[]): PathBlock {
  return function* () {
    const order = new Uint32Array(keys.length);
    for (let i = 0; i < order.length; i++) order[i] = i;
    order.sort((a, b) => byCodeUnit(keys[a]!, keys[b]!) || byCodeUnit(paths[a]!, paths[b]!));
    for (let i = 0; i < order.length;) {
      const key = keys[order[i]!]!;
      const group: string[] = [];
      for (; i < order.length && keys[order[i]!] === key; i++) group.push(paths[order[i]!]!);
      yield [key, group] as const;
    }
  };
}

/** The source of a new object's first inventory, straight from the staged maps (their blocks when they are a StagedState's). */
function newObjectSource(changes: StagedChanges, metadata: VersionMetadata): InventorySource {
  const fields = versionFields(metadata);
  const compact = compactStaged(changes.state);
  if (compact) {
    return {
      digestAlgorithm: changes.digestAlgorithm,
      head: changes.version,
      id: changes.id,
      type: changes.ocflVersion === '1.0' ? INVENTORY_TYPE_1_0 : INVENTORY_TYPE_1_1,
      fixity: [...changes.fixityAlgorithms].sort(byCodeUnit).map((alg) => [alg, compact.fixityBlock(alg)] as const),
      manifest: compact.manifestBlock(),
      versions: [[changes.version, { ...fields, state: compact.stateBlock() }]],
    };
  }
  const logical: string[] = [];
  const stateKeys: string[] = [];
  for (const [p, digest] of changes.state) {
    logical.push(p);
    stateKeys.push(changes.knownDigests.get(digest) ?? digest);
  }
  const content = [...changes.newContent.values()];
  const contentPaths = content.map((c) => c.contentPath);
  return {
    digestAlgorithm: changes.digestAlgorithm,
    head: changes.version,
    id: changes.id,
    type: changes.ocflVersion === '1.0' ? INVENTORY_TYPE_1_0 : INVENTORY_TYPE_1_1,
    fixity: [...changes.fixityAlgorithms].sort(byCodeUnit).map(
      (alg) =>
        [
          alg,
          groupedBlock(
            content.map((c) => c.digests![alg]!),
            contentPaths,
          ),
        ] as const,
    ),
    manifest: groupedBlock([...changes.newContent.keys()], contentPaths),
    versions: [[changes.version, { ...fields, state: groupedBlock(stateKeys, logical) }]],
  };
}

/** Two sorted blocks with no key in common, as one. */
function mergedBlock(a: PathBlock, b: PathBlock): PathBlock {
  return function* () {
    const left = a()[Symbol.iterator]();
    const right = b()[Symbol.iterator]();
    let l = left.next();
    let r = right.next();
    while (!l.done || !r.done) {
      if (r.done || (!l.done && byCodeUnit(l.value[0], r.value[0]) < 0)) {
        yield l.value;
        l = left.next();
      } else {
        yield r.value;
        r = right.next();
      }
    }
  };
}

/**
 * The new head state of an object read as a view (its keys are its digests). A StagedState gives
 * its own block: copying a million paths out of it as strings would cost ~200 MB at the commit.
 */
function headStateBlock(changes: StagedChanges): PathBlock {
  const compact = compactStaged(changes.state);
  if (compact) return compact.stateBlock();
  const logical: string[] = [];
  const stateKeys: string[] = [];
  for (const [p, digest] of changes.state) {
    logical.push(p);
    stateKeys.push(digest);
  }
  return groupedBlock(stateKeys, logical);
}

/** The source of the next inventory of an object read as a compact view, its fixity blocks made by viewFixity. */
function viewBaseSource(
  base: ViewBase,
  changes: StagedChanges,
  metadata: VersionMetadata,
  fixity: InventorySource['fixity'],
): InventorySource {
  const added = [...changes.newContent.keys()].sort(byCodeUnit);
  const addedBlock: PathBlock = function* () {
    for (const digest of added) yield [digest, [changes.newContent.get(digest)!.contentPath]] as const;
  };
  const prior = base.view.versions().map((v) => {
    const version: VersionSource = { created: v.created, state: base.stateBlock(v.version) };
    if (v.message !== undefined) version.message = v.message;
    if (v.user !== undefined) version.user = v.user;
    return [v.version, version] as const;
  });
  return {
    ...(base.contentDirectory !== undefined ? { contentDirectory: base.contentDirectory } : {}),
    digestAlgorithm: base.digestAlgorithm,
    head: changes.version,
    id: base.id,
    type: base.type,
    fixity,
    manifest: mergedBlock(base.manifestBlock(), addedBlock),
    versions: [...prior, [changes.version, { ...versionFields(metadata), state: headStateBlock(changes) }]],
  };
}

export interface StagedInventory {
  source: InventorySource;
  /** The inventory as JavaScript objects, built only when asked for (a commit's result). */
  inventory: () => Inventory;
}

/**
 * The source of the next inventory and a way to get it as objects. `metadata.created` is fixed
 * here, so that both give the same version. `complete` adds to an existing object's inventory
 * what it lacks (fixity read again from stored content) before it is written; for a base read as
 * a view (ViewBase) it is given a stand-in inventory of the content that lacks fixity (see view-fixity.ts).
 */
export async function stagedInventory(
  changes: Omit<StagedChanges, 'base'>,
  base: StagingBase | undefined,
  metadata: VersionMetadata,
  complete: (inv: Inventory) => Promise<void>,
): Promise<StagedInventory> {
  const fixed: VersionMetadata = { ...metadata, created: versionFields(metadata).created };
  if (base instanceof FullBase) {
    const inv = nextInventory({ ...changes, base: base.inventory }, fixed);
    await complete(inv);
    return { source: sourceOfInventory(inv), inventory: () => inv };
  }
  let built: Inventory | undefined;
  if (base instanceof ViewBase) {
    const fixity = await viewFixity(base, { ...changes, base: undefined }, complete);
    return {
      source: viewBaseSource(base, { ...changes, base: undefined }, fixed, fixity.blocks),
      inventory: () => (built ??= fixity.complete(nextInventory({ ...changes, base: base.toInventory() }, fixed))),
    };
  }
  return {
    source: newObjectSource({ ...changes, base: undefined }, fixed),
    inventory: () => (built ??= nextInventory({ ...changes, base: undefined }, fixed)),
  };
}
