/**
 * Restore target: a MariaDB (or MySQL) database, `mysql://user:pw@host:port/db` or `mariadb://...`.
 *
 * Where tables go: an archive with one schema restores into the URL's database; with several,
 * the schema named like the URL's database goes there and every other schema into a database of
 * its own name (created when missing).
 *
 * All-or-nothing as far as MariaDB allows: DDL commits implicitly there, so the restore remembers
 * every table, view and database it created and drops them again when anything fails; rows go in
 * one transaction per table. Rows travel in multi-row INSERTs (bounded by rows and bytes); a LOB
 * over `inlineLobBytes` goes in a prepared INSERT of its own as a stream (the connector sends it
 * with COM_STMT_SEND_LONG_DATA), so it never sits whole in this process.
 *
 * Types: an archive made from MariaDB / MySQL gets its native types back from `typeOriginal`
 * (unsigned integers, BIT, YEAR, ENUM, SET, character sets and collations, geometry ...); its TIME
 * columns written as intervals and its zero-date columns written as text come back as TIME and
 * DATE/DATETIME. Other archives map SIARD types (docs/mysql.md):
 *
 * | SIARD                                  | MariaDB                                          |
 * |----------------------------------------|--------------------------------------------------|
 * | SMALLINT, INTEGER, BIGINT              | smallint, int, bigint                            |
 * | DECIMAL(p,s)                           | decimal(p,s) (p <= 65, s <= 30), else longtext of the digits |
 * | REAL; DOUBLE PRECISION, FLOAT          | float; double                                    |
 * | BOOLEAN                                | tinyint(1)                                       |
 * | CHAR(n), VARCHAR(n), n <= 255          | char(n), varchar(n) (utf8mb4_bin); text where a row would not fit (row-size.ts) |
 * | longer CHAR / VARCHAR, CLOB, XML       | text, mediumtext or longtext by size             |
 * | BINARY(n), VARBINARY(n), n <= 255      | binary(n), varbinary(n)                          |
 * | longer binary, BLOB                    | blob, mediumblob or longblob by size             |
 * | DATE; TIME[(p)]; TIMESTAMP[(p)]        | date; time(p); datetime(p) (p <= 6)              |
 * | ... WITH TIME ZONE                     | time(p) / datetime(p) holding UTC                |
 * | INTERVAL ...                           | varchar(100) of the xs:duration                  |
 * | ARRAY, UDT, DATALINK                   | longtext (ARRAY / UDT values as JSON)            |
 */
import { Readable } from 'node:stream';
import type * as mariadb from 'mariadb';
import { SiardOcflError } from '../../errors.js';
import { cellType, type SiardArchive, type SiardForeignKey } from '../../siard/model.js';
import {
  complexJson,
  eachRow,
  isLoadComplex,
  isLoadLob,
  type LoadColumn,
  type LoadLob,
  type LoadTable,
  type LoadValue,
  type LoadView,
  type NotRecreated,
  type TargetLoader,
  createInAnyOrder,
  viewQuery,
} from '../loader.js';
import { connectMysql, MYSQL_SESSION_SETTINGS, describeMysqlUrl, parseMysqlUrl, qualifiedMysqlName } from './connection.js';
import { GEOMETRY_INTERNAL_NOTE, GEOMETRY_WKB_NOTE } from './mysql-source.js';
import { durationToTime } from './type-mapping.js';
import { fitRowSize, INNODB_ROW_LIMIT } from './row-size.js';
import { quoteMysqlIdent } from '../sql-identifier.js';
import { mysqlStatementProblem } from '../sql-text.js';

export interface MysqlLoaderOptions {
  /** LOBs up to this many bytes go inside a multi-row INSERT; larger ones are streamed (default 1 MiB) */
  inlineLobBytes?: number;
  /** rows per INSERT (default 500) */
  batchRows?: number;
  /** bytes of values per INSERT before it is sent (default 4 MiB, under MariaDB's default max_allowed_packet) */
  batchBytes?: number;
  /** create the URL's database first (it must not exist); dropped again if the restore fails */
  create?: boolean;
  /** restore into a database that already holds tables or views (none of the archive's names) */
  intoExisting?: boolean;
}

