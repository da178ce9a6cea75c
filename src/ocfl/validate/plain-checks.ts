/**
 * A plain inventory's large blocks (states, manifest, fixity) checked on its scanned bytes
 * (plain-inventory.ts) instead of parsed JSON: the checks of block-checks.ts over PlainBlock, with
 * a compact model (inventory/compact-maps.ts) in place of the Maps, one path's string made at a
 * time and let go.
 */
import { DIGEST_HEX_LENGTH } from '../digest.js';
import { arenaOf, type Arena } from '../inventory/arena.js';
import { digestBytesOf, hexInto, DigestBlock } from '../inventory/view.js';
import type { ScannedBlock } from '../inventory/path-block-scan.js';
import { FixityMap, ManifestDigests, PathMap, RangeTable } from '../inventory/compact-maps.js';
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
  /** The manifest's digests as bytes and its paths, indexed by digest (the readers' manifest view). */
  readonly digests: DigestBlock;
  /** Every manifest path, in listing order. */
  readonly manifestPaths: Arena;
  /** The paths of manifest entry k are manifestPaths firstPath[k] .. firstPath[k + 1]. */
  readonly manifestFirstPath: Uint32Array;
  readonly states = new Map<string, PlainState>();
  manifest?: PathMap<string>;
  /** Manifest entries whose path list is not empty, in listing order. */
  listed?: Uint32Array;

  constructor(readonly blocks: PlainBlocks) {
    const { bytes, manifest, digestSize } = blocks;
    this.manifestPaths = arenaOf(bytes, manifest!.pathStart, manifest!.pathEnd);
    this.manifestFirstPath = manifest!.firstPath;
    this.digests = new DigestBlock(digestBytesOf(bytes, manifest!, digestSize), digestSize, manifest!.firstPath, this.manifestPaths);
    this.digests.index(); // no digest repeats in a plain inventory
  }

  keyText(block: ScannedBlock, k: number): string {
    return this.blocks.bytes.toString('latin1', block.keyStart[k], block.keyEnd[k]);
  }

  pathText(block: ScannedBlock, p: number): string {
    return this.blocks.bytes.toString('utf8', block.pathStart[p], block.pathEnd[p]);
  }
}

/** A scanned block as the checks walk it (block-checks.ts): every value a list of plain strings. */
class PlainBlock implements PathBlock {
  readonly keyCount: number;
  readonly pathCount: number;
  /** The table of the last pathSet, kept for the map built over the checked paths. */
  table?: RangeTable;

  constructor(
    private readonly ctx: PlainContext,
    readonly block: ScannedBlock,
  ) {
    this.keyCount = block.keyStart.length;
    this.pathCount = block.pathStart.length;
  }

  keyText(k: number): string {
    return this.ctx.keyText(this.block, k);
  }

  isArray(): boolean {
    return true;
  }

  firstPath(k: number): number {
    return this.block.firstPath[k]!;
  }

  path(p: number): string {
    return this.ctx.pathText(this.block, p);
  }

  pathSet(capacity: number) {
    const table = new RangeTable(capacity, this.ctx.blocks.bytes, this.block.pathStart, this.block.pathEnd);
    this.table = table;
    return { add: (p: number) => table.add(p) < 0 };
  }

  conflicts(list: Uint32Array): Array<[string, string]> {
    return conflictingBlockPaths(this.ctx, this.block, list);
  }
}

/**
 * conflictingPaths (paths.ts) over the paths `list` of a block, in its order: each repeat, then
 * each path that is also a folder of a later-listed or earlier-listed one, prefixes shortest first.
 */
function conflictingBlockPaths(ctx: PlainContext, block: ScannedBlock, list: ArrayLike<number>): Array<[string, string]> {
  const { bytes } = ctx.blocks;
  const { pathStart, pathEnd } = block;
  const table = new RangeTable(list.length, bytes, pathStart, pathEnd);
  const first = new Uint8Array(pathStart.length);
  const conflicts: Array<[string, string]> = [];
  for (let i = 0; i < list.length; i++) {
    const p = list[i]!;
    if (table.add(p) >= 0) {
      const text = ctx.pathText(block, p);
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
      if (other >= 0) conflicts.push([ctx.pathText(block, other), ctx.pathText(block, p)]);
    }
  }
  return conflicts;
}

/**
 * A state's paths as an arena. A logical path is nearly always the tail of its content path
 * ("v1/content/" + logical path): when every one is, the state points into the manifest's arena
 * (~60 MB less at a million files); otherwise its paths are copied.
 */
