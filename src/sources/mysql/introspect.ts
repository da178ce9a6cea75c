/**
 * Reading a MariaDB / MySQL database's catalogue (information_schema) into SIARD terms: the
 * database is one SIARD schema; its base tables with columns (mapped types, comments as
 * descriptions, defaults), primary / unique / foreign keys, check constraints and triggers; its
 * views with their queries. What SIARD has no place for (other indexes, routines, events,
 * sequences, AUTO_INCREMENT, generated-column expressions) is listed as not exported.
 */
import type * as mariadb from 'mariadb';
import type {
  SiardCheckConstraint,
  SiardColumn,
  SiardForeignKey,
  SiardReferentialAction,
  SiardTrigger,
  SiardUniqueKey,
  SiardView,
} from '../../siard/model.js';
import { mapMysqlType, isGeometryType, type MysqlColumnInfo, type MysqlMappedType } from './type-mapping.js';

export interface MysqlColumnPlan {
  name: string;
  info: MysqlColumnInfo;
  mapped: MysqlMappedType;
  column: SiardColumn;
  /** geometry: values exported in MariaDB's internal form (SRID + WKB) because their SRIDs differ */
  geometryWithSrid?: boolean;
}

export interface MysqlTablePlan {
  schema: string;
  name: string;
  description?: string;
  columns: MysqlColumnPlan[];
  primaryKey?: SiardUniqueKey;
  candidateKeys: SiardUniqueKey[];
  foreignKeys: SiardForeignKey[];
  checkConstraints: SiardCheckConstraint[];
  triggers: SiardTrigger[];
  /**
   * columns of a key that orders and locates rows (primary key, or a unique key over NOT NULL
   * columns, or one of `nullableKeys` that holds no NULL in the run's snapshot: MysqlSource.catalog)
   */
  rowKey?: string[];
  /** without such a key: the unique keys over columns that may hold NULL, whose types compare exactly */
  nullableKeys?: string[][];
  estimatedRows: number;
}

export interface MysqlSchemaPlan {
  name: string;
  tables: MysqlTablePlan[];
  views: SiardView[];
  notExported: string[];
}

const ACTIONS: Record<string, SiardReferentialAction> = {
  CASCADE: 'CASCADE',
  'SET NULL': 'SET NULL',
  'SET DEFAULT': 'SET DEFAULT',
  RESTRICT: 'RESTRICT',
  'NO ACTION': 'NO ACTION',
};

interface TableRow {
  TABLE_NAME: string;
  TABLE_TYPE: string;
  TABLE_COMMENT: string | null;
  TABLE_ROWS: bigint | number | null;
}

interface ColumnRow {
  TABLE_NAME: string;
  COLUMN_NAME: string;
  DATA_TYPE: string;
  COLUMN_TYPE: string;
  CHARACTER_MAXIMUM_LENGTH: bigint | number | null;
  NUMERIC_PRECISION: bigint | number | null;
  NUMERIC_SCALE: bigint | number | null;
  DATETIME_PRECISION: bigint | number | null;
  CHARACTER_SET_NAME: string | null;
  COLLATION_NAME: string | null;
  IS_NULLABLE: string;
  COLUMN_DEFAULT: string | null;
  EXTRA: string | null;
  COLUMN_COMMENT: string | null;
  GENERATION_EXPRESSION: string | null;
}

const num = (v: bigint | number | null | undefined): number | null => (v === null || v === undefined ? null : Number(v));

async function rows<T>(conn: mariadb.Connection, sql: string, values: unknown[]): Promise<T[]> {
  return (await conn.query({ sql, bigIntAsNumber: false } as mariadb.QueryOptions, values)) as T[];
}

/** Column types that order and compare exactly, so a key over them can page through a table. */
function pageableType(dataType: string): boolean {
  return (
    !/^(float|double|real|tinytext|text|mediumtext|longtext|json|tinyblob|blob|mediumblob|longblob)$/i.test(dataType) &&
    !isGeometryType(dataType)
  );
}

