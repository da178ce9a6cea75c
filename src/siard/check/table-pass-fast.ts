/**
 * The fast read of a table's XML for `check`: when what the table's XSD allows is known
 * (fast-xsd.ts: our writer's XSD, DBPTK's, SIARD Suite's ... read by their meaning), rows of the usual shape
 * (`<row>`, `<cN>text</cN>`, `<cN/>`, LOB cells `<cN file=".." length=".." digest=".."/>`, cells in
 * column order, required cells present) whose every value fast-cells.ts accepts are valid against
 * that XSD (T_6.0-2) and give no finding of the value, shape, NOT NULL and key checks of
 * table-pass.ts. Those rows are read here without a general XML parser and without the XSD windows;
 * their key values go to the key index, their LOB cells to the LOB checks, as they come.
 *
 * It never reports a finding: on anything else (a finding, a comment, CDATA, a character XML
 * forbids, CR, an entity other than the predefined ones, an attribute it does not know ...) it gives
 * up, and the caller reads the table again with the full pass (table-pass.ts: saxes, libxml2's XSD
 * validation, every finding with its own words), skipping only the key inserts and the LOB cells
 * of the rows already accepted.
 */
import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { cellType } from '../model.js';
import { lobCellsOfRow, type SiardTableRef } from '../reader/siard-reader.js';
import { decodeEntities, MAX_PROLOG, PROLOG } from '../reader/table-rows-fast.js';
import { lobReference } from '../reader/table-rows.js';
import type { SiardLobCell, SiardReadCellValue } from '../reader/types.js';
import {
  bytesAt,
  closingTag,
  codePoints,
  CR_BYTE,
  isWhitespaceByte,
  LOOK_BYTE,
  MARK_BYTE,
  plainInteger,
  scanText,
  skipComment,
  UNUSUAL_BYTE,
  type TextScan,
} from './fast-bytes.js';
import { fastCellOk, fastLobAttributesOk, type TemporalFacets } from './fast-cells.js';
import type { FastProfile } from './fast-xsd.js';
import type { KeyIndex, KeySpec } from './key-index.js';
import { columnRule, keyForm, type ColumnRule } from './lexical.js';

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
/** Characters left to the full pass: those XML forbids, CR (XML normalises line ends), U+FFFE/U+FFFF. */
const UNUSUAL = /[\x00-\x08\x0b-\x1f\ufffe\uffff]/;
const NOT_ASCII = /[^\x00-\x7f]/;
/** Longest text held while a row is incomplete (a longer row is left to the full pass). */
const MAX_PENDING = 64 * 1024 * 1024;
/** an XML declaration, if any, of XML 1.0 in UTF-8 (what the bytes are read as) */
const UTF8_XML_1_0 =
  /^(?!<\?xml)|^<\?xml[ \t\n\r]+version[ \t\n\r]*=[ \t\n\r]*["']1\.0["'](?![^?]*encoding[ \t\n\r]*=[ \t\n\r]*["'](?!utf-8["'])[^?]*\?>)/i;
const ROOT_ATTRIBUTE = /([A-Za-z_][\w.:-]*)[ \t\n\r]*=[ \t\n\r]*(?:"([^"<&]*)"|'([^'<&]*)')/g;
/**
 * The reader's prolog, with comments before the root (Full Convert writes two) and CR in its
 * whitespace (DBPTK writes CRLF line ends between tags).
 */
const COMMENTED_PROLOG = new RegExp(
  PROLOG.source
    .replace(String.raw`[ \t\n]*<table`, String.raw`(?:[ \t\n]|<!--(?:[^-]|-(?!-))*-->)*<table`)
    .replaceAll(String.raw`[ \t\n]`, String.raw`[ \t\n\r]`),
);
/** Characters XML forbids in markup (CR is whitespace there) */
const UNUSUAL_IN_MARKUP = /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/;
const LOB_ATTRIBUTE = /[ \t\n]+(file|length|digestType|digest)="([^"<&\t\n]*)"/y;

