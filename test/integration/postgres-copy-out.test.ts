/**
 * The PostgreSQL source reads a table's rows through `COPY (query) TO STDOUT` (copy-out.ts): every
 * value must come back exactly as it was stored, whatever COPY's text format escapes on the way
 * (back-slash, tab, newline, carriage return, backspace, form feed, vertical tab, `\N` for NULL),
 * and a UTF-8 character split between two of the stream's chunks must come whole. The values
 * are compared with those inserted (parameters of an INSERT). A read stopped before the end (an
 * export failing inside a table) cancels the COPY and the source closes. Values about the inline
 * threshold, in UTF-8 bytes: up to it with their row, beyond it read later by their row's locator.
 */
import test from 'ava';
import pg from 'pg';
import { isSourceArray, isSourceLob, type KeyedBatch, type SourceValue } from '../../src/siard/database-source.js';
import { PostgresSource } from '../../src/sources/postgres/postgres-source.js';
import { pgTest, postgresAvailable, startPostgres, type PostgresServer } from '../helpers/postgres.js';

const available = postgresAvailable() || Boolean(process.env.CI);
let server: PostgresServer | undefined;

const controls = Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join('');
/** Text values, each stored in a row of its own; the long one spans several of the stream's chunks, with characters of 2, 3 and 4 bytes. */
const TEXTS: Array<string | null> = [
  'plain',
  '',
  null,
  'tab\there',
  'line\nfeed',
  'carriage\rreturn\r\n',
  'back\\slash',
  '\\N',
  '\\\\N',
  'N\\',
  '\b\f\v',
  controls,
  '\\t is not a tab',
  'é日本🎉 <&> "quoted"',
  'é日🎉x\t\\'.repeat(12_000),
];
/** Primary keys a resumed read must give the server as literals. */
const QUOTED_KEYS = ["a'b", "a'b\\c", '\\', "'", 'z'];
const BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
/**
 * Values about the inline threshold of 100 bytes (UTF-8 bytes, not characters): up to it inline,
 * beyond it a LOB read later in slices, through its row's locator; 26-100 bytes get a locator that
 * is not used (the locator's test on a server not in UTF-8 is a quarter of the threshold).
 */
const SIZED: Array<[string | null, Buffer | null]> = [
  ['é'.repeat(50), Buffer.alloc(100, 7)],
  ['é'.repeat(50) + 'x', Buffer.alloc(101, 8)],
  ['x'.repeat(30), null],
  ['🎉'.repeat(26), Buffer.alloc(25, 9)],
  [null, Buffer.alloc(3000, 10)],
];
const ARRAY = ['a\\b', 'tab\there', 'quote"s', null, '', 'new\nline', '\\N'];

async function sql(db: string, text: string, values: unknown[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: server!.url(db) });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

test.before(async () => {
  if (!available) return;
  server = await startPostgres();
  await server.createDatabase('copyout');
  await sql('copyout', 'CREATE TABLE t (id int PRIMARY KEY, txt text, vc varchar(200), b bytea, a text[])');
  for (let i = 0; i < TEXTS.length; i++) {
    const short = TEXTS[i] !== null && TEXTS[i]!.length <= 200 ? TEXTS[i] : 'short';
    await sql('copyout', 'INSERT INTO t VALUES ($1, $2, $3, $4, $5)', [i, TEXTS[i], short, i === 0 ? BYTES : null, i === 0 ? ARRAY : null]);
  }
  await sql('copyout', 'CREATE TABLE quoted (k text PRIMARY KEY, v int)');
  for (const [k, v] of QUOTED_KEYS.map((k, i) => [k, i] as const)) await sql('copyout', 'INSERT INTO quoted VALUES ($1, $2)', [k, v]);
  await sql('copyout', 'CREATE TABLE sized (id int PRIMARY KEY, txt text, b bytea)');
  for (const [i, [txt, b]] of SIZED.entries()) await sql('copyout', 'INSERT INTO sized VALUES ($1, $2, $3)', [i, txt, b]);
  await sql('copyout', 'CREATE TABLE big (id int PRIMARY KEY, txt text)');
  await sql('copyout', "INSERT INTO big SELECT g, repeat('x', 100) || g FROM generate_series(1, 20000) g");
});

test.after.always(async () => {
  await server?.stop();
});