/** The native type as typeOriginal: COLUMN_TYPE, plus character set and collation for text. */
function typeOriginalOf(c: ColumnRow): string {
  let t = c.COLUMN_TYPE;
  if (c.CHARACTER_SET_NAME && !/^(enum|set)\(/i.test(t)) t += ` CHARACTER SET ${c.CHARACTER_SET_NAME}`;
  if (c.COLLATION_NAME) t += ` COLLATE ${c.COLLATION_NAME}`;
  return t;
}

/** Reads the catalogue of one database (the SIARD schema of the same name). */
export async function introspectMysql(
  conn: mariadb.Connection,
  database: string,
  options: { tableFilter?: (name: string, schema: string) => boolean } = {},
): Promise<MysqlSchemaPlan> {
  const schema: MysqlSchemaPlan = { name: database, tables: [], views: [], notExported: [] };
  const cat = await readCatalogue(conn, database, schema.notExported);
  for (const t of cat.tableRows) {
    const cols = cat.columnsOf.get(t.TABLE_NAME) ?? [];
    if (t.TABLE_TYPE === 'VIEW') {
      const def = cat.views.find((v) => v.TABLE_NAME === t.TABLE_NAME)?.VIEW_DEFINITION;
      const view: SiardView = { name: t.TABLE_NAME, columns: cols.map((c) => columnOf(c, true).column) };
      if (def) view.queryOriginal = def;
      schema.views.push(view);
      continue;
    }
    if (t.TABLE_TYPE === 'SEQUENCE') {
      schema.notExported.push(`sequence ${database}.${t.TABLE_NAME}`);
      continue;
    }
    if (options.tableFilter && !options.tableFilter(t.TABLE_NAME, database)) continue;
    schema.tables.push(tablePlan(t, cols, cat, database, schema.notExported));
  }
  return schema;
}

type Catalogue = Awaited<ReturnType<typeof readCatalogue>>;

/** Every information_schema row the export needs; routines and events go to `notExported` as they are found. */
// Long because: one information_schema query after another, each read into the plain rows the plan needs.
async function readCatalogue(conn: mariadb.Connection, database: string, notExported: string[]) {
  const tableRows = await rows<TableRow>(
    conn,
    'SELECT TABLE_NAME, TABLE_TYPE, TABLE_COMMENT, TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME',
    [database],
  );
  const columnRows = await rows<ColumnRow>(
    conn,
    `SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION,
            CHARACTER_SET_NAME, COLLATION_NAME, IS_NULLABLE, COLUMN_DEFAULT, EXTRA, COLUMN_COMMENT, GENERATION_EXPRESSION
       FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION`,
    [database],
  );
  const keyRows = await rows<{ TABLE_NAME: string; CONSTRAINT_NAME: string; CONSTRAINT_TYPE: string }>(
    conn,
    'SELECT TABLE_NAME, CONSTRAINT_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = ? ' +
      'ORDER BY TABLE_NAME, CONSTRAINT_NAME',
    [database],
  );
  const keyColumns = await rows<{
    TABLE_NAME: string;
    CONSTRAINT_NAME: string;
    COLUMN_NAME: string;
    REFERENCED_TABLE_SCHEMA: string | null;
    REFERENCED_TABLE_NAME: string | null;
    REFERENCED_COLUMN_NAME: string | null;
  }>(
    conn,
    `SELECT TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME
       FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`,
    [database],
  );
  const referential = await rows<{ TABLE_NAME: string; CONSTRAINT_NAME: string; UPDATE_RULE: string; DELETE_RULE: string }>(
    conn,
    'SELECT TABLE_NAME, CONSTRAINT_NAME, UPDATE_RULE, DELETE_RULE FROM information_schema.REFERENTIAL_CONSTRAINTS ' +
      'WHERE CONSTRAINT_SCHEMA = ?',
    [database],
  );
  const checks = await rows<{ TABLE_NAME: string; CONSTRAINT_NAME: string; CHECK_CLAUSE: string }>(
    conn,
    'SELECT TABLE_NAME, CONSTRAINT_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? ' +
      'ORDER BY TABLE_NAME, CONSTRAINT_NAME',
    [database],
  ).catch(() => []); // MariaDB < 10.2.22 / MySQL < 8.0.16 have no CHECK_CONSTRAINTS
  const indexes = await rows<{ TABLE_NAME: string; INDEX_NAME: string; NON_UNIQUE: bigint | number; SUB_PART: bigint | number | null }>(
    conn,
    'SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, SUB_PART FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? ' +
      'ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX',
    [database],
  );
  const triggers = await rows<{
    TRIGGER_NAME: string;
    EVENT_OBJECT_TABLE: string;
    ACTION_TIMING: string;
    EVENT_MANIPULATION: string;
    ACTION_STATEMENT: string;
  }>(
    conn,
    'SELECT TRIGGER_NAME, EVENT_OBJECT_TABLE, ACTION_TIMING, EVENT_MANIPULATION, ACTION_STATEMENT ' +
      'FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ? ORDER BY TRIGGER_NAME',
    [database],
  );
  const views = await rows<{ TABLE_NAME: string; VIEW_DEFINITION: string }>(
    conn,
    'SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME',
    [database],
  );
  const routines = await rows<{ ROUTINE_TYPE: string; ROUTINE_NAME: string }>(
    conn,
    'SELECT ROUTINE_TYPE, ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ? ORDER BY ROUTINE_NAME',
    [database],
  );
  for (const r of routines) notExported.push(`${r.ROUTINE_TYPE.toLowerCase()} ${database}.${r.ROUTINE_NAME}`);
  const events = await rows<{ EVENT_NAME: string }>(conn, 'SELECT EVENT_NAME FROM information_schema.EVENTS WHERE EVENT_SCHEMA = ?', [
    database,
  ]).catch(() => []);
  for (const e of events) notExported.push(`event ${database}.${e.EVENT_NAME}`);

  const columnsOf = new Map<string, ColumnRow[]>();
  for (const c of columnRows) columnsOf.set(c.TABLE_NAME, [...(columnsOf.get(c.TABLE_NAME) ?? []), c]);
  const keyColumnsOf = new Map<string, typeof keyColumns>();
  for (const k of keyColumns) {
    const id = `${k.TABLE_NAME}\u0000${k.CONSTRAINT_NAME}`;
    keyColumnsOf.set(id, [...(keyColumnsOf.get(id) ?? []), k]);
  }
  const prefixIndexes = new Set(indexes.filter((i) => i.SUB_PART !== null).map((i) => `${i.TABLE_NAME}\u0000${i.INDEX_NAME}`));
  return { tableRows, views, keyRows, referential, checks, indexes, triggers, columnsOf, keyColumnsOf, prefixIndexes };
}

/** A base table: its columns, keys, checks and triggers; what SIARD cannot hold goes to `notExported`. */
function tablePlan(t: TableRow, cols: ColumnRow[], cat: Catalogue, database: string, notExported: string[]): MysqlTablePlan {
  const plan: MysqlTablePlan = {
    schema: database,
    name: t.TABLE_NAME,
    columns: cols.map((c) => columnOf(c, false)),
    candidateKeys: [],
    foreignKeys: [],
    checkConstraints: [],
    triggers: [],
    estimatedRows: Number(t.TABLE_ROWS ?? 0),
  };
  if (t.TABLE_COMMENT) plan.description = t.TABLE_COMMENT;
  if (t.TABLE_TYPE === 'SYSTEM VERSIONED') {
    notExported.push(`the history of system-versioned table ${database}.${t.TABLE_NAME} (its current rows are exported)`);
  }
  for (const c of cols) {
    const extra = (c.EXTRA ?? '').toLowerCase();
    if (extra.includes('auto_increment')) notExported.push(`AUTO_INCREMENT of ${database}.${t.TABLE_NAME}.${c.COLUMN_NAME}`);
    const column = `${database}.${t.TABLE_NAME}.${c.COLUMN_NAME}`;
    if (c.GENERATION_EXPRESSION) notExported.push(`the generation expression of ${column} (its values are exported)`);
  }
  const constraintNames = addKeys(plan, t, cat, database, notExported);
  for (const c of cat.checks.filter((x) => x.TABLE_NAME === t.TABLE_NAME)) {
    plan.checkConstraints.push({ name: c.CONSTRAINT_NAME, condition: c.CHECK_CLAUSE });
    // MariaDB's JSON is LONGTEXT with a json_valid() check named after the column
    const json = /^json_valid\(`((?:[^`]|``)+)`\)$/.exec(c.CHECK_CLAUSE.trim());
    const col = json ? plan.columns.find((p) => p.name === json[1]!.replace(/``/g, '`') && p.mapped.kind === 'clob') : undefined;
    if (col) col.column.mimeType = 'application/json';
  }
  for (const ix of cat.indexes.filter((i) => i.TABLE_NAME === t.TABLE_NAME)) {
    if (constraintNames.has(ix.INDEX_NAME) && !cat.prefixIndexes.has(`${t.TABLE_NAME}\u0000${ix.INDEX_NAME}`)) continue;
    const text = `index ${ix.INDEX_NAME} on ${database}.${t.TABLE_NAME}`;
    if (!notExported.includes(text) && !cat.prefixIndexes.has(`${t.TABLE_NAME}\u0000${ix.INDEX_NAME}`)) notExported.push(text);
  }
  for (const tr of cat.triggers.filter((x) => x.EVENT_OBJECT_TABLE === t.TABLE_NAME)) {
    const time = tr.ACTION_TIMING.toUpperCase();
    plan.triggers.push({
      name: tr.TRIGGER_NAME,
      actionTime: time === 'BEFORE' ? 'BEFORE' : 'AFTER',
      triggerEvent: tr.EVENT_MANIPULATION.toUpperCase(),
      triggeredAction: tr.ACTION_STATEMENT,
      description: 'The MariaDB/MySQL trigger body (FOR EACH ROW).',
    });
  }
  plan.rowKey = rowKeyOf(plan, cols);
  if (!plan.rowKey) plan.nullableKeys = plan.candidateKeys.filter((k) => usableKey(k, cols, false)).map((k) => k.columns);
  return plan;
}

