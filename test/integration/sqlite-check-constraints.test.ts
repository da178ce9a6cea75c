/**
 * CHECK constraints of an SQLite source: read from the CREATE TABLE text (column and table
 * constraints, named or not, never from strings, quoted names or comments), written to
 * metadata.xml (valid against metadata.xsd), read back by the reader, and restored into
 * PostgreSQL where PostgreSQL understands the condition (a warning where it does not).
 */
import test from 'ava';
import Database from '../../src/sources/sqlite/driver.js';
import path from 'node:path';
import pg from 'pg';
import { parseSiardMetadata } from '../../src/siard/reader/metadata.js';
import { sqliteCheckConstraints } from '../../src/sources/sqlite/check-constraints.js';
import { assertArchiveValid, unzipEntry } from '../helpers/export-support.js';
import { runCli } from '../helpers/cli.js';
import { pgTest, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const work = tempDir('siard-ocfl-sqlite-checks-');
let server: PostgresServer | undefined;

test.after.always(async () => {
  await server?.stop();
});

const CREATE = `CREATE TABLE "t(" (
  id INTEGER PRIMARY KEY CHECK (id > 0), -- CHECK (not this one)
  "check" TEXT DEFAULT 'CHECK (nor this)' CHECK("check" <> ')'),
  [a)] REAL CONSTRAINT [pos it] CHECK ([a)] >= 0 AND (id < 10)),
  check_flag INT /* CHECK (x) */,
  CONSTRAINT "two" CHECK (length("check") < 5 OR id IN (1, 2)),
  CHECK (check_flag IN (0,1)),
  CONSTRAINT glob_only CHECK ("check" GLOB '[a-z]*')
)`;

test('CHECK constraints are found in the CREATE TABLE text, named or numbered in order', (t) => {
  t.deepEqual(sqliteCheckConstraints('t(', CREATE), [
    { name: 'ck_t(_1', condition: 'id > 0' },
    { name: 'ck_t(_2', condition: `"check" <> ')'` },
    { name: 'pos it', condition: '[a)] >= 0 AND (id < 10)' },
    { name: 'two', condition: 'length("check") < 5 OR id IN (1, 2)' },
    { name: 'ck_t(_3', condition: 'check_flag IN (0,1)' },
    { name: 'glob_only', condition: `"check" GLOB '[a-z]*'` },
  ]);
  t.deepEqual(sqliteCheckConstraints('plain', 'CREATE TABLE plain (check_me INT, "CHECK" INT)'), []);
});

function sqliteSource(name: string): string {
  const file = path.join(work, `${name}.db`);
  const db = new Database(file);
  db.exec(
    `CREATE TABLE guarded (id INTEGER PRIMARY KEY, qty INT CHECK (qty >= 0), code TEXT, CONSTRAINT code_form CHECK (code GLOB ` +
      `'[A-Z]*'), CONSTRAINT short CHECK (length(code) <= 4))`,
  );
  db.exec(`INSERT INTO guarded VALUES (1, 5, 'AB'), (2, 0, NULL)`);
  db.close();
  return file;
}

test('an SQLite export carries the checks in metadata.xml, valid against metadata.xsd, and the reader reads them back', async (t) => {
  const out = path.join(work, 'export');
  const res = await runCli(['export', `sqlite:${sqliteSource('export')}`, out, '--name', 'checks']);
  t.is(res.code, 0, res.stderr);
  const siard = path.join(out, 'checks.siard');
  assertArchiveValid(t, siard, path.join(PROJECT_ROOT, 'resources', 'metadata.xsd'));
  const read = parseSiardMetadata(unzipEntry(siard, 'header/metadata.xml').toString('utf8'), 'metadata.xml');
  t.deepEqual(read.archive.schemas[0]!.tables[0]!.checkConstraints, [
    { name: 'ck_guarded_1', condition: 'qty >= 0' },
    { name: 'code_form', condition: `code GLOB '[A-Z]*'` },
    { name: 'short', condition: 'length(code) <= 4' },
  ]);
});

pgTest('restored into PostgreSQL, the checks PostgreSQL understands are enforced; GLOB becomes a warning', async (t) => {
  const out = path.join(work, 'to-pg');
  t.is((await runCli(['export', `sqlite:${sqliteSource('to-pg')}`, out, '--name', 'checks'])).code, 0);
  server = await startPostgres();
  await server.createDatabase('target');
  const res = await runCli(['restore', path.join(out, 'checks.siard'), server.url('target'), '--json']);
  t.is(res.code, 0, res.stderr);
  const warnings = (JSON.parse(res.stdout) as { warnings: string[] }).warnings;
  t.is(warnings.length, 1, warnings.join('\n'));
  t.regex(warnings[0]!, /^Check constraint code_form of "main"\."guarded" was not added: .*GLOB/);
  const client = new pg.Client({ connectionString: server.url('target') });
  await client.connect();
  try {
    const names = await client.query<{ n: string }>(
      `SELECT conname AS n FROM pg_constraint WHERE conrelid = 'main.guarded'::regclass AND contype = 'c' ORDER BY 1`,
    );
    t.deepEqual(
      names.rows.map((r) => r.n),
      ['ck_guarded_1', 'short'],
    );
    await t.throwsAsync(client.query(`INSERT INTO main.guarded VALUES (3, -1, 'X')`), { message: /ck_guarded_1/ });
  } finally {
    await client.end();
  }
});
