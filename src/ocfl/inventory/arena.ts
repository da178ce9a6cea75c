/**
 * Many short strings (an inventory's paths) as UTF-8 in one buffer with offsets instead of as
 * JavaScript strings: the readers and the validator share this shape.
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
