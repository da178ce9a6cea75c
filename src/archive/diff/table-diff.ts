/**
 * One archived table compared between two versions: both versions' rows read at once in compare
 * form (verify/archive-side.ts: every value as archived, every LOB file read and checked) and
 * paired by verify's RowMatcher, which holds nothing while the two give the same keys in the same
 * order (two exports of one database, read in key order) and keeps rows read in other orders in
 * PendingRows, memory then a SQLite file: memory stays bounded whatever the table's size.
 */
import type { SiardArchive } from '../../siard/model.js';
import type { SiardTableRef } from '../../siard/reader/siard-reader.js';
import type { OpenedArchive } from '../open-archive.js';
import { archiveRows } from '../verify/archive-side.js';
import { archivePlans } from '../verify/column-plan.js';
import { PendingRows, type Cells } from '../verify/pending-rows.js';
import { matchSides, RowMatcher, type RowDifference, type RowListener } from '../verify/row-matcher.js';
import { columnChanges, projectRows, rowPairing, type ColumnChanges } from './column-changes.js';

export interface RowChange {
  /** primary key values in compare form (verify/compare-form.ts); the whole row (shared columns) for a table without one */
  key: Array<string | null>;
  change: 'added' | 'removed' | 'changed';
  /** a changed row: the columns whose values differ */
  columns?: string[];
}

export interface TableDiff {
  /** "schema.table" */
  table: string;
  /** 'added' / 'removed': only in version B / A; 'changed': rows or columns differ */
  change: 'added' | 'removed' | 'changed' | 'unchanged';
  /** the first `rowLimit` row changes (all are given to `onRow`) */
  rows: RowChange[];
  added: number;
  removed: number;
  changed: number;
  columns: ColumnChanges;
}

export interface TableDiffOptions {
  /** row changes kept in TableDiff.rows (default 1000; the counts are always whole) */
  rowLimit?: number;
  /** every row change, as found (rows only one version has that wait to the end come last) */
  onRow?: (table: string, row: RowChange) => void;
  /** rows read, of either version */
  onRows?: (n: number) => void;
  /** bytes of unpaired rows held in memory before they move to a temporary file */
  memoryBytes?: number;
  /** the folder of that file (default: the system's temporary folder) */
  scratchDir?: string;
}

/** One side of the table: an archive and its table there, or absent. */
export interface TableSide {
  archive: OpenedArchive;
  ref: SiardTableRef;
}

const CHANGE: Record<RowDifference['change'], RowChange['change']> = { missing: 'removed', extra: 'added', changed: 'changed' };

/** The rows of one side in compare form, cells of the shared columns only. */
async function* sideRows(side: TableSide, at: readonly number[]): AsyncGenerator<Cells[]> {
  const plans = archivePlans(side.archive.reader.archive as SiardArchive, side.ref);
  for await (const batch of archiveRows(side.archive, side.ref, plans, [])) yield projectRows(batch, at, plans.length);
}

/** A table only one version has: the other side gives no rows. */
async function* noRows(): AsyncGenerator<Cells[]> {}

/** Table `name` compared between version A (`a`) and version B (`b`); at least one is present. */
export async function diffTable(
  name: string,
  a: TableSide | undefined,
  b: TableSide | undefined,
  options: TableDiffOptions = {},
): Promise<TableDiff> {
  const pairing = rowPairing(a?.ref.table, b?.ref.table);
  const result: TableDiff = {
    table: name,
    change: a && b ? 'unchanged' : a ? 'removed' : 'added',
    rows: [],
    added: 0,
    removed: 0,
    changed: 0,
    columns: a && b ? columnChanges(a.ref.table, b.ref.table) : { added: [], removed: [], retyped: [] },
  };
  const limit = options.rowLimit ?? 1000;
  const listen: RowListener = (d, cells, columns) => {
    const change = CHANGE[d];
    result[change]++;
    const row: RowChange = { key: pairing.key ? pairing.key.map((i) => cells[i] ?? null) : [...cells], change };
    if (columns) row.columns = columns.map((c) => pairing.columns[c]!);
    if (result.rows.length < limit) result.rows.push(row);
    options.onRow?.(name, row);
  };
  const pending = new PendingRows(options.memoryBytes, options.scratchDir);
  const matcher = new RowMatcher(pairing.columns, pairing.key, pending, 0, listen);
  try {
    // a table only version B has is read as side 1 against no rows, so its rows are 'added'
    const left = a ? sideRows(a, pairing.at[0]) : noRows();
    const right = b ? sideRows(b, a ? pairing.at[1] : pairing.at[0]) : undefined;
    await matchSides(matcher, left, right, (n) => options.onRows?.(n));
  } finally {
    pending.close();
  }
  const c = result.columns;
  if (
    result.change === 'unchanged' &&
    result.added + result.removed + result.changed + c.added.length + c.removed.length + c.retyped.length > 0
  )
    result.change = 'changed';
  return result;
}
