/**
 * Many short strings (an inventory's paths) as UTF-8 in one buffer with offsets instead of as
 * JavaScript strings, and the hash of byte strings the tables over them use: the readers and the
 * validator share this shape.
 */

/** Strings as UTF-8 in one buffer: string i is bytes[start[i], end[i]). */
export interface Arena {
  bytes: Buffer;
  start: Uint32Array;
  end: Uint32Array;
}

/** Copies the byte ranges [starts[i], ends[i]) of `from` into one arena. */
export function arenaOf(from: Buffer, starts: Uint32Array, ends: Uint32Array): Arena {
  let total = 0;
  for (let i = 0; i < starts.length; i++) total += ends[i]! - starts[i]!;
  const bytes = Buffer.allocUnsafe(total);
  const start = new Uint32Array(starts.length);
  const end = new Uint32Array(starts.length);
  let at = 0;
  for (let i = 0; i < starts.length; i++) {
    start[i] = at;
    at += from.copy(bytes, at, starts[i], ends[i]);
    end[i] = at;
  }
  return { bytes, start, end };
}

/** A power-of-two open-addressing table of entry indexes (-1: empty), sized for `n` entries. */
export function emptyTable(n: number): Int32Array {
  let size = 16;
  while (size < n * 2) size *= 2;
  return new Int32Array(size).fill(-1);
}

/** FNV-1a of bytes[start, end): the hash of every table over byte strings here. */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}
