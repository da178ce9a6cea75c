/**
 * A fast path for table XML of the usual shape: `<row>` elements holding `<cN>text</cN>` and
 * `<cN/>` cells and LOB file cells `<cN file="..." length="..." .../>`, nothing else (what our
 * writer, DBPTK and SIARD Suite write for tables without arrays or UDTs). It reads them without a
 * general XML parser and produces the same rows as saxes + TableRowsCollector would. (Until session
 * 47 a LOB cell sent the table to saxes: a table of a million LOB files was read several times
 * slower, and the reading room showed its row 500,000 after a minute.)
 *
 * It accepts only a strict subset of well-formed XML and gives up (feed() returns undefined) on
 * anything else: a comment, CDATA, a processing instruction after the prolog, a nested element in
 * a row, an attribute but on an empty cell with a `file` attribute (LOB_ATTRIBUTE: no prefix, a
 * double-quoted value without `&`, `<`, a tab or a line end; none given twice; a length that is an
 * integer), text between cells or rows, a carriage return (XML normalises line
 * ends), a character XML forbids, any surrogate, an entity other than the five predefined ones and
 * valid character references, hex that does not decode, a text run over MAX_TEXT_RUN. The caller
 * then reads the whole table again with saxes and skips the rows already given, so every
 * error, message and position is saxes's own.
 */
import { decodeSiardHex, unescapeSiard } from './escape.js';
import type { SqlTypeFamily } from '../model.js';
import { lobReference } from './lob-reference.js';
import type { SiardReadCellValue, SiardReadLobReference, SiardReadRow } from './types.js';

/** One attribute of a LOB cell read here; what else stands in its start tag is saxes's (see the head of this file). */
const LOB_ATTRIBUTE = /[ \t\n]+([A-Za-z_][\w.-]*)[ \t\n]*=[ \t\n]*"([^"<&\t\n]*)"/y;

/** The XML declaration (optional) and the root start tag `<table ...>`, whitespace without CR. */
export const PROLOG = new RegExp(
  String.raw`^(?:<\?xml[ \t\n]+version[ \t\n]*=[ \t\n]*(?:"1\.\d+"|'1\.\d+')` +
    String.raw`(?:[ \t\n]+encoding[ \t\n]*=[ \t\n]*(?:"[A-Za-z][\w.-]*"|'[A-Za-z][\w.-]*'))?` +
    String.raw`(?:[ \t\n]+standalone[ \t\n]*=[ \t\n]*(?:"(?:yes|no)"|'(?:yes|no)'))?[ \t\n]*\?>)?` +
    String.raw`[ \t\n]*<table((?:[ \t\n]+[A-Za-z_][\w.:-]*[ \t\n]*=[ \t\n]*(?:"[^"<&]*"|'[^'<&]*'))*)[ \t\n]*>`,
);
export const ATTRIBUTE_NAME = /([A-Za-z_][\w.:-]*)[ \t\n]*=/g;

/** Characters the fast path leaves to saxes: those XML forbids, CR, any surrogate, U+FFFE/U+FFFF. */
export const UNUSUAL = /[\x00-\x08\x0b-\x1f\ud800-\udfff\ufffe\uffff]/;

/** Longest prolog looked at before giving up. */
export const MAX_PROLOG = 64 * 1024;

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09;
}

