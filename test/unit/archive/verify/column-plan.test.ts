/**
 * The cross-engine lossy-column rule of verify (column-plan.ts, archive-side.ts rowCanon): the
 * floats of fixtures/postgres/sample.sql's every_type (r real, d double precision), as the archive
 * holds them (the PostgreSQL source's number, the writer's xs:double), compared with what a restore
 * into SQLite holds (sources/sqlite/loader.ts: INF/-INF as infinities, NaN as NULL). Every value
 * compares equal after the mapping, and the one column where the mapping changed a value (r's NaN)
 * is named lossy with its count; into PostgreSQL nothing is lossy, NaN stays NaN. The same rule the
 * PostgreSQL round trip into SQLite shows with a server (roundtrip-postgres.test.ts).
 */
import test from 'ava';
import { rowCanon } from '../../../../src/archive/verify/archive-side.js';
import { columnPlans, lossyColumns } from '../../../../src/archive/verify/column-plan.js';
import { canonSource } from '../../../../src/archive/verify/compare-form.js';
import type { SiardArchive, SiardColumn } from '../../../../src/siard/model.js';
import type { SiardTableRef } from '../../../../src/siard/reader/siard-reader.js';
import { xsDouble } from '../../../../src/siard/table-data.js';

/** every_type's id, r and d as PostgreSQL prints them (sample.sql's four rows). */
const PG_TEXT = [
  ['1', '3.4028235e+38', '2.2250738585072014e-308'],
  ['2', 'NaN', '-Infinity'],
  ['3', 'Infinity', '1e+308'],
  ['4', '1.5', '0.1'],
];

const COLUMNS: SiardColumn[] = [
  { name: 'id', type: 'BIGINT', typeOriginal: 'int8' },
  { name: 'r', type: 'REAL', typeOriginal: 'float4' },
  { name: 'd', type: 'DOUBLE PRECISION', typeOriginal: 'float8' },
];

function archiveOf(product: string): { archive: SiardArchive; ref: SiardTableRef } {
  const table = { name: 'every_type', folder: 'table0', columns: COLUMNS, foreignKeys: [], candidateKeys: [], rows: PG_TEXT.length };
  const schema = { name: 'public', folder: 'schema0', tables: [table], views: [] };
  const archive = { databaseProduct: product, schemas: [schema] } as unknown as SiardArchive;
  const ref = { schemaIndex: 0, tableIndex: 0, schema, table, folder: '', xmlEntry: '', columnExtras: [] } as SiardTableRef;
  return { archive, ref };
}

/** A PostgreSQL float's text as the source gives it (postgres-source.ts convert): a number. */
function pgNumber(text: string): number {
  return Number(text === 'Infinity' ? Infinity : text === '-Infinity' ? -Infinity : text);
}

/** The archived cells: the id as its digits, the floats as the writer's xs:double. */
const ARCHIVED = PG_TEXT.map(([id, r, d]) => [id!, xsDouble(pgNumber(r!)), xsDouble(pgNumber(d!))]);

/** What the SQLite loader binds for an archived float (loader.ts bindText 'float'). */
function inSqlite(lexical: string): number | null {
  return lexical === 'INF' ? Infinity : lexical === '-INF' ? -Infinity : lexical === 'NaN' ? null : Number(lexical);
}

test('a PostgreSQL archive into SQLite: every value equal after the mapping, r named lossy for its one NaN', (t) => {
  t.deepEqual(ARCHIVED[1], ['2', 'NaN', '-INF'], 'the archive holds NaN and -INF as xs:double says');
  const { archive, ref } = archiveOf('PostgreSQL 16.4');
  const plans = columnPlans('sqlite', archive, ref);
  const expected: number[] = [];
  const archiveSide = ARCHIVED.map((cells) => rowCanon(plans, cells, {}, expected));
  const targetSide = ARCHIVED.map(([id, r, d]) => [
    canonSource(BigInt(id!), plans[0]!.canon),
    canonSource(inSqlite(r!), plans[1]!.canon),
    canonSource(inSqlite(d!), plans[2]!.canon),
  ]);
  t.deepEqual(archiveSide, targetSide, 'row by row, value by value: no difference');
  t.is(archiveSide[1]![1], null, "NaN compared as the NULL SQLite holds, so it is not a difference: it is the column's loss");
  t.deepEqual(lossyColumns(plans, expected), [{ column: 'r', reason: 'SQLite has no NaN: restored as NULL', values: 1 }]);
});

test('the same archive into PostgreSQL, and an SQLite archive into SQLite: nothing lossy, NaN kept', (t) => {
  for (const [product, kind] of [
    ['PostgreSQL 16.4', 'postgres'],
    ['SQLite 3.45.1', 'sqlite'],
  ] as const) {
    const { archive, ref } = archiveOf(product);
    const plans = columnPlans(kind, archive, ref);
    const expected: number[] = [];
    const forms = ARCHIVED.map((cells) => rowCanon(plans, cells, {}, expected));
    t.is(forms[1]![1], canonSource(Number.NaN, plans[1]!.canon), `${product} into ${kind}: NaN compared as NaN`);
    t.deepEqual(lossyColumns(plans, expected), [], `${product} into ${kind}`);
  }
});
