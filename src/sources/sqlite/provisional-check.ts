/**
 * Value-by-value checks of a provisional table (prescan.ts, provisionalColumnTypes): does a value,
 * as better-sqlite3 reads it (integers as bigint, reals as number, text as string, blobs as
 * Uint8Array), fit its column's mapped type? Each check accepts a subset of what the full scan's
 * SQL test (misfitExpr) accepts, never more: a value it refuses sends the table to the full scan,
 * which decides exactly. Dates and timestamps are accepted only in the plain form that SQLite's
 * date() and datetime() give back unchanged ('YYYY-MM-DD', 'YYYY-MM-DD HH:MM:SS', a real day of
 * the proleptic Gregorian calendar from year 1); any other form goes to the full scan.
 */
import type { MappedType } from './type-mapping.js';

export type FitCheck = (value: unknown) => boolean;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The value of `length` ASCII digits at `at`, or -1 when one is not a digit. */
function digits(s: string, at: number, length: number): number {
  let n = 0;
  for (let i = at; i < at + length; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** 'YYYY-MM-DD' at the start of `s`: a real day, year 1 to 9999. */
function isPlainDay(s: string): boolean {
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}

/** 'YYYY-MM-DD' exactly, a real day. */
export function isPlainDate(s: string): boolean {
  return s.length === 10 && isPlainDay(s);
}

/** 'YYYY-MM-DD HH:MM:SS' exactly, a real day and time (no leap second, no hour 24). */
export function isPlainTimestamp(s: string): boolean {
  if (s.length !== 19 || !isPlainDay(s) || s.charCodeAt(10) !== 32 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return false;
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  return hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59;
}

/** The check of a column of `kind` (NULL always fits). */
export function fitCheck(kind: MappedType['kind']): FitCheck {
  switch (kind) {
    case 'integer':
      return (v) => v === null || typeof v === 'bigint';
    case 'double':
      return (v) => v === null || typeof v === 'bigint' || typeof v === 'number';
    case 'decimal':
      return (v) => v === null || typeof v === 'bigint' || (typeof v === 'number' && Number.isFinite(v));
    case 'boolean':
      return (v) => v === null || v === 0n || v === 1n;
    case 'varchar':
    case 'clob':
      return (v) => v === null || typeof v === 'string';
    case 'blob':
      return (v) => v === null || v instanceof Uint8Array;
    case 'date':
      return (v) => v === null || (typeof v === 'string' && isPlainDate(v));
    case 'timestamp':
      return (v) => v === null || (typeof v === 'string' && isPlainTimestamp(v));
    default:
      return () => false; // untyped and literal columns are never provisional
  }
}
