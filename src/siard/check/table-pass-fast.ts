/**
 * The fast read of a table's XML for `check`: when the table's XSD is exactly the one our writer
 * produces for its columns (so what the XSD allows is known: table-xsd.ts), rows of the usual shape
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
import type { Readable } from 'node:stream';
import { cellType, type SiardTable } from '../model.js';
import { lobCellsOfRow, type SiardTableRef } from '../reader/siard-reader.js';
import { closingTagEnd, decodeEntities, MAX_PROLOG, PROLOG } from '../reader/table-rows-fast.js';
import { lobReference } from '../reader/table-rows.js';
import type { SiardLobCell, SiardReadCellValue } from '../reader/types.js';
import { SIARD_TABLE_NAMESPACE, tableXsd, xmlTypeOf } from '../table-xsd.js';
import { FAST_XSD_TYPES, fastCellOk, fastLobAttributesOk } from './fast-cells.js';
import type { KeyIndex, KeySpec } from './key-index.js';
import { columnRule, keyForm, type ColumnRule } from './lexical.js';

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
/** Characters left to the full pass: those XML forbids, CR (XML normalises line ends), U+FFFE/U+FFFF. */
const UNUSUAL = /[\x00-\x08\x0b-\x1f\ufffe\uffff]/;
/** Longest text held while a row is incomplete (a longer row is left to the full pass). */
const MAX_PENDING = 64 * 1024 * 1024;
/** an XML declaration, if any, of XML 1.0 in UTF-8 (what the bytes are read as) */
const UTF8_XML_1_0 =
  /^(?!<\?xml)|^<\?xml[ \t\n]+version[ \t\n]*=[ \t\n]*["']1\.0["'](?![^?]*encoding[ \t\n]*=[ \t\n]*["'](?!utf-8["'])[^?]*\?>)/i;
/** `&`, `>`, a back-slash, characters 127-159: a cell without them has no entity, no `]]>` and no escape problem */
const MARKED = /[&>\\\u007f-\u009f]/;
const ROOT_ATTRIBUTE = /([A-Za-z_][\w.:-]*)[ \t\n]*=[ \t\n]*(?:"([^"<&]*)"|'([^'<&]*)')/g;
const LOB_ATTRIBUTE = /[ \t\n]+(file|length|digestType|digest)="([^"<&\t\n]*)"/y;

/**
 * The XSD type of each column when `xsd` is byte for byte the table XSD our writer produces for the
 * table's columns (scalar columns of types fast-cells.ts judges); undefined otherwise.
 */
export function fastXsdTypes(table: SiardTable, xsd: Uint8Array): string[] | undefined {
  if (table.columns.some((c) => c.cardinality !== undefined || cellType(c) === undefined)) return undefined;
  let types: string[];
  let expected: string;
  try {
    types = table.columns.map((c) => xmlTypeOf(cellType(c)!));
    expected = tableXsd(table.columns);
  } catch {
    return undefined; // a type the writer does not know
  }
  if (!types.every((x) => FAST_XSD_TYPES.has(x))) return undefined;
  return Buffer.from(xsd.buffer, xsd.byteOffset, xsd.byteLength).equals(Buffer.from(expected)) ? types : undefined;
}

/** The root's attributes as our writer writes them: the table namespace, version 2.2, an xsi:schemaLocation. */
function rootAttributesOk(text: string): boolean {
  const seen = new Map<string, string>();
  for (const m of text.matchAll(ROOT_ATTRIBUTE)) {
    if (seen.has(m[1]!)) return false;
    seen.set(m[1]!, m[2] ?? m[3]!);
  }
  for (const [k, v] of seen) {
    if (
      k === 'xmlns'
        ? v !== SIARD_TABLE_NAMESPACE
        : k === 'version'
          ? v !== '2.2'
          : k === 'xmlns:xsi'
            ? v !== XSI
            : k !== 'xsi:schemaLocation'
    )
      return false;
  }
  const location = seen.get('xsi:schemaLocation');
  if (location !== undefined && (!seen.has('xmlns:xsi') || !/^\S+ \S+$/.test(location))) return false;
  return seen.has('xmlns') && seen.has('version');
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
  while (p < end && isWhitespace(text.charCodeAt(p))) p++;
  return p === end ? out : undefined;
}

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09;
}

interface FastTableScanInput {
  table: SiardTableRef;
  /** fastXsdTypes of the table */
  types: string[];
  keys: KeySpec[];
  index?: KeyIndex;
}

