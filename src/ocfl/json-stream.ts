/**
 * JSON parsed as its bytes arrive, never held whole: the inventory of a million files is ~600 MB of
 * JSON, and holding those bytes while their parse is built costs as much again as the parse.
 *
 * The objects at the paths `split` names (e.g. the manifest, each version's state) are built member
 * by member: their members are gathered into groups of a few MB, each group handed to JSON.parse
 * (which does all the validation) and its members copied in. Every other value is gathered whole
 * and handed to JSON.parse when it ends. Between groups a byte scan tracks only strings, nesting,
 * keys, colons and commas. The root must be an object (anything else is parsed whole at the end).
 */
import { QUOTE, BACKSLASH, COMMA, COLON, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, isSpace, setOwn, utf8 } from './json-bytes.js';

/** A group of members is parsed once its text passes this size. */
const GROUP_BYTES = 4 * 1024 * 1024;

type Expect = 'key' | 'colon' | 'value' | 'in-value' | 'after-child';

/** An object being built member by member. */
interface Frame {
  target: Record<string, unknown>;
  path: string[];
  /** Nesting depth of this object's members. */
  depth: number;
  expect: Expect;
  /** Whether a member has been seen (a `}` right after `{` closes an empty object). */
  members: number;
  afterComma: boolean;
  /** Stream offsets: the first member of the group not parsed yet (-1: none), the current key. */
  groupStart: number;
  groupEnd: number;
  keyStart: number;
  keyEnd: number;
}

export class SplittingJsonParser {
  private readonly chunks: Buffer[] = [];
  /** Stream offset of chunks[0][0]. */
  private base = 0;
  /** Stream offset of the next byte to scan. */
  private pos = 0;
  private inString = false;
  /** Backslashes ending the bytes scanned so far inside a string (an escape may span chunks). */
  private backslashRun = 0;
  private depth = 0;
  private readonly frames: Frame[] = [];
  private root: Record<string, unknown> | undefined;
  /** Root not an object: the whole text is kept and parsed at the end. */
  private whole = false;
  private done = false;
  private started = false;
  /** Stream offset after the last chunk written. */
  private received = 0;

  constructor(
    private readonly split: (path: readonly string[]) => boolean,
    /** For tests: the group size past which members are parsed. */
    private readonly groupBytes = GROUP_BYTES,
  ) {}

  write(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (this.received === 0 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
      // A byte order mark, as TextDecoder drops it for JSON.parse of a whole file.
      chunk = chunk.subarray(3);
      this.base = this.pos = this.received = 3;
    }
    const chunkStart = this.received;
    this.received += chunk.length;
    this.chunks.push(chunk);
    if (!this.whole) this.scan(chunk, chunkStart);
    this.pos = this.received;
    this.discard();
  }

  end(): unknown {
    if (this.whole || !this.started) return JSON.parse(this.text(this.base, this.received));
    if (!this.done) throw new SyntaxError('Unexpected end of JSON input');
    return this.root;
  }

  /** The bytes [from, to) of the stream, decoded (they must still be held). */
  private text(from: number, to: number): string {
    const parts: Buffer[] = [];
    let offset = this.base;
    for (const c of this.chunks) {
      const s = Math.max(from - offset, 0);
      const e = Math.min(to - offset, c.length);
      if (e > s) parts.push(c.subarray(s, e));
      offset += c.length;
    }
    return utf8.decode(parts.length === 1 ? parts[0] : Buffer.concat(parts));
  }

  /** Drops the chunks no group or key still needs. */
  private discard(): void {
    const f = this.frames[this.frames.length - 1];
    let keep = this.pos;
    if (this.whole || !this.started) keep = this.base;
    else if (f) {
      if (f.groupStart >= 0) keep = f.groupStart;
      else if (f.keyStart >= 0) keep = f.keyStart;
    }
    while (this.chunks.length > 1 && this.base + this.chunks[0]!.length <= keep) this.base += this.chunks.shift()!.length;
  }

