/**
 * What a staged version holds, compactly: the logical state (path -> manifest digest), how many
 * paths refer to each digest, the content this version stores (digest -> content path, size,
 * fixity digests) and the content paths it took. As Maps of strings this cost ~1 KB per file at a
 * million files (a 128-character digest string, path strings, a Map entry in each of five maps);
 * here paths are UTF-8 and digests raw bytes in growing arenas (inventory/arena.ts KeyArena), and everything
 * else typed arrays indexed by the key numbers. Strings are made only when asked for.
 *
 * A key once added keeps its number: a path removed from the state, or content dropped, stays in
 * its arena (marked absent) until the version is committed or aborted, so removing and adding
 * again costs a version a few bytes each time, never a lookup that goes wrong.
 *
 * `state` and `newContent` list their entries as the Maps they replace did, in the same order (a
 * key removed and set again comes last), for the inventory writers.
 */
import { SiardOcflError } from '../../errors.js';
import { DIGEST_HEX_LENGTH } from '../digest.js';
import type { PathBlock } from '../inventory/chunks.js';
import { grown, KeyArena } from '../inventory/arena.js';

export interface NewContent {
  contentPath: string;
  /** Every digest of the content; kept only when fixity is asked for (else the manifest digest is all there is). */
  digests: Record<string, string> | undefined;
  size: number;
}

/** Keys numbered 0.. that are present or not, listed in the order they became present (a Map's order). */
class Presence {
  /** Key numbers in the order they became present; a key listed again later is present from there. */
  private order = new Uint32Array(64);
  private listed = 0;
  /** Where each present key was last listed, + 1 (0: absent). */
  private at = new Uint32Array(64);
  size = 0;

  has(k: number): boolean {
    return k >= 0 && k < this.at.length && this.at[k]! > 0;
  }

  add(k: number): void {
    if (this.has(k)) return;
    this.order = grown(this.order, this.listed + 1);
    this.at = grown(this.at, k + 1);
    this.order[this.listed] = k;
    this.at[k] = ++this.listed;
    this.size++;
  }

  delete(k: number): void {
    if (!this.has(k)) return;
    this.at[k] = 0;
    this.size--;
  }

  /** The present keys in the order they became present. */
  present(): Uint32Array {
    const out = new Uint32Array(this.size);
    let n = 0;
    for (let i = 0; i < this.listed; i++) {
      const k = this.order[i]!;
      if (this.at[k] === i + 1) out[n++] = k;
    }
    return out;
  }
}

/** Lower-case hex of the given length (a digest as the hashers write it). */
function assertHex(value: string, length: number, what: string): void {
  if (value.length !== length || !/^[0-9a-f]*$/.test(value)) {
    throw new SiardOcflError(`${what} "${value}" is not ${length} lower-case hexadecimal digits.`);
  }
}

/** How a block's pairs compare: keys are digests, whose first four bytes (`prefixOf`) order them mostly alone. */
interface PairOrder {
  prefixOf: (a: number) => number;
  compareKeys: (a: number, b: number) => number;
  comparePaths: (a: number, b: number) => number;
}

/**
 * Sorts pair numbers by key then path. A comparator called ~20 times per pair costs seconds at a
 * million, so the pairs are first sorted natively as numbers (the key's first 32 bits above the
 * pair's place in `order`, both in a float's 53 bits), and only runs of equal first bits by the comparator.
 */
function sortPairs(order: Uint32Array, by: PairOrder): void {
  const full = (a: number, b: number) => by.compareKeys(a, b) || by.comparePaths(a, b);
  const bits = Math.max(1, Math.ceil(Math.log2(order.length + 1)));
  if (bits > 21) {
    order.sort(full);
    return;
  }
  const packed = new Float64Array(order.length);
  for (let j = 0; j < order.length; j++) packed[j] = by.prefixOf(order[j]!) * 2 ** bits + j;
  packed.sort();
  const from = order.slice();
  const prefixes = new Uint32Array(order.length);
  for (let j = 0; j < order.length; j++) {
    const place = packed[j]! % 2 ** bits;
    order[j] = from[place]!;
    prefixes[j] = Math.floor(packed[j]! / 2 ** bits);
  }
  for (let s = 0; s < order.length;) {
    let e = s + 1;
    while (e < order.length && prefixes[e] === prefixes[s]) e++;
    if (e - s > 1) order.subarray(s, e).sort(full);
    s = e;
  }
}

/**
 * n (key, path) pairs grouped by key: `order` (the pairs' numbers) sorted by key then path, each
 * group yielded with its paths. Pairs are sorted as numbers (4 bytes each), not as small arrays.
 */
function groupedPairs(order: Uint32Array, by: PairOrder, keyOf: (a: number) => string, pathOf: (a: number) => string): PathBlock {
  return function* () {
    sortPairs(order, by);
    for (let i = 0; i < order.length;) {
      const first = order[i]!;
      const group: string[] = [];
      for (; i < order.length && by.compareKeys(order[i]!, first) === 0; i++) group.push(pathOf(order[i]!));
      yield [keyOf(first), group] as const;
    }
  };
}

