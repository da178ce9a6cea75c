/**
 * A plain inventory's large blocks (states, manifest, fixity) checked as the plain read keeps
 * them (inventory/plain.ts: digests as bytes, paths in arenas) instead of parsed JSON: the checks
 * of block-checks.ts over PlainBlock, with a compact model (inventory/compact-maps.ts) in place of
 * the Maps, one path's string made at a time and let go.
 */
import { RangeTable, type Arena } from '../inventory/arena.js';
import type { DigestBlock } from '../inventory/digest-block.js';
import { FixityMap, ManifestDigests, PathMap } from '../inventory/compact-maps.js';
import {
  checkFixityBlock,
  checkManifestBlock,
  checkStateBlock,
  checkStateUse,
  type Add,
  type ContentPathCheck,
  type PathBlock,
  type StateUse,
} from './block-checks.js';
import type { PlainBlocks } from '../inventory/plain.js';

/** A block as the plain read keeps it (a DigestBlock, or a state's parts): key k as bytes, the paths of each. */
interface KeptBlock {
  digests: Buffer;
  firstPath: Uint32Array;
  paths: Arena;
}

/** A version's state as checked: the map, and what checkPlainStates needs. */
interface PlainState {
  map: PathMap<string>;
  use: StateUse;
}

/**
 * What the checks of one plain inventory share. Each scanned block is let go once checked (a
 * million-file block's offsets are ~20 MB): the checks take it out of `blocks`.
 */
export class PlainContext {
  /** The manifest's digests as bytes and its paths, indexed by digest (the readers' manifest block). */
  readonly digests: DigestBlock;
  readonly states = new Map<string, PlainState>();
  manifest?: PathMap<string>;
  /** Manifest entries whose path list is not empty, in listing order. */
  listed?: Uint32Array;

  constructor(readonly blocks: PlainBlocks) {
    this.digests = blocks.manifest!; // indexed by the plain read: no digest repeats
  }
}

/** Path p of an arena as a string. */
const pathText = (paths: Arena, p: number) => paths.bytes.toString('utf8', paths.start[p], paths.end[p]);

/** A kept block as the checks walk it (block-checks.ts): every value a list of plain strings. */
class PlainBlock implements PathBlock {
  readonly keyCount: number;
  readonly pathCount: number;
  /** The table of the last pathSet, kept for the map built over the checked paths. */
  table?: RangeTable;

  constructor(
    readonly block: KeptBlock,
    private readonly digestSize: number,
  ) {
    this.keyCount = block.firstPath.length - 1;
    this.pathCount = block.paths.start.length;
  }

  keyText(k: number): string {
    return this.block.digests.toString('hex', k * this.digestSize, (k + 1) * this.digestSize);
  }

  isArray(): boolean {
    return true;
  }

  firstPath(k: number): number {
    return this.block.firstPath[k]!;
  }

  path(p: number): string {
    return pathText(this.block.paths, p);
  }

  pathSet(capacity: number) {
    const { bytes, start, end } = this.block.paths;
    const table = new RangeTable(capacity, bytes, start, end);
    this.table = table;
    return { add: (p: number) => table.add(p) < 0 };
  }

  conflicts(list: Uint32Array): Array<[string, string]> {
    return conflictingBlockPaths(this.block.paths, list);
  }
}

/**
 * conflictingPaths (paths.ts) over the paths `list` of a block, in its order: each repeat, then
 * each path that is also a folder of a later-listed or earlier-listed one, prefixes shortest first.
 */
function conflictingBlockPaths(paths: Arena, list: ArrayLike<number>): Array<[string, string]> {
  const { bytes, start: pathStart, end: pathEnd } = paths;
  const table = new RangeTable(list.length, bytes, pathStart, pathEnd);
  const first = new Uint8Array(pathStart.length);
  const conflicts: Array<[string, string]> = [];
  for (let i = 0; i < list.length; i++) {
    const p = list[i]!;
    if (table.add(p) >= 0) {
      const text = pathText(paths, p);
      conflicts.push([text, text]);
    } else first[p] = 1;
  }
  for (let i = 0; i < list.length; i++) {
    const p = list[i]!;
    if (!first[p]) continue;
    const s = pathStart[p]!;
    // As p.indexOf('/') from 0: a path starting with '/' has no prefix looked at.
    for (let j = bytes.indexOf(0x2f, s); j > s && j < pathEnd[p]!; j = bytes.indexOf(0x2f, j + 1)) {
      const other = table.find(bytes, s, j);
      if (other >= 0) conflicts.push([pathText(paths, other), pathText(paths, p)]);
    }
  }
  return conflicts;
}

