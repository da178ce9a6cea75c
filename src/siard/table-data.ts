/**
 * `tableJ.xml`: rows from a source turned into SIARD table XML, as a stream of text chunks
 * (constant memory whatever the row count). Cell rules (T_6.4-3, G_3.3, P_4.3-3):
 * NULL = element omitted, '' = empty element; text SIARD-escaped; BLOB/binary as hex; dates and
 * timestamps in UTC with 'Z'; LOBs above the inline limit written to files through LobWriter,
 * the cell carrying file, length, digestType and digest.
 * ARRAY cells (columns with cardinality, T_6.4-4): `<cN><a1>..</a1><a3>..</a3></cN>`, a missing aI
 * being a NULL element and `<cN/>` an empty array; elements of a predefined type are always inline.
 * UDT cells (columns of a structured type): `<cN><u1>..</u1><u3>..</u3></cN>`, one uI per attribute
 * (missing = NULL), nested UDTs and ARRAYs inside; a LOB attribute is inline or in a file by the
 * same rule as a LOB column, its file in a folder named by its path (`lob3/u2/record0.txt`).
 * DATALINK values read from files are written to files again (blobType cells hold hex inline).
 */
import { SiardOcflError } from '../errors.js';
import {
  ProvisionalTypesFailed,
  isSiardText,
  isSourceArray,
  isSourceLob,
  isSourceUdt,
  type CellTexts,
  type SourceArrayValue,
  type SourceLob,
  type SourceValue,
} from './database-source.js';
import { isStructured, type CellShape } from './cell-shape.js';
import { LobWriter, readAll, type LobWriteResult } from './lob-writer.js';
import { LobsAhead, settledAfter } from './lobs-ahead.js';
import { isLobFamily, type SiardColumn, type SqlTypeFamily } from './model.js';
import { arrayPathKey, plainShape, SIARD_TABLE_NAMESPACE, type ArrayUse } from './table-xsd.js';
import { Utf8Chunks } from './utf8-chunks.js';
import type { SegmentCut } from './zip/segmented-deflate.js';
import { escapeSiardText } from './xml-text.js';
import { textWay, TextWay, writeTextCell, type TextColumn } from './text-cells.js';

export interface TableDataContext {
  schemaIndex: number;
  tableIndex: number;
  tableName: string;
  folder: string;
  columns: SiardColumn[];
  inlineMax: number;
  lobWriter: LobWriter;
  /** each column's cell shape (default: plainShape of the column) */
  shapes?: CellShape[];
  /** filled with the largest element index written per array (for the table XSD) */
  arrayUse?: ArrayUse;
  /** the table's types are provisional (SourceTable.provisional): a value that needs a LOB file throws ProvisionalTypesFailed */
  provisional?: boolean;
  /** sees every row as written (the table's fingerprint, siard/fingerprint/) */
  observer?: RowObserver;
  /**
   * What a cut after a row carries (a resumable export's state there, docs/resume.md), given the
   * row's key when its batch has keys (RowBatch.rowKeys)
   */
  cutState?: (key: unknown) => unknown;
  /** the rows go on after a cut an interrupted run made: no `<table>` start (stats hold the rows before) */
  continued?: boolean;
}

/** Rows of a batch with, where the source reads the table in key order, each row's key (to resume after it). */
export type RowBatch = readonly SourceValue[][] & { rowKeys?: readonly unknown[]; texts?: CellTexts };

/**
 * Sees each row as the archive will hold it (a table's fingerprint, siard/fingerprint/): every
 * non-NULL cell's form (`cell`: its text before escaping, bytes as hex, a LOB file as '#' and its
 * SHA-256), a LOB inside an ARRAY or UDT cell by its path (`lob`: 'c3/u2' or 'c3' alone), ARRAY and
 * UDT values whole once written (`complex`), then the end of the row.
 */
export interface RowObserver {
  cell(i: number, form: string): void;
  /** a date, time or timestamp as the source gave it: the form is that text, 'T' at `separatorAt` (if >= 0), 'Z' unless it has one */
  zonedCell(i: number, source: string, separatorAt: number): void;
  /** a cell whose form is ASCII bytes (CellTexts): row-hash.ts's bytesCell */
  bytesCell(i: number, bytes: Uint8Array, start: number, end: number, n: number, escaped: boolean, tAt: number, tail: string): void;
  lob(path: string, form: string): void;
  complex(i: number, v: SourceValue): void;
  endRow(): void;
}

