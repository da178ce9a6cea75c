/**
 * Reading a PostgreSQL catalogue (pg_catalog, inside the export's snapshot) into SIARD terms:
 * schemas, tables (partitioned tables once, through their parent), views and materialized views,
 * columns with their mapped types, primary / unique / foreign keys and check constraints.
 * System schemas and objects owned by extensions are left out.
 */
import type pg from 'pg';
import type {
  SiardCheckConstraint,
  SiardColumn,
  SiardForeignKey,
  SiardMatchType,
  SiardReferentialAction,
  SiardTrigger,
  SiardType,
  SiardUniqueKey,
  SiardView,
} from '../../siard/model.js';
import { enumType } from './enum-type.js';
import { mapPgType, type PgMappedType, type PgTypeInfo } from './type-mapping.js';
import { quoteIdent } from '../sql-identifier.js';

/** A check constraint: the condition as pg_get_constraintdef prints it, without "CHECK" and "NOT VALID". */
export type PgCheckConstraint = SiardCheckConstraint;

export interface PgColumnPlan {
  name: string;
  mapped: PgMappedType;
  info: PgTypeInfo;
  column: SiardColumn;
}

export interface PgTablePlan {
  oid: number;
  schema: string;
  name: string;
  description?: string;
  columns: PgColumnPlan[];
  primaryKey?: SiardUniqueKey;
  candidateKeys: SiardUniqueKey[];
  foreignKeys: SiardForeignKey[];
  checkConstraints: PgCheckConstraint[];
  triggers: SiardTrigger[];
  /** indexes that back no key (SIARD has no place for them), by name */
  otherIndexes: string[];
  /** planner estimate (pg_class.reltuples), for progress only */
  estimatedRows: number;
  /** a unique key over nullable columns none of which holds a NULL in the run's snapshot (findNullFreeKey) */
  nullFreeKey?: string[];
}

export interface PgSchemaPlan {
  name: string;
  /** enum types of its columns, as DISTINCT types */
  types?: SiardType[];
  description?: string;
  tables: PgTablePlan[];
  views: SiardView[];
}

export function qualifiedName(schema: string, name: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}

const ACTIONS: Record<string, SiardReferentialAction> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};
const MATCHES: Record<string, SiardMatchType> = { f: 'FULL', p: 'PARTIAL', s: 'SIMPLE' };

interface TypeRow {
  oid: number;
  typname: string;
  typtype: string;
  typcategory: string;
  typelem: number;
  typbasetype: number;
  typtypmod: number;
}

/** Type descriptions by oid, domains resolved to their base, arrays to their element. */
class TypeCatalog {
  private readonly rows = new Map<number, TypeRow>();
  private readonly enumLengths = new Map<number, number>();
  constructor(private readonly client: pg.Client) {}

  private async row(oid: number): Promise<TypeRow> {
    let row = this.rows.get(oid);
    if (!row) {
      const res = await this.client.query<TypeRow>(
        'SELECT oid::int AS oid, typname, typtype, typcategory, typelem::int AS typelem, typbasetype::int AS typbasetype, ' +
          'typtypmod FROM pg_type WHERE oid = $1',
        [oid],
      );
      row = res.rows[0];
      if (!row) throw new Error(`PostgreSQL type ${oid} is not in pg_type.`);
      this.rows.set(oid, row);
    }
    return row;
  }

  async describe(oid: number, typmod: number, formatted: string): Promise<PgTypeInfo> {
    let row = await this.row(oid);
    let largeObject = row.typname === 'oid' || (row.typtype === 'd' && row.typname === 'lo');
    // Domains: the base type decides the mapping (a domain over a domain is followed too).
    while (row.typtype === 'd') {
      if (row.typtypmod !== -1) typmod = row.typtypmod;
      row = await this.row(row.typbasetype);
      if (row.typname === 'oid') largeObject = true;
    }
    const info: PgTypeInfo = { typname: row.typname, typtype: row.typtype, typcategory: row.typcategory, typmod, formatted };
    if (largeObject) info.largeObject = true;
    if (row.typtype === 'e') info.enumMaxLength = await this.enumLength(row.oid);
    if (row.typcategory === 'A' && row.typelem !== 0) {
      // An array's typmod applies to its element (varchar(10)[] has typmod 14).
      info.element = await this.describe(row.typelem, typmod, formatted.replace(/\[\]$/, ''));
    }
    return info;
  }