/** An XML 1.0 Char reached through a character reference. */
function isXmlChar(cp: number): boolean {
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

/** The character of `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` at text[amp, semi], read in place; undefined for any other. */
function predefinedEntity(text: string, amp: number, semi: number): string | undefined {
  const c1 = text.charCodeAt(amp + 1);
  switch (semi - amp) {
    case 3: // lt, gt
      if (text.charCodeAt(amp + 2) !== 0x74) return undefined;
      return c1 === 0x6c ? '<' : c1 === 0x67 ? '>' : undefined;
    case 4: // amp
      return c1 === 0x61 && text.charCodeAt(amp + 2) === 0x6d && text.charCodeAt(amp + 3) === 0x70 ? '&' : undefined;
    case 5: // quot, apos
      return text.startsWith('quot', amp + 1) ? '"' : text.startsWith('apos', amp + 1) ? "'" : undefined;
    default:
      return undefined;
  }
}

/** Entities decoded, or undefined when one is not a predefined entity or a reference to an XML character. */
export function decodeEntities(text: string): string | undefined {
  let out = '';
  let start = 0;
  for (let amp = text.indexOf('&'); amp >= 0; amp = text.indexOf('&', start)) {
    const semi = text.indexOf(';', amp + 1);
    if (semi < 0 || semi - amp > 10) return undefined;
    let rep = predefinedEntity(text, amp, semi);
    if (rep === undefined) {
      const name = text.slice(amp + 1, semi);
      const m = /^#(?:(\d{1,7})|x([0-9A-Fa-f]{1,6}))$/.exec(name);
      if (!m) return undefined;
      const cp = m[1] !== undefined ? Number(m[1]) : parseInt(m[2]!, 16);
      if (!isXmlChar(cp)) return undefined;
      rep = String.fromCodePoint(cp);
    }
    out += text.slice(start, amp) + rep;
    start = semi + 1;
  }
  return out + text.slice(start);
}

export class FastTableRows {
  private buf = '';
  private state: 'prolog' | 'rows' | 'after' = 'prolog';
  private rowIndex = 0;
  private textRun: number;
  /** whether any text fed so far held a character of UNUSUAL (then each cell is checked) */
  private unusualSeen = false;
  /**
   * The character the last read of the rows stopped for (the `>` of a cell's start tag or the `<`
   * after its text): until a chunk brings one, reading again would stop at the same place. Without
   * this a long cell was rescanned from its row's start on every chunk (quadratic: 30 s of CPU for
   * one 64 MiB cell of the hostile corpus).
   */
  private waitingFor: '<' | '>' | undefined;

  constructor(
    private readonly families: ReadonlyArray<SqlTypeFamily | undefined>,
    maxTextRun: number,
  ) {
    this.textRun = maxTextRun;
  }

  /** Rows given so far. */
  get rowsGiven(): number {
    return this.rowIndex;
  }

  /** The rows `text` completes, or undefined: the fast path gave up (read the table with saxes). */
  feed(text: string): SiardReadRow[] | undefined {
    // One scan per chunk instead of one per cell: while no chunk held such a character, no cell can.
    if (!this.unusualSeen && UNUSUAL.test(text)) this.unusualSeen = true;
    this.buf = this.buf.length === 0 ? text : this.buf + text;
    if (this.waitingFor !== undefined && !text.includes(this.waitingFor)) return this.buf.length > this.textRun ? undefined : [];
    if (this.state === 'prolog' && !this.prolog()) {
      // wait for more only while the root start tag may still be coming
      const lt = this.buf.indexOf('<table');
      return this.buf.length > MAX_PROLOG || (lt >= 0 && this.buf.indexOf('>', lt) >= 0) ? undefined : [];
    }
    const rows: SiardReadRow[] = [];
    if (!this.rows(rows) || this.buf.length > this.textRun) {
      this.rowIndex -= rows.length; // not given: saxes gives them
      return undefined;
    }
    return rows;
  }

  /** Whether the input ended as a table XML must: `</table>` and nothing but whitespace after it. */
  finish(): boolean {
    return this.state === 'after' && !/[^ \t\n]/.test(this.buf);
  }

  private prolog(): boolean {
    const m = PROLOG.exec(this.buf);
    if (!m) return false;
    const names = [...m[1]!.matchAll(ATTRIBUTE_NAME)].map((a) => a[1]!);
    if (new Set(names).size !== names.length || UNUSUAL.test(m[0])) {
      this.buf = ' '.repeat(MAX_PROLOG + 1); // left to saxes: feed() gives up
      return false;
    }
    this.buf = this.buf.slice(m[0].length);
    this.state = 'rows';
    return true;
  }

  /** Reads complete rows off the buffer; false to give up. */
  private rows(out: SiardReadRow[]): boolean {
    this.waitingFor = undefined;
    const buf = this.buf;
    let pos = 0;
    for (;;) {
      while (pos < buf.length && isWhitespace(buf.charCodeAt(pos))) pos++;
      if (pos >= buf.length) break;
      if (this.state === 'after') return false; // more than whitespace after the root
      if (buf.startsWith('<row>', pos)) {
        const end = this.row(buf, pos + 5, out);
        if (end === 0) return false;
        if (end < 0) break; // incomplete: wait for more
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
  private row(buf: string, pos: number, out: SiardReadRow[]): number {
    const cells: SiardReadCellValue[] = new Array<SiardReadCellValue>(this.families.length).fill(null);
    for (;;) {
      while (pos < buf.length && isWhitespace(buf.charCodeAt(pos))) pos++;
      if (pos + 6 > buf.length) return -1;
      if (buf.startsWith('</row>', pos)) {
        this.rowIndex++;
        out.push({ index: this.rowIndex, cells });
        return pos + 6;
      }
      if (buf.charCodeAt(pos) !== 0x3c || buf.charCodeAt(pos + 1) !== 0x63) return 0; // '<c'
      const gt = buf.indexOf('>', pos);
      if (gt < 0) {
        this.waitingFor = '>';
        return -1;
      }
      const empty = buf.charCodeAt(gt - 1) === 0x2f;
      const nameEnd = empty ? gt - 1 : gt;
      const n = cellNumberAt(buf, pos + 1, nameEnd, this.families.length);
      if (n === 0) {
        const lob = empty ? this.lobCell(buf, pos, nameEnd) : undefined;
        if (!lob) return 0;
        cells[lob.column - 1] = lob.value;
        pos = gt + 1;
        continue;
      }
      let text = '';
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
        if ((this.unusualSeen && UNUSUAL.test(text)) || text.includes(']]>')) return 0;
        if (text.includes('&')) {
          const decoded = decodeEntities(text);
          if (decoded === undefined) return 0;
          text = decoded;
        }
      }
      const family = this.families[n - 1];
      if (family === 'blob' || family === 'binary') {
        const bytes = decodeSiardHex(text);
        if (!bytes) return 0;
        cells[n - 1] = bytes;
      } else cells[n - 1] = unescapeSiard(text);
    }
  }

  /** The LOB cell whose empty-element tag `<cN a="v" ... />` is buf[start, tagEnd) + `/>`, or undefined (give up). */
  private lobCell(buf: string, start: number, tagEnd: number): { column: number; value: SiardReadLobReference } | undefined {
    let nameEnd = start + 2;
    while (nameEnd < tagEnd && buf.charCodeAt(nameEnd) >= 0x30 && buf.charCodeAt(nameEnd) <= 0x39) nameEnd++;
    const column = cellNumberAt(buf, start + 1, nameEnd, this.families.length);
    if (column === 0 || (this.unusualSeen && UNUSUAL.test(buf.slice(start, tagEnd)))) return undefined;
    const attributes = Object.create(null) as Record<string, string>;
    let p = nameEnd;
    for (;;) {
      LOB_ATTRIBUTE.lastIndex = p;
      const m = LOB_ATTRIBUTE.exec(buf);
      if (!m || LOB_ATTRIBUTE.lastIndex > tagEnd) break;
      if (attributes[m[1]!] !== undefined) return undefined;
      attributes[m[1]!] = m[2]!;
      p = LOB_ATTRIBUTE.lastIndex;
    }
    while (p < tagEnd && isWhitespace(buf.charCodeAt(p))) p++;
    if (p !== tagEnd || attributes['file'] === undefined) return undefined;
    try {
      return { column, value: lobReference(attributes, () => '') };
    } catch {
      return undefined; // a length that is no integer: saxes's reader names the row and column
    }
  }
}

/**
 * Where the end tag of the cell whose start tag `<cN ...>` begins at `start` (its name ending at
 * `nameEnd`) ends, when `lt` is the next `<`: the index after `</cN>`, 0 when what stands there is
 * no such end tag, -1 when the text read so far ends first. Compared in place, no string built.
 */
function closingTagEnd(buf: string, start: number, nameEnd: number, lt: number): number {
  const nameLength = nameEnd - start - 1;
  if (lt + nameLength + 3 > buf.length) return -1;
  if (buf.charCodeAt(lt + 1) !== 0x2f || buf.charCodeAt(lt + 2 + nameLength) !== 0x3e) return 0;
  for (let i = 0; i < nameLength; i++) if (buf.charCodeAt(lt + 2 + i) !== buf.charCodeAt(start + 1 + i)) return 0;
  return lt + nameLength + 3;
}

/** N of a cell element named `cN` with 1 <= N <= columns (no leading zero), else 0. */
export function cellNumber(name: string, columns: number): number {
  return cellNumberAt(name, 0, name.length, columns);
}

/** cellNumber of the name text[start, end), read in place. */
function cellNumberAt(text: string, start: number, end: number, columns: number): number {
  const length = end - start;
  if (length < 2 || length > 11 || text.charCodeAt(start) !== 0x63 || text.charCodeAt(start + 1) === 0x30) return 0;
  let n = 0;
  for (let i = start + 1; i < end; i++) {
    const d = text.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return 0;
    n = n * 10 + d;
  }
  return n <= columns ? n : 0;
}
