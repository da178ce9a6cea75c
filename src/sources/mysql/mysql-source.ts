/**
 * MariaDB / MySQL as a SIARD source (the `mariadb` connector).
 *
 * Consistency: one REPEATABLE READ, READ ONLY transaction started WITH CONSISTENT SNAPSHOT holds
 * every read, catalogue scans, rows and LOB slices alike, on one connection; InnoDB tables are read
 * as of that instant even while the database is being written.
 *
 * Memory stays flat whatever the size of a table or a value:
 * - a table with a primary key (or a unique key over NOT NULL columns) is read in pages ordered by
 *   that key (`WHERE key > last ORDER BY key LIMIT n`), `fetchRows` rows at a time (fewer when it
 *   has LOB columns);
 * - a TEXT / BLOB / geometry value up to `inlineThreshold` bytes comes with its row; a larger one
 *   comes as a SourceLob whose stream reads `sliceBytes` at a time with SUBSTRING() between pages,
 *   locating the row by its key inside the same snapshot;
 * - a table without such a key is read by one streamed query (the connector pauses the socket when
 *   the writer is behind); its values come whole with their row, so a single value is bounded by
 *   the server's max_allowed_packet instead.
 */
import type * as mariadb from 'mariadb';
import { SiardOcflError } from '../../errors.js';
import type {
  DatabaseSource,
  KeyedBatch,
  RowsAfter,
  SourceCatalog,
  SourceLob,
  SourceTable,
  SourceValue,
  WidenedColumn,
} from '../../siard/database-source.js';
import { connectMysql, describeMysqlUrl, parseMysqlUrl, qualifiedMysqlName, redactMysqlUrl } from './connection.js';
import { introspectMysql, type MysqlColumnPlan, type MysqlTablePlan } from './introspect.js';
import { isBinaryMysqlKind, isStreamedMysqlKind, shortestFloat, timeToDuration } from './type-mapping.js';
import { quoteMysqlIdent } from '../sql-identifier.js';
import { sourceTableOf } from '../catalog-table.js';
import { readAhead } from '../read-ahead.js';
import { keyTexts, noKeyNow, RowKey } from '../row-key.js';

export interface MysqlSourceOptions {
  /** only tables whose name passes (views are kept) */
  tableFilter?: (name: string, schema: string) => boolean;
  /** values up to this many bytes come with their row (default 256 KiB) */
  inlineThreshold?: number;
  /** bytes per slice when streaming a large value (default 4 MiB; more for very large values, see slices()) */
  sliceBytes?: number;
  /** most rows per page (default 1000) */
  fetchRows?: number;
}

/** Every value comes off the wire as its raw bytes; this module decodes them by column kind. */
const RAW = (column: { buffer(): Buffer | null }): Buffer | null => column.buffer();

/**
 * A cell as the driver gives it: bytes (the RAW typeCast, and binary columns without it), or,
 * without a typeCast, the driver's text (strings, dates and times as sent, decimals), number
 * (integers up to INT, doubles parsed from the sent text) or BigInt (BIGINT).
 */
type DriverCell = Buffer | string | number | bigint | null;

/** A cell's text: the driver's string, the digits of its number or BigInt, or its bytes as UTF-8. */
function cellText(raw: Buffer | string | number | bigint): string {
  return typeof raw === 'string' ? raw : typeof raw === 'object' ? raw.toString('utf8') : String(raw);
}

/**
 * Column types whose values the driver's own parsers give exactly as the RAW typeCast's text would
 * read (a ZEROFILL column's leading zeros excepted, so those keep RAW): a table of only these is read
 * without a typeCast, which costs the driver nine closures and a bound function per cell.
 */
const DRIVER_PARSED_TYPES = new Set([
  ...['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bigint', 'decimal', 'numeric', 'float', 'double', 'real', 'year'],
  ...['date', 'datetime', 'timestamp', 'time', 'char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext', 'enum'],
  ...['binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob', 'uuid', 'inet4', 'inet6'],
]);

