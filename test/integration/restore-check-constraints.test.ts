/**
 * Check constraints from an archive, restored into PostgreSQL. The condition is SQL text from the
 * archive, so a restore must add what is plain and harmless, and turn the rest into warnings
 * without running it: several statements, a parenthesis closing the CHECK, comments, dollar
 * quotes, volatile functions (pg_sleep, set_config, lo_import ...). A condition the restored rows
 * violate, or one in another dialect, is a warning too; the rows are restored either way.
 */
import test from 'ava';
import path from 'node:path';
import pg from 'pg';
import { exportToDirectory } from '../../src/siard/export-directory.js';
import { parseSiardMetadata } from '../../src/siard/reader/metadata.js';
import type { SiardCheckConstraint } from '../../src/siard/model.js';
import type { DatabaseSource, SourceValue } from '../../src/siard/database-source.js';
import { conditionProblem } from '../../src/sources/postgres/check-constraint.js';
import { mysqlStatementProblem } from '../../src/sources/sql-text.js';
import { assertArchiveValid, unzipEntry } from '../helpers/export-support.js';
import { runCli } from '../helpers/cli.js';
import { pgTest, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const work = tempDir('siard-ocfl-checks-');
let server: PostgresServer | undefined;

test.after.always(async () => {
  await server?.stop();
});

async function sql<T extends pg.QueryResultRow = Record<string, unknown>>(db: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: server!.url(db) });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

const CHECKS: SiardCheckConstraint[] = [
  { name: 'positive', condition: '(n > 0)', description: 'kept' },
  { name: 'label_form', condition: "((label)::text ~ '^[a-z'')(;]+$'::text)" },
  { name: 'violated', condition: '(n > 100)' },
  { name: 'other_dialect', condition: 'n > 0 AND LENGTH(label) < 10 COLLATE NOCASE' },
  { name: 'two_statements', condition: 'true); CREATE TABLE pwned (x int); SELECT (1' },
  { name: 'breaks_out', condition: "true) NOT VALID, ADD CONSTRAINT evil CHECK (nextval('canary') > 0" },
  { name: 'sleeps', condition: 'pg_sleep(0) IS NOT NULL' },
  { name: 'counts', condition: "nextval('canary') > 0" },
  { name: 'commented', condition: 'n > 0 -- )' },
  { name: 'dollar', condition: '$$x$$ IS NOT NULL' },
];

function checksSource(): DatabaseSource {
  return {
    description: 'a source with hostile check constraints',
    async catalog() {
      return {
        schemas: [
          {
            name: 'public',
            views: [],
            tables: [
              {
                name: 'guarded',
                rows: 2,
                foreignKeys: [],
                candidateKeys: [],
                checkConstraints: CHECKS,
                columns: [
                  { name: 'n', type: 'INTEGER', nullable: false },
                  { name: 'label', type: 'VARCHAR(20)', nullable: true },
                ],
              },
            ],
          },
        ],
      };
    },
    async *rows(): AsyncIterable<SourceValue[]> {
      yield [1n, "it's"];
      yield [2n, null];
    },
    async close() {},
  };
}

test('a condition must be one expression: balanced parentheses outside quotes, no ";", comments or "$"', (t) => {
  t.is(conditionProblem("((label)::text ~ '^[a-z'')(;]+$'::text)"), undefined);
  t.is(conditionProblem(`("a)b" > 0)`), undefined);
  t.is(conditionProblem(`(x = E'\\')')`), undefined, "E-string: \\' does not end it");
  t.regex(conditionProblem(`(x = E'\\'))`) ?? '', /unterminated/, "E'\\'))' never ends");
  t.regex(conditionProblem(`x = 'a\\') OR (true`) ?? '', /closes a parenthesis/, 'a plain string ends at the quote after a backslash');
  t.regex(conditionProblem('true) OR (true') ?? '', /closes a parenthesis/);
  t.regex(conditionProblem('a > 0; DROP TABLE t') ?? '', /";"/);
  t.regex(conditionProblem('(a > 0') ?? '', /not balanced/);
  t.regex(conditionProblem("(a = 'x)") ?? '', /unterminated/);
  t.regex(conditionProblem('a > 0 /* ) */') ?? '', /comment/);
  t.regex(conditionProblem('$1 > 0') ?? '', /"\$"/);
});

