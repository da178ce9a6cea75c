/**
 * The checks of an inventory's large blocks (each version's state, the manifest, each fixity
 * block): every code here is checked in this file only, over the one block model
 * (check-block.ts), whether the inventory was parsed in full or read plain. The codes a block's
 * keys alone raise (a digest's shape, a repeat ignoring case) come from the block: a plain
 * inventory's keys are well-formed lower-case digests listed once.
 */
import type { Add, CheckBlock } from './check-block.js';
import { quote } from './findings.js';
import { pathShapeProblem } from './paths.js';

/** What the state checks keep: the paths kept, in order, and the key (state digest) of every path. */
export interface CheckedState {
  order: Uint32Array;
  keyOfPath: Uint32Array;
}

/** A state block: E050 (value), E051, E052, E053, E095. */
export function checkStateBlock(block: CheckBlock, vAdd: Add): CheckedState {
  const n = block.pathCount;
  const seen = block.pathSet(n);
  const kept = new Uint32Array(n);
  let count = 0;
  const keyOfPath = new Uint32Array(n);
  for (let k = 0; k < block.keyCount; k++) {
    const first = block.firstPath(k);
    const end = block.firstPath(k + 1);
    if (!block.isArray(k) || first === end) {
      vAdd('E050', `the state value for ${quote(block.keyText(k))} is not a non-empty list of logical paths.`);
      continue;
    }
    for (let p = first; p < end; p++) {
      keyOfPath[p] = k;
      const path = block.path(p);
      if (typeof path !== 'string') {
        vAdd('E051', `the state of ${quote(block.keyText(k))} holds ${quote(path)}, which is not a path.`);
        continue;
      }
      const problem = pathShapeProblem(path);
      if (problem === 'slash') vAdd('E053', `the logical path ${quote(path)} starts or ends with /.`);
      else if (problem === 'element') vAdd('E052', `the logical path ${quote(path)} has an empty, . or .. element.`);
      if (!seen.add(p)) vAdd('E095', `the logical path ${quote(path)} occurs more than once.`);
      else kept[count++] = p;
    }
  }
  const order = kept.slice(0, count);
  for (const [a, b] of block.conflicts(order)) {
    if (a !== b) vAdd('E095', `the logical path ${quote(a)} is also a folder of ${quote(b)}.`);
  }
  return { order, keyOfPath };
}

/** Whether the members of key k are all strings. */
function allStrings(block: CheckBlock, k: number): boolean {
  for (let p = block.firstPath(k); p < block.firstPath(k + 1); p++) if (typeof block.path(p) !== 'string') return false;
  return true;
}

/** The shape of a content path of the manifest or a fixity block (E099, E100): true when it has no problem. */
export function contentPathShapeOk(path: string, block: 'manifest' | 'fixity', add: Add): boolean {
  const problem = pathShapeProblem(path);
  if (problem === 'slash') add('E100', `The ${block} content path ${quote(path)} starts or ends with /.`);
  else if (problem === 'element') add('E099', `The ${block} content path ${quote(path)} has an empty, . or .. element.`);
  return problem === undefined;
}

/** Shape checks of one content path (checkContentPath in inventory.ts): true when it is kept. */
export type ContentPathCheck = (path: string) => boolean;

/** What the manifest checks keep: the content paths kept, in order; the key of every path; the keys listing paths. */
export interface CheckedManifest {
  order: Uint32Array;
  keyOfPath: Uint32Array;
  listed: Uint32Array;
}

/** The manifest: E092, E101, and through `contentPathOk` E099, E100, E042. */
export function checkManifestBlock(block: CheckBlock, add: Add, contentPathOk: ContentPathCheck): CheckedManifest {
  const n = block.pathCount;
  const seen = block.pathSet(n);
  const kept = new Uint32Array(n);
  let count = 0;
  const all = new Uint32Array(n);
  let allCount = 0;
  const keyOfPath = new Uint32Array(n);
  const listed = new Uint32Array(block.keyCount);
  let listedCount = 0;
  for (let k = 0; k < block.keyCount; k++) {
    block.checkKey?.(k, add);
    const first = block.firstPath(k);
    const end = block.firstPath(k + 1);
    if (!block.isArray(k) || first === end || !allStrings(block, k)) {
      add('E092', `The manifest value for ${quote(block.keyText(k))} is not a list of content paths.`);
      continue;
    }
    listed[listedCount++] = k;
    for (let p = first; p < end; p++) {
      keyOfPath[p] = k;
      all[allCount++] = p;
      if (contentPathOk(block.path(p) as string) && seen.add(p)) kept[count++] = p;
    }
  }
  for (const [a, b] of block.conflicts(all.subarray(0, allCount))) {
    add(
      'E101',
      a === b ? `The content path ${quote(a)} occurs more than once.` : `The content path ${quote(a)} is also a folder of ${quote(b)}.`,
    );
  }
  return { order: kept.slice(0, count), keyOfPath, listed: listed.slice(0, listedCount) };
}