/** Rows fed as text, accepted one by one; feed() false: give up (the full pass reads the table). */
class FastTableScan {
  /** rows accepted (their keys indexed, their LOB cells handed out) */
  rows = 0;
  private buf = '';
  private state: 'prolog' | 'rows' | 'after' = 'prolog';
  private unusualSeen = false;
  /** the character the last scan stopped for: until a chunk brings one, scanning again would stop there too */
  private waitingFor: '<' | '>' | undefined;
  private lobs: SiardLobCell[] = [];
  private readonly types: string[];
  private readonly rules: ColumnRule[];
  private readonly lobColumn: boolean[];
  private readonly required: number[];
  private readonly keyColumn: boolean[];
  /** per column: the row that last had the cell (a cell is present in row r when seen[c] === r) */
  private readonly seen: Float64Array;
  private readonly values: string[];

  constructor(private readonly input: FastTableScanInput) {
    const columns = input.table.table.columns;
    this.types = input.types;
    this.rules = columns.map((c) => columnRule(cellType(c)));
    this.lobColumn = this.types.map((x) => x === 'clobType' || x === 'blobType');
    this.required = columns.flatMap((c, i) => (c.nullable === false ? [i] : []));
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

  feed(text: string): boolean {
    if (!this.unusualSeen && UNUSUAL.test(text)) this.unusualSeen = true;
    if (this.waitingFor !== undefined && !text.includes(this.waitingFor)) {
      this.buf += text;
      return this.buf.length <= MAX_PENDING;
    }
    // one flat string to scan: indexOf flattens the concatenation once (charCodeAt on it would walk it each time)
    this.buf = this.buf.length === 0 ? text : this.buf + text;
    this.buf.indexOf('\u0000');
    if (this.state === 'prolog') {
      const p = this.prolog();
      if (p !== 'read') return p === 'wait';
    }
    return this.scanRows() && this.buf.length <= MAX_PENDING;
  }

  /** Whether the input ended as a table XML must: `</table>` and nothing but whitespace after it. */
  finish(): boolean {
    return this.state === 'after' && !/[^ \t\n]/.test(this.buf);
  }

  private prolog(): 'read' | 'wait' | 'give-up' {
    const m = PROLOG.exec(this.buf);
    if (!m) {
      const lt = this.buf.indexOf('<table');
      return this.buf.length > MAX_PROLOG || (lt >= 0 && this.buf.indexOf('>', lt) >= 0) ? 'give-up' : 'wait';
    }
    if (UNUSUAL.test(m[0]) || !rootAttributesOk(m[1]!) || !UTF8_XML_1_0.test(m[0])) return 'give-up';
    this.buf = this.buf.slice(m[0].length);
    this.state = 'rows';
    return 'read';
  }

  private scanRows(): boolean {
    this.waitingFor = undefined;
    const buf = this.buf;
    let pos = 0;
    for (;;) {
      while (pos < buf.length && isWhitespace(buf.charCodeAt(pos))) pos++;
      if (pos >= buf.length) break;
      if (this.state === 'after') return false;
      if (buf.startsWith('<row>', pos)) {
        const end = this.row(buf, pos + 5);
        if (end === 0) return false;
        if (end < 0) break;
        pos = end;
        continue;
      }
      if (buf.startsWith('</table>', pos)) {
        pos += 8;
        this.state = 'after';
        continue;
      }
      if (buf.length - pos < 8 && ('</table>'.startsWith(buf.slice(pos)) || '<row>'.startsWith(buf.slice(pos)))) break;
      return false;
    }
    this.buf = buf.slice(pos);
    return true;
  }

  /** One row from `pos` (after `<row>`): the position after `</row>`, -1 when incomplete, 0 to give up. */
  private row(buf: string, pos: number): number {
    const rowNo = this.rows + 1;
    let last = 0;
    let lobs: SiardLobCell[] | undefined;
    for (;;) {
      while (pos < buf.length && isWhitespace(buf.charCodeAt(pos))) pos++;
      if (pos + 6 > buf.length) return -1;
      if (buf.charCodeAt(pos) !== 0x3c) return 0;
      if (buf.charCodeAt(pos + 1) === 0x2f) return buf.startsWith('</row>', pos) && this.endRow(rowNo, lobs) ? pos + 6 : 0;
      if (buf.charCodeAt(pos + 1) !== 0x63) return 0; // '<c'
      const gt = buf.indexOf('>', pos);
      if (gt < 0) {
        this.waitingFor = '>';
        return -1;
      }
      let nameEnd = pos + 2;
      let n = 0;
      for (let d = buf.charCodeAt(nameEnd) - 0x30; d >= 0 && d <= 9 && nameEnd < gt; d = buf.charCodeAt(nameEnd) - 0x30) {
        n = n * 10 + d;
        nameEnd++;
      }
      if (nameEnd === pos + 2 || nameEnd - pos > 11 || buf.charCodeAt(pos + 2) === 0x30 || n <= last || n > this.types.length) return 0;
      const col = n - 1;
      const empty = buf.charCodeAt(gt - 1) === 0x2f;
      const tagEnd = empty ? gt - 1 : gt;
      let attributes: Record<string, string> | undefined;
      if (nameEnd < tagEnd) {
        attributes = this.lobColumn[col] ? lobAttributes(buf, nameEnd, tagEnd) : undefined;
        if (!attributes || (this.unusualSeen && UNUSUAL.test(buf.slice(pos, gt)))) return 0;
      }
      let text = '';
      let marked = false;
      if (empty) pos = gt + 1;
      else {
        const lt = buf.indexOf('<', gt + 1);
        if (lt < 0) {
          this.waitingFor = '<';
          return -1;
        }
        const end = closingTagEnd(buf, pos, nameEnd, lt);
        if (end <= 0) return end;
        text = buf.slice(gt + 1, lt);
        pos = end;
        if (this.unusualSeen && UNUSUAL.test(text)) return 0;
        // one scan for what most cells lack: an entity, a `>` (of `]]>`), what the escape checks look for
        marked = MARKED.test(text);
        if (marked) {
          if (text.includes(']]>')) return 0;
          if (text.includes('&')) {
            const decoded = decodeEntities(text);
            if (decoded === undefined) return 0;
            text = decoded;
          }
        }
      }
      if (attributes) {
        if (text !== '' || !fastLobAttributesOk(attributes)) return 0;
        (lobs ??= []).push(...this.lobCells(rowNo, col, attributes));
      } else if (!fastCellOk(this.types[col]!, this.rules[col]!, text, marked)) return 0;
      this.seen[col] = rowNo;
      if (this.keyColumn[col]) this.values[col] = text;
      last = n;
    }
  }

  private lobCells(row: number, col: number, attributes: Record<string, string>): SiardLobCell[] {
    const cells = new Array<SiardReadCellValue>(this.types.length).fill(null);
    cells[col] = lobReference(attributes, () => '');
    return [...lobCellsOfRow(this.input.table, { index: row, cells })];
  }

  /** The row's end: required cells present, no NULL in the primary key; then its keys indexed. */
  private endRow(row: number, lobs: SiardLobCell[] | undefined): boolean {
    for (const i of this.required) if (this.seen[i] !== row) return false;
    const { keys, index } = this.input;
    for (const k of keys) if (k.kind === 'primary' && k.indexes.some((i) => this.seen[i] !== row)) return false;
    if (index) {
      for (const k of keys) {
        if (k.indexes.some((i) => this.seen[i] !== row)) continue; // MATCH SIMPLE, candidate keys ignore NULLs
        index.add(
          k,
          row,
          k.indexes.map((i) => keyForm(this.rules[i]!, this.values[i]!)),
        );
      }
    }
    this.rows = row;
    if (lobs) this.lobs.push(...lobs);
    return true;
  }
}

export interface FastTablePassInput extends FastTableScanInput {
  stream: Readable;
  /** checks the LOB cells of accepted rows, as they come */
  onLobCell: (cell: SiardLobCell) => Promise<void>;
}

/** Reads the table with the fast scan: whether it read it all (done) and how many rows it accepted. */
export async function fastTablePass(input: FastTablePassInput): Promise<{ done: boolean; rows: number }> {
  const scan = new FastTableScan(input);
  const decoder = new TextDecoder('utf-8', { fatal: true });
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
  let first = true;
  let ok = true;
  try {
    for await (const chunk of input.stream as AsyncIterable<Buffer>) {
      let s = decoder.decode(chunk, { stream: true });
      if (first && s.length > 0) {
        if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
        first = false;
      }
      ok = scan.feed(s);
      await handOut();
      if (!ok) break;
    }
    if (ok) {
      ok = scan.feed(decoder.decode()) && scan.finish();
      await handOut();
    }
  } catch {
    if (lobError) throw lobError.error;
    ok = false; // bytes that are not UTF-8, a read that breaks off: the full pass says what
  } finally {
    input.stream.destroy();
  }
  return { done: ok, rows: scan.rows };
}
