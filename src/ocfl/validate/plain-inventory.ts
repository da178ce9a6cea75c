/**
 * How the validator reads inventory bytes: large ones of the plain shape (inventory/plain.ts, the
 * readers' definition) as a skeleton and scanned blocks, checked in place (block-maps.ts), read
 * window by window and never held whole; every other one parsed in full.
 */
import { readHashedWindows } from '../inventory/hashed-windows.js';
import { plainInventory, plainOfWindows, type PlainBlocks } from '../inventory/plain.js';
import { InventoryWindows } from '../inventory/windows.js';
import type { ReadStorage } from '../storage/storage.js';
import { type BytesFingerprint, digestsOf, fingerprintOf, MAX_INVENTORY_BYTES, parseJson, readSmall, type SmallRead } from './read.js';

export type InventoryRead = { ok: true; value: unknown; plain?: PlainBlocks } | { ok: false; problem: string };

/**
 * Inventories from this size on are read plain. Below it the full parse is faster (JSON.parse is
 * native; the scan is JavaScript the JIT has yet to warm up: 0.2 s more CPU at 10,000 files) and
 * its Maps are small (~250 MB at this size). The findings are the same either way; tests set it
 * to 0 to take the plain read everywhere.
 */
export const plainReading = { fromBytes: 16 * 1024 * 1024 };

/** An inventory file as the validator reads it: parsed (or not JSON), a fingerprint of its bytes, its digests for the sidecar. */
export type InventoryFileRead =
  | Exclude<SmallRead, { ok: true }>
  | {
      ok: true;
      parsed: InventoryRead;
      fingerprint: BytesFingerprint;
      digestOf: (algorithm: string) => string | undefined;
      /** The bytes, when read whole (not window by window). */
      bytes?: Buffer;
    };

/**
 * Reads an inventory file for the validator. From plainReading.fromBytes on it is read window by
 * window (into one reused buffer where the storage can) and hashed as it comes: a plain one is
 * never held whole (~600 MB at a million files, beside its blocks). Any other is read whole
 * (refused past MAX_INVENTORY_BYTES) and parsed in full.
 */
export async function readInventoryFile(fs: ReadStorage, file: string): Promise<InventoryFileRead> {
  const size = (await fs.stat(file).catch(() => undefined))?.size ?? 0;
  if (size >= plainReading.fromBytes && size <= MAX_INVENTORY_BYTES) {
    const windows = new InventoryWindows();
    const hashed = await readHashedWindows(fs, file, windows);
    const plain = hashed && plainOfWindows(windows);
    if (plain) {
      const { algorithm, digest, size: length } = hashed;
      const parsed = { ok: true as const, value: plain.skeleton, plain: plain.blocks };
      return { ok: true, parsed, fingerprint: { length, algorithm, digest }, digestOf: (a) => (a === algorithm ? digest : undefined) };
    }
  }
  const read = await readSmall(fs, file, MAX_INVENTORY_BYTES);
  if (!read.ok) return read;
  // Read whole: the skeleton and scanned blocks when large and plain, else the full parse (whose problem sentence words E033).
  const plain = read.bytes.length >= plainReading.fromBytes ? plainInventory(read.bytes) : undefined;
  const parsed: InventoryRead = plain ? { ok: true, value: plain.skeleton, plain: plain.blocks } : parseJson(read.bytes);
  // Fingerprinted in the algorithm it declares where it can be: the head's copy is then compared streamed (sameStoredBytes).
  const declared = parsed.ok ? (parsed.value as { digestAlgorithm?: unknown } | null)?.digestAlgorithm : undefined;
  const fingerprint = fingerprintOf(read.bytes, declared === 'sha512' ? 'sha512' : 'sha256');
  // The sidecar's algorithm is nearly always the fingerprint's: its digest is not computed again.
  const others = digestsOf(read.bytes);
  const digestOf = (a: string) => (a === fingerprint.algorithm ? fingerprint.digest : others(a));
  return { ok: true, parsed, fingerprint, digestOf, bytes: read.bytes };
}
