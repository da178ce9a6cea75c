/**
 * Picks one table of an archive by name, as a user names it on the command line: the table name,
 * with the schema only where the name alone is ambiguous. A name that matches nothing, or more than
 * one table, is a usage error (exit 2) naming the tables that exist.
 */
import { UsageError } from '../../errors.js';
import type { SiardReader, SiardTableRef } from './siard-reader.js';

/** At most this many tables are named in the message; the rest are counted. */
const NAMED = 30;

function qualified(t: SiardTableRef): string {
  return `${t.schema.name}.${t.table.name}`;
}

function listing(tables: SiardTableRef[]): string {
  if (tables.length === 0) return 'it has no tables';
  const names = tables.slice(0, NAMED).map(qualified).join(', ');
  return `it has ${names}${tables.length > NAMED ? ` and ${tables.length - NAMED} more` : ''}`;
}

/**
 * The table called `table` (in schema `schema`, when given); names are compared exactly. `label`
 * names the archive in messages (default: the reader's file).
 */
export function chooseTable(reader: SiardReader, table: string, schema?: string, label: string = reader.file): SiardTableRef {
  const all = reader.tables();
  const matches = all.filter((t) => t.table.name === table && (schema === undefined || t.schema.name === schema));
  if (matches.length === 1) return matches[0]!;
  const what = schema === undefined ? `table "${table}"` : `table "${table}" in schema "${schema}"`;
  if (matches.length === 0) throw new UsageError(`${label} has no ${what}; ${listing(all)}.`, 'SIARD_NO_TABLE');
  throw new UsageError(
    `${label} has a table "${table}" in several schemas (${matches.map((t) => t.schema.name).join(', ')}); choose one with --schema.`,
    'SIARD_AMBIGUOUS_TABLE',
  );
}
