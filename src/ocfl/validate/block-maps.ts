/**
 * An inventory's large blocks checked (block-checks.ts) and kept as the validator's model, the
 * same way however the inventory was read: paths as bytes in the blocks' arenas (check-block.ts),
 * a hash table of the paths a map keeps, and strings made only when asked for. The maps answer as
 * Maps set in listing order would, in the same order.
 */
import { OrderedMap, textAt, type RangeTable, type Arena } from '../inventory/arena.js';
import type { PlainBlocks } from '../inventory/plain.js';
import { DigestBlock } from '../inventory/digest-block.js';
import { CheckBlock, pathBytes, type Add } from './check-block.js';
import { checkFixityBlock, checkManifestBlock, checkStateBlock, type ContentPathCheck, type StateUse } from './block-checks.js';

/**
 * Paths of an arena, some of them kept (in `order`) and indexed: path -> value. The arena holds
 * every path listed, repeats included, so the table the checks built serves it unchanged.
 */
export class PathMap<V> extends OrderedMap<V> {
  protected readonly count: number;

  constructor(
    readonly paths: Arena,
    /** Path numbers of the entries, in insertion order. */
    readonly order: Uint32Array,
    private readonly table: RangeTable,
    private readonly valueOfPath: (p: number) => V,
    /** The paths as parsed, when the inventory was (a lone surrogate has no UTF-8 to read back). */
    private readonly names?: readonly unknown[],
  ) {
    super();
    this.count = order.length;
  }

  pathAt(p: number): string {
    return this.names ? (this.names[p] as string) : textAt(this.paths, p);
  }

  /** The path number of a kept path, or -1. */
  pathNumber(path: string): number {
    const q = pathBytes(path);
    return this.table.find(q, 0, q.length);
  }

  /** The path number of the kept path spelled by the bytes q[s, e) (an arena's, check-block.ts), or -1. */
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

/** digest as written -> every content path listed under it, for the manifest entries that list content paths. */
class ManifestDigests extends OrderedMap<readonly string[]> {
  protected readonly count: number;
  private readonly isListed: Uint8Array;

  constructor(
    private readonly manifest: CheckBlock,
    /** Keys listing content paths, in listing order. */
    private readonly listed: Uint32Array,
  ) {
    super();
    this.count = listed.length;
    this.isListed = new Uint8Array(manifest.keyCount);
    for (const k of listed) this.isListed[k] = 1;
  }

  protected keyAt(i: number): string {
    return this.manifest.keyText(this.listed[i]!);
  }

  protected valueAt(i: number): readonly string[] {
    return this.manifest.pathsOf(this.listed[i]!);
  }

  get(key: string): readonly string[] | undefined {
    const k = this.manifest.keyNumber(key);
    return k < 0 || !this.isListed[k] ? undefined : this.manifest.pathsOf(k);
  }
}

/** content path -> lower-case fixity digest: manifest paths (by their path number) with the fixity key of each. */
class FixityMap extends OrderedMap<string> {
  protected readonly count: number;

  constructor(
    private readonly manifest: PathMap<string>,
    /** Manifest path numbers, in insertion order. */
    private readonly order: Uint32Array,
    /** Fixity key of each manifest path number (-1: none). */
    private readonly keyOfPath: Int32Array,
    private readonly digestOfKey: (k: number) => string,
  ) {
    super();
    this.count = order.length;
  }

  protected keyAt(i: number): string {
    return this.manifest.pathAt(this.order[i]!);
  }

  protected valueAt(i: number): string {
    return this.digestOfKey(this.keyOfPath[this.order[i]!]!);
  }

  get(key: string): string | undefined {
    const p = this.manifest.pathNumber(key);
    return p < 0 || this.keyOfPath[p]! < 0 ? undefined : this.digestOfKey(this.keyOfPath[p]!);
  }
}

/**
 * What the checks of one inventory share: where each block comes from (a plain read's scanned
 * blocks, taken out as they are checked and let go: a million-file block's offsets are ~20 MB;
 * else the parsed JSON), and the manifest as checked.
 */
export class BlockContext {
  readonly uses = new Map<string, StateUse>();
  manifest?: PathMap<string>;
  /** Manifest keys listing content paths, in listing order. */
  listed?: Uint32Array;

  constructor(
    private readonly plain: PlainBlocks | undefined,
    /** The manifest block; none when the inventory has no manifest object. */
    readonly manifestBlock: CheckBlock | undefined,
  ) {}

  /** The context of a plain read's blocks, or of parsed JSON whose manifest is `manifest` (checked by `checkDigest`). */
  static of(plain: PlainBlocks | undefined, manifest: unknown, checkDigest: (digest: string, add: Add) => void): BlockContext {
    if (plain) return new BlockContext(plain, CheckBlock.ofDigests(plain.manifest!));
    const isObject = typeof manifest === 'object' && manifest !== null && !Array.isArray(manifest);
    return new BlockContext(undefined, isObject ? CheckBlock.ofParsed(manifest as Record<string, unknown>, checkDigest) : undefined);
  }

  /** Whether the blocks are a plain read's (its keys are well-formed digests listed once). */
  get isPlain(): boolean {
    return this.plain !== undefined;
  }

