/**
 * Issue 38: a resumed export goes on inside a PostgreSQL or MariaDB table after the key of its last
 * durable cut (docs/resume.md). Each row's key comes with its batch (KeyedBatch.rowKeys); its text
 * goes through the journal (a JSON line) and back to the source, opened again as a resuming run
 * opens it, which must then give exactly the rows the whole read gave after that row, with the
 * same keys. The keys are composite and of every kind that must survive JSON: bigint, numeric,
 * text (in the column's collation, accents and case mixed), bytes, dates and timestamps. A
 * PostgreSQL table without a primary key is read after its unique key over NOT NULL columns, and
 * a PostgreSQL or MariaDB table without either after a unique key whose columns hold no NULL (one
 * of one column, one of two); a table whose only unique key holds a NULL, or without any, gives no
 * keys and cannot be read after one (one sentence: the table changed).
 */
import pg from 'pg';
import type { ExecutionContext } from 'ava';
import type { DatabaseSource, KeyedBatch, SourceValue } from '../../src/siard/database-source.js';
import { PostgresSource } from '../../src/sources/postgres/postgres-source.js';
import { MysqlSource } from '../../src/sources/mysql/mysql-source.js';
import { pgTest, startPostgres } from '../helpers/postgres.js';
import { mariaTest, startMariadb } from '../helpers/mariadb.js';

interface Read {
  rows: SourceValue[][];
  keys: unknown[];
}

async function readAll(source: DatabaseSource, schema: string, table: string, after?: { key: string; rows: number }): Promise<Read> {
  const out: Read = { rows: [], keys: [] };
  for await (const batch of source.rowBatches!(schema, table, after) as AsyncIterable<KeyedBatch>) {
    out.rows.push(...batch);
    if (batch.rowKeys) out.keys.push(...batch.rowKeys.map(String));
  }
  return out;
}

/** Every cut position: the key's text through a journal line and back, then the rest read by a source opened again. */
async function goesOnAfterEachKey(
  t: ExecutionContext,
  open: () => Promise<DatabaseSource>,
  schema: string,
  table: string,
  keyColumns: number,
): Promise<void> {
  const first = await open();
  await first.catalog();
  const whole = await readAll(first, schema, table);
  await first.close();
  t.true(whole.rows.length > 30, `${table}: rows read`);
  t.is(whole.keys.length, whole.rows.length, `${table}: a key for every row`);
  for (const key of whole.keys) t.is((JSON.parse(key as string) as string[]).length, keyColumns);
  const again = await open();
  await again.catalog();
  try {
    for (let k = 0; k < whole.rows.length; k++) {
      const journaled = (JSON.parse(JSON.stringify({ batch: { key: whole.keys[k] } })) as { batch: { key: string } }).batch.key;
      const rest = await readAll(again, schema, table, { key: journaled, rows: k + 1 });
      t.deepEqual(rest.rows, whole.rows.slice(k + 1), `${table}: the rows after row ${k + 1} (${journaled})`);
      t.deepEqual(rest.keys, whole.keys.slice(k + 1), `${table}: their keys after row ${k + 1}`);
    }
  } finally {
    await again.close();
  }
}

