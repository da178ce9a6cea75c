/**
 * An inventory read as a stream, hashed as it is read, keeping only its outline: the same JSON
 * text without its large blocks. Every top-level member but the header fields (id, type, head,
 * digestAlgorithm) and `versions` has its value replaced by 0 (the manifest, the fixity block),
 * and each version's state by one entry listing as many paths (`{"":[0,0,...]}`). A three-version
 * inventory of a million files is ~1 GB of JSON; its outline is a few MB.
 *
 * parseInventoryHeader and parseInventoryVersions (inventory.ts) read the outline as they read the
 * whole text, with the same result or the same error, because only text of a strict shape is
 * outlined: at each level read (the top, versions, each version, each state) a key, a colon, a
 * value, a comma and nothing else; each state's entries lists of strings. Anything else answers
 * undefined, and the caller reads the file whole.
 */
import { MultiHasher } from '../digest.js';
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, isSpace, OPEN_ARRAY, OPEN_OBJECT, QUOTE, utf8 } from './json-bytes.js';
import type { ReadStorage } from '../storage/storage.js';

/** Bytes read at a time (fewer, larger reads: a million-file inventory is ~1 GB). */
const READ_BYTES = 4 * 1024 * 1024;

/** Top-level members kept as they are; all others but `versions` are replaced by 0. */
const HEADER_KEYS = new Set(['id', 'type', 'head', 'digestAlgorithm']);

type FrameKind = 'top' | 'versions' | 'version' | 'state' | 'entry';
/** Where a frame is in its grammar: before a key (or, first, the close), after a key, before a value, after one. */
type Expect = 'first' | 'key' | 'colon' | 'value' | 'next';

interface Frame {
  kind: FrameKind;
  expect: Expect;
  /** The key of the member being read (top, versions, version). */
  key?: string;
}

class Irregular extends Error {}

/** The outline scanner: fed the file's chunks in order (see the head of this file). */
class OutlineScanner {
  private readonly out: Buffer[] = [];
  private readonly frames: Frame[] = [];
  private done = false;
  /** Inside a string: what it is, and the backslashes just before the current position. */
  private string: 'key' | 'value' | 'path' | 'state-key' | undefined;
  private backslashes = 0;
  private keyPieces: Buffer[] = [];
  /** Inside a value read as a whole (copied or skipped): its nesting depth. */
  private opaque: { depth: number; skip: boolean } | undefined;
  /** Paths counted in the state being read. */
  private statePaths = 0;
  private copying = true;
  private copyFrom = 0;

  private fail(): never {
    throw new Irregular();
  }

  private flush(chunk: Buffer, to: number): void {
    if (this.copying && to > this.copyFrom) this.out.push(Buffer.from(chunk.subarray(this.copyFrom, to)));
  }

  /** Stops copying before position i, writing `instead` in place of what follows. */
  private stopCopy(chunk: Buffer, i: number, instead: string): void {
    this.flush(chunk, i);
    this.copying = false;
    this.out.push(Buffer.from(instead));
  }

  private startCopy(at: number): void {
    this.copying = true;
    this.copyFrom = at;
  }

  push(chunk: Buffer): void {
    this.copyFrom = 0;
    let i = 0;
    while (i < chunk.length) {
      if (this.string) i = this.inString(chunk, i);
      else if (this.opaque) i = this.inOpaque(chunk, i);
      else i = this.structural(chunk, i);
    }
    this.flush(chunk, chunk.length);
  }

  /** The outline, or Irregular when the text ended inside something. */
  end(): Buffer {
    if (!this.done || this.string || this.opaque) this.fail();
    return Buffer.concat(this.out);
  }

  /** Scans a string from i; returns the position after its closing quote or the chunk's end. */
  private inString(chunk: Buffer, i: number): number {
    const from = i;
    for (;;) {
      const q = chunk.indexOf(QUOTE, i);
      if (q < 0) {
        let run = 0;
        while (run < chunk.length - i && chunk[chunk.length - 1 - run] === BACKSLASH) run++;
        this.backslashes = run === chunk.length - i ? this.backslashes + run : run;
        if (this.string === 'key') this.keyPieces.push(Buffer.from(chunk.subarray(from)));
        return chunk.length;
      }
      let run = 0;
      while (run < q - i && chunk[q - 1 - run] === BACKSLASH) run++;
      if (run === q - i) run += this.backslashes;
      this.backslashes = 0;
      i = q + 1;
      if (run % 2 === 0) break;
    }
    if (this.string === 'key') {
      this.keyPieces.push(Buffer.from(chunk.subarray(from, i)));
      this.keyRead();
    }
    if (this.string === 'path') this.statePaths++;
    this.string = undefined;
    return i;
  }

  private keyRead(): void {
    let key: unknown;
    try {
      key = JSON.parse(utf8.decode(Buffer.concat(this.keyPieces)));
    } catch {
      this.fail();
    }
    this.keyPieces = [];
    if (typeof key !== 'string') this.fail();
    this.frames[this.frames.length - 1]!.key = key;
  }

