/**
 * The one definition of a plain inventory, read by the readers' InventoryView and by the
 * validator alike: the header fields and version metadata parsed as JSON (a small "skeleton" in
 * which the manifest, each state and each fixity block stand as empty objects) and the large
 * blocks only scanned (path-block-scan.ts). At a million files the full parse and its Maps cost
 * ~800 bytes per file; a plain read a few bytes per file beside the JSON.
 *
 * Plain means: keys of the large blocks are lower-case hex of the algorithm's length (sha512 or
 * sha256 for the manifest and states, a known algorithm's length for fixity), no key repeats at
 * any level that holds a large block, no version is named __proto__, and paths carry no escape.
 * Anything else answers undefined and goes through the full parse unchanged, so what is read or
 * found never depends on which way was taken.
 */
import { isUtf8 } from 'node:buffer';
import { DIGEST_HEX_LENGTH } from '../digest.js';
import { setOwn } from './json-bytes.js';
import { objectMembers, parseJsonRange, topLevelObject } from './large-json.js';
import { scanPathBlock, type ScannedBlock } from './path-block-scan.js';

/** Members of the object bytes[start, end), or undefined when a key repeats (JSON.parse keeps the last: the full parse decides). */
function uniqueMembers(bytes: Buffer, start: number, end: number): Map<string, { start: number; end: number }> | undefined {
  const out = new Map<string, { start: number; end: number }>();
  for (const m of objectMembers(bytes, start, end)) {
    if (out.has(m.key)) return undefined;
    out.set(m.key, m);
  }
  return out;
}

/** A power-of-two open-addressing table of entry indexes (-1: empty), sized for `n` entries. */
export function emptyTable(n: number): Int32Array {
  let size = 16;
  while (size < n * 2) size *= 2;
  return new Int32Array(size).fill(-1);
}

/** FNV-1a of bytes[start, end). */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

const CONTENT_HEX_LENGTH: Record<string, number> = { sha512: 128, sha256: 64 };

/** Hex digits of a content digest of `algorithm` (sha512 or sha256), else undefined. */
export function contentHexLength(algorithm: unknown): number | undefined {
  return typeof algorithm === 'string' && Object.hasOwn(CONTENT_HEX_LENGTH, algorithm) ? CONTENT_HEX_LENGTH[algorithm] : undefined;
}

/** The scanned large blocks of a plain inventory, over its bytes (held only while it is checked). */
export interface PlainBlocks {
  bytes: Buffer;
  /** Bytes of a manifest (and state) digest: 64 for sha512, 32 for sha256. */
  digestSize: number;
  /** The blocks below are taken out as they are checked (plain-checks.ts). */
  manifest?: ScannedBlock;
  /** Version name -> its state block. */
  states: Map<string, ScannedBlock>;
  /** Algorithm -> its fixity block (undefined: an algorithm not known here, its block checked only). */
  fixity: Map<string, ScannedBlock | undefined>;
}

export interface PlainInventory {
  /** The inventory as JSON.parse reads it, but with `{}` for the manifest, every state and every fixity block. */
  skeleton: Record<string, unknown>;
  blocks: PlainBlocks;
}

/** Whether a block lists a key twice (JSON.parse would keep the last: left to the full parse). */
function repeatsKey(bytes: Buffer, block: ScannedBlock): boolean {
  const { keyStart, keyEnd } = block;
  const table = emptyTable(keyStart.length);
  const mask = table.length - 1;
  for (let k = 0; k < keyStart.length; k++) {
    const s = keyStart[k]!;
    const e = keyEnd[k]!;
    for (let slot = hashBytes(bytes, s, e) & mask; ; slot = (slot + 1) & mask) {
      const other = table[slot]!;
      if (other === -1) {
        table[slot] = k;
        break;
      }
      if (keyEnd[other]! - keyStart[other]! === e - s && bytes.compare(bytes, keyStart[other], keyEnd[other], s, e) === 0) return true;
    }
  }
  return false;
}

/** A large block scanned with hex keys of `hexKeyLength` and no repeated key, or undefined. */
function scanBlock(bytes: Buffer, at: { start: number; end: number }, hexKeyLength: number): ScannedBlock | undefined {
  const block = scanPathBlock(bytes, at.start, at.end, { hexKeyLength });
  return block && !repeatsKey(bytes, block) ? block : undefined;
}

