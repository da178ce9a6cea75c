/**
 * Inventory bytes read window by window (a few MiB at a time) into the parts of an InventoryView:
 * the inventory of a million files is ~600 MB of JSON, and a reader that held it whole beside its
 * compact copy peaked near 1 GiB. The large blocks (manifest, states, fixity) are scanned by
 * path-block-windows.ts as they come; every other value (the header fields, a version's created,
 * message, user) is gathered and parsed by JSON.parse, as the whole-buffer read parses it.
 *
 * The structure around them is checked strictly as JSON (an object of string keys, colons, commas,
 * no key twice at any level that holds a large block), so what this accepts is JSON that JSON.parse
 * reads alike (inventory/plain.ts says what else "plain" requires); anything else stops the read
 * ("not plain"), and the caller parses the file whole. Bytes held whole are read as one window. A window may end anywhere: a key or path
 * cut off is carried into the next window, a value being gathered keeps its bytes so far.
 */
import { isUtf8 } from 'node:buffer';
import { DIGEST_HEX_LENGTH } from '../digest.js';
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE, isSpace } from './json-bytes.js';
import { parseJsonBytes } from './large-json.js';
import { NOT_PLAIN, PathBlockWindows, type BlockParts, type EntryVisitor } from './path-block-windows.js';

/** A version as read: its fields, parsed, in file order (the state standing as `{}`), and its state block. */
export interface VersionParts {
  name: string;
  fields: Array<[string, unknown]>;
  state: BlockParts;
}

/** What the windows held, for InventoryView to check and keep. */
export interface InventoryParts {
  /** The top-level members, parsed, in file order; manifest, versions and fixity stand as `{}` (their parts are below). */
  members: Array<[string, unknown]>;
  manifest?: BlockParts;
  /** Present when the inventory has a fixity member: each block's name and, for an algorithm this tool computes, its parts. */
  fixity?: Array<[string, BlockParts | undefined]>;
  versions?: VersionParts[];
}

/**
 * UTF-8 checked window by window: each window is checked up to the start of a character it cuts
 * off, whose bytes are carried into the next. Where the whole is UTF-8 every cut falls between two
 * characters, and pieces that are each UTF-8 join into UTF-8, so this answers what isUtf8 of the
 * whole answers.
 */
class Utf8Windows {
  private carry: Buffer | undefined;

  write(window: Buffer): boolean {
    let chunk = window;
    if (this.carry) {
      // The character cut off is completed by the window's first continuation bytes: checked on its own.
      let head = 0;
      while (head < chunk.length && head < 4 && (chunk[head]! & 0xc0) === 0x80) head++;
      const joined = Buffer.concat([this.carry, chunk.subarray(0, head)]);
      if (head === chunk.length && joined.length < 4) {
        this.carry = joined;
        return true;
      }
      this.carry = undefined;
      if (!isUtf8(joined)) return false;
      chunk = chunk.subarray(head);
    }
    const bytes = chunk;
    let lead = bytes.length - 1;
    while (lead >= 0 && lead > bytes.length - 4 && (bytes[lead]! & 0xc0) === 0x80) lead--;
    const c = lead >= 0 ? bytes[lead]! : 0;
    const size = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    const cut = lead >= 0 && bytes.length - lead < size ? lead : bytes.length;
    this.carry = cut < bytes.length ? Buffer.from(bytes.subarray(cut)) : undefined;
    return isUtf8(bytes.subarray(0, cut));
  }

  /** Whether the bytes ended at the end of a character. */
  end(): boolean {
    return this.carry === undefined;
  }
}

/**
 * A value other than a large block, gathered across windows until it ends: a string at its
 * closing quote, an object or array at the bracket that closes it (strings and nesting tracked, as
 * large-json.ts splits), a number or literal before white space, a comma or a closing bracket.
 * JSON.parse then decides what it is.
 */
class GatheredValue {
  private readonly pieces: Buffer[] = [];
  private depth = 0;
  private inString = false;
  private escaped = false;
  readonly scalar: boolean;
  done = false;

