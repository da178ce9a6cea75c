/**
 * PostgreSQL -> SIARD -> PostgreSQL (issue 6, acceptance 1 and 5), against a private server the
 * test starts (test/helpers/postgres.ts). The fixture database (fixtures/postgres/sample.sql) has
 * every mapped type, keys of every kind, views, large objects and values large enough to be read
 * in slices. It is exported with tiny inline/slice limits and a small segment size (so a LOB is
 * split into .0 ... .z parts), restored by the built CLI into a fresh database, and compared row
 * by row with PostgreSQL's own text forms: bytea bytes (hex), timestamptz instants (UTC), numeric
 * digits, json text, intervals, uuids; large objects against the restored bytea; keys and check
 * constraints against the source's catalogue.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { VerifyResult } from '../../src/archive/verify/verify.js';
import { exportToDirectory } from '../../src/siard/export-directory.js';
import { PostgresSource } from '../../src/sources/postgres/postgres-source.js';
import { runCli } from '../helpers/cli.js';
import { mariadbAvailable, startMariadb } from '../helpers/mariadb.js';
import { pgTest, postgresAvailable, queryRows, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { testIf } from '../helpers/requires.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const work = tempDir('siard-ocfl-rt-pg-');
const out = path.join(work, 'out');
const siard = path.join(out, 'sample.siard');
const TABLES = ['customer', 'every_type', 'item', 'movement', 'no_key'];
let server: PostgresServer | undefined;

function sql<T extends pg.QueryResultRow = Record<string, unknown>>(db: string, text: string, values: unknown[] = []): Promise<T[]> {
  return queryRows<T>(server!, db, text, values);
}

test.before(async () => {
  if (!postgresAvailable() && !process.env.CI) return;
  server = await startPostgres();
  await server.createDatabase('source');
  await sql('source', readFileSync(path.join(PROJECT_ROOT, 'fixtures', 'postgres', 'sample.sql'), 'utf8'));
  // Small limits so every path runs: values over 1000 bytes are streamed in 4 KiB slices, LOBs
  // over 1000 bytes go to files, and a segment folder holds at most 100,000 bytes.
  const source = await PostgresSource.open(server.url('source'), {
    inlineThreshold: 1000,
    sliceBytes: 4096,
    tableFilter: (name) => TABLES.includes(name),
  });
  try {
    await exportToDirectory(source, out, { name: 'sample', inlineMax: 1000, maxBytes: 100_000 });
  } finally {
    await source.close();
  }
});

test.after.always(async () => {
  await server?.stop();
});

interface ColumnInfo {
  column_name: string;
  data_type: string;
  udt_name: string;
}

/** One text per cell, in PostgreSQL's own output forms; bytes as hex; large objects by content. */
async function tableText(db: string, schema: string, table: string): Promise<string[]> {
  const cols = await sql<ColumnInfo>(
    db,
    `SELECT column_name, data_type, udt_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER ` +
      `BY ordinal_position`,
    [schema, table],
  );
  const exprs = cols.map((c) => {
    const id = `"${c.column_name}"`;
    if (c.udt_name === 'oid') return `encode(lo_get(${id}), 'hex')`;
    if (c.udt_name === 'bytea') return `encode(${id}, 'hex')`;
    return `${id}::text`;
  });
  const rows = await sql<{ r: Array<string | null> }>(db, `SELECT ARRAY[${exprs.join(', ')}]::text[] AS r FROM "${schema}"."${table}"`);
  return rows.map((r) => JSON.stringify(r.r)).sort();
}

async function constraintsOf(db: string): Promise<string[]> {
  const rows = await sql<{ c: string }>(
    db,
    // pretty-printed: a restored condition is the same expression, though PostgreSQL flattens the
    // nested AND that BETWEEN became in the source ((a AND b) AND c -> a AND b AND c)
    `SELECT n.nspname || '.' || t.relname || ' ' || con.contype::text || ' ' || pg_get_constraintdef(con.oid, true) AS c
       FROM pg_constraint con JOIN pg_class t ON t.oid = con.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE con.contype IN ('p', 'u', 'f', 'c') AND n.nspname IN ('public', 'inventory') AND t.relname = ANY($1::text[]) ORDER BY 1`,
    [TABLES],
  );
  return rows.map((r) => r.c);
}

