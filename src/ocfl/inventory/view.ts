/**
 * An inventory held compactly: its digests as bytes, its paths as UTF-8 in a few large buffers
 * with offsets, and strings made only when asked for. The inventory of a million files is ~600 MB
 * of JSON; parsed into JavaScript objects it took 840 bytes per file more (3 GiB peak for `show`).
 * Here a file costs about 64 bytes of digest and its paths' bytes plus ~30 bytes of offsets, and
 * the JSON is let go once read.
 *
 * Only inventories of the plain shape are read this way (see path-block-scan.ts); for any other
 * `InventoryView.from` answers undefined and the caller parses the bytes in full, which words
 * the error when there is one. Every check parseInventory makes is made here too (the header
 * fields through inventoryFromJson itself), so a reader accepts exactly what it accepted before.
 */
import { SiardOcflError } from '../../errors.js';
import { DIGEST_HEX_LENGTH } from '../digest.js';
import { inventoryFromJson, versionNumber, type Inventory, type InventoryVersionSummary } from './inventory.js';
import type { ScannedBlock } from './path-block-scan.js';
import { contentHexLength, emptyTable, hashBytes, plainInventory } from './plain.js';
import { setOwn } from './json-bytes.js';
import { arenaOf, type Arena } from './arena.js';
import type { InventoryParts, InventoryWindows } from './windows.js';
import type { BlockParts } from './path-block-windows.js';

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Writes the `size` bytes spelled by lower-case hex at from[at] (checked by the scan) into out[outAt]. */
export function hexInto(from: Uint8Array, at: number, out: Uint8Array, outAt: number, size: number): void {
  const nibble = (c: number) => (c <= 0x39 ? c - 0x30 : c - 0x57);
  for (let b = 0; b < size; b++) out[outAt + b] = (nibble(from[at + 2 * b]!) << 4) | nibble(from[at + 2 * b + 1]!);
}

/** The lower-case hex keys of a block as bytes, `size` bytes each. */
export function digestBytesOf(from: Buffer, block: ScannedBlock, size: number): Buffer {
  const out = Buffer.allocUnsafe(block.keyStart.length * size);
  for (let k = 0; k < block.keyStart.length; k++) hexInto(from, block.keyStart[k]!, out, k * size, size);
  return out;
}

/** One version's logical state: logical path -> digest, in code-unit order of the paths. */
class StateView implements ReadonlyMap<string, string> {
  /** Path indexes in code-unit order of the paths, a path listed twice kept once (its last digest). */
  private readonly order: Int32Array;
  private readonly table: Int32Array;

  constructor(
    private readonly paths: Arena,
    /** Manifest entry of each path. */
    private readonly entryOf: Uint32Array,
    private readonly digestOfEntry: (entry: number) => string,
  ) {
    const { bytes, start, end } = paths;
    const n = start.length;
    const indexes = Array.from({ length: n }, (_, i) => i);
    // UTF-8 byte order is code-point order, which differs from JavaScript's code-unit order only
    // between characters above U+FFFF and U+E000-U+FFFF (bytes from 0xEE): those states sort as strings.
    if (bytes.some((b) => b >= 0xee)) {
      const names = indexes.map((p) => this.pathAt(p));
      indexes.sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
    } else {
      indexes.sort((a, b) => bytes.compare(bytes, start[b]!, end[b]!, start[a]!, end[a]!));
    }
    // The sort is stable: of paths listed twice, the last listed wins, as in a Map built in order.
    const kept: number[] = [];
    for (let j = 0; j < indexes.length; j++) {
      const p = indexes[j]!;
      const next = indexes[j + 1];
      if (next !== undefined && bytes.compare(bytes, start[next]!, end[next]!, start[p]!, end[p]!) === 0) continue;
      kept.push(p);
    }
    this.order = Int32Array.from(kept);
    this.table = emptyTable(kept.length);
    const mask = this.table.length - 1;
    for (const p of kept) {
      let slot = hashBytes(bytes, start[p]!, end[p]!) & mask;
      while (this.table[slot] !== -1) slot = (slot + 1) & mask;
      this.table[slot] = p;
    }
  }

  private pathAt(p: number): string {
    return this.paths.bytes.toString('utf8', this.paths.start[p], this.paths.end[p]);
  }

  private digestAt(p: number): string {
    return this.digestOfEntry(this.entryOf[p]!);
  }

