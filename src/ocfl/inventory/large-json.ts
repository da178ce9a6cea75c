/**
 * JSON larger than one JavaScript string. V8 strings hold at most 2^29 - 24 characters (~512 MB),
 * and the inventory of an object of a million LOB files is about 600 MB of JSON (two sha512
 * digests and three paths per file), so `JSON.parse(bytes.toString())` and `JSON.stringify`
 * both throw there. Parsing splits the text at the top-level members of the objects and arrays
 * that are too large (a byte scan that only tracks strings and nesting) and hands each slice to
 * JSON.parse, which does all the validation; serialising writes the same bytes as
 * `JSON.stringify(value, null, 2)` in pieces of at most a few MB.
 */
import { QUOTE, BACKSLASH, COMMA, COLON, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, isSpace, setOwn, utf8 } from './json-bytes.js';

/** Slices up to this size go to JSON.parse whole. */
const SLICE_MAX = 64 * 1024 * 1024;

/**
 * Parses UTF-8 JSON bytes of any size (throws TypeError for bytes that are not UTF-8,
 * SyntaxError for text that is not JSON, as JSON.parse and a fatal TextDecoder do).
 * `sliceMax` is for tests: the size above which a value is split.
 */
export function parseJsonBytes(bytes: Uint8Array, sliceMax = SLICE_MAX): unknown {
  if (bytes.length <= sliceMax) return JSON.parse(utf8.decode(bytes));
  let start = 0;
  let end = bytes.length;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    throw new SyntaxError('Unexpected token (a byte order mark) at the start of the JSON text');
  while (start < end && isSpace(bytes[start]!)) start++;
  while (end > start && isSpace(bytes[end - 1]!)) end--;
  return parseValue(bytes, start, end, sliceMax);
}

/** One JSON value occupying exactly bytes[start, end) (no surrounding space). */
function parseValue(bytes: Uint8Array, start: number, end: number, sliceMax: number): unknown {
  if (end - start <= sliceMax) return JSON.parse(utf8.decode(bytes.subarray(start, end)));
  const open = bytes[start];
  const close = bytes[end - 1];
  if (open === OPEN_OBJECT && close === CLOSE_OBJECT) return parseObject(bytes, start, end, sliceMax);
  if (open === OPEN_ARRAY && close === CLOSE_ARRAY) return parseArray(bytes, start, end, sliceMax);
  // A single string or number this large: JSON.parse reports what is wrong with it.
  return JSON.parse(utf8.decode(bytes.subarray(start, end)));
}

interface Member {
  start: number;
  /** position of the colon (objects), -1 in arrays */
  colon: number;
  end: number;
}

/**
 * The members of the object or array bytes[start, end): each one's extent (spaces trimmed) and,
 * in an object, its colon. Only strings and nesting are tracked; JSON.parse checks the rest.
 */
function members(bytes: Uint8Array, start: number, end: number): Member[] {
  const out: Member[] = [];
  let depth = 0;
  let inString = false;
  let memberStart = -1;
  let colon = -1;
  let last = -1; // last non-space byte of the current member
  for (let i = start + 1; i < end - 1; i++) {
    if (inString) {
      // Most of an inventory's bytes are inside strings: jump to the closing quote natively.
      let close = i;
      for (;;) {
        close = indexOfByte(bytes, QUOTE, close, end - 1);
        if (close < 0) throw new SyntaxError('Unterminated string in JSON');
        let backslashes = 0;
        while (bytes[close - 1 - backslashes] === BACKSLASH) backslashes++;
        if (backslashes % 2 === 0) break;
        close++;
      }
      inString = false;
      i = last = close;
      continue;
    }
    const c = bytes[i]!;
    if (isSpace(c)) continue;
    if (depth === 0 && c === COMMA) {
      if (memberStart < 0) throw new SyntaxError(`Unexpected token , in JSON at position ${i}`);
      out.push({ start: memberStart, colon, end: last + 1 });
      memberStart = -1;
      colon = -1;
      continue;
    }
    if (memberStart < 0) memberStart = i;
    last = i;
    if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (--depth < 0) throw new SyntaxError(`Unexpected token in JSON at position ${i}`);
    } else if (c === COLON && depth === 0 && colon < 0) colon = i;
  }
  if (inString || depth !== 0) throw new SyntaxError('Unexpected end of JSON input');
  if (memberStart >= 0) out.push({ start: memberStart, colon, end: last + 1 });
  else if (out.length > 0) throw new SyntaxError('Unexpected token } or ] after a comma in JSON');
  return out;
}

function indexOfByte(bytes: Uint8Array, byte: number, from: number, to: number): number {
  const at = bytes.indexOf(byte, from);
  return at >= 0 && at < to ? at : -1;
}

/** Consecutive members grouped so that each group's text stays within sliceMax. */
function* groups(list: Member[], sliceMax: number): Generator<Member[]> {
  let group: Member[] = [];
  for (const m of list) {
    if (group.length > 0 && m.end - group[0]!.start > sliceMax) {
      yield group;
      group = [];
    }
    group.push(m);
  }
  if (group.length > 0) yield group;
}

