/**
 * The LOB files of the next rows of a batch, begun before their rows are formatted, so that the
 * sink writes and hashes them (on worker threads: write-workers.ts) while this thread reads and
 * formats: a row's cell needs its LOB's digest, and waiting for each in turn left this thread idle
 * half of an ingest of 10,000 LOBs of 100 KiB (issue 39). Rows are still formatted in order, each
 * waiting for its own LOBs only, and what the export keeps stays as without this:
 * - LOBs take their places in the layout in export order: a row is begun whole or not at all, rows
 *   in order, and a row holding a LOB that cannot be begun (a streamed one: it reads its source's
 *   connection, which serves one at a time) stops the filling until it is formatted;
 * - a LOB's files are told to the journal when its cell is written (LobWriter.report), and a cut
 *   after a row sees the layout's counters as they were after that row (asOf), so that a resumable
 *   export's batch line holds the files and counters of the rows before the cut and no others.
 *
 * Only LOBs already in memory, of a column of BLOB, CLOB or XML, above the inline limit, are begun,
 * only in tables of scalar and LOB columns (a UDT may hold LOBs), and only when the sink writes
 * files side by side. At most AHEAD_FILES files and AHEAD_BYTES bytes wait.
 */
import { isSourceLob, type SourceValue } from './database-source.js';
import type { LobWriter, LobWriteResult } from './lob-writer.js';
import type { LayoutSnapshot } from './lob-placement.js';
import type { SqlTypeFamily } from './model.js';

const AHEAD_FILES = 16;
const AHEAD_BYTES = 16 * 1024 * 1024;

/** Where each LOB goes. */
export interface LobsAheadTable {
  schemaIndex: number;
  tableIndex: number;
  inlineMax: number;
  lobWriter: LobWriter;
}

interface Begun {
  result: Promise<LobWriteResult>;
  size: number;
}

/** A cell of a LOB column: inline (no file), a file to begin with these bytes, or one that cannot be begun. */
type CellPlan = 'inline' | 'stop' | { bytes: Uint8Array; text: boolean };

/** What table-data.ts does with a cell of a LOB column (inlineLobCell, lobCell), told ahead. */
function planCell(v: SourceValue, family: SqlTypeFamily, inlineMax: number): CellPlan {
  if (family === 'binary') return 'inline';
  if (isSourceLob(v)) return v.byteLength <= inlineMax ? 'inline' : 'stop';
  if (family === 'blob') {
    if (!(v instanceof Uint8Array)) return 'stop';
    return v.length <= inlineMax ? 'inline' : { bytes: v, text: false };
  }
  if (typeof v !== 'string') return 'stop';
  if (v.length <= inlineMax / 3) return 'inline';
  const bytes = Buffer.from(v, 'utf8');
  return bytes.length <= inlineMax ? 'inline' : { bytes, text: true };
}

export class LobsAhead {
  private readonly begun = new Map<number, Begun>();
  /** the layout's counters before each row begun ahead whose cut may come (keyed by row of the batch) */
  private readonly before = new Map<number, LayoutSnapshot>();
  /** the next row of the batch whose LOBs are not begun */
  private next = 0;
  private bytes = 0;

  /**
   * `batch`'s rows are numbered from `firstRow` (1-based, as the cells' files are); `columns` are
   * the indexes of the LOB columns, `families` every column's family; `cuts`: the table's cuts
   * carry state (asOf is called).
   */
  constructor(
    private readonly batch: readonly SourceValue[][],
    private readonly firstRow: number,
    private readonly columns: number[],
    private readonly families: readonly SqlTypeFamily[],
    private readonly table: LobsAheadTable,
    private readonly cuts: boolean,
  ) {}

  /** Whether a table's LOBs can be begun ahead: its other columns scalar (`scalarOthers`), a sink writing side by side, types settled. */
  static possible(lobWriter: LobWriter | undefined, provisional: boolean | undefined, columns: number[], scalarOthers: boolean): boolean {
    // no LOB writer: the table XML written in a worker (table-xml-worker.ts) up to the first LOB file
    return columns.length > 0 && scalarOthers && lobWriter?.concurrent === true && !provisional;
  }

  /** Begins the LOBs of row `r` and of the rows after it, as far as the bounds allow. */
  fill(r: number): void {
    for (this.next = Math.max(this.next, r); this.next < this.batch.length; this.next++) {
      const row = this.batch[this.next]!;
      const cells: Array<[number, { bytes: Uint8Array; text: boolean }]> = [];
      for (const i of this.columns) {
        const v = row[i];
        if (v === null || v === undefined) continue;
        const plan = planCell(v, this.families[i]!, this.table.inlineMax);
        if (plan === 'stop') return; // formatted in turn; the rows after it wait for it
        if (plan !== 'inline') cells.push([i, plan]);
      }
      if (cells.length === 0) continue;
      // the row being formatted always gets its LOBs; later rows wait within the bounds
      if (this.next > r && (this.begun.size + cells.length > AHEAD_FILES || this.bytes >= AHEAD_BYTES)) return;
      if (this.cuts && this.next > r) this.before.set(this.next, this.table.lobWriter.layoutState());
      for (const [i, cell] of cells) this.begin(i, cell);
    }
  }

  private begin(i: number, cell: { bytes: Uint8Array; text: boolean }): void {
    const address = {
      schema: this.table.schemaIndex,
      table: this.table.tableIndex,
      column: i + 1,
      row: this.firstRow + this.next,
      extension: cell.text ? 'txt' : 'bin',
      size: cell.bytes.length,
    };
    const result = this.table.lobWriter.begin(address, cell.bytes, cell.text);
    result.catch(() => undefined); // a failure is told when its cell is written (or waited for by settle)
    this.begun.set(this.next * this.families.length + i, { result, size: cell.bytes.length });
    this.bytes += cell.bytes.length;
  }

  /** The LOB of row `r`, column `i` when it was begun ahead; its files are told to the journal once it is written. */
  take(r: number, i: number): Promise<LobWriteResult> | undefined {
    const key = r * this.families.length + i;
    const begun = this.begun.get(key);
    if (!begun) return undefined;
    this.begun.delete(key);
    this.before.delete(r);
    this.bytes -= begun.size;
    return begun.result.then((result) => {
      this.table.lobWriter.report(result);
      return result;
    });
  }

  /** `state()` (a cut's after row `r`) with the layout's counters as they were after row `r`, not counting rows begun since. */
  asOf<T>(r: number, state: () => T): T {
    let first: number | undefined;
    for (const row of this.before.keys()) if (row > r && (first === undefined || row < first)) first = row;
    return first === undefined ? state() : this.table.lobWriter.withLayoutAt(this.before.get(first)!, state);
  }

  /** Waits for every LOB begun and not taken (the formatting stopped): no file is being written after. */
  async settle(): Promise<void> {
    const left = [...this.begun.values()].map((b) => b.result);
    this.begun.clear();
    await Promise.allSettled(left);
  }
}

/**
 * `batches` as they come; when the loop over them stops early (a failure, a reader that stopped),
 * `settle` is awaited before the loop's caller goes on (LobsAhead.settle: no file still being written).
 */
export async function* settledAfter<T>(batches: AsyncIterable<T>, settle: () => Promise<void> | undefined): AsyncGenerator<T> {
  try {
    yield* batches;
  } finally {
    await settle();
  }
}