  stateBlock(name: string, state: Record<string, unknown>): CheckBlock {
    if (!this.plain) return CheckBlock.ofParsed(state);
    const parts = this.plain.states.get(name)!;
    this.plain.states.delete(name);
    return CheckBlock.ofDigests(DigestBlock.ofParts(parts, this.plain.digestSize));
  }

  fixityBlock(algorithm: string, block: Record<string, unknown>, checkDigest: (digest: string, add: Add) => void): CheckBlock {
    if (!this.plain) return CheckBlock.ofParsed(block, checkDigest);
    const kept = this.plain.fixity.get(algorithm)!;
    this.plain.fixity.delete(algorithm);
    return CheckBlock.ofDigests(kept);
  }
}

/**
 * A state's paths as an arena. A logical path is nearly always the tail of its content path
 * ("v1/content/" + logical path): when every one is, the state points into the manifest's arena
 * and its own copy is let go (~60 MB at a million files); otherwise it keeps its own.
 */
function stateArena(manifestBlock: CheckBlock, own: Arena, keyOfPath: Uint32Array, entryOfKey: Int32Array): Arena {
  const { bytes, start: pathStart, end: pathEnd } = own;
  const { paths: manifest, firstPaths: firstPath } = manifestBlock;
  const start = new Uint32Array(pathStart.length);
  const end = new Uint32Array(pathStart.length);
  for (let p = 0; p < pathStart.length; p++) {
    const entry = entryOfKey[keyOfPath[p]!]!;
    const length = pathEnd[p]! - pathStart[p]!;
    if (entry < 0 || firstPath[entry] === firstPath[entry + 1]) return own;
    const contentEnd = manifest.end[firstPath[entry]!]!;
    const at = contentEnd - length;
    if (at - 1 <= manifest.start[firstPath[entry]!]! || manifest.bytes[at - 1] !== 0x2f) return own;
    if (manifest.bytes.compare(bytes, pathStart[p], pathEnd[p], at, contentEnd) !== 0) return own;
    start[p] = at;
    end[p] = contentEnd;
  }
  return { bytes: manifest.bytes, start, end };
}

/** A version's state (checkStateBlock): logical path -> its digest as written, over the manifest's paths when it can. */
export function checkState(ctx: BlockContext, name: string, value: Record<string, unknown>, vAdd: Add): PathMap<string> {
  const block = ctx.stateBlock(name, value);
  const state = checkStateBlock(block, vAdd);
  const { keyOfPath } = state;
  const manifest = ctx.manifestBlock;
  const entryOfKey = new Int32Array(block.keyCount);
  const missing = new Map<number, string>();
  for (let k = 0; k < block.keyCount; k++) {
    entryOfKey[k] = manifest ? manifest.keyOf(block, k) : -1;
    if (entryOfKey[k]! < 0) missing.set(k, block.keyText(k));
  }
  const arena = manifest ? stateArena(manifest, block.paths, keyOfPath, entryOfKey) : block.paths;
  const table = block.table!;
  table.rebase(arena.bytes, arena.start, arena.end);
  // A key found in the manifest is written as the manifest's is (found as written).
  const keyText = (k: number) => (entryOfKey[k]! >= 0 ? manifest!.keyText(entryOfKey[k]!) : missing.get(k)!);
  const map = new PathMap(arena, state.order, table, (p) => keyText(keyOfPath[p]!), block.members);
  // The block is let go: the manifest and the digests not in it are all the state's keys still needed.
  ctx.uses.set(name, { name, state, block: { keyCount: block.keyCount, keyText }, manifestKeyOf: (k) => entryOfKey[k]! });
  return map;
}

/** The manifest (checkManifestBlock): content path -> digest as written, and digest -> content paths. */
export function checkManifest(ctx: BlockContext, add: Add, contentPathOk: ContentPathCheck) {
  const block = ctx.manifestBlock!;
  const { order, keyOfPath, listed } = checkManifestBlock(block, add, contentPathOk);
  const manifest = new PathMap(block.paths, order, block.table!, (p) => block.keyText(keyOfPath[p]!), block.members);
  ctx.manifest = manifest;
  ctx.listed = listed;
  return { manifest, manifestDigests: new ManifestDigests(block, listed) };
}

/** One algorithm's fixity block (checkFixityBlock): content path -> lower-case digest, of the keys `keeps` takes. */
export function checkFixity(
  ctx: BlockContext,
  algorithm: string,
  value: Record<string, unknown>,
  add: Add,
  checkDigest: (digest: string, add: Add) => void,
  keeps: boolean,
): ReadonlyMap<string, string> {
  const block = ctx.fixityBlock(algorithm, value, checkDigest);
  const manifest = ctx.manifest;
  const { bytes, start: pathStart, end: pathEnd } = block.paths;
  const keyOfPath = new Int32Array(manifest?.paths.start.length ?? 0).fill(-1);
  const order = new Uint32Array(block.pathCount);
  let count = 0;
  checkFixityBlock(block, algorithm, add, {
    manifestPathOf: (p) => manifest?.pathNumberOfBytes(bytes, pathStart[p]!, pathEnd[p]!) ?? -1,
    keep: (m, k) => {
      if (keyOfPath[m]! < 0) order[count++] = m;
      keyOfPath[m] = k;
    },
    keeps: (k) => keeps && block.wellFormedKey(k, algorithm),
  });
  return manifest ? new FixityMap(manifest, order.slice(0, count), keyOfPath, block.lowerCaseKeys()) : new Map();
}
