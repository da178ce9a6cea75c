/**
 * The rows of README.md's performance table (issue 39): each bench that measures one reports it
 * here once its pair is measured (reportRow). Under `node bench/run.js` (`npm run bench`) the row
 * goes as one JSON line to the file run.js names in BENCH_ROWS_FILE, and readme-table.ts writes
 * the table from those lines after the run; a bench run on its own only prints the row.
 */
import { appendFileSync } from 'node:fs';
import os from 'node:os';

/** What each row measures and against what, in the order (the table's order). */
export const ROW_KINDS = {
  'export-sqlite': { work: 'export 1,000,000 narrow rows from SQLite', peer: '`sqlite3 .dump \\| gzip -1`', goal: 0.75 },
  'export-postgres': { work: 'export the same rows from PostgreSQL', peer: '`pg_dump -Fc`', goal: 0.5 },
  'export-mariadb': { work: 'export 200,000 rows from MariaDB', peer: '`mariadb-dump \\| gzip -1`', goal: 0.5 },
  'ingest-lobs': { work: 'ingest 10,000 LOBs of 100 KiB (1 GB)', peer: '`cp -r` + `sync` of the exported LOB files', goal: 0.5 },
  'ingest-lobs-vs-ocfl-fs': { work: 'same, against export + `@ocfl/ocfl-fs` import', peer: 'export + `@ocfl/ocfl-fs` import', goal: 1 },
  'validate-files': { work: '`validate` of 100,000 files of 2-4 KiB', peer: '`xargs -P2 sha512sum` of the same files', goal: 0.6 },
  'audit-lobs': { work: '`audit` of the 1 GB LOB object', peer: '`xargs -P2 sha512sum` of its files', goal: 0.9 },
  'put-files': { work: '`put` of 10,000 x 100 KiB', peer: '`cp -r` + `sync`', goal: 0.5 },
  's3-put': { work: 'S3 `put` on Ceph RGW', peer: "the AWS SDK's own PUT, same gateway", goal: 0.8 },
  's3-validate': { work: 'S3 `validate` on Ceph RGW', peer: "the AWS SDK's own GET, same gateway", goal: 0.8 },
} as const;

export type RowId = keyof typeof ROW_KINDS;

export interface BenchRow {
  id: RowId;
  /** our figure as measured, with its unit ('3.14 s', '45.5 MB/s') */
  ours: string;
  /** the peer's figure in the same run */
  peer: string;
  /** ours against the peer as a throughput (the peer's time over ours): higher is better */
  ratio: number;
  /** the goal for the ratio (at least), where it is not the (ROW_KINDS) */
  goal?: number;
  /** peak RSS of our process, MB */
  peakMb?: number;
  /** 1-minute load averages seen while the pair ran (default: the load now) */
  load?: number[];
  /** the measured physical floor, where the goal is beyond it ('sha512sum alone: 0.68x') */
  floor?: string;
  /** the work, where it differs from ROW_KINDS's (another size) */
  work?: string;
}

/** A row as written to the rows file: the report with its date and load filled in. */
export interface MeasuredRow extends BenchRow {
  goal: number;
  /** UTC, minutes */
  date: string;
  load: number[];
}

/** The 1-minute load average now, for the rows' `load`. */
export function loadNow(): number {
  return Number(os.loadavg()[0]!.toFixed(1));
}

/** Prints the row and hands it to run.js (BENCH_ROWS_FILE) for the README's table. */
export function reportRow(row: BenchRow): MeasuredRow {
  const kind = ROW_KINDS[row.id];
  const measured: MeasuredRow = {
    ...row,
    goal: row.goal ?? kind.goal,
    load: row.load ?? [loadNow()],
    date: new Date().toISOString().slice(0, 16) + 'Z',
  };
  console.log(
    `README row ${row.id}: ${row.work ?? kind.work}: ${row.ours} against ${row.peer}, ratio ${row.ratio.toFixed(2)} ` +
      `(goal >= ${measured.goal}: ${row.ratio >= measured.goal ? 'met' : 'not met'}), load ${measured.load.join('-')}` +
      (row.floor ? `; floor: ${row.floor}` : ''),
  );
  const file = process.env.BENCH_ROWS_FILE;
  if (file) appendFileSync(file, JSON.stringify(measured) + '\n');
  return measured;
}
