/** Microsoft Access: a .mdb or .accdb file, or `access:<file>`; read by mdb-reader (pure JavaScript), never written. */
import { baseName, type Dialect } from '../dialect.js';

const PREFIX = 'access:';
const EXTENSION = /\.(mdb|accdb)$/i;
const fileOf = (spec: string) => (spec.startsWith(PREFIX) ? spec.slice(PREFIX.length) : spec);

export const accessDialect: Dialect = {
  name: 'access',
  product: 'Microsoft Access',
  forms: ['access:<file>', 'a .mdb/.accdb file'],
  kind: 'database',
  server: false,
  accepts: (spec) => spec.startsWith(PREFIX) || (EXTENSION.test(spec) && !/^[a-z][a-z0-9+.-]+:\/\//i.test(spec)),
  archiveName: (spec) => baseName(fileOf(spec).replace(EXTENSION, '')),
  async openSource(spec, o) {
    const { AccessSource } = await import('./access-source.js');
    return AccessSource.open(fileOf(spec), {
      ...(o.tableFilter ? { tableFilter: o.tableFilter } : {}),
      ...(o.password !== undefined ? { password: o.password } : {}),
    });
  },
  typeMapping: () => import('./type-mapping.js'),
};
