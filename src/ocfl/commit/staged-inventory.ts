/**
 * The new version's inventory as a source of its canonical bytes (inventory/chunks.ts), taken from
 * the staged changes. For a new object every block comes straight from the StagedState: no
 * Inventory of JavaScript objects is built (at a million files its manifest and state objects and
 * their million small arrays cost some 300 MB). An existing object's comes from the blocks of its
 * compact view (every block kept: a million-file base costs ~190 MB, and some 80 MB per fixity
 * block, instead of its parsed objects' ~840 bytes per file more than its JSON), keys as the base
 * writes them.
 */
import { byCodeUnit, type InventorySource, type PathBlock, type VersionSource } from '../inventory/chunks.js';
import type { InventoryView } from '../inventory/view.js';
import { INVENTORY_TYPE_1_0, INVENTORY_TYPE_1_1, type InventoryVersion, type User } from '../inventory/inventory.js';
import { UsageError } from '../../errors.js';
import { type FixityChanges, viewFixity } from './view-fixity.js';
import type { StagedState } from './staged-state.js';

export interface VersionMetadata {
  message?: string;
  user?: User;
  created?: Date | string;
}

export interface StagedChanges extends FixityChanges {
  id: string;
  /** Name of the new version. */
  version: string;
  /** OCFL version of a new object. */
  ocflVersion: '1.0' | '1.1';
  /**
   * An existing object's new inventory type when it changes (an upgrade: a version may conform to
   * a later OCFL version than the one before it, E103); default: the base's.
   */
  type?: string | undefined;
  digestAlgorithm: string;
}

/** A version's created, message and user as the inventory records them (created: now by default, to the second). */
export function versionFields(metadata: VersionMetadata): Omit<InventoryVersion, 'state'> {
  const created = metadata.created ?? new Date();
  const fields: Omit<InventoryVersion, 'state'> = {
    created: typeof created === 'string' ? created : created.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
  if (metadata.message !== undefined) fields.message = metadata.message;
  if (metadata.user !== undefined) {
    if (!metadata.user.name) throw new UsageError('A version user needs a name.');
    fields.user = { name: metadata.user.name };
    if (metadata.user.address) fields.user.address = metadata.user.address;
  }
  return fields;
}

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

/** A block of the new version keyed by lower-case digests, keyed as the base's manifest writes them (sorted again when that differs). */
function respelled(base: InventoryView, block: PathBlock): PathBlock {
  if (!base.keysAsWritten) return block;
  return () =>
    [...block()].map(([digest, paths]) => [base.manifestKey(digest) ?? digest, paths] as const).sort(([a], [b]) => byCodeUnit(a, b));
}

/** The source of the next inventory of an object read as a compact view, its fixity blocks made by viewFixity. */
function viewBaseSource(
  base: InventoryView,
  staged: StagedState,
  changes: StagedChanges,
  metadata: VersionMetadata,
  fixity: InventorySource['fixity'],
): InventorySource {
  const prior = base.versions().map((v) => {
    const version: VersionSource = { created: v.created, state: () => base.stateEntries(v.version) };
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
    manifest: mergedBlock(() => base.manifestEntries(), staged.manifestBlock()),
    versions: [...prior, [changes.version, { ...versionFields(metadata), state: respelled(base, staged.stateBlock()) }]],
  };
}

/**
 * The source of the next inventory, from what `staged` holds and `changes` says of it. On an
 * existing object, `digestsOf` reads stored content again for the fixity its blocks lack (see
 * view-fixity.ts).
 */
export async function stagedInventory(
  staged: StagedState,
  changes: StagedChanges,
  base: InventoryView | undefined,
  metadata: VersionMetadata,
  digestsOf: (contentPath: string, algorithms: string[]) => Promise<Record<string, string>>,
): Promise<InventorySource> {
  if (!base) return newObjectSource(staged, changes, metadata);
  return viewBaseSource(base, staged, changes, metadata, await viewFixity(base, staged, changes, digestsOf));
}
