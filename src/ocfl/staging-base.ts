/**
 * The inventory a new version starts from, as a staged version uses it: its header, which
 * digests it holds (and the first content path of each), its head state, and the source of its
 * blocks for writing the next inventory. Two forms:
 *
 * - FullBase: the inventory as JavaScript objects (any shape; a reader's `known` inventory).
 * - ViewBase: the compact InventoryView of a plain inventory without fixity, when no fixity is
 *   asked for: a million-file base then costs ~190 MB instead of its parsed objects (~840 bytes
 *   per file more than its JSON), and the next inventory is written from the view's blocks.
 */
import type { Inventory } from './inventory.js';
import type { InventoryView } from './inventory-view.js';
import type { PathBlock } from './inventory-chunks.js';

export interface StagingBase {
  readonly id: string;
  readonly type: string;
  readonly digestAlgorithm: string;
  readonly head: string;
  readonly contentDirectory: string | undefined;
  /** The manifest key (as the base writes it) of a lower-case digest, or undefined when the base lacks it. */
  manifestKey(digest: string): string | undefined;
  /** The first content path of a manifest key. */
  firstContentPath(key: string): string;
  /** The head state: logical path and lower-case digest, each path once. */
  headState(): Iterable<readonly [string, string]>;
}

export class FullBase implements StagingBase {
  /** lower-case digest -> manifest key as written (keys may be upper case) */
  private readonly keys = new Map<string, string>();

  constructor(readonly inventory: Inventory) {
    for (const key of Object.keys(inventory.manifest)) this.keys.set(key.toLowerCase(), key);
  }

  get id(): string {
    return this.inventory.id;
  }
  get type(): string {
    return this.inventory.type;
  }
  get digestAlgorithm(): string {
    return this.inventory.digestAlgorithm;
  }
  get head(): string {
    return this.inventory.head;
  }
  get contentDirectory(): string | undefined {
    return this.inventory.contentDirectory;
  }

  manifestKey(digest: string): string | undefined {
    return this.keys.get(digest);
  }

  firstContentPath(key: string): string {
    return this.inventory.manifest[key]![0]!;
  }

  *headState(): Iterable<readonly [string, string]> {
    for (const [digest, paths] of Object.entries(this.inventory.versions[this.inventory.head]!.state)) {
      const lower = digest.toLowerCase();
      for (const p of paths) yield [p, lower] as const;
    }
  }
}

export class ViewBase implements StagingBase {
  constructor(readonly view: InventoryView) {}

  get id(): string {
    return this.view.id;
  }
  get type(): string {
    return this.view.type;
  }
  get digestAlgorithm(): string {
    return this.view.digestAlgorithm;
  }
  get head(): string {
    return this.view.head;
  }
  get contentDirectory(): string | undefined {
    return this.view.contentDirectory;
  }

  manifestKey(digest: string): string | undefined {
    // A plain inventory's keys are lower-case hex: the key is the digest itself.
    return this.view.manifestPaths(digest) ? digest : undefined;
  }

  firstContentPath(key: string): string {
    return this.view.manifestPaths(key)![0]!;
  }

  headState(): Iterable<readonly [string, string]> {
    return this.view.state(this.view.head);
  }

  /** The versions' names in numeric order. */
  versionNames(): string[] {
    return this.view.versions().map((v) => v.version);
  }

  manifestBlock(): PathBlock {
    return () => this.view.manifestEntries();
  }

  stateBlock(version: string): PathBlock {
    return () => this.view.stateEntries(version);
  }

  /** The base as JavaScript objects (for a commit's result, when asked for). */
  toInventory(): Inventory {
    const versions: Inventory['versions'] = {};
    for (const v of this.view.versions()) {
      versions[v.version] = { created: v.created, state: Object.fromEntries(this.view.stateEntries(v.version)) };
      if (v.message !== undefined) versions[v.version]!.message = v.message;
      if (v.user !== undefined) versions[v.version]!.user = { ...v.user };
    }
    const inv: Inventory = {
      id: this.id,
      type: this.type,
      digestAlgorithm: this.digestAlgorithm,
      head: this.head,
      manifest: Object.fromEntries(this.view.manifestEntries()),
      versions,
    };
    if (this.contentDirectory !== undefined) inv.contentDirectory = this.contentDirectory;
    return inv;
  }
}