  private find(logicalPath: string): number {
    const query = Buffer.from(logicalPath, 'utf8');
    const { bytes, start, end } = this.paths;
    const mask = this.table.length - 1;
    for (let slot = hashBytes(query, 0, query.length) & mask; ; slot = (slot + 1) & mask) {
      const p = this.table[slot]!;
      if (p === -1) return -1;
      if (end[p]! - start[p]! === query.length && bytes.compare(query, 0, query.length, start[p], end[p]) === 0) return p;
    }
  }

  get size(): number {
    return this.order.length;
  }

  get(logicalPath: string): string | undefined {
    const p = this.find(logicalPath);
    return p < 0 ? undefined : this.digestAt(p);
  }

  has(logicalPath: string): boolean {
    return this.find(logicalPath) >= 0;
  }

  *entries(): MapIterator<[string, string]> {
    for (const p of this.order) yield [this.pathAt(p), this.digestAt(p)];
  }

  *keys(): MapIterator<string> {
    for (const p of this.order) yield this.pathAt(p);
  }

  *values(): MapIterator<string> {
    for (const p of this.order) yield this.digestAt(p);
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }

  forEach(callback: (value: string, key: string, map: ReadonlyMap<string, string>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
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

/** A version: its metadata, and its state's paths with the manifest entry of each. */
interface VersionPlace {
  summary: InventoryVersionSummary;
  paths: Arena;
  entryOf: Uint32Array;
}

/**
 * A digest -> paths block (the manifest, a fixity block): digests as bytes (`size` each), an index
 * of them, the paths of each, and an index of the paths built when a lookup by path first needs it.
 */
export class DigestBlock {
  private readonly table: Int32Array;
  /** path index -> its entry, and whether an earlier path is the same: built with the path index */
  private entryOfPath: Uint32Array | undefined;
  private repeated: Uint8Array | undefined;
  private pathTable: Int32Array | undefined;

  constructor(
    private readonly digests: Buffer,
    private readonly size: number,
    /** firstPath[k] .. firstPath[k + 1]: the paths of entry k. */
    private readonly firstPath: Uint32Array,
    private readonly paths: Arena,
  ) {
    this.table = emptyTable(firstPath.length - 1);
  }

  /** The block scanned from `bytes` (keys of lower-case hex of `size` bytes), copied out of them; not yet indexed. */
  static ofScan(bytes: Buffer, block: ScannedBlock, size: number): DigestBlock {
    return new DigestBlock(digestBytesOf(bytes, block, size), size, block.firstPath, arenaOf(bytes, block.pathStart, block.pathEnd));
  }

  /** A block read in windows (its keys already bytes, `size` each); not yet indexed. */
  static ofParts(block: BlockParts, size: number): DigestBlock {
    return new DigestBlock(block.digests, size, block.firstPath, block.paths);
  }

  get entries(): number {
    return this.firstPath.length - 1;
  }

  get digestSize(): number {
    return this.size;
  }

  /** Indexes every entry; false when a digest repeats (JSON.parse keeps the last: the full parse decides). */
  index(): boolean {
    const mask = this.table.length - 1;
    for (let k = 0; k < this.entries; k++) {
      const at = k * this.size;
      let slot = hashBytes(this.digests, at, at + this.size) & mask;
      for (;;) {
        const other = this.table[slot]!;
        if (other === -1) break;
        if (this.digests.compare(this.digests, other * this.size, (other + 1) * this.size, at, at + this.size) === 0) return false;
        slot = (slot + 1) & mask;
      }
      this.table[slot] = k;
    }
    return true;
  }

  /** The entry of a digest given as bytes, or -1. */
  find(digest: Uint8Array): number {
    if (digest.length !== this.size) return -1;
    const mask = this.table.length - 1;
    for (let slot = hashBytes(digest, 0, digest.length) & mask; ; slot = (slot + 1) & mask) {
      const k = this.table[slot]!;
      if (k === -1) return -1;
      if (this.digests.compare(digest, 0, this.size, k * this.size, (k + 1) * this.size) === 0) return k;
    }
  }

  digestOf(k: number): string {
    return this.digests.toString('hex', k * this.size, (k + 1) * this.size);
  }

  private pathAt(p: number): string {
    return this.paths.bytes.toString('utf8', this.paths.start[p], this.paths.end[p]);
  }

  /** Entry indexes in the order of their digests (the order of their hex keys); no sort when already in it. */
  sortedEntries(): Uint32Array {
    return (this.order ??= this.sortEntries());
  }

  private order: Uint32Array | undefined;

  private sortEntries(): Uint32Array {
    const order = new Uint32Array(this.entries);
    for (let k = 0; k < order.length; k++) order[k] = k;
    const size = this.size;
    // buf.compare(target, targetStart, targetEnd, sourceStart, sourceEnd) orders the source (a) against the target (b).
    const cmp = (a: number, b: number) => this.digests.compare(this.digests, b * size, (b + 1) * size, a * size, (a + 1) * size);
    let sorted = true;
    for (let k = 1; k < order.length && sorted; k++) sorted = cmp(k - 1, k) < 0;
    return sorted ? order : order.sort(cmp);
  }

  /** The first path of entry k as listed (a manifest entry's: where its bytes are read). */
  firstPathOf(k: number): string {
    return this.pathAt(this.firstPath[k]!);
  }

  pathsOf(k: number): string[] {
    const out: string[] = [];
    for (let p = this.firstPath[k]!; p < this.firstPath[k + 1]!; p++) out.push(this.pathAt(p));
    return out;
  }

  /**
   * The paths of the block in its order, a path listed again left out: the keys of a Map set
   * path -> digest entry by entry, which is how a full parse is read by path.
   */
  *uniquePaths(): IterableIterator<string> {
    this.indexPaths();
    const repeated = this.repeated!;
    for (let p = 0; p < repeated.length; p++) if (!repeated[p]) yield this.pathAt(p);
  }

  private samePath(a: number, b: number): boolean {
    const { bytes, start, end } = this.paths;
    return bytes.compare(bytes, start[a]!, end[a]!, start[b]!, end[b]!) === 0;
  }

  /** The lower-case hex digest listing a path (the last one, if several do), or undefined. */
  digestOfPath(path: string): string | undefined {
    const table = this.indexPaths();
    const query = Buffer.from(path, 'utf8');
    const { bytes, start, end } = this.paths;
    const mask = table.length - 1;
    for (let slot = hashBytes(query, 0, query.length) & mask; ; slot = (slot + 1) & mask) {
      const p = table[slot]!;
      if (p === -1) return undefined;
      if (end[p]! - start[p]! === query.length && bytes.compare(query, 0, query.length, start[p], end[p]) === 0)
        return this.digestOf(this.entryOfPath![p]!);
    }
  }

  /** The path table: one slot per distinct path, holding its last listing. */
  private indexPaths(): Int32Array {
    if (this.pathTable) return this.pathTable;
    const { bytes, start, end } = this.paths;
    const n = start.length;
    // Path -> its last listing (a Map set entry by entry keeps the last value at the first place).
    const entryOfPath = new Uint32Array(n);
    for (let k = 0; k < this.entries; k++) entryOfPath.fill(k, this.firstPath[k], this.firstPath[k + 1]);
    const repeated = new Uint8Array(n);
    const table = emptyTable(n);
    const mask = table.length - 1;
    for (let p = 0; p < n; p++) {
      let slot = hashBytes(bytes, start[p]!, end[p]!) & mask;
      while (table[slot] !== -1 && !this.samePath(table[slot]!, p)) slot = (slot + 1) & mask;
      if (table[slot] !== -1) repeated[p] = 1;
      table[slot] = p;
    }
    this.entryOfPath = entryOfPath;
    this.repeated = repeated;
    this.pathTable = table;
    return table;
  }
}

export class InventoryView {
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
  ) {}

  /**
   * The view of inventory bytes, or undefined when they are not of the plain shape (parse them in
   * full). `where` names the file in messages.
   */
  static from(bytes: Buffer, where: string): InventoryView | undefined {
    const plain = plainInventory(bytes, { unknownFixity: true });
    if (!plain) return undefined;
    const { skeleton, blocks } = plain;
    // The same checks as a full parse, on the same values (throws InventoryError as it does).
    const checked = inventoryFromJson(skeleton, where);
    const size = blocks.digestSize;
    const manifest = DigestBlock.ofScan(bytes, blocks.manifest!, size);
    if (!manifest.index()) return undefined;
    const fixity = InventoryView.keptFixity(bytes, blocks.fixity);
    if (!fixity) return undefined;
    return InventoryView.build(checked, manifest, fixity, 'fixity' in skeleton, (name) => {
      const state = blocks.states.get(name)!;
      const entryOf = InventoryView.entriesOf(bytes, state, manifest, size);
      return entryOf && { paths: arenaOf(bytes, state.pathStart, state.pathEnd), entryOf };
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
    stateOf: (name: string) => { paths: Arena; entryOf: Uint32Array } | undefined,
  ): InventoryView | undefined {
    const places = new Map<string, VersionPlace>();
    for (const name of Object.keys(checked.versions).sort((a, b) => versionNumber(a) - versionNumber(b))) {
      const state = stateOf(name);
      if (!state) return undefined;
      const info = checked.versions[name]!;
      const summary: InventoryVersionSummary = { version: name, created: info.created, fileCount: state.entryOf.length };
      if (info.message !== undefined) summary.message = info.message;
      if (info.user !== undefined) summary.user = info.user;
      places.set(name, { summary, ...state });
    }
    const { id, type, digestAlgorithm, head, contentDirectory } = checked;
    return new InventoryView(id, type, digestAlgorithm, head, manifest, fixity, places, contentDirectory, hasFixity);
  }

  /**
   * The view of inventory bytes read window by window (inventory/windows.ts), after its last
   * window: what `from` answers for the same bytes, the same view, undefined or error.
   */
  static fromWindows(windows: InventoryWindows, where: string): InventoryView | undefined {
    const parts = windows.end();
    if (!parts) return undefined;
    try {
      return InventoryView.assemble(parts, where);
    } catch (err) {
      if (err instanceof SyntaxError) return undefined; // as in `from`
      throw err;
    }
  }

  /**
   * The checks of `from` in its order, on the parts read in windows: those before the header
   * checks (keys of the algorithm's length) answer undefined, then inventoryFromJson on the same
   * skeleton, then those after (a digest listed twice, a state digest not in the manifest).
   */
  private static assemble(parts: InventoryParts, where: string): InventoryView | undefined {
    const skeleton: Record<string, unknown> = {};
    for (const [key, value] of parts.members) setOwn(skeleton, key, value);
    const hexKeyLength = contentHexLength(skeleton.digestAlgorithm);
    const { manifest: manifestParts, versions: versionParts } = parts;
    if (hexKeyLength === undefined || !manifestParts || !versionParts) return undefined;
    // A block without keys fits any length, as scanPathBlock reads it.
    const fits = (block: BlockParts, length: unknown) => block.keyLength < 0 || block.keyLength === length;
    if (!fits(manifestParts, hexKeyLength)) return undefined;
    skeleton.manifest = {};
    for (const [name, block] of parts.fixity ?? []) if (block && !fits(block, DIGEST_HEX_LENGTH[name])) return undefined;
    if (parts.fixity) skeleton.fixity = Object.fromEntries(parts.fixity.map(([name]) => [name, {}]));
    const versions: Record<string, unknown> = {};
    for (const v of versionParts) {
      if (!fits(v.state, hexKeyLength)) return undefined;
      const version: Record<string, unknown> = { state: {} };
      for (const [key, value] of v.fields) setOwn(version, key, value);
      versions[v.name] = version;
    }
    skeleton.versions = versions;
    const checked = inventoryFromJson(skeleton, where);
    const size = hexKeyLength / 2;
    const manifest = DigestBlock.ofParts(manifestParts, size);
    if (!manifest.index()) return undefined;
    const fixity = new Map<string, DigestBlock | undefined>();
    for (const [name, block] of parts.fixity ?? []) {
      const kept = block && DigestBlock.ofParts(block, DIGEST_HEX_LENGTH[name]! / 2);
      if (kept && !kept.index()) return undefined;
      fixity.set(name, kept);
    }
    const states = new Map(versionParts.map((v) => [v.name, v.state]));
    return InventoryView.build(checked, manifest, fixity, parts.fixity !== undefined, (name) => {
      const state = states.get(name)!;
      const entryOf = new Uint32Array(state.paths.start.length);
      const seen = new Uint8Array(manifest.entries);
      for (let k = 0; k + 1 < state.firstPath.length; k++) {
        const m = manifest.find(state.digests.subarray(k * size, (k + 1) * size));
        if (m < 0 || seen[m]) return undefined;
        seen[m] = 1;
        entryOf.fill(m, state.firstPath[k], state.firstPath[k + 1]);
      }
      return { paths: state.paths, entryOf };
    });
  }

  /** The scanned fixity blocks kept compactly; undefined when a digest repeats in one (the full parse decides). */
  private static keptFixity(
    bytes: Buffer,
    scanned: Map<string, ScannedBlock | undefined>,
  ): Map<string, DigestBlock | undefined> | undefined {
    const fixity = new Map<string, DigestBlock | undefined>();
    for (const [name, block] of scanned) {
      if (!block) {
        fixity.set(name, undefined);
        continue;
      }
      const kept = DigestBlock.ofScan(bytes, block, DIGEST_HEX_LENGTH[name]! / 2);
      if (!kept.index()) return undefined;
      fixity.set(name, kept);
    }
    return fixity;
  }

  /**
   * The manifest entry of each path of a state, or undefined when a digest of the state repeats or
   * is not in the manifest (the full parse reads those as it always has).
   */
  private static entriesOf(bytes: Buffer, state: ScannedBlock, manifest: DigestBlock, size: number): Uint32Array | undefined {
    const seen = new Uint8Array(manifest.entries);
    const entryOf = new Uint32Array(state.pathStart.length);
    const one = new ScannedDigest(size);
    for (let k = 0; k < state.keyStart.length; k++) {
      const m = manifest.find(one.read(bytes, state.keyStart[k]!));
      if (m < 0 || seen[m]) return undefined;
      seen[m] = 1;
      entryOf.fill(m, state.firstPath[k], state.firstPath[k + 1]);
    }
    return entryOf;
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
      const place = this.versionPlaces.get(version);
      if (!place)
        throw new SiardOcflError(`Object "${this.id}" has no version ${version} (head is ${this.head}).`, { code: 'NO_SUCH_VERSION' });
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
    const place = this.versionPlaces.get(version);
    if (!place)
      throw new SiardOcflError(`Object "${this.id}" has no version ${version} (head is ${this.head}).`, { code: 'NO_SUCH_VERSION' });
    const { paths, entryOf } = place;
    const manifest = this.manifest;
    return {
      size: entryOf.length,
      logicalPath: (i) => paths.bytes.toString('utf8', paths.start[i], paths.end[i]),
      digest: (i) => manifest.digestOf(entryOf[i]!),
      contentPath: (i) => manifest.firstPathOf(entryOf[i]!),
    };
  }

  /**
   * The manifest as the canonical inventory lists it: digests in order, each one's content paths
   * sorted (what a writer needs to write this inventory again without its JavaScript objects).
   */
  *manifestEntries(): Generator<readonly [string, string[]]> {
    for (const k of this.manifest.sortedEntries()) yield [this.manifest.digestOf(k), this.manifest.pathsOf(k).sort(byCodeUnit)] as const;
  }

  /**
   * A version's state as the canonical inventory lists it: digests in order, each one's paths
   * sorted, every path as listed (a repeated one too, as the full parse keeps it).
   */
  *stateEntries(version: string): Generator<readonly [string, string[]]> {
    const place = this.versionPlaces.get(version);
    if (!place)
      throw new SiardOcflError(`Object "${this.id}" has no version ${version} (head is ${this.head}).`, { code: 'NO_SUCH_VERSION' });
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
      for (let i = first[k]!; i < first[k + 1]!; i++)
        list.push(paths.bytes.toString('utf8', paths.start[byEntry[i]!], paths.end[byEntry[i]!]));
      yield [this.manifest.digestOf(k), list.sort(byCodeUnit)] as const;
    }
  }

  /** Content paths of a lower-case digest, or undefined when the manifest lacks it. */
  manifestPaths(digest: string): string[] | undefined {
    if (digest.length !== 2 * this.manifest.digestSize || !/^[0-9a-f]*$/.test(digest)) return undefined;
    const k = this.manifest.find(Buffer.from(digest, 'hex'));
    return k < 0 ? undefined : this.manifest.pathsOf(k);
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

/** One hex key of the JSON read into a reused buffer of bytes. */
class ScannedDigest {
  private readonly out: Buffer;

  constructor(size: number) {
    this.out = Buffer.alloc(size);
  }

  read(from: Uint8Array, at: number): Buffer {
    hexInto(from, at, this.out, 0, this.out.length);
    return this.out;
  }
}
