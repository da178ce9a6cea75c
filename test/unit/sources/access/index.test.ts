/** The Access dialect is chosen by extension or by access:, before SQLite (which takes any other path). */
import test from 'ava';
import { sourceDialect } from '../../../../src/sources/dialects.js';
import { accessDialect } from '../../../../src/sources/access/index.js';

test('.mdb, .accdb (any case) and access:<file> are Access; other paths stay SQLite', (t) => {
  t.deepEqual(
    ['a.mdb', 'dir/B.ACCDB', 'access:c.db', 'd.db', 'e', 'f.siard'].map((s) => sourceDialect(s).name),
    ['access', 'access', 'access', 'sqlite', 'sqlite', 'siard'],
  );
  t.is(accessDialect.archiveName('access:/x/Northwind 2.accdb'), 'Northwind 2');
});