function parseObject(bytes: Uint8Array, start: number, end: number, sliceMax: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const group of groups(members(bytes, start, end), sliceMax)) {
    const first = group[0]!;
    const last = group[group.length - 1]!;
    if (group.length === 1 && first.end - first.start > sliceMax) {
      if (first.colon < 0) throw new SyntaxError(`Expected ':' after property name in JSON at position ${first.start}`);
      const key = JSON.parse(utf8.decode(bytes.subarray(first.start, first.colon)));
      if (typeof key !== 'string') throw new SyntaxError(`Expected a property name in JSON at position ${first.start}`);
      let valueStart = first.colon + 1;
      while (isSpace(bytes[valueStart]!)) valueStart++;
      setOwn(out, key, parseValue(bytes, valueStart, first.end, sliceMax));
      continue;
    }
    const part = JSON.parse(`{${utf8.decode(bytes.subarray(first.start, last.end))}}`) as Record<string, unknown>;
    for (const key of Object.keys(part)) setOwn(out, key, part[key]);
  }
  return out;
}

function parseArray(bytes: Uint8Array, start: number, end: number, sliceMax: number): unknown[] {
  const out: unknown[] = [];
  for (const group of groups(members(bytes, start, end), sliceMax)) {
    const first = group[0]!;
    const last = group[group.length - 1]!;
    if (group.length === 1 && first.end - first.start > sliceMax) {
      out.push(parseValue(bytes, first.start, first.end, sliceMax));
      continue;
    }
    for (const v of JSON.parse(`[${utf8.decode(bytes.subarray(first.start, last.end))}]`) as unknown[]) out.push(v);
  }
  return out;
}

/** Text gathered before it is encoded into one Buffer piece. */
const PIECE_CHARS = 4 * 1024 * 1024;

/**
 * Pretty-printed JSON (the layout of `JSON.stringify(value, null, 2)`) written as a list of
 * Buffers of a few MB each: no single string of the whole text is ever made.
 */
export class JsonPieces {
  readonly pieces: Buffer[] = [];
  private text: string[] = [];
  private chars = 0;

  /** With a sink, each piece goes to it as soon as it is full instead of being kept in `pieces`. */
  constructor(private readonly sink?: (piece: Buffer) => void) {}

  put(s: string): void {
    this.text.push(s);
    this.chars += s.length;
    if (this.chars >= PIECE_CHARS) this.flush();
  }

  private flush(): void {
    if (this.text.length === 0) return;
    const piece = Buffer.from(this.text.join(''), 'utf8');
    if (this.sink) this.sink(piece);
    else this.pieces.push(piece);
    this.text = [];
    this.chars = 0;
  }

  /**
   * Writes an object whose members come from `entries` in the order given (undefined values
   * left out), each value written by `value` at the member's indentation.
   */
  object<T>(entries: Iterable<readonly [string, T]>, indent: string, value: (v: T, indent: string) => void): void {
    const members = new JsonMembers(this, indent);
    for (const [key, v] of entries) {
      if (v === undefined) continue;
      members.key(key);
      value(v, members.inner);
    }
    members.close();
  }

  /** Writes any plain JSON value (objects in their own key order). */
  value(v: unknown, indent: string): void {
    // As JSON.stringify: an object with toJSON (a Date) is written as what toJSON returns.
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function')
      v = (v as { toJSON(): unknown }).toJSON();
    if (v === null || typeof v !== 'object') {
      this.put(JSON.stringify(v) ?? 'null');
      return;
    }
    if (Array.isArray(v)) {
      if (v.length === 0) return this.put('[]');
      const inner = indent + '  ';
      this.put('[\n');
      v.forEach((item, i) => {
        this.put(inner);
        this.value(item === undefined || typeof item === 'function' ? null : item, inner);
        this.put(i < v.length - 1 ? ',\n' : '\n');
      });
      this.put(`${indent}]`);
      return;
    }
    const record = v as Record<string, unknown>;
    this.object(
      Object.keys(record).map((k) => [k, record[k]] as const),
      indent,
      (x, i) => this.value(x, i),
    );
  }

  /** The pieces, the last one flushed. */
  done(): Buffer[] {
    this.flush();
    return this.pieces;
  }
}

/** The members of one JSON object being written: `{`, `,` and the indentation as JSON.stringify(…, null, 2) puts them. */
export class JsonMembers {
  private first = true;

  constructor(
    private readonly out: JsonPieces,
    private readonly indent: string,
  ) {}

  /** Starts a member; its value is written next at `inner`. */
  key(name: string): void {
    this.out.put(this.first ? '{\n' : ',\n');
    this.first = false;
    this.out.put(`${this.inner}${JSON.stringify(name)}: `);
  }

  get inner(): string {
    return this.indent + '  ';
  }

  close(): void {
    this.out.put(this.first ? '{}' : `\n${this.indent}}`);
  }
}
