/**
 * The validator's one model of an inventory's digest -> paths block (the manifest, a version's
 * state, a fixity block), however the inventory was read: its keys (a plain read's digests as
 * bytes, inventory/plain.ts; else the keys of the parsed JSON as written), its paths numbered
 * across the block in listing order and held as bytes in one arena, and what only parsed JSON can
 * hold (a value that is not a list, a member that is not a string). The checks (block-checks.ts)
 * and the maps built over the paths they keep (block-maps.ts) read a block this way only.
 */
import { RangeTable, textAt, type Arena } from '../inventory/arena.js';
import type { DigestBlock } from '../inventory/digest-block.js';
import { DIGEST_HEX_LENGTH } from '../digest.js';

export type Add = (code: string, message: string) => void;

/** Hex of the algorithm's length (either case). A loop: called once or twice per content file. */
export function isWellFormedDigest(algorithm: string, digest: string): boolean {
  const len = DIGEST_HEX_LENGTH[algorithm];
  if (len === undefined || digest.length !== len) return false;
  for (let i = 0; i < len; i++) {
    const c = digest.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) return false;
  }
  return true;
}

/**
 * String.prototype.isWellFormed (ES2024: Node 20 on; the compiler's lib is ES2022), native: a tenth
 * of the CPU of a regular expression, paid on each non-ASCII path looked up.
 */
const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * Writes a path's bytes at `at`: UTF-8, but a lone surrogate (parsed JSON may hold one) as its
 * own three bytes (WTF-8), not as U+FFFD, which would make two different paths one. The end.
 */
function writePath(bytes: Buffer, text: string, at: number): number {
  const n = bytes.write(text, at, 'utf8');
  if (n === text.length || isWellFormed(text)) return at + n;
  for (let i = 0, j = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      i++;
      j += 4;
    } else if ((c & 0xf800) === 0xd800) {
      bytes[j++] = 0xed;
      bytes[j++] = 0x80 | ((c >> 6) & 0x3f);
      bytes[j++] = 0x80 | (c & 0x3f);
    } else j += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
  }
  return at + n;
}

/** A path's bytes as the arenas here hold them (see writePath), to look it up. */
export function pathBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafe(Buffer.byteLength(text, 'utf8'));
  writePath(bytes, text, 0);
  return bytes;
}

/** What a block parsed in full holds that a plain one cannot: its keys as written, which values are lists, every member. */
interface ParsedParts {
  keys: string[];
  arrays: Uint8Array;
  members: unknown[];
}

export class CheckBlock {
  readonly keyCount: number;
  readonly pathCount: number;
  /** The table of the last pathSet, kept for the map built over the checked paths. */
  table?: RangeTable;
  private keyIndex?: Map<string, number>;

  private constructor(
    /** The keys as bytes (a plain read's: lower-case digests, each listed once), or undefined. */
    private readonly digests: DigestBlock | undefined,
    private readonly parsed: ParsedParts | undefined,
    /** firstPaths[k] .. firstPaths[k + 1] - 1: the paths of key k. */
    readonly firstPaths: Uint32Array,
    /** Every path's bytes (pathBytes); a member that is not a string has none. */
    readonly paths: Arena,
    /** The findings key k alone raises before its paths are checked (digest shape, repeats ignoring case). */
    readonly checkKey?: (k: number, add: Add) => void,
  ) {
    this.keyCount = firstPaths.length - 1;
    this.pathCount = paths.start.length;
  }

  /** A block of a plain read. */
  static ofDigests(block: DigestBlock): CheckBlock {
    return new CheckBlock(block, undefined, block.firstPath, block.paths);
  }

  /** A block of parsed JSON; `checkDigest` checks each key. */
  static ofParsed(block: Record<string, unknown>, checkDigest?: (digest: string, add: Add) => void): CheckBlock {
    const keys = Object.keys(block);
    const arrays = new Uint8Array(keys.length);
    const first = new Uint32Array(keys.length + 1);
    const members: unknown[] = [];
    let size = 0;
    for (let k = 0; k < keys.length; k++) {
      first[k] = members.length;
      const value = block[keys[k]!];
      if (!Array.isArray(value)) continue;
      arrays[k] = 1;
      for (const p of value as unknown[]) {
        members.push(p);
        if (typeof p === 'string') size += Buffer.byteLength(p, 'utf8');
      }
    }
    first[keys.length] = members.length;
    const paths = { bytes: Buffer.allocUnsafe(size), start: new Uint32Array(members.length), end: new Uint32Array(members.length) };
    for (let p = 0, at = 0; p < members.length; p++) {
      paths.start[p] = at;
      if (typeof members[p] === 'string') at = writePath(paths.bytes, members[p] as string, at);
      paths.end[p] = at;
    }
    const checkKey = checkDigest && ((k: number, add: Add) => checkDigest(keys[k]!, add));
    return new CheckBlock(undefined, { keys, arrays, members }, first, paths, checkKey);
  }

