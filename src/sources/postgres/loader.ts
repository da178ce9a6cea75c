/**
 * Restore target: a PostgreSQL database.
 *
 * All-or-nothing: schemas, tables, rows and keys are created in one transaction, committed at the
 * end; any failure rolls it all back. Rows go through COPY FROM STDIN (copy-in.ts); a row holding
 * a LOB stream goes in a multi-row INSERT (bounded by rows, parameters and bytes) instead. There a
 * LOB up to `inlineLobBytes` travels as a parameter; a larger one is streamed into
 * a temporary large object with lo_put() slices and inserted with lo_get(), then unlinked, so a
 * 1 GiB value never sits whole in this process.
 *
 * Types: an archive made from PostgreSQL gets its built-in types back from `typeOriginal`
 * (uuid, jsonb, arrays, timestamptz ...; a large-object column comes back as bytea holding the
 * bytes), its enums (DISTINCT types written by enum-type.ts) are created again, and identity
 * columns, column defaults and views come back after the rows. Otherwise, and for types
 * PostgreSQL cannot recreate by name (domains), the SIARD type maps:
 *
 * | SIARD                                   | PostgreSQL                         |
 * |-----------------------------------------|------------------------------------|
 * | SMALLINT, INTEGER/INT, BIGINT           | smallint, integer, bigint          |
 * | DECIMAL/NUMERIC(p,s)                    | numeric(p,s) (numeric if p > 1000) |
 * | REAL; DOUBLE PRECISION, FLOAT           | real; double precision             |
 * | BOOLEAN                                 | boolean                            |
 * | CHAR(n), NCHAR(n); VARCHAR(n), NVARCHAR  | character(n); character varying(n) |
 * | CLOB, NCLOB, XML, DATALINK, UDT         | text (UDT values as JSON)          |
 * | BINARY, VARBINARY, BLOB                 | bytea                              |
 * | DATE, TIME[ WITH TIME ZONE], TIMESTAMP[ WITH TIME ZONE] | date, time[tz], timestamp[tz] |
 * | INTERVAL ...                            | interval                           |
 * | ARRAY column (cardinality / a1.. fields) | element type[]                    |
 */
import type pg from 'pg';
import { SiardOcflError } from '../../errors.js';
import { cellType, type SiardArchive, type SiardForeignKey } from '../../siard/model.js';
import { enumLabels } from './enum-type.js';
import {
  complexJson,
  isLoadComplex,
  isLoadLob,
  type LoadColumn,
  type LoadComplex,
  type LoadLob,
  type LoadTable,
  type LoadTableXml,
  type LoadValue,
  type LoadView,
  type NotRecreated,
  type TargetLoader,
  createInAnyOrder,
  viewQuery,
} from '../loader.js';
import { conditionProblem } from '../sql-text.js';
import { addCheckConstraint } from './check-constraint.js';
import { COPY_NULL, copyBytes, copyField, CopyIn } from './copy-in.js';
import { copyFieldOfText, pgScalarText } from './copy-text.js';
import { TableXmlCopy } from './table-xml-copy.js';
import { MAX_TEXT_RUN } from '../../siard/reader/table-rows.js';
import { connectPostgres, describePostgresUrl } from './connection.js';
import { qualifiedName } from './introspect.js';
import { quoteIdent } from '../sql-identifier.js';
import { restoreValueError } from '../restore-value-error.js';

/** format_type() spellings of built-in types a restore may recreate by name. */
const BUILTIN_NAMES = [
  String.raw`smallint|integer|bigint|numeric(\(\d+,-?\d+\))?|real|double precision|boolean|character( varying)?(\(\d+\))?`,
  String.raw`text|bytea|date|time(\(\d\))? with(out)? time zone|time(\(\d\))?|timestamp(\(\d\))?( with(out)? time zone)?`,
  String.raw`interval( [a-z ]+)?(\(\d\))?|uuid|jsonb?|xml|name|inet|cidr|macaddr8?|money|bit( varying)?(\(\d+\))?|tsvector`,
  'point|line|lseg|box|path|polygon|circle|int4range|int8range|numrange|tsrange|tstzrange|daterange',
];
const BUILTIN = new RegExp(String.raw`^(${BUILTIN_NAMES.join('|')})(\[\])*$`);

/** An identity column's defaultValue as a PostgreSQL archive carries it. */
const IDENTITY = /^GENERATED (ALWAYS|BY DEFAULT) AS IDENTITY \(START WITH -?\d+ INCREMENT BY -?\d+\)$/;

