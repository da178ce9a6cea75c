/**
 * The target's side of a verify: a table's rows as the target's source reads them (src/sources),
 * each value in the compare form of the archived column it was restored from (column-plan.ts).
 * A value too large to come with its row (a SourceLob) is read once, hashed, and kept only when short.
 */
import { createHash } from 'node:crypto';
import { isSourceLob, rowBatchesOf, type SourceLob, type SourceValue } from '../../siard/database-source.js';
import type { ColumnPlan } from './column-plan.js';
import { canonBytes, canonLexical, canonSource, canonText, digestCanon, SHORT_BYTES } from './compare-form.js';
import { complexSourceCanon } from './complex-form.js';
import type { Cells } from './pending-rows.js';
import type { TargetTable } from './target-tables.js';
import { formatReal } from '../../sources/sqlite/type-mapping.js';
import { sqliteLiteral } from '../../sources/sqlite/value-literal.js';

/** A streamed value's compare form. */
async function lobCanon(lob: SourceLob, plan: ColumnPlan): Promise<string> {
  const hash = createHash('sha256');
  const parts: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of lob.open() as AsyncIterable<Uint8Array | string>) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    hash.update(b);
    bytes += b.length;
    if (bytes <= SHORT_BYTES) parts.push(b);
  }
  if (bytes > SHORT_BYTES) return digestCanon(hash.digest('hex'));
  const data = Buffer.concat(parts);
  return lob.encoding === 'text'
    ? plan.json
      ? canonText(data.toString('utf8'))
      : canonLexical(data.toString('utf8'), plan.canon)
    : canonBytes(data);
}

function cellCanon(v: SourceValue, c: number, plan: ColumnPlan): string | null {
  if (v === null) return null;
  if (plan.json) {
    if (typeof v === 'string') return canonText(v);
    if (v instanceof Uint8Array) return canonBytes(v);
  }
  const canon = canonSource(v, plan.canon);
  if (canon !== undefined) return canon;
  if (plan.shape.kind !== 'scalar')
    return complexSourceCanon(v, plan.shape, `c${c + 1}`, () => {
      throw new Error('An ARRAY or UDT value read from a database holds no LOB stream.');
    });
  return canonText(JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)));
}

const NUMERIC = new Set(['integer', 'decimal', 'float', 'boolean']);

/**
 * A SQLite value as it is stored (raw-source.ts) as the SQLite source gives it to an export of a
 * column of the archived type: each value of a column of SQLite literals as its literal; a number
 * in a text column as its text (sqlite-source.ts converterFor, 'clob'). Undefined: as it is.
 */
function sqliteValue(plan: ColumnPlan): ((v: SourceValue) => SourceValue) | undefined {
  if (plan.literal) return (v) => ({ kind: 'siard-text', text: sqliteLiteral(v as bigint | number | string | Uint8Array) });
  if (plan.shape.kind !== 'scalar' || NUMERIC.has(plan.canon.family)) return undefined;
  return (v) => (typeof v === 'number' ? formatReal(v) : typeof v === 'bigint' ? v.toString() : v);
}

/**
 * The table's rows in compare form, in archive column order: `at[c]` is the target column of
 * archived column c (-1: the target has none, compared as NULL; verify reports it).
 */
export async function* targetRows(
  target: TargetTable,
  plans: readonly ColumnPlan[],
  at: readonly number[],
  sqlite: boolean,
): AsyncGenerator<Cells[]> {
  const adapt = sqlite ? plans.map(sqliteValue) : undefined;
  for await (const batch of rowBatchesOf(target.source, target.schema, target.table.name)) {
    const out: Cells[] = new Array(batch.length);
    for (let r = 0; r < batch.length; r++) {
      const row = batch[r]!;
      const cells: Cells = new Array(plans.length);
      for (let c = 0; c < plans.length; c++) {
        let v = at[c]! < 0 ? null : (row[at[c]!] ?? null);
        if (adapt?.[c] && v !== null) v = adapt[c]!(v);
        cells[c] = isSourceLob(v) ? await lobCanon(v, plans[c]!) : cellCanon(v, c, plans[c]!);
      }
      out[r] = cells;
    }
    yield out;
  }
}
