/**
 * ARRAY columns (SIARD a1, a2, ...) on both sides of PostgreSQL.
 * - restore: the SIARD Suite sample sql2008.siard has an ARRAY column (CARRAY, VARCHAR(256),
 *   cardinality 4, cell `<a1>element 1</a1><a3>element 3</a3><a4>element 4</a4>`); restored into
 *   PostgreSQL it becomes a varchar(256)[] whose missing a2 is a NULL element.
 * - export: the PostgreSQL source yields array cells ({kind: 'array', elements}) with the element
 *   type as the column type and the largest array as cardinality; the writer declares fields
 *   `col[1]` ... and writes `<cN><a1/>..</cN>` (a missing aI = NULL element). Every table XML is
 *   checked against its tableN.xsd and metadata.xml against metadata.xsd with xmllint.
 * - PostgreSQL -> SIARD -> PostgreSQL: arrays of many element types, NULL elements, empty arrays,
 *   extreme values, check constraints on array columns; PostgreSQL -> SIARD -> SQLite: each array
 *   as JSON text. Multi-dimensional arrays and arrays not starting at 1 stop the export.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { existsSync } from 'node:fs';
import { exportToDirectory } from '../../src/siard/export-directory.js';
import { PostgresSource } from '../../src/sources/postgres/postgres-source.js';
import { assertArchiveValid, unzipEntry, zipEntryNames } from '../helpers/export-support.js';
import { runCli } from '../helpers/cli.js';
import { pgTest, postgresAvailable, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { HAS_SHARED, PROJECT_ROOT, reference, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const available = postgresAvailable() || Boolean(process.env.CI);
const work = tempDir('siard-ocfl-pg-arrays-');
// The metadata.xsd the writer ships (resources/) is the official one (resources/README.md).
const METADATA_XSD = path.join(PROJECT_ROOT, 'resources', 'metadata.xsd');
let server: PostgresServer | undefined;

async function sql<T extends pg.QueryResultRow = Record<string, unknown>>(db: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: server!.url(db) });
  await client.connect();
  try {
    await client.query("SET TIME ZONE 'UTC'");
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

test.before(async () => {
  if (!available) return;
  server = await startPostgres();
  await server.createDatabase('source');
  await sql('source', readFileSync(path.join(PROJECT_ROOT, 'fixtures', 'postgres', 'sample.sql'), 'utf8'));
});

test.after.always(async () => {
  await server?.stop();
});

(HAS_SHARED ? pgTest : sharedTest)(
  'an ARRAY column of a SIARD Suite archive restores as a PostgreSQL array, a missing element as NULL',
  async (t) => {
    await server!.createDatabase('sql2008');
    const res = await runCli(['restore', reference('siard-samples', 'siardapi', 'sql2008.siard'), server!.url('sql2008')]);
    t.is(res.code, 0, res.stderr);
    const rows = await sql<{ a: Array<string | null>; t: string }>(
      'sql2008',
      `SELECT "CARRAY" AS a, format_type(atttypid, atttypmod) AS t FROM "TESTSCHEMA"."TESTCOMPLEXTABLE", pg_attribute
      WHERE attrelid = '"TESTSCHEMA"."TESTCOMPLEXTABLE"'::regclass AND attname = 'CARRAY'`,
    );
    t.deepEqual(rows, [{ a: ['element 1', null, 'element 3', 'element 4'], t: 'character varying(256)[]' }]);
  },
);

pgTest('the PostgreSQL source reads arrays as a1, a2 ... with the element type and the largest size as cardinality', async (t) => {
  const source = await PostgresSource.open(server!.url('source'), { tableFilter: (n) => n === 'tagged' });
  try {
    const catalog = await source.catalog();
    const table = catalog.schemas.flatMap((s) => s.tables).find((x) => x.name === 'tagged')!;
    t.deepEqual(
      table.columns.map((c) => [c.name, c.type, c.typeOriginal, c.cardinality]),
      [
        ['id', 'INTEGER', 'integer', undefined],
        ['ints', 'INTEGER', 'integer[]', 3],
        ['words', 'CLOB', 'text[]', 6],
        ['stamps', 'TIMESTAMP WITH TIME ZONE', 'timestamp with time zone[]', 2],
        ['nums', 'DECIMAL(8, 2)', 'numeric(8,2)[]', 2],
      ],
    );
    const rows: unknown[] = [];
    for await (const row of source.rows('public', 'tagged')) rows.push(row);
    t.deepEqual(rows[0], [
      '1',
      { kind: 'array', elements: ['1', '2', '3'] },
      { kind: 'array', elements: ['plain', 'with space', 'with,comma', 'quote"s', null, 'back\\slash'] },
      { kind: 'array', elements: ['2020-01-01T00:00:00Z', '2021-07-04T14:00:00Z'] },
      { kind: 'array', elements: ['1.50', '-2.25'] },
    ]);
  } finally {
    await source.close();
  }
});

pgTest('an array ending in NULL elements stops the export naming the cell (a1.. cannot tell it from a shorter one)', async (t) => {
  await server!.createDatabase('trailing');
  await sql('trailing', `CREATE TABLE t (id int PRIMARY KEY, a int[]); INSERT INTO t VALUES (1, '{1,NULL}')`);
  const source = await PostgresSource.open(server!.url('trailing'));
  try {
    await source.catalog();
    const drain = async () => {
      for await (const _row of source.rows('public', 't')) void _row;
    };
    await t.throwsAsync(drain, { message: /Table "public"\."t", row 1, column "a": the array ends with NULL elements/ });
  } finally {
    await source.close();
  }
});

pgTest('PostgreSQL arrays travel through SIARD and back unchanged', async (t) => {
  const out = path.join(work, 'arrays');
  const source = await PostgresSource.open(server!.url('source'), { tableFilter: (n) => n === 'tagged' });
  try {
    await exportToDirectory(source, out, { name: 'arrays' });
  } finally {
    await source.close();
  }
  const siard = path.join(out, 'arrays.siard');
  assertArchiveValid(t, siard, METADATA_XSD);
  const metadata = unzipEntry(siard, 'header/metadata.xml').toString('utf8');
  t.regex(
    metadata,
    new RegExp(
      String.raw`<name>ints<\/name>\s*<type>INTEGER<\/type>\s*<typeOriginal>integer\[\]<\/typeOriginal>\s*<fields>` +
        String.raw`\s*<field>\s*<name>ints\[1\]<\/name>\s*<\/field>\s*<field>\s*<name>ints\[2\]<\/name>\s*<\/field>\s*` +
        String.raw`<field>\s*<name>ints\[3\]<\/name>\s*<\/field>\s*<\/fields>\s*<nullable>true<\/nullable>\s*` +
        String.raw`<cardinality>3<\/cardinality>`,
    ),
  );
  const entry = zipEntryNames(siard).find((n) => /^content\/schema\d+\/table\d+\/table\d+\.xml$/.test(n))!;
  const data = unzipEntry(siard, entry).toString('utf8');
  t.regex(data, /<c3><a1>plain<\/a1><a2>with space<\/a2><a3>with,comma<\/a3><a4>[^<]+<\/a4><a6>/, 'the NULL fifth element is a missing a5');
  await server!.createDatabase('arrays_back');
  const res = await runCli(['restore', siard, server!.url('arrays_back')]);
  t.is(res.code, 0, res.stderr);
  const text = (db: string) => sql<{ r: string }>(db, `SELECT t::text AS r FROM public.tagged t ORDER BY id`);
  t.deepEqual(await text('arrays_back'), await text('source'));
});

const ELEMENT_TYPES = `
  CREATE TABLE public.kinds (
    id    integer PRIMARY KEY,
    big   bigint[] NOT NULL,
    bytes bytea[],
    flags boolean[],
    days  date[],
    short varchar(5)[],
    fl    double precision[],
    ids   uuid[],
    times time[],
    spans interval[],
    CONSTRAINT few_big CHECK (cardinality(big) <= 3),
    CONSTRAINT short_days CHECK (days IS NULL OR array_length(days, 1) < 4)
  );
  INSERT INTO public.kinds VALUES
    (1, '{9223372036854775807,-9223372036854775808,0}', '{"\\\\x00ff",NULL,"\\\\x"}', '{t,f}', '{2020-02-29,NULL,0001-01-01}',
        '{"ab  ","", "<&>"}', '{1.5,-0,Infinity,-Infinity,1e300,5e-324}', '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}',
        '{00:00:00,23:59:59.999999}', '{"1 year 2 mons 3 days 04:05:06.5","-1 days"}'),
    (2, '{}', '{}', NULL, '{}', '{NULL,"x"}', '{NaN}', NULL, '{}', NULL);
`;

/** The `kinds` database exported once (by the CLI) for the tests that need it. */
let kindsExport: Promise<string> | undefined;
function exportKinds(): Promise<string> {
  kindsExport ??= (async () => {
    await server!.createDatabase('kinds');
    await sql('kinds', ELEMENT_TYPES);
    const out = path.join(work, 'kinds');
    const exported = await runCli(['export', server!.url('kinds'), out, '--name', 'kinds']);
    if (exported.code !== 0) throw new Error(`export failed: ${exported.stderr}`);
    return path.join(out, 'kinds.siard');
  })();
  return kindsExport;
}