/** A checked state as checkStateUse reads it. */
/** The keys of a block, all some checks need of it once its paths are checked. */
export type BlockKeys = Pick<CheckBlock, 'keyCount' | 'keyText'>;

export interface StateUse {
  name: string;
  state: CheckedState;
  block: BlockKeys;
  /** The manifest key (number) equal to state key k, or -1. */
  manifestKeyOf(k: number): number;
}

/**
 * The states against the manifest: E050 (a state digest of the wrong shape, or none of the
 * manifest's; once per digest and version), E107. `wellFormed`: whether a digest has the shape of
 * `algorithm` (parsed JSON only; a plain inventory's are).
 */
export function checkStateUse(
  states: readonly StateUse[],
  manifest: BlockKeys,
  listed: Uint32Array,
  add: Add,
  wellFormed?: (digest: string) => boolean,
  algorithm?: string,
): void {
  const used = new Uint8Array(manifest.keyCount);
  for (const { name, state, block, manifestKeyOf } of states) {
    const { order, keyOfPath } = state;
    const reported = new Uint8Array(block.keyCount);
    for (let i = 0; i < order.length; i++) {
      const k = keyOfPath[order[i]!]!;
      if (!reported[k] && wellFormed && !wellFormed(block.keyText(k))) {
        add('E050', `Version ${name}: the state digest ${quote(block.keyText(k))} is not a ${algorithm} digest.`);
        reported[k] = 1;
      }
      const entry = manifestKeyOf(k);
      if (entry >= 0) used[entry] = 1;
      else if (!reported[k]) {
        reported[k] = 1;
        add('E050', `Version ${name}: the state digest ${quote(block.keyText(k))} is not a key of the manifest.`);
      }
    }
  }
  for (const k of listed) {
    if (!used[k]) add('E107', `The manifest digest ${quote(manifest.keyText(k))} is used by no version state.`);
  }
}

/** What the fixity checks keep, through `keep`: each manifest content path named, with its key. */
export interface FixityTarget {
  /** The manifest's number of content path `path` (p of the block), or -1 when the manifest keeps none such. */
  manifestPathOf(p: number, path: string): number;
  /** Records manifest path m (`path`) under key k of the block (a later key for the same path replaces it). */
  keep(m: number, k: number, path: string): void;
  /** Whether the digests of key k are kept (a known algorithm, a well-formed digest). */
  keeps(k: number): boolean;
}

/** One algorithm's fixity block: E057 (value, path), E099, E100, E101. */
export function checkFixityBlock(block: CheckBlock, algorithm: string, add: Add, target: FixityTarget): void {
  const all = new Uint32Array(block.pathCount);
  let allCount = 0;
  for (let k = 0; k < block.keyCount; k++) {
    block.checkKey?.(k, add);
    if (!block.isArray(k) || !allStrings(block, k)) {
      add('E057', `The ${algorithm} fixity value for ${quote(block.keyText(k))} is not a list of content paths.`);
      continue;
    }
    const keeps = target.keeps(k);
    for (let p = block.firstPath(k); p < block.firstPath(k + 1); p++) {
      all[allCount++] = p;
      const path = block.path(p) as string;
      if (contentPathShapeOk(path, 'fixity', add)) {
        const m = target.manifestPathOf(p, path);
        if (m < 0) add('E057', `The ${algorithm} fixity block names ${quote(path)}, which is not a manifest content path.`);
        else if (keeps) target.keep(m, k, path);
      }
    }
  }
  for (const [a, b] of block.conflicts(all.subarray(0, allCount))) {
    add(
      'E101',
      a === b
        ? `The ${algorithm} fixity content path ${quote(a)} occurs more than once.`
        : `The fixity content path ${quote(a)} is also a folder of ${quote(b)}.`,
    );
  }
}
