/**
 * The header fields of inventory bytes (id, head, type, digestAlgorithm) read window by window, for
 * a listing of a root of million-file objects (ls): the ~600 MB inventory is passed over, never
 * held. The top level is read strictly (string keys, colons, commas); the members named are
 * gathered, every other value only followed to its end, strings and nesting tracked as
 * parseTopLevelMembers (large-json.ts) splits the whole bytes, a number or literal parsed.
 *
 * What it gives (`document`) is a small JSON object of the named members' bytes in their order:
 * parseInventoryHeader reads from it what it reads from the whole bytes. Bytes this reading does
 * not accept (not UTF-8, not this strict shape) answer undefined: read them whole.
 */
import { CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE, BACKSLASH, isSpace } from './json-bytes.js';
import { GatheredValue, Utf8Windows } from './windows.js';

const NAMED = new Set(['id', 'head', 'type', 'digestAlgorithm']);

// What the top level expects next (after white space).
const OPEN = 0;
const MEMBER_OR_CLOSE = 1;
const MEMBER = 2;
const MEMBER_COLON = 3;
const VALUE = 4;
const NEXT = 5;
const CLOSED = 6;

export class HeaderWindows {
  private readonly utf8 = new Utf8Windows();
  private tail: Buffer | undefined;
  private failed = false;
  private expect = OPEN;
  private key = '';
  private keyBytes: Buffer | undefined;
  private gathering: GatheredValue | undefined;
  /** The named members' key and value bytes, in file order. */
  private readonly named: Array<[Buffer, Buffer]> = [];

  /** The inventory's digestAlgorithm once read (when a string): what its bytes are hashed with. */
  digestAlgorithm: string | undefined;

  /** Takes the next window; false once these bytes are known not to be read this way (read no further). */
  write(chunk: Buffer): boolean {
    if (this.failed) return false;
    if (!this.utf8.write(chunk)) return this.fail();
    const bytes = this.tail ? Buffer.concat([this.tail, chunk]) : chunk;
    let at: number;
    try {
      at = this.read(bytes);
    } catch (err) {
      if (err instanceof SyntaxError) return this.fail();
      throw err;
    }
    if (at < 0) return this.fail();
    this.tail = at < bytes.length ? Buffer.from(bytes.subarray(at)) : undefined;
    return true;
  }

  /** After the last window: the named members as one small JSON object, or undefined (read the bytes whole). */
  document(): Buffer | undefined {
    if (this.failed || !this.utf8.end() || this.expect !== CLOSED || this.tail) return undefined;
    const members = this.named.map(([key, value]) => Buffer.concat([key, Buffer.from(':'), value]));
    return Buffer.concat([Buffer.from('{'), Buffer.concat(members.flatMap((m, i) => (i ? [Buffer.from(','), m] : [m]))), Buffer.from('}')]);
  }

  private fail(): false {
    this.failed = true;
    this.tail = undefined;
    return false;
  }

  /** Reads the window: answers where a cut-off key starts (or the end), or -1. */
  private read(bytes: Buffer): number {
    let i = 0;
    for (;;) {
      if (this.gathering) {
        i = this.gathering.take(bytes, i, bytes.length);
        if (!this.gathering.done) return i;
        this.valueRead(this.gathering);
        this.gathering = undefined;
        continue;
      }
      while (i < bytes.length && isSpace(bytes[i]!)) i++;
      if (i === bytes.length) return i;
      const c = bytes[i]!;
      if (this.expect === OPEN || this.expect === MEMBER_COLON) {
        if (c !== (this.expect === OPEN ? OPEN_OBJECT : COLON)) return -1;
        this.expect = this.expect === OPEN ? MEMBER_OR_CLOSE : VALUE;
        i++;
      } else if (this.expect === VALUE) {
        const scalar = c !== QUOTE && c !== OPEN_OBJECT && c !== OPEN_ARRAY;
        // A number or literal passed over is parsed too: a bracket or quote in it would split differently.
        this.gathering = new GatheredValue(c, NAMED.has(this.key) || scalar);
        this.expect = NEXT;
      } else if ((this.expect === MEMBER_OR_CLOSE || this.expect === NEXT) && c === CLOSE_OBJECT) {
        this.expect = CLOSED;
        i++;
      } else if (this.expect === NEXT && c === COMMA) {
        this.expect = MEMBER;
        i++;
      } else if ((this.expect === MEMBER_OR_CLOSE || this.expect === MEMBER) && c === QUOTE) {
        let close = i + 1;
        while (close < bytes.length && bytes[close] !== QUOTE) close += bytes[close] === BACKSLASH ? 2 : 1;
        if (close >= bytes.length) return i;
        this.keyBytes = Buffer.from(bytes.subarray(i, close + 1));
        this.key = JSON.parse(this.keyBytes.toString('utf8')) as string;
        this.expect = MEMBER_COLON;
        i = close + 1;
      } else return -1;
    }
  }

  private valueRead(value: GatheredValue): void {
    if (NAMED.has(this.key)) {
      const bytes = value.bytes();
      this.named.push([this.keyBytes!, bytes]);
      if (this.key === 'digestAlgorithm') {
        const parsed = value.value();
        this.digestAlgorithm = typeof parsed === 'string' ? parsed : undefined;
      }
    } else if (value.scalar) value.value();
  }
}
