/**
 * SIARD character escapes (SIARD 2.2 G_3.3-4): characters XML cannot carry (0-8, 14-31,
 * 127-159), the escape character `\` itself and runs of spaces are written `\u00XX`. Readers turn
 * every `\uXXXX` back into its character; a back-slash not starting such a sequence is kept as it
 * is (older producers wrote bare back-slashes).
 */
const ESCAPE = /\\u([0-9A-Fa-f]{4})/g;

export function unescapeSiard(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Decodes xs:hexBinary; undefined when the text is not hex of even length. */
export function decodeSiardHex(text: string): Uint8Array | undefined {
  const t = text.trim();
  if (t.length % 2 !== 0 || !/^[0-9A-Fa-f]*$/.test(t)) return undefined;
  return new Uint8Array(Buffer.from(t, 'hex'));
}