/** The root's attributes as the XSD allows them: its namespace, its version attribute, an xsi:schemaLocation. */
function rootAttributesOk(text: string, profile: FastProfile): boolean {
  const seen = new Map<string, string>();
  for (const m of text.matchAll(ROOT_ATTRIBUTE)) {
    if (seen.has(m[1]!)) return false;
    seen.set(m[1]!, m[2] ?? m[3]!);
  }
  const { version } = profile;
  for (const [k, v] of seen) {
    if (
      k === 'xmlns'
        ? v !== profile.namespace
        : k === 'version'
          ? !version?.values.has(v)
          : k === 'xmlns:xsi'
            ? v !== XSI
            : k !== 'xsi:schemaLocation'
    )
      return false;
  }
  const location = seen.get('xsi:schemaLocation');
  if (location !== undefined && (!seen.has('xmlns:xsi') || !/^\S+ \S+$/.test(location))) return false;
  return seen.has('xmlns') && (seen.has('version') || !version?.required);
}

/** A LOB cell's attributes from text[start, end) (after the element name), or undefined. */
function lobAttributes(text: string, start: number, end: number): Record<string, string> | undefined {
  const out = Object.create(null) as Record<string, string>;
  let p = start;
  for (;;) {
    LOB_ATTRIBUTE.lastIndex = p;
    const m = LOB_ATTRIBUTE.exec(text);
    if (!m || LOB_ATTRIBUTE.lastIndex > end) break;
    if (out[m[1]!] !== undefined) return undefined;
    out[m[1]!] = m[2]!;
    p = LOB_ATTRIBUTE.lastIndex;
  }
  while (p < end && isWhitespaceByte(text.charCodeAt(p))) p++;
  return p === end ? out : undefined;
}

interface FastTableScanInput {
  table: SiardTableRef;
  /** what the table's XSD allows (fastXsdProfile) */
  profile: FastProfile;
  keys: KeySpec[];
  index?: KeyIndex;
}

/** How a column's text cells are judged: integers and strings by their bytes, the rest as strings (fast-cells.ts). */
const enum CellKind {
  Integer,
  Text,
  Other,
}

const ROW = Buffer.from('<row>');
const END_ROW = Buffer.from('</row>');
const END_TABLE = Buffer.from('</table>');
const WAIT = -1;
/** column families whose cells may name a file (table-pass.ts reports a file in any other) */
const FILE_FAMILIES = new Set(['clob', 'blob', 'xml', 'datalink', 'char', 'binary']);
const GIVE_UP = -2;

/** Rows fed as UTF-8 bytes, accepted one by one; feed() false: give up (the full pass reads the table). */
class FastTableScan {
  /** rows accepted (their keys indexed, their LOB cells handed out) */
  rows = 0;
  /** bytes after the last row read (an incomplete row), read again with the next chunk */
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private state: 'prolog' | 'rows' | 'after' = 'prolog';
  /** the byte the last read stopped for, none in the bytes held: until a chunk brings one, reading again would stop there too */
  private waitingFor = -1;
  private lobs: SiardLobCell[] = [];
  private readonly text: TextScan = { lt: -1, classes: 0 };
  private readonly types: string[];
  private readonly facets: Array<TemporalFacets | undefined>;
  private readonly rules: ColumnRule[];
  private readonly kinds: CellKind[];
  /** integer columns: the range of their type as numbers (a plain integer has at most 15 digits) */
  private readonly ranges: Array<[number, number] | undefined>;
  private readonly lobColumn: boolean[];
  private readonly required: number[];
  private readonly keyColumn: boolean[];
  /** per column: the row that last had the cell (a cell is present in row r when seen[c] === r) */
  private readonly seen: Float64Array;
  /** key columns' values of the row: a plain integer as a number, any other text as its string */
  private readonly values: Array<string | number>;

  constructor(private readonly input: FastTableScanInput) {
    const columns = input.table.table.columns;
    const { types, facets, required } = input.profile;
    this.types = types;
    this.facets = facets;
    this.rules = columns.map((c) => columnRule(cellType(c)));
    this.kinds = this.rules.map((r, i) => cellKind(this.types[i]!, r));
    this.ranges = this.rules.map((r) => (r.range ? [Number(r.range[0]), Number(r.range[1])] : undefined));
    // a cell naming a file: of a LOB type in the XSD, and of a column that may refer to a file (table-pass.ts)
    this.lobColumn = this.types.map((x, i) => (x === 'clobType' || x === 'blobType') && FILE_FAMILIES.has(this.rules[i]!.family ?? ''));
    // cells the XSD requires and cells of NOT NULL columns
    this.required = columns.flatMap((c, i) => (c.nullable === false || required[i] ? [i] : []));
    this.keyColumn = columns.map((_c, i) => input.keys.some((k) => k.indexes.includes(i)));
    this.seen = new Float64Array(columns.length);
    this.values = columns.map(() => '');
  }