  constructor(first: number) {
    this.scalar = first !== QUOTE && first !== OPEN_OBJECT && first !== OPEN_ARRAY;
  }

  /** Takes bytes[at, end) up to the value's end: answers the index after it, or `end` when it goes on. */
  take(bytes: Buffer, at: number, end: number): number {
    let i = at;
    if (this.scalar) {
      while (i < end && !isSpace(bytes[i]!) && bytes[i] !== COMMA && bytes[i] !== CLOSE_OBJECT && bytes[i] !== CLOSE_ARRAY) i++;
      this.done = i < end;
    } else {
      for (; i < end && !this.done; i++) {
        const c = bytes[i]!;
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (c === BACKSLASH) this.escaped = true;
          else if (c === QUOTE) {
            this.inString = false;
            this.done = this.depth === 0;
          }
        } else if (c === QUOTE) this.inString = true;
        else if (c === OPEN_OBJECT || c === OPEN_ARRAY) this.depth++;
        else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) this.done = --this.depth === 0;
      }
    }
    this.pieces.push(Buffer.from(bytes.subarray(at, i)));
    return i;
  }

  /** The value (throws SyntaxError as JSON.parse does). */
  value(): unknown {
    return parseJsonBytes(Buffer.concat(this.pieces));
  }
}

/** Bytes of a window read together with a token the window before cut off. */
const STITCH_BYTES = 4096;

type FrameKind = 'top' | 'versions' | 'version' | 'fixity';

// What an object's scan expects next (after white space).
const MEMBER_OR_CLOSE = 0;
const MEMBER = 1;
const MEMBER_COLON = 2;
const VALUE = 3;
const NEXT = 4;

/** An object of the inventory's outline being read: the top level, versions, one version, fixity. */
interface Frame {
  kind: FrameKind;
  expect: number;
  key: string;
  seen: Set<string>;
  /** A version's fields (the version frame). */
  fields: Array<[string, unknown]>;
  /** The version's name (the version frame). */
  name: string;
  state?: BlockParts;
}

/** Where a large block being scanned goes once read. */
type BlockRole = { kind: 'manifest' } | { kind: 'state'; version: Frame } | { kind: 'fixity'; name: string; known: boolean; kept: boolean };

export class InventoryWindows {
  private readonly utf8 = new Utf8Windows();
  private tail: Buffer | undefined;
  private failed = false;
  private finished = false;
  private readonly stack: Frame[] = [];
  private block: { scan: PathBlockWindows; role: BlockRole } | undefined;
  private gathering: GatheredValue | undefined;
  private readonly parts: InventoryParts = { members: [] };

  /** The inventory's digestAlgorithm once read (when a string): what its bytes are hashed with. */
  digestAlgorithm: string | undefined;
  private head: string | undefined;

  /**
   * `fixity: false`: the fixity blocks are checked as ever (hex keys of their algorithm's length)
   * but not kept, as those of an algorithm this tool does not compute: a reader that never asks
   * for fixity (the reading room) holds about a third less of a LOB object's inventory. A digest
   * listed twice in such a block goes unnoticed (the validator reports it).
   * `version`: only that version's state is kept ('head': the head's, when `head` comes before
   * `versions`, as in ours), the others checked and counted (their keys' digits not read: no
   * reader asks for the digests of a state it does not keep). `manifest`: false, the manifest
   * checked so and not kept; a function, each entry's digest and first path handed to it as read.
   */
  constructor(private readonly options: { fixity?: boolean; version?: string; manifest?: false | EntryVisitor } = {}) {}

