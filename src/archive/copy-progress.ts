/** How far an access copy of a table (access-copy.ts) and its indexes (copy-indexer.ts) have come. */
export interface CopyProgress {
  /** `rows`: being copied; `indexes`: usable, indexes being built; `ready`; `failed` */
  phase: 'rows' | 'indexes' | 'ready' | 'failed';
  /** rows copied so far (phase rows), or rows in the full-text index (phase indexes) */
  done: number;
  /** sort indexes built (phase indexes), of one per column */
  sorted?: number;
  /** the table's columns */
  columns: number;
  /** `<rows>` in metadata.xml */
  total: number;
  /** when this build started (ms since the epoch); a copy found on disk: when it was opened */
  startedAt: number;
  /** seconds the rows took to copy, and the indexes to build, once done (in this process) */
  rowsSeconds?: number;
  indexSeconds?: number;
  error?: string;
}
