/**
 * The fast table XML path of table-rows-fast.ts on bytes: it finds each cell's text as a byte range
 * of the (inflated) table XML and builds no JavaScript string per cell, so a target that writes
 * cells out as bytes (PostgreSQL COPY text) can pass most of them through as they are.
 *
 * It accepts a subset of what FastTableRows accepts (same prolog, `<row>`, `<cN>text</cN>` and
 * `<cN/>` only, no character XML forbids, no CR, no U+FFFE/U+FFFF, no `]]>`, valid UTF-8) and gives up
 * (feed() returns undefined) on anything else; the caller then reads the table the usual way. It
 * does not decode entities or SIARD escapes: each cell's flags say which of them its text holds.
 * Unlike FastTableRows it keeps characters above U+FFFF (four UTF-8 bytes, no surrogates here).
 */
import { isUtf8 } from 'node:buffer';
import { ATTRIBUTE_NAME, MAX_PROLOG, PROLOG, UNUSUAL } from './table-rows-fast.js';

/** Cell flag: the text holds `&` (an entity or character reference). */
export const CELL_AMP = 1;
/** Cell flag: the text holds `\` (a SIARD escape, or a bare back-slash). */
export const CELL_BACKSLASH = 2;
/** Cell flag: the text holds a tab or a line feed. */
const CELL_TAB_LF = 4;

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const ROW_OPEN = Buffer.from('<row>');
const ROW_CLOSE = Buffer.from('</row>');
const TABLE_CLOSE = Buffer.from('</table>');

/** What a byte of cell text asks of scanText: nothing, a flag, the end `<`, a refusal, or a look around (`>`, 0xef). */
const ORDINARY = 0;
const STOP = 8;
const REFUSED = 9;
const TEXT_BYTE = (() => {
  const table = new Uint8Array(256);
  for (let b = 0; b < 0x20; b++) table[b] = REFUSED;
  table[0x09] = CELL_TAB_LF;
  table[0x0a] = CELL_TAB_LF;
  table[0x26] = CELL_AMP;
  table[0x5c] = CELL_BACKSLASH;
  table[LT] = STOP;
  table[GT] = GT;
  table[0xef] = 0xef;
  return table;
})();

function isWhitespace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x09;
}

function startsWithAt(data: Buffer, pos: number, what: Buffer): boolean {
  if (pos + what.length > data.length) return false;
  for (let i = 0; i < what.length; i++) if (data[pos + i] !== what[i]) return false;
  return true;
}

/**
 * The cell text from `start` to the next `<`: that position times 8 plus the text's flags (one
 * number, no object per cell); -1 when the fast path leaves the text to the usual reader (a
 * character XML forbids or CR, U+FFFE / U+FFFF, `]]>`), -2 when no `<` follows yet.
 */
function scanText(data: Buffer, start: number): number {
  let flags = 0;
  for (let i = start; i < data.length; i++) {
    const b = data[i]!;
    const kind = TEXT_BYTE[b]!;
    if (kind === ORDINARY) continue;
    if (kind === STOP) return i * 8 + flags;
    if (kind <= CELL_TAB_LF) flags |= kind;
    else if (kind === REFUSED) return -1;
    else if (kind === GT) {
      if (i - start >= 2 && data[i - 1] === 0x5d && data[i - 2] === 0x5d) return -1;
    } else if (data[i + 1] === 0xbf && (data[i + 2] === 0xbe || data[i + 2] === 0xbf)) return -1; // 0xef
  }
  return -2;
}

/** Rows of one feed(): their cells as byte ranges of `data` (valid until the next feed). */
export interface CellBatch {
  data: Buffer;
  rows: number;
  /** per row, per column: start and end of the cell text in `data`; start -1 for an absent cell (NULL) */
  ranges: Int32Array;
  /** per row, per column: CELL_* flags of the text */
  flags: Uint8Array;
}

export class TableCellScanner {
  private pending: Buffer | undefined;
  private joined: Buffer = Buffer.alloc(0);
  private state: 'prolog' | 'rows' | 'after' = 'prolog';
  private first = true;
  private ranges = new Int32Array(0);
  private flags = new Uint8Array(0);
  private rows = 0;

  constructor(
    private readonly columns: number,
    private readonly maxTextRun: number,
  ) {}

