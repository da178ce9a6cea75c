/**
 * A strict scan of one digest -> paths block of inventory bytes (the manifest, a version's state,
 * a fixity block) as they come window by window (inventory/windows.ts): what is scanned is copied
 * out at once (hex keys as bytes, paths into one growing buffer), so no window is kept. A window
 * may end anywhere; the scan stops before an incomplete key or path and is handed it again at the
 * head of the next window.
 *
 * The scan accepts only the plain shape these blocks have in practice: keys and paths without
 * escapes or control characters, keys of lower-case hex (when asked; see `digits`). Anything else, valid JSON or
 * not, is "not plain", and the caller parses the bytes in full, which decides and words any error.
 * So what the scan keeps or visits, JSON.parse reads alike (a block only checked, `digits: false`, is
 * read for its shape: an escape or control character inside its strings goes unseen). For a
 * reader that meets a block before the digest algorithm, hex keys are taken at the length the
 * first one has (even, at most 128), every other key must have the same, and the owner compares
 * that length with the one required once it knows it.
 *
 * Hand-written because it measured cheaper (bench/json-reading.bench.ts, an inventory of 200,000
 * files, 75 MB, 2026-11-28): a scan of the manifest and state 0.84 s of CPU, 173 MiB peak;
 * @streamparser/json 0.0.26's Tokenizer 0.85 s bare (nothing kept) and 1.40 s with its strings
 * copied into one buffer (the least an index over it needs), its JSONParser 2.10 s; JSON.parse
 * 1.30 s at 371 MiB. The tokenizer also refuses a lone-surrogate escape (`"\ud800"`) JSON.parse
 * accepts, so it would judge such an inventory differently from the full parse.
 */
import type { Arena } from './arena.js';
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, QUOTE, SLASH, isSpace } from './json-bytes.js';

/** What a scan answers when the bytes are not of the plain shape. */
export const NOT_PLAIN = -1;

/** The longest hex key taken (sha512's, the longest any block may require). */
const MAX_HEX_KEY = 128;

// What the scan expects next (after white space).
const KEY_OR_CLOSE = 0;
const KEY = 1;
const KEY_COLON = 2;
const PATH_LIST = 3;
const PATH_OR_CLOSE = 4;
const PATH = 5;
const PATH_NEXT = 6;
const ENTRY_NEXT = 7;
const DONE = 8;

/** A growable list of unsigned 32-bit offsets (room for `capacity` first: a count known beforehand). */
class OffsetList {
  private data: Uint32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.data = new Uint32Array(Math.max(16, capacity));
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Uint32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  /** The values, trimmed to their number (the list is not used after). */
  done(): Uint32Array {
    return this.length === this.data.length ? this.data : this.data.slice(0, this.length);
  }
}

/**
 * Bytes appended to one buffer: of the size expected when it is known (a state's from the
 * manifest read before it), growing by an eighth past it; else growing by half again when full.
 * Sized as expected, a buffer a quarter too large is given back at the end (copied to its size):
 * the state of v1 sized as the head's.
 */
class GrowingBytes {
  private data: Buffer;
  length = 0;

  constructor(private readonly expected = 0) {
    this.data = Buffer.allocUnsafe(Math.max(1 << 12, expected));
  }

  /** Room for `n` more bytes at `length`. */
  room(n: number): Buffer {
    if (this.length + n > this.data.length) {
      const factor = this.expected > 0 ? 1.125 : 1.5;
      const grown = Buffer.allocUnsafe(Math.max(this.length + n, Math.floor(this.data.length * factor)));
      this.data.copy(grown, 0, 0, this.length);
      this.data = grown;
    }
    return this.data;
  }

  append(from: Buffer, start: number, end: number): void {
    this.room(end - start);
    this.length += from.copy(this.data, this.length, start, end);
  }

  done(): Buffer {
    const used = this.data.subarray(0, this.length);
    return this.expected > 0 && this.data.length - this.length > this.length / 4 ? Buffer.from(used) : used;
  }
}

/** One block as read: its keys as bytes (hex blocks), the first path of each key, and its paths. */
export interface BlockParts {
  /** Length in hex digits of every key; -1 when the block has none. */
  keyLength: number;
  /**
   * How many keys and paths the block lists (kept or not), and the bytes of its paths past their
   * second `/` (the logical path in a content path).
   */
  keyCount: number;
  pathCount: number;
  tailBytes: number;
  /** Key k as bytes: digests[k * keyLength / 2, (k + 1) * keyLength / 2). */
  digests: Buffer;
  /** firstPath[k] .. firstPath[k + 1]: the paths of key k. */
  firstPath: Uint32Array;
  paths: Arena;
}