/** Native types of a MariaDB / MySQL archive a restore recreates by name (COLUMN_TYPE plus charset / collation). */
const NATIVE_NAMES = [
  String.raw`(tiny|small|medium|big)?int(eger)?(\(\d+\))?( unsigned)?( zerofill)?`,
  String.raw`(decimal|numeric)(\(\d+(,\d+)?\))?( unsigned)?( zerofill)?`,
  String.raw`(float|double|real)(\(\d+,\d+\))?( unsigned)?( zerofill)?`,
  String.raw`bit(\(\d+\))?|year(\(4\))?|date|(datetime|timestamp|time)(\(\d\))?`,
  String.raw`(var)?char\(\d+\)|(var)?binary\(\d+\)|(tiny|medium|long)?(text|blob)|json`,
  'geometry|point|linestring|polygon|multipoint|multilinestring|multipolygon|geometrycollection|uuid|inet4|inet6',
  String.raw`(enum|set)\('(?:[^'\\]|''|\\.)*'(?:,'(?:[^'\\]|''|\\.)*')*\)`,
];
const NATIVE = new RegExp(String.raw`^(${NATIVE_NAMES.join('|')})( CHARACTER SET \w+)?( COLLATE \w+)?$`, 'i');

/** Notes the MariaDB source adds to column descriptions (not comments of the source database). */
const SOURCE_NOTES = [
  / ?MariaDB TIME values beyond a day or negative: [^]*?typeOriginal keeps the TIME type\./,
  / ?Holds zero dates [^]*?typeOriginal keeps the date type\./,
  new RegExp(` ?${GEOMETRY_WKB_NOTE.replace(/[()]/g, '\\$&')}; SRID \\d+\\.`),
  new RegExp(` ?${GEOMETRY_INTERNAL_NOTE.replace(/[().]/g, '\\$&')}`),
];

function textTypeBySize(chars: number): string {
  const bytes = chars * 4;
  if (bytes <= 65535) return 'text';
  if (bytes <= 16777215) return 'mediumtext';
  return 'longtext';
}

function blobTypeBySize(bytes: number): string {
  if (bytes <= 65535) return 'blob';
  if (bytes <= 16777215) return 'mediumblob';
  return 'longblob';
}

/** MariaDB type for a SIARD predefined type (archives from other databases). */
function mysqlTypeOfSiard(type: string | undefined): string {
  const t = (type ?? '').trim().toUpperCase().replace(/\s+/g, ' ');
  const size = /\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/.exec(t);
  const n = size ? Number(size[1]) : undefined;
  if (/^(INTEGER|INT)$/.test(t)) return 'int';
  if (t === 'SMALLINT') return 'smallint';
  if (t === 'BIGINT') return 'bigint';
  if (/^(NUMERIC|DECIMAL|DEC)\b/.test(t)) {
    const s = size?.[2] ? Number(size[2]) : 0;
    if (n === undefined) return 'decimal(65,30)';
    return n <= 65 && s <= 30 ? `decimal(${n},${s})` : 'longtext';
  }
  if (t === 'REAL') return 'float';
  if (/^(DOUBLE PRECISION|FLOAT)\b/.test(t)) return 'double';
  if (t === 'BOOLEAN') return 'tinyint(1)';
  if (/^(CHARACTER LARGE OBJECT|CLOB|NATIONAL CHARACTER LARGE OBJECT|NCHAR LARGE OBJECT|NCLOB|XML)\b/.test(t)) return 'longtext';
  if (/^(BINARY LARGE OBJECT|BLOB)\b/.test(t)) return 'longblob';
  if (/^(BINARY VARYING|VARBINARY)\b/.test(t)) return n !== undefined && n <= 255 ? `varbinary(${n})` : blobTypeBySize(n ?? 2 ** 32);
  if (/^BINARY\b/.test(t)) return n !== undefined && n <= 255 ? `binary(${n})` : blobTypeBySize(n ?? 1);
  if (/^(CHARACTER VARYING|CHAR VARYING|VARCHAR|NATIONAL CHARACTER VARYING|NATIONAL CHAR VARYING|NCHAR VARYING)\b/.test(t)) {
    return n !== undefined && n <= 255 ? `varchar(${n})` : textTypeBySize(n ?? 2 ** 30);
  }
  if (/^(CHARACTER|CHAR|NATIONAL CHARACTER|NATIONAL CHAR|NCHAR)\b/.test(t))
    return n === undefined ? 'char(1)' : n <= 255 ? `char(${n})` : textTypeBySize(n);
  if (t === 'DATE') return 'date';
  const p = (text: string) => Math.min(6, Number(/\((\d+)\)/.exec(text)?.[1] ?? (text.startsWith('TIMESTAMP') ? 6 : 0)));
  if (/^TIMESTAMP\b/.test(t)) return `datetime(${p(t)})`;
  if (/^TIME\b/.test(t)) return `time(${p(t)})`;
  if (/^INTERVAL\b/.test(t)) return 'varchar(100)';
  return 'longtext';
}

