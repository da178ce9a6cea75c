/**
 * Issue 38: an export from PostgreSQL or MariaDB goes on inside the table in progress after its last
 * durable cut, where the table has a key (docs/resume.md). Each server holds a database whose
 * `big` table dominates: 36,000 rows of about 900 characters of XML (three cuts, one every 8 MiB),
 * a composite primary key (an integer that repeats, then a text: the key order is not the insert
 * order) and a 4,800-byte BLOB in a file every 150th row, beside small tables with a key and one
 * without. `export` is SIGKILLed at the run's second cut (inside `big`) and at a random moment after
 * a cut of `big`, then run again: its line says it goes on inside `big` after the key of the
 * journal's last cut, and the out-dir holds, byte for byte, what an uninterrupted export made. An
 * `ingest` from PostgreSQL killed at its second cut, and one from MariaDB killed at its second cut
 * and at a random moment after a cut of `big`, end with the uninterrupted ingest's object.
 */
import test from 'ava';
import type { ExecutionContext } from 'ava';
import path from 'node:path';
import pg from 'pg';
import { tempDir } from '../helpers/tmp.js';
import { pgTest, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { mariaTest, startMariadb, type MariadbServer } from '../helpers/mariadb.js';
import { faultSeed, prng, runCliToEnd, treeDigests } from './harness.js';
import { ingestKilledAndResumedInside, killedAndResumedInside } from './within-table.js';

const SEED = faultSeed();
console.log(`[faults] resume within a table of a server: FAULT_SEED=${SEED}`);
const base = tempDir('siard-ocfl-resume-within-servers-');

/** Killed at the second cut, then at a random moment after a cut of `big`: both resumed inside it, equal to the uninterrupted export. */
async function exportKilledInsideBig(t: ExecutionContext, url: string, name: string, big: string, seed: number): Promise<void> {
  const args = (out: string) => ['export', url, out, '--name', name];
  const refDir = path.join(base, `${name}-ref`);
  const ref = await runCliToEnd(args(refDir));
  t.is(ref.code, 0, ref.stderr);
  const refTree = treeDigests(refDir);
  const rand = prng(SEED ^ seed);
  for (const [i, plan] of [{ cut: 2 }, { table: big, thenMs: rand() * 300 }].entries()) {
    const out = path.join(base, `${name}-run-${i}`);
    t.is(await killedAndResumedInside(t, args(out), out, plan, refTree), big, `${JSON.stringify(plan)}: resumed inside ${big}`);
  }
}

let pgServer: PostgresServer | undefined;
let mariaServer: MariadbServer | undefined;
test.after.always(async () => {
  await pgServer?.stop();
  await mariaServer?.stop();
});

pgTest(
  'PostgreSQL: an export or ingest killed inside a keyed table goes on after its last cut, equal to the uninterrupted one',
  async (t) => {
    pgServer = await startPostgres();
    await pgServer.createDatabase('source');
    const client = new pg.Client({ connectionString: pgServer.url('source') });
    await client.connect();
    try {
      await client.query(`
      CREATE TABLE head (id integer PRIMARY KEY, t text);
      INSERT INTO head SELECT i, repeat('h', i) FROM generate_series(1, 100) i;
      CREATE TABLE big (g integer, s text, n numeric(12, 2), d date, note text, doc bytea, PRIMARY KEY (g, s));
      INSERT INTO big
        SELECT i % 97, 'key ' || i, i * 1.25, date '2020-01-01' + i % 1000, repeat(md5(i::text), 25),
               CASE WHEN i % 150 = 0 THEN decode(repeat(md5(i::text), 150), 'hex') END
        FROM generate_series(1, 36000) i;
      CREATE TABLE nokey (a integer, t text);
      INSERT INTO nokey SELECT i, 'n' || i FROM generate_series(1, 300) i;
    `);
    } finally {
      await client.end();
    }
    const url = pgServer.url('source');
    await exportKilledInsideBig(t, url, 'pgdb', 'public.big', 0x9e);
    await ingestKilledAndResumedInside(t, url, path.join(base, 'pg-ingest'), 'public.big');
  },
);

mariaTest(
  'MariaDB: an export or ingest killed inside a keyed table goes on after its last cut, equal to the uninterrupted one',
  async (t) => {
    mariaServer = await startMariadb();
    await mariaServer.createDatabase('source');
    mariaServer.client(
      'source',
      [],
      `SET SESSION max_recursive_iterations = 100000;
     CREATE TABLE head (id INT PRIMARY KEY, t TEXT);
     INSERT INTO head WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 100) SELECT i, REPEAT('h', i) FROM q;
     CREATE TABLE big (g INT, s VARCHAR(20), n DECIMAL(12, 2), d DATE, note TEXT, doc LONGBLOB, PRIMARY KEY (g, s));
     INSERT INTO big WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 36000)
       SELECT i % 97, CONCAT('key ', i), i * 1.25, DATE '2020-01-01' + INTERVAL (i % 1000) DAY, REPEAT(MD5(i), 25),
              IF(i % 150 = 0, UNHEX(REPEAT(MD5(i), 150)), NULL)
       FROM q;
     CREATE TABLE nokey (a INT, t TEXT);
     INSERT INTO nokey WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 300) SELECT i, CONCAT('n', i) FROM q;`,
    );
    const big = `${mariaServer.databaseName('source')}.big`;
    await exportKilledInsideBig(t, mariaServer.url('source'), 'mdb', big, 0x3d);
    const plans = [{ cut: 2 }, { table: big, thenMs: prng(SEED ^ 0x5a)() * 300 }];
    await ingestKilledAndResumedInside(t, mariaServer.url('source'), path.join(base, 'maria-ingest'), big, [], plans);
  },
);