/** The query options that read a table's rows: the driver's parsers where every column allows them, else RAW. */
function rowQueryOptions(plan: MysqlTablePlan): Record<string, unknown> {
  const parsed = plan.columns.every(
    (c) => DRIVER_PARSED_TYPES.has(c.info.dataType.toLowerCase()) && !/zerofill/i.test(c.info.columnType) && c.mapped.kind !== 'geometry',
  );
  return parsed ? { rowsAsArray: true, autoJsonMap: false, jsonStrings: true } : { rowsAsArray: true, typeCast: RAW };
}

/** Character sets whose bytes are already UTF-8, so LENGTH() counts UTF-8 bytes. */
const UTF8_CHARSETS = /^(utf8|utf8mb3|utf8mb4|ascii)$/i;

/** Text a column's geometry values carry in their description (the loader reads it back). */
export const GEOMETRY_WKB_NOTE = 'Geometry as WKB (ST_AsBinary)';
export const GEOMETRY_INTERNAL_NOTE =
  "Geometry in MariaDB's internal form (4-byte little-endian SRID, then WKB), because the values' SRIDs differ.";

export class MysqlSource implements DatabaseSource {
  readonly description: string;
  private catalogCache: SourceCatalog | undefined;
  private readonly tables = new Map<string, MysqlTablePlan>();
  private readonly inlineThreshold: number;
  private readonly sliceBytes: number;
  private readonly fetchRows: number;
  private readonly database: string;

  private constructor(
    private readonly url: string,
    private readonly conn: mariadb.Connection,
    private readonly options: MysqlSourceOptions,
  ) {
    this.description = describeMysqlUrl(url);
    this.database = parseMysqlUrl(url).database;
    this.inlineThreshold = options.inlineThreshold ?? 256 * 1024;
    this.sliceBytes = options.sliceBytes ?? 4 * 1024 * 1024;
    this.fetchRows = options.fetchRows ?? 1000;
  }