/** "2020-01-02T03:04:05.5+02:00" -> "2020-01-02 01:04:05.5" (UTC, no zone), date and time alike. */
function toUtcText(text: string, what: 'timestamp' | 'time'): string {
  const re =
    what === 'timestamp'
      ? /^(\d{4}-\d\d-\d\d)[T ](\d\d):(\d\d):(\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)?$/
      : /^()(\d\d):(\d\d):(\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)?$/;
  const m = re.exec(text.trim());
  if (!m) throw new Error(`"${text}" is not a SIARD ${what}`);
  const [, date, hh, mi, ss, frac = '', zone = 'Z'] = m;
  if (frac.length > 7 && /[1-9]/.test(frac.slice(7)))
    throw new Error(`"${text}" has more than 6 fractional digits, which MariaDB cannot hold`);
  const f = frac.slice(0, 7).replace(/\.?0*$/, '');
  if (zone === 'Z' || zone === '+00:00' || zone === '-00:00') return `${what === 'timestamp' ? `${date} ` : ''}${hh}:${mi}:${ss}${f}`;
  const sign = zone.startsWith('-') ? -1 : 1;
  const offset = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const base = what === 'timestamp' ? Date.parse(`${date}T${hh}:${mi}:${ss}Z`) : Date.UTC(2000, 0, 1, Number(hh), Number(mi), Number(ss));
  const utc = new Date(base - offset * 60_000).toISOString(); // YYYY-MM-DDThh:mm:ss.sssZ
  return what === 'timestamp' ? `${utc.slice(0, 10)} ${utc.slice(11, 19)}${f}` : `${utc.slice(11, 19)}${f}`;
}

/** SQL for one cell: a literal, or a placeholder and its parameter (a stream for a long LOB). */
interface CellSql {
  sql: string;
  param?: unknown;
  bytes: number;
  stream?: boolean;
}

interface ColumnTarget {
  /** the MariaDB column type */
  type: string;
  /** how values are turned into parameters */
  kind:
    | 'plain'
    | 'enum'
    | 'geometryText'
    | 'boolean'
    | 'float'
    | 'date'
    | 'timestamp'
    | 'time'
    | 'bytes'
    | 'text'
    | 'json'
    | 'geometryWkb'
    | 'geometryRaw';
  srid?: number;
}

interface Created {
  tables: string[];
  views: string[];
  databases: string[];
}

export class MysqlLoader implements TargetLoader {
  readonly description: string;
  readonly warnings: string[] = [];
  readonly notRecreated: NotRecreated[] = [];
  private conn: mariadb.Connection | undefined;
  private fromMysql = false;
  private product = 'another database';
  private readonly database: string;
  private readonly schemaDb = new Map<string, string>();
  private readonly targets = new Map<LoadTable, ColumnTarget[]>();
  private readonly created: Created = { tables: [], views: [], databases: [] };
  private readonly inlineLobBytes: number;
  private readonly batchRows: number;
  private readonly batchBytes: number;

  constructor(
    private readonly url: string,
    private readonly options: MysqlLoaderOptions = {},
  ) {
    this.description = describeMysqlUrl(url);
    this.database = parseMysqlUrl(url).database;
    this.inlineLobBytes = options.inlineLobBytes ?? 1024 * 1024;
    this.batchRows = options.batchRows ?? 500;
    this.batchBytes = options.batchBytes ?? 4 * 1024 * 1024;
  }

  private open(): mariadb.Connection {
    if (!this.conn) throw new Error('The MariaDB target is not open.');
    return this.conn;
  }

  private async query<T = unknown>(sql: string, values: unknown[] = []): Promise<T> {
    return (await this.open().query({ sql, bigIntAsNumber: false } as mariadb.QueryOptions, values)) as T;
  }