  private async enumLength(oid: number): Promise<number> {
    let n = this.enumLengths.get(oid);
    if (n === undefined) {
      const res = await this.client.query<{ n: number | null }>(
        'SELECT max(char_length(enumlabel))::int AS n FROM pg_enum WHERE enumtypid = $1',
        [oid],
      );
      n = res.rows[0]?.n ?? 1;
      this.enumLengths.set(oid, n);
    }
    return n;
  }
}

interface RelationRow {
  oid: number;
  schema: string;
  name: string;
  relkind: string;
  description: string | null;
  reltuples: number;
  viewdef: string | null;
}

interface ColumnRow {
  attrelid: number;
  attname: string;
  atttypid: number;
  atttypmod: number;
  attnotnull: boolean;
  formatted: string;
  default_value: string | null;
  description: string | null;
  /** 'a' GENERATED ALWAYS, 'd' BY DEFAULT, '' none */
  identity: string;
  /** the identity column's sequence (quoted, schema-qualified) */
  sequence: string | null;
}

interface ConstraintRow {
  conname: string;
  contype: string;
  conrelid: number;
  conkey: number[] | null;
  confkey: number[] | null;
  confupdtype: string;
  confdeltype: string;
  confmatchtype: string;
  def: string;
  fschema: string | null;
  ftable: string | null;
  fcolumns: string[] | null;
  columns: string[] | null;
  description: string | null;
}

/**
 * "CHECK ((a > 0)) NOT VALID" -> "((a > 0))": SIARD's condition is the search condition alone. The
 * definition is taken fully parenthesised (not pretty-printed), so it parses back to the same tree.
 */
function checkConstraintOf(con: ConstraintRow): PgCheckConstraint {
  const check: PgCheckConstraint = { name: con.conname, condition: con.def.replace(/^CHECK\s*/i, '').replace(/\s+NOT VALID$/i, '') };
  if (con.description) check.description = con.description;
  return check;
}

export interface IntrospectOptions {
  /** only tables whose name passes (views are kept) */
  tableFilter?: (name: string, schema: string) => boolean;
}