export interface TableDataStats {
  rows: number;
  lobs: number;
  externalLobs: number;
  lobBytes: number;
  /** 0-based indexes of columns with at least one LOB in a file */
  externalColumns: Set<number>;
}

/** Bytes handed to the ZIP writer at a time: big enough that deflate (on the thread pool) gets long runs. */
const CHUNK_BYTES = 256 * 1024;

/** Characters of row XML gathered before one encode into the chunk (one call per row cost as much as its encoding). */
const ROWS_TEXT = 4096;

/**
 * Characters of row XML between two cuts (segmented-deflate.ts): each segment is deflated alone,
 * and a resumable export can go on after any cut. Part of the archive's bytes: changing it changes
 * every export's bytes.
 */
const SEGMENT_CHARS = 8 * 1024 * 1024;

/**
 * LOB files, and their bytes, between two cuts at most: a table of mostly LOB files (8 MiB of XML
 * is about 37,000 file references) cuts as often as a table of text rows would, so that a resumed
 * run throws away and writes again a bounded number of files after the last cut. Part of the
 * archive's bytes too (a table with more LOB files than this between two XML cuts is cut more often).
 */
const SEGMENT_LOB_FILES = 4096;
const SEGMENT_LOB_BYTES = 256 * 1024 * 1024;

/** What the segment since the last cut holds: characters of XML, LOB files and their bytes (a cut when one is at its bound). */
class SegmentFill {
  private chars = 0;
  private lobsAtCut: number;
  private lobBytesAtCut: number;

  /** `stats` as they are at the segment's start (a continued table's hold the rows before its cut). */
  constructor(stats: TableDataStats) {
    this.lobsAtCut = stats.externalLobs;
    this.lobBytesAtCut = stats.lobBytes;
  }

  /** A row of `chars` characters written (stats counting its LOB files): whether a cut comes after it. */
  full(chars: number, stats: TableDataStats): boolean {
    this.chars += chars;
    return (
      this.chars >= SEGMENT_CHARS ||
      stats.externalLobs - this.lobsAtCut >= SEGMENT_LOB_FILES ||
      stats.lobBytes - this.lobBytesAtCut >= SEGMENT_LOB_BYTES
    );
  }

  /** A cut made: the next segment starts. */
  reset(stats: TableDataStats): void {
    this.chars = 0;
    this.lobsAtCut = stats.externalLobs;
    this.lobBytesAtCut = stats.lobBytes;
  }
}

/** How a column's cells are written, decided once per table. */
const enum CellWay {
  Scalar,
  Lob,
  Array,
  Structured,
}

/** How each column's cells are written, decided once per table (tableDataXml). */
function cellWays(ctx: TableDataContext) {
  const shapes = ctx.shapes ?? ctx.columns.map(plainShape);
  const families = shapes.map((sh) =>
    sh.kind === 'scalar' ? sh.family : sh.kind === 'array' && sh.element.kind === 'scalar' ? sh.element.family : 'char',
  );
  const ways = shapes.map((sh, i) =>
    isStructured(sh)
      ? CellWay.Structured
      : sh.kind === 'array'
        ? CellWay.Array
        : isLobFamily(families[i]!) || families[i] === 'binary'
          ? CellWay.Lob
          : CellWay.Scalar,
  );
  return {
    shapes,
    families,
    ways,
    open: families.map((_, i) => `<c${i + 1}>`),
    close: families.map((_, i) => `</c${i + 1}>`),
    empty: families.map((_, i) => `<c${i + 1}/>`),
    // columns whose text needs no escaping: what the writer formats is what a reader gets back
    plain: families.map((f) => PLAIN_FAMILIES.has(f)),
    // date, time and timestamp columns: the observer takes the source's text (scalarText's form made by concatenation)
    separatorAt: families.map((f) => (f === 'timestamp' ? 10 : f === 'date' || f === 'time' ? -1 : undefined)),
  };
}