function stateArena(ctx: PlainContext, block: ScannedBlock, keyOfPath: Uint32Array, entryOfKey: Int32Array): Arena {
  const { bytes } = ctx.blocks;
  const { pathStart, pathEnd } = block;
  const manifest = ctx.manifestPaths;
  const firstPath = ctx.manifestFirstPath;
  const start = new Uint32Array(pathStart.length);
  const end = new Uint32Array(pathStart.length);
  for (let p = 0; p < pathStart.length; p++) {
    const entry = entryOfKey[keyOfPath[p]!]!;
    const length = pathEnd[p]! - pathStart[p]!;
    if (entry < 0 || firstPath[entry] === firstPath[entry + 1]) return arenaOf(bytes, pathStart, pathEnd);
    const contentEnd = manifest.end[firstPath[entry]!]!;
    const at = contentEnd - length;
    if (at - 1 <= manifest.start[firstPath[entry]!]! || manifest.bytes[at - 1] !== 0x2f) return arenaOf(bytes, pathStart, pathEnd);
    if (manifest.bytes.compare(bytes, pathStart[p], pathEnd[p], at, contentEnd) !== 0) return arenaOf(bytes, pathStart, pathEnd);
    start[p] = at;
    end[p] = contentEnd;
  }
  return { bytes: manifest.bytes, start, end };
}

/** A version's state (checkStateBlock) on its scanned block; its map over the manifest's paths when it can. */
export function checkPlainState(ctx: PlainContext, name: string, vAdd: Add): PathMap<string> {
  const { bytes, digestSize } = ctx.blocks;
  const block = ctx.blocks.states.get(name)!;
  ctx.blocks.states.delete(name);
  const view = new PlainBlock(ctx, block);
  const state = checkStateBlock(view, vAdd);
  const { keyOfPath } = state;
  const { keyStart } = block;
  const entryOfKey = new Int32Array(keyStart.length);
  const scratch = Buffer.alloc(digestSize);
  const missing = new Map<number, string>();
  for (let k = 0; k < keyStart.length; k++) {
    hexInto(bytes, keyStart[k]!, scratch, 0, digestSize);
    entryOfKey[k] = ctx.digests.find(scratch);
    if (entryOfKey[k]! < 0) missing.set(k, ctx.keyText(block, k));
  }
  const arena = stateArena(ctx, block, keyOfPath, entryOfKey);
  const table = view.table!;
  table.rebase(arena.bytes, arena.start, arena.end);
  const digests = ctx.digests;
  const map = new PathMap(arena, state.order, table, (p) => {
    const entry = entryOfKey[keyOfPath[p]!]!;
    return entry >= 0 ? digests.digestOf(entry) : missing.get(keyOfPath[p]!)!;
  });
  // The scanned block is let go: the digests not in the manifest are all the state's keys still needed.
  const keys = { keyCount: keyStart.length, keyText: (k: number) => missing.get(k)! };
  ctx.states.set(name, { map, use: { name, state, block: keys, manifestKeyOf: (k) => entryOfKey[k]! } });
  return map;
}

/** The manifest (checkManifestBlock) on its scanned block. */
export function checkPlainManifest(ctx: PlainContext, add: Add, contentPathOk: ContentPathCheck) {
  const block = ctx.blocks.manifest!;
  ctx.blocks.manifest = undefined;
  const view = new PlainBlock(ctx, block);
  const { order, keyOfPath, listed } = checkManifestBlock(view, add, contentPathOk);
  const arena = ctx.manifestPaths;
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

/** One algorithm's fixity block (checkFixityBlock) on its scanned block. */
export function checkPlainFixity(ctx: PlainContext, algorithm: string, add: Add): FixityMap {
  const { bytes } = ctx.blocks;
  const block = ctx.blocks.fixity.get(algorithm)!;
  ctx.blocks.fixity.delete(algorithm);
  const manifest = ctx.manifest!;
  const { pathStart, pathEnd } = block;
  const digestOfPath = new Int32Array(manifest.paths.start.length).fill(-1);
  const order = new Uint32Array(pathStart.length);
  let count = 0;
  checkFixityBlock(new PlainBlock(ctx, block), algorithm, add, {
    manifestPathOf: (p) => manifest.pathNumberOfBytes(bytes, pathStart[p]!, pathEnd[p]!),
    keep: (m, k) => {
      if (digestOfPath[m]! < 0) order[count++] = m;
      digestOfPath[m] = k;
    },
    keeps: () => true,
  });
  const size = DIGEST_HEX_LENGTH[algorithm]! / 2;
  return new FixityMap(manifest, order.slice(0, count), digestOfPath, digestBytesOf(bytes, block, size), size);
}