  /** Scans a value read whole from i; returns the position of the byte that ends it (or the chunk's end). */
  private inOpaque(chunk: Buffer, i: number): number {
    const opaque = this.opaque!;
    for (; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (c === QUOTE) {
        this.string = 'value';
        this.backslashes = 0;
        return i + 1;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) opaque.depth++;
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY || c === COMMA) {
        if (opaque.depth > 0) {
          if (c !== COMMA) opaque.depth--;
          continue;
        }
        this.opaque = undefined;
        if (opaque.skip) this.startCopy(i);
        this.frames[this.frames.length - 1]!.expect = 'next';
        return i;
      }
    }
    return i;
  }

  /** One byte outside strings and whole values, at a level read member by member. */
  private structural(chunk: Buffer, i: number): number {
    const c = chunk[i]!;
    if (isSpace(c)) return i + 1;
    const frame = this.frames[this.frames.length - 1];
    if (!frame) {
      if (this.done || c !== OPEN_OBJECT) this.fail();
      this.frames.push({ kind: 'top', expect: 'first' });
      return i + 1;
    }
    const closer = frame.kind === 'entry' ? CLOSE_ARRAY : CLOSE_OBJECT;
    switch (frame.expect) {
      case 'first':
      case 'next':
        if (c === closer) return this.close(chunk, i);
        if (frame.expect === 'next') {
          if (c !== COMMA) this.fail();
          frame.expect = frame.kind === 'entry' ? 'value' : 'key';
          return i + 1;
        }
        if (frame.kind === 'entry') return this.value(chunk, i, frame);
        return this.key(c, i, frame);
      case 'key':
        return this.key(c, i, frame);
      case 'colon':
        if (c !== COLON) this.fail();
        frame.expect = 'value';
        return i + 1;
      case 'value':
        return this.value(chunk, i, frame);
    }
  }

  private key(c: number, i: number, frame: Frame): number {
    if (c !== QUOTE) this.fail();
    frame.expect = 'colon';
    this.string = frame.kind === 'state' ? 'state-key' : 'key';
    this.backslashes = 0;
    if (this.string === 'key') this.keyPieces = [Buffer.from([QUOTE])];
    return i + 1;
  }

  private value(chunk: Buffer, i: number, frame: Frame): number {
    const c = chunk[i]!;
    frame.expect = 'next';
    const open = (kind: FrameKind) => {
      this.frames.push({ kind, expect: 'first' });
      return i + 1;
    };
    switch (frame.kind) {
      case 'top':
        if (frame.key === 'versions' && c === OPEN_OBJECT) return open('versions');
        if (frame.key !== 'versions' && !HEADER_KEYS.has(frame.key!)) {
          if (c === COMMA || c === CLOSE_OBJECT) this.fail();
          this.stopCopy(chunk, i, '0');
          this.opaque = { depth: 0, skip: true };
          return i;
        }
        break;
      case 'versions':
        if (c === OPEN_OBJECT) return open('version');
        break;
      case 'version':
        if (frame.key === 'state' && c === OPEN_OBJECT) {
          this.flush(chunk, i);
          this.copying = false;
          this.statePaths = 0;
          return open('state');
        }
        break;
      case 'state':
        if (c !== OPEN_ARRAY) this.fail();
        return open('entry');
      case 'entry':
        if (c !== QUOTE) this.fail();
        this.string = 'path';
        this.backslashes = 0;
        return i + 1;
    }
    if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY) this.fail();
    this.opaque = { depth: 0, skip: false };
    return i;
  }

  private close(chunk: Buffer, i: number): number {
    const frame = this.frames.pop()!;
    if (frame.kind === 'top') this.done = true;
    if (frame.kind === 'state') {
      const n = this.statePaths;
      this.out.push(Buffer.from(n === 0 ? '{}' : `{"":[${'0,'.repeat(n - 1)}0]}`));
      this.startCopy(i + 1);
    }
    return i + 1;
  }
}

/** The outline of inventory text given in chunks (any split), or undefined when it is not of the outlined shape. */
export function outlineOf(chunks: Iterable<Buffer>): Buffer | undefined {
  const scanner = new OutlineScanner();
  try {
    for (const chunk of chunks) scanner.push(chunk);
    return scanner.end();
  } catch (err) {
    if (err instanceof Irregular) return undefined;
    throw err;
  }
}

export interface InventoryOutline {
  /** The outline's JSON text (see the head of this file). */
  outline: Buffer;
  /** The whole file's size and its digest in the algorithm asked for. */
  size: number;
  digest: string;
}

/**
 * Reads the inventory `file` as a stream: its outline and its digest in `algorithm` (a second read
 * computes another algorithm's, see digestOfStored). Undefined when the text is not of the
 * outlined shape or the file cannot be read: read it whole then, for the reader's own error.
 */
export async function readInventoryOutline(storage: ReadStorage, file: string, algorithm: string): Promise<InventoryOutline | undefined> {
  const scanner = new OutlineScanner();
  const hasher = MultiHasher.createSync([algorithm]);
  // One buffer read into again and again where the storage can (the scanner copies what it keeps):
  // a stream's 4 MiB pieces of a 600 MB inventory were garbage until the next collection.
  try {
    const pieces = storage.readInto?.(file, Buffer.allocUnsafe(READ_BYTES)) ?? storage.readStream(file, { highWaterMark: READ_BYTES });
    for await (const chunk of pieces as AsyncIterable<Buffer>) {
      hasher.update(chunk);
      scanner.push(chunk);
    }
    const outline = scanner.end();
    return { outline, size: hasher.size, digest: hasher.digests()[algorithm]! };
  } catch (err) {
    if (err instanceof Irregular) return undefined;
    if ((err as NodeJS.ErrnoException).code !== undefined) return undefined;
    throw err;
  }
}

/** A stored file's size and digest, streamed; undefined when it cannot be read. */
export async function digestOfStored(
  storage: ReadStorage,
  file: string,
  algorithm: string,
): Promise<{ size: number; digest: string } | undefined> {
  const hasher = MultiHasher.createSync([algorithm]);
  try {
    for await (const chunk of storage.readStream(file) as AsyncIterable<Buffer>) hasher.update(chunk);
  } catch {
    return undefined;
  }
  return { size: hasher.size, digest: hasher.digests()[algorithm]! };
}