/**
 * Yields the XML of the table as UTF-8, in chunks of whole rows, and a cut after the first row
 * that ends SEGMENT_CHARS of XML, SEGMENT_LOB_FILES LOB files or SEGMENT_LOB_BYTES of them since
 * the last one; `stats` is filled as it goes. Rows come in
 * batches (rowBatchesOf), of values or of the source's texts (CellTexts).
 * Long because: it is the loop every cell of an export goes through; a cell's formatting stays
 * inline, without a call or a promise a cell.
 */
export async function* tableDataXml(
  batches: AsyncIterable<RowBatch>,
  ctx: TableDataContext,
  stats: TableDataStats,
  onRow?: () => void,
): AsyncGenerator<Buffer | SegmentCut> {
  const { shapes, families, ways, open, close, empty, plain, separatorAt } = cellWays(ctx);
  const n = families.length;
  const observer = ctx.observer;
  const out = new Utf8Chunks(CHUNK_BYTES);
  if (!ctx.continued) out.append(tableStart(ctx.folder));
  const segment = new SegmentFill(stats);
  const lobColumns = ways.flatMap((w, i) => (w === CellWay.Lob ? [i] : []));
  const aheadPossible = LobsAhead.possible(ctx.lobWriter, ctx.provisional, lobColumns, formatsWithoutFiles(ctx));
  let ahead: LobsAhead | undefined;
  const textColumns: TextColumn[] = families.map((_, i) => ({ way: TextWay.None, open: open[i]!, close: close[i]!, empty: empty[i]! }));
  for await (const batch of settledAfter(batches, () => ahead?.settle())) {
    let rows = '';
    const texts = batch.texts;
    // a batch whose LOB cells are all texts to write inline has nothing to begin ahead
    const anyAhead = texts
      ? startTexts(batch, texts, textColumns, ways, families, aheadPossible ? lobColumns : [], ctx.inlineMax) && aheadPossible
      : aheadPossible;
    ahead = anyAhead ? new LobsAhead(batch, stats.rows + 1, lobColumns, families, ctx, !!ctx.cutState) : undefined;
    for (let r = 0; r < batch.length; r++) {
      const row = batch[r]!;
      stats.rows++;
      ahead?.fill(r);
      // a batch of texts writes its rows straight into `out`; `xml` holds what is not written yet
      let xml = texts ? '' : '  <row>';
      let written = texts ? out.ascii('  <row>') : 0;
      for (let i = 0; i < n; i++) {
        let v: SourceValue;
        if (texts?.kinds[i] !== undefined) {
          if (xml !== '') written += out.append(xml);
          xml = '';
          const chars = textCell(out, texts, r, i, textColumns[i]!, ctx.inlineMax, observer, stats);
          if (chars >= 0) {
            written += chars;
            continue;
          }
          v = row[i] !== undefined ? row[i]! : texts.value(r, i);
        } else v = row[i] ?? null;
        if (v === null) continue;
        const family = families[i]!;
        // LOB columns may need a file (async); every other cell is formatted synchronously.
        switch (ways[i]) {
          case CellWay.Scalar: {
            // DATALINK values read from files are written to files again
            if (family === 'datalink' && isSourceLob(v)) {
              xml += await lobCell(v, i, family, ctx, stats);
              break;
            }
            const text = scalarText(v, family);
            if (text === undefined) throw valueError(v, i, ctx, stats);
            xml += text === '' ? empty[i] : open[i] + text + close[i];
            if (observer) observeScalar(observer, i, v, text, plain[i]!, separatorAt[i]);
            break;
          }
          case CellWay.Lob:
            xml +=
              inlineLobCell(v, i, family, ctx, stats) ?? (await lobCell(v, i, family, ctx, stats, undefined, undefined, ahead?.take(r, i)));
            break;
          case CellWay.Array:
            xml += arrayCell(v, i, family, ctx, stats);
            observer?.complex(i, v);
            break;
          case CellWay.Structured:
            xml += await complexCell(v, `c${i + 1}`, shapes[i]!, [`c${i + 1}`], i, ctx, stats);
            observer?.complex(i, v);
            break;
        }
      }
      if (!texts) rows += xml + '</row>\n';
      else if (xml === '') out.ascii('</row>\n');
      else out.append(xml + '</row>\n');
      observer?.endRow();
      const cut = segment.full(written + xml.length + 7, stats);
      if (rows.length > ROWS_TEXT || cut) {
        out.append(rows);
        rows = '';
      }
      onRow?.();
      if (cut) {
        segment.reset(stats);
        yield* out.take(0);
        const state = () => ctx.cutState?.(batch.rowKeys?.[r]);
        yield { cut: true, state: ahead ? ahead.asOf(r, state) : state() };
      }
    }
    out.append(rows);
    yield* out.take();
  }
  out.append('</table>\n');
  yield* out.take(0);
}

