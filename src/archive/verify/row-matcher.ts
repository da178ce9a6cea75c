/**
 * Compares one table's rows from two sides, the archive (side 0) and the target (side 1), each
 * read in its own order: rows are paired as they come, and while both sides give the same keys in
 * the same order (a target restored from this archive, read in its natural order) each pair is
 * compared at once and nothing is held. A row whose partner has not come yet waits in PendingRows
 * (memory, then disk) under its key until the other side gives it, so rows in another order cost
 * only the rows between. Tables with a primary key are matched by key, cell by cell; tables without
 * one as multisets of whole rows (a row's key is the row itself, with its number of copies).
 */
import type { Cells, PendingRow, PendingRows, Side } from './pending-rows.js';

export interface RowDifference {
  /** primary key values (compare forms); the whole row for a table without primary key */
  key: Array<string | null>;
  /** the differing column; null for a row only one side has */
  column: string | null;
  /** 'missing': in the archive, not in the target; 'extra': in the target only; 'changed': a cell differs */
  change: 'missing' | 'extra' | 'changed';
}

/**
 * Sees every row difference as it is found, whole (what diff lists, every row): a row one side
 * lacks, or a pair of rows with the same key whose cells differ (`columns`: their indexes).
 */
export type RowListener = (change: RowDifference['change'], cells: Cells, columns?: readonly number[]) => void;

export interface MatchCounts {
  /** archive rows the target lacks */
  missing: number;
  /** target rows the archive lacks */
  extra: number;
  /** cells that differ in rows both have */
  changed: number;
  rows: [number, number];
}

export class RowMatcher {
  readonly counts: MatchCounts = { missing: 0, extra: 0, changed: 0, rows: [0, 0] };
  /** the first `limit` differences found */
  readonly differences: RowDifference[] = [];
  private readonly queues: [Cells[], Cells[]] = [[], []];
  private readonly heads: [number, number] = [0, 0];
  /** a side that has given its last row: the other's rows are matched one by one as they come */
  private readonly ended: [boolean, boolean] = [false, false];

  constructor(
    private readonly columns: readonly string[],
    /** indexes of the primary key's columns; undefined: compare as multisets */
    private readonly keyColumns: readonly number[] | undefined,
    private readonly pending: PendingRows,
    private readonly limit = 100,
    private readonly onRow?: RowListener,
  ) {}

  /** Rows of one side, in the order it reads them. */
  add(side: Side, rows: Cells[]): void {
    this.counts.rows[side] += rows.length;
    if (this.ended[side === 0 ? 1 : 0]) {
      for (const r of rows) this.single(side, r);
      return;
    }
    const q = this.queues[side];
    if (this.heads[side] === q.length) {
      this.queues[side] = rows;
      this.heads[side] = 0;
    } else for (const r of rows) q.push(r);
    this.pairUp();
  }

  /** Rows of `side` read and not yet paired: the reader asks the side with fewer for more. */
  queued(side: Side): number {
    return this.queues[side].length - this.heads[side];
  }

  /** `side` has given its last row. */
  end(side: Side): void {
    this.ended[side] = true;
    const other = side === 0 ? 1 : 0;
    const q = this.queues[other];
    for (let i = this.heads[other]; i < q.length; i++) this.single(other, q[i]!);
    this.queues[other] = [];
    this.heads[other] = 0;
  }

  /** Both sides have ended: what waits still had no partner. */
  finish(): void {
    for (const side of [0, 1] as const) {
      const q = this.queues[side];
      for (let i = this.heads[side]; i < q.length; i++) this.single(side, q[i]!);
      this.queues[side] = [];
      this.heads[side] = 0;
    }
    for (const [, row] of this.pending.entries()) {
      for (let n = 0; n < row.count; n++) this.note(row.side === 0 ? 'missing' : 'extra', row.cells, null);
    }
  }

  private key(cells: Cells): string {
    const k = this.keyColumns;
    if (k === undefined) return JSON.stringify(cells);
    if (k.length === 1) return cells[k[0]!] ?? '\u0000';
    return JSON.stringify(k.map((i) => cells[i] ?? null));
  }