  keyText(k: number): string {
    return this.parsed ? this.parsed.keys[k]! : this.digests!.digestOf(k);
  }

  /** The number of the key written `text`, or -1. */
  keyNumber(text: string): number {
    if (this.parsed) {
      this.keyIndex ??= new Map(this.parsed.keys.map((key, k) => [key, k]));
      return this.keyIndex.get(text) ?? -1;
    }
    return this.digests!.findHex(text);
  }

  /** The number of this block's key equal to key k of `other` (a state's key in the manifest), or -1. */
  keyOf(other: CheckBlock, k: number): number {
    if (!this.digests || !other.digests) return this.keyNumber(other.keyText(k));
    const size = other.digests.digestSize;
    return this.digests.find(other.digests.digests.subarray(k * size, (k + 1) * size));
  }

  /** Key k in lower case, through a function that holds the keys only (the paths may be let go). */
  lowerCaseKeys(): (k: number) => string {
    if (this.parsed) {
      const keys = this.parsed.keys;
      return (k) => keys[k]!.toLowerCase();
    }
    const { digests, digestSize: size } = this.digests!;
    return (k) => digests.toString('hex', k * size, (k + 1) * size);
  }

  /** Whether key k is a digest of `algorithm` (a plain read's are, by its definition). */
  wellFormedKey(k: number, algorithm: string): boolean {
    return !this.parsed || isWellFormedDigest(algorithm, this.parsed.keys[k]!);
  }

  /** Whether the value of key k is a JSON array (its members are paths firstPath(k) .. firstPath(k + 1) - 1). */
  isArray(k: number): boolean {
    return !this.parsed || this.parsed.arrays[k] === 1;
  }

  firstPath(k: number): number {
    return this.firstPaths[k]!;
  }

  /** Path p as listed: a string, or (parsed JSON only) any JSON value. */
  path(p: number): unknown {
    return this.parsed ? this.parsed.members[p] : this.text(p);
  }

  /** Path p, a string, as text. */
  text(p: number): string {
    if (this.parsed) return this.parsed.members[p] as string;
    return textAt(this.paths, p);
  }

  /** The members of parsed JSON (a map's names, whatever arena it reads bytes from), else undefined. */
  get members(): readonly unknown[] | undefined {
    return this.parsed?.members;
  }

  /** The paths of key k as text. */
  pathsOf(k: number): string[] {
    const out: string[] = [];
    for (let p = this.firstPaths[k]!; p < this.firstPaths[k + 1]!; p++) out.push(this.text(p));
    return out;
  }

  /** A set of this block's paths (by number) able to hold `capacity` of them: add(p) is false for a path added before. */
  pathSet(capacity: number): { add(p: number): boolean } {
    const { bytes, start, end } = this.paths;
    const table = new RangeTable(capacity, bytes, start, end);
    this.table = table;
    return { add: (p: number) => table.add(p) < 0 };
  }

  /**
   * The conflicts among the string paths `list`, in its order: each repeat, then each path that
   * is also a folder of a later-listed or earlier-listed one, prefixes shortest first.
   */
  conflicts(list: ArrayLike<number>): Array<[string, string]> {
    const { bytes, start: pathStart, end: pathEnd } = this.paths;
    const table = new RangeTable(list.length, bytes, pathStart, pathEnd);
    const first = new Uint8Array(pathStart.length);
    const conflicts: Array<[string, string]> = [];
    for (let i = 0; i < list.length; i++) {
      const p = list[i]!;
      if (table.add(p) >= 0) conflicts.push([this.text(p), this.text(p)]);
      else first[p] = 1;
    }
    for (let i = 0; i < list.length; i++) {
      const p = list[i]!;
      if (!first[p]) continue;
      const s = pathStart[p]!;
      // As p.indexOf('/') from 0: a path starting with '/' has no prefix looked at.
      for (let j = bytes.indexOf(0x2f, s); j > s && j < pathEnd[p]!; j = bytes.indexOf(0x2f, j + 1)) {
        const other = table.find(bytes, s, j);
        if (other >= 0) conflicts.push([this.text(other), this.text(p)]);
      }
    }
    return conflicts;
  }
}
