/**
 * Attachment columns (Access 2007 and later: several files in one cell) as a table of their own:
 * one row per attached file, with the parent's row number in export order and the file's place in
 * the cell, its name, type, link, time stamp and bytes (decoded: what Access gives back when it
 * saves the file). The file's bytes are a BLOB, so they go through the same LOB segmentation as any.
 */
import type { Attachment, Column } from 'mdb-reader';
import type { SourceTable, SourceValue } from '../../siard/database-source.js';
import { timestampText } from './type-mapping.js';

/** The columns of a table that hold attachments (mdb-reader's complex columns). */
export function attachmentColumns(columns: readonly Column[]): Column[] {
  return columns.filter((c) => c.type === 'complex');
}

/** The name of the table that holds an attachment column's files. */
export function attachmentTableName(table: string, column: string): string {
  return `${table}_${column}`;
}

export const attachmentRows = {
  table(name: string, parent: string, column: string): SourceTable {
    return {
      name,
      description:
        `The files of attachment column "${column}" of table "${parent}": one row per file; "row" is the row of ` +
        `"${parent}" in export order (from 1), "position" the file's place in the cell.`,
      columns: [
        { name: 'row', type: 'INTEGER', typeOriginal: 'Long Integer', nullable: false },
        { name: 'position', type: 'INTEGER', typeOriginal: 'Long Integer', nullable: false },
        { name: 'FileName', type: 'VARCHAR(255)', typeOriginal: 'Text (255)', nullable: true },
        { name: 'FileType', type: 'VARCHAR(255)', typeOriginal: 'Text (255)', nullable: true },
        { name: 'FileURL', type: 'CLOB', typeOriginal: 'Memo', nullable: true },
        { name: 'FileTimeStamp', type: 'TIMESTAMP(3)', typeOriginal: 'Date/Time', nullable: true },
        { name: 'FileFlags', type: 'INTEGER', typeOriginal: 'Long Integer', nullable: true },
        { name: 'FileData', type: 'BLOB', typeOriginal: 'Attachment', nullable: true },
      ],
      primaryKey: { name: `${name}_pk`, columns: ['row', 'position'] },
      foreignKeys: [],
      candidateKeys: [],
      rows: 0,
    };
  },

  /** The rows of one parent cell (null or no file: none). */
  of(value: unknown, row: number): SourceValue[][] {
    if (!Array.isArray(value)) return [];
    return (value as Attachment[]).map((a, i) => [
      row,
      i + 1,
      a.name ?? null,
      a.type ?? null,
      a.url ?? null,
      a.timestamp ? timestampText(a.timestamp) : null,
      a.flags ?? null,
      a.data ?? null,
    ]);
  },
};
