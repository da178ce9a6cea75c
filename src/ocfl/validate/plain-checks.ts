/**
 * The checks of an inventory's large blocks (states, manifest, fixity) made on the scanned bytes
 * of a plain inventory (plain-inventory.ts) instead of parsed JSON: the same findings in the same
 * order as inventory.ts makes on the full parse, one path at a time (each path's string made and
 * let go), and a compact model (inventory/compact-maps.ts) in place of the Maps. In a plain inventory every
 * key is a well-formed lower-case digest listed once, so the digest-shape and repeated-digest
 * findings (E025, E050 shape, E057 shape, E096, E097) cannot arise there.
 */
import { DIGEST_HEX_LENGTH } from '../digest.js';
import { arenaOf, type Arena } from '../inventory/arena.js';
import { digestBytesOf, hexInto, DigestBlock } from '../inventory/view.js';
import type { ScannedBlock } from '../inventory/path-block-scan.js';
import { FixityMap, ManifestDigests, PathMap, RangeTable } from '../inventory/compact-maps.js';
import { quote } from './findings.js';
import { pathShapeProblem } from './paths.js';
import type { PlainBlocks } from './plain-inventory.js';

type Add = (code: string, message: string) => void;

/** A version's state as checked: the map and, per path and per digest, what checkPlainStates needs. */
interface PlainState {
  map: PathMap<string>;
  /** State digest (key number) of each path. */
  keyOfPath: Uint32Array;
  /** Manifest entry of each state digest (-1: not in the manifest). */
  entryOfKey: Int32Array;
  /** The state digests not in the manifest, by key number. */
  missing: Map<number, string>;
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

/** Path numbers 0 .. n-1. */
function allNumbers(n: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
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

/** checkVersionState (inventory.ts) on a scanned state: E050, E052, E053, E095. */
export function checkPlainState(ctx: PlainContext, name: string, vAdd: Add): PathMap<string> {
  const { bytes, digestSize } = ctx.blocks;
  const block = ctx.blocks.states.get(name)!;
  ctx.blocks.states.delete(name);
  const { keyStart, firstPath, pathStart, pathEnd } = block;
  const n = pathStart.length;
  const table = new RangeTable(n, bytes, pathStart, pathEnd);
  const kept = new Uint32Array(n);
  let count = 0;
  const keyOfPath = new Uint32Array(n);
  for (let k = 0; k < keyStart.length; k++) {
    if (firstPath[k] === firstPath[k + 1]) {
      vAdd('E050', `the state value for ${quote(ctx.keyText(block, k))} is not a non-empty list of logical paths.`);
      continue;
    }
    for (let p = firstPath[k]!; p < firstPath[k + 1]!; p++) {
      keyOfPath[p] = k;
      const path = ctx.pathText(block, p);
      const problem = pathShapeProblem(path);
      if (problem === 'slash') vAdd('E053', `the logical path ${quote(path)} starts or ends with /.`);
      else if (problem === 'element') vAdd('E052', `the logical path ${quote(path)} has an empty, . or .. element.`);
      if (table.add(p) >= 0) vAdd('E095', `the logical path ${quote(path)} occurs more than once.`);
      else kept[count++] = p;
    }
  }
  const order = kept.slice(0, count);
  for (const [a, b] of conflictingBlockPaths(ctx, block, order)) {
    if (a !== b) vAdd('E095', `the logical path ${quote(a)} is also a folder of ${quote(b)}.`);
  }
  const entryOfKey = new Int32Array(keyStart.length);
  const scratch = Buffer.alloc(digestSize);
  const missing = new Map<number, string>();
  for (let k = 0; k < keyStart.length; k++) {
    hexInto(bytes, keyStart[k]!, scratch, 0, digestSize);
    entryOfKey[k] = ctx.digests.find(scratch);
    if (entryOfKey[k]! < 0) missing.set(k, ctx.keyText(block, k));
  }
  const arena = stateArena(ctx, block, keyOfPath, entryOfKey);
  table.rebase(arena.bytes, arena.start, arena.end);
  const digests = ctx.digests;
  const map = new PathMap(arena, order, table, (p) => {
    const entry = entryOfKey[keyOfPath[p]!]!;
    return entry >= 0 ? digests.digestOf(entry) : missing.get(keyOfPath[p]!)!;
  });
  ctx.states.set(name, { map, keyOfPath, entryOfKey, missing });
  return map;
}

/** Shape checks of one content path (checkContentPath in inventory.ts): true when it is kept. */
export type ContentPathCheck = (path: string) => boolean;

/** checkManifest (inventory.ts) on the scanned manifest: E092, E099, E100, E042, E101. */
export function checkPlainManifest(ctx: PlainContext, add: Add, contentPathOk: ContentPathCheck) {
  const { bytes } = ctx.blocks;
  const block = ctx.blocks.manifest!;
  ctx.blocks.manifest = undefined;
  const { keyStart, firstPath, pathStart, pathEnd } = block;
  const n = pathStart.length;
  const table = new RangeTable(n, bytes, pathStart, pathEnd);
  const kept = new Uint32Array(n);
  let count = 0;
  const entryOfPath = new Uint32Array(n);
  const listed = new Uint32Array(keyStart.length);
  let listedCount = 0;
  for (let k = 0; k < keyStart.length; k++) {
    if (firstPath[k] === firstPath[k + 1]) {
      add('E092', `The manifest value for ${quote(ctx.keyText(block, k))} is not a list of content paths.`);
      continue;
    }
    listed[listedCount++] = k;
    for (let p = firstPath[k]!; p < firstPath[k + 1]!; p++) {
      entryOfPath[p] = k;
      if (contentPathOk(ctx.pathText(block, p)) && table.add(p) < 0) kept[count++] = p;
    }
  }
  for (const [a, b] of conflictingBlockPaths(ctx, block, allNumbers(n))) {
    add(
      'E101',
      a === b ? `The content path ${quote(a)} occurs more than once.` : `The content path ${quote(a)} is also a folder of ${quote(b)}.`,
    );
  }
  const arena = ctx.manifestPaths;
  table.rebase(arena.bytes, arena.start, arena.end);
  const digests = ctx.digests;
  const manifest = new PathMap(arena, kept.slice(0, count), table, (p) => digests.digestOf(entryOfPath[p]!));
  ctx.manifest = manifest;
  ctx.listed = listed.slice(0, listedCount);
  return { manifest, manifestDigests: new ManifestDigests(digests, ctx.listed) };
}

/** checkStates (inventory.ts) on the checked states: E050 (digest not in the manifest), E107. */
export function checkPlainStates(ctx: PlainContext, versionNames: readonly string[], add: Add): void {
  const used = new Uint8Array(ctx.digests.entries);
  for (const name of versionNames) {
    const state = ctx.states.get(name);
    if (!state) continue;
    const { map, keyOfPath, entryOfKey, missing } = state;
    const reported = new Uint8Array(entryOfKey.length);
    for (const p of map.order) {
      const k = keyOfPath[p]!;
      const entry = entryOfKey[k]!;
      if (entry >= 0) used[entry] = 1;
      else if (!reported[k]) {
        reported[k] = 1;
        add('E050', `Version ${name}: the state digest ${quote(missing.get(k))} is not a key of the manifest.`);
      }
    }
  }
  for (const k of ctx.listed ?? []) {
    if (!used[k]) add('E107', `The manifest digest ${quote(ctx.digests.digestOf(k))} is used by no version state.`);
  }
}

/** One algorithm's block of checkFixity (inventory.ts) on the scanned block: E099, E100, E057, E101. */
export function checkPlainFixity(ctx: PlainContext, algorithm: string, add: Add): FixityMap {
  const { bytes } = ctx.blocks;
  const block = ctx.blocks.fixity.get(algorithm)!;
  ctx.blocks.fixity.delete(algorithm);
  const manifest = ctx.manifest!;
  const { firstPath, pathStart, pathEnd } = block;
  const digestOfPath = new Int32Array(manifest.paths.start.length).fill(-1);
  const order = new Uint32Array(pathStart.length);
  let count = 0;
  for (let k = 0; k < block.keyStart.length; k++) {
    for (let p = firstPath[k]!; p < firstPath[k + 1]!; p++) {
      const path = ctx.pathText(block, p);
      const problem = pathShapeProblem(path);
      if (problem === 'slash') add('E100', `The fixity content path ${quote(path)} starts or ends with /.`);
      else if (problem === 'element') add('E099', `The fixity content path ${quote(path)} has an empty, . or .. element.`);
      else {
        const m = manifest.pathNumberOfBytes(bytes, pathStart[p]!, pathEnd[p]!);
        if (m < 0) add('E057', `The ${algorithm} fixity block names ${quote(path)}, which is not a manifest content path.`);
        else {
          if (digestOfPath[m]! < 0) order[count++] = m;
          digestOfPath[m] = k;
        }
      }
    }
  }
  for (const [a, b] of conflictingBlockPaths(ctx, block, allNumbers(pathStart.length))) {
    add(
      'E101',
      a === b
        ? `The ${algorithm} fixity content path ${quote(a)} occurs more than once.`
        : `The fixity content path ${quote(a)} is also a folder of ${quote(b)}.`,
    );
  }
  const size = DIGEST_HEX_LENGTH[algorithm]! / 2;
  return new FixityMap(manifest, order.slice(0, count), digestOfPath, digestBytesOf(bytes, block, size), size);
}