test('a MariaDB condition or query must be one statement: backticks and backslash escapes skipped, "#" comments and ";" refused', (t) => {
  t.is(mysqlStatementProblem('(`a;b)` > 0)'), undefined, 'a backtick identifier may hold ";" and ")"');
  t.is(mysqlStatementProblem("(x = 'it\\'s; fine')"), undefined, "\\' does not end a MariaDB string");
  t.is(mysqlStatementProblem('(`a``b` = 1)'), undefined, 'a doubled backtick stays inside the identifier');
  t.is(mysqlStatementProblem('price > $1'), undefined, '"$" is an ordinary character in MariaDB');
  t.regex(mysqlStatementProblem('a > 0 # ) comment') ?? '', /comment/);
  t.regex(mysqlStatementProblem('a > 0 -- x') ?? '', /comment/);
  t.regex(mysqlStatementProblem('a > 0; DROP TABLE t') ?? '', /";"/);
  t.regex(mysqlStatementProblem('(`a > 0)') ?? '', /unterminated/);
  t.regex(mysqlStatementProblem('true) OR (true') ?? '', /closes a parenthesis/);
  t.is(conditionProblem('a > 0 # x'), undefined, '"#" is no comment in standard SQL');
});

pgTest('restore adds the plain check constraints, warns about the rest, and runs none of the hostile ones', async (t) => {
  server = await startPostgres();
  const out = path.join(work, 'checks');
  await exportToDirectory(checksSource(), out, { name: 'checks' });
  const siard = path.join(out, 'checks.siard');
  assertArchiveValid(t, siard, path.join(PROJECT_ROOT, 'resources', 'metadata.xsd'));
  const read = parseSiardMetadata(unzipEntry(siard, 'header/metadata.xml').toString('utf8'), 'checks metadata.xml');
  t.deepEqual(read.archive.schemas[0]!.tables[0]!.checkConstraints, CHECKS, 'the reader gets back what was written');

  await server.createDatabase('target');
  // A canary: any hostile condition that ran would have advanced it.
  await sql('target', 'CREATE SEQUENCE canary');
  const res = await runCli(['restore', siard, server.url('target'), '--json']);
  t.is(res.code, 0, res.stderr);
  const warnings = (JSON.parse(res.stdout) as { warnings: string[] }).warnings;
  const warned = (name: string) => warnings.find((w) => w.startsWith(`Check constraint ${name} of `)) ?? '';
  t.regex(warned('violated'), /was not added: .*violated/);
  t.regex(warned('other_dialect'), /was not added/);
  t.regex(warned('two_statements'), /not one SQL expression \(it closes a parenthesis it did not open\)/);
  t.regex(warned('breaks_out'), /not one SQL expression/);
  t.regex(warned('sleeps'), /calls volatile functions \(pg_sleep\(double precision\)\)/);
  t.regex(warned('counts'), /calls volatile functions \(nextval\(regclass\)\)/);
  t.regex(warned('commented'), /comment/);
  t.regex(warned('dollar'), /"\$"/);
  t.is(warnings.length, 8, warnings.join('\n'));

  const added = await sql<{ name: string; valid: boolean }>(
    'target',
    `SELECT conname AS name, convalidated AS valid FROM pg_constraint WHERE conrelid = 'public.guarded'::regclass AND contype = ` +
      `'c' ORDER BY 1`,
  );
  t.deepEqual(added, [
    { name: 'label_form', valid: true },
    { name: 'positive', valid: true },
  ]);
  t.deepEqual(await sql('target', `SELECT n, label FROM public.guarded ORDER BY n`), [
    { n: 1, label: "it's" },
    { n: 2, label: null },
  ]);
  t.deepEqual(await sql('target', `SELECT 1 FROM pg_tables WHERE tablename = 'pwned'`), []);
  t.deepEqual(await sql('target', `SELECT is_called FROM canary`), [{ is_called: false }], 'no condition was evaluated');
  await t.throwsAsync(sql('target', `INSERT INTO public.guarded VALUES (-1, 'x')`), { message: /positive/ });
});
