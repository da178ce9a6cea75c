/**
 * One scan per table that checks every value against the mapped type of its column (see
 * type-mapping.ts) and decides the final type: the mapped one when everything fits, else a wider
 * one that holds the values unchanged, recording the first row that made it wider (for the
 * export's report, and for `--strict`, which refuses instead). Where the SIARD writer can take a
 * table back, a cheap scan settles the types provisionally instead (provisionalColumnTypes), the
 * values being checked as they are read: one pass over the rows where the types hold.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { quoteIdent } from '../sql-identifier.js';
import { type MappedType, type ValueKind } from './type-mapping.js';
import { SQLITE_LITERAL_MIME } from './value-literal.js';
import type { AggregateScanner } from './split-scan.js';

export interface ColumnDecision {
  kind: ValueKind;
  type: string;
  /** set when the type differs from the declared type's mapping (the column's description) */
  note?: string;
  /** set for a column written as SQLite literals */
  mimeType?: string;
  /** set when the values made the type wider than the declared type maps to */
  widened?: { firstRow: number; reason: string };
  /**
   * Largest SQLite length() of a value (characters of text, bytes of a blob); 0 for columns that
   * hold only numbers. Bounds the memory of a batch of rows read at once (sqlite-source.ts).
   */
  maxLength?: number;
}

/** Mapped kinds whose values, once they fit, are numbers (no length worth counting). */
const NUMBER_KINDS = new Set<MappedType['kind']>(['integer', 'double', 'decimal', 'boolean']);

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
      // A 19-character value datetime() gives back unchanged ('YYYY-MM-DD HH:MM:SS', a real date)
      // fits at once: the usual case, at a fifth of the cost of the full test (GLOB, strftime).
      // CASE, because SQLite evaluates every operand of an AND / OR that yields a value.
      return (
        `CASE WHEN ${t} = 'null' OR (${t} = 'text' AND ${c} >= '0001' AND length(${c}) = 19 AND datetime(${c}) IS ${c}) THEN 0 ELSE ` +
        `NOT (${t} = 'null' OR (${t} = 'text' AND ${c} GLOB ${TS_GLOB} AND ${c} >= '0001'` +
        ` AND strftime('%Y-%m-%d %H:%M:%S', ${c}) IS substr(${c}, 1, 19)` +
        ` AND (length(${c}) = 19 OR (substr(${c}, 20, 1) = '.' AND length(${c}) > 20 AND NOT substr(${c}, 21) GLOB '*[^0-9]*')))) END`
      );
    case 'untyped':
    case 'literal':
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
 * Decides the SIARD type of every column of `table` and counts its rows (one scan, a second only when some value does not fit). `orderBy`
 * is the row order of the export, so an error can name the row number a reader of the archive will see. `scanner` runs the first
 * scan (split-scan.ts: on both cores for a large table); without it the scan runs here.
 */
export async function decideColumnTypes(
  db: BetterSqlite3.Database,
  table: string,
  columns: Array<{ name: string; mapped: MappedType }>,
  orderBy: string,
  scanner?: AggregateScanner,
): Promise<{ decisions: ColumnDecision[]; rows: number }> {
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
    // varchar holds only text when it fits, so l<i> bounds it; a misfit column gets lb<i> in the second scan
    else if (!NUMBER_KINDS.has(col.mapped.kind)) parts.push(`max(length(${c})) AS lb${i}`);
  });
  const row = scanner
    ? await scanner.aggregate(
        table,
        parts.join(', '),
        columns.map((c) => c.name),
        orderBy === 'rowid',
      )
    : (db.prepare(`SELECT ${parts.join(', ')} FROM ${quoteIdent(table)}`).get() as Record<string, number | null>);
  const misfits = columns.map((col, i) => (col.mapped.kind !== 'untyped' && (row[`m${i}`] ?? 0) > 0 ? i : -1)).filter((i) => i >= 0);
  if (misfits.length > 0) {
    const more = misfits.flatMap((i) => {
      const c = quoteIdent(columns[i]!.name);
      return `lb${i}` in row ? classCounts(c, i) : [...classCounts(c, i), `max(length(${c})) AS lb${i}`];
    });
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
    const decision = decide(db, table, col.name, col.mapped, counts, orderBy);
    decision.maxLength = Math.max(row[`lb${i}`] ?? 0, counts.maxLength);
    return decision;
  });
  return { decisions, rows: row.n_rows ?? 0 };
}

/** Kinds whose fit a reader can check value by value in JavaScript (provisional-check.ts). */
const CHECKABLE_KINDS = new Set<MappedType['kind']>([
  'integer',
  'double',
  'decimal',
  'boolean',
  'varchar',
  'clob',
  'blob',
  'date',
  'timestamp',
]);

export type ProvisionalColumns = Array<{ name: string; mapped: MappedType }>;

export interface ProvisionalTypes {
  decisions: ColumnDecision[];
  rows: number;
  longestValueBytes: number;
}