/** Primary, unique and foreign keys into `plan`; returns the names of the table's constraints. */
function addKeys(plan: MysqlTablePlan, t: TableRow, cat: Catalogue, database: string, notExported: string[]): Set<string> {
  const constraintNames = new Set<string>();
  for (const k of cat.keyRows.filter((k) => k.TABLE_NAME === t.TABLE_NAME)) {
    constraintNames.add(k.CONSTRAINT_NAME);
    const kc = cat.keyColumnsOf.get(`${t.TABLE_NAME}\u0000${k.CONSTRAINT_NAME}`) ?? [];
    if (k.CONSTRAINT_TYPE === 'PRIMARY KEY' || k.CONSTRAINT_TYPE === 'UNIQUE') {
      if (cat.prefixIndexes.has(`${t.TABLE_NAME}\u0000${k.CONSTRAINT_NAME}`)) {
        notExported.push(`unique index ${k.CONSTRAINT_NAME} on a prefix of ${database}.${t.TABLE_NAME} (not a key over whole values)`);
        continue;
      }
      const key: SiardUniqueKey = { name: k.CONSTRAINT_NAME, columns: kc.map((c) => c.COLUMN_NAME) };
      if (k.CONSTRAINT_TYPE === 'PRIMARY KEY') plan.primaryKey = key;
      else plan.candidateKeys.push(key);
    } else if (k.CONSTRAINT_TYPE === 'FOREIGN KEY' && kc[0]?.REFERENCED_TABLE_NAME) {
      const fk: SiardForeignKey = {
        name: k.CONSTRAINT_NAME,
        referencedSchema: kc[0].REFERENCED_TABLE_SCHEMA ?? database,
        referencedTable: kc[0].REFERENCED_TABLE_NAME,
        references: kc.map((c) => ({ column: c.COLUMN_NAME, referenced: c.REFERENCED_COLUMN_NAME ?? c.COLUMN_NAME })),
      };
      const r = cat.referential.find((x) => x.TABLE_NAME === t.TABLE_NAME && x.CONSTRAINT_NAME === k.CONSTRAINT_NAME);
      const del = ACTIONS[r?.DELETE_RULE ?? ''];
      const upd = ACTIONS[r?.UPDATE_RULE ?? ''];
      if (del) fk.deleteAction = del;
      if (upd) fk.updateAction = upd;
      plan.foreignKeys.push(fk);
    }
  }
  return constraintNames;
}