pgTest('arrays of many element types, NULL elements and empty arrays round-trip; their check constraints come back', async (t) => {
  const siard = await exportKinds();
  assertArchiveValid(t, siard, METADATA_XSD);
  const metadata = unzipEntry(siard, 'header/metadata.xml').toString('utf8');
  t.regex(
    metadata,
    /<checkConstraint>\s*<name>few_big<\/name>\s*<condition>[^<]*cardinality\(big\)[^<]*<\/condition>\s*<\/checkConstraint>/,
  );

  await server!.createDatabase('kinds_back');
  const res = await runCli(['restore', siard, server!.url('kinds_back'), '--json']);
  t.is(res.code, 0, res.stderr);
  t.deepEqual((JSON.parse(res.stdout) as { warnings: string[] }).warnings, []);
  const text = (db: string) => sql<{ r: string }>(db, `SELECT k::text AS r FROM public.kinds k ORDER BY id`);
  t.deepEqual(await text('kinds_back'), await text('kinds'));
  const shape = (db: string) =>
    sql<{ c: string }>(
      db,
      `SELECT attname || ' ' || format_type(atttypid, atttypmod) || CASE WHEN attnotnull THEN ' not null' ELSE '' END AS c
         FROM pg_attribute WHERE attrelid = 'public.kinds'::regclass AND attnum > 0 ORDER BY attnum`,
    );
  t.deepEqual(await shape('kinds_back'), await shape('kinds'));
  const checks = (db: string) =>
    sql<{ c: string }>(
      db,
      `SELECT conname || ' ' || pg_get_constraintdef(oid) AS c FROM pg_constraint WHERE conrelid = 'public.kinds'::regclass AND ` +
        `contype = 'c' ORDER BY 1`,
    );
  const want = await checks('kinds');
  t.is(want.length, 2);
  t.deepEqual(await checks('kinds_back'), want);
  // The restored constraint is enforced, not just declared.
  await t.throwsAsync(sql('kinds_back', `INSERT INTO public.kinds (id, big) VALUES (9, '{1,2,3,4}')`), { message: /few_big/ });
});