  /** Takes the next window; false once the bytes are known not to be of the plain shape (read no further). */
  write(chunk: Buffer): boolean {
    if (this.failed) return false;
    if (!this.utf8.write(chunk)) return this.fail();
    try {
      let from = 0;
      if (this.tail) {
        // The token cut off is read from itself and the window's first bytes, not from a copy of the whole window.
        const head = Math.min(chunk.length, Math.max(STITCH_BYTES, 2 * this.tail.length));
        const stitched = Buffer.concat([this.tail, chunk.subarray(0, head)]);
        const at = this.read(stitched, 0);
        if (at === NOT_PLAIN) return this.fail();
        if (at < this.tail.length) {
          // Still cut off: all of the window goes with it (a token longer than STITCH_BYTES).
          this.tail =
            head === chunk.length ? Buffer.from(stitched.subarray(at)) : Buffer.concat([stitched.subarray(at), chunk.subarray(head)]);
          return true;
        }
        from = at - this.tail.length;
        this.tail = undefined;
      }
      const at = this.read(chunk, from);
      if (at === NOT_PLAIN) return this.fail();
      this.tail = at < chunk.length ? Buffer.from(chunk.subarray(at)) : undefined;
      return true;
    } catch (err) {
      if (err instanceof SyntaxError) return this.fail();
      throw err;
    }
  }

  /** After the last window: what was read, or undefined when the bytes are not of the plain shape. */
  end(): InventoryParts | undefined {
    if (this.failed || !this.utf8.end() || !this.finished || this.tail) return undefined;
    return this.parts;
  }

  private fail(): false {
    this.failed = true;
    this.tail = undefined;
    return false;
  }

  /** Reads the window: answers where an incomplete token starts (or its end), or NOT_PLAIN. */
  private read(bytes: Buffer, from: number): number {
    let i = from;
    for (;;) {
      if (this.block) {
        i = this.block.scan.scan(bytes, i, bytes.length);
        if (i === NOT_PLAIN || !this.block.scan.done) return i;
        if (!this.blockRead(this.block.scan.parts(), this.block.role)) return NOT_PLAIN;
        this.block = undefined;
        continue;
      }
      if (this.gathering) {
        i = this.gathering.take(bytes, i, bytes.length);
        if (!this.gathering.done) return i;
        this.valueRead(this.gathering.value());
        this.gathering = undefined;
        continue;
      }
      while (i < bytes.length && isSpace(bytes[i]!)) i++;
      if (i === bytes.length) return i;
      const frame = this.stack[this.stack.length - 1];
      if (!frame) {
        // Before the top-level object, or after it (where only white space may follow).
        if (this.finished || bytes[i] !== OPEN_OBJECT) return NOT_PLAIN;
        this.open('top');
        i++;
        continue;
      }
      const next = this.step(frame, bytes, i);
      // A value to gather starts where it is; any other token not taken is cut off by the window's end.
      if (next === NOT_PLAIN || (next === i && !this.gathering)) return next;
      i = next;
    }
  }

  /** One token of an outline object at bytes[at] (not white space): the index after it, `at` when cut off, or NOT_PLAIN. */
  private step(frame: Frame, bytes: Buffer, at: number): number {
    const c = bytes[at]!;
    switch (frame.expect) {
      case MEMBER_OR_CLOSE:
        if (c === CLOSE_OBJECT) return this.close(frame, at);
        frame.expect = MEMBER;
        return this.step(frame, bytes, at);
      case MEMBER: {
        if (c !== QUOTE) return NOT_PLAIN;
        let close = at + 1;
        while (close < bytes.length && bytes[close] !== QUOTE) close += bytes[close] === BACKSLASH ? 2 : 1;
        if (close >= bytes.length) return at;
        const key = JSON.parse(bytes.toString('utf8', at, close + 1)) as string;
        if (frame.seen.has(key)) return NOT_PLAIN;
        frame.seen.add(key);
        frame.key = key;
        frame.expect = MEMBER_COLON;
        return close + 1;
      }
      case MEMBER_COLON:
        if (c !== COLON) return NOT_PLAIN;
        frame.expect = VALUE;
        return at + 1;
      case VALUE:
        frame.expect = NEXT;
        return this.value(frame, c, at);
      default: // NEXT
        if (c === CLOSE_OBJECT) return this.close(frame, at);
        if (c !== COMMA) return NOT_PLAIN;
        frame.expect = MEMBER;
        return at + 1;
    }
  }