/** The numbers' values, one made as each is reached. */
function* mapped<T>(numbers: Uint32Array, valueOf: (n: number) => T): Generator<T> {
  for (const n of numbers) yield valueOf(n);
}

export class StagedState {
  /** Logical paths ever staged; `digestOf[p]` is the digest number of path p + 1 (0: not in the state). */
  private readonly paths = new KeyArena('utf8');
  private digestOf = new Uint32Array(64);
  private readonly inState = new Presence();
  /** Manifest digests ever met, with the number of state paths that refer to each. */
  private readonly digests = new KeyArena('hex');
  private refs = new Uint32Array(64);
  /** Content stored by this version, by digest number: its content path number and size. */
  private readonly stored = new Presence();
  private contentPathOf = new Uint32Array(64);
  private sizeOf = new Float64Array(64);
  /** Fixity digests of stored content, by digest number (bytes each, learnt from the first). */
  private readonly fixity: Array<{ algorithm: string; size: number; bytes: Uint8Array }>;
  /** Content paths (below the version's content folder) taken by stored content. */
  private readonly contentPaths = new KeyArena('utf8');
  private readonly taken = new Presence();
  private readonly digestHexLength: number;

  /** The state: (logical path, manifest digest), read afresh each time it is iterated. */
  readonly state: Iterable<[string, string]> = {
    [Symbol.iterator]: () => mapped(this.inState.present(), (p) => [this.paths.text(p), this.digests.text(this.digestOf[p]! - 1)]),
  };
  /** The content stored by this version: (manifest digest, content), read afresh each time it is iterated. */
  readonly newContent: Iterable<[string, NewContent]> = {
    [Symbol.iterator]: () => mapped(this.stored.present(), (d) => [this.digests.text(d), this.contentOf(d)]),
  };

  constructor(
    private readonly digestAlgorithm: string,
    fixityAlgorithms: readonly string[],
    /** Content paths are this prefix (`vN/content/`) and the content path taken. */
    private readonly contentPrefix: string,
  ) {
    this.digestHexLength = DIGEST_HEX_LENGTH[digestAlgorithm]!;
    this.fixity = fixityAlgorithms.map((algorithm) => ({ algorithm, size: 0, bytes: new Uint8Array(0) }));
  }

  // --- the state

  /** The manifest digest of a logical path, or undefined when it is not in the state. */
  get(logicalPath: string): string | undefined {
    const d = this.digestNumberOfPath(this.paths.find(logicalPath));
    return d < 0 ? undefined : this.digests.text(d);
  }

  has(logicalPath: string): boolean {
    return this.inState.has(this.paths.find(logicalPath));
  }

  get size(): number {
    return this.inState.size;
  }

  /** Puts a logical path that is not in the state into it, one more reference to its digest. */
  add(logicalPath: string, digest: string): void {
    const p = this.paths.intern(logicalPath);
    if (this.inState.has(p)) throw new Error(`"${logicalPath}" is in the state already.`);
    const d = this.digestNumber(digest);
    this.refs = grown(this.refs, d + 1);
    this.refs[d]!++;
    this.setPath(p, d);
  }

  /**
   * Takes a logical path out of the state; answers the content stored this version that nothing
   * refers to any more (dropped from newContent; its content path stays taken until released).
   */
  remove(logicalPath: string): NewContent | undefined {
    const p = this.paths.find(logicalPath);
    const d = this.digestNumberOfPath(p);
    if (d < 0) return undefined;
    this.inState.delete(p);
    if (--this.refs[d]! > 0 || !this.stored.has(d)) return undefined;
    const orphan = this.contentOf(d);
    this.stored.delete(d);
    return orphan;
  }

  /** Gives a logical path of the state another name (`to` not in the state); references are unchanged. */
  rename(from: string, to: string): void {
    const p = this.paths.find(from);
    const d = this.digestNumberOfPath(p);
    if (d < 0) throw new Error(`"${from}" is not in the state.`);
    const q = this.paths.intern(to);
    if (this.inState.has(q)) throw new Error(`"${to}" is in the state already.`);
    this.inState.delete(p);
    this.setPath(q, d);
  }

  // --- the content stored by this version

  /** The content stored this version under a digest, or undefined. */
  content(digest: string): NewContent | undefined {
    const d = this.findDigest(digest);
    return this.stored.has(d) ? this.contentOf(d) : undefined;
  }

  isStored(digest: string): boolean {
    return this.stored.has(this.findDigest(digest));
  }