/**
 * Row r's cell of column i of a batch of texts written into `out` from its bytes (text-cells.ts):
 * the characters written (0: NULL), or -1 when its value is to be formatted instead.
 */
function textCell(
  out: Utf8Chunks,
  texts: CellTexts,
  r: number,
  i: number,
  col: TextColumn,
  inlineMax: number,
  observer: RowObserver | undefined,
  stats: TableDataStats,
): number {
  const at = 2 * (r * texts.stride + texts.field[i]!);
  const start = texts.bounds[at]!;
  if (start === -1) return 0;
  if (start < 0) return -1;
  const chars = writeTextCell(out, texts.bytes[r]!, start, texts.bounds[at + 1]!, i, col, inlineMax, observer);
  if (chars >= 0 && col.way === TextWay.Clob) stats.lobs++;
  return chars;
}

/**
 * A batch of texts begun: how each column's texts are written (`columns`), and, when its LOBs are
 * begun ahead (lobs-ahead.ts), the cells of LOB columns that may go to a file put in the rows as
 * values first, for LobsAhead to see (its files take their places in row order); the others are
 * written inline from their texts. Whether the rows hold a LOB value now (one a LOB column gave
 * as a value, or one put there).
 */
function startTexts(
  batch: RowBatch,
  texts: CellTexts,
  columns: TextColumn[],
  ways: readonly CellWay[],
  families: readonly SqlTypeFamily[],
  lobColumns: number[],
  inlineMax: number,
): boolean {
  columns.forEach((col, i) => (col.way = textWay(texts.kinds[i], families[i]!, ways[i] === CellWay.Lob)));
  let any = false;
  for (const i of lobColumns) {
    if (texts.kinds[i] === undefined) {
      any = true;
      continue;
    }
    for (let r = 0; r < batch.length; r++) {
      const at = 2 * (r * texts.stride + texts.field[i]!);
      const start = texts.bounds[at]!;
      if (start === -1 || (start >= 0 && texts.bounds[at + 1]! - start <= inlineMax)) continue;
      // rows may share their array (CellTexts): this one gets its own
      const row = [...batch[r]!];
      row[i] = texts.value(r, i);
      (batch as SourceValue[][])[r] = row;
      texts.bounds[at] = -2;
      any = true;
    }
  }
  return any;
}

/**
 * Whether a table's cells can all be written by tableDataXml without the LOB writer as long as
 * each LOB value is one formatsInline accepts: no ARRAY, UDT or DATALINK column.
 */
function formatsWithoutFiles(ctx: TableDataContext): boolean {
  const { ways, families } = cellWays(ctx);
  return ways.every((w, i) => (w === CellWay.Scalar && families[i] !== 'datalink') || w === CellWay.Lob);
}

/** A value of a column of `family` that tableDataXml writes inline (a LOB column's value up to inlineMax), never to a file. */
function formatsInline(v: SourceValue, family: SqlTypeFamily, inlineMax: number): boolean {
  if (!isLobFamily(family) && family !== 'binary') return !isSourceLob(v) && !isSourceArray(v) && !isSourceUdt(v);
  const binary = family === 'blob' || family === 'binary';
  if (binary) return v instanceof Uint8Array && (family === 'binary' || v.length <= inlineMax);
  return typeof v === 'string' && (v.length <= inlineMax / 3 || Buffer.byteLength(v, 'utf8') <= inlineMax);
}

/** The XML declaration and the `<table>` start tag of the table in `folder` (tableJ). */
function tableStart(folder: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<table xmlns="${SIARD_TABLE_NAMESPACE}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ` +
    `xsi:schemaLocation="${SIARD_TABLE_NAMESPACE} ${folder}.xsd" version="2.2">\n`
  );
}

