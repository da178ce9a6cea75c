/**
 * The one definition of a plain inventory, read by the readers' InventoryView and by the
 * validator alike, from what inventory/windows.ts reads (window by window from storage, or bytes
 * held whole as one window): the header fields and version metadata parsed as JSON (a small
 * "skeleton" in which the manifest, each state and each fixity block stand as empty objects) and
 * the large blocks kept compactly (digests as bytes, paths as UTF-8 in arenas). At a million files
 * the full parse and its Maps cost ~800 bytes per file; a plain read the file's digest and paths.
 *
 * Plain means: keys of the large blocks are lower-case hex of the algorithm's length (sha512 or
 * sha256 for the manifest and states, a known algorithm's length for fixity), no key repeats at
 * any level that holds a large block, no version is named __proto__, and paths carry no escape.
 * Anything else answers undefined and goes through the full parse unchanged, so what is read or
 * found never depends on which way was taken.
 */
import { DIGEST_HEX_LENGTH } from '../digest.js';
import { DigestBlock } from './digest-block.js';
import { setOwn } from './json-bytes.js';
import type { BlockParts } from './path-block-windows.js';
import { InventoryWindows, type InventoryParts } from './windows.js';

const CONTENT_HEX_LENGTH: Record<string, number> = { sha512: 128, sha256: 64 };

/** The large blocks of a plain inventory, not yet indexed (DigestBlock.index finds a digest listed twice). */
export interface PlainBlocks {
  /** Bytes of a manifest (and state) digest: 64 for sha512, 32 for sha256. */
  digestSize: number;
  /** The blocks below are taken out as they are checked (validate/block-maps.ts). */
  manifest?: DigestBlock;
  /** Version name -> its state block. */
  states: Map<string, BlockParts>;
  /** Algorithm -> its fixity block (undefined: of an algorithm not known here, or not kept; checked only). */
  fixity: Map<string, DigestBlock | undefined>;
}

export interface PlainInventory {
  /** The inventory as JSON.parse reads it, but with `{}` for the manifest, every state and every fixity block. */
  skeleton: Record<string, unknown>;
  blocks: PlainBlocks;
}

/** Whether a block's keys have the hex length required (a block without keys fits any). */
const fits = (block: BlockParts, hexLength: number | undefined) => block.keyLength < 0 || block.keyLength === hexLength;

/**
 * The plain inventory of what windows.ts read, or undefined. `unknownFixity`: a fixity block of
 * an algorithm not known here is plain too (checked, not kept: the readers); the validator leaves
 * such inventories to the full parse, which checks every path of them.
 */
export function plainOfParts(parts: InventoryParts, options: { unknownFixity?: boolean } = {}): PlainInventory | undefined {
  const skeleton: Record<string, unknown> = {};
  for (const [key, value] of parts.members) setOwn(skeleton, key, value);
  const algorithm = skeleton.digestAlgorithm;
  const hexKeyLength =
    typeof algorithm === 'string' && Object.hasOwn(CONTENT_HEX_LENGTH, algorithm) ? CONTENT_HEX_LENGTH[algorithm] : undefined;
  const { manifest, versions: versionParts } = parts;
  if (hexKeyLength === undefined || !manifest || !versionParts || !fits(manifest, hexKeyLength)) return undefined;
  const digestSize = hexKeyLength / 2;
  const blocks: PlainBlocks = { digestSize, manifest: DigestBlock.ofParts(manifest, digestSize), states: new Map(), fixity: new Map() };
  if (parts.fixity) {
    const names: Record<string, unknown> = {};
    for (const [name, block] of parts.fixity) {
      const hexLength = Object.hasOwn(DIGEST_HEX_LENGTH, name) ? DIGEST_HEX_LENGTH[name] : undefined;
      if (hexLength === undefined ? !options.unknownFixity : block && !fits(block, hexLength)) return undefined;
      blocks.fixity.set(name, block && DigestBlock.ofParts(block, hexLength! / 2));
      names[name] = {};
    }
    skeleton.fixity = names;
  }
  const versions: Record<string, unknown> = {};
  for (const v of versionParts) {
    if (!fits(v.state, hexKeyLength)) return undefined;
    const version: Record<string, unknown> = {};
    for (const [key, value] of v.fields) setOwn(version, key, value);
    versions[v.name] = version;
    blocks.states.set(v.name, v.state);
  }
  skeleton.versions = versions;
  return { skeleton, blocks };
}

/**
 * The plain inventory `windows` read (every window written), every block checked for a digest
 * listed twice (JSON.parse would keep the last: the full parse decides); or undefined.
 */
export function plainOfWindows(windows: InventoryWindows): PlainInventory | undefined {
  const parts = windows.end();
  const plain = parts && plainOfParts(parts);
  if (!plain) return undefined;
  const { manifest, fixity, states, digestSize } = plain.blocks;
  if (!manifest!.index() || [...fixity.values()].some((block) => !block!.index())) return undefined;
  for (const state of states.values()) if (!DigestBlock.ofParts(state, digestSize).index()) return undefined;
  return plain;
}

/** The plain reading of inventory bytes held whole (see plainOfWindows); or undefined. */
export function plainInventory(bytes: Buffer): PlainInventory | undefined {
  const windows = new InventoryWindows();
  return windows.write(bytes) ? plainOfWindows(windows) : undefined;
}