  /** Connects and opens the consistent snapshot; a bad URL or login is exit 2. */
  static async open(url: string, options: MysqlSourceOptions = {}): Promise<MysqlSource> {
    const conn = await connectMysql(url);
    try {
      await conn.query('SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      await conn.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
      return new MysqlSource(url, conn, options);
    } catch (err) {
      await conn.end().catch(() => {});
      throw new SiardOcflError(`Cannot start reading MariaDB/MySQL at ${describeMysqlUrl(url)}: ${(err as Error).message}.`, {
        cause: err,
      });
    }
  }

  private async query(sql: string, values: unknown[] = []): Promise<Array<Array<Buffer | null>>> {
    return (await this.conn.query({ sql, rowsAsArray: true, typeCast: RAW } as unknown as mariadb.QueryOptions, values)) as Array<
      Array<Buffer | null>
    >;
  }

  /** A page of a table's rows, read with `options` (rowQueryOptions). */
  private async rowQuery(sql: string, values: unknown[], options: Record<string, unknown>): Promise<DriverCell[][]> {
    return (await this.conn.query({ sql, ...options } as unknown as mariadb.QueryOptions, values)) as DriverCell[][];
  }

  async catalog(): Promise<SourceCatalog> {
    if (this.catalogCache) return this.catalogCache;
    const schema = await introspectMysql(
      this.conn,
      this.database,
      this.options.tableFilter ? { tableFilter: this.options.tableFilter } : {},
    );
    const [[version, user]] = (await this.query('SELECT VERSION(), CURRENT_USER()')) as [[Buffer, Buffer]];
    const v = version.toString('utf8');
    const catalog: SourceCatalog = {
      databaseProduct: /mariadb/i.test(v) ? `MariaDB ${v.replace(/-.*$/, '')}` : `MySQL ${v.replace(/-.*$/, '')}`,
      connection: redactMysqlUrl(this.url),
      databaseUser: user.toString('utf8'),
      schemas: [],
      widened: [],
      notExported: [...schema.notExported],
    };
    const tables: SourceTable[] = [];
    for (const plan of schema.tables) {
      plan.rowKey ??= await this.nullFreeKey(plan);
      catalog.widened!.push(...(await this.scanValues(plan)));
      tables.push(sourceTableOf(plan));
      this.tables.set(plan.name, plan);
    }
    catalog.schemas.push({ name: schema.name, tables, views: schema.views });
    this.catalogCache = catalog;
    return catalog;
  }

  /**
   * One scan of a table's date/time and geometry columns, inside the snapshot:
   * - DATE / DATETIME / TIMESTAMP holding zero dates ('0000-00-00', '2020-00-15'), which no
   *   xs:date holds: the column becomes VARCHAR of MariaDB's text (reported as widened);
   * - TIME holding a value below 0 or from 24 h on: INTERVAL DAY(2) TO SECOND(p), values as
   *   xs:duration (every value, so the column has one type);
   * - geometry: the SRIDs used; one (or none) -> WKB with the SRID in the description, several ->
   *   MariaDB's internal form, which keeps each value's SRID.
   */
  /**
   * The first unique key over nullable columns (introspect.ts, nullableKeys) none of which holds a
   * NULL in the snapshot: the table is read in its keyset pages like one over NOT NULL columns, so it
   * resumes inside too (docs/resume.md). One query per such key (an index lookup for a key of one
   * column; more columns may scan). Every run decides so, the uninterrupted one too.
   */
  private async nullFreeKey(plan: MysqlTablePlan): Promise<string[] | undefined> {
    for (const key of plan.nullableKeys ?? []) {
      const anyNull = key.map((c) => `${quoteMysqlIdent(c)} IS NULL`).join(' OR ');
      const [[n]] = (await this.query(`SELECT EXISTS (SELECT 1 FROM ${qualifiedMysqlName(plan.schema, plan.name)} WHERE ${anyNull})`)) as [
        [Buffer],
      ];
      if (n.toString('utf8') === '0') return key;
    }
    return undefined;
  }

  private async scanValues(plan: MysqlTablePlan): Promise<WidenedColumn[]> {
    const exprs: string[] = [];
    const jobs: Array<{ col: MysqlColumnPlan; at: number }> = [];
    for (const col of plan.columns) {
      const id = quoteMysqlIdent(col.name);
      const kind = col.mapped.kind;
      if (kind === 'date' || kind === 'datetime' || kind === 'timestamp') {
        jobs.push({ col, at: exprs.length });
        exprs.push(`MAX(CAST(${id} AS CHAR) REGEXP '^0000-|-00')`, `MAX(CHAR_LENGTH(CAST(${id} AS CHAR)))`);
      } else if (kind === 'time') {
        jobs.push({ col, at: exprs.length });
        exprs.push(`MAX(${id} < TIME'00:00:00' OR ${id} >= TIME'24:00:00')`, '0');
      } else if (kind === 'geometry') {
        jobs.push({ col, at: exprs.length });
        exprs.push(`COUNT(DISTINCT ST_SRID(${id}))`, `MIN(ST_SRID(${id}))`);
      }
    }
    if (jobs.length === 0) return [];
    const [row] = await this.query(`SELECT ${exprs.join(', ')} FROM ${qualifiedMysqlName(plan.schema, plan.name)}`);
    const at = (i: number): string | undefined => row?.[i]?.toString('utf8');
    const out: WidenedColumn[] = [];
    for (const { col, at: i } of jobs) {
      const kind = col.mapped.kind;
      if (kind === 'time') {
        if (at(i) !== '1') continue;
        const p = col.info.datetimePrecision ?? 0;
        // metadata.xsd admits no SECOND(0)
        col.mapped = { type: `INTERVAL DAY(2) TO SECOND${p > 0 ? `(${p})` : ''}`, kind: 'duration' };
        col.column.type = col.mapped.type;
        col.column.description = joinNote(
          col.column.description,
          'MariaDB TIME values beyond a day or negative: every value is written as an xs:duration (INTERVAL DAY TO SECOND); ' +
            'typeOriginal keeps the TIME type.',
        );
      } else if (kind === 'geometry') {
        const distinct = Number(at(i) ?? 0);
        if (distinct > 1) {
          col.geometryWithSrid = true;
          col.column.description = joinNote(col.column.description, GEOMETRY_INTERNAL_NOTE);
        } else {
          col.column.description = joinNote(col.column.description, `${GEOMETRY_WKB_NOTE}; SRID ${at(i + 1) ?? '0'}.`);
        }
        col.column.mimeType = 'application/octet-stream';
      } else if (at(i) === '1') {
        const length = Math.max(10, Number(at(i + 1) ?? 10));
        const declared = col.column.typeOriginal ?? col.info.columnType;
        const type = `VARCHAR(${length})`;
        col.mapped = { type, kind: 'dateText' };
        col.column.type = type;
        col.column.description = joinNote(
          col.column.description,
          "Holds zero dates ('0000-00-00' or a zero month or day), which SIARD's date types cannot: every value is written as " +
            "MariaDB's text; typeOriginal keeps the date type.",
        );
        const firstRow = await this.firstRowWhere(plan, `CAST(${quoteMysqlIdent(col.name)} AS CHAR) REGEXP '^0000-|-00'`);
        out.push({
          schema: plan.schema,
          table: plan.name,
          column: col.name,
          declared,
          exportedAs: type,
          form: "MariaDB's text",
          firstRow,
          reason: 'holds zero dates, which no xs:date can',
        });
      }
    }
    return out;
  }

  /**
   * The number, in the export's row order, of the first row where `condition` holds (0 if none).
   * A keyed table is numbered by its key in SQL; a table without a key is exported in the order a
   * plain scan gives, which ROW_NUMBER() OVER () does not promise to follow, so the same plain
   * scan is streamed and counted here.
   */
  private async firstRowWhere(plan: MysqlTablePlan, condition: string): Promise<number> {
    const from = qualifiedMysqlName(plan.schema, plan.name);
    if (plan.rowKey) {
      const order = `ORDER BY ${plan.rowKey.map(quoteMysqlIdent).join(', ')}`;
      const first = await this.query(
        `SELECT n FROM (SELECT ROW_NUMBER() OVER (${order}) AS n, ${condition} AS hit FROM ${from}) s WHERE hit ORDER BY n LIMIT 1`,
      );
      return Number(first[0]?.[0]?.toString('utf8') ?? 0);
    }
    const stream = this.conn.queryStream({
      sql: `SELECT ${condition} FROM ${from}`,
      rowsAsArray: true,
      typeCast: RAW,
    } as unknown as mariadb.QueryOptions);
    let row = 0;
    try {
      for await (const raw of stream as AsyncIterable<Array<Buffer | null>>) {
        row++;
        if (raw[0]?.toString('utf8') === '1') return row;
      }
      return 0;
    } finally {
      (stream as unknown as { close?: () => void }).close?.();
    }
  }

  /** The first and last row key in the snapshot (two index lookups), each column as the server sends it (bytes as Latin-1). */
  async keyRange(schema: string, table: string): Promise<string | undefined> {
    if (!this.catalogCache) await this.catalog();
    const plan = this.tables.get(table);
    const key = plan?.rowKey;
    if (!plan || schema !== plan.schema || !key || key.length === 0) return undefined;
    const cols = key.map((k) => quoteMysqlIdent(k)).join(', ');
    const from = qualifiedMysqlName(plan.schema, plan.name);
    const end = async (dir: string) => {
      const row = (
        await this.query(`SELECT ${cols} FROM ${from} ORDER BY ${key.map((k) => `${quoteMysqlIdent(k)} ${dir}`).join(', ')} LIMIT 1`)
      )[0];
      return row ? row.map((v) => v?.toString('latin1') ?? null) : null;
    };
    return JSON.stringify([await end('ASC'), await end('DESC')]);
  }

  async *rows(schema: string, table: string): AsyncIterable<SourceValue[]> {
    for await (const batch of this.pages(schema, table)) yield* batch;
  }

  /**
   * A keyed table's rows a page at a time (one await per page, not per row), the next page asked
   * for while the writer formats this one when no column is read in slices (slices take the
   * connection between pages); a table without a key row by row, as its stream delivers them.
   */
  async *rowBatches(schema: string, table: string, goOn?: RowsAfter): AsyncIterable<KeyedBatch> {
    if (!this.catalogCache) await this.catalog();
    const slicesBetweenPages = this.tables.get(table)?.columns.some((c) => isStreamedMysqlKind(c.mapped.kind)) ?? true;
    yield* slicesBetweenPages ? this.pages(schema, table, goOn) : readAhead(this.pages(schema, table, goOn));
  }

  /** With `goOn`, the rows after that key (a resumed export, docs/resume.md): the pages as they would go on. */
  private async *pages(schema: string, table: string, goOn?: RowsAfter): AsyncIterable<KeyedBatch> {
    if (!this.catalogCache) await this.catalog();
    const plan = this.tables.get(table);
    if (!plan || schema !== plan.schema) throw new Error(`Table "${schema}"."${table}" is not in the exported catalogue.`);
    const keyed = plan.rowKey !== undefined;
    const select: string[] = [];
    const starts: number[] = [];
    let streamed = 0;
    for (const col of plan.columns) {
      starts.push(select.length);
      const id = quoteMysqlIdent(col.name);
      const kind = col.mapped.kind;
      if (isStreamedMysqlKind(kind)) {
        streamed++;
        const expr = kind === 'geometry' && !col.geometryWithSrid ? `ST_AsBinary(${id})` : id;
        const size =
          kind === 'clob' && !UTF8_CHARSETS.test(col.info.charset ?? 'utf8mb4')
            ? `LENGTH(CONVERT(${id} USING utf8mb4))`
            : `LENGTH(${expr})`;
        select.push(keyed ? `IF(${size} <= ${this.inlineThreshold}, ${expr}, NULL)` : expr, size);
      } else if (kind === 'float') select.push(`CAST(${id} AS DOUBLE)`);
      else if (kind === 'dateText') select.push(`CAST(${id} AS CHAR)`);
      else select.push(id);
    }
    const keyAt = select.length;
    const key = plan.rowKey ?? [];
    const keyCols = key.map((name) => plan.columns.find((c) => c.name === name)!);
    for (const name of key) select.push(quoteMysqlIdent(name));
    const from = qualifiedMysqlName(plan.schema, plan.name);
    const options = rowQueryOptions(plan);
    let rowNumber = goOn?.rows ?? 0;
    const convertRow = (raw: DriverCell[]): SourceValue[] => {
      rowNumber++;
      // the key finds a row's large values again (slices); a table without such a column needs none
      const keyValues = streamed > 0 ? keyCols.map((c, i) => keyParam(c, raw[keyAt + i] ?? null)) : [];
      const out: SourceValue[] = new Array(plan.columns.length);
      for (let c = 0; c < plan.columns.length; c++) {
        const col = plan.columns[c]!;
        const at = starts[c]!;
        if (isStreamedMysqlKind(col.mapped.kind))
          out[c] = this.streamedValue(plan, col, raw[at] ?? null, raw[at + 1] ?? null, rowNumber, keyValues);
        else out[c] = this.scalarValue(plan, col, raw[at] ?? null, rowNumber);
      }
      return out;
    };
    if (!keyed) {
      if (goOn) throw noKeyNow(goOn.key, `${plan.schema}.${plan.name}`);
      const stream = this.conn.queryStream({
        sql: `SELECT ${select.join(', ')} FROM ${from}`,
        ...options,
      } as unknown as mariadb.QueryOptions);
      try {
        for await (const raw of stream as AsyncIterable<DriverCell[]>) yield [convertRow(raw)];
      } finally {
        (stream as unknown as { close?: () => void }).close?.();
      }
      return;
    }
    const batch = Math.max(1, Math.min(this.fetchRows, Math.floor((32 * 1024 * 1024) / Math.max(1, streamed * this.inlineThreshold))));
    const orderBy = ` ORDER BY ${key.map(quoteMysqlIdent).join(', ')} LIMIT ${batch}`;
    let after = goOn && keyFromTexts(keyCols, keyTexts(goOn.key, key, `${plan.schema}.${plan.name}`));
    // each row's key for the writer's cuts, as text (bytes in hex), made only at a cut (row-key.ts)
    const texts = (raw: readonly unknown[]) => keyCols.map((c, i) => keyText(c, (raw[keyAt + i] as DriverCell) ?? null));
    for (;;) {
      const where = after ? ` WHERE ${keysetCondition(key)}` : '';
      const params = after ? keysetParams(after) : [];
      const page = await this.rowQuery(`SELECT ${select.join(', ')} FROM ${from}${where}${orderBy}`, params, options);
      if (page.length === 0) break;
      // LOB slices of a page run between pages (one connection, one result at a time); the
      // writer reads each row's LOBs as it writes the row, so the page is held, not more.
      const rows: KeyedBatch = page.map(convertRow);
      rows.rowKeys = page.map((raw) => new RowKey(raw, texts));
      yield rows;
      const last = page[page.length - 1]!;
      after = keyCols.map((c, i) => keyParam(c, last[keyAt + i] ?? null)!);
      if (page.length < batch) break;
    }
  }

  private fail(plan: MysqlTablePlan, col: MysqlColumnPlan, row: number, reason: string): never {
    throw new SiardOcflError(
      `Table "${plan.schema}"."${plan.name}", row ${row}, column "${col.name}": ${reason}; export stopped so no value is changed.`,
      {
        code: 'VALUE_DOES_NOT_FIT',
      },
    );
  }

  private scalarValue(plan: MysqlTablePlan, col: MysqlColumnPlan, raw: DriverCell, row: number): SourceValue {
    if (raw === null) return null;
    const kind = col.mapped.kind;
    // binary columns come as bytes with or without the typeCast (the driver reads the binary collation as bytes)
    if (kind === 'binary' || kind === 'bits') return raw as Buffer;
    if (kind === 'bit1') return (raw as Buffer).some((b) => b !== 0);
    if (kind === 'double' && typeof raw === 'number') {
      // the driver parsed the sent text as Number(text) would
      if (!Number.isFinite(raw)) this.fail(plan, col, row, `floating-point value "${raw}" is not a finite number`);
      return raw;
    }
    const text = cellText(raw);
    switch (kind) {
      case 'integer':
      case 'decimal':
        return text;
      case 'year':
        return String(Number(text));
      case 'float':
      case 'double': {
        const value = Number(text);
        if (!Number.isFinite(value)) this.fail(plan, col, row, `floating-point value "${text}" is not a finite number`);
        return kind === 'float' ? shortestFloat(value) : value;
      }
      case 'date':
      case 'datetime':
      case 'timestamp':
        if (text.startsWith('0000-') || text.includes('-00'))
          this.fail(plan, col, row, `zero date "${text}" appeared after the column was scanned`);
        return text;
      case 'time':
        if (text.startsWith('-') || /^\d{3,}:/.test(text) || Number(text.slice(0, 2)) >= 24)
          this.fail(plan, col, row, `TIME value "${text}" appeared after the column was scanned`);
        return text;
      case 'duration':
        return timeToDuration(text);
      default:
        return text;
    }
  }

  private streamedValue(
    plan: MysqlTablePlan,
    col: MysqlColumnPlan,
    inline: DriverCell,
    size: DriverCell,
    row: number,
    key: Array<string | Buffer | null>,
  ): SourceValue {
    if (size === null) return null;
    const text = col.mapped.kind === 'clob';
    if (inline !== null) return text ? cellText(inline) : (inline as Buffer);
    const byteLength = Number(cellText(size));
    const id = quoteMysqlIdent(col.name);
    const expr = col.mapped.kind === 'geometry' && !col.geometryWithSrid ? `ST_AsBinary(${id})` : id;
    const where = plan.rowKey!.map((k) => `${quoteMysqlIdent(k)} = ?`).join(' AND ');
    const sql = `SELECT SUBSTRING(${expr}, ?, ?) FROM ${qualifiedMysqlName(plan.schema, plan.name)} WHERE ${where}`;
    const lob: SourceLob = {
      kind: 'lob',
      byteLength,
      encoding: text ? 'text' : 'binary',
      open: () => this.slices(sql, key, byteLength, text, plan, col, row),
    };
    return lob;
  }

  /**
   * A large value in slices: bytes for BLOB / geometry, characters (each slice UTF-8) for text.
   * InnoDB reads a whole BLOB/TEXT value for every SUBSTRING() of it, so the server's work grows
   * with the number of slices: a value gets at most 16 slices (of at most 64 MiB; beyond 1 GiB,
   * more), trading this process's memory (one slice) against the server's reading.
   */
  private async *slices(
    sql: string,
    key: Array<string | Buffer | null>,
    byteLength: number,
    text: boolean,
    plan: MysqlTablePlan,
    col: MysqlColumnPlan,
    row: number,
  ): AsyncIterable<Uint8Array> {
    const bytesPerSlice = Math.max(this.sliceBytes, Math.min(64 * 1024 * 1024, Math.ceil(byteLength / 16)));
    const step = text ? Math.max(1, Math.floor(bytesPerSlice / 4)) : bytesPerSlice;
    let position = 1;
    let bytes = 0;
    while (bytes < byteLength) {
      const res = await this.query(sql, [position, step, ...key]);
      const chunk = res[0]?.[0];
      if (chunk === undefined || chunk === null) this.fail(plan, col, row, 'the row disappeared while its value was read');
      if (chunk.length === 0) break;
      bytes += chunk.length;
      position += text ? [...chunk.toString('utf8')].length : chunk.length;
      yield chunk;
    }
    if (bytes !== byteLength) this.fail(plan, col, row, `the value read back has ${bytes} bytes, not ${byteLength}`);
  }

  async close(): Promise<void> {
    await this.conn.query('COMMIT').catch(() => {});
    await this.conn.end().catch(() => {});
  }
}

/** A key value as a query parameter: bytes for binary columns (compared as bytes), text otherwise (compared in the column's collation). */
function keyParam(col: MysqlColumnPlan, raw: DriverCell): string | Buffer | null {
  if (raw === null) return null;
  return isBinaryMysqlKind(col.mapped.kind) ? (raw as Buffer) : cellText(raw);
}

/** (k1, k2, k3) > (?, ?, ?) spelled out, which MariaDB turns into index ranges. */
function keysetCondition(key: string[]): string {
  const ors: string[] = [];
  for (let i = 0; i < key.length; i++) {
    const ands = key.slice(0, i).map((k) => `${quoteMysqlIdent(k)} = ?`);
    ands.push(`${quoteMysqlIdent(key[i]!)} > ?`);
    ors.push(`(${ands.join(' AND ')})`);
  }
  return ors.join(' OR ');
}

/** A key column's value as the journal keeps it: its text, or its bytes in hex for a binary column. */
function keyText(col: MysqlColumnPlan, raw: DriverCell): string {
  const value = keyParam(col, raw);
  if (value === null) throw new Error(`Key column "${col.name}" holds NULL.`);
  return typeof value === 'string' ? value : value.toString('hex');
}

/** The key parameters back from their journaled texts (keyText). */
function keyFromTexts(cols: readonly MysqlColumnPlan[], texts: readonly string[]): Array<string | Buffer> {
  return cols.map((c, i) => (isBinaryMysqlKind(c.mapped.kind) ? Buffer.from(texts[i]!, 'hex') : texts[i]!));
}

function keysetParams(after: Array<string | Buffer>): Array<string | Buffer> {
  const params: Array<string | Buffer> = [];
  for (let i = 0; i < after.length; i++) params.push(...after.slice(0, i + 1));
  return params;
}

function joinNote(existing: string | undefined, note: string): string {
  return existing ? `${existing} ${note}` : note;
}