function valueError(v: SourceValue, i: number, ctx: TableDataContext, stats: TableDataStats): SiardOcflError {
  return new SiardOcflError(
    `Table "${ctx.tableName}", row ${stats.rows}, column "${ctx.columns[i]!.name}": a ${describe(v)} value cannot be written ` +
      `as ${ctx.columns[i]!.type}.`,
    { code: 'VALUE_DOES_NOT_FIT' },
  );
}

function element(i: number, text: string): string {
  return text === '' ? `<c${i + 1}/>` : `<c${i + 1}>${text}</c${i + 1}>`;
}

/** An in-memory LOB value small enough to inline, formatted without waiting; else undefined. */
function inlineLobCell(v: SourceValue, i: number, family: SqlTypeFamily, ctx: TableDataContext, stats: TableDataStats): string | undefined {
  if (!formatsInline(v, family, ctx.inlineMax)) return undefined;
  if (v instanceof Uint8Array) {
    if (family !== 'binary') stats.lobs++;
    const hex = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
    ctx.observer?.cell(i, hex);
    return element(i, hex);
  }
  stats.lobs++;
  ctx.observer?.cell(i, v as string);
  return element(i, escapeSiardText(v as string));
}

/**
 * BLOB, CLOB, XML and binary cells (or UDT attributes / array elements of those types, `tag` and
 * `field` naming them): inline up to inlineMax bytes, else a file. A DATALINK read from a file
 * always goes to a file.
 */
async function lobCell(
  v: SourceValue,
  i: number,
  family: SqlTypeFamily,
  ctx: TableDataContext,
  stats: TableDataStats,
  tag = `c${i + 1}`,
  field?: string,
  /** the LOB's file begun ahead (lobs-ahead.ts) */
  begun?: Promise<LobWriteResult>,
): Promise<string> {
  const binary = family === 'blob' || family === 'binary' || family === 'datalink';
  let bytes: Uint8Array | SourceLob;
  if (binary) {
    if (v instanceof Uint8Array || (isSourceLob(v) && v.encoding === 'binary')) bytes = v;
    else throw valueError(v, i, ctx, stats);
  } else if (typeof v === 'string') bytes = Buffer.from(v, 'utf8');
  else if (isSourceLob(v) && v.encoding === 'text') bytes = v;
  else throw valueError(v, i, ctx, stats);
  const size = bytes instanceof Uint8Array ? bytes.length : bytes.byteLength;
  if (family !== 'binary') stats.lobs++;
  const observed = field !== undefined ? `c${i + 1}/${field}` : `c${i + 1}`;
  if (family === 'binary' || (family !== 'datalink' && size <= ctx.inlineMax)) {
    const data = await readAll(bytes);
    const form = binary ? data.toString('hex') : data.toString('utf8');
    ctx.observer?.lob(observed, form);
    const text = binary ? form : escapeSiardText(form);
    return text === '' ? `<${tag}/>` : `<${tag}>${text}</${tag}>`;
  }
  // A LOB file cannot be taken back with the table's XML.
  if (ctx.provisional) throw new ProvisionalTypesFailed(ctx.tableName, ctx.columns[i]!.name, stats.rows);
  const { reference, sha256 } = await (begun ??
    ctx.lobWriter.write(
      {
        schema: ctx.schemaIndex,
        table: ctx.tableIndex,
        column: i + 1,
        row: stats.rows,
        extension: binary ? 'bin' : 'txt',
        size,
        ...(field !== undefined ? { field } : {}),
      },
      bytes,
      !binary,
    ));
  ctx.observer?.lob(observed, '#' + sha256);
  stats.externalLobs++;
  stats.lobBytes += size;
  stats.externalColumns.add(i);
  return (
    `<${tag} file="${escapeSiardText(reference.file)}" length="${reference.length}" digestType="${reference.digestType}" ` +
    `digest="${reference.digest}"/>`
  );
}

/**
 * A cell (or an element inside one) of a UDT or ARRAY shape with UDTs inside: `tag` is cN, uI or aI,
 * `path` the tags from the cell down to it. NULL (or a missing element) writes nothing.
 */
