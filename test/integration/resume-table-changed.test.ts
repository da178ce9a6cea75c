/**
 * Issue 38: an export stopped inside a keyed table (an I/O error injected just after its first cut
 * was journaled) is not continued when the key column's type changed before the next run (docs/resume.md,
 * src/siard/resume/table-shape.ts): the server would read the journaled key as the new type and
 * order the rows by it, and the rows before the cut were written as the old one. Each source
 * (PostgreSQL `ALTER COLUMN ... TYPE`, MariaDB `MODIFY COLUMN`, SQLite's table made again with the
 * new type, as SQLite changes a type) is refused in one sentence, exit 2, nothing published; with
 * `--restart` the export runs to its end and its out-dir is, byte for byte, a fresh export's. The
 * same for a PostgreSQL table read in the order of a unique key over a nullable column while it held
 * no NULL (unchanged, it resumes after the cut's key and equals a fresh export), and holding one at
 * the next run.
 */
import test, { type ExecutionContext } from 'ava';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import Database from '../../src/sources/sqlite/driver.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { pgTest, startPostgres } from '../helpers/postgres.js';
import { mariaTest, startMariadb } from '../helpers/mariadb.js';
import { sameTree, treeDigests } from '../faults/harness.js';

const base = tempDir('siard-ocfl-resume-changed-');

/** 10,000 rows of about 900 characters: one cut (every 8 MiB of XML) inside the table. */
const ROWS = 10_000;

/**
 * Stopped after the first cut, `change` run, then: refused with `sentence`; `--restart` gives what a
 * fresh export of the changed database gives.
 */
async function refusedThenRestarted(
  t: ExecutionContext,
  source: string,
  name: string,
  change: () => Promise<void>,
  sentence: RegExp,
): Promise<void> {
  const out = path.join(base, name);
  const args = (dir: string, extra: string[] = []) => ['export', source, dir, '--name', name, ...extra];
  const stopped = await runCli(args(out), { env: { SIARD_OCFL_FAILPOINT_ERROR: 'export-cut#1' } });
  t.is(stopped.code, 2, stopped.stderr);
  t.regex(stopped.stderr, /big up to its row of key \S+\): run the same export again to resume it\./);
  await change();
  const refused = await runCli(args(out));
  t.is(refused.code, 2, refused.stderr);
  t.regex(refused.stderr.trim(), sentence);
  t.is(refused.stderr.trim().split('\n').length, 1, refused.stderr);
  t.deepEqual(
    readdirSync(out).filter((n) => !n.startsWith('.')),
    [],
    'nothing published',
  );
  const restarted = await runCli(args(out, ['--restart']));
  t.is(restarted.code, 0, restarted.stderr);
  const fresh = await runCli(args(path.join(base, `${name}-fresh`)));
  t.is(fresh.code, 0, fresh.stderr);
  t.is(sameTree(treeDigests(path.join(base, `${name}-fresh`)), treeDigests(out)), undefined);
}

/** Stopped after the first cut, then run again unchanged: goes on after that cut's key, and equals a fresh export. */
async function stoppedThenResumed(t: ExecutionContext, source: string, name: string): Promise<void> {
  const out = path.join(base, `${name}-resumed`);
  const args = (dir: string) => ['export', source, dir, '--name', name];
  t.is((await runCli(args(out), { env: { SIARD_OCFL_FAILPOINT_ERROR: 'export-cut#1' } })).code, 2);
  const resumed = await runCli(args(out));
  t.is(resumed.code, 0, resumed.stderr);
  t.regex(resumed.stderr, /going on with \S+\.big after its row of key \d+ \([\d,]+ of its rows kept\)\./);
  const fresh = await runCli(args(path.join(base, `${name}-resumed-fresh`)));
  t.is(fresh.code, 0, fresh.stderr);
  t.is(sameTree(treeDigests(path.join(base, `${name}-resumed-fresh`)), treeDigests(out)), undefined);
}

/** "... when the interrupted export stopped inside it and is <now> now; run it again with --restart to start over." */
function typeChanged(table: string, was: string, now: string): RegExp {
  return new RegExp(
    `^siard-ocfl: Column k of table ${table} was ${was} when the interrupted export stopped inside it and is ${now} now; ` +
      'run it again with --restart to start over\\.$',
  );
}

