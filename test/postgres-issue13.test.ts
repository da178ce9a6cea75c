/**
 * Issue 13, points 2-4 on a real PostgreSQL server the test starts: `<databaseProduct>` names the
 * server's version; numeric NaN/±Infinity and float NaN/±Infinity export and come back exactly;
 * intervals get an SQL:2008 qualifier (YEAR TO MONTH, DAY TO SECOND) or, when no SQL:2008 interval
 * type holds the values, PostgreSQL's own text, and come back exactly; schema-qualified table
 * selection; restore recreates defaults and views of a PostgreSQL archive and lists what it did not.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { runCli } from './helpers/cli.js';
import { postgresAvailable, startPostgres, type PostgresServer } from './helpers/postgres.js';
import { reference, HAS_SHARED } from './helpers/shared.js';
import { tempDir } from './helpers/tmp.js';
import { assertArchiveValid } from './export-support.js';

const pgTest = postgresAvailable() || process.env.CI ? test.serial : test.skip;
const work = tempDir('siard-ocfl-pg13-');
let server: PostgresServer | undefined;

async function sql<T extends pg.QueryResultRow = Record<string, unknown>>(db: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: server!.url(db) });
  await client.connect();
  try {
    await client.query("SET TIME ZONE 'UTC'");
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const SOURCE_SQL = `
  CREATE SCHEMA a;
  CREATE TABLE a.items (
    id int PRIMARY KEY,
    name text NOT NULL DEFAULT 'unnamed',
    qty int DEFAULT 0 CHECK (qty >= 0),
    n numeric,
    n2 numeric(10,2),
    f float8,
    r real,
    ym interval,
    dt interval,
    mixed interval
  );
  INSERT INTO a.items VALUES
    (1, 'bolt', 5, 1.50, 2.25, 1.5, 0.25, '1 year 2 mons', '3 days 04:05:06.5', '1 day'),
    (2, 'nut', 12, 'NaN', 'NaN', 'NaN', 'NaN', '-2 mons', '-00:00:01', '1 mon -1 day'),
    (3, 'washer', 0, 'Infinity', NULL, 'Infinity', '-Infinity', NULL, '36 hours', '2 years 3 days'),
    (4, 'screw', 40, '-Infinity', 3.00, '-Infinity', 'Infinity', '0', '100000 days', '-1 year -2 mons -3 days -00:00:04');
  CREATE VIEW a.big_items AS SELECT id, name FROM a.items WHERE qty > 10;
  CREATE TABLE public.other (x int);
  INSERT INTO public.other VALUES (1);
`;

test.before(async () => {
  if (!postgresAvailable() && !process.env.CI) return;
  server = await startPostgres();
  await server.createDatabase('source');
  await sql('source', SOURCE_SQL);
});

test.after.always(async () => {
  await server?.stop();
});

function metadataOf(siard: string): string {
  return execFileSync('unzip', ['-p', siard, 'header/metadata.xml'], { encoding: 'utf8' });
}

/** Each row of a table as PostgreSQL prints it, column by column. */
async function rowsText(db: string, table: string, columns: string[]): Promise<string[][]> {
  const rows = await sql<{ r: Array<string | null> }>(db, `SELECT ARRAY[${columns.map((c) => `${c}::text`).join(', ')}]::text[] AS r FROM ${table} ORDER BY id`);
  return rows.map((r) => r.r.map((v) => v ?? 'NULL'));
}

pgTest('databaseProduct, NaN and infinities, intervals: typed for SIARD, reported, and restored exactly', async (t) => {
  const out = path.join(work, 'out');
  const exp = await runCli(['export', server!.url('source'), out, '--name', 'shop', '--json']);
  t.is(exp.code, 0, exp.stderr);
  const report = JSON.parse(exp.stdout) as { widened: Array<{ table: string; column: string; firstRow: number; exportedAs: string }> };
  const widened = new Map(report.widened.map((w) => [`${w.table}.${w.column}`, w]));
  // rows are exported in primary-key order: NaN first at id 2, the mixed intervals at id 2
  t.deepEqual([...widened.keys()].sort(), ['items.mixed', 'items.n', 'items.n2']);
  t.is(widened.get('items.n')!.firstRow, 2);
  t.is(widened.get('items.n2')!.firstRow, 2);
  t.is(widened.get('items.mixed')!.firstRow, 2);

  const siard = path.join(out, 'shop.siard');
  if (HAS_SHARED) assertArchiveValid(t, siard, reference('siard', 'metadata.xsd'));
  const meta = metadataOf(siard);
  const version = (await sql<{ server_version: string }>('source', 'SHOW server_version'))[0]!.server_version;
  t.regex(meta, new RegExp(`<databaseProduct>PostgreSQL ${version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}</databaseProduct>`));
  t.notRegex(meta, /undefined/);
  t.regex(meta, /<name>ym<\/name>\s*<type>INTERVAL YEAR\(9\) TO MONTH<\/type>\s*<typeOriginal>interval<\/typeOriginal>/);
  t.regex(meta, /<name>dt<\/name>\s*<type>INTERVAL DAY\(9\) TO SECOND\(6\)<\/type>/);
  t.regex(meta, /<name>mixed<\/name>\s*<type>VARCHAR\(\d+\)<\/type>\s*<typeOriginal>interval<\/typeOriginal>/);
  t.regex(meta, /<name>n<\/name>\s*<type>VARCHAR\(\d+\)<\/type>\s*<typeOriginal>numeric<\/typeOriginal>/);
  t.regex(meta, /<name>f<\/name>\s*<type>DOUBLE PRECISION<\/type>/);
  t.notRegex(meta, /YEAR TO SECOND/);

  await server!.createDatabase('restored');
  const res = await runCli(['restore', siard, server!.url('restored'), '--json']);
  t.is(res.code, 0, res.stderr);
  const columns = ['id', 'name', 'qty', 'n', 'n2', 'f', 'r', 'ym', 'dt', 'mixed'];
  const want = await rowsText('source', 'a.items', columns);
  t.true(want.some((r) => r.includes('NaN')) && want.some((r) => r.includes('-Infinity')));
  t.deepEqual(await rowsText('restored', 'a.items', columns), want);
  // the column types come back as declared
  const types = async (db: string) =>
    (await sql<{ t: string }>(db, `SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'a.items'::regclass AND attnum > 0 ORDER BY attnum`)).map((r) => r.t);
  t.deepEqual(await types('restored'), await types('source'));
});

pgTest('schema-qualified table selection; a pattern that matches nothing is exit 2 naming what exists', async (t) => {
  const ok = await runCli(['export', server!.url('source'), path.join(work, 'sel'), '--name', 'sel', '--tables', 'a.items', '--json']);
  t.is(ok.code, 0, ok.stderr);
  t.is((JSON.parse(ok.stdout) as { tables: number }).tables, 1);
  const meta = metadataOf(path.join(work, 'sel', 'sel.siard'));
  t.regex(meta, /<name>items<\/name>/);
  t.notRegex(meta, /<name>other<\/name>/);
  const none = await runCli(['export', server!.url('source'), path.join(work, 'sel-none'), '--tables', 'b.items']);
  t.is(none.code, 2);
  t.regex(none.stderr, /--tables "b\.items" matches no table; the database has a\.items, public\.other\./);
  const excluded = await runCli(['export', server!.url('source'), path.join(work, 'sel-x'), '--name', 'x', '--exclude-tables', 'public.*', '--json']);
  t.is(excluded.code, 0, excluded.stderr);
  t.is((JSON.parse(excluded.stdout) as { tables: number }).tables, 1);
});
