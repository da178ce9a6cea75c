/**
 * MariaDB for tests: the throw-away server (mariadb-server.ts, which benchmarks and the test runner
 * use too) and mariaTest, a test that needs one.
 */
import { mariadbAvailable } from './mariadb-server.js';
import { testIf } from './requires.js';

export * from './mariadb-server.js';

/** A test that needs a MariaDB server (see requires.ts: skipped locally without one, failing under CI). */
export const mariaTest = testIf(mariadbAvailable(), 'MariaDB (mariadbd, mariadb-install-db, mariadb) is not installed');