/** Byte -> its value as a lower-case hex digit, else -1 (a table: a million-file inventory has 128 million of them). */
const NIBBLE = new Int8Array(256).fill(-1);
for (let c = 0x30; c <= 0x39; c++) NIBBLE[c] = c - 0x30;
for (let c = 0x61; c <= 0x66; c++) NIBBLE[c] = c - 0x57;

/**
 * The end of the plain string opening at bytes[at] (the index of its closing quote); `end` when
 * the window ends first; NOT_PLAIN for an escape, a control character or no opening quote.
 */
function plainStringEnd(bytes: Buffer, at: number, end: number): number {
  if (bytes[at] !== QUOTE) return NOT_PLAIN;
  for (let i = at + 1; i < end; i++) {
    const c = bytes[i]!;
    if (c === QUOTE) return i;
    if (c < 0x20 || c === BACKSLASH) return NOT_PLAIN;
  }
  return end;
}

/**
 * The end of the string opening at bytes[at] read for its extent only (a block neither kept nor
 * visited, see `digits`): its closing quote found natively, NOT_PLAIN where an escape may precede
 * it; `end` when the window ends first.
 */
function stringEnd(bytes: Buffer, at: number, end: number): number {
  if (bytes[at] !== QUOTE) return NOT_PLAIN;
  const close = bytes.indexOf(QUOTE, at + 1);
  if (close < 0 || close >= end) return end;
  return bytes[close - 1] === BACKSLASH ? NOT_PLAIN : close;
}

/** Where the part of a path past its second `/` starts (a content path's logical path, as writers write them), else its start. */
function tailStart(bytes: Buffer, start: number, end: number): number {
  for (let i = start, slashes = 0; i < end; i++) if (bytes[i] === SLASH && ++slashes === 2) return i + 1;
  return start;
}

/** Called with each key of a block not kept (as bytes, valid until the next call) and its first path (bytes[start, end)). */
export type EntryVisitor = (digest: Buffer, bytes: Buffer, start: number, end: number) => void;

export class PathBlockWindows {
  private expect = KEY_OR_CLOSE;
  private keyLength = -1;
  private keyCount = 0;
  private pathCount = 0;
  private tailBytes = 0;
  /** The current key as bytes, for the visitor (every key of a block has one length), and whether its first path is still to come. */
  private scratch: Buffer | undefined;
  private unvisited = false;
  private digests: GrowingBytes | undefined;
  private readonly firstPath: OffsetList;
  private readonly pathBytes: GrowingBytes;
  /** Path i is pathBytes[offsets[i], offsets[i + 1]): paths are appended one after another. */
  private readonly offsets: OffsetList;
  private readonly stringEnd: typeof plainStringEnd;

  /**
   * `hexKeys`: keys are lower-case hex, kept as bytes; `keep`: false for a block only checked (no
   * key or path kept), whose entries `visit` sees as they are read. `expected`: the keys, paths and
   * path bytes the block is expected to hold (its buffers are sized for them; more still fit).
   * `tails`: count tailBytes (the manifest's, which sizes the states after it). `digits`: false,
   * a block neither kept nor visited is read for its shape only: its keys' length checked, not
   * their digits, its strings' ends found natively, a control character in them not looked for
   * (no reader uses what it does not keep; a 200,000-file summary took a third more CPU checking
   * them). The scan starts after the block's `{`.
   */
  constructor(
    private readonly hexKeys: boolean,
    private readonly keep: boolean,
    private readonly visit?: EntryVisitor,
    private readonly expected?: { keys: number; paths: number; bytes: number },
    private readonly tails = false,
    digits = true,
  ) {
    this.stringEnd = digits || keep || visit ? plainStringEnd : stringEnd;
    const size = (n: number | undefined) => (keep ? n : 0);
    this.firstPath = new OffsetList(size(expected && expected.keys + 1));
    this.pathBytes = new GrowingBytes(size(expected?.bytes));
    this.offsets = new OffsetList(size(expected && expected.paths + 1));
    this.offsets.push(0);
  }

  get done(): boolean {
    return this.expect === DONE;
  }

