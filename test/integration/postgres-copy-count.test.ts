/**
 * A restore into PostgreSQL checks each table's row count against the rows the server says it
 * stored (the "COPY n" and "INSERT 0 n" command tags), not a count(*) after loading: the count
 * must come from the server, not from the writer's own tally.
 */
import pg from 'pg';
import { CopyIn } from '../../src/sources/postgres/copy-in.js';
import { pgTest, startPostgres } from '../helpers/postgres.js';

pgTest('CopyIn.end gives the rows the server stored, whatever the writer counted', async (t) => {
  const server = await startPostgres();
  try {
    await server.createDatabase('copycount');
    const client = new pg.Client({ connectionString: server.url('copycount') });
    await client.connect();
    try {
      await client.query('CREATE TABLE t (a int, b text)');
      const copy = new CopyIn(client, 't');
      await copy.write(['1', 'x']);
      await copy.writeBytes(Buffer.from('2\ty\n3\tz\n'), 1); // two lines, counted as one by the caller
      t.is(copy.rows, 2);
      t.is(await copy.end(), 3);
      const { rows } = await client.query<{ n: string }>('SELECT count(*)::text AS n FROM t');
      t.is(rows[0]!.n, '3');
    } finally {
      await client.end();
    }
  } finally {
    await server.stop();
  }
});
