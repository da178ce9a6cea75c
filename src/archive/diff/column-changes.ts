/**
 * How one table's columns changed between two versions (by name: added, removed, retyped), and how
 * its rows are paired across them: on the columns both versions have, by the primary key when both
 * declare the same one, else as multisets of whole rows. A column added or removed is named once
 * here; it does not make every row changed.
 */
import type { SiardColumn, SiardTable } from '../../siard/model.js';
import type { Cells } from '../verify/pending-rows.js';

export interface RetypedColumn {
  column: string;
  from: string;
  to: string;
}

export interface ColumnChanges {
  added: string[];
  removed: string[];
  retyped: RetypedColumn[];
}

/** The rows of both versions as cells of the columns they share, and the key that pairs them. */
export interface RowPairing {
  /** names of the shared columns, in the order of version A */
  columns: string[];
  /** for each shared column, its index in version A's rows, then in version B's */
  at: [number[], number[]];
  /** indexes (in `columns`) of the primary key both versions declare; undefined: pair whole rows */
  key: number[] | undefined;
}

/** A column's declared type as metadata.xml gives it: the SQL type, or the UDT's qualified name, with ARRAY's cardinality. */
function typeText(c: SiardColumn): string {
  const type = c.type ?? `${c.typeSchema ?? ''}.${c.typeName ?? ''}`;
  return c.cardinality !== undefined ? `${type} ARRAY[${c.cardinality}]` : type;
}

export function columnChanges(a: SiardTable | undefined, b: SiardTable | undefined): ColumnChanges {
  const before = a?.columns ?? [];
  const after = b?.columns ?? [];
  const byName = new Map(before.map((c) => [c.name, c]));
  const names = new Set(after.map((c) => c.name));
  const retyped: RetypedColumn[] = [];
  for (const c of after) {
    const old = byName.get(c.name);
    if (old && typeText(old) !== typeText(c)) retyped.push({ column: c.name, from: typeText(old), to: typeText(c) });
  }
  return {
    added: after.filter((c) => !byName.has(c.name)).map((c) => c.name),
    removed: before.filter((c) => !names.has(c.name)).map((c) => c.name),
    retyped,
  };
}

/** The pairing of one table's rows; a table only one version has pairs its own columns with nothing. */
export function rowPairing(a: SiardTable | undefined, b: SiardTable | undefined): RowPairing {
  const one = (a ?? b)!;
  const other = a && b ? b : one;
  const columns = one.columns.map((c) => c.name).filter((n) => other.columns.some((c) => c.name === n));
  const atA = columns.map((n) => one.columns.findIndex((c) => c.name === n));
  const atB = columns.map((n) => other.columns.findIndex((c) => c.name === n));
  const keyA = one.primaryKey?.columns ?? [];
  const keyB = other.primaryKey?.columns ?? [];
  const sameKey = keyA.length > 0 && keyA.length === keyB.length && keyA.every((n, i) => keyB[i] === n);
  const key = sameKey ? keyA.map((n) => columns.indexOf(n)) : undefined;
  return { columns, at: [atA, atB], key: key?.every((i) => i >= 0) ? key : undefined };
}

/** `rows` with only the cells at `at` (the same array when `at` takes every cell in order). */
export function projectRows(rows: Cells[], at: readonly number[], width: number): Cells[] {
  if (at.length === width && at.every((x, i) => x === i)) return rows;
  return rows.map((r) => at.map((i) => r[i] ?? null));
}