pgTest('PostgreSQL: the rows after a journaled key are the rest of the whole read, whatever the key types', async (t) => {
  const server = await startPostgres();
  try {
    await server.createDatabase('after');
    const client = new pg.Client({ connectionString: server.url('after') });
    await client.connect();
    try {
      await client.query(`
        CREATE TABLE mixed (b bigint, n numeric(30, 10), s text, x bytea, d date, ts timestamptz, v varchar(30), note text,
                            PRIMARY KEY (b, n, s, x, d, ts));
        INSERT INTO mixed
          SELECT 9000000000000000000 - (i % 3), (i % 2) * 12345678901234567.0123456789,
                 (ARRAY['a', 'B', 'é', 'e', ' z', 'Z''q'])[1 + i % 6], decode(lpad(to_hex(i % 4), 4, '0'), 'hex'),
                 date '1999-12-31' + (i % 5), timestamptz '2024-02-29 23:59:59.123456+00' + i * interval '1 hour',
                 'v ' || i, repeat('n', i)
          FROM generate_series(1, 90) i;
        CREATE TABLE single (id bigint PRIMARY KEY, t text);
        INSERT INTO single SELECT i * 37 % 1000, 'r' || i FROM generate_series(1, 40) i;
        CREATE TABLE nokey (a int UNIQUE, t text);
        INSERT INTO nokey SELECT i, 't' || i FROM generate_series(1, 10) i;
        INSERT INTO nokey VALUES (NULL, 'null');
        CREATE TABLE nullfree (a int UNIQUE, t text);
        INSERT INTO nullfree SELECT i * 37 % 1000, 'r' || i FROM generate_series(1, 40) i;
        CREATE TABLE nullfree2 (b text, c int, t text, UNIQUE (b, c));
        INSERT INTO nullfree2 SELECT 'b' || (i % 5), i * 37 % 1000, 'r' || i FROM generate_series(1, 40) i;
        CREATE TABLE uniq (n int UNIQUE, u text NOT NULL, v date NOT NULL, note text, CONSTRAINT uniq_uv UNIQUE (u, v));
        INSERT INTO uniq SELECT i, 'u' || (i % 7), date '2024-01-01' + i, 'n' || i FROM generate_series(1, 50) i;
      `);
    } finally {
      await client.end();
    }
    const open = () => PostgresSource.open(server.url('after'), { fetchRows: 7 });
    await goesOnAfterEachKey(t, open, 'public', 'mixed', 6);
    await goesOnAfterEachKey(t, open, 'public', 'single', 1);
    // no primary key: the unique key over NOT NULL columns (u, v), not the nullable one (n)
    await goesOnAfterEachKey(t, open, 'public', 'uniq', 2);
    // no primary key, no unique key over NOT NULL columns: a unique key whose columns hold no NULL
    await goesOnAfterEachKey(t, open, 'public', 'nullfree', 1);
    await goesOnAfterEachKey(t, open, 'public', 'nullfree2', 2);
    const source = await open();
    try {
      await source.catalog();
      t.deepEqual((await readAll(source, 'public', 'nokey')).keys, [], 'a table whose only unique column holds a NULL gives no keys');
      await t.throwsAsync(readAll(source, 'public', 'nokey', { key: '["1"]', rows: 1 }), {
        message: /has no key to go on after now .*: the table changed; run it again with --restart/,
      });
      await t.throwsAsync(readAll(source, 'public', 'single', { key: '["1", "2"]', rows: 1 }), {
        message: /does not fit the table's key \(id\) now: the table changed; run it again with --restart/,
      });
    } finally {
      await source.close();
    }
  } finally {
    await server.stop();
  }
});

mariaTest('MariaDB: the rows after a journaled key are the rest of the whole read, whatever the key types', async (t) => {
  const server = await startMariadb();
  try {
    await server.createDatabase('after');
    server.client(
      'after',
      [],
      `CREATE TABLE mixed (b BIGINT, n DECIMAL(30, 10), s VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci,
                           x VARBINARY(4), d DATE, ts DATETIME(6), note TEXT, PRIMARY KEY (b, n, s, x, d, ts));
       INSERT INTO mixed
         WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 90)
         SELECT 9000000000000000000 - (i % 3), (i % 2) * 12345678901234567.0123456789, ELT(1 + i % 5, 'a', 'B', 'é', ' z', 'Y''q'),
                UNHEX(LPAD(HEX(i % 4), 4, '0')), DATE '1999-12-31' + INTERVAL (i % 5) DAY,
                TIMESTAMP '2024-02-29 23:59:59.123456' + INTERVAL i HOUR, REPEAT('n', i)
         FROM q;
       CREATE TABLE single (id BIGINT PRIMARY KEY, t TEXT);
       INSERT INTO single WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 40)
         SELECT i * 37 % 1000, CONCAT('r', i) FROM q;
       CREATE TABLE nokey (a INT, t TEXT);
       INSERT INTO nokey VALUES (1, 'a'), (2, 'b');
       CREATE TABLE withnull (a INT UNIQUE, t TEXT);
       INSERT INTO withnull VALUES (1, 'a'), (NULL, 'b'), (2, 'c');
       CREATE TABLE nullfree (a INT UNIQUE, t TEXT);
       INSERT INTO nullfree WITH RECURSIVE q(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM q WHERE i < 40)
         SELECT i * 37 % 1000, CONCAT('r', i) FROM q;`,
    );
    const db = server.databaseName('after');
    const open = () => MysqlSource.open(server.url('after'), { fetchRows: 7 });
    await goesOnAfterEachKey(t, open, db, 'mixed', 6);
    await goesOnAfterEachKey(t, open, db, 'single', 1);
    // no primary key, no unique key over NOT NULL columns: a unique key whose column holds no NULL
    await goesOnAfterEachKey(t, open, db, 'nullfree', 1);
    const source = await open();
    try {
      await source.catalog();
      t.deepEqual((await readAll(source, db, 'nokey')).keys, [], 'a table without a key gives no keys');
      t.deepEqual((await readAll(source, db, 'withnull')).keys, [], 'a table whose only unique column holds a NULL gives no keys');
      await t.throwsAsync(readAll(source, db, 'withnull', { key: '["1"]', rows: 1 }), {
        message: /has no key to go on after now .*: the table changed; run it again with --restart/,
      });
    } finally {
      await source.close();
    }
  } finally {
    await server.stop();
  }
});
