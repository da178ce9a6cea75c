/**
 * A digest -> paths block of an inventory (the manifest, a fixity block, a state) held compactly:
 * digests as bytes, paths as UTF-8 in an arena, strings made only when asked for. The readers'
 * InventoryView and the validator's checks (validate/check-block.ts) share it.
 */
import { emptyTable, hashBytes, PathIndex, textAt, type Arena } from './arena.js';
import type { BlockParts } from './path-block-windows.js';

/** Keys all of lower-case hex digits, of one even length (the block's digests are then bytes). */
const hexKeys = (keys: readonly string[]) => keys.every((k) => k.length === keys[0]!.length && /^(?:[0-9a-f]{2})+$/.test(k));

/**
 * A digest -> paths block (the manifest, a fixity block): digests as bytes (`size` each), an index
 * of them, the paths of each, and an index of the paths built when a lookup by path first needs it.
 * A block parsed in full whose keys are not all lower-case hex of one length (upper case, not hex)
 * keeps them as written (`spelled`), found by their lower case (the last, if two differ in case only).
 */
export class DigestBlock {
  /** The index of the digests (index()); none when they ascend (indexSorted()), found by a search then. */
  private table: Int32Array | undefined;
  /** Whether the digests ascend (then no table), and where the next search starts: lookups in order cost a few compares. */
  private ascending = false;
  private next = 0;
  /** The paths indexed, and the entry of each path: built when a lookup by path first needs them. */
  private pathIndex: PathIndex | undefined;
  private entryOfPath: Uint32Array | undefined;

  constructor(
    /** Digest k as bytes: digests[k * size, (k + 1) * size). */
    readonly digests: Buffer,
    private readonly size: number,
    /** firstPath[k] .. firstPath[k + 1]: the paths of entry k. */
    readonly firstPath: Uint32Array,
    readonly paths: Arena,
    /** The keys as written, when not bytes (then `digests` is empty). */
    private readonly spelled?: readonly string[],
  ) {}

  /** A block of keys and their path lists (parsed in full); each path must be well-formed Unicode. */
  static ofLists(keys: string[], lists: ReadonlyArray<readonly string[]>): DigestBlock {
    const firstPath = new Uint32Array(keys.length + 1);
    let count = 0;
    let bytes = 0;
    for (let k = 0; k < keys.length; k++) {
      firstPath[k] = count;
      count += lists[k]!.length;
      for (const p of lists[k]!) bytes += Buffer.byteLength(p);
    }
    firstPath[keys.length] = count;
    const paths: Arena = { bytes: Buffer.allocUnsafe(bytes), start: new Uint32Array(count), end: new Uint32Array(count) };
    for (let k = 0, i = 0, at = 0; k < keys.length; k++)
      for (const p of lists[k]!) {
        paths.start[i] = at;
        at += paths.bytes.write(p, at);
        paths.end[i++] = at;
      }
    if (!hexKeys(keys)) return new DigestBlock(Buffer.alloc(0), 0, firstPath, paths, keys);
    return new DigestBlock(Buffer.from(keys.join(''), 'hex'), (keys[0]?.length ?? 0) / 2, firstPath, paths);
  }

  /** A block read in windows (its keys already bytes, `size` each); not yet indexed. */
  static ofParts(block: BlockParts, size: number): DigestBlock {
    return new DigestBlock(block.digests, size, block.firstPath, block.paths);
  }

  get entries(): number {
    return this.firstPath.length - 1;
  }

  /** Whether the keys are kept as written (not as bytes). */
  get keysAsWritten(): boolean {
    return this.spelled !== undefined;
  }

  get digestSize(): number {
    return this.size;
  }

  /**
   * Indexes a block whose digests ascend (as a canonical inventory lists them) without a table:
   * found by a binary search, or at once when looked up in their order. Other blocks: index().
   */
  indexSorted(): boolean {
    if (this.spelled) return this.index();
    const size = this.size;
    for (let k = 1; k < this.entries; k++)
      if (this.digests.compare(this.digests, k * size, (k + 1) * size, (k - 1) * size, k * size) >= 0) return this.index();
    return (this.ascending = true);
  }

  /** Indexes every entry; false when a digest repeats (JSON.parse keeps the last: the full parse decides). */
  index(): boolean {
    if (this.spelled) {
      this.byLowerCase ??= new Map(this.spelled.map((key, k) => [key.toLowerCase(), k]));
      return true;
    }
    const table = (this.table = emptyTable(this.entries));
    const mask = table.length - 1;
    for (let k = 0; k < this.entries; k++) {
      const at = k * this.size;
      let slot = hashBytes(this.digests, at, at + this.size) & mask;
      for (;;) {
        const other = table[slot]!;
        if (other === -1) break;
        if (this.digests.compare(this.digests, other * this.size, (other + 1) * this.size, at, at + this.size) === 0) return false;
        slot = (slot + 1) & mask;
      }
      table[slot] = k;
    }
    return true;
  }