function filesUnder(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) files.push(...filesUnder(full));
    else files.push(full);
  }
  return files;
}

pgTest('the export holds the mapped types, original types, keys and views; a LOB is split into segment parts', async (t) => {
  const metadata = execFileSync('unzip', ['-p', siard, 'header/metadata.xml'], { encoding: 'utf8' });
  for (const expected of [
    /<name>stamp_tz<\/name>\s*<type>TIMESTAMP WITH TIME ZONE<\/type>\s*<typeOriginal>timestamp with time zone<\/typeOriginal>/,
    /<name>exact<\/name>\s*<type>DECIMAL\(20, 6\)<\/type>/,
    /<name>u<\/name>\s*<type>CHAR\(36\)<\/type>\s*<typeOriginal>uuid<\/typeOriginal>/,
    // an enum is a DISTINCT type over VARCHAR(longest label) (issue 13)
    /<name>feeling<\/name>\s*<typeSchema>public<\/typeSchema>\s*<typeName>mood<\/typeName>\s*<typeOriginal>mood<\/typeOriginal>/,
    /<name>mood<\/name>\s*<category>distinct<\/category>[\s\S]*?<base>VARCHAR\(5\)<\/base>/,
    /<name>manual<\/name>(\s*<lobFolder>[^<]*<\/lobFolder>)?\s*<type>BLOB<\/type>\s*<typeOriginal>oid<\/typeOriginal>/,
    /<name>x<\/name>(\s*<lobFolder>[^<]*<\/lobFolder>)?\s*<type>XML<\/type>/,
    // months beside days and time: no SQL:2008 interval type holds it, so PostgreSQL's text
    /<name>span<\/name>\s*<type>VARCHAR\(\d+\)<\/type>\s*<typeOriginal>interval<\/typeOriginal>/,
    /<name>happy_customers<\/name>/,
    /<name>stock<\/name>/,
    /<referencedTable>customer<\/referencedTable>/,
  ]) {
    t.regex(metadata, expected);
  }
  const files = filesUnder(out).map((f) => path.relative(out, f));
  t.true(files.some((f) => /\.txt\.0$/.test(f)) && files.some((f) => /\.txt\.z$/.test(f)), 'the 420,000-byte text is split into .0 ... .z');
  t.true(
    files.some((f) => /\.bin$/.test(f)),
    'bytea / large object files',
  );
});

pgTest('restore into PostgreSQL: every row of every table equal, type-aware; keys restored', async (t) => {
  await server!.createDatabase('restored');
  const res = await runCli(['restore', siard, server!.url('restored'), '--verify', '--json']);
  t.is(res.code, 0, res.stderr + res.stdout);
  const summary = JSON.parse(res.stdout) as {
    rows: number;
    lobFiles: number;
    digestsVerified: number;
    warnings: string[];
    verify: VerifyResult;
  };
  // verify (issue 34): every table equal value by value, and the archive equal to the source's fingerprints
  t.true(summary.verify.ok, JSON.stringify(summary.verify.tables.filter((x) => !x.equal)));
  t.deepEqual(
    summary.verify.tables.map((x) => [x.table, x.fingerprint]).sort((a, b) => a[0]!.localeCompare(b[0]!)),
    TABLES.map((x) => [`${x === 'item' || x === 'movement' ? 'inventory' : 'public'}.${x}`, 'equal']).sort((a, b) =>
      a[0]!.localeCompare(b[0]!),
    ),
  );
  t.true(summary.lobFiles >= 5);
  t.is(summary.digestsVerified, summary.lobFiles);
  t.deepEqual(summary.warnings, []);
  for (const [schema, table] of [
    ['public', 'customer'],
    ['public', 'every_type'],
    ['inventory', 'item'],
    ['inventory', 'movement'],
    ['public', 'no_key'],
  ] as const) {
    const want = await tableText('source', schema, table);
    const have = await tableText('restored', schema, table);
    t.true(want.length > 0);
    t.deepEqual(have, want, `${schema}.${table}`);
  }
  // Types PostgreSQL can recreate by name come back; a large object comes back as its bytes.
  const types = await sql<{ t: string }>(
    'restored',
    `SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'public.every_type'::regclass AND attnum > ` +
      `0 ORDER BY attnum`,
  );
  t.deepEqual(
    types.map((r) => r.t),
    (
      await sql<{ t: string }>(
        'source',
        `SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'public.every_type'::regclass AND ` +
          `attnum > 0 ORDER BY attnum`,
      )
    ).map((r) => r.t),
  );
  // Keys and checks: the same primary, unique and foreign keys and check constraints (small_range).
  const constraints = await constraintsOf('source');
  t.true(
    constraints.some((c) => / c CHECK /.test(c)),
    'the fixture has a check constraint',
  );
  t.deepEqual(await constraintsOf('restored'), constraints);
});