  async begin(archive: SiardArchive, tables: LoadTable[]): Promise<void> {
    this.fromMysql = /^(mariadb|mysql)\b/i.test(archive.databaseProduct ?? '');
    this.product = archive.databaseProduct?.split(' ')[0] ?? 'another database';
    const schemas = [...new Set([...tables.map((t) => t.schema), ...archive.schemas.map((s) => s.name)])];
    for (const s of schemas) this.schemaDb.set(s, schemas.length === 1 || s === this.database ? this.database : s);
    this.conn = await connectMysql(this.url, { database: null });
    try {
      const exists = async (db: string) =>
        (await this.query<unknown[]>('SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [db])).length > 0;
      if (!(await exists(this.database))) {
        if (!this.options.create) {
          throw new SiardOcflError(
            `Database "${this.database}" does not exist on the MariaDB/MySQL server at ${this.description.replace(/\/.*$/, '')};` +
              ` add --create to create it.`,
            { code: 'TARGET_UNUSABLE' },
          );
        }
      } else if (this.options.create) {
        throw new SiardOcflError(
          `Cannot create the database ${this.description}: it already exists; leave out --create to restore into it.`,
          { code: 'TARGET_NOT_EMPTY' },
        );
      }
      for (const t of tables) {
        const db = this.dbOf(t.schema);
        const found = await this.query<unknown[]>('SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?', [
          db,
          t.name,
        ]);
        if (found.length > 0)
          throw new SiardOcflError(`Cannot restore into ${this.description}: it already has a table ${qualifiedMysqlName(db, t.name)}.`, {
            code: 'TARGET_NOT_EMPTY',
          });
      }
      if (!this.options.intoExisting) {
        const dbs = [...new Set(this.schemaDb.values())];
        const present = await this.query<Array<{ n: string }>>(
          `SELECT CONCAT(TABLE_SCHEMA, '.', TABLE_NAME) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA IN ` +
            `(${dbs.map(() => '?').join(', ')}) ORDER BY 1 LIMIT 3`,
          dbs,
        );
        if (present.length > 0) {
          throw new SiardOcflError(
            `Cannot restore into ${this.description}: it is not empty (e.g. ${present.map((r) => r.n).join(', ')}); add ` +
              `--into-existing to restore beside them.`,
            { code: 'TARGET_NOT_EMPTY' },
          );
        }
      }
      // The URL's database too: with several schemas none may be named like it, and it is USEd below.
      for (const db of new Set([this.database, ...this.schemaDb.values()])) {
        if (await exists(db)) continue;
        await this.query(`CREATE DATABASE ${quoteMysqlIdent(db)} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
        this.created.databases.push(db);
      }
      await this.query(`USE ${quoteMysqlIdent(this.database)}`);
    } catch (err) {
      await this.abort();
      throw err;
    }
  }

  private dbOf(schema: string): string {
    return this.schemaDb.get(schema) ?? this.database;
  }

  private nameOf(table: { schema: string; name: string }): string {
    return qualifiedMysqlName(this.dbOf(table.schema), table.name);
  }

  targetName(table: LoadTable): string {
    return `${this.dbOf(table.schema)}.${table.name}`;
  }

  /** The column's MariaDB type and value handling. */
  targetOf(col: LoadColumn): ColumnTarget {
    const original = (col.column.typeOriginal ?? '').trim();
    const description = col.column.description ?? '';
    if (this.fromMysql && !col.array && col.family !== undefined && NATIVE.test(original)) {
      const base = original.toLowerCase();
      if (/^(geometry|point|linestring|polygon|multipoint|multilinestring|multipolygon|geometrycollection)\b/.test(base)) {
        if (description.includes(GEOMETRY_INTERNAL_NOTE)) return { type: original, kind: 'geometryRaw' };
        // other tools archive geometry as WKT text (SIARD Suite's sakila) or as MariaDB's own bytes
        if (col.family === 'char' || col.family === 'clob') return { type: original, kind: 'geometryText' };
        if (!description.includes(GEOMETRY_WKB_NOTE)) return { type: original, kind: 'geometryRaw' };
        const srid = new RegExp(`${GEOMETRY_WKB_NOTE.replace(/[()]/g, '\\$&')}; SRID (\\d+)`).exec(description)?.[1];
        return { type: original, kind: 'geometryWkb', srid: Number(srid ?? 0) };
      }
      if (/^bit\(1\)$/.test(base) || (/^bit$/.test(base) && col.family === 'boolean')) return { type: original, kind: 'boolean' };
      if (/^(bit|(var)?binary|(tiny|medium|long)?blob)\b/.test(base)) return { type: original, kind: 'bytes' };
      if (/^(datetime|timestamp)\b/.test(base)) return { type: original, kind: col.family === 'char' ? 'plain' : 'timestamp' };
      if (/^date\b/.test(base)) return { type: original, kind: col.family === 'char' ? 'plain' : 'date' };
      if (/^time\b/.test(base)) return { type: original, kind: 'time' };
      if (/^(float|double|real)\b/.test(base)) return { type: original, kind: 'float' };
      if (/^((tiny|medium|long)?text|json)\b/.test(base)) return { type: original, kind: 'text' };
      if (/^enum\(/.test(base)) return { type: original, kind: 'enum' };
      return { type: original, kind: 'plain' };
    }
    if (col.array || col.family === undefined) return { type: 'longtext', kind: 'json' };
    const type = mysqlTypeOfSiard(cellType(col.column));
    switch (col.family) {
      case 'boolean':
        return { type, kind: 'boolean' };
      case 'float':
        return { type, kind: 'float' };
      case 'date':
        return { type, kind: 'date' };
      case 'timestamp':
        return { type, kind: 'timestamp' };
      case 'time':
        return { type, kind: 'time' };
      case 'binary':
      case 'blob':
        return { type, kind: 'bytes' };
      case 'clob':
      case 'xml':
      case 'char':
        return { type, kind: 'text' };
      default:
        return { type, kind: 'plain' };
    }
  }

  /** A description as a comment: without the notes the MariaDB source added; undefined when too long. */
  private comment(description: string | undefined, limit: number, what: string): string | undefined {
    let text = description ?? '';
    if (this.fromMysql) for (const note of SOURCE_NOTES) text = text.replace(note, '');
    text = text.trim();
    if (!text) return undefined;
    if ([...text].length > limit) {
      this.warnings.push(
        `The description of ${what} is longer than MariaDB's ${limit}-character comment limit; it is not restored as a comment.`,
      );
      return undefined;
    }
    // MariaDB keeps comments in utf8mb3: a character beyond U+FFFF (an emoji) would come back as '?'.
    if (/[\ud800-\udfff]/.test(text)) {
      this.warnings.push(
        `The description of ${what} holds characters beyond U+FFFF, which MariaDB comments cannot hold; it is not restored as a comment.`,
      );
      return undefined;
    }
    return text;
  }

  async createTable(table: LoadTable): Promise<void> {
    const targets = table.columns.map((c) => this.targetOf(c));
    // a key's columns keep their type (MariaDB indexes no text without a prefix length)
    const keyed = new Set([table.primaryKey, ...table.candidateKeys].flatMap((k) => k?.columns ?? []));
    for (const k of table.foreignKeys) for (const r of k.references) keyed.add(r.column);
    const fitted = fitRowSize(
      targets.map((t) => t.type),
      table.columns.map((c) => keyed.has(c.column.name)),
    );
    for (const i of fitted.changed) targets[i] = { ...targets[i]!, type: 'text' };
    if (fitted.changed.length > 0)
      this.warnings.push(
        `${fitted.changed.length} character columns of ${this.targetName(table)} are restored as text: as declared, a row ` +
          `could pass InnoDB's ${INNODB_ROW_LIMIT}-byte limit (the values are the same; their length limit is gone).`,
      );
    this.targets.set(table, targets);
    const cols = table.columns.map((c, i) => {
      let def = `${quoteMysqlIdent(c.column.name)} ${targets[i]!.type}${c.column.nullable === false ? ' NOT NULL' : ' NULL'}`;
      const comment = this.comment(c.column.description, 1024, `column ${this.targetName(table)}.${c.column.name}`);
      if (comment !== undefined) def += ` COMMENT ?`;
      return { def, comment };
    });
    const tableComment = this.comment(table.description, 2048, `table ${this.targetName(table)}`);
    const params = cols.filter((c) => c.comment !== undefined).map((c) => c.comment);
    let sql =
      `CREATE TABLE ${this.nameOf(table)} (${cols.map((c) => c.def).join(', ')}) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 ` +
      `COLLATE=utf8mb4_bin`;
    if (tableComment !== undefined) {
      sql += ' COMMENT=?';
      params.push(tableComment);
    }
    try {
      await this.query(sql, params);
    } catch (err) {
      throw new SiardOcflError(`Cannot create table ${this.targetName(table)} in ${this.description}: ${sqlMessage(err)}.`, {
        code: 'RESTORE_CREATE',
        exitCode: 1,
        cause: err,
      });
    }
    this.created.tables.push(this.nameOf(table));
  }

  async insertRows(table: LoadTable, batches: AsyncIterable<LoadValue[][]>, onRow?: () => void): Promise<number> {
    const rows = eachRow(batches);
    const targets = this.targets.get(table) ?? table.columns.map((c) => this.targetOf(c));
    const head = `INSERT INTO ${this.nameOf(table)} VALUES `;
    let tuples: string[] = [];
    let params: unknown[] = [];
    let bytes = 0;
    let n = 0;
    const fail = (first: number, last: number, err: unknown): never => {
      throw new SiardOcflError(`Table ${this.targetName(table)}, rows ${first}-${last}: MariaDB refused them (${sqlMessage(err)}).`, {
        code: 'RESTORE_INSERT',
        exitCode: 1,
        cause: err,
      });
    };
    const flush = async (): Promise<void> => {
      if (tuples.length === 0) return;
      try {
        await this.query(head + tuples.join(', '), params);
      } catch (err) {
        fail(n - tuples.length + 1, n, err);
      }
      tuples = [];
      params = [];
      bytes = 0;
    };
    await this.query('START TRANSACTION');
    for await (const row of rows) {
      n++;
      const { cells, rowParams, streamed, rowBytes, errorValues } = await this.rowCells(table, targets, row, n);
      if (streamed || errorValues.length > 0) {
        // a large LOB: its own prepared INSERT, the stream sent in pieces; an ENUM error value:
        // its own INSERT in a non-strict session, which must warn about that column and no other
        await flush();
        const sql = `INSERT INTO ${this.nameOf(table)} VALUES (${cells.join(', ')})`;
        try {
          if (errorValues.length > 0) await this.query("SET SESSION sql_mode = 'NO_ENGINE_SUBSTITUTION,NO_AUTO_VALUE_ON_ZERO'");
          await this.open().execute({ sql } as mariadb.QueryOptions, rowParams);
          if (errorValues.length > 0) {
            const warnings = await this.query<Array<{ Message: string }>>('SHOW WARNINGS');
            const other = warnings.filter((w) => !errorValues.some((c) => w.Message === `Data truncated for column '${c}' at row 1`));
            if (other.length > 0) throw new Error(other.map((w) => w.Message).join('; '));
          }
        } catch (err) {
          fail(n, n, err);
        } finally {
          if (errorValues.length > 0) await this.query(MYSQL_SESSION_SETTINGS[2]!);
        }
      } else {
        tuples.push(`(${cells.join(', ')})`);
        params.push(...rowParams);
        bytes += rowBytes;
        if (tuples.length >= this.batchRows || bytes >= this.batchBytes) await flush();
      }
      onRow?.();
    }
    await flush();
    await this.query('COMMIT');
    return n;
  }

  /** The SQL of one row's cells, their parameters, and what decides how the row is sent. */
  private async rowCells(table: LoadTable, targets: ColumnTarget[], row: LoadValue[], n: number) {
    const cells: string[] = [];
    const rowParams: unknown[] = [];
    let streamed = false;
    let rowBytes = 0;
    const errorValues: string[] = [];
    for (let c = 0; c < table.columns.length; c++) {
      const col = table.columns[c]!;
      try {
        const cell = await this.cell(targets[c]!, row[c] ?? null);
        cells.push(cell.sql);
        if ('param' in cell) rowParams.push(cell.param);
        rowBytes += cell.bytes;
        if (cell.stream) streamed = true;
        // '' in an ENUM is MariaDB's error value, which only a non-strict session stores
        if (targets[c]!.kind === 'enum' && row[c] === '') errorValues.push(col.column.name);
      } catch (err) {
        if (err instanceof SiardOcflError) throw err;
        throw new SiardOcflError(`Table ${this.targetName(table)}, row ${n}, column "${col.column.name}": ${(err as Error).message}.`, {
          code: 'RESTORE_VALUE',
          exitCode: 1,
          cause: err,
        });
      }
    }
    return { cells, rowParams, streamed, rowBytes, errorValues };
  }

  /** SQL for one cell, with its parameter (absent for literals). */
  private async cell(target: ColumnTarget, value: LoadValue): Promise<CellSql> {
    if (value === null) return { sql: 'NULL', bytes: 4 };
    const asText =
      target.kind === 'text' ||
      target.kind === 'json' ||
      target.kind === 'plain' ||
      target.kind === 'date' ||
      target.kind === 'time' ||
      target.kind === 'timestamp' ||
      target.kind === 'float' ||
      target.kind === 'boolean';
    const wrap = (placeholder: string): string => {
      if (target.kind === 'geometryWkb') return `ST_GeomFromWKB(${placeholder}, ${target.srid ?? 0})`;
      if (target.kind === 'geometryText') return `ST_GeomFromText(CONVERT(${placeholder} USING utf8mb4))`;
      return asText ? `CONVERT(${placeholder} USING utf8mb4)` : placeholder;
    };
    if (isLoadLob(value)) return this.lobCell(value, wrap);
    if (isLoadComplex(value)) {
      const json = JSON.stringify(await complexJson(value));
      return { sql: '?', param: json, bytes: json.length };
    }
    if (value instanceof Uint8Array) {
      const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      if (target.kind === 'geometryWkb' || target.kind === 'geometryText') return { sql: wrap('?'), param: bytes, bytes: bytes.length };
      if (asText) return { sql: wrap('?'), param: bytes, bytes: bytes.length };
      return { sql: '?', param: bytes, bytes: bytes.length };
    }
    return textCell(target, value, wrap);
  }

  /** A LOB cell: up to the inline limit it is one parameter; beyond it, streamed behind what was read. */
  private async lobCell(value: LoadLob, wrap: (placeholder: string) => string): Promise<CellSql> {
    const it = value.chunks[Symbol.asyncIterator]();
    const held: Buffer[] = [];
    let size = 0;
    let done = false;
    while (size <= this.inlineLobBytes) {
      const r = await it.next();
      if (r.done) {
        done = true;
        break;
      }
      held.push(Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength));
      size += r.value.byteLength;
    }
    if (done) {
      const bytes = Buffer.concat(held);
      return { sql: wrap('?'), param: bytes, bytes: bytes.length };
    }
    const rest = async function* (): AsyncGenerator<Buffer> {
      yield* held;
      for (;;) {
        const r = await it.next();
        if (r.done) return;
        yield Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength);
      }
    };
    return { sql: wrap('?'), param: Readable.from(rest(), { objectMode: false }), bytes: size, stream: true };
  }

  async addKeys(tables: LoadTable[]): Promise<void> {
    const run = async (what: string, sql: string, params: unknown[] = []): Promise<boolean> => {
      try {
        await this.query(sql, params);
        return true;
      } catch (err) {
        this.warnings.push(`${what} was not added: ${sqlMessage(err)}.`);
        return false;
      }
    };
    const cols = (names: string[]) => names.map(quoteMysqlIdent).join(', ');
    for (const t of tables) {
      const name = this.nameOf(t);
      const where = this.targetName(t);
      if (t.primaryKey && t.primaryKey.columns.length > 0)
        await run(`Primary key ${t.primaryKey.name} of ${where}`, `ALTER TABLE ${name} ADD PRIMARY KEY (${cols(t.primaryKey.columns)})`);
      for (const key of t.candidateKeys)
        await run(
          `Unique key ${key.name} of ${where}`,
          `ALTER TABLE ${name} ADD CONSTRAINT ${quoteMysqlIdent(key.name)} UNIQUE (${cols(key.columns)})`,
        );
      // conditions in MariaDB's dialect come back; others are tried and a refusal is a warning
      for (const check of t.checkConstraints) {
        if (check.condition.trim() === '') continue;
        const problem = mysqlStatementProblem(check.condition);
        if (problem) {
          this.notRecreated.push({
            kind: 'check',
            name: `${where}.${check.name}`,
            reason: `its condition is not one expression (${problem})`,
          });
          continue;
        }
        await run(
          `Check constraint ${check.name} of ${where}`,
          `ALTER TABLE ${name} ADD CONSTRAINT ${quoteMysqlIdent(check.name)} CHECK (${check.condition})`,
        );
      }
    }
    for (const t of tables) {
      for (const fk of t.foreignKeys) await run(`Foreign key ${fk.name} of ${this.targetName(t)}`, this.foreignKeySql(t, fk));
    }
    await this.addDefaults(tables);
  }

  private foreignKeySql(t: LoadTable, fk: SiardForeignKey): string {
    const referenced = qualifiedMysqlName(this.dbOf(fk.referencedSchema), fk.referencedTable);
    let sql =
      `ALTER TABLE ${this.nameOf(t)} ADD CONSTRAINT ${quoteMysqlIdent(fk.name)} FOREIGN KEY ` +
      `(${fk.references.map((r) => quoteMysqlIdent(r.column)).join(', ')}) ` +
      `REFERENCES ${referenced} (${fk.references.map((r) => quoteMysqlIdent(r.referenced)).join(', ')})`;
    if (fk.deleteAction) sql += ` ON DELETE ${fk.deleteAction}`;
    if (fk.updateAction) sql += ` ON UPDATE ${fk.updateAction}`;
    return sql;
  }

  /** Column defaults of a MariaDB / MySQL archive, set after the rows; others are listed. */
  private async addDefaults(tables: LoadTable[]): Promise<void> {
    for (const t of tables) {
      for (const c of t.columns) {
        const expr = c.column.defaultValue?.trim();
        if (!expr) continue;
        const name = `${this.targetName(t)}.${c.column.name}`;
        if (!this.fromMysql) {
          this.notRecreated.push({ kind: 'default', name, reason: `${this.product} expression` });
          continue;
        }
        const problem = mysqlStatementProblem(expr);
        if (problem) {
          this.notRecreated.push({ kind: 'default', name, reason: `not one expression (${problem})` });
          continue;
        }
        try {
          await this.query(
            `ALTER TABLE ${this.nameOf(t)} ALTER COLUMN ${quoteMysqlIdent(c.column.name)} SET ` +
              `DEFAULT ${/^'|^-?\d|^NULL$/i.test(expr) ? expr : `(${expr})`}`,
          );
        } catch (err) {
          this.notRecreated.push({ kind: 'default', name, reason: `MariaDB refused ${expr} (${sqlMessage(err)})` });
        }
      }
    }
  }

  async addViews(views: LoadView[], tables: LoadTable[] = []): Promise<void> {
    const pending: Array<{ view: LoadView; query: string }> = [];
    for (const view of views) {
      const name = `${this.dbOf(view.schema)}.${view.name}`;
      const usable = viewQuery(view.queryOriginal?.trim().replace(/;\s*$/, ''), this.fromMysql, this.product);
      if ('reason' in usable) {
        this.notRecreated.push({ kind: 'view', name, reason: usable.reason });
        continue;
      }
      let query = usable.query;
      const problem = mysqlStatementProblem(query);
      if (problem) {
        this.notRecreated.push({ kind: 'view', name, reason: `its query is not one statement (${problem})` });
        continue;
      }
      // MariaDB qualifies every name with the archived database: point them at the target's
      for (const [schema, db] of this.schemaDb) query = query.split(`${quoteMysqlIdent(schema)}.`).join(`${quoteMysqlIdent(db)}.`);
      pending.push({ view, query });
    }
    const refused = await createInAnyOrder(pending, async (p) => {
      const name = qualifiedMysqlName(this.dbOf(p.view.schema), p.view.name);
      try {
        await this.query(`CREATE VIEW ${name} AS ${p.query}`);
      } catch (err) {
        return sqlMessage(err);
      }
      this.created.views.push(name);
      return undefined;
    });
    for (const { item: p, error } of refused)
      this.notRecreated.push({
        kind: 'view',
        name: `${this.dbOf(p.view.schema)}.${p.view.name}`,
        reason: `MariaDB refused it (${error})`,
      });
    // a trigger body may hold several statements; a restore runs no code from an archive
    for (const t of tables) {
      for (const trigger of t.triggers) {
        this.notRecreated.push({
          kind: 'trigger',
          name: `${this.targetName(t)}.${trigger.name}`,
          reason: this.fromMysql ? 'a restore does not run trigger bodies from an archive' : `its action is in ${this.product}'s dialect`,
        });
      }
    }
  }

  async countRows(table: LoadTable): Promise<number> {
    const res = await this.query<Array<{ n: bigint | number }>>(`SELECT COUNT(*) AS n FROM ${this.nameOf(table)}`);
    return Number(res[0]!.n);
  }

  async commit(): Promise<void> {
    await this.query('COMMIT');
    await this.open().end();
    this.conn = undefined;
  }

  /** Drops what this restore created (views, tables, databases); safe after a failure at any point. */
  async abort(): Promise<void> {
    const conn = this.conn;
    if (!conn) return;
    await conn.query('ROLLBACK').catch(() => {});
    await conn.query('SET FOREIGN_KEY_CHECKS = 0').catch(() => {});
    for (const v of this.created.views.reverse()) await conn.query(`DROP VIEW IF EXISTS ${v}`).catch(() => {});
    for (const t of this.created.tables.reverse()) await conn.query(`DROP TABLE IF EXISTS ${t}`).catch(() => {});
    for (const d of this.created.databases.reverse()) await conn.query(`DROP DATABASE IF EXISTS ${quoteMysqlIdent(d)}`).catch(() => {});
    this.created.views = [];
    this.created.tables = [];
    this.created.databases = [];
    await conn.end().catch(() => {});
    this.conn = undefined;
  }
}

function sqlMessage(err: unknown): string {
  const e = err as { sqlMessage?: string; message?: string };
  return (e?.sqlMessage ?? e?.message ?? String(err))
    .split('\n')[0]!
    .replace(/^\(conn[^)]*\)\s*/, '')
    .replace(/[.\s]+$/, '');
}