/**
 * A state's paths as an arena. A logical path is nearly always the tail of its content path
 * ("v1/content/" + logical path): when every one is, the state points into the manifest's arena
 * and its own copy is let go (~60 MB at a million files); otherwise it keeps its own.
 */
function stateArena(ctx: PlainContext, own: Arena, keyOfPath: Uint32Array, entryOfKey: Int32Array): Arena {
  const { bytes, start: pathStart, end: pathEnd } = own;
  const manifest = ctx.digests.paths;
  const firstPath = ctx.digests.firstPath;
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

/** A version's state (checkStateBlock) on its kept block; its map over the manifest's paths when it can. */
export function checkPlainState(ctx: PlainContext, name: string, vAdd: Add): PathMap<string> {
  const { digestSize } = ctx.blocks;
  const block = ctx.blocks.states.get(name)!;
  ctx.blocks.states.delete(name);
  const view = new PlainBlock(block, digestSize);
  const state = checkStateBlock(view, vAdd);
  const { keyOfPath } = state;
  const keyCount = view.keyCount;
  const entryOfKey = new Int32Array(keyCount);
  const missing = new Map<number, string>();
  for (let k = 0; k < keyCount; k++) {
    entryOfKey[k] = ctx.digests.find(block.digests.subarray(k * digestSize, (k + 1) * digestSize));
    if (entryOfKey[k]! < 0) missing.set(k, view.keyText(k));
  }
  const arena = stateArena(ctx, block.paths, keyOfPath, entryOfKey);
  const table = view.table!;
  table.rebase(arena.bytes, arena.start, arena.end);
  const digests = ctx.digests;
  const map = new PathMap(arena, state.order, table, (p) => {
    const entry = entryOfKey[keyOfPath[p]!]!;
    return entry >= 0 ? digests.digestOf(entry) : missing.get(keyOfPath[p]!)!;
  });
  // The block is let go: the digests not in the manifest are all the state's keys still needed.
  const keys = { keyCount, keyText: (k: number) => missing.get(k)! };
  ctx.states.set(name, { map, use: { name, state, block: keys, manifestKeyOf: (k) => entryOfKey[k]! } });
  return map;
}

/** The manifest (checkManifestBlock) on its kept block. */
export function checkPlainManifest(ctx: PlainContext, add: Add, contentPathOk: ContentPathCheck) {
  ctx.blocks.manifest = undefined;
  const view = new PlainBlock(ctx.digests, ctx.blocks.digestSize);
  const { order, keyOfPath, listed } = checkManifestBlock(view, add, contentPathOk);
  const arena = ctx.digests.paths;
  const table = view.table!;
  table.rebase(arena.bytes, arena.start, arena.end);
  const digests = ctx.digests;
  const manifest = new PathMap(arena, order, table, (p) => digests.digestOf(keyOfPath[p]!));
  ctx.manifest = manifest;
  ctx.listed = listed;
  return { manifest, manifestDigests: new ManifestDigests(digests, listed) };
}

/** The checked states against the manifest (checkStateUse). */
export function checkPlainStates(ctx: PlainContext, versionNames: readonly string[], add: Add): void {
  const uses = versionNames.flatMap((name) => ctx.states.get(name)?.use ?? []);
  const manifest = { keyCount: ctx.digests.entries, keyText: (k: number) => ctx.digests.digestOf(k) };
  checkStateUse(uses, manifest, ctx.listed ?? new Uint32Array(0), add);
}

/** One algorithm's fixity block (checkFixityBlock) on its kept block. */
export function checkPlainFixity(ctx: PlainContext, algorithm: string, add: Add): FixityMap {
  const block = ctx.blocks.fixity.get(algorithm)!;
  ctx.blocks.fixity.delete(algorithm);
  const manifest = ctx.manifest!;
  const { bytes, start: pathStart, end: pathEnd } = block.paths;
  const digestOfPath = new Int32Array(manifest.paths.start.length).fill(-1);
  const order = new Uint32Array(pathStart.length);
  let count = 0;
  checkFixityBlock(new PlainBlock(block, block.digestSize), algorithm, add, {
    manifestPathOf: (p) => manifest.pathNumberOfBytes(bytes, pathStart[p]!, pathEnd[p]!),
    keep: (m, k) => {
      if (digestOfPath[m]! < 0) order[count++] = m;
      digestOfPath[m] = k;
    },
    keeps: () => true,
  });
  return new FixityMap(manifest, order.slice(0, count), digestOfPath, block.digests, block.digestSize);
}