  /**
   * Scans bytes[at, end): answers the index after the block's `}` once it is read, the start of an
   * incomplete key or path (or `end`) when the window ends first, or NOT_PLAIN.
   */
  scan(bytes: Buffer, at: number, end: number): number {
    let i = at;
    for (;;) {
      while (i < end && isSpace(bytes[i]!)) i++;
      if (i === end || this.expect === DONE) return i;
      const c = bytes[i]!;
      switch (this.expect) {
        case KEY_OR_CLOSE:
          if (c === CLOSE_OBJECT) return this.close(i);
          this.expect = KEY;
          break;
        case KEY: {
          const close = this.stringEnd(bytes, i, end);
          if (close === NOT_PLAIN || close === end) return close === end ? i : NOT_PLAIN;
          if (!this.key(bytes, i + 1, close)) return NOT_PLAIN;
          i = close + 1;
          this.expect = KEY_COLON;
          break;
        }
        case KEY_COLON:
          if (c !== COLON) return NOT_PLAIN;
          i++;
          this.expect = PATH_LIST;
          break;
        case PATH_LIST:
          if (c !== OPEN_ARRAY) return NOT_PLAIN;
          i++;
          this.expect = PATH_OR_CLOSE;
          break;
        case PATH_OR_CLOSE:
          if (c === CLOSE_ARRAY) i++;
          this.expect = c === CLOSE_ARRAY ? ENTRY_NEXT : PATH;
          break;
        case PATH: {
          const close = this.stringEnd(bytes, i, end);
          if (close === NOT_PLAIN || close === end) return close === end ? i : NOT_PLAIN;
          this.pathCount++;
          if (this.tails) this.tailBytes += close - tailStart(bytes, i + 1, close);
          if (this.keep) {
            this.pathBytes.append(bytes, i + 1, close);
            this.offsets.push(this.pathBytes.length);
          } else if (this.unvisited) {
            this.visit!(this.scratch!, bytes, i + 1, close);
            this.unvisited = false;
          }
          i = close + 1;
          this.expect = PATH_NEXT;
          break;
        }
        case PATH_NEXT:
          if (c !== COMMA && c !== CLOSE_ARRAY) return NOT_PLAIN;
          i++;
          this.expect = c === COMMA ? PATH : ENTRY_NEXT;
          break;
        default: // ENTRY_NEXT
          if (c === CLOSE_OBJECT) return this.close(i);
          if (c !== COMMA) return NOT_PLAIN;
          i++;
          this.expect = KEY;
      }
    }
  }

  private close(at: number): number {
    this.expect = DONE;
    return at + 1;
  }

  /** Takes the key bytes[start, end); false when it is not the hex key the block needs. */
  private key(bytes: Buffer, start: number, end: number): boolean {
    if (this.hexKeys) {
      const length = end - start;
      if (this.keyLength < 0) {
        if (length % 2 !== 0 || length > MAX_HEX_KEY) return false;
        this.keyLength = length;
      } else if (length !== this.keyLength) return false;
      const size = length / 2;
      if (this.keep) this.digests ??= new GrowingBytes(size * (this.expected?.keys ?? 0));
      const out = this.digests ? this.digests.room(size) : this.visit ? (this.scratch ??= Buffer.allocUnsafe(size)) : undefined;
      this.unvisited = out !== undefined && out === this.scratch;
      const at = this.digests ? this.digests.length : 0;
      for (let b = 0, i = start; (out || this.stringEnd === plainStringEnd) && b < size; b++, i += 2) {
        const high = NIBBLE[bytes[i]!]!;
        const low = NIBBLE[bytes[i + 1]!]!;
        if ((high | low) < 0) return false;
        if (out) out[at + b] = (high << 4) | low;
      }
      if (this.digests) this.digests.length += size;
    }
    this.keyCount++;
    if (this.keep) this.firstPath.push(this.offsets.length - 1);
    return true;
  }

  /** The block read (once done). */
  parts(): BlockParts {
    this.firstPath.push(this.offsets.length - 1);
    const offsets = this.offsets.done();
    const { keyLength, keyCount, pathCount, tailBytes } = this;
    return {
      keyLength,
      keyCount,
      pathCount,
      tailBytes,
      digests: this.digests?.done() ?? Buffer.alloc(0),
      firstPath: this.firstPath.done(),
      paths: { bytes: this.pathBytes.done(), start: offsets.subarray(0, offsets.length - 1), end: offsets.subarray(1) },
    };
  }
}
