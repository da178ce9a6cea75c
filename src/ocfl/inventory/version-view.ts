/**
 * One version of an inventory read light: its state (logical path -> digest) and the content path
 * of each of its digests, nothing else kept. The reading room opens an object to show one version;
 * InventoryView of a million-LOB object holds every state, the manifest's digests and paths beside
 * the state's (~300 bytes a file, 726 MB browsing it), this one digest and logical path once each.
 *
 * Read in two passes over the file, window by window (inventory/windows.ts), both hashed: the
 * first keeps the version's state (digests as bytes, paths as UTF-8, its buffers sized from the
 * manifest read before it) and the header and versions' metadata, and checks the rest; the second
 * hands each manifest entry to the state's digests (found in order, without a table, when both
 * list them ascending as canonical inventories do), which keep the first content path of each
 * digest they hold as the index of a prefix when the
 * path is `<prefix>/<a logical path of the digest>` (what writers write: `v1/content/` and the
 * path), else as its own string. Undefined (read it as InventoryView does) for what that view
 * declines too (not plain, a state digest the manifest lacks or lists twice) and when the file
 * changed between the passes.
 */
import type { ReadStorage } from '../storage/storage.js';
import { textAt } from './arena.js';
import { DigestBlock } from './digest-block.js';
import { readHashedWindows } from './hashed-windows.js';
import {
  inventoryFromJson,
  InventoryError,
  noSuchVersion,
  versionNumber,
  versionSummary,
  type InventoryVersionSummary,
} from './inventory.js';
import type { EntryVisitor } from './path-block-windows.js';
import { plainOfParts } from './plain.js';
import { type InventoryModel, StateView, type VersionListing } from './view.js';
import { InventoryWindows } from './windows.js';
import { SLASH } from './json-bytes.js';

/** prefixOf: the content path is kept as its own string; the manifest does not list the digest. */
const OWN_PATH = -1;
const UNLISTED = -2;

/** How a state's digests find their content paths: a prefix before a logical path of the digest, or a path of their own. */
interface ContentPaths {
  prefixOf: Int32Array;
  prefixes: string[];
  own: Map<number, string>;
}

export class VersionView implements InventoryModel {
  private stateView: StateView | undefined;
  private entries: Uint32Array | undefined;

  private constructor(
    readonly id: string,
    readonly type: string,
    readonly digestAlgorithm: string,
    readonly head: string,
    readonly contentDirectory: string | undefined,
    /** The version read. */
    readonly version: string,
    private readonly summaries: InventoryVersionSummary[],
    /** The version's state: digest k -> its logical paths. */
    private readonly block: DigestBlock,
    private readonly content: ContentPaths,
  ) {}

  /**
   * The version `version` ('head': the head) of the inventory at `where` with the digest of its
   * bytes, or undefined (see the header). NO_SUCH_VERSION when the inventory lacks the version.
   */
  static async read(storage: ReadStorage, where: string, version: string): Promise<{ view: VersionView; digest: string } | undefined> {
    const first = new InventoryWindows({ fixity: false, manifest: false, version });
    const hashed = await readHashedWindows(storage, where, first);
    const parts = hashed && first.end();
    const plain = parts && plainOfParts(parts, { unknownFixity: true });
    if (!plain) return undefined;
    const checked = inventoryFromJson(plain.skeleton, `${storage.location}/${where}`);
    const name = version === 'head' ? checked.head : version;
    const state = plain.blocks.states.get(name);
    if (!state) throw noSuchVersion(checked.id, name, checked.head);
    const block = DigestBlock.ofParts(state, plain.blocks.digestSize);
    // Not kept (`head` came after `versions`), or a digest listed twice: read as InventoryView does.
    if (state.paths.start.length !== state.pathCount || !block.indexSorted()) return undefined;
    const content = await contentPathsOf(storage, where, block, hashed.digest);
    if (!content) return undefined;
    const names = Object.keys(checked.versions).sort((a, b) => versionNumber(a) - versionNumber(b));
    const summaries = names.map((v) => versionSummary(v, checked.versions[v]!, plain.blocks.states.get(v)!.pathCount));
    const { id, type, digestAlgorithm, head, contentDirectory } = checked;
    return {
      view: new VersionView(id, type, digestAlgorithm, head, contentDirectory, name, summaries, block, content),
      digest: hashed.digest,
    };
  }

  versions(): InventoryVersionSummary[] {
    return this.summaries;
  }

  hasVersion(version: string): boolean {
    return this.summaries.some((v) => v.version === version);
  }

  /** The state of the version read (any other: an error saying which one this reader holds). */
  state(version = this.head): ReadonlyMap<string, string> {
    this.only(version);
    this.stateView ??= new StateView(this.block.paths, this.entryOf(), (k) => this.block.digestOf(k));
    return this.stateView;
  }