  /** The LOB cells of the rows accepted since the last call. */
  takeLobCells(): SiardLobCell[] {
    const out = this.lobs;
    this.lobs = [];
    return out;
  }

  feed(chunk: Buffer): boolean {
    if (this.waitingFor >= 0 && chunk.indexOf(this.waitingFor) < 0) return this.keep(chunk);
    if (this.pending.length > 0 && this.state === 'rows') {
      // the incomplete row held and its end in the chunk read on their own: the rest of the chunk is not copied
      const rowEnd = chunk.indexOf(END_ROW);
      if (rowEnd >= 0 && rowEnd + END_ROW.length < chunk.length) {
        if (!this.read(chunk.subarray(0, rowEnd + END_ROW.length))) return false;
        return this.read(chunk.subarray(rowEnd + END_ROW.length));
      }
    }
    return this.read(chunk);
  }

  /** The bytes held and `chunk`: the rows they complete read, the rest held. */
  private read(chunk: Buffer): boolean {
    this.waitingFor = -1;
    const buf = this.pending.length === 0 ? chunk : Buffer.concat([...this.pending, chunk]);
    this.pending = [];
    this.pendingLength = 0;
    let pos = 0;
    if (this.state === 'prolog') {
      pos = this.prolog(buf);
      if (pos === WAIT) return this.keep(buf);
      if (pos === GIVE_UP) return false;
      this.state = 'rows';
    }
    // a complete row ends with `>`: the bytes up to the last one are checked as UTF-8 at once, then read
    const end = buf.lastIndexOf(0x3e) + 1;
    if (end > pos) {
      if (!isUtf8(buf.subarray(0, end))) return false;
      pos = this.scanRows(buf, pos, end);
      if (pos === GIVE_UP) return false;
    }
    return pos === buf.length || this.keep(buf.subarray(pos));
  }

  /** Whether the input ended as a table XML must: `</table>` and nothing but whitespace after it. */
  finish(): boolean {
    return this.state === 'after' && this.pending.every((b) => b.every(isWhitespaceByte));
  }

  private keep(bytes: Buffer): boolean {
    this.pending.push(bytes);
    this.pendingLength += bytes.length;
    return this.pendingLength <= MAX_PENDING;
  }

  /** The position after the root start tag, WAIT or GIVE_UP. */
  private prolog(buf: Buffer): number {
    if (buf.length < 3) return WAIT;
    const start = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
    // latin1: one character per byte, so the match's length is its length in bytes
    const head = buf.toString('latin1', start, Math.min(buf.length, start + MAX_PROLOG));
    const m = COMMENTED_PROLOG.exec(head);
    if (!m) {
      const lt = head.indexOf('<table');
      return head.length >= MAX_PROLOG || (lt >= 0 && head.indexOf('>', lt) >= 0) ? GIVE_UP : WAIT;
    }
    if (NOT_ASCII.test(m[0]) || UNUSUAL_IN_MARKUP.test(m[0]) || !rootAttributesOk(m[1]!, this.input.profile) || !UTF8_XML_1_0.test(m[0]))
      return GIVE_UP;
    return start + m[0].length;
  }

  /** Rows from `pos` up to `end`: the position after the last complete one, or GIVE_UP. */
  private scanRows(buf: Buffer, pos: number, end: number): number {
    for (;;) {
      while (pos < end && isWhitespaceByte(buf[pos]!)) pos++;
      if (pos >= end) return pos;
      if (buf[pos] === 0x3c && buf[pos + 1] === 0x21) {
        // a comment between rows or after them (Full Convert writes the row count there)
        const next = skipComment(buf, pos, end);
        if (next === 0) return GIVE_UP;
        if (next < 0) return pos;
        pos = next;
        continue;
      }
      if (this.state === 'after') return GIVE_UP;
      const row = bytesAt(buf, pos, end, ROW);
      if (row === 1) {
        const next = this.row(buf, pos + ROW.length, end);
        if (next === 0) return GIVE_UP;
        if (next < 0) return pos;
        pos = next;
        continue;
      }
      const table = bytesAt(buf, pos, end, END_TABLE);
      if (table === 1) {
        pos += END_TABLE.length;
        this.state = 'after';
        continue;
      }
      return row < 0 || table < 0 ? pos : GIVE_UP;
    }
  }