pgTest('restoring twice into the same database is refused with exit 2 and changes nothing', async (t) => {
  await server!.createDatabase('twice');
  t.is((await runCli(['restore', siard, server!.url('twice')])).code, 0);
  const before = await tableText('twice', 'public', 'customer');
  const again = await runCli(['restore', siard, server!.url('twice')]);
  t.is(again.code, 2);
  t.regex(again.stderr, /already has a table "(inventory|public)"\."\w+"/);
  t.deepEqual(await tableText('twice', 'public', 'customer'), before);
});

pgTest('a changed LOB file stops the restore naming the cell, and the database is left empty', async (t) => {
  const copy = path.join(work, 'tampered');
  execFileSync('cp', ['-r', out, copy]);
  const lob = filesUnder(copy).find((f) => f.endsWith('.bin'))!;
  const bytes = readFileSync(lob);
  bytes[0] = bytes[0]! ^ 1;
  writeFileSync(lob, bytes);
  await server!.createDatabase('tampered');
  const res = await runCli(['restore', path.join(copy, 'sample.siard'), server!.url('tampered')]);
  t.is(res.code, 1);
  t.regex(
    res.stderr,
    new RegExp(
      String.raw`table \w+\.\w+, row \d+, column \w+: LOB file "[^"]+\.bin" has SHA-256 digest [0-9a-f]{64}, but ` +
        String.raw`the cell says [0-9a-f]{64}; restore stopped\.`,
    ),
  );
  const tables = await sql<{ n: string }>(
    'tampered',
    `SELECT count(*)::text AS n FROM pg_tables WHERE schemaname IN ('public', 'inventory')`,
  );
  t.is(tables[0]!.n, '0');
  const schemas = await sql('tampered', `SELECT 1 FROM pg_namespace WHERE nspname = 'inventory'`);
  t.is(schemas.length, 0);
});

pgTest('a value with no SIARD form stops the export naming table, row and column', async (t) => {
  // (numeric NaN used to be such a value; issue 13 keeps it as text: postgres-issue13.test.ts)
  await server!.createDatabase('odd');
  await sql('odd', `CREATE TABLE odd (id int PRIMARY KEY, d date); INSERT INTO odd VALUES (1, '2020-01-01'), (2, '0044-03-15 BC')`);
  const dir = path.join(work, 'odd');
  const res = await runCli(['export', server!.url('odd'), dir, '--name', 'odd']);
  t.is(res.code, 2);
  t.regex(
    res.stderr,
    /Table "public"\."odd", row 2, column "d": date\/time "0044-03-15 BC" has no SIARD form \(BC or infinite\); export stopped/,
  );
});

// --- acceptance 5: connections that cannot work are exit 2 with one clear sentence, nothing written

function withPassword(url: string, password: string): string {
  const u = new URL(url);
  u.password = password;
  return u.toString();
}