  private pairUp(): void {
    const [a, t] = this.queues;
    let i = this.heads[0];
    let j = this.heads[1];
    while (i < a.length && j < t.length) {
      const ra = a[i++]!;
      const rt = t[j++]!;
      const ka = this.key(ra);
      const kt = this.key(rt);
      if (ka === kt) {
        this.compare(ra, rt);
        continue;
      }
      // Out of step: a row one side lacks (a deleted or an added row) shifts every later pair by
      // one. A row whose partner waits already is matched with it and the other side's row is
      // paired again with the next, so the sides are back in step and only rows without a
      // partner wait (else every later row would wait for one step, and the lookups cost).
      const wa = this.pending.get(ka);
      if (wa !== undefined && wa.side === 1) {
        this.place(0, ra, ka, wa);
        j--;
        continue;
      }
      const wt = this.pending.get(kt);
      if (wt !== undefined && wt.side === 0) {
        this.place(1, rt, kt, wt);
        i--;
        continue;
      }
      this.place(0, ra, ka, wa);
      this.place(1, rt, kt, wt);
    }
    this.heads[0] = i;
    this.heads[1] = j;
    if (i === a.length && i > 0) {
      this.queues[0] = [];
      this.heads[0] = 0;
    }
    if (j === t.length && j > 0) {
      this.queues[1] = [];
      this.heads[1] = 0;
    }
  }

  /** A row whose partner is not known: matched with one waiting, else waits. */
  private single(side: Side, cells: Cells, key = this.key(cells)): void {
    this.place(side, cells, key, this.pending.get(key));
  }

  /** `single` with the row waiting under `key` looked up already. */
  private place(side: Side, cells: Cells, key: string, waiting: PendingRow | undefined): void {
    if (waiting === undefined || waiting.side === side) {
      // the other side has ended: no partner can come, the row is a difference now (a table one side lacks waits nowhere)
      if (this.ended[side === 0 ? 1 : 0]) this.note(side === 0 ? 'missing' : 'extra', cells, null);
      else if (waiting === undefined) this.pending.set(key, { side, count: 1, cells });
      else this.pending.set(key, { ...waiting, count: waiting.count + 1 });
      return;
    }
    if (side === 0) this.compare(cells, waiting.cells);
    else this.compare(waiting.cells, cells);
    if (waiting.count > 1) this.pending.set(key, { ...waiting, count: waiting.count - 1 });
    else this.pending.delete(key);
  }

  private compare(archive: Cells, target: Cells): void {
    let differing: number[] | undefined;
    for (let c = 0; c < archive.length; c++) {
      if (archive[c] !== target[c]) {
        this.note('changed', archive, this.columns[c]!);
        (differing ??= []).push(c);
      }
    }
    if (differing && this.onRow) this.onRow('changed', archive, differing);
  }

  private note(change: RowDifference['change'], cells: Cells, column: string | null): void {
    this.counts[change]++;
    if (column === null) this.onRow?.(change, cells);
    if (this.differences.length >= this.limit) return;
    const key = this.keyColumns === undefined ? [...cells] : this.keyColumns.map((i) => cells[i] ?? null);
    this.differences.push({ key, column, change });
  }
}

/**
 * Reads both sides of one table into the matcher, a batch at a time, asking the side with fewer rows
 * waiting for its next batch (both when even), so neither side runs ahead of the other by more than
 * a batch when they give the same rows in the same order. `right` undefined: side 1 has no rows.
 */
export async function matchSides(
  matcher: RowMatcher,
  left: AsyncGenerator<Cells[]>,
  right: AsyncGenerator<Cells[]> | undefined,
  onRows: (n: number, side: Side) => void,
): Promise<void> {
  const sides = [left, right] as const;
  const open = [true, right !== undefined];
  if (!right) matcher.end(1);
  const next: Array<Promise<IteratorResult<Cells[]>> | undefined> = [undefined, undefined];
  while (open[0] || open[1]) {
    for (const side of [0, 1] as const) {
      const other = side === 0 ? 1 : 0;
      if (open[side] && !next[side] && (!open[other] || matcher.queued(side) <= matcher.queued(other))) next[side] = sides[side]!.next();
    }
    const settled = await Promise.race(([0, 1] as const).filter((s) => next[s]).map(async (s) => ({ side: s, result: await next[s]! })));
    next[settled.side] = undefined;
    if (settled.result.done) {
      open[settled.side] = false;
      matcher.end(settled.side);
    } else {
      matcher.add(settled.side, settled.result.value);
      onRows(settled.result.value.length, settled.side);
    }
  }
  matcher.finish();
}
