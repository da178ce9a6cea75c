/**
 * PostgreSQL as a SIARD source (`pg`, `pg-copy-streams`).
 *
 * Consistency: one REPEATABLE READ, READ ONLY transaction holds the catalogue and the rows' COPY;
 * its snapshot is exported and a second connection (for LOB slices) imports it, so both see the
 * same data even while the database is being written.
 *
 * Memory stays flat whatever the size of a table or a value:
 * - rows come through `COPY (SELECT ...) TO STDOUT` (copy-out.ts), `fetchRows` at a time (fewer
 *   when the table has LOB columns), the socket paused while the writer is behind;
 * - a bytea / text / xml value up to `inlineThreshold` bytes comes with its row; a larger one comes
 *   as a SourceLob whose stream reads `sliceBytes` at a time with substring()/substr() on the
 *   second connection, locating the row by (tableoid, ctid) inside the same snapshot;
 * - a large object (column of type oid or lo) is sized with lo_lseek64 and read with
 *   lo_get(oid, offset, length) slices.
 * So a 1 GiB value never sits whole in this process. (PostgreSQL itself reads slices of an
 * uncompressed TOAST value directly; a compressed one is decompressed up to the slice each time.)
 */
import pg from 'pg';
import { SiardOcflError } from '../../errors.js';
import type {
  BatchOptions,
  CellTextKind,
  DatabaseSource,
  KeyedBatch,
  RowsAfter,
  SourceArrayValue,
  SourceCatalog,
  SourceLob,
  SourceTable,
  SourceValue,
} from '../../siard/database-source.js';
import { connectPostgres, describePostgresUrl } from './connection.js';
import {
  introspect,
  measureArrays,
  qualifiedName,
  type IntrospectOptions,
  type PgCheckConstraint,
  type PgColumnPlan,
  rowKeyOf,
  findNullFreeKey,
  type PgTablePlan,
} from './introspect.js';
import { scanSpecialValues } from './value-scan.js';
import { isStreamedKind, type PgValueKind } from './type-mapping.js';
import { convertScalar, decodeByteaHex, parseArrayLiteral, ValueConversionError } from './values.js';
import { quoteIdent } from '../sql-identifier.js';
import { sourceTableOf } from '../catalog-table.js';
import { readAhead } from '../read-ahead.js';
import { keyTexts, noKeyNow, RowKey } from '../row-key.js';
import { CopyOutRows, unescapeCopyField, type CopyTextRows } from './copy-out.js';

/** SourceTable with its check constraints always present. */
export interface PgSourceTable extends SourceTable {
  checkConstraints: PgCheckConstraint[];
}

export interface PostgresSourceOptions extends IntrospectOptions {
  /** values up to this many bytes come with their row (default 256 KiB) */
  inlineThreshold?: number;
  /** bytes per slice when streaming a large value (default 1 MiB) */
  sliceBytes?: number;
  /** most rows per batch (default 1000) */
  fetchRows?: number;
}

/** Values of every type come as PostgreSQL's text output, untouched (bytea as hex).  */
const RAW_TYPES = { getTypeParser: () => (value: string | Buffer) => value } as unknown as pg.CustomTypesConfig;

interface TableRuntime {
  plan: PgTablePlan;
  table: PgSourceTable;
}

export class PostgresSource implements DatabaseSource {
  readonly description: string;
  private catalogCache: SourceCatalog | undefined;
  private readonly tables = new Map<string, TableRuntime>();
  private readonly inlineThreshold: number;
  private readonly sliceBytes: number;
  private readonly fetchRows: number;
  private serverUtf8 = true;

  private constructor(
    private readonly url: string,
    private readonly main: pg.Client,
    private readonly lobs: pg.Client,
    private readonly options: PostgresSourceOptions,
  ) {
    this.description = describePostgresUrl(url);
    this.inlineThreshold = options.inlineThreshold ?? 256 * 1024;
    this.sliceBytes = options.sliceBytes ?? 1024 * 1024;
    this.fetchRows = options.fetchRows ?? 1000;
  }

