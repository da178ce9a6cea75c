/**
 * The byte-level pieces of check's fast table read (table-pass-fast.ts): table XML is read as
 * UTF-8 bytes (validated a region at a time by the caller), never decoded as a whole; a cell's
 * text is looked at in one pass over its bytes, which finds its end (`<`) and what it holds that
 * the fast read cannot decide by bytes alone. Only ASCII bytes carry XML markup, so tags are
 * compared byte by byte; text is decoded to a string only where a value needs a string
 * (a key value that is no plain integer, a value whose type is judged by fast-cells.ts, a cell
 * with a marked byte).
 */

/** a control character the fast read leaves to the full pass: those XML forbids */
export const UNUSUAL_BYTE = 1;
/** `&` (an entity), `>` (of `]]>`), a back-slash (a SIARD escape), DEL (127): the text is looked at as a string */
export const MARK_BYTE = 2;
/**
 * The lead byte of U+0080-U+00BF (0xC2: the C1 controls 128-159 among them) or of U+F000-U+FFFF
 * (0xEF: U+FFFE and U+FFFF among them): the text is looked at as a string.
 */
export const LOOK_BYTE = 4;
/** set in a text's classes only for a space right after a space: a raw run of spaces (G_3.3-4) */
const SPACE_RUN = 8;
/** CR: the text is looked at as a string, its line ends normalised as XML does (CRLF and CR to LF) */
export const CR_BYTE = 16;

const BYTE_CLASS = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) if (b !== 0x09 && b !== 0x0a) BYTE_CLASS[b] = UNUSUAL_BYTE;
BYTE_CLASS[0x0d] = CR_BYTE;
for (const b of [0x26, 0x3e, 0x5c, 0x7f]) BYTE_CLASS[b] = MARK_BYTE;
BYTE_CLASS[0xc2] = LOOK_BYTE;
BYTE_CLASS[0xef] = LOOK_BYTE;
BYTE_CLASS[0x20] = SPACE_RUN;

/** What scanText found: the index of the `<` ending the text (-1: none before `end`) and the text's classes. */
export interface TextScan {
  lt: number;
  classes: number;
}

/** The text from `start` up to the next `<` before `end`, in one pass over its bytes. */
export function scanText(buf: Uint8Array, start: number, end: number, out: TextScan): void {
  let classes = 0;
  let previous = 0;
  let i = start;
  for (; i < end; i++) {
    const c = buf[i]!;
    if (c === 0x3c) break;
    const k = BYTE_CLASS[c]!;
    // SPACE_RUN only when the byte before was a space too
    classes |= k & (previous | ~SPACE_RUN);
    previous = k;
  }
  out.lt = i < end ? i : -1;
  out.classes = classes;
}

/** Code points in buf[start, end) of valid UTF-8 (continuation bytes not counted). */
export function codePoints(buf: Uint8Array, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) if ((buf[i]! & 0xc0) !== 0x80) n++;
  return n;
}

/** 1 when buf holds `bytes` at `pos`, -1 when what is there before `end` is a prefix of them, 0 otherwise. */
export function bytesAt(buf: Uint8Array, pos: number, end: number, bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) {
    if (pos + i >= end) return -1;
    if (buf[pos + i] !== bytes[i]) return 0;
  }
  return 1;
}

/**
 * Where the end tag of the cell whose start tag `<cN...` begins at `start` (its name ending at
 * `nameEnd`) ends, when `lt` is the `<` after its text: the index after `</cN>`, 0 when what stands
 * there is no such end tag, -1 when the bytes before `end` stop first.
 */
export function closingTag(buf: Uint8Array, start: number, nameEnd: number, lt: number, end: number): number {
  const nameLength = nameEnd - start - 1;
  if (lt + nameLength + 3 > end) return -1;
  if (buf[lt + 1] !== 0x2f || buf[lt + 2 + nameLength] !== 0x3e) return 0;
  for (let i = 0; i < nameLength; i++) if (buf[lt + 2 + i] !== buf[start + 1 + i]) return 0;
  return lt + nameLength + 3;
}

export function isWhitespaceByte(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;
}

/**
 * An integer cell's text as a number when it is `-?[1-9][0-9]*` or `0` of at most 15 digits (the
 * canonical form a double holds exactly: String(n) gives the text back); undefined for anything else.
 */
export function plainInteger(buf: Uint8Array, start: number, end: number): number | undefined {
  let i = start;
  const negative = buf[i] === 0x2d;
  if (negative) i++;
  const digits = end - i;
  if (digits < 1 || digits > 15 || (buf[i] === 0x30 && (digits > 1 || negative))) return undefined;
  let n = 0;
  for (; i < end; i++) {
    const d = buf[i]! - 0x30;
    if (d < 0 || d > 9) return undefined;
    n = n * 10 + d;
  }
  return negative ? -n : n;
}

const COMMENT = Buffer.from('<!--');

/**
 * A comment at `pos`: the index after its `-->`, -1 when the bytes before `end` stop first, 0 when
 * there is none or XML forbids it (`--` inside, a control character, U+FFFE or U+FFFF).
 */
export function skipComment(buf: Uint8Array, pos: number, end: number): number {
  const open = bytesAt(buf, pos, end, COMMENT);
  if (open <= 0) return open;
  for (let i = pos + 4; i < end; i++) {
    const c = buf[i]!;
    if (c === 0x2d && i + 1 < end && buf[i + 1] === 0x2d) {
      if (i + 2 >= end) return -1;
      return buf[i + 2] === 0x3e ? i + 3 : 0;
    }
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return 0;
    if (c === 0xef && buf[i + 1] === 0xbf && (buf[i + 2] === 0xbe || buf[i + 2] === 0xbf)) return 0;
  }
  return -1;
}