/** A cell given as text, converted for its column's kind. */
function textCell(target: ColumnTarget, text: string, wrap: (placeholder: string) => string): CellSql {
  switch (target.kind) {
    case 'boolean': {
      const v = /^(true|1)$/i.test(text.trim()) ? 1 : /^(false|0)$/i.test(text.trim()) ? 0 : undefined;
      if (v === undefined) throw new Error(`"${text}" is not a boolean`);
      return { sql: String(v), bytes: 1 };
    }
    case 'float':
      if (/^(-?INF|NaN)$/.test(text.trim())) throw new Error(`MariaDB cannot store the floating-point value ${text.trim()}`);
      return { sql: '?', param: text.trim(), bytes: text.length };
    case 'date':
      return { sql: '?', param: text.trim().replace(/(Z|[+-]\d\d:\d\d)$/, ''), bytes: text.length };
    case 'timestamp':
      return { sql: '?', param: toUtcText(text, 'timestamp'), bytes: text.length };
    case 'time': {
      const t = text.trim();
      if (/^-?P/.test(t)) {
        const time = durationToTime(t);
        if (time === undefined) throw new Error(`interval "${t}" has years or months, which a TIME cannot hold`);
        return { sql: '?', param: time, bytes: t.length };
      }
      return { sql: '?', param: toUtcText(t, 'time'), bytes: t.length };
    }
    case 'bytes':
    case 'geometryWkb':
    case 'geometryRaw': {
      const bytes = Buffer.from(text, 'hex');
      return { sql: target.kind === 'geometryWkb' ? wrap('?') : '?', param: bytes, bytes: bytes.length };
    }
    case 'geometryText':
      return { sql: wrap('?'), param: text, bytes: Buffer.byteLength(text) };
    default:
      return { sql: '?', param: text, bytes: Buffer.byteLength(text) };
  }
}