/** Reads the catalogue. Runs on the client that holds the export snapshot. */
export async function introspect(client: pg.Client, options: IntrospectOptions = {}): Promise<PgSchemaPlan[]> {
  const types = new TypeCatalog(client);
  const catalogue = await readCatalogue(client, options);
  const schemas = new Map<string, PgSchemaPlan>();
  const schemaNamed = (name: string) => {
    let schema = schemas.get(name);
    if (!schema) {
      schema = { name, tables: [], views: [] };
      schemas.set(name, schema);
    }
    return schema;
  };
  const enums = new Map<number, { schema: string; name: string; type: SiardType } | null>();
  for (const rel of catalogue.kept) {
    const schema = schemaNamed(rel.schema);
    const cols: PgColumnPlan[] = [];
    for (const c of catalogue.columnsOf.get(rel.oid) ?? []) cols.push(await columnPlan(client, types, rel, c, enums));
    if (rel.relkind === 'v' || rel.relkind === 'm') {
      const view: SiardView = { name: rel.name, columns: cols.map((c) => ({ ...c.column, nullable: true })) };
      if (rel.viewdef) view.queryOriginal = rel.viewdef.trim();
      if (rel.description) view.description = rel.description;
      schema.views.push(view);
      continue;
    }
    schema.tables.push(tablePlan(rel, cols, catalogue));
  }
  // the enum types the exported columns use, each in its own schema's <types>
  for (const e of enums.values()) {
    if (!e) continue;
    (schemaNamed(e.schema).types ??= []).push(e.type);
  }
  return [...schemas.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The catalogue rows of the exported relations, grouped by relation. */
interface Catalogue {
  kept: RelationRow[];
  columnsOf: Map<number, ColumnRow[]>;
  constraintsOf: Map<number, ConstraintRow[]>;
  triggerRows: Array<{ rel: number; name: string; def: string }>;
  indexRows: Array<{ rel: number; name: string }>;
}

async function readCatalogue(client: pg.Client, options: IntrospectOptions): Promise<Catalogue> {
  const relations = (
    await client.query<RelationRow>(`
      SELECT c.oid::int AS oid, n.nspname AS schema, c.relname AS name, c.relkind::text AS relkind,
             obj_description(c.oid, 'pg_class') AS description, greatest(c.reltuples, 0)::float8 AS reltuples,
             CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid, true) END AS viewdef
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition
         AND n.nspname NOT IN ('pg_catalog', 'information_schema')
         AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'
         AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
       ORDER BY n.nspname, c.relname`)
  ).rows;
  const kept = relations.filter(
    (r) => r.relkind === 'v' || r.relkind === 'm' || !options.tableFilter || options.tableFilter(r.name, r.schema),
  );
  const oids = kept.map((r) => r.oid);
  const columns = await queryColumns(client, oids);
  const constraints = await queryConstraints(client, oids);
  const triggerRows = (
    await client.query<{ rel: number; name: string; def: string }>(
      `SELECT tgrelid::int AS rel, tgname AS name, pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE tgrelid = ANY($1::oid[]) ` +
        `AND NOT tgisinternal ORDER BY tgname`,
      [oids],
    )
  ).rows;
  const indexRows = (
    await client.query<{ rel: number; name: string }>(
      `SELECT i.indrelid::int AS rel, c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = ANY($1::oid[])
          AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = i.indexrelid AND con.conrelid = i.indrelid)
        ORDER BY c.relname`,
      [oids],
    )
  ).rows;
  const columnsOf = new Map<number, ColumnRow[]>();
  for (const c of columns) columnsOf.set(c.attrelid, [...(columnsOf.get(c.attrelid) ?? []), c]);
  const constraintsOf = new Map<number, ConstraintRow[]>();
  for (const c of constraints) constraintsOf.set(c.conrelid, [...(constraintsOf.get(c.conrelid) ?? []), c]);
  return { kept, columnsOf, constraintsOf, triggerRows, indexRows };
}

async function queryColumns(client: pg.Client, oids: number[]): Promise<ColumnRow[]> {
  return (
    await client.query<ColumnRow>(
      `SELECT a.attrelid::int AS attrelid, a.attname, a.atttypid::int AS atttypid, a.atttypmod, a.attnotnull,
              format_type(a.atttypid, a.atttypmod) AS formatted,
              pg_get_expr(d.adbin, d.adrelid) AS default_value, col_description(a.attrelid, a.attnum) AS description,
              a.attidentity::text AS identity,
              CASE WHEN a.attidentity <> '' THEN pg_get_serial_sequence(a.attrelid::regclass::text, a.attname) END AS sequence
         FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = ANY($1::oid[]) AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attrelid, a.attnum`,
      [oids],
    )
  ).rows;
}

async function queryConstraints(client: pg.Client, oids: number[]): Promise<ConstraintRow[]> {
  return (
    await client.query<ConstraintRow>(
      `SELECT con.conname, con.contype::text AS contype, con.conrelid::int AS conrelid, con.conkey, con.confkey,
              con.confupdtype::text AS confupdtype, con.confdeltype::text AS confdeltype, con.confmatchtype::text AS confmatchtype,
              pg_get_constraintdef(con.oid) AS def, obj_description(con.oid, 'pg_constraint') AS description,
              fn.nspname AS fschema, fc.relname AS ftable,
              (SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(con.conkey) WITH ORDINALITY k(n, i)
                 JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n) AS columns,
              (SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(con.confkey) WITH ORDINALITY k(n, i)
                 JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n) AS fcolumns
         FROM pg_constraint con
         LEFT JOIN pg_class fc ON fc.oid = con.confrelid LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
        WHERE con.conrelid = ANY($1::oid[]) AND con.contype IN ('p', 'u', 'f', 'c')
        ORDER BY con.conname`,
      [oids],
    )
  ).rows;
}

/** A column of a relation: its SIARD type, an enum's DISTINCT type, an identity's clause. */
async function columnPlan(
  client: pg.Client,
  types: TypeCatalog,
  rel: RelationRow,
  c: ColumnRow,
  enums: Map<number, { schema: string; name: string; type: SiardType } | null>,
): Promise<PgColumnPlan> {
  const info = await types.describe(c.atttypid, c.atttypmod, c.formatted);
  const mapped = mapPgType(info);
  const column: SiardColumn = { name: c.attname, type: mapped.type, typeOriginal: c.formatted, nullable: !c.attnotnull };
  if (c.default_value !== null) column.defaultValue = c.default_value;
  if (info.typtype === 'e' && !mapped.array && rel.relkind !== 'v' && rel.relkind !== 'm') {
    // an enum column names its DISTINCT type (enum-type.ts); its cells are read as the base
    const e = await enumOf(client, c.atttypid, enums);
    if (e) {
      delete column.type;
      column.typeSchema = e.schema;
      column.typeName = e.name;
      column.baseType = e.type.base!;
    }
  }
  if (c.identity === 'a' || c.identity === 'd') {
    // SIARD has no identity: the column's defaultValue carries PostgreSQL's clause, with the
    // sequence's next value, so a restore into PostgreSQL continues the numbering
    const next = c.sequence ? await nextValue(client, c.sequence) : undefined;
    if (next) {
      column.defaultValue =
        `GENERATED ${c.identity === 'a' ? 'ALWAYS' : 'BY DEFAULT'} AS IDENTITY (START WITH ${next.value} ` +
        `INCREMENT BY ${next.increment})`;
    }
  }
  if (c.description !== null) column.description = c.description;
  return { name: c.attname, mapped, info, column };
}

/**
 * The key a table's rows are read in the order of: its primary key, else its first unique key
 * (by constraint name) over NOT NULL columns, else its first unique key none of whose columns holds
 * a NULL in the run's snapshot (findNullFreeKey); none for a table without any.
 */
export function rowKeyOf(plan: PgTablePlan): string[] | undefined {
  if (plan.primaryKey && plan.primaryKey.columns.length > 0) return plan.primaryKey.columns;
  const notNull = (name: string) => plan.columns.find((c) => c.name === name)?.column.nullable === false;
  return plan.candidateKeys.find((k) => k.columns.length > 0 && k.columns.every(notNull))?.columns ?? plan.nullFreeKey;
}

/**
 * A table without a primary key or a unique key over NOT NULL columns, whose unique key's columns
 * hold no NULL in the run's snapshot, is read in that key's order like one over NOT NULL columns,
 * so it resumes inside too (docs/resume.md): one query per such key, in the snapshot that the
 * rows are read in (an index lookup for a key of one column; a key of more columns may scan).
 * Every run decides so, the uninterrupted one too; a resumed run that finds a NULL there now has no
 * key to go on after, and refuses.
 */
export async function findNullFreeKey(client: pg.Client, plan: PgTablePlan): Promise<void> {
  if (rowKeyOf(plan)) return;
  for (const key of plan.candidateKeys) {
    if (key.columns.length === 0) continue;
    const anyNull = key.columns.map((c) => `${quoteIdent(c)} IS NULL`).join(' OR ');
    const r = await client.query<{ n: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ${qualifiedName(plan.schema, plan.name)} WHERE ${anyNull}) AS n`,
    );
    if (!r.rows[0]!.n) {
      plan.nullFreeKey = key.columns;
      return;
    }
  }
}

/** A table with its keys, constraints, triggers and other indexes. */
function tablePlan(rel: RelationRow, cols: PgColumnPlan[], catalogue: Catalogue): PgTablePlan {
  const table: PgTablePlan = {
    oid: rel.oid,
    schema: rel.schema,
    name: rel.name,
    columns: cols,
    candidateKeys: [],
    foreignKeys: [],
    checkConstraints: [],
    triggers: catalogue.triggerRows.filter((r) => r.rel === rel.oid).map((r) => pgTrigger(r.name, r.def)),
    otherIndexes: catalogue.indexRows.filter((r) => r.rel === rel.oid).map((r) => r.name),
    estimatedRows: Math.round(rel.reltuples),
  };
  if (rel.description) table.description = rel.description;
  for (const con of catalogue.constraintsOf.get(rel.oid) ?? []) {
    const colNames = con.columns ?? [];
    if (con.contype === 'p') table.primaryKey = { name: con.conname, columns: colNames };
    else if (con.contype === 'u') table.candidateKeys.push({ name: con.conname, columns: colNames });
    else if (con.contype === 'c') table.checkConstraints.push(checkConstraintOf(con));
    else if (con.contype === 'f' && con.fschema && con.ftable) {
      const fcols = con.fcolumns ?? [];
      const key: SiardForeignKey = {
        name: con.conname,
        referencedSchema: con.fschema,
        referencedTable: con.ftable,
        references: colNames.map((column, i) => ({ column, referenced: fcols[i] ?? column })),
      };
      const match = MATCHES[con.confmatchtype];
      const del = ACTIONS[con.confdeltype];
      const upd = ACTIONS[con.confupdtype];
      if (match) key.matchType = match;
      if (del) key.deleteAction = del;
      if (upd) key.updateAction = upd;
      table.foreignKeys.push(key);
    }
  }
  return table;
}

/** A trigger from pg_get_triggerdef(): timing and events from its head, the statement as the action. */
function pgTrigger(name: string, def: string): SiardTrigger {
  const m = /\sTRIGGER\s+\S+\s+(BEFORE|AFTER|INSTEAD OF)\s+([\s\S]+?)\s+ON\s/i.exec(def);
  const time = (m?.[1] ?? 'AFTER').toUpperCase();
  return {
    name,
    actionTime: time === 'BEFORE' || time === 'INSTEAD OF' ? time : 'AFTER',
    triggerEvent: m?.[2] ?? '',
    triggeredAction: def,
    description: 'The PostgreSQL CREATE TRIGGER statement (pg_get_triggerdef); the function it executes is not archived.',
  };
}

/** The enum type `oid` as a DISTINCT type, or null when it is not an enum (a domain over one). */
async function enumOf(client: pg.Client, oid: number, cache: Map<number, { schema: string; name: string; type: SiardType } | null>) {
  if (!cache.has(oid)) {
    const res = await client.query<{ schema: string; name: string; labels: string[] }>(
      `SELECT n.nspname AS schema, t.typname AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels
         FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace JOIN pg_enum e ON e.enumtypid = t.oid
        WHERE t.oid = $1 GROUP BY 1, 2`,
      [oid],
    );
    const r = res.rows[0];
    cache.set(oid, r ? { schema: r.schema, name: r.name, type: enumType(r.name, r.labels) } : null);
  }
  return cache.get(oid) ?? null;
}

/** The value an identity sequence gives next, and its increment (read in the export snapshot). */
async function nextValue(client: pg.Client, sequence: string): Promise<{ value: string; increment: string } | undefined> {
  const res = await client.query<{ value: string; increment: string }>(
    `SELECT (CASE WHEN q.is_called THEN q.last_value + s.seqincrement ELSE q.last_value END)::text AS value,
            s.seqincrement::text AS increment
       FROM ${sequence} q, pg_sequence s WHERE s.seqrelid = $1::regclass`,
    [sequence],
  );
  return res.rows[0];
}

/** Sets `cardinality` of array columns to the largest array the table holds (one scan per column). */
export async function measureArrays(client: pg.Client, table: PgTablePlan): Promise<void> {
  for (const c of table.columns) {
    if (!c.mapped.array) continue;
    const res = await client.query<{ n: number | null }>(
      `SELECT max(cardinality(${quoteIdent(c.name)}))::int AS n FROM ${qualifiedName(table.schema, table.name)}`,
    );
    c.column.cardinality = Math.max(1, res.rows[0]?.n ?? 0);
  }
}
