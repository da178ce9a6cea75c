/**
 * The inventory of a new version, from the base inventory (none for a new object) and what the
 * staged version holds: a pure function, so what a commit writes can be read (and tested) apart
 * from the staging that gathers it.
 */
import { INVENTORY_TYPE_1_0, INVENTORY_TYPE_1_1, type Inventory, type InventoryVersion, type User } from '../inventory/inventory.js';
import { UsageError } from '../../errors.js';

export interface VersionMetadata {
  message?: string;
  user?: User;
  created?: Date | string;
}

export interface StagedChanges {
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
  fixityAlgorithms: readonly string[];
  base: Inventory | undefined;
  /** lower-case digest -> manifest key as written in the base inventory */
  knownDigests: { get(digest: string): string | undefined };
  /** Content stored by this version: (digest, its content path and every digest of it), each digest once. */
  newContent: Iterable<readonly [string, { contentPath: string; digests?: Record<string, string> | undefined }]>;
  /** The new version's state: (logical path, manifest digest in lower case), each path once. */
  state: Iterable<readonly [string, string]>;
  /** Digests computed this session for content the base already has: digest -> algorithm -> value. */
  extraFixity: ReadonlyMap<string, Record<string, string>>;
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

export function nextInventory(changes: StagedChanges, metadata: VersionMetadata): Inventory {
  // Copies only of what this version adds to (no deep clone: a million-entry manifest is
  // shared, not duplicated); path lists are replaced, never pushed to, below.
  const { base, knownDigests } = changes;
  const inv: Inventory = base
    ? {
        ...base,
        manifest: { ...base.manifest },
        versions: { ...base.versions },
        ...(base.fixity ? { fixity: Object.fromEntries(Object.entries(base.fixity).map(([alg, block]) => [alg, { ...block }])) } : {}),
      }
    : {
        id: changes.id,
        type: changes.ocflVersion === '1.0' ? INVENTORY_TYPE_1_0 : INVENTORY_TYPE_1_1,
        digestAlgorithm: changes.digestAlgorithm,
        head: '',
        manifest: {},
        versions: {},
      };
  inv.head = changes.version;
  if (base && changes.type !== undefined) inv.type = changes.type;
  const keyOf = (digest: string) => knownDigests.get(digest) ?? digest;
  for (const [digest, c] of changes.newContent) inv.manifest[digest] = [c.contentPath];
  const state: Record<string, string[]> = {};
  for (const [p, digest] of changes.state) (state[keyOf(digest)] ??= []).push(p);
  const { created, ...described } = versionFields(metadata);
  inv.versions[changes.version] = { created, state, ...described };
  if (changes.fixityAlgorithms.length > 0) {
    inv.fixity ??= {};
    for (const alg of changes.fixityAlgorithms) {
      const block = (inv.fixity[alg] ??= {});
      // Existing keys may be upper case (digests compare case-insensitively): index them once.
      const keys = new Map(Object.keys(block).map((k) => [k.toLowerCase(), k]));
      const add = (value: string, contentPath: string) => {
        const key = keys.get(value) ?? value;
        keys.set(value, key);
        const paths = block[key];
        if (!paths) block[key] = [contentPath];
        else if (!paths.includes(contentPath)) block[key] = [...paths, contentPath];
      };
      for (const [, c] of changes.newContent) add(c.digests![alg]!, c.contentPath);
      // Content stored earlier and met again now: its digest for `alg` is known without rereading.
      for (const [digest, digests] of changes.extraFixity) for (const cp of inv.manifest[keyOf(digest)]!) add(digests[alg]!, cp);
    }
  }
  return inv;
}

/** Content paths of an inventory with no fixity entry for `alg` (stored before the algorithm was asked for). */
export function contentWithoutFixity(inv: Inventory, alg: string): string[] {
  const covered = new Set(Object.values(inv.fixity?.[alg] ?? {}).flat());
  return Object.values(inv.manifest)
    .flat()
    .filter((cp) => !covered.has(cp));
}