async function complexCell(
  v: SourceValue,
  tag: string,
  shape: CellShape,
  path: string[],
  i: number,
  ctx: TableDataContext,
  stats: TableDataStats,
): Promise<string> {
  if (v === null || v === undefined) return '';
  const where = () =>
    `Table "${ctx.tableName}", row ${stats.rows}, column ` +
    `"${ctx.columns[i]!.name}"${path.length > 1 ? `, element ${path.slice(1).join('/')}` : ''}`;
  const wrap = (inner: string) => (inner === '' ? `<${tag}/>` : `<${tag}>${inner}</${tag}>`);
  if (shape.kind === 'udt') {
    if (!isSourceUdt(v))
      throw new SiardOcflError(
        `${where()}: a ${describe(v)} value cannot be written as the structured type ${shape.schema}.${shape.name}.`,
        { code: 'VALUE_DOES_NOT_FIT' },
      );
    if (v.elements.length > shape.attributes.length) {
      throw new SiardOcflError(
        `${where()}: the value has ${v.elements.length} attributes, more than the ${shape.attributes.length} ` +
          `of ${shape.schema}.${shape.name}.`,
        { code: 'VALUE_DOES_NOT_FIT' },
      );
    }
    let inner = '';
    for (let a = 0; a < v.elements.length; a++) {
      inner += await complexCell(v.elements[a] ?? null, `u${a + 1}`, shape.attributes[a]!.shape, [...path, `u${a + 1}`], i, ctx, stats);
    }
    return wrap(inner);
  }
  if (shape.kind === 'array') {
    if (!isSourceArray(v))
      throw new SiardOcflError(`${where()}: a ${describe(v)} value cannot be written as an ARRAY.`, { code: 'VALUE_DOES_NOT_FIT' });
    const elements = v.elements;
    if (elements.length > shape.cardinality) {
      throw new SiardOcflError(`${where()}: the array has ${elements.length} elements, more than its cardinality ${shape.cardinality}.`, {
        code: 'VALUE_DOES_NOT_FIT',
      });
    }
    if (elements.length > 0 && elements[elements.length - 1] === null) {
      throw new SiardOcflError(`${where()}: the array ends with a NULL element, which SIARD cannot tell apart from a shorter array.`, {
        code: 'VALUE_DOES_NOT_FIT',
      });
    }
    noteArrayUse(ctx, path, elements.length);
    let inner = '';
    for (let e = 0; e < elements.length; e++)
      inner += await complexCell(elements[e]!, `a${e + 1}`, shape.element, [...path, `a${e + 1}`], i, ctx, stats);
    return wrap(inner);
  }
  const family = shape.family;
  if (isLobFamily(family) || family === 'binary' || (family === 'datalink' && isSourceLob(v))) {
    return lobCell(v, i, family, ctx, stats, tag, path.slice(1).join('/'));
  }
  const text = scalarText(v, family);
  if (text === undefined)
    throw new SiardOcflError(`${where()}: a ${describe(v)} value cannot be written as ${shape.type}.`, { code: 'VALUE_DOES_NOT_FIT' });
  if (text.length > MAX_ARRAY_ELEMENT_CHARS) {
    throw new SiardOcflError(
      `${where()}: the value is longer than ${MAX_ARRAY_ELEMENT_CHARS} characters; SIARD readers refuse such long inline values.`,
      { code: 'VALUE_DOES_NOT_FIT' },
    );
  }
  return text === '' ? `<${tag}/>` : `<${tag}>${text}</${tag}>`;
}

function noteArrayUse(ctx: TableDataContext, path: string[], length: number): void {
  if (!ctx.arrayUse) return;
  const key = arrayPathKey(path);
  if (length > (ctx.arrayUse.get(key) ?? 0)) ctx.arrayUse.set(key, length);
}

/** Largest escaped text of one array element: the reader refuses much longer runs of text (MAX_TEXT_RUN). */
const MAX_ARRAY_ELEMENT_CHARS = 16 * 1024 * 1024;