async function closedPort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as import('node:net').AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function badUrls(): Promise<Array<[string, string, RegExp]>> {
  const port = await closedPort();
  return [
    ['wrong password', withPassword(server!.url('source'), 'not-the-password'), /refused user "siard_test": wrong password\./],
    [
      'unreachable host',
      `postgres://siard_test:x@127.0.0.1:${port}/source`,
      new RegExp(`Cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}/source: connection refused`),
    ],
    [
      'unknown database',
      server!.url('no_such_db'),
      new RegExp(`Database "${server!.databaseName('no_such_db')}" does not exist on the PostgreSQL server at 127\\.0\\.0\\.1:\\d+\\.`),
    ],
  ];
}

pgTest('export from a bad connection: exit 2, a clear message, no output folder', async (t) => {
  for (const [what, url, message] of await badUrls()) {
    const dir = path.join(work, `bad-export-${what.replace(/ /g, '-')}`);
    const res = await runCli(['export', url, dir, '--name', 'x']);
    t.is(res.code, 2, what);
    t.regex(res.stderr, message, what);
    t.is(res.stderr.trim().split('\n').length, 1, `${what}: one line`);
    t.false(res.stderr.includes('not-the-password'), 'the password is never printed');
    t.false(existsSync(dir), `${what}: nothing written`);
  }
});

pgTest('restore into a bad connection: exit 2, a clear message, nothing created', async (t) => {
  for (const [what, url, message] of await badUrls()) {
    const res = await runCli(['restore', siard, url]);
    t.is(res.code, 2, what);
    t.regex(res.stderr, message, what);
    t.is(res.stderr.trim().split('\n').length, 1, `${what}: one line`);
  }
  t.deepEqual(await sql('postgres', `SELECT 1 FROM pg_database WHERE datname = 'no_such_db'`), [], 'no database was created');
  const inSource = await sql<{ n: string }>(
    'source',
    `SELECT count(*)::text AS n FROM pg_tables WHERE schemaname IN ('public', 'inventory')`,
  );
  t.is(inSource[0]!.n, String(TABLES.length + 1), 'the source database (the wrong-password target) is unchanged');
});

