/**
 * One scan of a table's numeric and interval columns, for values SIARD's types cannot hold:
 *
 * - numeric NaN, Infinity, -Infinity: xs:decimal has no such values. Such a column is written as
 *   VARCHAR(longest) holding PostgreSQL's own numeric text ('12.50', 'NaN', '-Infinity'), which a
 *   restore into PostgreSQL casts back to numeric exactly; `typeOriginal` keeps numeric(p,s).
 * - interval: SQL:2008 has year-month intervals and day-time intervals, never both in one type,
 *   while a PostgreSQL interval keeps months, days and microseconds apart (a month is not 30
 *   days), each with its own sign. A column whose values have only years/months is
 *   INTERVAL YEAR(9) TO MONTH; one with no years/months INTERVAL DAY(9) TO SECOND(6) (the static
 *   mapping); one that has both, or an interval whose parts differ in sign (which no xs:duration
 *   holds), is VARCHAR(longest) holding PostgreSQL's ISO 8601 text (P1Y-2M3DT4H), which
 *   PostgreSQL reads back exactly.
 *
 * Each such column is reported (WidenedColumn) with the first row, in export order, that needed it.
 * Arrays of these types keep the static mapping (their elements are not scanned).
 */
import type pg from 'pg';
import type { WidenedColumn } from '../../siard/database-source.js';
import { qualifiedName, rowKeyOf, type PgColumnPlan, type PgTablePlan } from './introspect.js';
import { INTERVAL_DAY_SECOND, INTERVAL_YEAR_MONTH } from './type-mapping.js';
import { quoteIdent } from '../sql-identifier.js';

/** Runs the scan and retypes the columns that need it; returns one report per retyped column. */
export async function scanSpecialValues(client: pg.Client, plan: PgTablePlan): Promise<WidenedColumn[]> {
  const cols = plan.columns.filter((c) => !c.mapped.array && (c.mapped.kind === 'decimal' || c.mapped.kind === 'interval'));
  if (cols.length === 0) return [];
  const exprs: string[] = [];
  cols.forEach((c, i) => {
    const t = `${quoteIdent(c.name)}::text`;
    exprs.push(`max(length(${t}))::int AS l${i}`);
    if (c.mapped.kind === 'decimal') {
      exprs.push(`coalesce(bool_or(${specialNumeric(c)}), false) AS s${i}`);
    } else {
      exprs.push(`coalesce(bool_or(${yearMonth(t)}), false) AS ym${i}`);
      exprs.push(`coalesce(bool_or(${dayTime(t)}), false) AS dt${i}`);
      exprs.push(`coalesce(bool_or(${mixedSigns(t)}), false) AS s${i}`);
    }
  });
  const from = qualifiedName(plan.schema, plan.name);
  const row = (await client.query(`SELECT ${exprs.join(', ')} FROM ${from}`)).rows[0] as Record<string, unknown>;
  const out: WidenedColumn[] = [];
  for (let i = 0; i < cols.length; i++) {
    const c = cols[i]!;
    const length = Math.max(1, Number(row[`l${i}`] ?? 1));
    const declared = c.column.typeOriginal ?? c.info.formatted;
    let condition: string | undefined;
    let reason = '';
    if (c.mapped.kind === 'decimal') {
      if (!row[`s${i}`]) continue;
      condition = specialNumeric(c);
      reason = 'holds NaN or infinite values, which xs:decimal cannot';
      c.column.description = joinNote(
        c.column.description,
        `Holds NaN or Infinity, which SIARD's DECIMAL cannot: every value is written as PostgreSQL's numeric text ('12.50', ` +
          `'NaN', '-Infinity'); typeOriginal keeps the numeric type.`,
      );
    } else {
      const t = `${quoteIdent(c.name)}::text`;
      const ym = Boolean(row[`ym${i}`]);
      const dt = Boolean(row[`dt${i}`]);
      if (!row[`s${i}`] && !(ym && dt)) {
        const type = ym ? INTERVAL_YEAR_MONTH : INTERVAL_DAY_SECOND;
        c.mapped = { ...c.mapped, type };
        c.column.type = type;
        continue;
      }
      condition = row[`s${i}`] ? `(${mixedSigns(t)}) OR (${yearMonth(t)} AND ${dayTime(t)})` : `${yearMonth(t)} AND ${dayTime(t)}`;
      reason = row[`s${i}`]
        ? 'holds intervals whose parts differ in sign, which no xs:duration can'
        : 'holds intervals with both months and days or time, which no SQL:2008 interval type can';
      c.column.description = joinNote(
        c.column.description,
        `PostgreSQL intervals that no SQL:2008 interval type holds (months beside days or time, or parts of different signs): ` +
          `every value is written as PostgreSQL's ISO 8601 interval text (P1Y-2M3DT4H), which PostgreSQL reads back exactly.`,
      );
    }
    const type = `VARCHAR(${length})`;
    c.mapped = { type, kind: 'text' };
    c.column.type = type;
    // numbered in the export's row order (postgres-source.ts)
    const key = rowKeyOf(plan);
    const orderBy = key ? `ORDER BY ${key.map(quoteIdent).join(', ')}` : '';
    const first = await client.query<{ n: string }>(
      `SELECT n FROM (SELECT row_number() OVER (${orderBy}) AS n, (${condition}) AS hit FROM ${from}) s WHERE hit LIMIT 1`,
    );
    out.push({
      schema: plan.schema,
      table: plan.name,
      column: c.name,
      declared,
      exportedAs: type,
      form: "PostgreSQL's text",
      firstRow: Number(first.rows[0]?.n ?? 0),
      reason,
    });
  }
  return out;
}

function specialNumeric(c: PgColumnPlan): string {
  return `${quoteIdent(c.name)}::text IN ('NaN', 'Infinity', '-Infinity')`;
}

/** ISO 8601 interval text (intervalstyle iso_8601) with a year or month part before the T. */
function yearMonth(t: string): string {
  return `split_part(${t}, 'T', 1) ~ '[YM]'`;
}

/** ... with a day part or a time part. */
function dayTime(t: string): string {
  return `(${t} ~ 'D' OR ${t} ~ 'T.*[1-9]')`;
}

/** ... with both a negative and a positive part. */
function mixedSigns(t: string): string {
  return `(${t} ~ '-' AND ${t} ~ '[PYMDTH][0-9]')`;
}

function joinNote(existing: string | undefined, note: string): string {
  return existing ? `${existing} ${note}` : note;
}
