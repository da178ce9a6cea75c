/**
 * One read of a table's XML: the bytes go to the windowed XSD validation (T_6.0-2) and to a
 * streaming parser that checks the shape (T_6.4-2 table / row / c1..cn, T_6.4-4 a1.. / u1..),
 * every inline value by its column's SQL type (T_6.0-1, T_6.3-1, T_6.3-2), escapes (G_3.3-3,
 * G_3.3-4), LOB cells' attributes (T_6.2-1, T_6.4-5), NOT NULL columns and primary keys without
 * NULLs (T_6.0-1), counts the rows (P_4.3-10) and hands key values to the key index.
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import type { SiardTableRef } from '../reader/siard-reader.js';
import type { KeyIndex, KeySpec } from './key-index.js';
import { columnRule, escapeProblem, keyForm, lexicalProblem, type ColumnRule } from './lexical.js';
import type { CheckReport } from './report.js';
import type { TableXsdWindows } from './xsd-validator.js';

/** deeper nesting than this is not a SIARD table (ARRAY of UDT of ... stays far below) */
const MAX_DEPTH = 40;

/** A tag as saxes gives it without namespace processing (whose lookup walks the open tags: quadratic in depth), with its local name. */
type Tag = SaxesTagPlain & { local: string };

function withLocal(tag: SaxesTagPlain): Tag {
  const i = tag.name.indexOf(':');
  return Object.assign(tag, { local: i < 0 ? tag.name : tag.name.slice(i + 1) });
}

export interface TablePassInput {
  table: SiardTableRef;
  stream: Readable;
  windows?: TableXsdWindows;
  keys: KeySpec[];
  index?: KeyIndex;
  report: CheckReport;
  /** rows whose keys are in the index already (the fast pass accepted them before it gave up) */
  indexedRows?: number;
}

const LOB_FAMILIES = new Set(['clob', 'blob', 'xml', 'datalink']);

class TableParser {
  rows = 0;
  /** an element with a file attribute was seen (or the read stopped early): the table's LOB cells need their files checked */
  hasFiles = false;
  private depth = 0;
  private cell = -1;
  private lastCell = 0;
  private text = '';
  private values: Array<string | null> = [];
  private complex = false;
  private lobFile = false;
  private stopped = false;
  readonly rules: ColumnRule[];
  private readonly name: string;
  private readonly entry: string;
  private readonly notNull: number[];

  constructor(private readonly input: TablePassInput) {
    const t = input.table;
    this.rules = t.table.columns.map((c) => columnRule(c.type ?? c.baseType));
    this.name = `${t.schema.name}.${t.table.name}`;
    this.entry = t.xmlEntry;
    this.notNull = t.table.columns.flatMap((c, i) => (c.nullable === false ? [i] : []));
  }

  get done(): boolean {
    return this.stopped;
  }

  private fail(id: string, message: string, column?: number): void {
    const col = column !== undefined ? this.input.table.table.columns[column]?.name : undefined;
    this.input.report.fail(id, message, {
      entry: this.entry,
      table: this.name,
      ...(this.rows > 0 || this.depth >= 2 ? { row: this.rows + (this.depth >= 2 ? 1 : 0) } : {}),
      ...(col !== undefined ? { column: col } : {}),
    });
  }

  stop(id: string, message: string): void {
    this.fail(id, message);
    this.stopped = true;
    this.hasFiles = true;
  }

  open(tag: Tag): void {
    this.depth++;
    if (tag.attributes.file !== undefined) this.hasFiles = true;
    const name = tag.local;
    if (this.depth > MAX_DEPTH)
      return this.stop(
        'T_6.4-2',
        `Elements are nested deeper than ${MAX_DEPTH} levels: this is not SIARD table data; the rest of the table was not read.`,
      );
    if (this.depth === 1) {
      if (name !== 'table') this.fail('T_6.4-2', `The root element is ${tag.name}, not table.`);
    } else if (this.depth === 2) {
      if (name !== 'row') this.fail('T_6.4-2', `The table holds an element ${tag.name} where only row is allowed.`);
      this.values = new Array<string | null>(this.rules.length).fill(null);
      this.lastCell = 0;
    } else if (this.depth === 3) this.openCell(tag);
    else if (this.depth === 4) {
      this.complex = true;
      if (!/^[au]\d+$/.test(name))
        this.fail(
          'T_6.4-4',
          `Cell ${tag.name}... holds an element ${tag.name}; ARRAY and UDT values are a1, a2, ... or u1, u2, ...`,
          this.cell,
        );
    }
  }

