/**
 * Saved queries (MSysObjects rows of type 5) as SIARD views, their Access SQL rebuilt from the rows
 * of MSysQueries as Access writes them: one row per part of the query, by its Attribute (0 the
 * query's type, 2 a parameter, 3 the select flags, 4 another database, 5 a table with its alias, 6
 * an output column with its alias, 7 a join, 8 WHERE, 9 GROUP BY, 10 HAVING, 11 ORDER BY, "D" in
 * Name1 descending, 255 the end). The flags of attribute 3: 1 every column (*), 2 DISTINCT, 8
 * DISTINCTROW, 16 TOP n (n in Name1), 32 PERCENT. A view needs its columns' types: a query is a
 * view when each output column is a column of a table it reads (or *); other queries (an
 * expression as a column, action, union, pass-through and parameter queries, another database) are
 * named with the reason in the export's "not exported" summary.
 */
import type MDBReader from 'mdb-reader';
import type { Column } from 'mdb-reader';

export interface QueryRow {
  ObjectId: number;
  Attribute: number;
  Name1: string | null;
  Name2: string | null;
  Expression: string | null;
  Flag: number | null;
}

/** An output column: its name, and the table column it is (for its type). */
export interface QueryColumn {
  name: string;
  table: string;
  column: string;
}

export type SavedQuery = { name: string; sql: string; columns: QueryColumn[] } | { name: string; why: string };

const SELECT_TYPES = new Set([0, 1]);
const STAR = 0x1;
const DISTINCT = 0x2;
const DISTINCTROW = 0x8;
const TOP = 0x10;
const PERCENT = 0x20;
const JOINS: Record<number, string> = { 1: 'INNER JOIN', 2: 'LEFT JOIN', 3: 'RIGHT JOIN' };

const bracket = (name: string) => `[${name}]`;

function predicate(flag: number, top: string | null): string {
  if (flag & TOP) return ` TOP ${top ?? ''}${flag & PERCENT ? ' PERCENT' : ''}`;
  if (flag & DISTINCTROW) return ' DISTINCTROW';
  if (flag & DISTINCT) return ' DISTINCT';
  return '';
}

/** FROM: the tables with their aliases, joined where attribute 7 rows join them, in the order Access wrote them. */
function fromClause(tables: QueryRow[], joins: QueryRow[]): string {
  const ref = (t: QueryRow) => (t.Name2 ? `${bracket(t.Name1!)} AS ${bracket(t.Name2)}` : bracket(t.Name1!));
  const byName = new Map(tables.map((t) => [t.Name2 ?? t.Name1!, t]));
  const joined = new Set<string>();
  let clause = '';
  for (const j of joins) {
    const kind = JOINS[j.Flag ?? 0];
    const left = byName.get(j.Name1 ?? '');
    const right = byName.get(j.Name2 ?? '');
    if (!kind || !left || !right) throw new Error(`a join Access wrote as ${j.Flag} between "${j.Name1}" and "${j.Name2}"`);
    if (clause === '') clause = `${ref(left)} ${kind} ${ref(right)} ON ${j.Expression}`;
    else clause = `(${clause}) ${kind} ${ref(joined.has(j.Name1!) ? right : left)} ON ${j.Expression}`;
    joined.add(j.Name1!).add(j.Name2!);
  }
  const rest = tables.filter((t) => !joined.has(t.Name2 ?? t.Name1!)).map(ref);
  return [...(clause ? [clause] : []), ...rest].join(', ');
}

/** The Access SQL of one query's rows. */
export function querySql(rows: readonly QueryRow[]): string {
  const of = (attribute: number) => rows.filter((r) => r.Attribute === attribute);
  const flag = of(3)[0]?.Flag ?? 0;
  const columns = of(6).map((c) => (c.Name1 ? `${c.Expression} AS ${bracket(c.Name1)}` : c.Expression!));
  const list = [...(flag & STAR ? ['*'] : []), ...columns].join(', ');
  const parts = [`SELECT${predicate(flag, of(3)[0]?.Name1 ?? null)} ${list}`, `FROM ${fromClause(of(5), of(7))}`];
  const where = of(8)[0]?.Expression;
  if (where) parts.push(`WHERE ${where}`);
  if (of(9).length > 0)
    parts.push(
      `GROUP BY ${of(9)
        .map((g) => g.Expression)
        .join(', ')}`,
    );
  const having = of(10)[0]?.Expression;
  if (having) parts.push(`HAVING ${having}`);
  if (of(11).length > 0)
    parts.push(
      `ORDER BY ${of(11)
        .map((o) => `${o.Expression}${o.Name1 === 'D' ? ' DESC' : ''}`)
        .join(', ')}`,
    );
  return `${parts.join(' ')};`;
}