  /** The rows `chunk` completes, or undefined: the fast path gave up (read the table the usual way). */
  feed(chunk: Buffer): CellBatch | undefined {
    let data = this.join(chunk);
    if (this.first && data.length > 0) {
      if (data.length < 3 && data[0] === 0xef) {
        this.pending = data; // a BOM may be coming
        return this.batch(data);
      }
      if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) data = data.subarray(3);
      this.first = false;
    }
    this.rows = 0;
    let pos = 0;
    if (this.state === 'prolog') {
      const end = this.prolog(data);
      if (end === undefined) return undefined;
      if (end < 0) {
        this.pending = data;
        return this.batch(data);
      }
      pos = end;
    }
    const end = this.rowsFrom(data, pos);
    if (end < 0) return undefined;
    // the bytes consumed end after `>` or whitespace: no UTF-8 sequence is cut
    if (!isUtf8(data.subarray(0, end))) return undefined;
    this.pending = data.subarray(end);
    if (this.pending.length > this.maxTextRun) return undefined;
    return this.batch(data);
  }

  /**
   * The bytes not yet consumed followed by `chunk`, in a buffer kept from feed to feed (a fresh one
   * per chunk costs more than the scan: large allocations are page faults); valid until the next feed.
   */
  private join(chunk: Buffer): Buffer {
    const pending = this.pending;
    if (!pending || pending.length === 0) return chunk;
    const size = pending.length + chunk.length;
    if (this.joined.length < size) {
      const bigger = Buffer.allocUnsafe(Math.max(size, 2 * this.joined.length));
      pending.copy(bigger, 0);
      this.joined = bigger;
    } else pending.copy(this.joined, 0); // may overlap: Buffer#copy moves
    chunk.copy(this.joined, pending.length);
    return this.joined.subarray(0, size);
  }

  /** Whether the input ended as a table XML must: `</table>` and nothing but whitespace after it. */
  finish(): boolean {
    if (this.state !== 'after') return false;
    const rest = this.pending ?? Buffer.alloc(0);
    for (let i = 0; i < rest.length; i++) if (!isWhitespace(rest[i]!)) return false;
    return true;
  }

  private batch(data: Buffer): CellBatch {
    return { data, rows: this.rows, ranges: this.ranges, flags: this.flags };
  }

  /** The end of the prolog in data; -1 to wait for more; undefined to give up. */
  private prolog(data: Buffer): number | undefined {
    const text = data.toString('utf8', 0, Math.min(data.length, MAX_PROLOG + 1));
    const m = PROLOG.exec(text);
    if (!m) {
      const lt = text.indexOf('<table');
      return text.length > MAX_PROLOG || (lt >= 0 && text.indexOf('>', lt) >= 0) ? undefined : -1;
    }
    const names = [...m[1]!.matchAll(ATTRIBUTE_NAME)].map((a) => a[1]!);
    if (new Set(names).size !== names.length || UNUSUAL.test(m[0]) || m[0].includes('\ufffd')) return undefined;
    this.state = 'rows';
    return Buffer.byteLength(m[0]);
  }

  /** Reads complete rows from pos: the end of what was consumed, or -1 to give up. */
  private rowsFrom(data: Buffer, pos: number): number {
    for (;;) {
      while (pos < data.length && isWhitespace(data[pos]!)) pos++;
      if (pos >= data.length) return pos;
      if (this.state === 'after') return -1; // more than whitespace after the root
      if (startsWithAt(data, pos, ROW_OPEN)) {
        const end = this.row(data, pos + ROW_OPEN.length);
        if (end === 0) return -1;
        if (end < 0) return pos; // incomplete: wait for more
        pos = end;
        continue;
      }
      if (startsWithAt(data, pos, TABLE_CLOSE)) {
        pos += TABLE_CLOSE.length;
        this.state = 'after';
        continue;
      }
      const left = data.length - pos;
      if (left < TABLE_CLOSE.length && (prefixOf(data, pos, TABLE_CLOSE) || prefixOf(data, pos, ROW_OPEN))) return pos;
      return -1;
    }
  }

  /** One row from `pos` (after `<row>`): the position after `</row>`, -1 when incomplete, 0 to give up. */
  private row(data: Buffer, pos: number): number {
    const columns = this.columns;
    const base = this.rows * columns;
    if ((base + columns) * 2 > this.ranges.length) this.grow(base + columns);
    for (let i = base * 2; i < (base + columns) * 2; i += 2) this.ranges[i] = -1;
    const length = data.length;
    for (;;) {
      while (pos < length && isWhitespace(data[pos]!)) pos++;
      if (pos + ROW_CLOSE.length > length) return -1;
      if (data[pos] !== LT) return 0;
      if (data[pos + 1] === SLASH) return startsWithAt(data, pos, ROW_CLOSE) ? this.rowEnd(pos) : 0;
      if (data[pos + 1] !== 0x63 || data[pos + 2] === 0x30) return 0; // '<c', no leading zero
      // the cell number, read digit by digit up to `>` or `/>`
      let i = pos + 2;
      let n = 0;
      for (; i < length && i - pos <= 12; i++) {
        const d = data[i]! - 0x30;
        if (d < 0 || d > 9) break;
        n = n * 10 + d;
      }
      if (i + 1 >= length) return -1;
      if (i === pos + 2 || i - pos > 12 || n > columns) return 0;
      const nameEnd = i;
      let start: number;
      let end: number;
      let flags = 0;
      if (data[i] === SLASH) {
        if (data[i + 1] !== GT) return 0;
        start = end = pos = i + 2;
      } else if (data[i] === GT) {
        start = i + 1;
        const text = scanText(data, start);
        if (text === -2) return -1;
        if (text < 0) return 0;
        flags = text % 8;
        end = (text - flags) / 8;
        // the end tag `</cN>`, compared in place
        const nameLength = nameEnd - pos - 1;
        if (end + nameLength + 3 > length) return -1;
        if (data[end + 1] !== SLASH || data[end + 2 + nameLength] !== GT) return 0;
        for (let k = 0; k < nameLength; k++) if (data[end + 2 + k] !== data[pos + 1 + k]) return 0;
        pos = end + nameLength + 3;
      } else return 0;
      const cell = base + n - 1;
      this.ranges[cell * 2] = start;
      this.ranges[cell * 2 + 1] = end;
      this.flags[cell] = flags;
    }
  }

  private rowEnd(pos: number): number {
    this.rows++;
    return pos + ROW_CLOSE.length;
  }

  private grow(cells: number): void {
    const size = Math.max(cells, this.flags.length * 2, 1024);
    const ranges = new Int32Array(size * 2);
    ranges.set(this.ranges);
    const flags = new Uint8Array(size);
    flags.set(this.flags);
    this.ranges = ranges;
    this.flags = flags;
  }
}

/** Whether data[pos, end) is a prefix of `what`. */
function prefixOf(data: Buffer, pos: number, what: Buffer): boolean {
  for (let i = pos; i < data.length; i++) if (data[i] !== what[i - pos]) return false;
  return true;
}
