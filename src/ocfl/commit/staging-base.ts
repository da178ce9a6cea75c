/**
 * The inventory a new version starts from, as a staged version uses it: its header, which
 * digests it holds (and the first content path of each), its head state, and the source of its
 * blocks for writing the next inventory. Two forms:
 *
 * - FullBase: the inventory as JavaScript objects (any shape; a reader's `known` inventory).
 * - ViewBase: the compact InventoryView of a plain inventory whose fixity blocks the view keeps
 *   (those of the algorithms this tool computes): a million-file base then costs ~190 MB (and
 *   some 80 MB per fixity block) instead of its parsed objects (~840 bytes per file more than its
 *   JSON), and the next inventory is written from the view's blocks.
 */
import type { Inventory } from '../inventory/inventory.js';
import type { DigestBlock } from '../inventory/digest-block.js';
import type { InventoryView } from '../inventory/view.js';
import { byCodeUnit, type PathBlock } from '../inventory/chunks.js';

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

type Header = Pick<StagingBase, 'id' | 'type' | 'digestAlgorithm' | 'head'> & { contentDirectory?: string | undefined };

/** The header fields of a base, copied from what it is read from (neither changes while a version is staged). */
abstract class BaseHeader {
  readonly id: string;
  readonly type: string;
  readonly digestAlgorithm: string;
  readonly head: string;
  readonly contentDirectory: string | undefined;

  constructor(header: Header) {
    this.id = header.id;
    this.type = header.type;
    this.digestAlgorithm = header.digestAlgorithm;
    this.head = header.head;
    this.contentDirectory = header.contentDirectory;
  }
}

export class FullBase extends BaseHeader implements StagingBase {
  /** lower-case digest -> manifest key as written (keys may be upper case) */
  private readonly keys = new Map<string, string>();

  constructor(readonly inventory: Inventory) {
    super(inventory);
    for (const key of Object.keys(inventory.manifest)) this.keys.set(key.toLowerCase(), key);
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

/** A digest block as the canonical inventory lists it: digests in order, each one's paths sorted. */
function sortedBlock(block: DigestBlock): PathBlock {
  return function* () {
    for (const k of block.sortedEntries()) yield [block.digestOf(k), block.pathsOf(k).sort(byCodeUnit)] as const;
  };
}

export class ViewBase extends BaseHeader implements StagingBase {
  constructor(readonly view: InventoryView) {
    super(view);
  }

  /**
   * Whether a view can be a writer's base: a fixity block of an algorithm this tool does not
   * compute is only checked, not kept, so its bytes could not be written again (parse in full).
   */
  static canWrite(view: InventoryView): boolean {
    return view.fixityAlgorithms().every((alg) => view.fixityBlock(alg) !== undefined);
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

  /** The names of the fixity blocks. */
  fixityAlgorithms(): string[] {
    return this.view.fixityAlgorithms();
  }

  fixityBlock(algorithm: string): PathBlock {
    return sortedBlock(this.view.fixityBlock(algorithm)!);
  }

  /** The content paths a fixity block lists under a lower-case digest (none: an empty list). */
  fixityPaths(algorithm: string, digest: string): string[] {
    const block = this.view.fixityBlock(algorithm);
    const k = block ? block.findHex(digest) : -1;
    return k < 0 ? [] : block!.pathsOf(k);
  }

  /** Whether a fixity block lists a content path (under any digest). */
  fixityLists(algorithm: string, contentPath: string): boolean {
    return this.view.fixityBlock(algorithm)?.digestOfPath(contentPath) !== undefined;
  }

  /** The content paths of the manifest, each once. */
  contentPaths(): Iterable<string> {
    return this.view.contentPaths();
  }

  /** The (lower-case) manifest digest of a content path of the manifest. */
  manifestDigest(contentPath: string): string {
    return this.view.contentDigest(this.digestAlgorithm, contentPath)!;
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
    if (this.view.hasFixity) {
      inv.fixity = {};
      for (const alg of this.fixityAlgorithms()) {
        const block = this.view.fixityBlock(alg)!;
        const entries: Record<string, string[]> = (inv.fixity[alg] = {});
        for (let k = 0; k < block.entries; k++) entries[block.digestOf(k)] = block.pathsOf(k);
      }
    }
    return inv;
  }
}