  /** One row from `pos` (after `<row>`): the position after `</row>`, -1 when incomplete, 0 to give up. */
  private row(buf: Buffer, pos: number, end: number): number {
    const rowNo = this.rows + 1;
    let last = 0;
    let lobs: SiardLobCell[] | undefined;
    for (;;) {
      while (pos < end && isWhitespaceByte(buf[pos]!)) pos++;
      if (pos + END_ROW.length > end) return -1;
      if (buf[pos] !== 0x3c) return 0;
      if (buf[pos + 1] === 0x2f) return bytesAt(buf, pos, end, END_ROW) === 1 && this.endRow(rowNo, lobs) ? pos + END_ROW.length : 0;
      if (buf[pos + 1] !== 0x63) return 0; // '<c'
      let nameEnd = pos + 2;
      let n = 0;
      for (let d = buf[nameEnd]! - 0x30; d >= 0 && d <= 9 && nameEnd < end; d = buf[nameEnd]! - 0x30) {
        n = n * 10 + d;
        nameEnd++;
      }
      if (nameEnd >= end) return -1;
      if (nameEnd === pos + 2 || nameEnd - pos > 11 || buf[pos + 2] === 0x30 || n <= last || n > this.types.length) return 0;
      const col = n - 1;
      const after = buf[nameEnd]!;
      let next: number;
      if (after === 0x3e) next = this.textCell(buf, pos, nameEnd, end, col);
      else if (after === 0x2f)
        next = nameEnd + 1 >= end ? -1 : buf[nameEnd + 1] === 0x3e && this.cellOk(buf, col, 0, 0, 0) ? nameEnd + 2 : 0;
      else if (this.lobColumn[col] && isWhitespaceByte(after)) {
        const cell = this.lobCell(buf, pos, nameEnd, end, rowNo, col);
        if (cell.next > 0) (lobs ??= []).push(...cell.lobs);
        next = cell.next;
      } else next = 0;
      if (next <= 0) return next;
      this.seen[col] = rowNo;
      last = n;
      pos = next;
    }
  }

  /** `<cN>text</cN>` from `pos` (`>` at nameEnd): the position after it, -1 when incomplete, 0 to give up. */
  private textCell(buf: Buffer, pos: number, nameEnd: number, end: number, col: number): number {
    const start = nameEnd + 1;
    scanText(buf, start, end, this.text);
    const { lt, classes } = this.text;
    if (lt < 0) {
      if (buf.indexOf(0x3c, end) < 0) this.waitingFor = 0x3c;
      return -1;
    }
    const next = closingTag(buf, pos, nameEnd, lt, end);
    if (next <= 0) return next;
    return this.cellOk(buf, col, start, lt, classes) ? next : 0;
  }

  /** Whether a text cell's value buf[start, end) is accepted; a key column's value kept for the row's end. */
  private cellOk(buf: Buffer, col: number, start: number, end: number, classes: number): boolean {
    if (classes & UNUSUAL_BYTE) return false;
    if (classes === 0 && end > start) {
      const kind = this.kinds[col];
      if (kind === CellKind.Integer) {
        const n = plainInteger(buf, start, end);
        if (n !== undefined) {
          const range = this.ranges[col];
          if (range && (n < range[0] || n > range[1])) return false;
          if (this.keyColumn[col]) this.values[col] = n;
          return true;
        }
      } else if (kind === CellKind.Text) {
        const max = this.rules[col]!.maxLength;
        if (max !== undefined && end - start > max && codePoints(buf, start, end) > max) return false;
        if (this.keyColumn[col]) this.values[col] = buf.toString('utf8', start, end);
        return true;
      }
    }
    let text = buf.toString('utf8', start, end);
    // line ends as XML gives them, before entities (a CR written as &#13; stays)
    if (classes & CR_BYTE) text = text.replace(/\r\n?/g, '\n');
    if (classes & LOOK_BYTE && UNUSUAL.test(text)) return false;
    if (classes & MARK_BYTE) {
      if (text.includes(']]>')) return false;
      if (text.includes('&')) {
        const decoded = decodeEntities(text);
        if (decoded === undefined) return false;
        text = decoded;
      }
    }
    if (!fastCellOk(this.types[col]!, this.rules[col]!, text, classes !== 0, this.facets[col])) return false;
    if (this.keyColumn[col]) this.values[col] = text;
    return true;
  }

