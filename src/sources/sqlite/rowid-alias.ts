/**
 * The column of a rowid table that is another name for its rowid (an INTEGER PRIMARY KEY), if any:
 * its values are the rowids, so a read that needs the rowid takes it from that column instead of
 * selecting it again (one 64-bit integer less to make per row). SQLite's rule has a quirk
 * (`INTEGER PRIMARY KEY DESC` is not an alias), so the query plan decides, not the declaration:
 * the column is an alias when reading it compiles to the Rowid opcode.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { quoteIdent } from '../sql-identifier.js';

/** Index in `columns` of the rowid alias of `table`, or -1. `primaryKey`: the table's primary key columns. */
export function rowidAliasIndex(db: BetterSqlite3.Database, table: string, columns: string[], primaryKey: string[]): number {
  if (primaryKey.length !== 1) return -1;
  const index = columns.indexOf(primaryKey[0]!);
  if (index < 0) return -1;
  const ops = db.prepare(`EXPLAIN SELECT ${quoteIdent(primaryKey[0]!)} FROM ${quoteIdent(table)}`).all() as Array<{ opcode: string }>;
  return ops.some((o) => o.opcode === 'Rowid') && !ops.some((o) => o.opcode === 'Column') ? index : -1;
}
