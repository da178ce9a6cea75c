/**
 * A row's key as a server source (PostgreSQL, MariaDB) hands it to the writer in
 * KeyedBatch.rowKeys, and as a resumed export gives it back (RowsAfter.key, docs/resume.md): the
 * text of each key column, in key order, as a JSON array of strings. Every key type survives JSON
 * that way (bigint and numeric digits, text, dates as the server prints them, bytes in hex), and
 * the server reads the same text back as the column's own type when it compares.
 */
import { UsageError } from '../errors.js';

/**
 * One row's key, turned into its text only when the writer asks (String(), at a cut): a row costs
 * this small object, not a JSON text.
 */
export class RowKey {
  constructor(
    private readonly row: readonly unknown[],
    private readonly texts: (row: readonly unknown[]) => string[],
  ) {}

  toString(): string {
    return JSON.stringify(this.texts(this.row));
  }
}

/**
 * The key columns' texts from a journaled key: one string per key column, or one sentence (exit 2)
 * when the key does not fit the table's key now (its key columns changed between the runs).
 */
export function keyTexts(key: string, columns: readonly string[], table: string): string[] {
  let cells: unknown;
  try {
    cells = JSON.parse(key);
  } catch {
    cells = undefined;
  }
  if (!Array.isArray(cells) || cells.length !== columns.length || !cells.every((c) => typeof c === 'string'))
    throw new UsageError(
      `The interrupted export stopped in table ${table} after the key ${key}, which does not fit the table's key ` +
        `(${columns.join(', ')}) now: the table changed; run it again with --restart to start over.`,
      'RESUME_CHANGED',
    );
  return cells as string[];
}

/**
 * The sentence (exit 2) when a resumed export goes on after a key in a table that has no key to go on
 * after now: its key was dropped, or its unique key over nullable columns holds a NULL now.
 */
export function noKeyNow(key: string, table: string): UsageError {
  return new UsageError(
    `The interrupted export stopped in table ${table} after the key ${key}, and the table has no key to go on after now ` +
      '(a primary key, or a unique key whose columns hold no NULL): the table changed; run it again with --restart to start over.',
    'RESUME_CHANGED',
  );
}

/** A key for people: its one column's text, several in parentheses ("(7, 2024-01-31)"), any other key as it is. */
export function keyWords(key: string): string {
  if (!key.startsWith('[')) return key;
  try {
    const cells = JSON.parse(key) as unknown;
    if (Array.isArray(cells) && cells.length > 0 && cells.every((c) => typeof c === 'string'))
      return cells.length === 1 ? cells[0] : `(${cells.join(', ')})`;
  } catch {
    // not a key of this form: as it is
  }
  return key;
}