pgTest('PostgreSQL: a key column whose type changed is refused in one sentence; --restart gives a fresh export', async (t) => {
  const server = await startPostgres();
  try {
    await server.createDatabase('changed');
    const query = async (sql: string) => {
      const client = new pg.Client({ connectionString: server.url('changed') });
      await client.connect();
      await client.query(sql).finally(() => client.end());
    };
    await query(`CREATE TABLE big (k integer PRIMARY KEY, note text);
                 INSERT INTO big SELECT i, repeat(md5(i::text), 28) FROM generate_series(1, ${ROWS}) i;`);
    const change = () => query('ALTER TABLE big ALTER COLUMN k TYPE text');
    await refusedThenRestarted(t, server.url('changed'), 'pgdb', change, typeChanged('public\\.big', 'integer NOT NULL', 'text NOT NULL'));
  } finally {
    await server.stop();
  }
});

pgTest(
  'PostgreSQL: a table keyed by a unique nullable column without NULLs resumes; holding a NULL now, it is refused in one sentence',
  async (t) => {
    const server = await startPostgres();
    try {
      await server.createDatabase('nulled');
      const query = async (sql: string) => {
        const client = new pg.Client({ connectionString: server.url('nulled') });
        await client.connect();
        await client.query(sql).finally(() => client.end());
      };
      // no primary key, no NOT NULL: read in the order of k while k holds no NULL (docs/resume.md)
      await query(`CREATE TABLE big (k integer UNIQUE, note text);
                 INSERT INTO big SELECT i, repeat(md5(i::text), 28) FROM generate_series(1, ${ROWS}) i;`);
      await stoppedThenResumed(t, server.url('nulled'), 'pgnull');
      const change = () => query("INSERT INTO big VALUES (NULL, 'a NULL in the key')");
      const sentence = new RegExp(
        '^siard-ocfl: The interrupted export stopped in table public\\.big after the key \\["\\d+"\\], and the table has ' +
          'no key to go on after now \\(a primary key, or a unique key whose columns hold no NULL\\): the table changed; ' +
          'run it again with --restart to start over\\.$',
      );
      await refusedThenRestarted(t, server.url('nulled'), 'pgnull', change, sentence);
    } finally {
      await server.stop();
    }
  },
);

mariaTest('MariaDB: a key column whose type changed is refused in one sentence; --restart gives a fresh export', async (t) => {
  const server = await startMariadb();
  try {
    await server.createDatabase('changed');
    server.client(
      'changed',
      [],
      `SET SESSION max_recursive_iterations = ${ROWS};
       CREATE TABLE big (k INT PRIMARY KEY, note TEXT);
       INSERT INTO big WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < ${ROWS})
         SELECT i, REPEAT(MD5(i), 28) FROM q;`,
    );
    const change = async () => void server.client('changed', [], 'ALTER TABLE big MODIFY COLUMN k VARCHAR(12)');
    const table = `${server.databaseName('changed')}\\.big`;
    await refusedThenRestarted(
      t,
      server.url('changed'),
      'mdb',
      change,
      typeChanged(table, 'int\\(11\\) NOT NULL', 'varchar\\(12\\) .*NOT NULL'),
    );
  } finally {
    await server.stop();
  }
});

test('SQLite: a key column whose type changed (its table made again) is refused in one sentence; --restart: a fresh export', async (t) => {
  const file = path.join(base, 'changed.sqlite');
  const db = new Database(file);
  db.exec('CREATE TABLE big (k INTEGER PRIMARY KEY, note TEXT) WITHOUT ROWID');
  const insert = db.prepare('INSERT INTO big VALUES (?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= ROWS; i++) insert.run(i, `row ${i} `.padEnd(896, 'abcdefgh'));
  })();
  db.close();
  const change = async () => {
    const again = new Database(file);
    again.exec(`CREATE TABLE big_new (k TEXT PRIMARY KEY, note TEXT) WITHOUT ROWID;
                INSERT INTO big_new SELECT k, note FROM big;
                DROP TABLE big;
                ALTER TABLE big_new RENAME TO big;`);
    again.close();
  };
  await refusedThenRestarted(t, `sqlite:${file}`, 'sqlitedb', change, typeChanged('main\\.big', 'INTEGER NOT NULL', 'TEXT NOT NULL'));
});