/** Whether every column's fit can be checked value by value (provisional-check.ts), so the types can be provisional. */
export function checkableColumns(columns: ProvisionalColumns): boolean {
  return columns.every((c) => CHECKABLE_KINDS.has(c.mapped.kind));
}

/**
 * The cheap scan's select list (one row): the row count, the longest value of each text or blob
 * column (which bound the memory of a batch of rows, and tell whether a value could go to a LOB
 * file) and how many text or blob values each number column holds. Counts and maxima only, so
 * the rows of two parts of a table merge exactly (split-scan.ts, merge).
 */
export function cheapScanList(columns: ProvisionalColumns): string {
  const parts: string[] = ['count(*) AS n_rows'];
  columns.forEach((col, i) => {
    const c = quoteIdent(col.name);
    parts.push(NUMBER_KINDS.has(col.mapped.kind) ? `total(typeof(${c}) IN ('text', 'blob')) AS x${i}` : `max(length(${c})) AS l${i}`);
  });
  return parts.join(', ');
}

/** Where the cheap scan's row (cheapScanList) says the full scan must decide: a number column holding text or blobs. */
function columnNeedingFullScan(columns: ProvisionalColumns, row: Record<string, unknown>): string | undefined {
  return columns.find((_, i) => Number(row[`x${i}`] ?? 0) > 0)?.name;
}

/**
 * The longest value of each column and of all (in bytes: length() counts the characters of text,
 * at most 4 UTF-8 bytes each, and the bytes of a blob) from a cheap scan's row, or the column
 * that needs the full scan.
 */
export function lengthsFromCheapScan(
  columns: ProvisionalColumns,
  row: Record<string, unknown>,
): { maxLengths: number[]; longestValueBytes: number } | { needsFullScan: string } {
  const odd = columnNeedingFullScan(columns, row);
  if (odd !== undefined) return { needsFullScan: odd };
  const maxLengths = columns.map((_, i) => Number(row[`l${i}`] ?? 0));
  const longestValueBytes = Math.max(0, ...maxLengths.map((n, i) => (columns[i]!.mapped.kind === 'blob' ? n : 4 * n)));
  return { maxLengths, longestValueBytes };
}

/**
 * The types settled from the cheap scan's row (cheapScanList), assuming every value fits its
 * column's mapped type; the rows are then checked as they are read. A longer VARCHAR than declared
 * is widened here, as the full scan would. `needsFullScan` names a number column holding text or
 * blobs (its length is not known, and its type needs the full scan).
 */
export function typesFromCheapScan(
  db: BetterSqlite3.Database,
  table: string,
  columns: ProvisionalColumns,
  orderBy: string,
  row: Record<string, unknown>,
): ProvisionalTypes | { needsFullScan: string } {
  const lengths = lengthsFromCheapScan(columns, row);
  if ('needsFullScan' in lengths) return lengths;
  const decisions = columns.map((col, i) => {
    const longest = lengths.maxLengths[i]!;
    const counts: Counts = { misfit: 0, integer: 0, real: 0, text: 0, blob: 0, maxLength: longest };
    const decision = decide(db, table, col.name, col.mapped, counts, orderBy);
    decision.maxLength = longest;
    return decision;
  });
  return { decisions, rows: Number(row.n_rows ?? 0), longestValueBytes: lengths.longestValueBytes };
}

/**
 * The types of `table` settled from one cheap scan run here (cheapScanList, typesFromCheapScan). A
 * quarter of the full scan's cost for the usual table, and no second pass over the rows where the
 * types hold. Undefined when a column's type needs the full scan: an untyped column (its storage
 * classes decide it), or a number column holding text or blobs.
 */
export function provisionalColumnTypes(
  db: BetterSqlite3.Database,
  table: string,
  columns: ProvisionalColumns,
  orderBy: string,
): ProvisionalTypes | undefined {
  if (!checkableColumns(columns)) return undefined;
  const row = db.prepare(`SELECT ${cheapScanList(columns)} FROM ${quoteIdent(table)}`).get() as Record<string, unknown>;
  const types = typesFromCheapScan(db, table, columns, orderBy, row);
  return 'needsFullScan' in types ? undefined : types;
}

/** The mapped types, as the cheap scan settles them when every value fits and no VARCHAR is longer than declared. */
export function assumedColumnTypes(columns: ProvisionalColumns): ColumnDecision[] {
  return columns.map((c) => ({ kind: c.mapped.kind, type: c.mapped.type }));
}

/** What each storage class found in a column is called in messages. */
function classesOf(n: Counts): string {
  const parts = [n.integer && 'integers', n.real && 'reals', n.text && 'text', n.blob && 'blobs'].filter(Boolean) as string[];
  return parts.length > 1 ? parts.slice(0, -1).join(', ') + ' and ' + parts[parts.length - 1] : (parts[0] ?? 'nothing');
}

