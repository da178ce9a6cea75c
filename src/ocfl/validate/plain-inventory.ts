/**
 * How the validator reads inventory bytes: large ones of the plain shape (inventory/plain.ts, the
 * readers' definition) as a skeleton and scanned blocks, checked in place (plain-checks.ts);
 * every other one parsed in full.
 */
import { plainInventory, type PlainBlocks } from '../inventory/plain.js';
import { parseJson } from './read.js';

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
