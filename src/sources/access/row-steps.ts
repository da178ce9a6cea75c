/**
 * A table's rows in steps. mdb-reader reads rows from an offset by walking the table's pages from
 * its first (counting the rows of each page it skips), so every step costs a walk of the pages
 * before it: the steps are few (a table in `steps` of them, more only where a step would hold more
 * than `bytes` of values) and each holds about `bytes` of values. The first step is short, to learn
 * how large the rows are.
 */
import type { SourceValue } from '../../siard/database-source.js';

export interface StepSizes {
  /** rows of the first step */
  firstRows: number;
  /** a table is read in about this many steps, unless they would hold more than `bytes` */
  steps: number;
  /** bytes of values a step aims at */
  bytes: number;
}

const STEP_SIZES: StepSizes = { firstRows: 256, steps: 64, bytes: 16 * 1024 * 1024 };

/** About how many bytes a value holds in memory, to size the next step. */
function valueBytes(v: SourceValue): number {
  return typeof v === 'string' ? v.length * 2 : v instanceof Uint8Array ? v.byteLength : 8;
}

/**
 * The rows `read(offset, limit)` gives, step by step, each record turned into rows by `convert`
 * (given its row number from 1; an attachment cell gives several rows, or none). Steps that
 * convert to no row are not yielded.
 */
export function* rowSteps<R>(
  read: (offset: number, limit: number) => R[],
  rowCount: number,
  convert: (record: R, rowNumber: number) => SourceValue[][],
  sizes: StepSizes = STEP_SIZES,
): Generator<SourceValue[][]> {
  const most = Math.max(sizes.firstRows, Math.ceil(rowCount / sizes.steps));
  let limit = sizes.firstRows;
  let offset = 0;
  for (;;) {
    const records = read(offset, limit);
    const batch: SourceValue[][] = [];
    for (const record of records) batch.push(...convert(record, ++offset));
    if (batch.length > 0) yield batch;
    if (records.length < limit) return;
    const bytes = batch.reduce((n, row) => row.reduce<number>((m, v) => m + valueBytes(v), n), 0);
    limit = Math.max(1, Math.min(most, Math.floor((limit * sizes.bytes) / Math.max(1, bytes))));
  }
}