  private openCell(tag: Tag): void {
    const m = /^c([1-9]\d*)$/.exec(tag.local);
    this.text = '';
    this.complex = false;
    const file = tag.attributes.file;
    this.lobFile = file !== undefined;
    if (!m) {
      this.cell = -1;
      return this.fail('T_6.4-2', `A row holds an element ${tag.name}; cells are c1, c2, ...`);
    }
    const n = Number(m[1]);
    if (n > this.rules.length) this.fail('T_6.4-2', `A row holds ${tag.name}, but the table has ${this.rules.length} columns.`);
    else if (n <= this.lastCell)
      this.fail('T_6.4-2', `Cell ${tag.name} comes after c${this.lastCell}: cells must be in column order, each once.`);
    this.lastCell = Math.max(this.lastCell, n);
    this.cell = n <= this.rules.length ? n - 1 : -1;
    if (this.lobFile && this.cell >= 0) this.checkLobAttributes(tag);
  }

  private checkLobAttributes(tag: Tag): void {
    const a = tag.attributes;
    const get = (k: string): string | undefined => a[k];
    const family = this.rules[this.cell]!.family;
    this.input.report.applies('T_6.2-1', 'T_6.4-5');
    if (family !== undefined && !LOB_FAMILIES.has(family) && family !== 'char' && family !== 'binary') {
      this.fail('T_6.2-1', `Cell ${tag.name} refers to a file, but its column is not of a large object type.`, this.cell);
    }
    if (get('length') === undefined)
      this.fail('T_6.2-1', `LOB cell ${tag.name} names file "${get('file')}" without its length attribute.`, this.cell);
    if (get('digest') === undefined)
      this.fail('T_6.4-5', `LOB cell ${tag.name} names file "${get('file')}" without a digest attribute.`, this.cell);
  }

  addText(t: string): void {
    if (this.depth === 3 && this.cell >= 0) this.text += t;
  }

  close(): void {
    if (this.depth === 3 && this.cell >= 0) this.closeCell();
    else if (this.depth === 2) this.closeRow();
    this.depth--;
  }

  private closeCell(): void {
    const v = this.text;
    this.values[this.cell] = this.complex ? '' : v;
    if (this.complex || this.lobFile) return;
    const rule = this.rules[this.cell]!;
    const esc = rule.family === 'char' || rule.family === 'clob' || rule.family === 'xml' ? escapeProblem(v) : undefined;
    if (esc) this.fail(esc.id, `The value ${esc.message}.`, this.cell);
    const p = lexicalProblem(rule, v);
    if (p) this.fail(p.id, `The value "${v.length > 60 ? `${v.slice(0, 60)}...` : v}" ${p.message}.`, this.cell);
  }

  private closeRow(): void {
    for (const i of this.notNull)
      if (this.values[i] === null)
        this.fail('T_6.0-1', `Column ${this.input.table.table.columns[i]!.name} is NOT NULL but the cell is missing (NULL).`, i);
    for (const k of this.input.keys) {
      const vals = k.indexes.map((i) => this.values[i] ?? null);
      if (vals.some((v) => v === null)) {
        if (k.kind === 'primary') this.fail('T_6.0-1', `Primary key ${k.name} (${k.columns.join(', ')}) has a NULL value.`);
        continue;
      }
      if (this.rows < (this.input.indexedRows ?? 0)) continue;
      this.input.index?.add(
        k,
        this.rows + 1,
        vals.map((v, j) => keyForm(this.rules[k.indexes[j]!]!, v!)),
      );
    }
    this.rows++;
  }
}

/** Reads the table once; resolves with the number of rows read and whether any cell names a file. */
export async function tablePass(input: TablePassInput): Promise<{ rows: number; hasFiles: boolean }> {
  const parser = new TableParser(input);
  const sax = new SaxesParser({ xmlns: false, position: false });
  sax.on('opentag', (tag) => parser.open(withLocal(tag)));
  sax.on('closetag', () => parser.close());
  sax.on('text', (t) => parser.addText(t));
  sax.on('cdata', (t) => parser.addText(t));
  let broken: string | undefined;
  sax.on('error', (err) => {
    broken ??= err.message;
  });
  const decoder = new StringDecoder('utf8');
  try {
    for await (const chunk of input.stream as AsyncIterable<Buffer>) {
      input.windows?.push(chunk);
      if (broken === undefined && !parser.done) sax.write(decoder.write(chunk));
      if (broken !== undefined || parser.done) {
        if (!input.windows) break;
      }
    }
    if (broken === undefined && !parser.done) sax.write(decoder.end()).close();
  } catch (err) {
    broken ??= (err as Error).message;
  } finally {
    input.stream.destroy();
  }
  if (broken !== undefined) {
    const where = { entry: input.table.xmlEntry, table: `${input.table.schema.name}.${input.table.table.name}` };
    input.report.fail('T_6.0-2', `The table XML cannot be read: ${broken}`, where);
    input.report.fail('G_3.1-1', `${input.table.xmlEntry} is not well-formed XML 1.0: ${broken}`, where);
  }
  return { rows: parser.rows, hasFiles: parser.hasFiles || broken !== undefined };
}
