/**
 * How verify compares each archived column with its target column: the cell shape and compare form
 * of the archive's type, and what the target's documented type mapping (the loaders' tables,
 * docs/values.md, docs/mysql.md) does to it when the target is another engine:
 * - `json`: ARRAY and UDT values a target cannot hold as such are JSON text there (complexJson in
 *   sources/loader.ts); the archived value is turned into that JSON and compared as text, and the
 *   column is named lossy (its type is gone);
 * - `lossy`: other mappings that lose something for every value (SQLite literals as text outside
 *   SQLite, a time zone MariaDB does not keep);
 * - `expect`: mappings that change some values (NaN in SQLite, nanoseconds in PostgreSQL): the
 *   archived value is changed as the mapping does before it is compared, and each value so changed
 *   counts against the column, which is named lossy when any did.
 */
import { columnShape, typeCatalog, type CellShape } from '../../siard/cell-shape.js';
import { cellType, type SiardArchive } from '../../siard/model.js';
import type { SiardTableRef } from '../../siard/reader/siard-reader.js';
import { canonColumn, type CanonColumn } from './compare-form.js';

import { SQLITE_LITERAL_MIME } from '../../sources/sqlite/value-literal.js';

/** A column whose mapping into the target loses something, and why. */
export interface LossyColumn {
  column: string;
  reason: string;
  /** values the mapping changed (a mapping that changes every value: absent) */
  values?: number;
}

export interface ColumnPlan {
  name: string;
  shape: CellShape;
  canon: CanonColumn;
  json: boolean;
  /** a column of SQLite literals (docs/values.md) */
  literal: boolean;
  lossy?: string;
  expect?: (canon: string) => string | null;
  expectReason?: string;
}

const PRODUCTS: Record<string, RegExp> = { sqlite: /^sqlite/i, postgres: /^postgres/i, mysql: /^(mariadb|mysql)\b/i };

/** restore's rule (restore.ts loadTableOf): a column is an ARRAY by cardinality, its original type, or fields named col[1] / a1. */
function isArrayColumn(t: SiardTableRef, i: number): boolean {
  const column = t.table.columns[i]!;
  if (column.cardinality !== undefined || /(\[\]|\bARRAY(\[\d*\])?)$/i.test((column.typeOriginal ?? '').trim())) return true;
  const fields = t.columnExtras[i]?.fields ?? [];
  return fields.length > 0 && fields.every((f, k) => f.name.endsWith(`[${k + 1}]`) || f.name === `a${k + 1}`);
}

function shapeOf(archive: SiardArchive, t: SiardTableRef, i: number): CellShape {
  const column = t.table.columns[i]!;
  let shape: CellShape;
  try {
    shape = columnShape(column, t.schema.name, typeCatalog(archive.schemas), `column ${column.name}`);
  } catch {
    shape = { kind: 'scalar', type: 'CLOB', family: 'clob' }; // an undeclared type: its values compared as text
  }
  return shape.kind === 'scalar' && isArrayColumn(t, i) ? { kind: 'array', cardinality: column.cardinality ?? 0, element: shape } : shape;
}

/** The plan of every column of `t` compared with another archive's (diff): no mapping, every value as archived. */
export function archivePlans(archive: SiardArchive, t: SiardTableRef): ColumnPlan[] {
  return t.table.columns.map((column, i) => {
    const shape = shapeOf(archive, t, i);
    return { name: column.name, shape, canon: canonColumn(shape), json: false, literal: column.mimeType === SQLITE_LITERAL_MIME };
  });
}

/** The plan of every column of `t` for a target of `kind` ('sqlite', 'postgres', 'mysql'). */
export function columnPlans(kind: string, archive: SiardArchive, t: SiardTableRef): ColumnPlan[] {
  const same = PRODUCTS[kind]?.test(archive.databaseProduct ?? '') ?? false;
  return t.table.columns.map((column, i) => {
    const shape = shapeOf(archive, t, i);
    const literal = column.mimeType === SQLITE_LITERAL_MIME;
    const plan: ColumnPlan = { name: column.name, shape, canon: canonColumn(shape), json: false, literal };
    if (shape.kind !== 'scalar') {
      const nativeArray = kind === 'postgres' && shape.kind === 'array' && shape.element.kind === 'scalar';
      if (!nativeArray) {
        plan.json = true;
        plan.lossy = `${shape.kind === 'array' ? 'ARRAY' : 'structured type'} values held as JSON text`;
      }
      return plan;
    }
    const type = cellType(column) ?? '';
    if (literal && kind !== 'sqlite') plan.lossy = 'values held as their SQLite literals in a text column';
    if (same) return plan;
    if (kind === 'sqlite' && shape.family === 'float') {
      plan.expect = (v) => (v === 'NaN' ? null : v);
      plan.expectReason = 'SQLite has no NaN: restored as NULL';
    }
    if (kind === 'postgres' && (shape.family === 'timestamp' || shape.family === 'time')) {
      plan.expect = microseconds;
      plan.expectReason = 'PostgreSQL keeps microseconds: finer fractions of a second rounded';
    }
    if (kind === 'mysql' && /WITH\s+TIME\s+ZONE/i.test(type))
      plan.lossy = `${shape.family.toUpperCase()} WITH TIME ZONE held in UTC, without a time zone`;
    return plan;
  });
}

/**
 * The columns a verify names lossy, never equal: those whose mapping loses something for every value
 * (`lossy`), and those whose mapping changed some of the archived values read (`expected[i]` of
 * them, counted by archive-side.ts rowCanon).
 */
export function lossyColumns(plans: readonly ColumnPlan[], expected: readonly number[]): LossyColumn[] {
  const lossy: LossyColumn[] = [];
  plans.forEach((p, i) => {
    if (p.lossy) lossy.push({ column: p.name, reason: p.lossy });
    else if (expected[i]) lossy.push({ column: p.name, reason: p.expectReason!, values: expected[i] });
  });
  return lossy;
}

/** A canonical time or timestamp rounded to microseconds (half up), as PostgreSQL stores it. */
function microseconds(v: string): string {
  const dot = v.indexOf('.');
  if (dot < 0 || v.length - dot - 1 <= 6) return v;
  const digits = v.slice(dot + 1);
  if (!/^\d+$/.test(digits)) return v;
  let micro = Number(digits.slice(0, 6)) + (digits.charCodeAt(6) >= 0x35 ? 1 : 0);
  let head = v.slice(0, dot);
  if (micro === 1_000_000) {
    micro = 0;
    head = nextSecond(head);
  }
  const fraction = String(micro).padStart(6, '0').replace(/0+$/, '');
  return head + (fraction ? '.' + fraction : '');
}

/** 'hh:mm:ss' or 'YYYY-MM-DDThh:mm:ss' one second later (a time wraps at midnight, as PostgreSQL's time does not: rare enough). */
function nextSecond(head: string): string {
  if (head.length === 8) {
    const s = (Number(head.slice(0, 2)) * 3600 + Number(head.slice(3, 5)) * 60 + Number(head.slice(6, 8)) + 1) % 86400;
    const two = (n: number) => String(n).padStart(2, '0');
    return `${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
  }
  const ms = Date.parse(head + 'Z');
  return Number.isNaN(ms) ? head : new Date(ms + 1000).toISOString().slice(0, 19);
}
