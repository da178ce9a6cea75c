/**
 * Restore target: a SQLite file (better-sqlite3).
 *
 * All-or-nothing: a new file is built under a temporary name beside the target and renamed into
 * place on commit; an existing file gets the tables inside one transaction, rolled back on failure.
 * Keys are declared with the table (SQLite cannot add them later); foreign keys are not enforced
 * while loading (SQLite's default), so tables load in any order.
 *
 * Types: an archive made from SQLite gets its declared types back (`typeOriginal`), so every value
 * keeps its storage class. Other archives map SIARD types to SQLite ones:
 *
 * | SIARD                           | SQLite declared type | value stored                                  |
 * |---------------------------------|----------------------|-----------------------------------------------|
 * | SMALLINT, INTEGER, BIGINT       | INTEGER              | integer                                       |
 * | DECIMAL(p,s) with p <= 15       | NUMERIC              | integer or real (SQLite's NUMERIC affinity)   |
 * | DECIMAL / DECIMAL(p,s), p > 15  | TEXT                 | the exact digits as text                      |
 * | REAL, DOUBLE PRECISION, FLOAT   | REAL                 | real (INF/-INF as infinities; NaN -> NULL, SQLite has none) |
 * | BOOLEAN                         | BOOLEAN              | 0 / 1                                         |
 * | CHAR, VARCHAR, CLOB, XML, INTERVAL, DATALINK, UDT | TEXT | text (UDT and ARRAY values as JSON)        |
 * | BINARY, VARBINARY, BLOB         | BLOB                 | bytes                                         |
 * | DATE / TIME / TIMESTAMP         | DATE / TIME / TIMESTAMP | 'YYYY-MM-DD', 'hh:mm:ss', 'YYYY-MM-DD hh:mm:ss[.f]' (UTC) |
 * | ... WITH TIME ZONE              | TIME / TIMESTAMP     | the SIARD text (ISO 8601 with Z or offset)    |
 *
 * A column written as SQLite literals (mimeType text/x-sqlite-literal, value-literal.ts) gets each
 * value back with its storage class: 42 an integer, 1.0 a real, 'x' text, X'00' a blob.
 *
 * ARRAY columns become TEXT holding a JSON array (`complexJson` in ../loader.ts): item i is the
 * archived element a(i+1) as a JSON string in its SIARD lexical form (digits exactly, dates with Z,
 * binary as hex), null for a NULL element, [] for an empty array; a NULL cell stays NULL. So
 * `json_extract(col, '$[0]')` reads a1 and nothing is rounded. UDT values are JSON objects u1, u2 ...
 *
 * An archive made from SQLite also gets its column defaults and CHECK constraints back (declared in
 * CREATE TABLE, the only place SQLite takes them; checks are not enforced while the rows load, and a
 * row that violates one afterwards, as it did in the source, is a warning), its views and triggers
 * (the archived CREATE VIEW / CREATE TRIGGER statements, one statement each, after the rows).
 * Defaults, checks, views and triggers of archives from other databases are in their dialect, so
 * they are listed in notRecreated instead.
 *
 * Memory: better-sqlite3 has no incremental BLOB I/O, so each LOB is held whole while its row is
 * inserted (SQLite's own limit is 1 GB per value).
 */