/** An ARRAY cell: every element formatted as a scalar of the element type, inline. */
function arrayCell(v: SourceValue, i: number, family: SqlTypeFamily, ctx: TableDataContext, stats: TableDataStats): string {
  const where = `Table "${ctx.tableName}", row ${stats.rows}, column "${ctx.columns[i]!.name}"`;
  if (!isSourceArray(v)) {
    throw new SiardOcflError(`${where}: a ${describe(v)} value cannot be written in an ARRAY column.`, { code: 'VALUE_DOES_NOT_FIT' });
  }
  const elements = (v as SourceArrayValue).elements;
  const cardinality = ctx.columns[i]!.cardinality ?? 0;
  if (elements.length > cardinality) {
    throw new SiardOcflError(`${where}: the array has ${elements.length} elements, more than the column's cardinality ${cardinality}.`, {
      code: 'VALUE_DOES_NOT_FIT',
    });
  }
  if (elements.length > 0 && elements[elements.length - 1] === null) {
    // a1.. with the last ones missing reads back as a shorter array
    throw new SiardOcflError(`${where}: the array ends with a NULL element, which SIARD cannot tell apart from a shorter array.`, {
      code: 'VALUE_DOES_NOT_FIT',
    });
  }
  noteArrayUse(ctx, [`c${i + 1}`], elements.length);
  let out = '';
  for (let e = 0; e < elements.length; e++) {
    const item = elements[e]!;
    if (item === null) continue;
    if (isSourceUdt(item))
      throw new SiardOcflError(`${where}, element ${e + 1}: a UDT value cannot be written as ${ctx.columns[i]!.type}.`, {
        code: 'VALUE_DOES_NOT_FIT',
      });
    const tag = `a${e + 1}`;
    let text: string | undefined;
    if (isSiardText(item)) text = escapeSiardText(item.text);
    else if (family === 'blob' || family === 'binary')
      text = item instanceof Uint8Array ? Buffer.from(item.buffer, item.byteOffset, item.byteLength).toString('hex') : undefined;
    else if (family === 'clob' || family === 'xml') text = typeof item === 'string' ? escapeSiardText(item) : undefined;
    else text = scalarText(item, family);
    if (text === undefined) {
      throw new SiardOcflError(`${where}, element ${e + 1}: a ${describe(item)} value cannot be written as ${ctx.columns[i]!.type}.`, {
        code: 'VALUE_DOES_NOT_FIT',
      });
    }
    if (text.length > MAX_ARRAY_ELEMENT_CHARS) {
      throw new SiardOcflError(
        `${where}, element ${e + 1}: the element is longer than ${MAX_ARRAY_ELEMENT_CHARS} characters; array elements are ` +
          `written inline and SIARD readers refuse such long values.`,
        {
          code: 'VALUE_DOES_NOT_FIT',
        },
      );
    }
    out += text === '' ? `<${tag}/>` : `<${tag}>${text}</${tag}>`;
  }
  return out === '' ? `<c${i + 1}/>` : `<c${i + 1}>${out}</c${i + 1}>`;
}

const INTEGER_TEXT = /^[+-]?\d+$/;
const DECIMAL_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
const DATE_TEXT = /^\d{4}-\d{2}-\d{2}Z?$/;
const TIMESTAMP_TEXT = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?Z?$/;
const TIME_TEXT = /^\d{2}:\d{2}:\d{2}(\.\d+)?Z?$/;

/** `text` with a 'Z' at the end unless it has one (a UTC mark). */
function withZ(text: string): string {
  return text.charCodeAt(text.length - 1) === 0x5a ? text : text + 'Z';
}

/**
 * The XML text of a non-LOB value of a family, or undefined when the value does not fit it.
 * Called once per cell: no closures, no regex replaces on the common paths.
 */
function scalarText(v: SourceValue, family: SqlTypeFamily): string | undefined {
  if (typeof v === 'object' && isSiardText(v)) return escapeSiardText(v.text);
  switch (family) {
    case 'integer':
      if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))) return v.toString();
      if (typeof v === 'string' && INTEGER_TEXT.test(v)) return v;
      return undefined;
    case 'decimal':
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'number' && Number.isFinite(v)) return plainDecimal(v);
      if (typeof v === 'string' && DECIMAL_TEXT.test(v)) return v;
      return undefined;
    case 'float':
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'number') return xsDouble(v);
      return undefined;
    case 'boolean':
      if (typeof v === 'boolean') return v ? 'true' : 'false';
      return undefined;
    case 'char':
      if (typeof v === 'string') return escapeSiardText(v);
      return undefined;
    case 'date':
      // 'YYYY-MM-DD' or 'YYYY-MM-DDZ'
      if (typeof v === 'string' && DATE_TEXT.test(v)) return withZ(v);
      return undefined;
    case 'timestamp':
      // the only space the pattern allows is the date/time separator, at index 10
      if (typeof v === 'string' && TIMESTAMP_TEXT.test(v)) return withZ(v.charCodeAt(10) === 0x20 ? v.slice(0, 10) + 'T' + v.slice(11) : v);
      return undefined;
    case 'time':
      if (typeof v === 'string' && TIME_TEXT.test(v)) return withZ(v);
      return undefined;
    default:
      if (typeof v === 'string') return escapeSiardText(v);
      return undefined;
  }
}

