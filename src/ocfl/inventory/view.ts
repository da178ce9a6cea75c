/**
 * An inventory held compactly: its digests as bytes, its paths as UTF-8 in a few large buffers
 * with offsets, and strings made only when asked for. The inventory of a million files is ~600 MB
 * of JSON; parsed into JavaScript objects it took 840 bytes per file more (3 GiB peak for `show`).
 * Here a file costs about 64 bytes of digest and its paths' bytes plus ~30 bytes of offsets, and
 * the JSON is let go once read.
 *
 * Every reader and writer holds this one model, from one of two loaders: an inventory of the plain
 * shape (see plain.ts) scanned window by window, never held whole; any other parsed in full
 * (inventory.ts, which words the error when there is one) and then held the same way (ofInventory),
 * its keys as written where they are not lower-case hex. Every check parseInventory makes is made
 * on the plain shape too (the header fields through inventoryFromJson itself), so a reader accepts
 * exactly what it accepted before.
 */
import {
  InventoryError,
  inventoryFromJson,
  noSuchVersion,
  parseInventory,
  versionNumber,
  versionSummary,
  type Inventory,
  type InventoryVersionSummary,
} from './inventory.js';
import { plainOfParts, type PlainInventory } from './plain.js';
import { OrderedMap, PathIndex, textAt, type Arena } from './arena.js';
import { DigestBlock } from './digest-block.js';
import { isWellFormedUnicode } from './logical-path.js';
import { InventoryWindows } from './windows.js';

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * One version's logical state: logical path -> digest, in code-unit order of the paths. Looked up
 * through an index of its paths; sorted only when first gone through (a reader that looks paths up,
 * the reading room's, never sorts a million of them).
 */
export class StateView extends OrderedMap<string> {
  private readonly index: PathIndex;
  private sorted: Uint32Array | undefined;
  protected readonly count: number;

  constructor(
    private readonly paths: Arena,
    /** Manifest entry of each path. */
    private readonly entryOf: Uint32Array,
    private readonly digestOfEntry: (entry: number) => string,
  ) {
    super();
    this.index = new PathIndex(paths);
    this.count = this.index.size;
  }

  /** Path indexes (each path's first listing) in code-unit order of the paths. */
  private get order(): Uint32Array {
    if (this.sorted) return this.sorted;
    const { bytes, start, end } = this.paths;
    const order = new Uint32Array(this.count);
    for (let p = 0, j = 0; p < start.length; p++) if (this.index.isFirst(p)) order[j++] = p;
    // UTF-8 byte order is code-point order, which differs from JavaScript's code-unit order only
    // between characters above U+FFFF and U+E000-U+FFFF (bytes from 0xEE): those states sort as strings.
    if (bytes.some((b) => b >= 0xee)) {
      const names = new Map<number, string>();
      for (const p of order) names.set(p, textAt(this.paths, p));
      order.sort((a, b) => byCodeUnit(names.get(a)!, names.get(b)!));
    } else order.sort((a, b) => bytes.compare(bytes, start[b]!, end[b]!, start[a]!, end[a]!));
    return (this.sorted = order);
  }

  protected keyAt(i: number): string {
    return textAt(this.paths, this.order[i]!);
  }

  protected valueAt(i: number): string {
    return this.digestOfEntry(this.entryOf[this.index.lastOf(this.order[i]!)]!);
  }

  get(logicalPath: string): string | undefined {
    const p = this.index.find(logicalPath);
    return p < 0 ? undefined : this.digestOfEntry(this.entryOf[p]!);
  }

  override has(logicalPath: string): boolean {
    return this.index.find(logicalPath) >= 0;
  }
}

/**
 * A version's files by position, in the inventory's order (a path listed twice is there twice, the
 * later listing the one `state` keeps): its logical path, its digest, and the content path its
 * bytes are read from (the manifest's first path for the digest).
 */
export interface VersionListing {
  readonly size: number;
  logicalPath(i: number): string;
  digest(i: number): string;
  contentPath(i: number): string;
}

/**
 * What every reader asks of an inventory: InventoryView (below) of the whole inventory, or
 * VersionView (version-view.ts) of one version read light. Digests asked for and answered are
 * lower case. OcflObjectReader holds one and never asks which.
 */
export interface InventoryModel {
  readonly id: string;
  readonly type: string;
  readonly digestAlgorithm: string;
  readonly head: string;
  readonly contentDirectory: string | undefined;
  /** The versions in numeric order: metadata and file counts. */
  versions(): InventoryVersionSummary[];
  hasVersion(version: string): boolean;
  /** logical path -> digest of a version, in code-unit order of the paths; built on first use and kept. */
  state(version?: string): ReadonlyMap<string, string>;
  /** A version's files by position (see VersionListing), for a reader that goes through them all in an order of its own. */
  listing(version?: string): VersionListing;
  /** Content paths of a digest, or undefined when the manifest lacks it. */
  manifestPaths(digest: string): string[] | undefined;
  /** The content paths of the manifest in its order, each once. */
  contentPaths(): IterableIterator<string>;
  /** The names of the fixity blocks, in the inventory's order. */
  fixityAlgorithms(): string[];
  /**
   * The digest recorded for a content path in `algorithm`: the manifest's for its own algorithm,
   * else the fixity block's (the last listing, if several); undefined when not recorded (or, read
   * compactly, when the block is of an algorithm this tool does not compute).
   */
  contentDigest(algorithm: string, contentPath: string): string | undefined;
}

/** A version's state: its paths with the manifest entry of each. */
interface StatePlace {
  paths: Arena;
  entryOf: Uint32Array;
  /** Manifest entry -> the state's key for it, where it is written otherwise than the manifest's (an inventory parsed in full). */
  keys?: Map<number, string>;
}

/** A version: its metadata, and its state (none where it was read for its count only: a summary). */
interface VersionPlace {
  summary: InventoryVersionSummary;
  state?: StatePlace;
}

/** What an inventory read for its versions only answers (ls, log, purge, repair: see InventoryView.fromWindows). */
export type InventorySummary = Pick<InventoryModel, 'id' | 'type' | 'digestAlgorithm' | 'head' | 'versions'>;

/** A block of an inventory parsed in full; a path UTF-8 cannot hold (a lone surrogate) is refused, never replaced. */
function blockOf(keys: string[], lists: ReadonlyArray<readonly string[]>, where: string): DigestBlock {
  for (const list of lists)
    for (const p of list)
      if (!isWellFormedUnicode(p))
        throw new InventoryError(`${where} lists the path ${JSON.stringify(p)}, which is not well-formed Unicode.`);
  return DigestBlock.ofLists(keys, lists);
}

export class InventoryView implements InventoryModel {
  private readonly states = new Map<string, StateView>();

  private constructor(
    readonly id: string,
    readonly type: string,
    readonly digestAlgorithm: string,
    readonly head: string,
    private readonly manifest: DigestBlock,
    /** algorithm -> its block; undefined for an algorithm this tool does not compute (only checked) */
    private readonly fixity: Map<string, DigestBlock | undefined>,
    private readonly versionPlaces: Map<string, VersionPlace>,
    readonly contentDirectory: string | undefined,
    /** Whether the inventory has a fixity member (whose blocks the view checks but does not keep). */
    readonly hasFixity: boolean,
    /** The manifest's own entries: those after them are state digests it lacks (an inventory parsed in full). */
    private readonly listed: number,
  ) {}

  /**
   * The view of inventory bytes held whole: read plain where they are of that shape, else parsed in
   * full (which words any error). `everyBlock`: parsed in full also where a plain read would not
   * keep every block (a writer's base, see keepsEveryBlock).
   */
  static read(bytes: Buffer, where: string, options: { everyBlock?: boolean } = {}): InventoryView {
    const plain = InventoryView.from(bytes, where);
    return plain && (plain.keepsEveryBlock || !options.everyBlock) ? plain : InventoryView.ofInventory(parseInventory(bytes, where), where);
  }

  /**
   * Whether every block is kept, so that the inventory can be written again (a writer's base): a
   * fixity block of an algorithm this tool does not compute, read plain, is only checked.
   */
  get keepsEveryBlock(): boolean {
    return [...this.fixity.values()].every((block) => block !== undefined) && [...this.versionPlaces.values()].every((v) => v.state);
  }

  /**
   * The view of an inventory parsed in full: any the parse accepts. A state digest the manifest
   * lacks (invalid, but read as ever) is an entry of no content path after the manifest's own.
   */
  static ofInventory(inv: Inventory, where: string): InventoryView {
    const listedKeys = Object.keys(inv.manifest);
    const keys = [...listedKeys];
    const known = new Set(keys.map((k) => k.toLowerCase()));
    for (const { state } of Object.values(inv.versions))
      for (const key in state) if (!known.has(key.toLowerCase())) known.add(keys[keys.push(key) - 1]!.toLowerCase());
    const manifest = blockOf(
      keys,
      keys.map((k, i) => (i < listedKeys.length ? inv.manifest[k]! : [])),
      where,
    );
    const fixity = new Map(Object.entries(inv.fixity ?? {}).map(([alg, b]) => [alg, blockOf(Object.keys(b), Object.values(b), where)]));
    const view = InventoryView.build(inv, manifest, fixity, inv.fixity !== undefined, listedKeys.length, (name) => {
      const state = inv.versions[name]!.state;
      const stateKeys = Object.keys(state);
      const block = blockOf(stateKeys, Object.values(state), where);
      const entryOf = new Uint32Array(block.paths.start.length);
      const spelled = new Map<number, string>();
      stateKeys.forEach((key, k) => {
        const m = manifest.findHex(key.toLowerCase());
        entryOf.fill(m, block.firstPath[k], block.firstPath[k + 1]);
        if (manifest.keyOf(m) !== key) spelled.set(m, key);
      });
      return { paths: block.paths, entryOf, ...(spelled.size > 0 ? { keys: spelled } : {}) };
    });
    return view!;
  }

  /**
   * The view of inventory bytes held whole, or undefined when they are not of the plain shape
   * (parse them in full). `where` names the file in messages. They are read as one window.
   */
  static from(bytes: Buffer, where: string): InventoryView | undefined {
    const windows = new InventoryWindows();
    windows.write(bytes);
    return InventoryView.fromWindows(windows, where);
  }

  /**
   * The view of inventory bytes read window by window (inventory/windows.ts), after its last
   * window, or undefined when they are not of the plain shape. Read with the windows keeping no
   * manifest and no state, it is a summary (InventorySummary): each state counted, not kept.
   */
  static fromWindows(windows: InventoryWindows, where: string): InventoryView | undefined {
    const parts = windows.end();
    const plain = parts && plainOfParts(parts, { unknownFixity: true });
    if (!plain) return undefined;
    try {
      return InventoryView.ofPlain(plain, where);
    } catch (err) {
      if (err instanceof SyntaxError) return undefined;
      throw err;
    }
  }

  /**
   * The checks of a full parse, inventoryFromJson on the same skeleton (throws InventoryError as
   * it does), then those only a compact read makes: a digest listed twice in a block, a state
   * digest listed twice or not in the manifest (undefined: the full parse reads those as ever).
   */
  private static ofPlain({ skeleton, blocks }: PlainInventory, where: string): InventoryView | undefined {
    const checked = inventoryFromJson(skeleton, where);
    const { manifest, fixity, states, digestSize: size } = blocks;
    if (!manifest!.index()) return undefined;
    for (const block of fixity.values()) if (block && !block.index()) return undefined;
    return InventoryView.build(checked, manifest!, fixity, 'fixity' in skeleton, manifest!.entries, (name) => {
      const state = states.get(name)!;
      if (state.paths.start.length < state.pathCount) return { count: state.pathCount };
      const entryOf = new Uint32Array(state.paths.start.length);
      const seen = new Uint8Array(manifest!.entries);
      for (let k = 0; k + 1 < state.firstPath.length; k++) {
        const m = manifest!.find(state.digests.subarray(k * size, (k + 1) * size));
        if (m < 0 || seen[m]) return undefined;
        seen[m] = 1;
        entryOf.fill(m, state.firstPath[k], state.firstPath[k + 1]);
      }
      return { paths: state.paths, entryOf };
    });
  }

  /**
   * The view over the checked header and the blocks kept: `stateOf` gives a version's paths and
   * the manifest entry of each, or undefined (a state digest repeated or not in the manifest).
   */
  private static build(
    checked: Inventory,
    manifest: DigestBlock,
    fixity: Map<string, DigestBlock | undefined>,
    hasFixity: boolean,
    listed: number,
    stateOf: (name: string) => StatePlace | { count: number } | undefined,
  ): InventoryView | undefined {
    const places = new Map<string, VersionPlace>();
    for (const name of Object.keys(checked.versions).sort((a, b) => versionNumber(a) - versionNumber(b))) {
      const state = stateOf(name);
      if (!state) return undefined;
      const info = checked.versions[name]!;
      if ('count' in state) places.set(name, { summary: versionSummary(name, info, state.count) });
      else places.set(name, { summary: versionSummary(name, info, state.entryOf.length), state });
    }
    const { id, type, digestAlgorithm, head, contentDirectory } = checked;
    return new InventoryView(id, type, digestAlgorithm, head, manifest, fixity, places, contentDirectory, hasFixity, listed);
  }

  private place(version: string): StatePlace {
    const place = this.versionPlaces.get(version);
    if (!place) throw noSuchVersion(this.id, version, this.head);
    if (!place.state) throw new Error(`The inventory of object "${this.id}" was read for its versions only, not the state of ${version}.`);
    return place.state;
  }

  /** The versions in numeric order: metadata and file counts. */
  versions(): InventoryVersionSummary[] {
    return [...this.versionPlaces.values()].map((p) => p.summary);
  }

  hasVersion(version: string): boolean {
    return this.versionPlaces.has(version);
  }

  /** logical path -> digest of a version, built on first use and kept. */
  state(version = this.head): ReadonlyMap<string, string> {
    let state = this.states.get(version);
    if (!state) {
      const place = this.place(version);
      state = new StateView(place.paths, place.entryOf, (entry) => this.manifest.digestOf(entry));
      this.states.set(version, state);
    }
    return state;
  }

  /**
   * A version's files as the inventory lists them, unsorted and unindexed: no string is made before
   * it is asked for, so a reader that sorts in its own order (show) or reads one path after another
   * pays for neither the code-unit sort nor the lookup table of `state`.
   */
  listing(version = this.head): VersionListing {
    const place = this.place(version);
    const { paths, entryOf } = place;
    const manifest = this.manifest;
    return {
      size: entryOf.length,
      logicalPath: (i) => textAt(paths, i),
      digest: (i) => manifest.digestOf(entryOf[i]!),
      contentPath: (i) => this.firstContentPath(entryOf[i]!),
    };
  }

  private firstContentPath(entry: number): string {
    if (entry >= this.listed)
      throw new InventoryError(`Object "${this.id}" has no manifest entry for digest ${this.manifest.digestOf(entry)}.`);
    return this.manifest.firstPathOf(entry);
  }

  /** Whether the keys are kept as written (an inventory parsed in full whose manifest keys are not all lower-case hex). */
  get keysAsWritten(): boolean {
    return this.manifest.keysAsWritten;
  }

  /**
   * The manifest as the canonical inventory lists it: digests in order, each one's content paths
   * sorted (what a writer needs to write this inventory again without its JavaScript objects).
   */
  *manifestEntries(): Generator<readonly [string, string[]]> {
    for (const k of this.manifest.sortedEntries())
      if (k < this.listed) yield [this.manifest.keyOf(k), this.manifest.pathsOf(k).sort(byCodeUnit)] as const;
  }

  /**
   * A version's state as the canonical inventory lists it: digests in order, each one's paths
   * sorted, every path as listed (a repeated one too, as the full parse keeps it).
   */
  stateEntries(version: string): Iterable<readonly [string, string[]]> {
    const place = this.place(version);
    const entries = this.entriesOfState(place);
    // Keys written otherwise than the manifest's sort as written.
    return place.keys ? [...entries].sort(([a], [b]) => byCodeUnit(a, b)) : entries;
  }

  private *entriesOfState(place: StatePlace): Generator<readonly [string, string[]]> {
    // Paths bucketed by manifest entry (a counting sort), entries then visited in digest order.
    const { entryOf, paths } = place;
    const first = new Uint32Array(this.manifest.entries + 1);
    for (let p = 0; p < entryOf.length; p++) first[entryOf[p]! + 1]!++;
    for (let k = 0; k < this.manifest.entries; k++) first[k + 1]! += first[k]!;
    const next = first.slice(0, this.manifest.entries);
    const byEntry = new Uint32Array(entryOf.length);
    for (let p = 0; p < entryOf.length; p++) byEntry[next[entryOf[p]!]!++] = p;
    for (const k of this.manifest.sortedEntries()) {
      if (first[k] === first[k + 1]) continue;
      const list: string[] = [];
      for (let i = first[k]!; i < first[k + 1]!; i++) list.push(textAt(paths, byEntry[i]!));
      yield [place.keys?.get(k) ?? this.manifest.keyOf(k), list.sort(byCodeUnit)] as const;
    }
  }

  /** Content paths of a lower-case digest, or undefined when the manifest lacks it. */
  manifestPaths(digest: string): string[] | undefined {
    const k = this.manifest.findHex(digest);
    return k < 0 || k >= this.listed ? undefined : this.manifest.pathsOf(k);
  }

  /** The manifest key of a lower-case digest as the inventory writes it, or undefined when the manifest lacks it. */
  manifestKey(digest: string): string | undefined {
    const k = this.manifest.findHex(digest);
    return k < 0 || k >= this.listed ? undefined : this.manifest.keyOf(k);
  }

  /** The content paths of the manifest in its order, each once. */
  contentPaths(): IterableIterator<string> {
    return this.manifest.uniquePaths();
  }

  /** The names of the fixity blocks, in the inventory's order. */
  fixityAlgorithms(): string[] {
    return [...this.fixity.keys()];
  }

  /** The block of a fixity algorithm as kept; undefined when the inventory lacks it or it is of an algorithm this tool does not compute. */
  fixityBlock(algorithm: string): DigestBlock | undefined {
    return this.fixity.get(algorithm);
  }

  /**
   * The lower-case digest of a content path in `algorithm`: the manifest's for its own algorithm,
   * else the fixity block's (the last listing, if several); undefined when the block does not list
   * it or is of an algorithm this tool does not compute.
   */
  contentDigest(algorithm: string, contentPath: string): string | undefined {
    const block = algorithm === this.digestAlgorithm ? this.manifest : this.fixity.get(algorithm);
    return block?.digestOfPath(contentPath);
  }
}