import type BetterSqlite3 from 'better-sqlite3';
import Database from './driver.js';
import { existsSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { SiardOcflError } from '../../errors.js';
import type { SiardArchive } from '../../siard/model.js';
import { parseSqliteLiteral, SQLITE_LITERAL_MIME } from './value-literal.js';
import {
  collectLob,
  complexJson,
  hasTimeZone,
  isLoadComplex,
  isLoadLob,
  withoutUtcMark,
  type LoadColumn,
  type LoadTable,
  type LoadValue,
  type LoadView,
  type NotRecreated,
  type TargetLoader,
  viewQuery,
} from '../loader.js';
import { conditionProblem } from '../sql-text.js';
import { quoteIdent } from '../sql-identifier.js';
import { restoreValueError } from '../restore-value-error.js';

/** A default SQLite takes without parentheses (PRAGMA table_info gives other expressions without theirs). */
const SQLITE_LITERAL = new RegExp(
  String.raw`^([+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|'([^']|'')*'|[xX]'[0-9A-Fa-f]*'|` +
    'NULL|TRUE|FALSE|CURRENT_TIME|CURRENT_DATE|CURRENT_TIMESTAMP)$',
  'i',
);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** SQLite declared type of a column of an archive not made from SQLite. */
function sqliteTypeOf(col: LoadColumn): string {
  if (col.array || col.family === undefined) return 'TEXT';
  const type = (col.column.type ?? '').toUpperCase();
  switch (col.family) {
    case 'integer':
      return 'INTEGER';
    case 'decimal': {
      const m = /\(\s*(\d+)/.exec(type);
      return m && Number(m[1]) <= 15 ? 'NUMERIC' : 'TEXT';
    }
    case 'float':
      return 'REAL';
    case 'boolean':
      return 'BOOLEAN';
    case 'binary':
    case 'blob':
      return 'BLOB';
    case 'date':
      return 'DATE';
    case 'time':
      return 'TIME';
    case 'timestamp':
      return 'TIMESTAMP';
    default:
      return 'TEXT';
  }
}

const INTEGER_TEXT = /^[+-]?\d+$/;

/** The integer `text` spells when it fits SQLite's 64 bits (parsed once), else undefined. */
function int64(text: string): bigint | undefined {
  if (!INTEGER_TEXT.test(text)) return undefined;
  const n = BigInt(text);
  return n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
}

/** A value bindValue could not bind without awaiting. */
const NOT_PLAIN = Symbol('not plain');

/** Families whose text binds unchanged (bindText's default). */
const PLAIN_TEXT_FAMILIES = new Set(['char', 'clob', 'xml', 'interval', 'datalink']);

export class SqliteLoader implements TargetLoader {
  readonly description: string;
  private db: BetterSqlite3.Database | undefined;
  private readonly target: string;
  private workFile: string | undefined;
  private fromSqlite = false;
  private product = 'another database';
  private names = new Map<LoadTable, string>();
  readonly notRecreated: NotRecreated[] = [];
  readonly warnings: string[] = [];

  constructor(file: string) {
    this.target = path.resolve(file);
    this.description = file;
  }

  async begin(archive: SiardArchive, tables: LoadTable[]): Promise<void> {
    this.fromSqlite = /^sqlite/i.test(archive.databaseProduct ?? '');
    this.product = archive.databaseProduct?.split(' ')[0] ?? 'another database';
    for (const schema of archive.schemas) {
      for (const type of schema.types ?? []) {
        this.notRecreated.push({
          kind: 'type',
          name: `${schema.name}.${type.name}`,
          reason: type.base
            ? `SQLite has no user-defined types; its columns hold ${type.base} values`
            : 'SQLite has no user-defined types; its values restored as JSON text',
        });
      }
    }
    // Names: the table name, or "schema.table" when two schemas share a name.
    const count = new Map<string, number>();
    for (const t of tables) count.set(t.name.toLowerCase(), (count.get(t.name.toLowerCase()) ?? 0) + 1);
    for (const t of tables) this.names.set(t, (count.get(t.name.toLowerCase()) ?? 0) > 1 ? `${t.schema}.${t.name}` : t.name);

    if (existsSync(this.target)) {
      let db: BetterSqlite3.Database;
      try {
        db = new Database(this.target, { fileMustExist: true });
        db.prepare('SELECT count(*) FROM sqlite_master').get();
      } catch (err) {
        throw new SiardOcflError(
          `Cannot restore into ${this.description}: it is not a usable SQLite database (${(err as Error).message}).`,
          {
            code: 'TARGET_UNUSABLE',
            cause: err,
          },
        );
      }
      const exists = db.prepare(`SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND lower(name) = lower(?)`);
      for (const t of tables) {
        const found = exists.get(this.targetName(t)) as { name: string } | undefined;
        if (found) {
          db.close();
          throw new SiardOcflError(`Cannot restore into ${this.description}: it already has a table "${found.name}".`, {
            code: 'TARGET_NOT_EMPTY',
          });
        }
      }
      this.db = db;
    } else {
      if (!existsSync(path.dirname(this.target))) {
        throw new SiardOcflError(`Cannot restore into ${this.description}: the folder ${path.dirname(this.target)} does not exist.`, {
          code: 'TARGET_UNUSABLE',
        });
      }
      this.workFile = path.join(path.dirname(this.target), `.${path.basename(this.target)}.restoring-${process.pid}`);
      rmSync(this.workFile, { force: true });
      try {
        this.db = new Database(this.workFile);
      } catch (err) {
        // better-sqlite3 says only "unable to open database file": name the place.
        throw new SiardOcflError(
          `Cannot restore into ${this.description}: cannot create a file in the folder ${path.dirname(this.target)} ` +
            `(${(err as Error).message}).`,
          { code: 'TARGET_UNUSABLE', cause: err },
        );
      }
    }
    // better-sqlite3 turns foreign keys on; tables load in archive order, so they are checked by
    // the source database, not while loading.
    this.db.pragma('foreign_keys = OFF');
    // checks are verified after the rows (addKeys), so a row the source kept is not refused
    this.db.pragma('ignore_check_constraints = ON');
    this.db.exec('BEGIN');
  }

  targetName(table: LoadTable): string {
    return this.names.get(table) ?? table.name;
  }

  private declaredType(col: LoadColumn): string {
    return this.fromSqlite ? (col.column.typeOriginal ?? sqliteTypeOf(col)) : sqliteTypeOf(col);
  }

  async createTable(table: LoadTable): Promise<void> {
    const db = this.open();
    const where = `${table.schema}.${table.name}`;
    const parts = table.columns.map((c) => {
      const declared = this.declaredType(c);
      let def = `${quoteIdent(c.column.name)}${declared ? ' ' + declared : ''}${c.column.nullable === false ? ' NOT NULL' : ''}`;
      const dflt = c.column.defaultValue;
      if (dflt !== undefined) {
        const problem = conditionProblem(dflt);
        if (!this.fromSqlite)
          this.notRecreated.push({ kind: 'default', name: `${where}.${c.column.name}`, reason: `${this.product} expression` });
        else if (problem)
          this.notRecreated.push({ kind: 'default', name: `${where}.${c.column.name}`, reason: `not one expression (${problem})` });
        else def += ` DEFAULT ${SQLITE_LITERAL.test(dflt.trim()) ? dflt : `(${dflt})`}`;
      }
      return def;
    });
    if (table.primaryKey && table.primaryKey.columns.length > 0)
      parts.push(`PRIMARY KEY (${table.primaryKey.columns.map(quoteIdent).join(', ')})`);
    for (const key of table.candidateKeys) parts.push(`UNIQUE (${key.columns.map(quoteIdent).join(', ')})`);
    for (const fk of table.foreignKeys) {
      const target =
        [...this.names.entries()].find(([t]) => t.schema === fk.referencedSchema && t.name === fk.referencedTable)?.[1] ??
        fk.referencedTable;
      let clause =
        `FOREIGN KEY (${fk.references.map((r) => quoteIdent(r.column)).join(', ')}) REFERENCES ${quoteIdent(target)} ` +
        `(${fk.references.map((r) => quoteIdent(r.referenced)).join(', ')})`;
      if (fk.deleteAction) clause += ` ON DELETE ${fk.deleteAction}`;
      if (fk.updateAction) clause += ` ON UPDATE ${fk.updateAction}`;
      parts.push(clause);
    }
    for (const check of table.checkConstraints) {
      const problem = conditionProblem(check.condition);
      if (!this.fromSqlite) this.notRecreated.push({ kind: 'check', name: `${where}.${check.name}`, reason: `${this.product} condition` });
      else if (problem)
        this.notRecreated.push({ kind: 'check', name: `${where}.${check.name}`, reason: `not one expression (${problem})` });
      else parts.push(`CONSTRAINT ${quoteIdent(check.name)} CHECK (${check.condition})`);
    }
    // prepare() takes one statement only: nothing in the archive's SQL text can add another
    try {
      db.prepare(`CREATE TABLE ${quoteIdent(this.targetName(table))} (${parts.join(', ')})`).run();
    } catch (err) {
      throw new SiardOcflError(
        `Cannot create table "${table.schema}"."${table.name}" in ${this.description}: SQLite refused it (${(err as Error).message}).`,
        {
          code: 'RESTORE_CREATE',
          exitCode: 1,
          cause: err,
        },
      );
    }
  }

  async insertRows(table: LoadTable, batches: AsyncIterable<LoadValue[][]>, onRow?: () => void): Promise<number> {
    const db = this.open();
    const name = this.targetName(table);
    const insert = db.prepare(`INSERT INTO ${quoteIdent(name)} VALUES (${table.columns.map(() => '?').join(', ')})`);
    const columns = table.columns;
    // text of these columns binds as it is (no conversion, nothing to await)
    const textAsIs = columns.map(
      (c) => c.column.mimeType !== SQLITE_LITERAL_MIME && (c.family === undefined || PLAIN_TEXT_FAMILIES.has(c.family)),
    );
    let n = 0;
    for await (const batch of batches) {
      for (const row of batch) {
        n++;
        const values: unknown[] = new Array(columns.length);
        for (let c = 0; c < columns.length; c++) {
          const value = row[c] ?? null;
          if (value === null || (textAsIs[c] && typeof value === 'string')) {
            values[c] = value;
            continue;
          }
          const col = columns[c]!;
          try {
            const bound = this.bindPlain(col, value);
            values[c] = bound !== NOT_PLAIN ? bound : await this.bindValue(col, value);
          } catch (err) {
            throw restoreValueError(`"${table.schema}"."${table.name}"`, n, col.column.name, err);
          }
        }
        try {
          insert.run(values);
        } catch (err) {
          throw new SiardOcflError(
            `Table "${table.schema}"."${table.name}", row ${n}: SQLite refused the row (${(err as Error).message}).`,
            {
              code: 'RESTORE_INSERT',
              exitCode: 1,
              cause: err,
            },
          );
        }
        onRow?.();
      }
    }
    return n;
  }

  /** bindValue for a text or bytes value, without a promise; NOT_PLAIN for LOB streams, ARRAY / UDT values and literals. */
  private bindPlain(col: LoadColumn, value: LoadValue): unknown {
    if (typeof value !== 'string' && !(value instanceof Uint8Array)) return NOT_PLAIN;
    if (col.column.mimeType === SQLITE_LITERAL_MIME) return NOT_PLAIN;
    if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    return this.bindText(col, value);
  }

  private async bindValue(col: LoadColumn, value: LoadValue): Promise<unknown> {
    if (value === null) return null;
    if (col.column.mimeType === SQLITE_LITERAL_MIME && !isLoadComplex(value) && !(value instanceof Uint8Array)) {
      // a column of mixed storage classes: each cell is the SQLite literal of its value
      return parseSqliteLiteral(typeof value === 'string' ? value : (await collectLob(value)).toString('utf8'));
    }
    if (isLoadComplex(value)) return JSON.stringify(await complexJson(value));
    if (isLoadLob(value)) {
      const bytes = await collectLob(value);
      return value.text ? (strictUtf8(bytes) ?? bytes) : bytes;
    }
    if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    return this.bindText(col, value);
  }

  /** The value to bind for the text of a cell of `col`. */
  private bindText(col: LoadColumn, text: string): unknown {
    switch (col.family) {
      case 'integer':
        return int64(text) ?? text;
      case 'decimal': {
        const exact = int64(text);
        if (exact !== undefined) return exact;
        if (this.fromSqlite) return Number(text);
        return text;
      }
      case 'float':
        if (text === 'INF') return Infinity;
        if (text === '-INF') return -Infinity;
        if (text === 'NaN') return null;
        // An archive from SQLite writes integers stored in an untyped column without '.0'.
        if (this.fromSqlite) return int64(text) ?? Number(text);
        return Number(text);
      case 'boolean':
        return text === 'true' || text === '1' ? 1n : text === 'false' || text === '0' ? 0n : text;
      case 'binary':
      case 'blob':
        return Buffer.from(text, 'hex');
      case 'date':
        return withoutUtcMark(text);
      case 'time':
        return hasTimeZone(col.column.type) ? text : withoutUtcMark(text);
      case 'timestamp':
        return hasTimeZone(col.column.type) ? text : withoutUtcMark(text).replace('T', ' ');
      default:
        return text;
    }
  }

  async addKeys(tables: LoadTable[]): Promise<void> {
    // keys and checks are declared in createTable; checks were not enforced while loading
    const db = this.open();
    db.pragma('ignore_check_constraints = OFF');
    if (!this.fromSqlite) return;
    for (const table of tables) {
      for (const check of table.checkConstraints) {
        if (conditionProblem(check.condition)) continue;
        const bad = db.prepare(`SELECT count(*) AS n FROM ${quoteIdent(this.targetName(table))} WHERE NOT (${check.condition})`).get() as {
          n: number;
        };
        if (bad.n > 0)
          this.warnings.push(
            `Check constraint ${check.name} of ${table.schema}.${table.name} is declared, but ${bad.n} restored rows violate it ` +
              `(as they did in the archived database).`,
          );
      }
    }
  }

  async addViews(views: LoadView[], tables: LoadTable[] = []): Promise<void> {
    const db = this.open();
    this.addViewList(db, views);
    // triggers after the rows, so none fires while the archive loads
    for (const table of tables) {
      for (const trigger of table.triggers) {
        const name = `${table.schema}.${table.name}.${trigger.name}`;
        const sql = trigger.triggeredAction.trim();
        if (!this.fromSqlite || !/^CREATE\s+TRIGGER\b/i.test(sql)) {
          this.notRecreated.push({
            kind: 'trigger',
            name,
            reason: this.fromSqlite ? 'its action is not a CREATE TRIGGER statement' : `its action is in ${this.product}'s dialect`,
          });
          continue;
        }
        try {
          db.prepare(sql).run(); // one statement only
        } catch (err) {
          this.notRecreated.push({ kind: 'trigger', name, reason: `SQLite refused it (${(err as Error).message})` });
        }
      }
    }
  }

  private addViewList(db: BetterSqlite3.Database, views: LoadView[]): void {
    for (const view of views) {
      const name = `${view.schema}.${view.name}`;
      const usable = viewQuery(view.queryOriginal?.trim(), this.fromSqlite, this.product);
      if ('reason' in usable) {
        this.notRecreated.push({ kind: 'view', name, reason: usable.reason });
        continue;
      }
      const sql = usable.query;
      const problem = /^CREATE\s+VIEW\b/i.test(sql) ? conditionProblem(sql) : 'not a CREATE VIEW statement';
      if (problem) {
        this.notRecreated.push({ kind: 'view', name, reason: `its query is not one statement (${problem})` });
        continue;
      }
      try {
        db.prepare(sql).run();
      } catch (err) {
        this.notRecreated.push({ kind: 'view', name, reason: `SQLite refused it (${(err as Error).message})` });
      }
    }
  }

  async countRows(table: LoadTable): Promise<number> {
    const row = this.open()
      .prepare(`SELECT count(*) AS n FROM ${quoteIdent(this.targetName(table))}`)
      .get() as { n: number };
    return Number(row.n);
  }

  async commit(): Promise<void> {
    const db = this.open();
    db.exec('COMMIT');
    db.close();
    this.db = undefined;
    if (this.workFile) {
      if (existsSync(this.target)) {
        rmSync(this.workFile, { force: true });
        throw new SiardOcflError(`Cannot restore into ${this.description}: the file appeared while the restore ran.`, {
          code: 'TARGET_NOT_EMPTY',
        });
      }
      renameSync(this.workFile, this.target);
      this.workFile = undefined;
    }
  }

  async abort(): Promise<void> {
    if (this.db) {
      try {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      } catch {
        // already rolled back by SQLite
      }
      this.db.close();
      this.db = undefined;
    }
    if (this.workFile) {
      for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(this.workFile + suffix, { force: true });
      this.workFile = undefined;
    }
  }

  private open(): BetterSqlite3.Database {
    if (!this.db) throw new Error('The SQLite target is not open.');
    return this.db;
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A text LOB's bytes as text, or undefined when they are not UTF-8: those are bound as they are
 * (a BLOB), since decoding would replace bytes with U+FFFD and change the value without a word.
 */
function strictUtf8(bytes: Buffer): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}