pgTest('restored into SQLite, each array is JSON text: the archived element strings in order, null for a NULL element', async (t) => {
  const siard = await exportKinds();
  const target = path.join(work, 'kinds.db');
  const res = await runCli(['restore', siard, target]);
  t.is(res.code, 0, res.stderr);
  const { default: Database } = await import('../../src/sources/sqlite/driver.js');
  const db = new Database(target, { readonly: true });
  try {
    const rows = db.prepare(`SELECT big, short, days, flags, typeof(big) AS tb FROM kinds ORDER BY id`).all() as Array<
      Record<string, string | null>
    >;
    const pgRows = await sql<{ big: string; short: string | null; days: string | null; flags: string | null }>(
      'kinds',
      `SELECT big::text[]::text AS big, short::text, days::text, flags::text FROM public.kinds ORDER BY id`,
    );
    t.is(rows.length, pgRows.length);
    for (const [i, row] of rows.entries()) {
      t.is(row['tb'], 'text');
      // PostgreSQL's own element text against the JSON: numbers keep every digit (as strings).
      t.deepEqual(JSON.parse(row['big']!), pgArray(pgRows[i]!.big), `row ${i + 1} big`);
      t.deepEqual(JSON.parse(row['short']!), pgArray(pgRows[i]!.short), `row ${i + 1} short`);
    }
    t.deepEqual(JSON.parse(rows[0]!['days']!), ['2020-02-29Z', null, '0001-01-01Z'], 'dates in their SIARD form (xs:date with Z)');
    t.deepEqual(JSON.parse(rows[0]!['flags']!), ['true', 'false']);
    t.is(rows[1]!['flags'], null, 'a NULL array stays NULL');
    t.is(rows[1]!['days'], '[]', 'an empty array is []');
  } finally {
    db.close();
  }
});

/** Elements of a one-dimensional PostgreSQL array's text form (test-side parser, quotes and backslashes only). */
function pgArray(text: string | null): Array<string | null> | null {
  if (text === null) return null;
  const body = text.slice(1, -1);
  const out: Array<string | null> = [];
  let i = 0;
  while (i < body.length) {
    let item = '';
    let quoted = false;
    if (body[i] === '"') {
      quoted = true;
      for (i++; body[i] !== '"'; i++) item += body[i] === '\\' ? body[++i] : body[i];
      i++;
    } else while (i < body.length && body[i] !== ',') item += body[i++];
    out.push(!quoted && item === 'NULL' ? null : item);
    i++;
  }
  return out;
}

pgTest('a multi-dimensional array or one not starting at index 1 stops the export naming the cell; nothing is written', async (t) => {
  await server!.createDatabase('matrix');
  await sql('matrix', `CREATE TABLE m (id int PRIMARY KEY, a int[]); INSERT INTO m VALUES (1, '{1}'), (2, '{{1,2},{3,4}}')`);
  const dir = path.join(work, 'matrix');
  const res = await runCli(['export', server!.url('matrix'), dir, '--name', 'matrix']);
  t.is(res.code, 2);
  t.regex(res.stderr, /Table "public"\."m", row 2, column "a": multi-dimensional arrays have no SIARD form/);
  t.false(existsSync(dir));
  await sql('matrix', `CREATE TABLE z (id int PRIMARY KEY, a int[]); INSERT INTO z VALUES (1, '[0:1]={5,6}')`);
  const res2 = await runCli(['export', server!.url('matrix'), dir, '--name', 'matrix', '--tables', 'z']);
  t.is(res2.code, 2);
  t.regex(res2.stderr, /Table "public"\."z", row 1, column "a": array "\[0:1\]=\{5,6\}" does not start at index 1/);
  t.false(existsSync(dir));
});
