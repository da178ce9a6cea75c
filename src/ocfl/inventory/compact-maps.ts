/**
 * The validator's model of a plain inventory held compactly: paths as UTF-8 in an arena (the
 * order they are listed in), digests as bytes, a hash table of the paths a map keeps, and strings
 * made only when asked for. They answer as the Maps the full parse builds do, in the same order.
 */
import type { Arena, RangeTable } from './arena.js';
import type { DigestBlock } from './digest-block.js';

/** A ReadonlyMap over entries numbered 0 .. count-1 in insertion order (its values are never undefined). */
abstract class OrderedMap<V> implements ReadonlyMap<string, V> {
  protected abstract readonly count: number;
  protected abstract keyAt(i: number): string;
  protected abstract valueAt(i: number): V;
  abstract get(key: string): V | undefined;

  get size(): number {
    return this.count;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  *entries(): MapIterator<[string, V]> {
    for (let i = 0; i < this.count; i++) yield [this.keyAt(i), this.valueAt(i)];
  }

  *keys(): MapIterator<string> {
    for (let i = 0; i < this.count; i++) yield this.keyAt(i);
  }

  *values(): MapIterator<V> {
    for (let i = 0; i < this.count; i++) yield this.valueAt(i);
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }
}

/**
 * Paths of an arena, some of them kept (in `order`) and indexed: path -> value. The arena holds
 * every path listed, repeats included, so the table built over the JSON serves it unchanged.
 */
export class PathMap<V> extends OrderedMap<V> {
  protected readonly count: number;

  constructor(
    readonly paths: Arena,
    /** Path numbers of the entries, in insertion order. */
    readonly order: Uint32Array,
    private readonly table: RangeTable,
    private readonly valueOfPath: (p: number) => V,
  ) {
    super();
    this.count = order.length;
  }

  pathAt(p: number): string {
    return this.paths.bytes.toString('utf8', this.paths.start[p], this.paths.end[p]);
  }

  /** The path number of a kept path, or -1. */
  pathNumber(path: string): number {
    const q = Buffer.from(path, 'utf8');
    return this.table.find(q, 0, q.length);
  }

  /** The path number of the kept path spelled by the UTF-8 bytes q[s, e), or -1. */
  pathNumberOfBytes(q: Uint8Array, s: number, e: number): number {
    return this.table.find(q, s, e);
  }

  protected keyAt(i: number): string {
    return this.pathAt(this.order[i]!);
  }

  protected valueAt(i: number): V {
    return this.valueOfPath(this.order[i]!);
  }

  get(key: string): V | undefined {
    const p = this.pathNumber(key);
    return p < 0 ? undefined : this.valueOfPath(p);
  }

  override has(key: string): boolean {
    return this.pathNumber(key) >= 0;
  }
}

/** digest -> every content path listed under it, for the manifest entries whose list is not empty. */
export class ManifestDigests extends OrderedMap<readonly string[]> {
  protected readonly count: number;

  constructor(
    private readonly manifest: DigestBlock,
    /** Entry numbers with a non-empty list, in listing order. */
    private readonly listed: Uint32Array,
  ) {
    super();
    this.count = listed.length;
  }

  protected keyAt(i: number): string {
    return this.manifest.digestOf(this.listed[i]!);
  }

  protected valueAt(i: number): readonly string[] {
    return this.manifest.pathsOf(this.listed[i]!);
  }

  get(key: string): readonly string[] | undefined {
    if (key.length !== 2 * this.manifest.digestSize || !/^[0-9a-f]*$/.test(key)) return undefined;
    const k = this.manifest.find(Buffer.from(key, 'hex'));
    if (k < 0) return undefined;
    const paths = this.manifest.pathsOf(k);
    return paths.length === 0 ? undefined : paths;
  }
}

/** content path -> fixity digest: manifest paths (by their path number) with the fixity entry of each. */
export class FixityMap extends OrderedMap<string> {
  protected readonly count: number;

  constructor(
    private readonly manifest: PathMap<string>,
    /** Manifest path numbers, in insertion order. */
    private readonly order: Uint32Array,
    /** Fixity digest of each manifest path number (-1: none). */
    private readonly digestOfPath: Int32Array,
    /** The block's digests as bytes, `digestSize` each. */
    private readonly digests: Buffer,
    private readonly digestSize: number,
  ) {
    super();
    this.count = order.length;
  }

  protected keyAt(i: number): string {
    return this.manifest.pathAt(this.order[i]!);
  }

  private hexOf(k: number): string {
    return this.digests.toString('hex', k * this.digestSize, (k + 1) * this.digestSize);
  }

  protected valueAt(i: number): string {
    return this.hexOf(this.digestOfPath[this.order[i]!]!);
  }

  get(key: string): string | undefined {
    const p = this.manifest.pathNumber(key);
    return p < 0 || this.digestOfPath[p]! < 0 ? undefined : this.hexOf(this.digestOfPath[p]!);
  }
}