  /** Connects twice (rows, LOB slices) and opens the shared snapshot; a bad URL or login is exit 2. */
  static async open(url: string, options: PostgresSourceOptions = {}): Promise<PostgresSource> {
    const main = await connectPostgres(url);
    let lobs: pg.Client | undefined;
    try {
      await main.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const snapshot = (await main.query<{ s: string }>('SELECT pg_export_snapshot() AS s')).rows[0]!.s;
      lobs = await connectPostgres(url);
      await lobs.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await lobs.query(`SET TRANSACTION SNAPSHOT '${snapshot.replace(/'/g, "''")}'`);
      const source = new PostgresSource(url, main, lobs, options);
      // (SHOW names its column server_encoding: read as `e`, every server was taken for one not in UTF-8)
      const encoding = await main.query<{ e: string }>("SELECT current_setting('server_encoding') AS e");
      source.serverUtf8 = encoding.rows[0]?.e?.toUpperCase() === 'UTF8';
      return source;
    } catch (err) {
      await main.end().catch(() => {});
      await lobs?.end().catch(() => {});
      if (err instanceof SiardOcflError) throw err;
      throw new SiardOcflError(`Cannot start reading PostgreSQL at ${describePostgresUrl(url)}: ${(err as Error).message}.`, {
        cause: err,
      });
    }
  }