/** The versions block: version metadata parsed, states scanned; undefined when not plain. */
function readVersions(bytes: Buffer, at: { start: number; end: number }, hexKeyLength: number, states: Map<string, ScannedBlock>) {
  if (bytes[at.start] !== 0x7b) return undefined;
  const members = uniqueMembers(bytes, at.start, at.end);
  if (!members) return undefined;
  const versions: Record<string, unknown> = {};
  for (const [name, v] of members) {
    if (name === '__proto__' || bytes[v.start] !== 0x7b) return undefined;
    const fields = uniqueMembers(bytes, v.start, v.end);
    const stateAt = fields?.get('state');
    if (!fields || !stateAt) return undefined;
    const state = scanBlock(bytes, stateAt, hexKeyLength);
    if (!state) return undefined;
    states.set(name, state);
    const version: Record<string, unknown> = {};
    for (const [key, f] of fields) setOwn(version, key, key === 'state' ? {} : parseJsonRange(bytes, f.start, f.end));
    setOwn(versions, name, version);
  }
  return versions;
}

/**
 * The fixity block: every block plain, of a known algorithm or (`unknownFixity`) checked only;
 * undefined otherwise.
 */
function readFixity(bytes: Buffer, at: { start: number; end: number }, fixity: PlainBlocks['fixity'], unknownFixity: boolean) {
  if (bytes[at.start] !== 0x7b) return undefined;
  const members = uniqueMembers(bytes, at.start, at.end);
  if (!members) return undefined;
  const out: Record<string, unknown> = {};
  for (const [algorithm, b] of members) {
    if (algorithm === '__proto__') return undefined;
    const hexKeyLength = Object.hasOwn(DIGEST_HEX_LENGTH, algorithm) ? DIGEST_HEX_LENGTH[algorithm] : undefined;
    if (hexKeyLength === undefined) {
      if (!unknownFixity || !scanPathBlock(bytes, b.start, b.end, { checkOnly: true })) return undefined;
      fixity.set(algorithm, undefined);
    } else {
      const block = scanBlock(bytes, b, hexKeyLength);
      if (!block) return undefined;
      fixity.set(algorithm, block);
    }
    out[algorithm] = {};
  }
  return out;
}

/**
 * The plain reading of inventory bytes, or undefined: then parse them in full. `unknownFixity`:
 * a fixity block of an algorithm not known here is plain too (checked, not kept: the readers);
 * the validator leaves such inventories to the full parse, which checks every path of them.
 */
export function plainInventory(bytes: Buffer, options: { unknownFixity?: boolean } = {}): PlainInventory | undefined {
  if (!isUtf8(bytes)) return undefined;
  try {
    return readPlain(bytes, options.unknownFixity ?? false);
  } catch (err) {
    // Not JSON, nested too deeply: the full parse words it.
    if (err instanceof SyntaxError || err instanceof RangeError || err instanceof TypeError) return undefined;
    throw err;
  }
}

function readPlain(bytes: Buffer, unknownFixity: boolean): PlainInventory | undefined {
  const top = topLevelObject(bytes);
  const members = uniqueMembers(bytes, top.start, top.end);
  const alg = members?.get('digestAlgorithm');
  const algorithm = alg ? parseJsonRange(bytes, alg.start, alg.end) : undefined;
  const hexKeyLength = contentHexLength(algorithm);
  const manifestAt = members?.get('manifest');
  const versionsAt = members?.get('versions');
  if (!members || hexKeyLength === undefined || !manifestAt || !versionsAt) return undefined;
  const blocks: PlainBlocks = { bytes, digestSize: hexKeyLength / 2, manifest: undefined!, states: new Map(), fixity: new Map() };
  const skeleton: Record<string, unknown> = {};
  for (const [key, m] of members) {
    let value: unknown;
    if (key === 'manifest') {
      const manifest = scanBlock(bytes, m, hexKeyLength);
      if (!manifest) return undefined;
      blocks.manifest = manifest;
      value = {};
    } else if (key === 'versions') value = readVersions(bytes, m, hexKeyLength, blocks.states);
    else if (key === 'fixity') value = readFixity(bytes, m, blocks.fixity, unknownFixity);
    else value = parseJsonRange(bytes, m.start, m.end);
    if (value === undefined) return undefined;
    setOwn(skeleton, key, value);
  }
  return { skeleton, blocks };
}