pgTest('the PostgreSQL archive restores into SQLite too: same rows, bytes and UTC instants; verify names the lossy column', async (t) => {
  const target = path.join(work, 'from-pg.db');
  const res = await runCli(['restore', siard, target]);
  t.is(res.code, 0, res.stderr);
  // verify (issue 34): no value differs after the SQLite mapping, and the one mapping that lost
  // something is named: every_type's double column holding NaN (SQLite has none: NULL)
  const v = await runCli(['verify', siard, target, '--json']);
  t.is(v.code, 1, v.stderr);
  const verified = JSON.parse(v.stdout) as VerifyResult;
  for (const x of verified.tables) t.deepEqual([x.missing, x.extra, x.changed, x.problems], [0, 0, 0, []], x.table);
  t.deepEqual(
    verified.tables.flatMap((x) => x.lossy.map((l) => [x.table, l.column, l.reason, l.values])),
    [['public.every_type', 'r', 'SQLite has no NaN: restored as NULL', 1]],
  );
  const { default: Database } = await import('../../src/sources/sqlite/driver.js');
  const db = new Database(target, { readonly: true });
  try {
    for (const table of TABLES) {
      const schema = table === 'item' || table === 'movement' ? 'inventory' : 'public';
      const want = await sql<{ n: string }>('source', `SELECT count(*)::text AS n FROM "${schema}"."${table}"`);
      t.is(String((db.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n), want[0]!.n, table);
    }
    const pictures = await sql<{ h: string | null }>(
      'source',
      `SELECT encode(picture, 'hex') AS h FROM inventory.item ORDER BY sku, warehouse`,
    );
    const restored = (db.prepare(`SELECT picture FROM item ORDER BY sku, warehouse`).all() as Array<{ picture: Buffer | null }>).map((r) =>
      r.picture === null ? null : r.picture.toString('hex'),
    );
    t.deepEqual(
      restored,
      pictures.map((p) => p.h),
    );
    const stamps = await sql<{ s: string | null }>(
      'source',
      `SELECT to_char(stamp_tz, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS s FROM public.every_type ORDER BY id`,
    );
    const got = (db.prepare(`SELECT stamp_tz FROM every_type ORDER BY id`).all() as Array<{ stamp_tz: string | null }>).map(
      (r) => r.stamp_tz,
    );
    t.deepEqual(
      got.map((s) => (s === null ? null : new Date(s).getTime())),
      stamps.map((s) => (s.s === null ? null : new Date(s.s).getTime())),
      'timestamptz instants',
    );
  } finally {
    db.close();
  }
});

testIf(
  mariadbAvailable(),
  'MariaDB (mariadbd, mariadb-install-db, mariadb) is not installed',
  pgTest,
)('a PostgreSQL archive with time zones restored into MariaDB: verify names those columns lossy, each instant equal in UTC', async (t) => {
  // a database of its own: the sample's views would bring a second schema, which MariaDB gets as a database of that name
  await server!.createDatabase('zoned_source');
  await sql(
    'zoned_source',
    `CREATE TABLE public.zoned (id integer PRIMARY KEY, at timestamptz, clock timetz, wall time, note text);
       INSERT INTO public.zoned VALUES (1, '2024-06-01 12:34:56.789+02', '10:00:00+05:30', '23:59:59.999999', 'east'),
         (2, '1970-01-01 00:00:00+00', '23:59:59.5-08', '00:00:00.5', NULL), (3, NULL, NULL, NULL, 'none');`,
  );
  const zoned = path.join(work, 'zoned');
  const source = await PostgresSource.open(server!.url('zoned_source'));
  try {
    await exportToDirectory(source, zoned, { name: 'zoned' });
  } finally {
    await source.close();
  }
  const maria = await startMariadb();
  try {
    const res = await runCli(['restore', path.join(zoned, 'zoned.siard'), maria.url('from_pg'), '--create', '--verify', '--json']);
    t.is(res.code, 1, 'the time zones are gone: not equal' + res.stderr);
    const verified = (JSON.parse(res.stdout) as { verify: VerifyResult }).verify;
    t.false(verified.ok);
    // nothing differs after MariaDB's mapping; the two columns that lost their zone are named, never equal
    t.deepEqual(
      verified.tables.map((x) => [x.table, x.rows, x.targetRows, x.missing, x.extra, x.changed, x.problems, x.fingerprint, x.equal]),
      [['public.zoned', 3, 3, 0, 0, 0, [], 'equal', false]],
    );
    t.deepEqual(
      verified.tables[0]!.lossy.map((l) => [l.column, l.reason]),
      [
        ['at', 'TIMESTAMP WITH TIME ZONE held in UTC, without a time zone'],
        ['clock', 'TIME WITH TIME ZONE held in UTC, without a time zone'],
      ],
    );
    // what MariaDB holds is each value in UTC, as PostgreSQL computes it, fractions of a second kept (TIME(6), not TIME)
    const want = await sql<{ id: number; at: string | null; clock: string | null; wall: string | null }>(
      'zoned_source',
      `SELECT id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS at,
                to_char((clock AT TIME ZONE 'UTC')::time, 'HH24:MI:SS.US') AS clock, to_char(wall, 'HH24:MI:SS.US') AS wall
         FROM public.zoned ORDER BY id`,
    );
    const got = await maria.sql<{ id: number; at: string | null; clock: string | null; wall: string | null }>(
      'from_pg',
      `SELECT id, DATE_FORMAT(at, '%Y-%m-%d %H:%i:%s.%f') AS at, TIME_FORMAT(clock, '%H:%i:%s.%f') AS clock,
         TIME_FORMAT(wall, '%H:%i:%s.%f') AS wall FROM zoned ORDER BY id`,
    );
    t.deepEqual(
      got.map((r) => [Number(r.id), r.at, r.clock, r.wall]),
      want.map((r) => [r.id, r.at, r.clock, r.wall]),
    );
  } finally {
    await maria.stop();
  }
});
