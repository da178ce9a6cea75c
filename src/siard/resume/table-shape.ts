/**
 * What the table in progress was when a cut of it was journaled (docs/resume.md): its columns with
 * their declared types and its keys, as the source's catalogue gave them. A resumed export goes on
 * after the cut's key, which the server reads back as the key column's type now and compares in
 * the key's order now; the rows before the cut were written as the columns were then. So a table
 * whose columns or keys changed between the runs (an `ALTER TABLE ... ALTER COLUMN ... TYPE`, a key
 * made of other columns) is refused in one sentence, not continued: compared in memory, no query.
 */
import type { SourceTable } from '../database-source.js';

export interface TableShape {
  /** each column's name and declared type (the source's typeOriginal), "NOT NULL" added where it is */
  columns: Array<[name: string, type: string]>;
  /** the primary key's columns (none: empty), then each unique key's */
  keys: string[][];
}

export function tableShape(t: SourceTable): TableShape {
  return {
    columns: t.columns.map((c) => [
      c.name,
      `${c.typeOriginal ?? c.typeName ?? c.type ?? ''}${c.nullable === false ? ' NOT NULL' : ''}`.trim(),
    ]),
    keys: [t.primaryKey?.columns ?? [], ...t.candidateKeys.map((k) => k.columns)],
  };
}

/** "primary key (g, s), unique key (n)", or "no key". */
function keysWords(keys: string[][]): string {
  const words = keys.flatMap((k, i) => (k.length === 0 ? [] : [`${i === 0 ? 'primary' : 'unique'} key (${k.join(', ')})`]));
  return words.length > 0 ? words.join(', ') : 'no key';
}

/**
 * What changed between the shape at the cut and the shape now, as the start of a sentence (undefined:
 * nothing): the column list first, then the first column whose type changed, then the keys.
 */
export function shapeChange(then: TableShape, now: TableShape, table: string): string | undefined {
  const names = (s: TableShape) => s.columns.map(([name]) => name).join(', ');
  const when = 'when the interrupted export stopped inside it';
  if (names(then) !== names(now)) return `The columns of table ${table} were (${names(then)}) ${when} and are (${names(now)}) now`;
  const i = then.columns.findIndex(([, type], c) => type !== now.columns[c]![1]);
  if (i >= 0) {
    const [name, type] = then.columns[i]!;
    return `Column ${name} of table ${table} was ${type || 'untyped'} ${when} and is ${now.columns[i]![1] || 'untyped'} now`;
  }
  const keys = (s: TableShape) => JSON.stringify(s.keys);
  if (keys(then) !== keys(now)) return `The keys of table ${table} were ${keysWords(then.keys)} ${when} and are ${keysWords(now.keys)} now`;
  return undefined;
}
