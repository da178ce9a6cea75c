/**
 * The cheap scan of a large provisional table (prescan.ts, cheapScanList) run in a worker thread
 * while the main thread reads and writes the table's first rows, instead of before them: at
 * 5,000,000 narrow rows the scan is about a second of the main thread, which writes rows
 * meanwhile. Until its row arrives the longest values are not known, so the reader takes rows one
 * at a time (sqlite-source.ts); then keyset batches sized by them.
 */
import type { AggregateRow, WorkerQuery } from './split-scan.js';

export class ScanBeside {
  private settled = false;

  constructor(private readonly query: WorkerQuery) {
    query.row.then(
      () => (this.settled = true),
      () => (this.settled = true),
    );
  }

  /** Whether the worker has answered (or failed). */
  get done(): boolean {
    return this.settled;
  }

  /** The scan's row; `here()` computes it on this thread when the worker failed. */
  async row(here: () => AggregateRow): Promise<AggregateRow> {
    try {
      return await this.query.row;
    } catch {
      return here();
    }
  }

  /** Ends the worker if it still runs (the table was read whole, or its reading stopped). */
  stop(): void {
    if (!this.settled) this.query.stop();
  }
}
