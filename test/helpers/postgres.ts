/**
 * PostgreSQL for tests: the throw-away server (postgres-server.ts, which benchmarks use too) and
 * pgTest, a test that needs one.
 */
import { postgresAvailable } from './postgres-server.js';
import { testIf } from './requires.js';

export * from './postgres-server.js';

/** A test that needs a PostgreSQL server (see requires.ts: skipped locally without one, failing under CI). */
export const pgTest = testIf(postgresAvailable(), 'PostgreSQL (initdb, pg_ctl) is not installed');