/** PostgreSQL type for a SIARD predefined type (the element type for arrays). */
export function pgTypeOfSiard(type: string | undefined): string {
  const t = (type ?? '').trim().toUpperCase().replace(/\s+/g, ' ');
  const size = /\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/.exec(t);
  if (/^(INTEGER|INT)$/.test(t)) return 'integer';
  if (t === 'SMALLINT') return 'smallint';
  if (t === 'BIGINT') return 'bigint';
  if (/^(NUMERIC|DECIMAL|DEC)\b/.test(t)) {
    if (!size || Number(size[1]) > 1000) return 'numeric';
    return `numeric(${size[1]},${size[2] ?? 0})`;
  }
  if (t === 'REAL') return 'real';
  if (/^(DOUBLE PRECISION|FLOAT)\b/.test(t)) return 'double precision';
  if (t === 'BOOLEAN') return 'boolean';
  if (/^(CHARACTER LARGE OBJECT|CLOB|NATIONAL CHARACTER LARGE OBJECT|NCHAR LARGE OBJECT|NCLOB)\b/.test(t)) return 'text';
  if (/^(BINARY LARGE OBJECT|BLOB|BINARY|BINARY VARYING|VARBINARY)\b/.test(t)) return 'bytea';
  if (/^(CHARACTER VARYING|CHAR VARYING|VARCHAR|NATIONAL CHARACTER VARYING|NATIONAL CHAR VARYING|NCHAR VARYING)\b/.test(t)) {
    return size ? `character varying(${size[1]})` : 'character varying';
  }
  if (/^(CHARACTER|CHAR|NATIONAL CHARACTER|NATIONAL CHAR|NCHAR)\b/.test(t)) return size ? `character(${size[1]})` : 'character(1)';
  if (t === 'DATE') return 'date';
  if (/^TIMESTAMP\b/.test(t)) return /WITH TIME ZONE/.test(t) ? 'timestamp with time zone' : 'timestamp without time zone';
  if (/^TIME\b/.test(t)) return /WITH TIME ZONE/.test(t) ? 'time with time zone' : 'time without time zone';
  if (/^INTERVAL\b/.test(t)) return 'interval';
  return 'text'; // XML from other systems (may be fragments), DATALINK, UDTs, unknown
}

export { durationToPgInterval } from './copy-text.js';

