/**
 * The inventory a new version starts from, as a staged version uses it: its header, which
 * digests it holds (and the first content path of each), its head state, and the source of its
 * blocks for writing the next inventory: the compact InventoryView that keeps every block
 * (InventoryView.keepsEveryBlock). A million-file base costs ~190 MB (and some 80 MB per fixity block) instead
 * of its parsed objects (~840 bytes per file more than its JSON), and the next inventory is written
 * from the view's blocks, keys as the base writes them.
 */
import type { DigestBlock } from '../inventory/digest-block.js';
import type { InventoryView } from '../inventory/view.js';
import { byCodeUnit, type PathBlock } from '../inventory/chunks.js';

/** A digest block as the canonical inventory lists it: digests in order, each one's paths sorted. */
function sortedBlock(block: DigestBlock): PathBlock {
  return function* () {
    for (const k of block.sortedEntries()) yield [block.keyOf(k), block.pathsOf(k).sort(byCodeUnit)] as const;
  };
}

export class StagingBase {
  readonly id: string;
  readonly type: string;
  readonly digestAlgorithm: string;
  readonly head: string;
  readonly contentDirectory: string | undefined;

  constructor(readonly view: InventoryView) {
    ({
      id: this.id,
      type: this.type,
      digestAlgorithm: this.digestAlgorithm,
      head: this.head,
      contentDirectory: this.contentDirectory,
    } = view);
  }

  /** The manifest key (as the base writes it) of a lower-case digest, or undefined when the base lacks it. */
  manifestKey(digest: string): string | undefined {
    return this.view.manifestKey(digest);
  }

  /** The first content path of a manifest key. */
  firstContentPath(key: string): string {
    return this.view.manifestPaths(key.toLowerCase())![0]!;
  }

  /** The head state: logical path and lower-case digest, each path once. */
  headState(): Iterable<readonly [string, string]> {
    return this.view.state(this.view.head);
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

  /** The key (as the block writes it) and content paths a fixity block lists under a lower-case digest (none: the digest and no path). */
  fixityEntry(algorithm: string, digest: string): { key: string; paths: string[] } {
    const block = this.view.fixityBlock(algorithm);
    const k = block ? block.findHex(digest) : -1;
    return k < 0 ? { key: digest, paths: [] } : { key: block!.keyOf(k), paths: block!.pathsOf(k) };
  }

  /** A block of the new version keyed by lower-case digests, keyed as the base's manifest writes them (sorted again when that differs). */
  respelled(block: PathBlock): PathBlock {
    if (!this.view.keysAsWritten) return block;
    return () =>
      [...block()].map(([digest, paths]) => [this.manifestKey(digest) ?? digest, paths] as const).sort(([a], [b]) => byCodeUnit(a, b));
  }

  /** Whether a fixity block lists a content path (under any digest). */
  fixityLists(algorithm: string, contentPath: string): boolean {
    return this.view.fixityBlock(algorithm)?.digestOfPath(contentPath) !== undefined;
  }

  /** The content paths of the manifest, each once. */
  contentPaths(): Iterable<string> {
    return this.view.contentPaths();
  }
}