  /** A LOB cell `<cN file=.. length=.. digest=../>` (or with `></cN>`) from `pos`. */
  private lobCell(
    buf: Buffer,
    pos: number,
    nameEnd: number,
    end: number,
    row: number,
    col: number,
  ): { next: number; lobs: SiardLobCell[] } {
    const none = (next: number) => ({ next, lobs: [] });
    const gt = buf.indexOf(0x3e, nameEnd);
    if (gt < 0 || gt >= end) return none(-1); // `end` is after the last `>`: none after it
    const empty = buf[gt - 1] === 0x2f;
    const tag = buf.toString('utf8', nameEnd, empty ? gt - 1 : gt);
    const attributes = lobAttributes(tag, 0, tag.length);
    if (!attributes || UNUSUAL.test(tag) || !fastLobAttributesOk(attributes)) return none(0);
    const next = empty ? gt + 1 : closingTag(buf, pos, nameEnd, gt + 1, end);
    return next <= 0 ? none(next) : { next, lobs: this.lobCells(row, col, attributes) };
  }

  private lobCells(row: number, col: number, attributes: Record<string, string>): SiardLobCell[] {
    const cells = new Array<SiardReadCellValue>(this.types.length).fill(null);
    cells[col] = lobReference(attributes, () => '');
    return [...lobCellsOfRow(this.input.table, { index: row, cells })];
  }

  /** The row's end: required cells present, no NULL in the primary key; then its keys indexed. */
  private endRow(row: number, lobs: SiardLobCell[] | undefined): boolean {
    const seen = this.seen;
    for (const i of this.required) if (seen[i] !== row) return false;
    const { keys, index } = this.input;
    for (const k of keys) if (k.kind === 'primary' && !present(k, seen, row)) return false;
    for (const k of keys) {
      if (!index || !present(k, seen, row)) continue; // MATCH SIMPLE, candidate keys ignore NULLs
      const first = this.values[k.indexes[0]!]!;
      if (k.indexes.length === 1 && typeof first === 'number') index.addInteger(k, row, first);
      else
        index.add(
          k,
          row,
          k.indexes.map((i) => keyForm(this.rules[i]!, String(this.values[i]))),
        );
    }
    this.rows = row;
    if (lobs) this.lobs.push(...lobs);
    return true;
  }
}

function present(k: KeySpec, seen: Float64Array, row: number): boolean {
  for (const i of k.indexes) if (seen[i] !== row) return false;
  return true;
}

function cellKind(xsdType: string, rule: ColumnRule): CellKind {
  if (xsdType === 'xs:integer' && rule.family === 'integer') return CellKind.Integer;
  // text whose only lexical rule is its length (lexical.ts), valid for any characters XML carries (xs:string)
  if ((xsdType === 'xs:string' || xsdType === 'clobType') && (rule.family === 'char' || rule.family === 'clob' || rule.family === 'xml'))
    return CellKind.Text;
  return CellKind.Other;
}

export interface FastTablePassInput extends FastTableScanInput {
  stream: Readable;
  /** checks the LOB cells of accepted rows, as they come */
  onLobCell: (cell: SiardLobCell) => Promise<void>;
}

/** Reads the table with the fast scan: whether it read it all (done) and how many rows it accepted. */
export async function fastTablePass(input: FastTablePassInput): Promise<{ done: boolean; rows: number }> {
  const scan = new FastTableScan(input);
  // a LOB check that throws is an error of the check, not a reason to read the table again
  let lobError: { error: unknown } | undefined;
  const handOut = async (): Promise<void> => {
    for (const cell of scan.takeLobCells()) {
      try {
        await input.onLobCell(cell);
      } catch (error) {
        lobError = { error };
        throw error;
      }
    }
  };
  let ok = true;
  try {
    for await (const chunk of input.stream as AsyncIterable<Buffer | Uint8Array>) {
      ok = scan.feed(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      await handOut();
      if (!ok) break;
    }
    if (ok) ok = scan.finish();
  } catch {
    if (lobError) throw lobError.error;
    ok = false; // a read that breaks off: the full pass says what
  } finally {
    input.stream.destroy();
  }
  return { done: ok, rows: scan.rows };
}
