/** SQLite, the embedded default: a file path, `sqlite:<file>` or any path that names no other dialect. */
import { isSiardFileName } from '../../siard/siard-file-name.js';
import { baseName, type Dialect } from '../dialect.js';

const PREFIX = 'sqlite:';
const fileOf = (spec: string) => (spec.startsWith(PREFIX) ? spec.slice(PREFIX.length) : spec);

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  product: 'SQLite',
  forms: ['sqlite:<file>', 'a .db/.sqlite/.sqlite3 file'],
  kind: 'database',
  server: false,
  accepts: (spec) => spec.startsWith(PREFIX) || (!/^[a-z][a-z0-9+.-]+:\/\//i.test(spec) && !isSiardFileName(spec)),
  archiveName: (spec) => baseName(fileOf(spec)),
  async openSource(spec, o) {
    const { SqliteSource } = await import('./sqlite-source.js');
    // The sources opened here feed the SIARD writer, which takes back a provisional table (SourceTable.provisional).
    return SqliteSource.open(fileOf(spec), {
      ...(o.tableFilter ? { tableFilter: o.tableFilter } : {}),
      ...(o.strict ? { strict: true } : { provisionalTypes: true }),
    });
  },
  async openLoader(spec) {
    const { SqliteLoader } = await import('./loader.js');
    return new SqliteLoader(fileOf(spec));
  },
  typeMapping: () => import('./type-mapping.js'),
};
