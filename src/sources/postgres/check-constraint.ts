/**
 * Adding an archive's check constraints to a restored PostgreSQL table without letting the
 * archive run SQL of its choosing. The condition is text from the archive, so:
 * 1. it must be one expression: parentheses balanced outside quotes and never closing the
 *    `CHECK (` they sit in, no `;` and no comments; the statement goes through the extended
 *    protocol, which refuses several statements anyway;
 * 2. the constraint is added NOT VALID (nothing is evaluated), then the functions its stored
 *    expression calls (`conbin`: funcid / opfuncid / opno) are looked up, and a volatile one
 *    (pg_sleep, lo_import, set_config, nextval ...) makes it refused;
 * 3. only then VALIDATE CONSTRAINT evaluates it over the restored rows.
 */
import type pg from 'pg';
import { conditionProblem } from '../sql-text.js';
import { quoteIdent } from '../sql-identifier.js';

export { conditionProblem };

/** Functions the stored expression of a constraint calls that are volatile (may change state). */
async function volatileCalls(client: pg.Client, table: string, name: string): Promise<string[]> {
  const res = await client.query<{ bin: string }>(
    `SELECT conbin::text AS bin FROM pg_constraint WHERE conrelid = $1::regclass AND conname = $2`,
    [table, name],
  );
  const bin = res.rows[0]?.bin ?? '';
  const functions = new Set<string>();
  const operators = new Set<string>();
  for (const m of bin.matchAll(/:(funcid|opfuncid|opno) (\d+)/g)) (m[1] === 'opno' ? operators : functions).add(m[2]!);
  for (const m of bin.matchAll(/:opnos \(o ([\d ]+)\)/g)) for (const o of m[1]!.trim().split(/\s+/)) operators.add(o);
  if (functions.size === 0 && operators.size === 0) return [];
  const found = await client.query<{ f: string }>(
    `SELECT p.oid::regprocedure::text AS f FROM pg_proc p
      WHERE (p.oid = ANY($1::oid[]) OR p.oid IN (SELECT oprcode FROM pg_operator WHERE oid = ANY($2::oid[]))) AND p.provolatile = 'v'
      ORDER BY 1`,
    [[...functions], [...operators]],
  );
  return found.rows.map((r) => r.f);
}

/**
 * Adds one check constraint to `table` (schema-qualified, quoted) under `name`; the caller holds a
 * savepoint and turns a thrown error into a warning. Throws an Error with the reason when refused.
 */
export async function addCheckConstraint(client: pg.Client, table: string, name: string, condition: string): Promise<void> {
  const problem = conditionProblem(condition);
  if (problem) throw new Error(`its condition is not one SQL expression (${problem})`);
  await client.query({
    text: `ALTER TABLE ${table} ADD CONSTRAINT ${quoteIdent(name)} CHECK (${condition}) NOT VALID`,
    queryMode: 'extended',
  } as pg.QueryConfig);
  const volatile = await volatileCalls(client, table, name);
  if (volatile.length > 0) throw new Error(`its condition calls volatile functions (${volatile.join(', ')}), which a restore does not run`);
  await client.query({ text: `ALTER TABLE ${table} VALIDATE CONSTRAINT ${quoteIdent(name)}`, queryMode: 'extended' } as pg.QueryConfig);
}
