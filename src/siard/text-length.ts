/**
 * Lengths of text LOBs as SIARD cells state them: a CLOB's `length` is in characters, which
 * producers count as Unicode code points or as UTF-16 units (Java's String.length()), so both are
 * counted wherever a length is written or checked.
 */

/** Number of Unicode code points in UTF-8 bytes (counts the bytes that start a character). */
export function countUtf8Characters(chunk: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < chunk.length; i++) if ((chunk[i]! & 0xc0) !== 0x80) n++;
  return n;
}

export interface TextLength {
  codePoints: number;
  utf16Units: number;
}

/** Adds the length of decoded text to `counts` (a surrogate pair is one code point, two units). */
export function addTextLength(counts: TextLength, text: string): void {
  counts.utf16Units += text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) counts.codePoints++; // a low surrogate completes a pair already counted
  }
}
