/**
 * The new version's inventory as a source of its canonical bytes (inventory/chunks.ts), taken from
 * the staged changes. For a new object every block comes straight from the StagedState: no
 * Inventory of JavaScript objects is built (at a million files its manifest and state objects and
 * their million small arrays cost some 300 MB). An existing object's comes from the blocks of its
 * compact view (StagingBase). Either way the bytes are those of serializeInventory(nextInventory(...)).
 */
import { byCodeUnit, type InventorySource, type PathBlock, type VersionSource } from '../inventory/chunks.js';
import type { StagingBase } from './staging-base.js';
import { INVENTORY_TYPE_1_0, INVENTORY_TYPE_1_1, type Inventory } from '../inventory/inventory.js';
import { nextInventory, type StagedChanges, versionFields, type VersionMetadata } from './next-inventory.js';
import { viewFixity } from './view-fixity.js';
import type { StagedState } from './staged-state.js';

/** The source of a new object's first inventory, straight from the staged blocks. */
function newObjectSource(staged: StagedState, changes: StagedChanges, metadata: VersionMetadata): InventorySource {
  return {
    digestAlgorithm: changes.digestAlgorithm,
    head: changes.version,
    id: changes.id,
    type: changes.ocflVersion === '1.0' ? INVENTORY_TYPE_1_0 : INVENTORY_TYPE_1_1,
    fixity: [...changes.fixityAlgorithms].sort(byCodeUnit).map((alg) => [alg, staged.fixityBlock(alg)] as const),
    manifest: staged.manifestBlock(),
    versions: [[changes.version, { ...versionFields(metadata), state: staged.stateBlock() }]],
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

/** The source of the next inventory of an object read as a compact view, its fixity blocks made by viewFixity. */
function viewBaseSource(
  base: StagingBase,
  staged: StagedState,
  changes: StagedChanges,
  metadata: VersionMetadata,
  fixity: InventorySource['fixity'],
): InventorySource {
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
    type: changes.type ?? base.type,
    fixity,
    // The view's keys are its digests, as the staged blocks' are: the new content's manifest
    // entries (never the base's digests) merge into the base's, the state is the staged block.
    manifest: mergedBlock(base.manifestBlock(), staged.manifestBlock()),
    versions: [...prior, [changes.version, { ...versionFields(metadata), state: base.respelled(staged.stateBlock()) }]],
  };
}

export interface StagedInventory {
  source: InventorySource;
  /** The inventory as JavaScript objects, built only when asked for (a commit's result). */
  inventory: () => Inventory;
}

/**
 * The source of the next inventory and a way to get it as objects, from what `staged` holds and
 * `changes` says of it. `metadata.created` is fixed here, so that both give the same version.
 * `complete` adds to an existing object's inventory what it lacks (fixity read again from stored
 * content) before it is written: given a stand-in inventory of the content that lacks fixity (see
 * view-fixity.ts).
 */
export async function stagedInventory(
  staged: StagedState,
  changes: Omit<StagedChanges, 'base' | 'state' | 'newContent'>,
  base: StagingBase | undefined,
  metadata: VersionMetadata,
  complete: (inv: Inventory) => Promise<void>,
): Promise<StagedInventory> {
  const fixed: VersionMetadata = { ...metadata, created: versionFields(metadata).created };
  const all: StagedChanges = { ...changes, state: staged.state, newContent: staged.newContent, base: undefined };
  let built: Inventory | undefined;
  if (base) {
    const fixity = await viewFixity(base, all, complete);
    return {
      source: viewBaseSource(base, staged, all, fixed, fixity.blocks),
      inventory: () => (built ??= fixity.complete(nextInventory({ ...all, base: base.toInventory() }, fixed))),
    };
  }
  return { source: newObjectSource(staged, all, fixed), inventory: () => (built ??= nextInventory(all, fixed)) };
}
