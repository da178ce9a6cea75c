/** PostgreSQL: a server named by a postgres:// or postgresql:// URL. */
import { baseName, type Dialect } from '../dialect.js';
import { isPostgresUrl } from './url.js';

export const postgresDialect: Dialect = {
  name: 'postgres',
  product: 'PostgreSQL',
  forms: ['postgres://', 'postgresql://'],
  kind: 'database',
  server: true,
  accepts: isPostgresUrl,
  archiveName: baseName,
  async openSource(spec, o) {
    const { PostgresSource } = await import('./postgres-source.js');
    return PostgresSource.open(spec, o.tableFilter ? { tableFilter: o.tableFilter } : {});
  },
  async openLoader(spec, o) {
    const { PostgresLoader } = await import('./loader.js');
    return new PostgresLoader(spec, o);
  },
  typeMapping: () => import('./type-mapping.js'),
};
