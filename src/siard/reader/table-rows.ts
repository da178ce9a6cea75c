/**
 * Streams the rows of a `tableN.xml` with saxes: constant memory whatever the row count (only the
 * current row and one input chunk are held). Per row, per column `cN`: absent = NULL, text
 * (unescaped; hex decoded for BINARY/BLOB columns), a LOB reference (`file` attribute), or nested
 * ARRAY (`a1` ...) / UDT (`u1` ...) values.
 */
import type { Readable } from 'node:stream';
import { SaxesParser, type SaxesTag } from 'saxes';
import { SiardOcflError } from '../../errors.js';
import { cellType, knownTypeFamily, type SiardColumn, type SqlTypeFamily } from '../model.js';
import { decodeSiardHex, unescapeSiard } from './escape.js';
import { cellNumber, FastTableRows } from './table-rows-fast.js';
import { lobReference } from './lob-reference.js';
import type { SiardReadCellValue, SiardReadRow } from './types.js';

// check's fast table read (table-pass-fast.ts) imports it from here.
export { lobReference };

export interface TableRowsOptions {
  /** names the table in messages, e.g. `x.siard: table SAKILA.actor (content/schema0/table0/table0.xml)` */
  what: string;
  columns: readonly SiardColumn[];
  /** opens the table XML again from its start: enables the fast path, which may need a second read */
  reopen?: () => Promise<Readable>;
}

interface Frame {
  name: string;
  attributes: Record<string, string>;
  text: string;
  elements: Map<number, SiardReadCellValue> | undefined;
  kind: 'array' | 'udt' | undefined;
}

/** Family of a column's declared type, undefined when it has none we know (UDT, SIARD 1.0 oddities). */
export function columnTypeFamily(type: string | undefined): SqlTypeFamily | undefined {
  return type === undefined ? undefined : knownTypeFamily(type);
}

/** The attributes of an element that has none (shared, never written to). */
const NO_ATTRIBUTES: Record<string, string> = Object.freeze({}) as Record<string, string>;

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** Longest run of text (characters) between two tags that is accepted: bounds memory against bombs. */
export const MAX_TEXT_RUN = 64 * 1024 * 1024;

/** table/row/cell plus this many levels of ARRAY/UDT nesting; deeper is refused (readers recurse). */
const MAX_DEPTH = 3 + 100;

/**
 * Rows of one table XML, in order. The stream is consumed as the iterator is; stopping early
 * destroys it. Errors are SiardOcflError sentences naming the table, the row and the column.
 */
export async function* readTableRows(input: Readable, options: TableRowsOptions): AsyncGenerator<SiardReadRow> {
  for await (const batch of readTableRowBatches(input, options)) yield* batch;
}

/**
 * The same rows, in batches: those completed by each chunk of input (one await per chunk, not per
 * row). With `options.reopen`, rows of the usual shape are read by the fast path (table-rows-fast.ts);
 * where it gives up, the table is read again from its start with saxes, the rows already given skipped.
 */
export async function* readTableRowBatches(input: Readable, options: TableRowsOptions): AsyncGenerator<SiardReadRow[]> {
  if (!options.reopen) {
    yield* saxesRowBatches(input, options, 0);
    return;
  }
  const fast = new FastTableRows(
    options.columns.map((c) => columnTypeFamily(cellType(c))),
    MAX_TEXT_RUN,
  );
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let first = true;
  let done = false;
  try {
    for await (const chunk of input as AsyncIterable<Buffer | string>) {
      let s: string;
      try {
        s = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
      } catch {
        break; // saxes's read names the row
      }
      if (first && s.length > 0) {
        if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
        first = false;
      }
      const rows = fast.feed(s);
      if (!rows) break;
      if (rows.length > 0) yield rows;
    }
    if (!input.readableAborted && input.readableEnded) {
      let tail: string | undefined;
      try {
        tail = decoder.decode();
      } catch {
        tail = undefined;
      }
      const rows = tail === undefined ? undefined : fast.feed(tail);
      if (rows && rows.length > 0) yield rows;
      done = rows !== undefined && fast.finish();
    }
  } finally {
    input.destroy();
  }
  if (!done) yield* saxesRowBatches(await options.reopen(), options, fast.rowsGiven);
}

/** Rows through saxes; the first `skip` rows are read (and checked) but not given. */
async function* saxesRowBatches(input: Readable, options: TableRowsOptions, skip: number): AsyncGenerator<SiardReadRow[]> {
  const rows = new TableRowsCollector(options);
  const parser = new SaxesParser({ position: true });
  parser.on('error', (err) => rows.fail(`not well-formed XML (${err.message})`));
  parser.on('doctype', () => rows.fail('a DOCTYPE declaration is not allowed in table data'));
  parser.on('opentag', (tag: SaxesTag) => rows.open(tag));
  parser.on('text', (t) => rows.text(t));
  parser.on('cdata', (t) => rows.text(t));
  parser.on('closetag', () => rows.close());

  // fatal: bytes that are not UTF-8 stop the read instead of becoming U+FFFD (a silent change).
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const decode = (chunk?: Buffer): string => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw new SiardOcflError(`${rows.where()}: the table XML is not valid UTF-8.`, { code: 'SIARD_TABLE', exitCode: 1 });
    }
  };
  let first = true;
  try {
    for await (const chunk of input as AsyncIterable<Buffer | string>) {
      let s = typeof chunk === 'string' ? chunk : decode(chunk);
      if (first && s.length > 0) {
        if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
        first = false;
      }
      parser.write(s);
      rows.checkTextRun(s.length);
      const batch = rows.take(skip);
      if (batch.length > 0) yield batch;
    }
    parser.write(decode());
    parser.close();
    const last = rows.take(skip);
    if (last.length > 0) yield last;
    if (!rows.sawTable) throw new SiardOcflError(`${options.what}: the table XML is empty.`, { code: 'SIARD_TABLE', exitCode: 1 });
  } finally {
    input.destroy();
  }
}