  /** The entry of each path of the state: made once (4 MB at a million files), none when each digest has one path. */
  private entryOf(): Uint32Array {
    if (this.entries) return this.entries;
    const { paths, firstPath } = this.block;
    let k = 0;
    while (k < firstPath.length && firstPath[k] === k) k++;
    if (k === firstPath.length && k === paths.start.length + 1) return (this.entries = firstPath.subarray(0, k - 1));
    const entryOf = new Uint32Array(paths.start.length);
    for (let k = 0; k < this.block.entries; k++) entryOf.fill(k, firstPath[k], firstPath[k + 1]);
    return (this.entries = entryOf);
  }

  listing(version = this.head): VersionListing {
    this.only(version);
    const { paths } = this.block;
    const entryOf = this.entryOf();
    return {
      size: entryOf.length,
      logicalPath: (i) => textAt(paths, i),
      digest: (i) => this.block.digestOf(entryOf[i]!),
      contentPath: (i) => this.contentPathOf(entryOf[i]!),
    };
  }

  /** The content path of a digest of the version read (its first, where its bytes are read); undefined for any other. */
  manifestPaths(digest: string): string[] | undefined {
    const k = this.block.findHex(digest);
    return k < 0 ? undefined : [this.contentPathOf(k)];
  }

  /** The content paths of the version read, each once. */
  *contentPaths(): IterableIterator<string> {
    const seen = new Set<string>();
    for (let k = 0; k < this.block.entries; k++) {
      const path = this.contentPathOf(k);
      if (!seen.has(path)) yield path;
      seen.add(path);
    }
  }

  /** None: the fixity blocks are checked, not kept. */
  fixityAlgorithms(): string[] {
    return [];
  }

  contentDigest(): string | undefined {
    throw new Error(`The reader of object "${this.id}" holds version ${this.version} only: open it in full to look up content paths.`);
  }

  private only(version: string): void {
    if (version === this.version) return;
    if (!this.hasVersion(version)) throw noSuchVersion(this.id, version, this.head);
    throw new Error(`The reader of object "${this.id}" holds version ${this.version} only, not ${version}.`);
  }

  private contentPathOf(k: number): string {
    const prefix = this.content.prefixOf[k]!;
    if (prefix === OWN_PATH) return this.content.own.get(k)!;
    if (prefix === UNLISTED) throw new InventoryError(`Object "${this.id}" has no manifest entry for digest ${this.block.digestOf(k)}.`);
    const { paths, firstPath } = this.block;
    const p = firstPath[k]!;
    return this.content.prefixes[prefix]! + textAt(paths, p);
  }
}

/**
 * The second pass: the first content path of each digest of `block`, or undefined when the file
 * is no longer the one first read, or the manifest lacks or repeats a digest of the state.
 */
async function contentPathsOf(storage: ReadStorage, where: string, block: DigestBlock, digest: string): Promise<ContentPaths | undefined> {
  const prefixOf = new Int32Array(block.entries).fill(UNLISTED);
  const prefixes = new Map<string, number>();
  const own = new Map<number, string>();
  let repeated = false;
  let last = Buffer.alloc(0);
  let lastIndex = -1;
  const { paths, firstPath } = block;
  const visit: EntryVisitor = (key, bytes, start, end) => {
    const k = block.find(key);
    if (k < 0) return;
    repeated ||= prefixOf[k] !== UNLISTED;
    const p = firstPath[k]!;
    const length = paths.end[p]! - paths.start[p]!;
    const cut = end - length;
    if (cut > start && bytes[cut - 1] === SLASH && paths.bytes.compare(bytes, cut, end, paths.start[p], paths.end[p]) === 0) {
      // Most entries have the prefix of the one before (v1/content/): no string made for them.
      if (last.length !== cut - start || last.compare(bytes, start, cut) !== 0) {
        const prefix = bytes.toString('utf8', start, cut);
        last = Buffer.from(bytes.subarray(start, cut));
        lastIndex = prefixes.get(prefix) ?? prefixes.size;
        prefixes.set(prefix, lastIndex);
      }
      prefixOf[k] = lastIndex;
    } else {
      prefixOf[k] = OWN_PATH;
      own.set(k, bytes.toString('utf8', start, end));
    }
  };
  // No state is kept: the version '' is none.
  const second = new InventoryWindows({ fixity: false, manifest: visit, version: '' });
  const again = await readHashedWindows(storage, where, second);
  if (!again || again.digest !== digest || !second.end() || repeated || prefixOf.includes(UNLISTED)) return undefined;
  return { prefixOf, prefixes: [...prefixes.keys()], own };
}
