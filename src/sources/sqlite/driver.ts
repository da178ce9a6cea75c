/**
 * better-sqlite3 for the running Node. From Node 22 on: 13.x (Node-API; prebuilt binaries in its npm
 * package), installed as the optional `better-sqlite3-13`, because 12.x aborts a Node 24 process when
 * a statement is collected. On Node 20: 12.x, because 13.x crashes there. One API, so callers see no
 * difference; drop 12.x with Node 20.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);

function load(): { module: typeof BetterSqlite3; path: string } {
  if (Number(process.versions.node.split('.')[0]) >= 22) {
    try {
      return { module: require('better-sqlite3-13') as typeof BetterSqlite3, path: require.resolve('better-sqlite3-13') };
    } catch (err) {
      // Not installed (an install made under Node 20 skips it): 12.x, which works on Node 22.
      if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    }
  }
  return { module: require('better-sqlite3') as typeof BetterSqlite3, path: require.resolve('better-sqlite3') };
}

const loaded = load();
// Typed as the package itself (constructor and its Database type), so callers' types are unchanged.
const Database: typeof BetterSqlite3 = loaded.module;
export default Database;
/** The file of the package loaded, for worker threads that open the database themselves. */
export const driverPath = loaded.path;