  /** The entry of a digest given as lower-case hex, or -1 (for anything else too). */
  findHex(digest: string): number {
    if (this.spelled) {
      this.index();
      return this.byLowerCase!.get(digest) ?? -1;
    }
    if (digest.length !== 2 * this.size || !/^[0-9a-f]*$/.test(digest)) return -1;
    return this.find(Buffer.from(digest, 'hex'));
  }

  /** The entry of a digest given as bytes, or -1. */
  find(digest: Uint8Array): number {
    if (this.spelled) return this.findHex(Buffer.from(digest).toString('hex'));
    if (digest.length !== this.size) return -1;
    if (this.ascending) return this.search(digest);
    if (!this.table) this.index();
    const table = this.table!;
    const mask = table.length - 1;
    for (let slot = hashBytes(digest, 0, digest.length) & mask; ; slot = (slot + 1) & mask) {
      const k = table[slot]!;
      if (k === -1) return -1;
      if (this.digests.compare(digest, 0, this.size, k * this.size, (k + 1) * this.size) === 0) return k;
    }
  }

  /** The entry of `digest` in an ascending block: first where the last search ended, then by halves. */
  private search(digest: Uint8Array): number {
    const size = this.size;
    // Above 0 when entry k's digest is above `digest`.
    const order = (k: number) => this.digests.compare(digest, 0, size, k * size, (k + 1) * size);
    let low = 0;
    let high = this.entries;
    // Looked up in order (a manifest against a state), the answer is at `next` or the entry after it.
    const at = this.next;
    if (at > 0 && order(at - 1) <= 0) low = at;
    if (at < high && order(at) > 0) high = at;
    else if (low === at && at < high && (at + 1 === high || order(at + 1) > 0)) low = high = at + 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (order(mid) > 0) high = mid;
      else low = mid + 1;
    }
    // low: the first entry above `digest`; the one before it is equal, or none is.
    this.next = low;
    return low > 0 && order(low - 1) === 0 ? low - 1 : -1;
  }

  /** The lower-case digest of entry k. */
  digestOf(k: number): string {
    return this.spelled ? this.spelled[k]!.toLowerCase() : this.digests.toString('hex', k * this.size, (k + 1) * this.size);
  }

  /** The key of entry k as the inventory writes it (its digest, but for a block keeping its keys as written). */
  keyOf(k: number): string {
    return this.spelled ? this.spelled[k]! : this.digestOf(k);
  }

  /** Entry indexes in the order of their keys (of their digests, when bytes); no sort when already in it. */
  sortedEntries(): Uint32Array {
    return (this.order ??= this.sortEntries());
  }

  private order: Uint32Array | undefined;
  /** A block keeping its keys as written: lower-case key -> entry. */
  private byLowerCase: Map<string, number> | undefined;

  private sortEntries(): Uint32Array {
    const order = new Uint32Array(this.entries);
    for (let k = 0; k < order.length; k++) order[k] = k;
    const { size, spelled } = this;
    // buf.compare(target, targetStart, targetEnd, sourceStart, sourceEnd) orders the source (a) against the target (b).
    const cmp = spelled
      ? (a: number, b: number) => (spelled[a]! < spelled[b]! ? -1 : spelled[a]! > spelled[b]! ? 1 : 0)
      : (a: number, b: number) => this.digests.compare(this.digests, b * size, (b + 1) * size, a * size, (a + 1) * size);
    let sorted = true;
    for (let k = 1; k < order.length && sorted; k++) sorted = cmp(k - 1, k) < 0;
    return sorted ? order : order.sort(cmp);
  }

  /** The first path of entry k as listed (a manifest entry's: where its bytes are read). */
  firstPathOf(k: number): string {
    return textAt(this.paths, this.firstPath[k]!);
  }

  pathsOf(k: number): string[] {
    const out: string[] = [];
    for (let p = this.firstPath[k]!; p < this.firstPath[k + 1]!; p++) out.push(textAt(this.paths, p));
    return out;
  }

  /**
   * The paths of the block in its order, a path listed again left out: the keys of a Map set
   * path -> digest entry by entry, which is how a full parse is read by path.
   */
  *uniquePaths(): IterableIterator<string> {
    const index = this.indexPaths();
    for (let p = 0; p < this.paths.start.length; p++) if (index.isFirst(p)) yield textAt(this.paths, p);
  }

  /** The lower-case hex digest listing a path (the last one, if several do), or undefined. */
  digestOfPath(path: string): string | undefined {
    const p = this.indexPaths().find(path);
    return p < 0 ? undefined : this.digestOf(this.entryOfPath![p]!);
  }

  /** The index of the paths, and the entry of each path. */
  private indexPaths(): PathIndex {
    if (this.pathIndex) return this.pathIndex;
    const entryOfPath = (this.entryOfPath = new Uint32Array(this.paths.start.length));
    for (let k = 0; k < this.entries; k++) entryOfPath.fill(k, this.firstPath[k], this.firstPath[k + 1]);
    return (this.pathIndex = new PathIndex(this.paths));
  }
}