  async catalog(): Promise<SourceCatalog> {
    if (this.catalogCache) return this.catalogCache;
    const plans = await introspect(this.main, this.options);
    // SHOW names its column after the setting; current_setting() lets us name it
    const version = (await this.main.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
    const user = (await this.main.query<{ u: string }>('SELECT current_user AS u')).rows[0]!.u;
    const catalog: SourceCatalog = {
      databaseProduct: `PostgreSQL ${version}`,
      connection: redactUrl(this.url),
      databaseUser: user,
      schemas: [],
      widened: [],
    };
    for (const schema of plans) {
      const tables: PgSourceTable[] = [];
      for (const plan of schema.tables) {
        await findNullFreeKey(this.main, plan);
        await measureArrays(this.main, plan);
        catalog.widened!.push(...(await scanSpecialValues(this.main, plan)));
        for (const ix of plan.otherIndexes) (catalog.notExported ??= []).push(`index ${ix} on ${schema.name}.${plan.name}`);
        const table = sourceTableOf(plan);
        tables.push(table);
        this.tables.set(`${schema.name}\u0000${plan.name}`, { plan, table });
      }
      const s: SourceCatalog['schemas'][number] = { name: schema.name, tables, views: schema.views };
      if (schema.types && schema.types.length > 0) s.types = schema.types;
      if (schema.description) s.description = schema.description;
      catalog.schemas.push(s);
    }
    this.catalogCache = catalog;
    return catalog;
  }

  async *rows(schema: string, table: string): AsyncIterable<SourceValue[]> {
    for await (const batch of this.rowBatches(schema, table)) yield* batch;
  }

  /** The first and last row key (rowKeyOf) in the snapshot (two index lookups, on the LOB connection: the main one may be in a COPY). */
  async keyRange(schema: string, table: string): Promise<string | undefined> {
    if (!this.catalogCache) await this.catalog();
    const plan = this.tables.get(`${schema}\u0000${table}`)?.plan;
    const key = plan && rowKeyOf(plan);
    if (!plan || !key) return undefined;
    // ordered by the columns (r.k), not by the output columns of the same names, which are text
    const cols = key.map((k) => `r.${quoteIdent(k)}::text`).join(', ');
    const from = `${qualifiedName(plan.schema, plan.name)} AS r`;
    const end = async (dir: string) => {
      const order = key.map((k) => `r.${quoteIdent(k)} ${dir}`).join(', ');
      return (await this.lobs.query({ text: `SELECT ${cols} FROM ${from} ORDER BY ${order} LIMIT 1`, rowMode: 'array' })).rows[0] ?? null;
    };
    return JSON.stringify([await end('ASC'), await end('DESC')]);
  }

  /**
   * Rows as the COPY brings them (up to fetchRows at a time), the next batch read while the
   * writer formats these; only LOB cells are awaited.
   */
  rowBatches(schema: string, table: string, after?: RowsAfter, how?: BatchOptions): AsyncIterable<KeyedBatch> {
    return readAhead(this.readBatches(schema, table, after, how));
  }

  private async *readBatches(schema: string, table: string, after?: RowsAfter, how?: BatchOptions): AsyncIterable<KeyedBatch> {
    if (!this.catalogCache) await this.catalog();
    const runtime = this.tables.get(`${schema}\u0000${table}`);
    if (!runtime) throw new Error(`Table "${schema}"."${table}" is not in the exported catalogue.`);
    const { plan } = runtime;
    const select: string[] = [];
    const readers: Array<(raw: unknown[], at: number, row: number, locator: Locator) => SourceValue | Promise<SourceValue>> = [];
    let streamed = 0;
    // each streamed column's test for a value that may be too large to come inline (read in slices by its row's locator)
    const mayBeLarge: string[] = [];
    for (const col of plan.columns) {
      const id = quoteIdent(col.name);
      const kind = col.mapped.kind;
      if (col.mapped.array) {
        select.push(id);
        readers.push((raw, i, row) => this.arrayValue(plan, col, raw[i] as string | null, row));
      } else if (kind === 'largeObject') {
        select.push(id);
        streamed++;
        readers.push(async (raw, i, row) => (raw[i] === null ? null : this.largeObject(plan, col, String(raw[i]), row)));
      } else if (isStreamedKind(kind)) {
        const fields = this.streamedFields(kind, id);
        select.push(fields.inline, fields.size);
        mayBeLarge.push(fields.mayBeLarge);
        streamed++;
        // synchronous: a value is its text or a LOB to open later, so a row's cells need no await
        readers.push((raw, i, row, locator) =>
          this.streamedValue(plan, col, raw[i] as string | null, raw[i + 1] as string | null, row, locator),
        );
      } else {
        select.push(kind === 'timetz' ? `(${id} AT TIME ZONE 'UTC')` : id);
        readers.push((raw, i, row) => this.scalarValue(plan, col, raw[i] as string | null, row));
      }
    }
    const columnStart = columnStarts(plan);
    // where a row is (for reading its large values in slices), selected only for a row that may have
    // one (issue 39): for the bench's 1M narrow rows through psql, on a UTF-8 server's form of the
    // query, the server's CPU 0.72-0.77 -> 0.55-0.57 s, and 12 % less COPY text to parse here
    const locatorAt = mayBeLarge.length > 0 ? select.length : -1;
    if (locatorAt >= 0) {
      const any = mayBeLarge.join(' OR ');
      select.push(`CASE WHEN ${any} THEN tableoid::int8 END`, `CASE WHEN ${any} THEN ctid::text END`);
    }
    const keyed = keyedRead(plan, select, columnStart, after);
    const sql = `SELECT ${select.join(', ')} FROM ${qualifiedName(plan.schema, plan.name)} AS r${keyed.where}${keyed.orderBy}`;
    // Bound the rows held at once: each LOB column may bring up to inlineThreshold bytes per row.
    const batch = Math.max(1, Math.min(this.fetchRows, Math.floor((32 * 1024 * 1024) / Math.max(1, streamed * this.inlineThreshold))));
    const copy = new CopyOutRows(this.main, sql, () => this.cancelMain());
    let rowNumber = after?.rows ?? 0;
    const kinds = how?.texts ? plan.columns.map(textKindOf) : [];
    try {
      if (kinds.some((k) => k !== undefined)) {
        const read = { plan, copy, batch, fields: select.length, readers, columnStart, locatorAt, keyed, kinds };
        yield* this.textBatches(read, rowNumber);
        return;
      }
      for (;;) {
        const rows = await copy.read(batch);
        if (rows.length === 0) break;
        const fetched: KeyedBatch = new Array(rows.length);
        if (keyed.texts) fetched.rowKeys = new Array(rows.length);
        for (let r = 0; r < rows.length; r++) {
          const raw = rows[r]!;
          rowNumber++;
          if (keyed.texts) fetched.rowKeys![r] = new RowKey(raw, keyed.texts);
          const locator = locatorOf(raw, locatorAt);
          const out: SourceValue[] = new Array(plan.columns.length);
          for (let c = 0; c < plan.columns.length; c++) {
            const value = readers[c]!(raw, columnStart[c]!, rowNumber, locator);
            out[c] = value instanceof Promise ? await value : value;
          }
          fetched[r] = out;
        }
        yield fetched;
      }
    } finally {
      await copy.close().catch(() => {});
    }
  }

  /**
   * The rows as CellTexts (database-source.ts) for the columns of `kinds`, the others' values read
   * as readBatches reads them; a text's value (CellTexts.value) is read the same way, from its row's
   * fields decoded then.
   */
  private async *textBatches(read: TextRead, rowNumber: number): AsyncIterable<KeyedBatch> {
    const { plan, copy, fields, readers, columnStart, locatorAt, keyed, kinds } = read;
    const n = plan.columns.length;
    // streamed columns with texts: NULL inline field and a size: a value read in slices
    const streamedTexts = plan.columns.flatMap((col, c) => (kinds[c] !== undefined && isStreamedKind(col.mapped.kind) ? [c] : []));
    const allTexts = kinds.every((k) => k !== undefined);
    // every row of a batch of texts only: one array (table-data.ts copies one before it puts a value in it)
    const noValues: SourceValue[] = new Array(n);
    for (;;) {
      const got = await copy.readTexts(read.batch, fields);
      if (got.count === 0) break;
      const first = rowNumber + 1;
      let decoded = -1;
      let raw: Array<string | null> = [];
      const rawOf = (r: number) => {
        if (decoded !== r) {
          raw = Array.from({ length: fields }, (_, f) => fieldText(got, r, f, fields));
          decoded = r;
        }
        return raw;
      };
      const valueOf = (r: number, c: number): SourceValue => {
        const row = rawOf(r);
        return readers[c]!(row, columnStart[c]!, first + r, locatorOf(row, locatorAt)) as SourceValue;
      };
      const fetched: KeyedBatch = new Array(got.count);
      fetched.texts = { kinds, bytes: got.bytes, bounds: got.bounds, stride: fields, field: columnStart, value: valueOf };
      if (keyed.at) fetched.rowKeys = new Array(got.count);
      for (let r = 0; r < got.count; r++) {
        rowNumber++;
        if (keyed.at) fetched.rowKeys![r] = new CopyRowKey(got, r, keyed.at, fields);
        for (const c of streamedTexts) {
          const at = 2 * (r * fields + columnStart[c]!);
          if (got.bounds[at] === -1 && got.bounds[at + 2] !== -1) got.bounds[at] = -2;
        }
        if (allTexts) {
          fetched[r] = noValues;
          continue;
        }
        const out: SourceValue[] = new Array(n);
        for (let c = 0; c < n; c++) {
          if (kinds[c] !== undefined) continue;
          const row = rawOf(r);
          const value = readers[c]!(row, columnStart[c]!, rowNumber, locatorOf(row, locatorAt));
          out[c] = value instanceof Promise ? await value : value;
        }
        fetched[r] = out;
      }
      yield fetched;
    }
  }

  /**
   * A streamed column's two fields: the value when it comes inline, else its size (a LOB read in
   * slices; both NULL: NULL), and the test of a value that may be too large to come inline.
   */
  private streamedFields(kind: PgValueKind, id: string): { inline: string; size: string; mayBeLarge: string } {
    const expr = kind === 'blob' ? id : `${id}::text`;
    const exact = kind === 'blob' || this.serverUtf8;
    const size = exact ? `octet_length(${expr})` : `octet_length(convert_to(${expr}, 'UTF8'))`;
    const limit = this.inlineThreshold;
    return {
      inline: `CASE WHEN ${size} <= ${limit} THEN ${expr} END`,
      size: `CASE WHEN ${size} > ${limit} THEN ${size}::int8 END`,
      // Outside UTF-8 the size needs a converted copy of the value (which also refuses bytes that are
      // not UTF-8); the locator's test takes a bound: a character is at most 4 bytes in UTF-8 and at
      // least one in the server's encoding.
      mayBeLarge: exact ? `${size} > ${limit}` : `octet_length(${expr}) > ${limit >> 2}`,
    };
  }

  private fail(plan: PgTablePlan, col: PgColumnPlan, row: number, reason: string): never {
    throw new SiardOcflError(
      `Table "${plan.schema}"."${plan.name}", row ${row}, column "${col.name}": ${reason}; export stopped so no value is changed.`,
      { code: 'VALUE_DOES_NOT_FIT' },
    );
  }

  private convert(
    plan: PgTablePlan,
    col: PgColumnPlan,
    kind: PgValueKind,
    text: string,
    row: number,
  ): string | number | boolean | Uint8Array {
    try {
      if (kind === 'boolean') return text === 't';
      // A float's shortest exact text has at most 17 digits, so the double it parses to prints the
      // same digits again (float4 values included): numbers are lossless here.
      if (kind === 'float') return Number(text === 'Infinity' ? Infinity : text === '-Infinity' ? -Infinity : text);
      return convertScalar(kind, text);
    } catch (err) {
      if (err instanceof ValueConversionError) this.fail(plan, col, row, err.message);
      throw err;
    }
  }

  private scalarValue(plan: PgTablePlan, col: PgColumnPlan, text: string | null, row: number): SourceValue {
    return text === null ? null : this.convert(plan, col, col.mapped.kind, text, row);
  }

  private arrayValue(plan: PgTablePlan, col: PgColumnPlan, text: string | null, row: number): SourceValue {
    if (text === null) return null;
    let items: Array<string | null>;
    try {
      items = parseArrayLiteral(text);
    } catch (err) {
      if (err instanceof ValueConversionError) this.fail(plan, col, row, err.message);
      throw err;
    }
    const kind = col.mapped.kind === 'timetz' ? 'timetz' : col.mapped.kind;
    if (kind === 'timetz') this.fail(plan, col, row, 'arrays of time with time zone are not supported');
    if (kind === 'largeObject') this.fail(plan, col, row, 'arrays of large object references are not supported');
    if (items.length > 0 && items[items.length - 1] === null) {
      // a1, a2 ... with a missing last element reads back as a shorter array
      this.fail(plan, col, row, 'the array ends with NULL elements, which SIARD cannot tell apart from a shorter array');
    }
    const value: SourceArrayValue = {
      kind: 'array',
      elements: items.map((item) => (item === null ? null : this.convert(plan, col, kind, item, row))),
    };
    return value;
  }

  private streamedValue(
    plan: PgTablePlan,
    col: PgColumnPlan,
    inline: string | null,
    size: string | null,
    row: number,
    locator: Locator,
  ): SourceValue {
    const kind = col.mapped.kind;
    if (inline !== null) return kind === 'blob' ? decodeByteaHex(inline) : inline;
    if (size === null) return null;
    const byteLength = Number(size);
    const self = this;
    const where = `tableoid = $1::oid AND ctid = $2::tid`;
    const from = qualifiedName(plan.schema, plan.name);
    const id = quoteIdent(col.name);
    const lob: SourceLob = {
      kind: 'lob',
      byteLength,
      encoding: kind === 'blob' ? 'binary' : 'text',
      open: () =>
        kind === 'blob'
          ? self.byteSlices(
              byteLength,
              (offset, length) => ({
                text: `SELECT substring(${id} FROM $3::int4 FOR $4::int4) FROM ${from} WHERE ${where}`,
                values: [locator.tableoid, locator.ctid, offset + 1, length],
              }),
              plan,
              col,
              row,
            )
          : self.textSlices(`${id}::text`, from, where, locator, byteLength, plan, col, row),
    };
    return lob;
  }

  /** bytea slices [offset, offset + length) as raw bytes. */
  private async *byteSlices(
    total: number,
    query: (offset: number, length: number) => { text: string; values: unknown[] },
    plan: PgTablePlan,
    col: PgColumnPlan,
    row: number,
  ): AsyncIterable<Uint8Array> {
    let offset = 0;
    while (offset < total) {
      const length = Math.min(this.sliceBytes, total - offset);
      // Text (hex) result: pg decodes binary-format fields of a single query as UTF-8 strings.
      const config = { ...query(offset, length), rowMode: 'array', types: RAW_TYPES } as pg.QueryArrayConfig;
      const res = await this.lobs.query(config);
      const hex = (res.rows[0] as unknown[] | undefined)?.[0] as string | null | undefined;
      const chunk = typeof hex === 'string' ? decodeByteaHex(hex) : undefined;
      if (!chunk || chunk.length === 0) this.fail(plan, col, row, `the value ended at byte ${offset} of ${total} while it was read`);
      offset += chunk.length;
      yield chunk;
    }
  }

  /** text slices by characters (substr), each encoded to UTF-8; the byte total is checked. */
  private async *textSlices(
    expr: string,
    from: string,
    where: string,
    locator: Locator,
    byteLength: number,
    plan: PgTablePlan,
    col: PgColumnPlan,
    row: number,
  ): AsyncIterable<Uint8Array> {
    // Characters per slice: at most sliceBytes bytes even if every character takes 4.
    const chars = Math.max(1, Math.floor(this.sliceBytes / 4));
    let position = 1;
    let bytes = 0;
    for (;;) {
      const res = await this.lobs.query({
        text: `SELECT substr(${expr}, $3::int4, $4::int4) FROM ${from} WHERE ${where}`,
        values: [locator.tableoid, locator.ctid, position, chars],
        rowMode: 'array',
        types: RAW_TYPES,
      });
      const text = (res.rows[0] as unknown[] | undefined)?.[0] as string | null | undefined;
      if (text === undefined || text === null) this.fail(plan, col, row, 'the row disappeared while its text was read');
      if (text.length === 0) break;
      const chunk = Buffer.from(text, 'utf8');
      bytes += chunk.length;
      position += [...text].length;
      yield chunk;
      if (bytes >= byteLength) break;
    }
    if (bytes !== byteLength) this.fail(plan, col, row, `the text read back has ${bytes} bytes, not ${byteLength}`);
  }

  private async largeObject(plan: PgTablePlan, col: PgColumnPlan, oid: string, row: number): Promise<SourceValue> {
    let size: number;
    try {
      const res = await this.lobs.query<{ size: string }>(
        `SELECT size, lo_close(fd) FROM (SELECT fd, lo_lseek64(fd, 0, 2) AS size FROM (SELECT lo_open($1::oid, 262144) AS fd ` +
          `OFFSET 0) a OFFSET 0) b`,
        [oid],
      );
      size = Number(res.rows[0]!.size);
    } catch (err) {
      this.fail(plan, col, row, `large object ${oid} cannot be read (${(err as Error).message})`);
    }
    const self = this;
    const lob: SourceLob = {
      kind: 'lob',
      byteLength: size,
      encoding: 'binary',
      open: () =>
        self.byteSlices(
          size,
          (offset, length) => ({ text: 'SELECT lo_get($1::oid, $2::int8, $3::int4)', values: [oid, offset, length] }),
          plan,
          col,
          row,
        ),
    };
    return lob;
  }

  /** Cancels the statement the main connection runs (a COPY whose rows are not read to the end): through the LOB connection. */
  private async cancelMain(): Promise<void> {
    const pid = (this.main as unknown as { processID: number | null }).processID;
    if (pid !== null) await this.lobs.query('SELECT pg_cancel_backend($1)', [pid]);
  }

  async close(): Promise<void> {
    await this.lobs.query('COMMIT').catch(() => {});
    await this.main.query('COMMIT').catch(() => {});
    await this.lobs.end().catch(() => {});
    await this.main.end().catch(() => {});
  }
}

/** What textBatches reads with. */
interface TextRead {
  plan: PgTablePlan;
  copy: CopyOutRows;
  batch: number;
  fields: number;
  readers: Array<(raw: unknown[], at: number, row: number, locator: Locator) => SourceValue | Promise<SourceValue>>;
  columnStart: number[];
  locatorAt: number;
  keyed: { at?: number[] };
  kinds: Array<CellTextKind | undefined>;
}

/** How a column's cells come as texts (CellTexts), its value being the text as convertScalar gives it; undefined: as values. */
function textKindOf(col: PgColumnPlan): CellTextKind | undefined {
  if (col.mapped.array) return undefined;
  switch (col.mapped.kind) {
    case 'integer':
    case 'decimal':
    case 'text':
    case 'clob':
      return 'string';
    case 'float':
      return 'double';
    case 'date':
    case 'time':
    case 'timestamp':
      return 'utc';
    default:
      return undefined;
  }
}

/** A row's key (row-key.ts's text) in a batch of texts, its text made only when asked (at a cut). */
class CopyRowKey {
  constructor(
    private readonly rows: CopyTextRows,
    private readonly r: number,
    private readonly at: readonly number[],
    private readonly fields: number,
  ) {}