/** Why a query is not a plain SELECT this module rebuilds, or undefined. */
function unsupported(rows: readonly QueryRow[]): string | undefined {
  const type = rows.find((r) => r.Attribute === 0)?.Flag ?? 0;
  if (!SELECT_TYPES.has(type)) return `an action, union, pass-through or other query (type ${type})`;
  if (rows.some((r) => r.Attribute === 2)) return 'a parameter query';
  if (rows.some((r) => r.Attribute === 4 || (r.Attribute === 5 && r.Expression))) return 'it reads another database';
  if (!rows.some((r) => r.Attribute === 5)) return 'it reads no table';
  return undefined;
}

/** `[T].[C]`, `[T].C` or `[C]` / `C` (with one table): the table and column an output column is, else undefined. */
export function columnReference(expression: string, tables: readonly QueryRow[]): { table: string; column: string } | undefined {
  const part = String.raw`(?:\[([^\]]+)\]|([A-Za-z_][\w]*))`;
  const m = new RegExp(`^(?:${part}\\.)?${part}$`).exec(expression.trim());
  if (!m) return undefined;
  const qualifier = m[1] ?? m[2];
  const column = (m[3] ?? m[4])!;
  const table =
    qualifier === undefined ? (tables.length === 1 ? tables[0] : undefined) : tables.find((t) => (t.Name2 ?? t.Name1) === qualifier);
  return table ? { table: table.Name1!, column } : undefined;
}

/** A query's output columns as table columns, or the reason one is not. */
function outputColumns(rows: readonly QueryRow[], columnsOf: (table: string) => Column[] | undefined): QueryColumn[] | string {
  const tables = rows.filter((r) => r.Attribute === 5);
  const out: QueryColumn[] = [];
  if ((rows.find((r) => r.Attribute === 3)?.Flag ?? 0) & STAR)
    for (const t of tables) {
      const columns = columnsOf(t.Name1!);
      if (!columns) return `it reads "${t.Name1}", which is not exported`;
      const complex = columns.find((c) => c.type === 'complex');
      if (complex) return `its * takes complex column "${complex.name}" of "${t.Name1}", exported as a table of its own`;
      out.push(...columns.map((c) => ({ name: c.name, table: t.Name1!, column: c.name })));
    }
  for (const c of rows.filter((r) => r.Attribute === 6)) {
    const ref = columnReference(c.Expression ?? '', tables);
    const column = ref && columnsOf(ref.table)?.find((x) => x.name.toLowerCase() === ref.column.toLowerCase());
    if (!ref || !column) return `its column ${c.Expression} is an expression, whose type is not derived`;
    if (column.type === 'complex') return `its column ${c.Expression} is a complex column, exported as a table of its own`;
    out.push({ name: c.Name1 ?? column.name, table: ref.table, column: column.name });
  }
  return out;
}

/** Every saved query, by name: its SQL and output columns, or why it is not a view. */
export function savedQueries(reader: MDBReader, columnsOf: (table: string) => Column[] | undefined): SavedQuery[] {
  const objects = reader.getTable('MSysObjects').getData({ columns: ['Id', 'Name', 'Type'] }) as Array<{
    Id: number;
    Name: string;
    Type: number;
  }>;
  const queries = objects.filter((o) => (o.Type & 0x7f) === 5).sort((a, b) => (a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0));
  if (queries.length === 0) return [];
  const all = reader.getTable('MSysQueries').getData() as unknown as QueryRow[];
  return queries.map((q): SavedQuery => {
    const rows = all.filter((r) => r.ObjectId === q.Id);
    const why = unsupported(rows);
    if (why) return { name: q.Name, why };
    const columns = outputColumns(rows, columnsOf);
    if (typeof columns === 'string') return { name: q.Name, why: columns };
    try {
      return { name: q.Name, sql: querySql(rows), columns };
    } catch (err) {
      return { name: q.Name, why: (err as Error).message };
    }
  });
}