/** Element of an array literal: quoted, with backslash and quote escaped. */
function arrayElement(text: string | null): string {
  return text === null ? 'NULL' : `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export interface PostgresLoaderOptions {
  /** LOBs up to this many bytes go as parameters; larger ones through a large object (default 1 MiB) */
  inlineLobBytes?: number;
  /** rows per INSERT (default 500) */
  batchRows?: number;
  /** bytes of parameters per INSERT before it is sent (default 16 MiB) */
  batchBytes?: number;
  /** create the database first (it must not exist); dropped again if the restore fails */
  create?: boolean;
  /** restore into a database that already holds tables or views (none of the archive's names) */
  intoExisting?: boolean;
}

/** A row plainCopyFields leaves to copyFields. */
const NOT_PLAIN = Symbol('not plain');

/** bytes per lo_put() once a LOB goes through a large object */
const PUT_BYTES = 4 * 1024 * 1024;

interface PendingCell {
  sql: string;
}

export class PostgresLoader implements TargetLoader {
  readonly description: string;
  private client: pg.Client | undefined;
  private fromPostgres = false;
  private readonly inlineLobBytes: number;
  private readonly batchRows: number;
  private readonly batchBytes: number;
  private readonly columnTypes = new Map<LoadTable, string[]>();
  /** constraint / index names taken per schema (PostgreSQL wants them unique there) */
  private readonly usedNames = new Map<string, Set<string>>();
  readonly warnings: string[] = [];
  readonly notRecreated: NotRecreated[] = [];
  private product = 'another database';
  /** the database this restore created (--create), dropped again on abort */
  private created: string | undefined;
  /** enum types created (or found) in the target: schema NUL name */
  private readonly enums = new Set<string>();

  constructor(
    private readonly url: string,
    private readonly options: PostgresLoaderOptions = {},
  ) {
    this.description = describePostgresUrl(url);
    this.inlineLobBytes = options.inlineLobBytes ?? 1024 * 1024;
    this.batchRows = options.batchRows ?? 500;
    this.batchBytes = options.batchBytes ?? 16 * 1024 * 1024;
  }

  async begin(archive: SiardArchive, tables: LoadTable[]): Promise<void> {
    this.fromPostgres = /^postgres/i.test(archive.databaseProduct ?? '');
    this.product = archive.databaseProduct?.split(' ')[0] ?? 'another database';
    if (this.options.create) await this.createDatabase();
    let client: pg.Client;
    try {
      client = await connectPostgres(this.url);
    } catch (err) {
      const missing = ((err as { cause?: { code?: string } }).cause?.code ?? '') === '3D000';
      if (missing)
        throw new SiardOcflError(`${(err as Error).message} Add --create to create it.`, { code: 'TARGET_UNUSABLE', cause: err });
      throw err;
    }
    try {
      for (const t of tables) {
        const res = await client.query<{ r: string | null }>('SELECT to_regclass($1)::text AS r', [qualifiedName(t.schema, t.name)]);
        if (res.rows[0]?.r) {
          throw new SiardOcflError(`Cannot restore into ${this.description}: it already has a table ${qualifiedName(t.schema, t.name)}.`, {
            code: 'TARGET_NOT_EMPTY',
          });
        }
      }
      if (!this.options.intoExisting) {
        const present = await client.query<{ name: string; n: string }>(
          `SELECT n.nspname || '.' || c.relname AS name, count(*) OVER ()::text AS n
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
              AND n.nspname NOT LIKE 'pg\\_%'
            ORDER BY 1 LIMIT 3`,
        );
        if (present.rows.length > 0) {
          throw new SiardOcflError(
            `Cannot restore into ${this.description}: it is not empty (${present.rows[0]!.n} tables or views, ` +
              `e.g. ${present.rows.map((r) => r.name).join(', ')}); add --into-existing to restore beside them.`,
            { code: 'TARGET_NOT_EMPTY' },
          );
        }
      }
      const names = await client.query<{ schema: string; name: string }>(
        `SELECT n.nspname AS schema, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ` +
          `n.nspname = ANY($1::text[])`,
        [[...new Set(tables.map((t) => t.schema))]],
      );
      for (const r of names.rows) this.nameSet(r.schema).add(r.name);
      await client.query('BEGIN');
      for (const schema of new Set(tables.map((t) => t.schema))) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      await this.createTypes(client, archive);
    } catch (err) {
      await client.end().catch(() => {});
      await this.dropCreated();
      throw err;
    }
    this.client = client;
  }

  /**
   * The archive's types: a PostgreSQL enum (enum-type.ts) of a PostgreSQL archive is created again
   * (or reused when the target has it with the same labels); any other type is listed, its columns
   * restored as the base type.
   */
  private async createTypes(client: pg.Client, archive: SiardArchive): Promise<void> {
    for (const schema of archive.schemas) {
      for (const type of schema.types ?? []) {
        const name = qualifiedName(schema.name, type.name);
        const labels = this.fromPostgres ? enumLabels(type) : undefined;
        if (!labels) {
          this.notRecreated.push({
            kind: 'type',
            name: `${schema.name}.${type.name}`,
            reason: type.base
              ? `its columns restored as ${pgTypeOfSiard(type.base)}`
              : 'a structured type; its values restored as JSON text',
          });
          continue;
        }
        const existing = await client.query<{ labels: string[] | null }>(
          `SELECT (SELECT array_agg(enumlabel::text ORDER BY enumsortorder) FROM pg_enum WHERE enumtypid = to_regtype($1)) AS ` +
            `labels, to_regtype($1) IS NOT NULL AS found`,
          [name],
        );
        const found = existing.rows[0] as { labels: string[] | null; found?: boolean } | undefined;
        if (found?.found) {
          if (JSON.stringify(found.labels) !== JSON.stringify(labels)) {
            throw new SiardOcflError(
              `Cannot restore into ${this.description}: it has a type ${name} that is not the archive's enum (${labels.join(', ')}).`,
              { code: 'TARGET_NOT_EMPTY' },
            );
          }
        } else {
          await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema.name)}`);
          // labels are quoted as string literals (standard_conforming_strings: only ' is special)
          await client.query(`CREATE TYPE ${name} AS ENUM (${labels.map((l) => `'${l.replace(/'/g, "''")}'`).join(', ')})`);
        }
        this.enums.add(`${schema.name}\u0000${type.name}`);
      }
    }
  }

  /** The same server's maintenance database, for CREATE / DROP DATABASE. */
  private maintenanceUrl(): { url: string; database: string } {
    const u = new URL(this.url);
    const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
    if (!database) throw new SiardOcflError(`Cannot create the database: ${this.description} names none.`, { code: 'BAD_URL' });
    u.pathname = '/postgres';
    return { url: u.toString(), database };
  }

  private async createDatabase(): Promise<void> {
    const { url, database } = this.maintenanceUrl();
    const admin = await connectPostgres(url);
    try {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
      if (exists.rows.length > 0) {
        throw new SiardOcflError(
          `Cannot create the database ${this.description}: it already exists; leave out --create to restore into it.`,
          { code: 'TARGET_NOT_EMPTY' },
        );
      }
      await admin.query(`CREATE DATABASE ${quoteIdent(database)}`);
      this.created = database;
    } finally {
      await admin.end().catch(() => {});
    }
  }

  private async dropCreated(): Promise<void> {
    if (this.created === undefined) return;
    const { url } = this.maintenanceUrl();
    const admin = await connectPostgres(url).catch(() => undefined);
    if (!admin) return;
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(this.created)}`);
      this.created = undefined;
    } catch {
      // left for the user; the restore's own error says what failed
    } finally {
      await admin.end().catch(() => {});
    }
  }

  targetName(table: LoadTable): string {
    return `${table.schema}.${table.name}`;
  }

  /** `base`, or `base_2`, `base_3` ... : a constraint name not yet taken in the schema. */
  private freshName(schema: string, base: string): string {
    const names = this.nameSet(schema);
    let name = base;
    for (let n = 2; names.has(name); n++) name = `${base}_${n}`;
    names.add(name);
    return name;
  }

  private nameSet(schema: string): Set<string> {
    let set = this.usedNames.get(schema);
    if (!set) this.usedNames.set(schema, (set = new Set()));
    return set;
  }

  /** The column's PostgreSQL type: the original one when it is a built-in of a PostgreSQL archive. */
  pgTypeOf(col: LoadColumn): string {
    const original = (col.column.typeOriginal ?? '').trim();
    const { typeSchema, typeName } = col.column;
    if (typeName !== undefined && this.enums.has(`${typeSchema ?? ''}\u0000${typeName}`)) return qualifiedName(typeSchema ?? '', typeName);
    if (this.fromPostgres && BUILTIN.test(original)) return original;
    if (this.fromPostgres && /^(oid|lo)$/.test(original)) return 'bytea';
    if (col.family === undefined) return 'text';
    const base = pgTypeOfSiard(cellType(col.column));
    return col.array ? `${base}[]` : base;
  }

  async createTable(table: LoadTable): Promise<void> {
    const client = this.open();
    const types = table.columns.map((c) => this.pgTypeOf(c));
    table.columns.forEach((c, i) => {
      const original = (c.column.typeOriginal ?? '').trim();
      if (
        this.fromPostgres &&
        c.column.typeName === undefined &&
        original !== '' &&
        original !== types[i] &&
        !/^(oid|lo)$/.test(original)
      ) {
        this.notRecreated.push({
          kind: 'type',
          name: `${table.schema}.${table.name}.${c.column.name}`,
          reason: `type ${original} is not defined by the archive; restored as ${types[i]}`,
        });
      }
    });
    this.columnTypes.set(table, types);
    const cols = table.columns.map((c, i) => `${quoteIdent(c.column.name)} ${types[i]}${c.column.nullable === false ? ' NOT NULL' : ''}`);
    await client.query(`CREATE TABLE ${qualifiedName(table.schema, table.name)} (${cols.join(', ')})`);
    this.nameSet(table.schema).add(table.name);
    await this.comment(table);
  }

  /** The table's and its columns' descriptions as COMMENT ON (the PostgreSQL source reads them back as descriptions). */
  private async comment(table: LoadTable): Promise<void> {
    const name = qualifiedName(table.schema, table.name);
    const comments: Array<[string, string | undefined, string]> = [
      [`TABLE ${name}`, table.description, `${table.schema}.${table.name}`],
      ...table.columns.map((c): [string, string | undefined, string] => [
        `COLUMN ${name}.${quoteIdent(c.column.name)}`,
        c.column.description,
        `${table.schema}.${table.name}.${c.column.name}`,
      ]),
    ];
    for (const [target, text, what] of comments) {
      if (!text) continue;
      // PostgreSQL text cannot hold NUL. COMMENT takes no parameters: an E'' literal, safe whatever
      // standard_conforming_strings says.
      if (text.includes('\0')) {
        this.notRecreated.push({ kind: 'comment', name: what, reason: 'the description holds U+0000, which PostgreSQL text cannot' });
        continue;
      }
      await this.open().query(`COMMENT ON ${target} IS E'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`);
    }
  }

  /**
   * Rows go through COPY (copy-in.ts) while they hold values the restore has in hand; a row with a
   * LOB stream (which may become a large object, needing queries of its own) ends the COPY and goes
   * in a multi-row INSERT instead. Rows keep their order.
   */
  async insertRows(table: LoadTable, batches: AsyncIterable<LoadValue[][]>, onRow?: () => void): Promise<number> {
    return this.loadRows(table, batches, onRow, 0);
  }

  /**
   * Rows straight from the table XML's bytes into COPY (table-xml-copy.ts: no JavaScript value per
   * cell); from the row where that gives up (a LOB reference, a comment, an unknown entity ...) on,
   * the usual way. A table with ARRAY columns goes the usual way (an empty cell there is an empty array).
   */
  async insertTableXml(table: LoadTable, xml: LoadTableXml, onRow?: () => void): Promise<number> {
    if (table.columns.some((c) => c.array)) return this.insertRows(table, xml.rest(0), onRow);
    const converter = new TableXmlCopy(
      table.columns.map((c) => c.family),
      MAX_TEXT_RUN,
    );
    const input = await xml.open(); // before the COPY starts: a missing table file leaves no COPY open
    const copy = new CopyIn(this.open(), qualifiedName(table.schema, table.name));
    let n = 0;
    let whole = false;
    try {
      let gaveUp = false;
      for await (const chunk of input as AsyncIterable<Buffer>) {
        const converted = converter.feed(chunk);
        if (!converted) {
          gaveUp = true;
          break;
        }
        if (converted.rows === 0) continue;
        n += converted.rows;
        const sent = copy.writeBytes(converted.copy, converted.rows);
        if (sent) await sent.catch((err: unknown) => Promise.reject(this.refused(table, 1, n, err)));
        if (onRow) for (let i = 0; i < converted.rows; i++) onRow();
      }
      whole = !gaveUp && converter.finish();
      this.stored(table, await copy.end().catch((err: unknown) => Promise.reject(this.refused(table, 1, n, err))));
    } catch (err) {
      await copy.abort(err as Error);
      throw err;
    } finally {
      input.destroy();
    }
    return whole ? n : n + (await this.loadRows(table, xml.rest(n), onRow, n));
  }

  private refused(table: LoadTable, first: number, last: number, err: unknown): SiardOcflError {
    if (err instanceof SiardOcflError) return err;
    return new SiardOcflError(
      `Table "${table.schema}"."${table.name}", rows ${first}-${last}: PostgreSQL refused them (${(err as Error).message}).`,
      { code: 'RESTORE_INSERT', exitCode: 1, cause: err },
    );
  }

  /** insertRows, for rows numbered after the first `before` (in messages); returns the rows loaded. */
  private async loadRows(
    table: LoadTable,
    batches: AsyncIterable<LoadValue[][]>,
    onRow: (() => void) | undefined,
    before: number,
  ): Promise<number> {
    const client = this.open();
    const types = this.columnTypes.get(table) ?? table.columns.map((c) => this.pgTypeOf(c));
    const inserts = this.multiRowInsert(table, types);
    let copy: CopyIn | undefined;
    let copyFirst = 0;
    let n = before;
    const refused = (first: number, last: number, err: unknown) => this.refused(table, first, last, err);
    const endCopy = async (): Promise<void> => {
      const ending = copy;
      copy = undefined;
      if (!ending) return;
      const last = copyFirst + ending.rows - 1;
      this.stored(table, await ending.end().catch((err: unknown) => Promise.reject(refused(copyFirst, last, err))));
    };
    try {
      for await (const batch of batches) {
        for (const row of batch) {
          n++;
          const plain = this.plainCopyFields(table, row, n);
          const fields = plain !== NOT_PLAIN ? plain : await this.copyFields(table, types, row, n);
          if (fields) {
            if (inserts.pending()) await inserts.flush(); // no await per row: most tables never insert
            if (!copy) {
              copy = new CopyIn(client, qualifiedName(table.schema, table.name));
              copyFirst = n;
            }
            const sent = copy.write(fields);
            if (sent) await sent.catch((err: unknown) => Promise.reject(refused(copyFirst, n, err)));
          } else {
            await endCopy();
            await inserts.add(row, n);
          }
          onRow?.();
        }
      }
      await endCopy();
      await inserts.flush();
    } catch (err) {
      await copy?.abort(err as Error);
      throw err;
    }
    return n - before;
  }

  /** copyFields for a row of text, bytes and NULLs only, without a promise; NOT_PLAIN for any other row. */
  private plainCopyFields(table: LoadTable, row: LoadValue[], n: number): string[] | typeof NOT_PLAIN {
    const fields: string[] = new Array(table.columns.length);
    for (let c = 0; c < table.columns.length; c++) {
      const value = row[c] ?? null;
      if (value === null) fields[c] = COPY_NULL;
      else if (value instanceof Uint8Array) fields[c] = copyBytes(value);
      else if (typeof value !== 'string') return NOT_PLAIN;
      else {
        try {
          fields[c] = copyFieldOfText(table.columns[c]!.family, value);
        } catch (err) {
          throw restoreValueError(`"${table.schema}"."${table.name}"`, n, table.columns[c]!.column.name, err);
        }
      }
    }
    return fields;
  }

  /** A row's COPY fields; undefined when it holds a LOB stream (it goes in an INSERT). */
  private async copyFields(table: LoadTable, types: string[], row: LoadValue[], n: number): Promise<string[] | undefined> {
    const fields: string[] = new Array(table.columns.length);
    for (let c = 0; c < table.columns.length; c++) {
      const value = row[c] ?? null;
      if (value === null) {
        fields[c] = COPY_NULL;
        continue;
      }
      if (isLoadLob(value)) return undefined;
      const col = table.columns[c]!;
      try {
        if (value instanceof Uint8Array) fields[c] = copyBytes(value);
        else if (isLoadComplex(value)) {
          fields[c] = copyField(
            value.kind === 'array' && types[c]!.endsWith('[]')
              ? await this.arrayLiteral(col, value)
              : JSON.stringify(await complexJson(value)),
          );
        } else fields[c] = copyFieldOfText(col.family, value);
      } catch (err) {
        throw restoreValueError(`"${table.schema}"."${table.name}"`, n, col.column.name, err);
      }
    }
    return fields;
  }

  /** Rows in multi-row INSERTs (bounded by rows, parameters and bytes), for rows with LOB streams. */
  private multiRowInsert(
    table: LoadTable,
    types: string[],
  ): { add(row: LoadValue[], n: number): Promise<void>; flush(): Promise<void>; pending(): boolean } {
    const client = this.open();
    const head = `INSERT INTO ${qualifiedName(table.schema, table.name)} VALUES `;
    const maxRows = Math.max(1, Math.min(this.batchRows, Math.floor(60000 / Math.max(1, table.columns.length))));
    let tuples: string[] = [];
    let params: unknown[] = [];
    let bytes = 0;
    let largeObjects: string[] = [];
    let last = 0;
    const flush = async (): Promise<void> => {
      if (tuples.length === 0) return;
      try {
        this.stored(table, (await client.query(head + tuples.join(', '), params)).rowCount ?? NaN);
      } catch (err) {
        throw new SiardOcflError(
          `Table "${table.schema}"."${table.name}", rows ${last - tuples.length + 1}-${last}: PostgreSQL refused them ` +
            `(${(err as Error).message}).`,
          { code: 'RESTORE_INSERT', exitCode: 1, cause: err },
        );
      }
      if (largeObjects.length > 0) await client.query('SELECT lo_unlink(o) FROM unnest($1::oid[]) AS o', [largeObjects]);
      tuples = [];
      params = [];
      bytes = 0;
      largeObjects = [];
    };
    const add = async (row: LoadValue[], n: number): Promise<void> => {
      last = n;
      const cells: string[] = [];
      for (let c = 0; c < table.columns.length; c++) {
        const col = table.columns[c]!;
        const value = row[c] ?? null;
        let cell: PendingCell;
        try {
          cell = await this.cell(col, types[c]!, value, params, largeObjects, (b) => (bytes += b));
        } catch (err) {
          throw restoreValueError(`"${table.schema}"."${table.name}"`, n, col.column.name, err);
        }
        cells.push(cell.sql);
      }
      tuples.push(`(${cells.join(', ')})`);
      if (tuples.length >= maxRows || bytes >= this.batchBytes || largeObjects.length > 0) await flush();
    };
    return { add, flush, pending: () => tuples.length > 0 };
  }

  /** SQL for one cell; its parameters are appended to `params`. */
  private async cell(
    col: LoadColumn,
    type: string,
    value: LoadValue,
    params: unknown[],
    largeObjects: string[],
    count: (bytes: number) => void,
  ): Promise<PendingCell> {
    if (value === null) return { sql: 'NULL' };
    const param = (v: unknown, size: number): string => {
      params.push(v);
      count(size);
      return `$${params.length}::${type}`;
    };
    if (isLoadLob(value)) {
      const spilled = await this.readLob(value);
      if (spilled.kind === 'inline') {
        return { sql: param(value.text ? spilled.bytes.toString('utf8') : spilled.bytes, spilled.bytes.length) };
      }
      largeObjects.push(spilled.oid);
      params.push(spilled.oid);
      const get = `lo_get($${params.length}::oid)`;
      return { sql: `${value.text ? `convert_from(${get}, 'UTF8')` : get}::${type}` };
    }
    if (isLoadComplex(value)) {
      if (value.kind === 'array' && type.endsWith('[]')) {
        const literal = await this.arrayLiteral(col, value);
        return { sql: param(literal, literal.length) };
      }
      const json = JSON.stringify(await complexJson(value));
      return { sql: param(json, json.length) };
    }
    if (value instanceof Uint8Array) return { sql: param(Buffer.from(value.buffer, value.byteOffset, value.byteLength), value.byteLength) };
    const text = this.scalarText(col, value);
    return { sql: param(text, text.length) };
  }

  private scalarText(col: LoadColumn, text: string): string | Buffer {
    return pgScalarText(col.family, text);
  }

  private async arrayLiteral(col: LoadColumn, value: LoadComplex): Promise<string> {
    const size = Math.max(0, ...value.elements.keys());
    const items: string[] = [];
    for (let i = 1; i <= size; i++) {
      const v = value.elements.get(i) ?? null;
      if (v === null) items.push('NULL');
      else if (typeof v === 'string') {
        const scalar = this.scalarText(col, v);
        items.push(arrayElement(typeof scalar === 'string' ? scalar : '\\x' + scalar.toString('hex')));
      } else if (v instanceof Uint8Array) items.push(arrayElement('\\x' + Buffer.from(v).toString('hex')));
      else if (isLoadLob(v)) {
        const parts: Buffer[] = [];
        for await (const chunk of v.chunks) parts.push(Buffer.from(chunk));
        const all = Buffer.concat(parts);
        items.push(arrayElement(v.text ? all.toString('utf8') : '\\x' + all.toString('hex')));
      } else items.push(arrayElement(JSON.stringify(await complexJson(v))));
    }
    return `{${items.join(',')}}`;
  }

  /** Reads a LOB: whole when small, otherwise into a new large object slice by slice. */
  private async readLob(lob: LoadLob): Promise<{ kind: 'inline'; bytes: Buffer } | { kind: 'spilled'; oid: string }> {
    const client = this.open();
    let held: Buffer[] = [];
    let heldBytes = 0;
    let oid: string | undefined;
    let offset = 0;
    const put = async (): Promise<void> => {
      const data = Buffer.concat(held);
      held = [];
      heldBytes = 0;
      await client.query('SELECT lo_put($1::oid, $2::int8, $3::bytea)', [oid, offset, data]);
      offset += data.length;
    };
    for await (const chunk of lob.chunks) {
      held.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      heldBytes += chunk.byteLength;
      if (oid === undefined && heldBytes > this.inlineLobBytes) {
        oid = (await client.query<{ oid: string }>('SELECT lo_create(0)::text AS oid')).rows[0]!.oid;
      }
      if (oid !== undefined && heldBytes >= PUT_BYTES) await put();
    }
    if (oid === undefined) return { kind: 'inline', bytes: Buffer.concat(held) };
    if (heldBytes > 0) await put();
    return { kind: 'spilled', oid };
  }

  async addKeys(tables: LoadTable[]): Promise<void> {
    const client = this.open();
    const run = async (what: string, sql: string): Promise<void> => {
      await client.query('SAVEPOINT add_key');
      try {
        await client.query(sql);
        await client.query('RELEASE SAVEPOINT add_key');
      } catch (err) {
        await client.query('ROLLBACK TO SAVEPOINT add_key');
        this.warnings.push(`${what} was not added: ${(err as Error).message}.`);
      }
    };
    const constraintName = (schema: string, name: string): string => {
      const names = this.nameSet(schema);
      if (!name || names.has(name)) return '';
      names.add(name);
      return `CONSTRAINT ${quoteIdent(name)} `;
    };
    for (const t of tables) {
      const table = qualifiedName(t.schema, t.name);
      if (t.primaryKey && t.primaryKey.columns.length > 0) {
        await run(
          `Primary key ${t.primaryKey.name} of ${table}`,
          `ALTER TABLE ${table} ADD ${constraintName(t.schema, t.primaryKey.name)}PRIMARY KEY ` +
            `(${t.primaryKey.columns.map(quoteIdent).join(', ')})`,
        );
      }
      for (const key of t.candidateKeys) {
        await run(
          `Unique key ${key.name} of ${table}`,
          `ALTER TABLE ${table} ADD ${constraintName(t.schema, key.name)}UNIQUE (${key.columns.map(quoteIdent).join(', ')})`,
        );
      }
      // The condition is SQL of the archived database: PostgreSQL's own comes back as it was; one
      // in another dialect, one that is not a plain expression, or one the restored rows violate
      // becomes a warning (check-constraint.ts guards against conditions that would run code).
      for (const check of t.checkConstraints ?? []) {
        if (check.condition.trim() === '') continue;
        const name = this.freshName(t.schema, check.name || `${t.name}_check`);
        await client.query('SAVEPOINT add_check');
        try {
          await addCheckConstraint(client, table, name, check.condition);
          await client.query('RELEASE SAVEPOINT add_check');
        } catch (err) {
          await client.query('ROLLBACK TO SAVEPOINT add_check');
          this.warnings.push(`Check constraint ${check.name} of ${table} was not added: ${(err as Error).message}.`);
        }
      }
    }
    for (const t of tables) {
      for (const fk of t.foreignKeys)
        await run(`Foreign key ${fk.name} of ${qualifiedName(t.schema, t.name)}`, this.foreignKeySql(t, fk, constraintName));
    }
    await this.addDefaults(tables);
  }

  /**
   * Column defaults of a PostgreSQL archive, set after the rows (so none is evaluated by the
   * restore); one that is not a single expression, or that PostgreSQL refuses (a sequence or
   * function the archive does not hold), is listed in notRecreated. Other dialects' are listed too.
   */
  private async addDefaults(tables: LoadTable[]): Promise<void> {
    const client = this.open();
    for (const t of tables) {
      for (const c of t.columns) {
        const expr = c.column.defaultValue?.trim();
        if (!expr) continue;
        const name = `${t.schema}.${t.name}.${c.column.name}`;
        if (!this.fromPostgres) {
          this.notRecreated.push({ kind: 'default', name, reason: `${this.product} expression` });
          continue;
        }
        // a top-level comma would add another ALTER TABLE action
        const problem = conditionProblem(expr, { topLevelComma: false });
        if (problem) {
          this.notRecreated.push({ kind: 'default', name, reason: `not one expression (${problem})` });
          continue;
        }
        // an identity column (introspect.ts writes PostgreSQL's clause with the next value)
        const identity = IDENTITY.test(expr);
        await client.query('SAVEPOINT add_default');
        try {
          const change = identity ? `ADD ${expr}` : `SET DEFAULT ${expr}`;
          await client.query({
            text: `ALTER TABLE ${qualifiedName(t.schema, t.name)} ALTER COLUMN ${quoteIdent(c.column.name)} ${change}`,
            queryMode: 'extended',
          } as pg.QueryConfig);
          await client.query('RELEASE SAVEPOINT add_default');
        } catch (err) {
          await client.query('ROLLBACK TO SAVEPOINT add_default');
          this.notRecreated.push({ kind: 'default', name, reason: `PostgreSQL refused ${expr} (${(err as Error).message})` });
        }
      }
    }
  }

  /**
   * Views of a PostgreSQL archive from their queryOriginal (pg_get_viewdef text), each in a
   * savepoint; a view over another view is retried once those exist.
   */
  async addViews(views: LoadView[], tables: LoadTable[] = []): Promise<void> {
    await this.addViewList(views);
    // a PostgreSQL trigger executes a function, and the archive carries no routines
    for (const t of tables) {
      for (const trigger of t.triggers) {
        this.notRecreated.push({
          kind: 'trigger',
          name: `${t.schema}.${t.name}.${trigger.name}`,
          reason: this.fromPostgres
            ? 'it calls a function, and the archive carries no routines'
            : `its action is in ${this.product}'s dialect`,
        });
      }
    }
  }

  private async addViewList(views: LoadView[]): Promise<void> {
    const client = this.open();
    const pending: Array<{ view: LoadView; query: string }> = [];
    for (const view of views) {
      const name = `${view.schema}.${view.name}`;
      const usable = viewQuery(view.queryOriginal?.trim().replace(/;\s*$/, ''), this.fromPostgres, this.product);
      if ('reason' in usable) {
        this.notRecreated.push({ kind: 'view', name, reason: usable.reason });
        continue;
      }
      const query = usable.query;
      const problem = conditionProblem(query);
      if (problem) this.notRecreated.push({ kind: 'view', name, reason: `its query is not one statement (${problem})` });
      else pending.push({ view, query });
    }
    const refused = await createInAnyOrder(pending, async (p) => {
      await client.query('SAVEPOINT add_view');
      try {
        await client.query({
          text: `CREATE VIEW ${qualifiedName(p.view.schema, p.view.name)} AS ${p.query}`,
          queryMode: 'extended',
        } as pg.QueryConfig);
        await client.query('RELEASE SAVEPOINT add_view');
        return undefined;
      } catch (err) {
        await client.query('ROLLBACK TO SAVEPOINT add_view');
        return (err as Error).message;
      }
    });
    for (const { item: p, error } of refused)
      this.notRecreated.push({ kind: 'view', name: `${p.view.schema}.${p.view.name}`, reason: `PostgreSQL refused it (${error})` });
  }

  private foreignKeySql(t: LoadTable, fk: SiardForeignKey, constraintName: (schema: string, name: string) => string): string {
    let sql =
      `ALTER TABLE ${qualifiedName(t.schema, t.name)} ADD ${constraintName(t.schema, fk.name)}FOREIGN KEY ` +
      `(${fk.references.map((r) => quoteIdent(r.column)).join(', ')}) ` +
      `REFERENCES ${qualifiedName(fk.referencedSchema, fk.referencedTable)} ` +
      `(${fk.references.map((r) => quoteIdent(r.referenced)).join(', ')})`;
    if (fk.matchType === 'FULL') sql += ' MATCH FULL';
    if (fk.deleteAction) sql += ` ON DELETE ${fk.deleteAction}`;
    if (fk.updateAction) sql += ` ON UPDATE ${fk.updateAction}`;
    return sql;
  }

  /** Rows the server said it stored in each table (COPY and INSERT command tags), this transaction; NaN when one did not say. */
  private readonly storedRows = new Map<LoadTable, number>();

  private stored(table: LoadTable, rows: number): void {
    this.storedRows.set(table, (this.storedRows.get(table) ?? 0) + rows);
  }

  /**
   * The rows the table holds: those the server said it stored in it (the table was created empty in
   * this transaction, and takes no trigger before the keys are added), else counted (a second
   * pass over the table: a quarter of a second per 5,000,000 rows).
   */
  async countRows(table: LoadTable): Promise<number> {
    const said = this.storedRows.get(table);
    if (said !== undefined && !Number.isNaN(said)) return said;
    const res = await this.open().query<{ n: string }>(`SELECT count(*)::text AS n FROM ${qualifiedName(table.schema, table.name)}`);
    return Number(res.rows[0]!.n);
  }

  async commit(): Promise<void> {
    const client = this.open();
    await client.query('COMMIT');
    await client.end();
    this.client = undefined;
  }

  async abort(): Promise<void> {
    if (this.client) {
      await this.client.query('ROLLBACK').catch(() => {});
      await this.client.end().catch(() => {});
      this.client = undefined;
    }
    await this.dropCreated();
  }

  private open(): pg.Client {
    if (!this.client) throw new Error('The PostgreSQL target is not open.');
    return this.client;
  }
}
