import pg from 'pg';
import { pgTest, startPrivatePostgres } from '../helpers/postgres.js';

// .ci/run installs the server when missing, so in CI this always runs.

pgTest(
  'a private PostgreSQL server (the one a test file or a benchmark starts alone) starts on 127.0.0.1, answers and stops',
  async (t) => {
    const server = await startPrivatePostgres();
    try {
      await server.createDatabase('harness');
      const client = new pg.Client({ connectionString: server.url('harness') });
      await client.connect();
      const { rows } = await client.query(
        "select current_database() as db, inet_server_addr()::text as addr, current_setting('TimeZone') as tz",
      );
      await client.end();
      t.deepEqual(rows[0], { db: 'harness', addr: '127.0.0.1/32', tz: 'UTC' });
    } finally {
      await server.stop();
    }
    const after = new pg.Client({ connectionString: server.url('harness'), connectionTimeoutMillis: 2000 });
    await t.throwsAsync(() => after.connect());
  },
);
