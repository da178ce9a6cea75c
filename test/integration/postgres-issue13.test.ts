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
import { runCli } from '../helpers/cli.js';
import { pgTest, postgresAvailable, queryRows, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { reference, HAS_SHARED } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';
import { assertArchiveValid } from '../helpers/export-support.js';

const pgSerial = pgTest.serial;
const work = tempDir('siard-ocfl-pg13-');
let server: PostgresServer | undefined;

function sql<T extends pg.QueryResultRow = Record<string, unknown>>(db: string, text: string, values: unknown[] = []): Promise<T[]> {
  return queryRows<T>(server!, db, text, values);
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
  const rows = await sql<{ r: Array<string | null> }>(
    db,
    `SELECT ARRAY[${columns.map((c) => `${c}::text`).join(', ')}]::text[] AS r FROM ${table} ORDER BY id`,
  );
  return rows.map((r) => r.r.map((v) => v ?? 'NULL'));
}

pgSerial('databaseProduct, NaN and infinities, intervals: typed for SIARD, reported, and restored exactly', async (t) => {
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

  // --strict refuses instead, naming every such column with its row
  const strict = await runCli(['export', server!.url('source'), path.join(work, 'strict'), '--name', 'shop', '--strict']);
  t.is(strict.code, 2);
  t.regex(strict.stderr, /Strict export refused 3 columns/);
  t.regex(
    strict.stderr,
    /column "mixed" \(declared interval\) holds intervals whose parts differ in sign, which no xs:duration can, first at row 2/,
  );

  await server!.createDatabase('restored');
  const res = await runCli(['restore', siard, server!.url('restored'), '--json']);
  t.is(res.code, 0, res.stderr);
  const columns = ['id', 'name', 'qty', 'n', 'n2', 'f', 'r', 'ym', 'dt', 'mixed'];
  const want = await rowsText('source', 'a.items', columns);
  t.true(want.some((r) => r.includes('NaN')) && want.some((r) => r.includes('-Infinity')));
  t.deepEqual(await rowsText('restored', 'a.items', columns), want);
  // the column types come back as declared
  const types = async (db: string) =>
    (
      await sql<{ t: string }>(
        db,
        `SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'a.items'::regclass AND attnum > 0 ` +
          `ORDER BY attnum`,
      )
    ).map((r) => r.t);
  t.deepEqual(await types('restored'), await types('source'));
});

pgSerial('schema-qualified table selection; a pattern that matches nothing is exit 2 naming what exists', async (t) => {
  const ok = await runCli(['export', server!.url('source'), path.join(work, 'sel'), '--name', 'sel', '--tables', 'a.items', '--json']);
  t.is(ok.code, 0, ok.stderr);
  t.is((JSON.parse(ok.stdout) as { tables: number }).tables, 1);
  const meta = metadataOf(path.join(work, 'sel', 'sel.siard'));
  t.regex(meta, /<name>items<\/name>/);
  t.notRegex(meta, /<name>other<\/name>/);
  const none = await runCli(['export', server!.url('source'), path.join(work, 'sel-none'), '--tables', 'b.items']);
  t.is(none.code, 2);
  t.regex(none.stderr, /--tables "b\.items" matches no table; the database has a\.items, public\.other\./);
  const excluded = await runCli([
    'export',
    server!.url('source'),
    path.join(work, 'sel-x'),
    '--name',
    'x',
    '--exclude-tables',
    'public.*',
    '--json',
  ]);
  t.is(excluded.code, 0, excluded.stderr);
  t.is((JSON.parse(excluded.stdout) as { tables: number }).tables, 1);
});

const SHOP_SQL = `
  CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
  CREATE TABLE public.item (
    id serial PRIMARY KEY,
    name text NOT NULL DEFAULT 'unnamed',
    qty int DEFAULT 0 CHECK (qty >= 0),
    added date DEFAULT CURRENT_DATE,
    feeling mood
  );
  INSERT INTO public.item (name, qty, feeling) VALUES ('bolt', 5, 'ok'), ('nut', 12, 'happy'), ('washer', 40, NULL);
  CREATE VIEW public.big_item AS SELECT id, name FROM public.item WHERE qty > 10;
  CREATE VIEW public.big_item_names AS SELECT name FROM public.big_item;
  CREATE TABLE public.ticket (no int GENERATED ALWAYS AS IDENTITY (START WITH 100 INCREMENT BY 5) PRIMARY KEY, label text,
    feeling mood DEFAULT 'ok');
  INSERT INTO public.ticket (label, feeling) VALUES ('a', 'sad'), ('b', 'happy'), ('c', DEFAULT);
  CREATE FUNCTION public.touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.label := upper(NEW.label); RETURN NEW; END $$;
  CREATE TRIGGER ticket_touch BEFORE INSERT OR UPDATE OF label ON public.ticket FOR EACH ROW EXECUTE FUNCTION public.touch();
  CREATE INDEX item_by_name ON public.item (name);
`;

pgSerial(
  'restore --create: defaults, views, enums and identity columns come back; what did not (a sequence default, indexes) is listed once',
  async (t) => {
    await server!.createDatabase('shop');
    await sql('shop', SHOP_SQL);
    const out = path.join(work, 'shop-out');
    const exp = await runCli(['export', server!.url('shop'), out, '--name', 'shop', '--json']);
    t.is(exp.code, 0, exp.stderr);
    t.deepEqual((JSON.parse(exp.stdout) as { notExported: string[] }).notExported, ['index item_by_name on public.item']);
    const siard = path.join(out, 'shop.siard');

    const missing = await runCli(['restore', siard, server!.url('shop_copy')]);
    t.is(missing.code, 2);
    t.regex(
      missing.stderr,
      new RegExp(
        `Database "${server!.databaseName('shop_copy')}" does not exist on the PostgreSQL server at 127\\.0\\.0\\.1:\\d+\\. ` +
          'Add --create to create it\\.',
      ),
    );
    const res = await runCli(['restore', siard, server!.url('shop_copy'), '--create', '--json']);
    t.is(res.code, 0, res.stderr);
    const summary = JSON.parse(res.stdout) as { notRecreated: Array<{ kind: string; name: string; reason: string }> };
    const byName = new Map(summary.notRecreated.map((n) => [`${n.kind} ${n.name}`, n.reason]));
    t.regex(byName.get('default public.item.id') ?? '', /PostgreSQL refused nextval\('item_id_seq'::regclass\)/);
    t.truthy(byName.get('index indexes other than primary and unique keys'));
    t.regex(byName.get('trigger public.ticket.ticket_touch') ?? '', /calls a function, and the archive carries no routines/);
    t.is(summary.notRecreated.length, 3, JSON.stringify(summary.notRecreated));

    // the enum is a DISTINCT type in the archive, valid against metadata.xsd, and an enum again
    const meta = metadataOf(siard);
    if (HAS_SHARED) assertArchiveValid(t, siard, reference('siard', 'metadata.xsd'));
    t.regex(
      meta,
      new RegExp(
        String.raw`<type>\s*<name>mood<\/name>\s*<category>distinct<\/category>\s*<instantiable>false<\/instantiable>` +
          String.raw`\s*<final>true<\/final>\s*<base>VARCHAR\(5\)<\/base>\s*<description>PostgreSQL enum; labels in ` +
          String.raw`order: &apos;sad&apos;, &apos;ok&apos;, &apos;happy&apos;<\/description>`,
      ),
    );
    t.regex(
      meta,
      /<name>feeling<\/name>\s*<typeSchema>public<\/typeSchema>\s*<typeName>mood<\/typeName>\s*<typeOriginal>mood<\/typeOriginal>/,
    );
    const labels = async (db: string) =>
      (
        await sql<{ l: string }>(db, `SELECT enumlabel AS l FROM pg_enum WHERE enumtypid = 'public.mood'::regtype ORDER BY enumsortorder`)
      ).map((r) => r.l);
    t.deepEqual(await labels('shop_copy'), await labels('shop'));
    const columnTypes = async (db: string, table: string) =>
      (
        await sql<{ t: string }>(
          db,
          `SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 ORDER BY attnum`,
          [table],
        )
      ).map((r) => r.t);
    t.deepEqual(await columnTypes('shop_copy', 'public.ticket'), await columnTypes('shop', 'public.ticket'));
    t.deepEqual(await columnTypes('shop_copy', 'public.item'), await columnTypes('shop', 'public.item'));
    const tickets = async (db: string) =>
      (await sql(db, 'SELECT no, label, feeling::text FROM public.ticket ORDER BY no')).map((r) => JSON.stringify(r));
    t.deepEqual(await tickets('shop_copy'), await tickets('shop'));
    // the identity column is one again, and goes on where the source's sequence would
    const identity = async (db: string) =>
      (
        await sql<{ i: string }>(
          db,
          `SELECT attidentity::text AS i FROM pg_attribute WHERE attrelid = 'public.ticket'::regclass AND attname = 'no'`,
        )
      )[0]!.i;
    t.is(await identity('shop_copy'), await identity('shop'));
    const expected = (await sql<{ n: string }>('shop', `SELECT (last_value + 5)::text AS n FROM public.ticket_no_seq`))[0]!.n;
    t.is((await sql<{ no: number }>('shop_copy', `INSERT INTO public.ticket (label) VALUES ('d') RETURNING no`))[0]!.no, Number(expected));
    t.regex(
      meta,
      /<trigger>\s*<name>ticket_touch<\/name>\s*<actionTime>BEFORE<\/actionTime>\s*<triggerEvent>INSERT OR UPDATE OF label<\/triggerEvent>/,
    );
    t.regex(meta, /<name>no<\/name>[\s\S]*?<defaultValue>GENERATED ALWAYS AS IDENTITY \(START WITH \d+ INCREMENT BY 5\)<\/defaultValue>/);

    const defaults = async (db: string) =>
      (
        await sql<{ c: string; d: string | null }>(
          db,
          `SELECT column_name AS c, column_default AS d FROM information_schema.columns WHERE table_name = 'item' AND ` +
            `column_name <> 'id' ORDER BY ordinal_position`,
        )
      ).map((r) => `${r.c}=${r.d}`);
    t.deepEqual(await defaults('shop_copy'), await defaults('shop'));
    const ticketDefault = async (db: string) =>
      (
        await sql<{ d: string | null }>(
          db,
          `SELECT column_default AS d FROM information_schema.columns WHERE table_name = 'ticket' AND column_name = 'feeling'`,
        )
      )[0]!.d;
    t.is(await ticketDefault('shop_copy'), await ticketDefault('shop'));
    for (const view of ['public.big_item', 'public.big_item_names']) {
      const rows = async (db: string) => (await sql(db, `SELECT * FROM ${view} ORDER BY 1`)).map((r) => JSON.stringify(r));
      const want = await rows('shop');
      t.true(want.length > 0);
      t.deepEqual(await rows('shop_copy'), want, view);
    }

    const again = await runCli(['restore', siard, server!.url('shop_copy'), '--create']);
    t.is(again.code, 2);
    t.regex(again.stderr, /Cannot create the database .*shop_copy: it already exists; leave out --create to restore into it\./);

    // a database holding other tables is refused unless --into-existing, in one sentence
    await server!.createDatabase('busy');
    await sql('busy', 'CREATE TABLE public.unrelated (x int)');
    const busy = await runCli(['restore', siard, server!.url('busy')]);
    t.is(busy.code, 2);
    t.regex(
      busy.stderr,
      new RegExp(
        String.raw`Cannot restore into .*busy: it is not empty \(1 tables or views, e\.g\. public\.unrelated\); add ` +
          String.raw`--into-existing to restore beside them\.`,
      ),
    );
    t.is(busy.stderr.trim().split('\n').length, 1);
    const beside = await runCli(['restore', siard, server!.url('busy'), '--into-existing']);
    t.is(beside.code, 0, beside.stderr);
    t.is((await sql('busy', 'SELECT * FROM public.item')).length, 3);
    // the same archive into SQLite: the enum type and the identity clause are listed, the labels kept as text
    const sqliteTarget = path.join(work, 'shop.db');
    const lite = await runCli(['restore', siard, sqliteTarget, '--json']);
    t.is(lite.code, 0, lite.stderr);
    const liteNot = (JSON.parse(lite.stdout) as { notRecreated: Array<{ kind: string; name: string }> }).notRecreated.map(
      (n) => `${n.kind} ${n.name}`,
    );
    t.true(liteNot.includes('type public.mood'));
    t.true(liteNot.includes('default public.ticket.no'));
    t.true(liteNot.includes('view public.big_item'));

    // a failed restore into a database it created leaves no database behind
    const broken = path.join(work, 'broken.siard');
    const rewrite = `
import sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, 'w', zipfile.ZIP_DEFLATED) as zout:
    for item in zin.infolist():
        data = zin.read(item.filename)
        if item.filename == 'header/metadata.xml':
            data = data.replace(b'<rows>3</rows>', b'<rows>4</rows>', 1)
        zout.writestr(item, data)
`;
    execFileSync('python3', ['-c', rewrite, siard, broken]);
    const failed = await runCli(['restore', broken, server!.url('shop_broken'), '--create']);
    t.is(failed.code, 1, failed.stderr);
    t.regex(failed.stderr, /metadata\.xml says 4 rows but the table data holds 3/);
    t.deepEqual(await sql('postgres', `SELECT 1 FROM pg_database WHERE datname = $1`, [server!.databaseName('shop_broken')]), []);

    // defaults are SQL from the archive: one that would add another ALTER TABLE action, or a second
    // statement, is listed and not run
    const hostile = path.join(work, 'hostile.siard');
    const edit = rewrite
      .replace(
        "b'<rows>3</rows>', b'<rows>4</rows>'",
        "b'<defaultValue>0</defaultValue>', b'<defaultValue>0, ADD COLUMN evil int</defaultValue>'",
      )
      .replace(
        'data = data.replace(',
        "data = data.replace(b'<defaultValue>CURRENT_DATE</defaultValue>', b'<defaultValue>CURRENT_DATE; DROP TABLE " +
          "public.ticket</defaultValue>', 1).replace(",
      );
    execFileSync('python3', ['-c', edit, siard, hostile]);
    t.regex(execFileSync('unzip', ['-p', hostile, 'header/metadata.xml'], { encoding: 'utf8' }), /ADD COLUMN evil/);
    const h = await runCli(['restore', hostile, server!.url('shop_hostile'), '--create', '--json']);
    t.is(h.code, 0, h.stderr);
    const hostileNot = new Map(
      (JSON.parse(h.stdout) as { notRecreated: Array<{ kind: string; name: string; reason: string }> }).notRecreated.map((n) => [
        `${n.kind} ${n.name}`,
        n.reason,
      ]),
    );
    t.regex(hostileNot.get('default public.item.qty') ?? '', /comma outside parentheses/);
    t.regex(hostileNot.get('default public.item.added') ?? '', /contains ";"/);
    t.deepEqual(await sql('shop_hostile', `SELECT 1 FROM information_schema.columns WHERE column_name = 'evil'`), []);
    t.is((await sql('shop_hostile', 'SELECT * FROM public.ticket')).length, 3);
  },
);
