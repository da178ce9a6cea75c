/** Bounded reads of the small files validation parses (declarations, inventories, sidecars, configs). */
import { digestSync } from '../digest.js';
import { readHashedWindows } from '../inventory/hashed-windows.js';
import { parseJsonBytes } from '../inventory/large-json.js';
import type { ReadStorage } from '../storage/storage.js';

/** An object of a million LOB files has an inventory of ~600 MB; this allows about three times that. */
export const MAX_INVENTORY_BYTES = 2 * 1024 * 1024 * 1024;

export type SmallRead = { ok: true; bytes: Buffer } | { ok: false; reason: 'missing' | 'too-large' | 'unreadable' | 'not-a-file' };

/** A small file of the storage (declarations, inventories, sidecars, configs), refused past `maxBytes`. */
export async function readSmall(storage: ReadStorage, file: string, maxBytes: number): Promise<SmallRead> {
  let st;
  try {
    st = await storage.stat(file);
  } catch {
    return { ok: false, reason: 'unreadable' };
  }
  if (!st) return { ok: false, reason: 'missing' };
  if (!st.isFile) return { ok: false, reason: 'not-a-file' };
  if (st.size > maxBytes) return { ok: false, reason: 'too-large' };
  try {
    return { ok: true, bytes: await storage.readFile(file) };
  } catch {
    return { ok: false, reason: 'unreadable' };
  }
}

export type JsonRead = { ok: true; value: unknown; bytes: Buffer } | { ok: false; problem: string; missing?: true };

/** Parses JSON; deep nesting or bad syntax is a problem sentence, never a crash. */
export async function readJson(storage: ReadStorage, file: string, maxBytes = MAX_INVENTORY_BYTES): Promise<JsonRead> {
  const read = await readSmall(storage, file, maxBytes);
  if (!read.ok) {
    const why = {
      missing: 'is missing',
      'too-large': `is larger than ${maxBytes} bytes`,
      unreadable: 'cannot be read',
      'not-a-file': 'is not a regular file',
    }[read.reason];
    return { ok: false, problem: why, ...(read.reason === 'missing' ? { missing: true as const } : {}) };
  }
  return parseJson(read.bytes);
}

export function parseJson(bytes: Buffer): JsonRead {
  try {
    // In slices: a million-file inventory is more JSON than one string can hold (large-json.ts).
    return { ok: true, value: parseJsonBytes(bytes), bytes };
  } catch (err) {
    const e = err as Error;
    const detail =
      e instanceof RangeError
        ? 'is nested too deeply to parse'
        : e instanceof TypeError
          ? 'is not UTF-8 text'
          : `is not valid JSON (${e.message.slice(0, 100)})`;
    return { ok: false, problem: detail };
  }
}

/** Length and digest of bytes (sha256 or sha512), kept instead of the bytes to tell whether other bytes are the same. */
export interface BytesFingerprint {
  length: number;
  algorithm: string;
  digest: string;
}

export function fingerprintOf(bytes: Uint8Array, algorithm: 'sha256' | 'sha512'): BytesFingerprint {
  return { length: bytes.length, algorithm, digest: digestSync(algorithm, bytes) };
}

/**
 * Whether a stored file holds the bytes a fingerprint was taken of, read in windows rather than
 * whole (the head version's copy of a million-file inventory is another ~600 MB), with its digest
 * in `algorithm`. Undefined when it cannot tell so (unreadable, or a fingerprint in another
 * algorithm: that of an inventory read whole): read the file whole then.
 */
export async function sameStoredBytes(
  storage: ReadStorage,
  file: string,
  fingerprint: BytesFingerprint,
  algorithm: string,
): Promise<{ same: false } | { same: true; digest: string } | undefined> {
  if (fingerprint.algorithm !== algorithm) return undefined;
  const read = await readHashedWindows(storage, file, { write: () => true, digestAlgorithm: algorithm });
  if (!read) return undefined;
  return read.size === fingerprint.length && read.digest === fingerprint.digest ? { same: true, digest: read.digest } : { same: false };
}

/** The digests of bytes in memory, for the sidecar check (undefined for algorithms only computed asynchronously). */
export function digestsOf(bytes: Uint8Array): (algorithm: string) => string | undefined {
  return (algorithm) => {
    try {
      return digestSync(algorithm, bytes);
    } catch {
      return undefined; // algorithms only computable asynchronously are not used for inventories in practice
    }
  };
}

/** The digest a sidecar states ("<digest> inventory.json"), as written; undefined when it does not read so. */
export function sidecarDigest(bytes: Buffer): string | undefined {
  return /^([0-9a-fA-F]+)[ \t]+inventory\.json[ \t]*\r?\n?$/.exec(bytes.toString('utf8'))?.[1];
}

/**
 * Whether two parsed JSON values are the same, whatever the order of their members (it has no
 * significance in an inventory, 3.5: a user written {name, address} by one tool and {address,
 * name} by another is the same user). False when one cannot be written again, nested too deeply.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  const sorted = (_key: string, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : value;
  try {
    return JSON.stringify(a, sorted) === JSON.stringify(b, sorted);
  } catch {
    return false;
  }
}