/** Builds rows from the parser's events: the element stack, the cells of the open row, the first failure. */
class TableRowsCollector {
  private readonly families: ReturnType<typeof columnTypeFamily>[];
  private readonly stack: Frame[] = [];
  private readonly ready: SiardReadRow[] = [];
  private rowIndex = 0;
  private cells: SiardReadCellValue[] | undefined;
  private failure: Error | undefined;
  /** characters of text since the last markup (saxes holds them until the next tag) */
  private sinceMarkup = 0;
  sawTable = false;

  constructor(private readonly options: TableRowsOptions) {
    this.families = options.columns.map((c) => columnTypeFamily(cellType(c)));
  }

  where(column?: string): string {
    return `${this.options.what}${this.rowIndex > 0 ? `, row ${this.rowIndex}` : ''}${column ? `, column ${column}` : ''}`;
  }

  fail(message: string, column?: string): void {
    this.failure ??= new SiardOcflError(`${this.where(column)}: ${message}.`, { code: 'SIARD_TABLE', exitCode: 1 });
  }

  /** The rows completed so far (throws the first failure instead, once it happened). */
  take(skip = 0): SiardReadRow[] {
    if (this.failure) throw this.failure;
    if (this.ready.length === 0) return [];
    const all = this.ready.splice(0, this.ready.length);
    return skip > 0 && all[0]!.index <= skip ? all.filter((r) => r.index > skip) : all;
  }

  /** A zip bomb of one endless value would fill memory: text runs are bounded. */
  checkTextRun(added: number): void {
    if (this.failure) throw this.failure;
    this.sinceMarkup += added;
    if (this.sinceMarkup > MAX_TEXT_RUN) {
      throw new SiardOcflError(
        `${this.where(this.stack[2]?.name)}: more than ${MAX_TEXT_RUN} characters of text without markup; refusing the value ` +
          `(inline values that large belong in LOB files).`,
        {
          code: 'SIARD_TABLE',
          exitCode: 1,
        },
      );
    }
  }

  open(tag: SaxesTag): void {
    this.sinceMarkup = 0;
    if (this.failure) return;
    const { columns } = this.options;
    const stack = this.stack;
    const name = localName(tag.name);
    const depth = stack.length;
    if (depth === 2 && cellNumber(name, columns.length) > 0) {
      // a cell <cN>: the usual element, checked without a regex
    } else if (depth === 0) {
      if (name !== 'table') this.fail(`the root element is <${name}>, not <table>`);
      this.sawTable = true;
    } else if (depth === 1) {
      if (name !== 'row') this.fail(`unexpected element <${name}> where <row> belongs`);
      this.rowIndex += 1;
      this.cells = new Array<SiardReadCellValue>(columns.length).fill(null);
    } else if (depth === 2) {
      const m = /^c([1-9]\d*)$/.exec(name);
      if (!m || Number(m[1]) > columns.length) this.fail(`unexpected element <${name}> (the table has ${columns.length} columns)`);
    } else if (depth >= MAX_DEPTH) {
      this.fail(`values are nested more than ${MAX_DEPTH - 3} levels deep`, stack[2]?.name);
    } else {
      const m = /^([au])([1-9]\d*)$/.exec(name);
      const parent = stack[depth - 1]!;
      if (!m) this.fail(`unexpected element <${name}> inside <${parent.name}>`, stack[2]?.name);
      else {
        const kind = m[1] === 'a' ? 'array' : 'udt';
        if (parent.kind && parent.kind !== kind) this.fail(`<${parent.name}> mixes array and UDT elements`, stack[2]?.name);
        parent.kind = kind;
        parent.elements ??= new Map();
      }
    }
    let attributes = NO_ATTRIBUTES;
    for (const k in tag.attributes) {
      if (attributes === NO_ATTRIBUTES) attributes = {};
      attributes[localName(k)] = tag.attributes[k] as string;
    }
    stack.push({ name, attributes, text: '', elements: undefined, kind: undefined });
  }

  text(t: string): void {
    if (this.stack.length >= 3) this.stack[this.stack.length - 1]!.text += t;
  }

  close(): void {
    this.sinceMarkup = 0;
    if (this.failure) return;
    const stack = this.stack;
    const frame = stack.pop()!;
    const depth = stack.length;
    if (depth === 1) {
      this.ready.push({ index: this.rowIndex, cells: this.cells! });
      this.cells = undefined;
      return;
    }
    if (depth < 2) return;
    const value = this.valueOf(frame, depth, stack[2]?.name ?? frame.name);
    if (value === undefined) return;
    if (depth === 2) this.cells![Number(frame.name.slice(1)) - 1] = value;
    else stack[depth - 1]!.elements!.set(Number(frame.name.slice(1)), value);
  }

  /** The value of a closed cell or element: a LOB reference, an array/UDT, text, or bytes; undefined after a failure. */
  private valueOf(frame: Frame, depth: number, column: string): SiardReadCellValue | undefined {
    if (frame.attributes['file'] !== undefined) return lobReference(frame.attributes, () => this.where(column));
    if (frame.elements) return { kind: frame.kind!, elements: frame.elements };
    if (depth === 2) {
      const family = this.families[Number(frame.name.slice(1)) - 1];
      if (family === 'blob' || family === 'binary') {
        const bytes = decodeSiardHex(frame.text);
        if (!bytes) this.fail('inline binary value is not hexadecimal', column);
        return bytes ?? undefined;
      }
    }
    return unescapeSiard(frame.text);
  }
}
