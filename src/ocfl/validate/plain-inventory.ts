/**
 * Inventory bytes of the plain shape read for the validator without parsing the large blocks: the
 * header fields and version metadata are parsed as JSON (a small "skeleton" in which the manifest,
 * each state and each fixity block stand as empty objects) and the large blocks are only scanned
 * (path-block-scan.ts). At a million files the full parse and its Maps cost ~800 bytes per file;
 * the checks on the scanned blocks (plain-checks.ts) keep a few bytes per file beside the JSON.
 *
 * Plain means what the readers' InventoryView reads in place, and a little more strictly: keys of
 * the large blocks are lower-case hex of the algorithm's length (sha512 or sha256 for the manifest
 * and states, a known algorithm's length for fixity), no key repeats at any level that holds a
 * large block, and paths carry no escape. Anything else answers undefined and goes through the
 * full parse unchanged, so the findings never depend on which way was taken.
 */
import { isUtf8 } from 'node:buffer';
import { DIGEST_HEX_LENGTH } from '../digest.js';
import { hashBytes, emptyTable, uniqueMembers } from '../inventory/view.js';
import { setOwn } from '../inventory/json-bytes.js';
import { parseJsonRange, topLevelObject } from '../inventory/large-json.js';
import { scanPathBlock, type ScannedBlock } from '../inventory/path-block-scan.js';
import { parseJson } from './read.js';

const CONTENT_HEX_LENGTH: Record<string, number> = { sha512: 128, sha256: 64 };

/** The scanned large blocks of a plain inventory, over its bytes (held only while it is checked). */
export interface PlainBlocks {
  bytes: Buffer;
  /** Bytes of a manifest (and state) digest: 64 for sha512, 32 for sha256. */
  digestSize: number;
  /** The blocks below are taken out as they are checked (plain-checks.ts). */
  manifest?: ScannedBlock;
  /** Version name -> its state block. */
  states: Map<string, ScannedBlock>;
  /** Algorithm -> its fixity block. */
  fixity: Map<string, ScannedBlock>;
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
    if (bytes[v.start] !== 0x7b) return undefined;
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

/** The fixity block: every algorithm known and its block plain; undefined otherwise. */
function readFixity(bytes: Buffer, at: { start: number; end: number }, fixity: Map<string, ScannedBlock>) {
  if (bytes[at.start] !== 0x7b) return undefined;
  const members = uniqueMembers(bytes, at.start, at.end);
  if (!members) return undefined;
  const out: Record<string, unknown> = {};
  for (const [algorithm, b] of members) {
    const hexKeyLength = Object.hasOwn(DIGEST_HEX_LENGTH, algorithm) ? DIGEST_HEX_LENGTH[algorithm] : undefined;
    const block = hexKeyLength === undefined ? undefined : scanBlock(bytes, b, hexKeyLength);
    if (!block) return undefined;
    fixity.set(algorithm, block);
    out[algorithm] = {};
  }
  return out;
}

/** The plain reading of inventory bytes, or undefined: then parse them in full. */
export function plainInventory(bytes: Buffer): PlainInventory | undefined {
  if (!isUtf8(bytes)) return undefined;
  try {
    return readPlain(bytes);
  } catch (err) {
    // Not JSON, nested too deeply: the full parse words it.
    if (err instanceof SyntaxError || err instanceof RangeError || err instanceof TypeError) return undefined;
    throw err;
  }
}

function readPlain(bytes: Buffer): PlainInventory | undefined {
  const top = topLevelObject(bytes);
  const members = uniqueMembers(bytes, top.start, top.end);
  const alg = members?.get('digestAlgorithm');
  const algorithm = alg ? parseJsonRange(bytes, alg.start, alg.end) : undefined;
  const hexKeyLength =
    typeof algorithm === 'string' && Object.hasOwn(CONTENT_HEX_LENGTH, algorithm) ? CONTENT_HEX_LENGTH[algorithm] : undefined;
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
    else if (key === 'fixity') value = readFixity(bytes, m, blocks.fixity);
    else value = parseJsonRange(bytes, m.start, m.end);
    if (value === undefined) return undefined;
    setOwn(skeleton, key, value);
  }
  return { skeleton, blocks };
}

export type InventoryRead = { ok: true; value: unknown; plain?: PlainBlocks } | { ok: false; problem: string };

/**
 * Inventories from this size on are read plain. Below it the full parse is faster (JSON.parse is
 * native; the scan is JavaScript the JIT has yet to warm up: 0.2 s more CPU at 10,000 files) and
 * its Maps are small (~250 MB at this size). The findings are the same either way; tests set it
 * to 0 to take the plain read everywhere.
 */
export const plainReading = { fromBytes: 16 * 1024 * 1024 };

/**
 * Inventory bytes read for checkInventory: the skeleton and scanned blocks when large and plain,
 * else the full parse (whose problem sentence words E033).
 */
export function readInventoryBytes(bytes: Buffer): InventoryRead {
  const plain = bytes.length >= plainReading.fromBytes ? plainInventory(bytes) : undefined;
  return plain ? { ok: true, value: plain.skeleton, plain: plain.blocks } : parseJson(bytes);
}