  /**
   * Records content stored by this version at content path `taken` (below the version's content
   * folder; taken until released), with every digest when fixity is asked for; its full content path.
   */
  store(digest: string, taken: string, digests: Record<string, string>, size: number): string {
    const d = this.digestNumber(digest);
    if (this.stored.has(d)) throw new Error(`Content ${digest} is stored already.`);
    const c = this.contentPaths.intern(taken);
    this.taken.add(c);
    this.contentPathOf = grown(this.contentPathOf, d + 1);
    this.sizeOf = grown(this.sizeOf, d + 1);
    this.contentPathOf[d] = c;
    this.sizeOf[d] = size;
    for (const f of this.fixity) {
      const value = digests[f.algorithm];
      if (value === undefined) throw new SiardOcflError(`The ${f.algorithm} digest of ${digest} is missing.`);
      f.size ||= value.length >> 1;
      assertHex(value, 2 * f.size, `The ${f.algorithm} digest`);
      f.bytes = grown(f.bytes, (d + 1) * f.size);
      Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength).write(value, d * f.size, 'hex');
    }
    this.stored.add(d);
    return this.contentPrefix + taken;
  }

  /** Whether a content path (below the version's content folder) is taken. */
  isTaken(contentPath: string): boolean {
    return this.taken.has(this.contentPaths.find(contentPath));
  }

  /** Takes a content path (below the version's content folder) for content whose digest is not known yet (see store). */
  reserve(contentPath: string): void {
    this.taken.add(this.contentPaths.intern(contentPath));
  }

  /** Frees a content path whose file is gone. */
  release(contentPath: string): void {
    this.taken.delete(this.contentPaths.find(contentPath));
  }

  // --- the blocks of a new object's inventory (keys: the digests themselves, no base to key them)

  /** The manifest: digest -> [content path], in code-unit order. */
  manifestBlock(): PathBlock {
    return groupedPairs(
      this.stored.present(),
      { prefixOf: (d) => this.digests.prefix(d), compareKeys: (a, b) => this.digests.compare(a, b), comparePaths: () => 0 },
      (d) => this.digests.text(d),
      (d) => this.contentPathText(d),
    );
  }

  /** The new version's state: digest -> its logical paths, in code-unit order. */
  stateBlock(): PathBlock {
    return groupedPairs(
      this.inState.present(),
      {
        prefixOf: (p) => this.digests.prefix(this.digestOf[p]! - 1),
        compareKeys: (p, q) => this.digests.compare(this.digestOf[p]! - 1, this.digestOf[q]! - 1),
        comparePaths: (p, q) => this.paths.compare(p, q),
      },
      (p) => this.digests.text(this.digestOf[p]! - 1),
      (p) => this.paths.text(p),
    );
  }

  /** The fixity block of one algorithm: its digest -> the content paths stored with it. */
  fixityBlock(algorithm: string): PathBlock {
    const f = this.fixity.find((x) => x.algorithm === algorithm);
    if (!f) throw new Error(`No fixity algorithm ${algorithm} was staged.`);
    const bytes = Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength);
    return groupedPairs(
      this.stored.present(),
      {
        prefixOf: (d) => bytes.readUInt32BE(d * f.size),
        // buf.compare(target, ...) answers the order of the source range (b's) against the target range (a's).
        compareKeys: (a, b) => -bytes.compare(bytes, a * f.size, (a + 1) * f.size, b * f.size, (b + 1) * f.size),
        comparePaths: (a, b) => this.contentPaths.compare(this.contentPathOf[a]!, this.contentPathOf[b]!),
      },
      (d) => bytes.toString('hex', d * f.size, (d + 1) * f.size),
      (d) => this.contentPathText(d),
    );
  }

  private contentOf(d: number): NewContent {
    let digests: Record<string, string> | undefined;
    if (this.fixity.length > 0) {
      digests = { [this.digestAlgorithm]: this.digests.text(d) };
      for (const f of this.fixity)
        digests[f.algorithm] = Buffer.from(f.bytes.buffer, f.bytes.byteOffset).toString('hex', d * f.size, (d + 1) * f.size);
    }
    return { contentPath: this.contentPathText(d), digests, size: this.sizeOf[d]! };
  }

  private contentPathText(d: number): string {
    return this.contentPrefix + this.contentPaths.text(this.contentPathOf[d]!);
  }

  private setPath(p: number, d: number): void {
    this.digestOf = grown(this.digestOf, p + 1);
    this.digestOf[p] = d + 1;
    this.inState.add(p);
  }

  /** The digest number of path number p in the state, or -1. */
  private digestNumberOfPath(p: number): number {
    return this.inState.has(p) ? this.digestOf[p]! - 1 : -1;
  }

  private digestNumber(digest: string): number {
    assertHex(digest, this.digestHexLength, `The ${this.digestAlgorithm} digest`);
    return this.digests.intern(digest);
  }

  /** The number of a digest met before, or -1 (also for what is not a lower-case digest: no Map key would match it either). */
  private findDigest(digest: string): number {
    if (digest.length !== this.digestHexLength || !/^[0-9a-f]*$/.test(digest)) return -1;
    return this.digests.find(digest);
  }
}
