/**
 * One scan per table that checks every value against the mapped type of its column (see
 * type-mapping.ts) and decides the final type: the mapped one when everything fits, a wider one
 * that holds the values unchanged, or an error naming table, row and column.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { SiardOcflError } from '../../errors.js';
import { type MappedType, type ValueKind } from './type-mapping.js';

export interface ColumnDecision {
  kind: ValueKind;
  type: string;
  /** set when the type differs from the declared type's mapping */
  note?: string;
}

export function quoteIdent(name: string): string {
  return '"' + name.replace(/"/g, '""') + '"';
}

const TS_GLOB = "'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]*'";

/** SQL that is 1 when the cell does not fit `mapped` (NULL always fits). */
function misfitExpr(c: string, mapped: MappedType): string {
  const t = `typeof(${c})`;
  switch (mapped.kind) {
    case 'integer':
      return `${t} NOT IN ('integer','null')`;
    case 'double':
      return `${t} NOT IN ('integer','real','null')`;
    case 'decimal':
      return `(${t} NOT IN ('integer','real','null') OR (${t} = 'real' AND abs(${c}) > 1.7976931348623157e308))`;
    case 'boolean':
      return `NOT (${t} = 'null' OR (${t} = 'integer' AND ${c} IN (0, 1)))`;
    case 'varchar':
    case 'clob':
      return `${t} NOT IN ('text','null')`;
    case 'blob':
      return `${t} NOT IN ('blob','null')`;
    case 'date':
      return `NOT (${t} = 'null' OR (${t} = 'text' AND date(${c}) IS ${c} AND ${c} >= '0001'))`;
    case 'timestamp':
      return (
        `NOT (${t} = 'null' OR (${t} = 'text' AND ${c} GLOB ${TS_GLOB} AND ${c} >= '0001'` +
        ` AND strftime('%Y-%m-%d %H:%M:%S', ${c}) IS substr(${c}, 1, 19)` +
        ` AND (length(${c}) = 19 OR (substr(${c}, 20, 1) = '.' AND length(${c}) > 20 AND NOT substr(${c}, 21) GLOB '*[^0-9]*'))))`
      );
    case 'untyped':
      return '0';
  }
}

interface Counts {
  misfit: number;
  integer: number;
  real: number;
  text: number;
  blob: number;
  maxLength: number;
}

/**
 * Decides the SIARD type of every column of `table` and counts its rows (one scan, a second only when some value does not fit). `orderBy` is the row order of the export,
 * so an error can name the row number a reader of the archive will see.
 */
export function decideColumnTypes(
  db: BetterSqlite3.Database,
  table: string,
  columns: Array<{ name: string; mapped: MappedType }>,
  orderBy: string,
): { decisions: ColumnDecision[]; rows: number } {
  // First scan: misfits per column (plus what untyped and VARCHAR columns need). Storage-class
  // counts are only gathered, in a second scan, for columns where something does not fit.
  const classCounts = (c: string, i: number) => [
    `total(typeof(${c}) = 'integer') AS i${i}`,
    `total(typeof(${c}) = 'real') AS r${i}`,
    `total(typeof(${c}) = 'text') AS t${i}`,
    `total(typeof(${c}) = 'blob') AS b${i}`,
  ];
  const parts: string[] = ['count(*) AS n_rows'];
  columns.forEach((col, i) => {
    const c = quoteIdent(col.name);
    parts.push(`total(${misfitExpr(c, col.mapped)}) AS m${i}`);
    if (col.mapped.kind === 'untyped') parts.push(...classCounts(c, i));
    if (col.mapped.kind === 'varchar') parts.push(`max(CASE WHEN typeof(${c}) = 'text' THEN length(${c}) END) AS l${i}`);
  });
  const row = db.prepare(`SELECT ${parts.join(', ')} FROM ${quoteIdent(table)}`).get() as Record<string, number | null>;
  const misfits = columns.map((col, i) => (col.mapped.kind !== 'untyped' && (row[`m${i}`] ?? 0) > 0 ? i : -1)).filter((i) => i >= 0);
  if (misfits.length > 0) {
    const more = misfits.flatMap((i) => classCounts(quoteIdent(columns[i]!.name), i));
    Object.assign(row, db.prepare(`SELECT ${more.join(', ')} FROM ${quoteIdent(table)}`).get() as Record<string, number | null>);
  }
  const decisions = columns.map((col, i) => {
    const counts: Counts = {
      misfit: row[`m${i}`] ?? 0,
      integer: row[`i${i}`] ?? 0,
      real: row[`r${i}`] ?? 0,
      text: row[`t${i}`] ?? 0,
      blob: row[`b${i}`] ?? 0,
      maxLength: row[`l${i}`] ?? 0,
    };
    return decide(db, table, col.name, col.mapped, counts, orderBy);
  });
  return { decisions, rows: row.n_rows ?? 0 };
}

function decide(db: BetterSqlite3.Database, table: string, column: string, mapped: MappedType, n: Counts, orderBy: string): ColumnDecision {
  const others = n.integer + n.real + n.text;
  if (mapped.kind === 'untyped') {
    if (n.blob > 0 && others > 0) mixedError(db, table, column, orderBy, "typeof(c) = 'blob'", 'blobs and other values');
    if (n.text > 0 && n.integer + n.real > 0) mixedError(db, table, column, orderBy, "typeof(c) = 'text'", 'text and numbers');
    if (n.integer > 0 && n.real === 0) return { kind: 'integer', type: 'BIGINT' };
    if (n.integer + n.real > 0) return { kind: 'double', type: 'DOUBLE PRECISION' };
    if (n.text > 0) return { kind: 'clob', type: 'CLOB' };
    return { kind: 'blob', type: 'BLOB' };
  }
  if (n.misfit === 0) {
    if (mapped.kind === 'varchar' && mapped.length !== undefined && n.maxLength > mapped.length) {
      return {
        kind: 'varchar',
        type: `VARCHAR(${n.maxLength})`,
        note: `Declared length ${mapped.length} but holds text of up to ${n.maxLength} characters; widened so no value is cut.`,
      };
    }
    return { kind: mapped.kind, type: mapped.type };
  }
  if (others === 0) {
    return { kind: 'blob', type: 'BLOB', note: 'Declared type does not match the values, which are all blobs; exported as BLOB unchanged.' };
  }
  if (n.blob > 0) mixedError(db, table, column, orderBy, "typeof(c) = 'blob'", 'blobs and other values');
  return {
    kind: 'clob',
    type: 'CLOB',
    note: 'Some values do not fit the declared type; the column is exported as CLOB with every value as text, unchanged.',
  };
}

function mixedError(db: BetterSqlite3.Database, table: string, column: string, orderBy: string, condition: string, what: string): never {
  const c = quoteIdent(column);
  const cond = condition.replace(/\bc\b/g, c);
  // Row number in export order of the first cell of the minority kind.
  const found = db
    .prepare(`SELECT n FROM (SELECT row_number() OVER (ORDER BY ${orderBy}) AS n, ${cond} AS hit FROM ${quoteIdent(table)}) WHERE hit LIMIT 1`)
    .get() as { n: number } | undefined;
  throw new SiardOcflError(
    `Table "${table}", row ${found?.n ?? '?'}, column "${column}": the column holds ${what}, which no single SQL type can keep apart; export stopped so no value is changed.`,
    { code: 'VALUE_DOES_NOT_FIT', exitCode: 2 },
  );
}