async function readAll(source: PostgresSource, table: string): Promise<SourceValue[][]> {
  const rows: SourceValue[][] = [];
  for await (const batch of source.rowBatches!('public', table)) rows.push(...batch);
  return rows;
}

pgTest('every value comes back exactly as stored, whatever COPY escapes on the way', async (t) => {
  const source = await PostgresSource.open(server!.url('copyout'), { tableFilter: (n) => n === 't' });
  try {
    await source.catalog();
    const rows = await readAll(source, 't');
    t.is(rows.length, TEXTS.length);
    rows.forEach((row, i) => {
      t.is(row[0], String(i));
      const txt = row[1]!;
      t.false(isSourceLob(txt), `row ${i}: inline`);
      t.is(txt, TEXTS[i], `row ${i}: text`);
      t.is(row[2], TEXTS[i] !== null && TEXTS[i]!.length <= 200 ? TEXTS[i] : 'short', `row ${i}: varchar`);
    });
    t.deepEqual(Buffer.from(rows[0]![3] as Uint8Array), BYTES);
    const array = rows[0]![4]!;
    t.true(isSourceArray(array));
    t.deepEqual(isSourceArray(array) ? array.elements : undefined, ARRAY);
    t.is(rows[1]![3], null);
  } finally {
    await source.close();
  }
});

pgTest(
  'a read after a key with quotes and back-slashes (a resumed export; the COPY has it as a literal) gives the rows after it',
  async (t) => {
    const source = await PostgresSource.open(server!.url('copyout'), { tableFilter: (n) => n === 'quoted' });
    try {
      await source.catalog();
      const whole: SourceValue[][] = [];
      const keys: string[] = [];
      for await (const batch of source.rowBatches!('public', 'quoted') as AsyncIterable<KeyedBatch>) {
        whole.push(...batch);
        keys.push(...(batch.rowKeys ?? []).map(String));
      }
      t.deepEqual(whole.map((r) => r[0]).sort(), [...QUOTED_KEYS].sort());
      for (let i = 0; i < keys.length; i++) {
        const after: SourceValue[][] = [];
        for await (const batch of source.rowBatches!('public', 'quoted', { key: keys[i]!, rows: i + 1 })) after.push(...batch);
        t.deepEqual(after, whole.slice(i + 1), `after row ${i + 1}`);
      }
    } finally {
      await source.close();
    }
  },
);

pgTest('values up to the inline threshold in UTF-8 bytes come with their row, larger ones are read by their row', async (t) => {
  const source = await PostgresSource.open(server!.url('copyout'), {
    tableFilter: (n) => n === 'sized',
    inlineThreshold: 100,
    sliceBytes: 64,
  });
  try {
    await source.catalog();
    const rows = await readAll(source, 'sized');
    t.is(rows.length, SIZED.length);
    for (const [i, row] of rows.entries()) {
      const [txt, b] = SIZED[i]!;
      for (const [value, expected] of [
        [row[1]!, txt === null ? null : Buffer.from(txt, 'utf8')],
        [row[2]!, b],
      ] as const) {
        if (expected === null) {
          t.is(value, null, `row ${i}`);
          continue;
        }
        t.is(isSourceLob(value), expected.length > 100, `row ${i}: inline up to 100 bytes`);
        const bytes = isSourceLob(value) ? await lobBytes(value.open()) : Buffer.from(value as string | Uint8Array);
        t.true(bytes.equals(expected), `row ${i}: the value`);
      }
    }
  } finally {
    await source.close();
  }
});

async function lobBytes(chunks: AsyncIterable<Uint8Array | string>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of chunks) parts.push(typeof c === 'string' ? Buffer.from(c, 'utf8') : Buffer.from(c));
  return Buffer.concat(parts);
}

pgTest('a read stopped inside a table cancels the COPY, and the source closes', async (t) => {
  const source = await PostgresSource.open(server!.url('copyout'), { tableFilter: (n) => n === 'big', fetchRows: 100 });
  let first: SourceValue[][] | undefined;
  try {
    await source.catalog();
    for await (const batch of source.rowBatches!('public', 'big')) {
      first = batch;
      break;
    }
  } finally {
    await source.close();
  }
  t.is(first?.length, 100);
  t.deepEqual(first?.[99], ['100', 'x'.repeat(100) + '100']);
});
