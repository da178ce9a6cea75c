/**
 * Issue 33: descriptions reach the databases a restore makes and come back on export. A small
 * SQLite database is exported, described (describe --apply on the bare .siard), restored into
 * PostgreSQL (COMMENT ON) and MariaDB (COMMENT), and each restored database is exported again:
 * the table and column descriptions read back are the ones given. (MariaDB keeps comments in
 * utf8mb3: a description with an emoji is not restored there, with a warning, rather than changed.)
 * And export/ingest --describe.
 */
import test from 'ava';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describeCopy, describeTemplate, type DescribeTemplate } from '../../src/archive/describe/describe.js';
import { restore } from '../../src/archive/restore.js';
import { exportToDirectory } from '../../src/siard/export-directory.js';
import { openSource } from '../../src/sources/open.js';
import Database from '../../src/sources/sqlite/driver.js';
import { mariadbAvailable, startMariadb, type MariadbServer } from '../helpers/mariadb.js';
import { postgresAvailable, queryRows, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { testIf } from '../helpers/requires.js';
import { runCli } from '../helpers/cli.js';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { initRoot } from '../../src/ocfl/root.js';
import { tempDir } from '../helpers/tmp.js';

const work = tempDir('siard-ocfl-describe-restore-');
const described = path.join(work, 'described', 'small.siard');
const TABLE = 'An order: "quoted", it\'s \\ back-slashed,\nover two lines; Ünïcødé 日本語 <markup> & more';
const COLUMN = "The buyer's id (O'Brien \\n is not a newline)";

test.before(async () => {
  const db = new Database(path.join(work, 'small.db'));
  db.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, buyer TEXT NOT NULL); INSERT INTO orders VALUES (1, 'a'), (2, 'b');");
  db.close();
  const source = await openSource(`sqlite:${path.join(work, 'small.db')}`);
  try {
    await exportToDirectory(source, path.join(work, 'plain'), { name: 'small' });
  } finally {
    await source.close();
  }
  const template = await describeTemplate({ siard: path.join(work, 'plain', 'small.siard') });
  const schema = Object.keys(template.schemas!)[0]!;
  await describeCopy(path.join(work, 'plain', 'small.siard'), path.dirname(described), {
    schemas: { [schema]: { tables: { orders: { description: TABLE, columns: { buyer: { description: COLUMN } } } } } },
  });
});

/** The descriptions of table orders and its columns in an archive exported from `url`. */
async function exportedDescriptions(url: string, name: string): Promise<{ table: unknown; columns: unknown }> {
  const source = await openSource(url);
  try {
    await exportToDirectory(source, path.join(work, name), { name });
  } finally {
    await source.close();
  }
  const template: DescribeTemplate = await describeTemplate({ siard: path.join(work, name, `${name}.siard`) });
  const schema = Object.values(template.schemas!).find((s) => (s['tables'] as Record<string, unknown>)['orders'])!;
  const orders = (schema['tables'] as Record<string, { description: unknown; columns: Record<string, { description: unknown }> }>)[
    'orders'
  ]!;
  return { table: orders.description, columns: Object.fromEntries(Object.entries(orders.columns).map(([k, v]) => [k, v.description])) };
}

const want = { table: TABLE, columns: { id: null, buyer: COLUMN } };

testIf(postgresAvailable() || Boolean(process.env.CI), 'PostgreSQL is not installed')(
  'restore into PostgreSQL writes COMMENT ON, and the PostgreSQL source reads them back',
  async (t) => {
    const server: PostgresServer = await startPostgres();
    try {
      await server.createDatabase('described');
      await restore({ siard: described }, server.url('described'));
      const rows = await queryRows<{ t: string; c: string }>(
        server,
        'described',
        "SELECT obj_description(c.oid, 'pg_class') AS t, col_description(c.oid, 2) AS c FROM pg_class c WHERE relname = 'orders'",
      );
      t.deepEqual(rows, [{ t: TABLE, c: COLUMN }]);
      t.deepEqual(await exportedDescriptions(server.url('described'), 'from-postgres'), want);
    } finally {
      await server.stop();
    }
  },
);

testIf(mariadbAvailable() || Boolean(process.env.CI), 'MariaDB is not installed')(
  'restore into MariaDB writes COMMENT, and the MariaDB source reads them back',
  async (t) => {
    const server: MariadbServer = await startMariadb();
    try {
      await restore({ siard: described }, server.url('described'), { target: { create: true } });
      const db = server.databaseName('described');
      const [table] = await server.sql<{ c: string }>(
        'described',
        "SELECT TABLE_COMMENT AS c FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'orders'",
        [db],
      );
      const [column] = await server.sql<{ c: string }>(
        'described',
        'SELECT COLUMN_COMMENT AS c FROM information_schema.COLUMNS ' +
          "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'orders' AND COLUMN_NAME = 'buyer'",
        [db],
      );
      t.deepEqual([table?.c, column?.c], [TABLE, COLUMN]);
      t.deepEqual(await exportedDescriptions(server.url('described'), 'from-mariadb'), want);
    } finally {
      await server.stop();
    }
  },
);

test('export and ingest --describe write the texts; ingest --describe refuses an unknown name (exit 2) and stores nothing', async (t) => {
  const given = { database: { description: 'Orders & buyers', archiver: 'A. Archivist' }, schemas: {} as Record<string, unknown> };
  const plain = await describeTemplate({ siard: path.join(work, 'plain', 'small.siard') });
  const schema = Object.keys(plain.schemas!)[0]!;
  given.schemas[schema] = { tables: { orders: { columns: { id: { description: 'The key <id>' } } } } };
  writeFileSync(path.join(work, 'given.json'), JSON.stringify(given));
  const exported = await runCli([
    'export',
    `sqlite:${path.join(work, 'small.db')}`,
    path.join(work, 'exported'),
    '--describe',
    path.join(work, 'given.json'),
  ]);
  t.is(exported.code, 0, exported.stderr);
  const read = await describeTemplate({ siard: path.join(work, 'exported', 'small.siard') });
  const orders = (read.schemas![schema]!['tables'] as Record<string, { columns: Record<string, { description: unknown }> }>)['orders']!;
  t.deepEqual(
    [read.database!.description, read.database!.archiver, orders.columns['id']!.description],
    ['Orders & buyers', 'A. Archivist', 'The key <id>'],
  );
  const root = path.join(work, 'root');
  await initRoot(root, await loadLayout0003());
  writeFileSync(path.join(work, 'unknown.json'), JSON.stringify({ schemas: { [schema]: { tables: { invoices: { description: 'x' } } } } }));
  const ingested = await runCli([
    'ingest',
    `sqlite:${path.join(work, 'small.db')}`,
    '--root',
    root,
    '--id',
    'urn:x',
    '--describe',
    path.join(work, 'unknown.json'),
  ]);
  t.is(ingested.code, 2, ingested.stderr);
  t.regex(ingested.stderr, /invoices/);
  t.deepEqual(
    readdirSync(root).filter(
      (n) => !n.startsWith('0=') && !n.startsWith('extensions') && n !== 'ocfl_layout.json' && !n.startsWith('ocfl_1'),
    ),
    [],
  );
  const good = await runCli([
    'ingest',
    `sqlite:${path.join(work, 'small.db')}`,
    '--root',
    root,
    '--id',
    'urn:x',
    '--describe',
    path.join(work, 'given.json'),
  ]);
  t.is(good.code, 0, good.stderr);
  t.deepEqual(await describeTemplate({ root, id: 'urn:x' }), read, 'ingest --describe of a database: the texts export --describe writes');
});