function decide(db: BetterSqlite3.Database, table: string, column: string, mapped: MappedType, n: Counts, orderBy: string): ColumnDecision {
  const c = quoteIdent(column);
  const numbers = n.integer + n.real;
  const others = numbers + n.text;
  const literal = (why: string, firstRow: number): ColumnDecision => ({
    kind: 'literal',
    type: 'CLOB',
    mimeType: SQLITE_LITERAL_MIME,
    note:
      `SQLite column holding ${why}: every value is written as its SQLite literal (42, 1.5, 'text', X'00FF') ` +
      `so that its storage class is kept; mimeType ${SQLITE_LITERAL_MIME}.`,
    widened: { firstRow, reason: `holds ${why}` },
  });
  // Columns without affinity (untyped, or declared BLOB) keep whatever storage class was inserted,
  // so a restore can only give the classes back if the SIARD type (or the cell) carries them.
  if (mapped.kind === 'untyped' || (mapped.kind === 'blob' && n.misfit > 0)) {
    const declared = mapped.kind === 'blob';
    const kinds = [n.integer + n.real > 0, n.text > 0, n.blob > 0].filter(Boolean).length;
    if (kinds > 1) return literal(classesOf(n), firstOtherClass(db, table, c, orderBy));
    // One kind of value: a plain type keeps it (a restore into the declared type gives it back).
    const plain: ColumnDecision =
      n.integer > 0 && n.real === 0
        ? { kind: 'integer', type: 'BIGINT' }
        : numbers > 0
          ? { kind: 'double', type: 'DOUBLE PRECISION' }
          : n.text > 0
            ? { kind: 'clob', type: 'CLOB' }
            : { kind: 'blob', type: 'BLOB' };
    if (!declared) return plain;
    const reason = `holds ${classesOf(n)}, not blobs`;
    return {
      ...plain,
      note: `Declared BLOB but ${reason}; exported as ${plain.type}, every value unchanged.`,
      widened: { firstRow: firstMisfit(db, table, c, mapped, orderBy), reason },
    };
  }
  if (n.misfit === 0) {
    if (mapped.kind === 'varchar' && mapped.length !== undefined && n.maxLength > mapped.length) {
      return {
        kind: 'varchar',
        type: `VARCHAR(${n.maxLength})`,
        note: `Declared length ${mapped.length} but holds text of up to ${n.maxLength} characters; widened so no value is cut.`,
        widened: {
          firstRow: firstRowWhere(db, table, `typeof(${c}) = 'text' AND length(${c}) > ${mapped.length}`, orderBy),
          reason: `holds text longer than ${mapped.length} characters`,
        },
      };
    }
    return { kind: mapped.kind, type: mapped.type };
  }
  const firstRow = firstMisfit(db, table, c, mapped, orderBy);
  if (others === 0) {
    return {
      kind: 'blob',
      type: 'BLOB',
      note: 'Declared type does not match the values, which are all blobs; exported as BLOB unchanged.',
      widened: { firstRow, reason: 'holds blobs' },
    };
  }
  if (n.blob > 0) return literal(classesOf(n), firstRow);
  // The column's affinity turns text that looks like a number back into that number on restore,
  // so plain text keeps every storage class here.
  return {
    kind: 'clob',
    type: 'CLOB',
    note: 'Some values do not fit the declared type; the column is exported as CLOB with every value as text, unchanged.',
    widened: { firstRow, reason: `holds values that are not ${mapped.type === 'BLOB' ? 'blobs' : `of type ${mapped.type}`}` },
  };
}

/** Row number (export order, from 1) of the first row where `condition` holds; 0 if none. */
function firstRowWhere(db: BetterSqlite3.Database, table: string, condition: string, orderBy: string): number {
  const found = db
    .prepare(
      `SELECT n FROM (SELECT row_number() OVER (ORDER BY ${orderBy}) AS n, (${condition}) AS hit FROM ${quoteIdent(table)}) ` +
        `WHERE hit LIMIT 1`,
    )
    .get() as { n: number } | undefined;
  return found?.n ?? 0;
}

function firstMisfit(db: BetterSqlite3.Database, table: string, c: string, mapped: MappedType, orderBy: string): number {
  return firstRowWhere(db, table, misfitExpr(c, mapped), orderBy);
}

/** First row whose storage class differs from the first non-NULL value's (integer and real count as one). */
function firstOtherClass(db: BetterSqlite3.Database, table: string, c: string, orderBy: string): number {
  const cls = `CASE typeof(${c}) WHEN 'real' THEN 'integer' ELSE typeof(${c}) END`;
  const first = db.prepare(`SELECT ${cls} AS k FROM ${quoteIdent(table)} WHERE ${c} IS NOT NULL ORDER BY ${orderBy} LIMIT 1`).get() as
    { k: string } | undefined;
  if (!first) return 0;
  return firstRowWhere(db, table, `${c} IS NOT NULL AND ${cls} <> '${first.k}'`, orderBy);
}
