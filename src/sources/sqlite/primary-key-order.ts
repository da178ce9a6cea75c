/**
 * A WITHOUT ROWID table read in its primary key's order (as every run reads it, `ORDER BY` the key
 * columns), row by row, each row's key given with its batch (KeyedBatch.rowKeys), and read again
 * after one of those keys (`WHERE (k1, k2) > (?, ?)`, each pair compared in the column's collation
 * as the ORDER BY orders it): what a resumed export reads inside such a table (docs/resume.md).
 *
 * A key cell keeps its storage class, which SQLite compares before the value: `integer:7`,
 * `real:2.5`, `text:abc`, `blob:00ff` (hex), and `textbytes:` (hex) for text not valid in the
 * database's encoding, bound back as exactly those bytes.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { TextDecoder } from 'node:util';
import type { KeyedBatch, SourceValue } from '../../siard/database-source.js';
import { keyTexts, RowKey } from '../row-key.js';
import { quoteIdent } from '../sql-identifier.js';

/** The select items that carry a row's key: per key column its value (text as its stored bytes) and its class. */
export function keySelect(columns: readonly string[]): string[] {
  return columns.flatMap((c) => {
    const q = quoteIdent(c);
    return [`CASE WHEN typeof(${q}) = 'text' THEN CAST(${q} AS BLOB) ELSE ${q} END`, `typeof(${q})`];
  });
}

/** A key cell's text (above) from its value and class, as keySelect gives them. */
function cellText(value: unknown, cls: unknown, decoder: TextDecoder): string {
  if (cls === 'integer' || cls === 'real') return `${String(cls)}:${String(value)}`;
  const bytes = value as Uint8Array;
  if (cls === 'blob') return `blob:${Buffer.from(bytes).toString('hex')}`;
  try {
    return `text:${decoder.decode(bytes)}`;
  } catch {
    return `textbytes:${Buffer.from(bytes).toString('hex')}`;
  }
}

/** A key cell back as a parameter and its place in the SQL. */
function cellParam(text: string, table: string): { sql: string; value: unknown } {
  const colon = text.indexOf(':');
  const cls = text.slice(0, colon);
  const rest = text.slice(colon + 1);
  if (cls === 'integer') return { sql: '?', value: BigInt(rest) };
  if (cls === 'real') return { sql: '?', value: Number(rest) };
  if (cls === 'text') return { sql: '?', value: rest };
  if (cls === 'blob') return { sql: '?', value: Buffer.from(rest, 'hex') };
  if (cls === 'textbytes') return { sql: 'CAST(? AS TEXT)', value: Buffer.from(rest, 'hex') };
  throw new Error(`The key cell "${text}" of table ${table} is not one this export writes.`);
}

export interface PrimaryKeyRead {
  db: BetterSqlite3.Database;
  table: string;
  /** the select of the values and, from keyAt on, keySelect(key) */
  select: string;
  key: readonly string[];
  keyAt: number;
  decoder: TextDecoder;
  /** converts a raw row in place (trimming what follows the values); gives its bytes */
  convert: (raw: unknown[]) => number;
  batchRows: number;
  batchBytes: number;
}

/** The rows in key order (after `after`, a journaled key, when given), in batches with their keys. */
export function* primaryKeyBatches(read: PrimaryKeyRead, after?: string): Generator<KeyedBatch> {
  const { db, table, key, keyAt, decoder, convert } = read;
  const cols = key.map(quoteIdent).join(', ');
  const params = after === undefined ? [] : keyTexts(after, key, `main.${table}`).map((t) => cellParam(t, table));
  const where = after === undefined ? '' : ` WHERE (${cols}) > (${params.map((p) => p.sql).join(', ')})`;
  const stmt = db.prepare(`${read.select}${where} ORDER BY ${cols}`).raw(true).safeIntegers(true);
  const texts = (cells: readonly unknown[]) => key.map((_, i) => cellText(cells[2 * i], cells[2 * i + 1], decoder));
  let batch: KeyedBatch = Object.assign([], { rowKeys: [] as unknown[] });
  let bytes = 0;
  for (const raw of stmt.iterate(...params.map((p) => p.value)) as IterableIterator<unknown[]>) {
    batch.rowKeys!.push(new RowKey(raw.slice(keyAt, keyAt + 2 * key.length), texts));
    bytes += convert(raw);
    batch.push(raw as SourceValue[]);
    if (batch.length >= read.batchRows || bytes >= read.batchBytes) {
      yield batch;
      batch = Object.assign([], { rowKeys: [] as unknown[] });
      bytes = 0;
    }
  }
  if (batch.length > 0) yield batch;
}