  toString(): string {
    return JSON.stringify(this.at.map((a) => fieldText(this.rows, this.r, a, this.fields)));
  }
}

/** Where a row is, from its locator's fields at `at` (-1: none selected). */
function locatorOf(row: readonly unknown[], at: number): Locator {
  const tableoid = at < 0 ? null : row[at];
  return tableoid === null || tableoid === undefined ? NO_LOCATOR : { tableoid: String(tableoid), ctid: String(row[at + 1]) };
}

/** Field f of row r as COPY's text of it (its back-slash pairs undone), null for NULL. */
function fieldText(rows: CopyTextRows, r: number, f: number, fields: number): string | null {
  const at = 2 * (r * fields + f);
  const start = rows.bounds[at]!;
  // -1 NULL; -2 an inline field that was NULL (textBatches: a value read in slices)
  if (start < 0) return null;
  const text = rows.bytes[r]!.toString('utf8', start, rows.bounds[at + 1]!);
  return text.includes('\\') ? unescapeCopyField(text) : text;
}

/** The locator of rows of a table without a value read in slices: never used. */
const NO_LOCATOR: Locator = { tableoid: '', ctid: '' };

/** Whether a column's select item is the column itself, so its cell is the server's text of the value. */
/** Where each column's fields start in a row of the table's select (a streamed column takes two). */
function columnStarts(plan: PgTablePlan): number[] {
  const starts: number[] = [];
  let i = 0;
  for (const col of plan.columns) {
    starts.push(i);
    i += isStreamedKind(col.mapped.kind) && col.mapped.kind !== 'largeObject' && !col.mapped.array ? 2 : 1;
  }
  return starts;
}

function selectedAsIs(col: PgColumnPlan): boolean {
  return !col.mapped.array && !isStreamedKind(col.mapped.kind) && col.mapped.kind !== 'timetz';
}

/**
 * How a table is read in key order (rowKeyOf: every run reads it so, the uninterrupted one too, or
 * a resumed one would write other bytes), after `after` when a resumed export goes on
 * (docs/resume.md), and where each row's key texts are: the column's own cell when selected as it
 * is, else its text added to `select`. A table without a key: its stored order, no keys.
 */
function keyedRead(
  plan: PgTablePlan,
  select: string[],
  columnStart: readonly number[],
  after: RowsAfter | undefined,
): { orderBy: string; where: string; texts?: (row: readonly unknown[]) => string[]; at?: number[] } {
  const key = rowKeyOf(plan);
  if (!key) {
    if (after) throw noKeyNow(after.key, `${plan.schema}.${plan.name}`);
    return { orderBy: '', where: '' };
  }
  // qualified (r.k): never an output column of the same name
  const cols = key.map((k) => `r.${quoteIdent(k)}`);
  const at = key.map((k, i) => {
    const c = plan.columns.findIndex((col) => col.name === k);
    if (c >= 0 && selectedAsIs(plan.columns[c]!)) return columnStart[c]!;
    select.push(`${cols[i]}::text AS ${quoteIdent(`siard-ocfl key ${i}`)}`);
    return select.length - 1;
  });
  // the texts are given as untyped literals (a COPY takes no parameters): the server reads each as
  // its column's type, as it would an untyped parameter, and compares rows in the ORDER BY's order
  const texts = after ? keyTexts(after.key, key, `${plan.schema}.${plan.name}`) : [];
  return {
    orderBy: ` ORDER BY ${cols.join(', ')}`,
    where: after ? ` WHERE (${cols.join(', ')}) > (${texts.map(untypedLiteral).join(', ')})` : '',
    texts: (row) => at.map((a) => row[a] as string),
    at,
  };
}

/** `text` as an untyped string literal: E'...' with its back-slashes and quotes doubled, whatever standard_conforming_strings says. */
function untypedLiteral(text: string): string {
  return `E'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

interface Locator {
  tableoid: string;
  ctid: string;
}

/** The URL without its password, for `<connection>` in metadata.xml. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return 'postgres://';
  }
}