  private scan(chunk: Buffer, chunkStart: number): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.inString) {
        // Most of the bytes are inside strings: jump to the closing quote natively.
        const q = chunk.indexOf(QUOTE, i);
        if (q < 0) {
          this.backslashRun = trailingBackslashes(chunk, i, chunk.length, this.backslashRun);
          i = chunk.length;
          break;
        }
        const run = trailingBackslashes(chunk, i, q, this.backslashRun);
        this.backslashRun = 0;
        i = q + 1;
        if (run % 2 === 1) continue; // an escaped quote
        this.inString = false;
        this.stringEnded(chunkStart + q);
        continue;
      }
      const c = chunk[i]!;
      const at = chunkStart + i;
      i++;
      if (this.done) {
        if (!isSpace(c)) throw new SyntaxError(`Unexpected non-whitespace character after JSON at position ${at}`);
        continue;
      }
      if (!this.started) {
        if (isSpace(c)) continue;
        this.started = true;
        if (c !== OPEN_OBJECT) {
          this.whole = true;
          return;
        }
        this.root = {};
        this.depth = 1;
        this.frames.push(newFrame(this.root, [], 1));
        continue;
      }
      this.byte(c, at);
    }
  }

  private stringEnded(at: number): void {
    const f = this.frames[this.frames.length - 1];
    if (f && this.depth === f.depth && f.expect === 'key' && f.keyEnd < 0 && f.keyStart >= 0) {
      f.keyEnd = at + 1;
      f.expect = 'colon';
    }
  }

  private byte(c: number, at: number): void {
    const f = this.frames[this.frames.length - 1]!;
    if (this.depth > f.depth) {
      // Inside a member's value, gathered whole: only strings and nesting matter.
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) this.depth++;
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) this.depth--;
      return;
    }
    if (isSpace(c)) return;
    switch (f.expect) {
      case 'key':
        if (c === QUOTE && f.keyStart < 0) {
          f.keyStart = at;
          f.keyEnd = -1;
          this.inString = true;
          return;
        }
        if (c === CLOSE_OBJECT && f.members === 0 && !f.afterComma) return this.closeFrame();
        throw new SyntaxError(`Expected a property name in JSON at position ${at}`);
      case 'colon':
        if (c !== COLON) throw new SyntaxError(`Expected ':' after property name in JSON at position ${at}`);
        f.expect = 'value';
        return;
      case 'value': {
        f.members++;
        // The key is parsed only where it decides something: a million-entry manifest has no object values.
        const key = c === OPEN_OBJECT ? (JSON.parse(this.text(f.keyStart, f.keyEnd)) as string) : '';
        if (c === OPEN_OBJECT && this.split([...f.path, key])) {
          this.parseGroup(f);
          const child: Record<string, unknown> = {};
          setOwn(f.target, key, child);
          f.expect = 'after-child';
          f.keyStart = f.keyEnd = -1;
          this.depth++;
          this.frames.push(newFrame(child, [...f.path, key], this.depth));
          return;
        }
        if (f.groupStart < 0) f.groupStart = f.keyStart;
        f.expect = 'in-value';
        if (c === QUOTE) this.inString = true;
        else if (c === OPEN_OBJECT || c === OPEN_ARRAY) this.depth++;
        return;
      }
      case 'in-value':
        if (c === COMMA) {
          f.groupEnd = at;
          this.nextMember(f);
          if (f.groupEnd - f.groupStart > this.groupBytes) this.parseGroup(f);
          return;
        }
        if (c === CLOSE_OBJECT) {
          f.groupEnd = at;
          this.parseGroup(f);
          return this.closeFrame();
        }
        if (c === QUOTE) this.inString = true; // not JSON: the group's parse says so
        else if (c === OPEN_OBJECT || c === OPEN_ARRAY) this.depth++;
        else if (c === CLOSE_ARRAY) throw new SyntaxError(`Unexpected token ] in JSON at position ${at}`);
        return;
      case 'after-child':
        if (c === COMMA) return this.nextMember(f);
        if (c === CLOSE_OBJECT) return this.closeFrame();
        throw new SyntaxError(`Expected ',' or '}' after property value in JSON at position ${at}`);
    }
  }

  private nextMember(f: Frame): void {
    f.expect = 'key';
    f.afterComma = true;
    f.keyStart = f.keyEnd = -1;
  }

  private parseGroup(f: Frame): void {
    if (f.groupStart < 0) return;
    const part = JSON.parse(`{${this.text(f.groupStart, f.groupEnd)}}`) as Record<string, unknown>;
    for (const key of Object.keys(part)) setOwn(f.target, key, part[key]);
    f.groupStart = f.groupEnd = -1;
  }

  private closeFrame(): void {
    this.frames.pop();
    this.depth--;
    if (this.frames.length === 0) this.done = true;
  }
}

function newFrame(target: Record<string, unknown>, path: string[], depth: number): Frame {
  return { target, path, depth, expect: 'key', members: 0, afterComma: false, groupStart: -1, groupEnd: -1, keyStart: -1, keyEnd: -1 };
}

/** Backslashes immediately before `end` in chunk[from, end), plus `carry` when they reach `from`. */
function trailingBackslashes(chunk: Buffer, from: number, end: number, carry: number): number {
  let n = 0;
  while (end - 1 - n >= from && chunk[end - 1 - n] === BACKSLASH) n++;
  return end - n === from ? n + carry : n;
}

/** Parses JSON from a stream of byte chunks (see SplittingJsonParser). */
export async function parseJsonStream(chunks: AsyncIterable<Buffer>, split: (path: readonly string[]) => boolean): Promise<unknown> {
  const parser = new SplittingJsonParser(split);
  for await (const chunk of chunks) parser.write(chunk);
  return parser.end();
}