/** Families whose scalarText of a string is the string itself or a form of it with no character to escape. */
const PLAIN_FAMILIES = new Set<SqlTypeFamily>(['integer', 'decimal', 'float', 'boolean', 'date', 'time', 'timestamp']);

/** A scalar cell's form given to the observer: a date, time or timestamp as the source's text, else `text` before escaping. */
function observeScalar(
  observer: RowObserver,
  i: number,
  v: SourceValue,
  text: string,
  plain: boolean,
  separatorAt: number | undefined,
): void {
  if (separatorAt !== undefined && typeof v === 'string') observer.zonedCell(i, v, separatorAt);
  else observer.cell(i, typeof v === 'string' ? (plain ? text : v) : unescaped(v, text));
}

/** The text a reader gets back from a scalar cell of a value that is not a string: scalarText's `text` before escaping. */
function unescaped(v: SourceValue, text: string): string {
  return typeof v === 'object' && isSiardText(v) ? v.text : text;
}

/** An ARRAY element (or a scalar in a UDT) as a reader gets it back: unescaped text, bytes as hex; undefined: it does not fit. */
export function elementText(item: SourceValue, family: SqlTypeFamily): string | undefined {
  if (item === null) return undefined;
  if (typeof item === 'object' && isSiardText(item)) return item.text;
  if (family === 'blob' || family === 'binary')
    return item instanceof Uint8Array ? Buffer.from(item.buffer, item.byteOffset, item.byteLength).toString('hex') : undefined;
  if (typeof item === 'string') return PLAIN_FAMILIES.has(family) ? scalarText(item, family) : item;
  return scalarText(item, family);
}

function describe(v: SourceValue): string {
  if (v instanceof Uint8Array) return 'binary';
  if (isSourceUdt(v)) return 'UDT';
  if (isSiardText(v)) return 'text';
  if (isSourceLob(v)) return v.encoding === 'binary' ? 'binary' : 'text';
  if (isSourceArray(v)) return 'array';
  return typeof v === 'string' ? 'text' : typeof v;
}

/** Below this magnitude two decimals are finer than a double's spacing, so a value has one two-decimal form at most. */
const CENTS_LIMIT = 2 ** 40;

/** xs:double lexical form; integral values keep a '.0' so a reader sees a real. */
export function xsDouble(v: number): string {
  // Values with at most two decimals (amounts, prices) without String(v)'s shortest-digits search,
  // a fifth of its cost: when c / 100 is exactly v, c / 100 is the shortest decimal String(v) gives.
  const a = v < 0 ? -v : v;
  if (a >= 0.01 && a < CENTS_LIMIT) {
    const c = Math.round(a * 100);
    if (c / 100 === a) {
      const whole = Math.floor(c / 100);
      const cents = c - whole * 100;
      const sign = v < 0 ? '-' : '';
      if (cents === 0) return sign + whole + '.0';
      return sign + whole + (cents % 10 === 0 ? '.' + cents / 10 : cents < 10 ? '.0' + cents : '.' + cents);
    }
  }
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'INF';
  if (v === -Infinity) return '-INF';
  if (Object.is(v, -0)) return '-0.0';
  const s = String(v);
  return s.includes('.') || s.includes('e') ? s : s + '.0';
}

/** A finite double as an xs:decimal without exponent, digits exactly those of its shortest form. */
export function plainDecimal(v: number): string {
  const s = String(v);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const [, sign, lead, frac = '', expText] = m;
  const digits = lead! + frac;
  const point = 1 + Number(expText); // position of the decimal point within digits
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