/** A key whose columns' types compare exactly (and, `needNotNull`, are NOT NULL). */
function usableKey(key: SiardUniqueKey, cols: ColumnRow[], needNotNull: boolean): boolean {
  return (
    key.columns.length > 0 &&
    key.columns.every((name) => {
      const c = cols.find((x) => x.COLUMN_NAME === name);
      return c !== undefined && pageableType(c.DATA_TYPE) && (!needNotNull || c.IS_NULLABLE === 'NO');
    })
  );
}

/** Primary key, else a unique key over NOT NULL columns, whose types compare exactly. */
function rowKeyOf(plan: MysqlTablePlan, cols: ColumnRow[]): string[] | undefined {
  if (plan.primaryKey && usableKey(plan.primaryKey, cols, false)) return plan.primaryKey.columns;
  return plan.candidateKeys.find((k) => usableKey(k, cols, true))?.columns;
}

function columnOf(c: ColumnRow, inView: boolean): MysqlColumnPlan {
  const info: MysqlColumnInfo = {
    dataType: c.DATA_TYPE,
    columnType: c.COLUMN_TYPE,
    charLength: num(c.CHARACTER_MAXIMUM_LENGTH),
    numericPrecision: num(c.NUMERIC_PRECISION),
    numericScale: num(c.NUMERIC_SCALE),
    datetimePrecision: num(c.DATETIME_PRECISION),
    charset: c.CHARACTER_SET_NAME,
  };
  const mapped = mapMysqlType(info);
  const column: SiardColumn = {
    name: c.COLUMN_NAME,
    type: mapped.type,
    typeOriginal: typeOriginalOf(c),
    nullable: inView || c.IS_NULLABLE !== 'NO',
  };
  // MariaDB >= 10.2.7 prints defaults as expressions ('NULL' for none, strings quoted)
  if (c.COLUMN_DEFAULT !== null && c.COLUMN_DEFAULT !== 'NULL' && !c.GENERATION_EXPRESSION) column.defaultValue = c.COLUMN_DEFAULT;
  if (c.COLUMN_COMMENT) column.description = c.COLUMN_COMMENT;
  return { name: c.COLUMN_NAME, info, mapped, column };
}
