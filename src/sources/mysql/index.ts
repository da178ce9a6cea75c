/** MariaDB and MySQL: a server named by a mysql:// or mariadb:// URL (one driver, `mariadb`, for both). */
import { baseName, type Dialect } from '../dialect.js';
import { isMysqlUrl } from './url.js';

export const mysqlDialect: Dialect = {
  name: 'mysql',
  product: 'MariaDB/MySQL',
  forms: ['mysql://', 'mariadb://'],
  kind: 'database',
  server: true,
  accepts: isMysqlUrl,
  archiveName: baseName,
  async openSource(spec, o) {
    const { MysqlSource } = await import('./mysql-source.js');
    return MysqlSource.open(spec, o.tableFilter ? { tableFilter: o.tableFilter } : {});
  },
  async openLoader(spec, o) {
    const { MysqlLoader } = await import('./loader.js');
    return new MysqlLoader(spec, o);
  },
  typeMapping: () => import('./type-mapping.js'),
};
