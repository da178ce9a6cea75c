/**
 * `tables`: the tables of an archive, inside an object version or in a `.siard`, without checking
 * it out: schema, name, row count, columns and types from metadata.xml, and LOB counts and sizes
 * from the cells (table XML read only for tables that may hold LOBs; LOB files never opened).
 */
import type { TableSummary } from '../siard/reader/table-summary.js';
import { summariseTable } from '../siard/reader/table-summary.js';
import { openArchive, type ArchiveSource } from './open-archive.js';

export interface TablesResult {
  /** the .siard read: its file, or `id vN: logical path` inside an object */
  archive: string;
  /** the version read, for an object */
  version?: string;
  /** the SIARD version metadata.xml declares */
  siardVersion: string;
  dbname: string;
  tables: TableSummary[];
  warnings: string[];
}

export interface TablesOptions {
  /** called before each table whose table XML is read to count its LOBs (that takes time) */
  onScan?: (table: { schema: string; name: string; rows: number }) => void;
  /** called for each row of such a table */
  onRow?: () => void;
}

export async function listTables(source: ArchiveSource, options: TablesOptions = {}): Promise<TablesResult> {
  const archive = await openArchive(source);
  try {
    const tables: TableSummary[] = [];
    for (const t of archive.reader.tables()) {
      const onScan = () => options.onScan?.({ schema: t.schema.name, name: t.table.name, rows: t.table.rows });
      tables.push(await summariseTable(archive.reader, t, { onScan, ...(options.onRow ? { onRow: options.onRow } : {}) }));
    }
    return {
      archive: archive.name,
      ...(archive.version !== undefined ? { version: archive.version } : {}),
      siardVersion: archive.reader.metadata.siardVersion,
      dbname: archive.reader.archive.dbname,
      tables,
      warnings: [...archive.reader.warnings],
    };
  } finally {
    archive.reader.close();
  }
}