  /** The value of frame.key starting with byte c at bytes[at]: a large block, an outline object, or one to gather. */
  private value(frame: Frame, c: number, at: number): number {
    const key = frame.key;
    if (frame.kind === 'top' && (key === 'versions' || key === 'fixity')) {
      if (c !== OPEN_OBJECT) return NOT_PLAIN;
      this.open(key);
      this.parts.members.push([key, {}]);
      if (key === 'versions') this.parts.versions = [];
      else this.parts.fixity = [];
      return at + 1;
    }
    if (frame.kind === 'versions') {
      if (key === '__proto__' || c !== OPEN_OBJECT) return NOT_PLAIN;
      this.open('version').name = key;
      return at + 1;
    }
    if ((frame.kind === 'top' && key === 'manifest') || (frame.kind === 'version' && key === 'state') || frame.kind === 'fixity') {
      if (c !== OPEN_OBJECT || key === '__proto__') return NOT_PLAIN;
      if (frame.kind === 'top') this.parts.members.push([key, {}]);
      else if (frame.kind === 'version') frame.fields.push([key, {}]);
      const { fixity, version, manifest } = this.options;
      const known = frame.kind !== 'fixity' || Object.hasOwn(DIGEST_HEX_LENGTH, key);
      const kept =
        frame.kind === 'fixity'
          ? known && fixity !== false
          : frame.kind === 'top'
            ? manifest === undefined
            : version === undefined || frame.name === (version === 'head' ? this.head : version);
      const role: BlockRole =
        frame.kind === 'fixity'
          ? { kind: 'fixity', name: key, known, kept }
          : frame.kind === 'top'
            ? { kind: 'manifest' }
            : { kind: 'state', version: frame };
      const visit = frame.kind === 'top' && manifest ? manifest : undefined;
      const scan = new PathBlockWindows(known, kept, visit, this.expectedSize(frame.kind), frame.kind === 'top', frame.kind === 'fixity');
      this.block = { scan, role };
      return at + 1;
    }
    this.gathering = new GatheredValue(c);
    return at;
  }

  /**
   * What a state or fixity block read after the manifest is expected to hold: the manifest's keys
   * and paths, and its paths' bytes (a state's, those of its logical paths). Sized so, a million-file
   * state is not grown (and copied) some 25 times, nor a third too large at its end.
   */
  private expectedSize(kind: FrameKind): { keys: number; paths: number; bytes: number } | undefined {
    const manifest = this.parts.manifest;
    if (!manifest || kind === 'top') return undefined;
    const { keyCount: keys, pathCount: paths, tailBytes, paths: kept } = manifest;
    return { keys, paths, bytes: kind === 'version' ? tailBytes : kept.bytes.length };
  }

  private open(kind: FrameKind): Frame {
    const frame: Frame = { kind, expect: MEMBER_OR_CLOSE, key: '', seen: new Set(), fields: [], name: '' };
    this.stack.push(frame);
    return frame;
  }

  private close(frame: Frame, at: number): number {
    this.stack.pop();
    if (frame.kind === 'top') this.finished = true;
    if (frame.kind === 'version') {
      if (!frame.state) return NOT_PLAIN;
      this.parts.versions!.push({ name: frame.name, fields: frame.fields, state: frame.state });
    }
    return at + 1;
  }

  private blockRead(block: BlockParts, role: BlockRole): boolean {
    if (role.kind === 'manifest') this.parts.manifest = block;
    else if (role.kind === 'state') role.version.state = block;
    else {
      // A block checked but not kept: its keys' length checked here, as InventoryView checks a kept one's.
      if (role.known && !role.kept && block.keyLength >= 0 && block.keyLength !== DIGEST_HEX_LENGTH[role.name]) return false;
      this.parts.fixity!.push([role.name, role.kept ? block : undefined]);
    }
    return true;
  }

  private valueRead(value: unknown): void {
    const frame = this.stack[this.stack.length - 1]!;
    if (frame.kind === 'version') frame.fields.push([frame.key, value]);
    else {
      this.parts.members.push([frame.key, value]);
      if (frame.key === 'digestAlgorithm' && typeof value === 'string') this.digestAlgorithm = value;
      if (frame.key === 'head' && typeof value === 'string') this.head = value;
    }
  }
}
