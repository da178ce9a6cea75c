/**
 * Access SQL rebuilt from MSysQueries rows laid out as Access writes them (one row per part, by
 * Attribute): joins, aliases, GROUP BY, HAVING, TOP and PERCENT, DISTINCT, descending order; which
 * output columns are table columns. The real database's queries are compared with mdb-queries in
 * test/integration/access-samples.test.ts.
 */
import test from 'ava';
import { columnReference, querySql, type QueryRow } from '../../../../src/sources/access/saved-queries.js';

const row = (Attribute: number, part: Partial<QueryRow> = {}): QueryRow => ({
  ObjectId: 7,
  Attribute,
  Name1: null,
  Name2: null,
  Expression: null,
  Flag: null,
  ...part,
});

test('a grouped join: tables with aliases, INNER and LEFT joins nested, GROUP BY, HAVING, ORDER BY with DESC, TOP n PERCENT', (t) => {
  const rows = [
    row(0, { Flag: 1 }),
    row(3, { Flag: 0x10 | 0x20, Name1: '10' }),
    row(5, { Name1: 'Orders', Name2: 'o' }),
    row(5, { Name1: 'Customers' }),
    row(5, { Name1: 'Order Lines', Name2: 'l' }),
    row(6, { Expression: '[Customers].[Name]' }),
    row(6, { Expression: 'Sum([l].[Amount])', Name1: 'Total' }),
    row(7, { Name1: 'o', Name2: 'Customers', Expression: '[o].[Customer]=[Customers].[ID]', Flag: 1 }),
    row(7, { Name1: 'o', Name2: 'l', Expression: '[o].[ID]=[l].[Order]', Flag: 2 }),
    row(8, { Expression: '[o].[Year]>2020' }),
    row(9, { Expression: '[Customers].[Name]' }),
    row(10, { Expression: 'Sum([l].[Amount])>100' }),
    row(11, { Expression: 'Sum([l].[Amount])', Name1: 'D' }),
    row(11, { Expression: '[Customers].[Name]' }),
    row(255),
  ];
  t.is(
    querySql(rows),
    'SELECT TOP 10 PERCENT [Customers].[Name], Sum([l].[Amount]) AS [Total] ' +
      'FROM ([Orders] AS [o] INNER JOIN [Customers] ON [o].[Customer]=[Customers].[ID]) ' +
      'LEFT JOIN [Order Lines] AS [l] ON [o].[ID]=[l].[Order] ' +
      'WHERE [o].[Year]>2020 GROUP BY [Customers].[Name] HAVING Sum([l].[Amount])>100 ORDER BY Sum([l].[Amount]) DESC, [Customers].[Name];',
  );
});

test('select flags: every column (*), DISTINCT, DISTINCTROW; tables without a join listed with commas', (t) => {
  const tables = [row(5, { Name1: 'A' }), row(5, { Name1: 'B' })];
  t.is(querySql([row(0, { Flag: 0 }), row(3, { Flag: 0x1 | 0x8 }), ...tables]), 'SELECT DISTINCTROW * FROM [A], [B];');
  t.is(querySql([row(3, { Flag: 0x2 }), row(5, { Name1: 'A' }), row(6, { Expression: '[A].x' })]), 'SELECT DISTINCT [A].x FROM [A];');
  t.throws(() => querySql([...tables, row(7, { Name1: 'A', Name2: 'B', Expression: 'A.x=B.x', Flag: 9 })]), {
    message: /a join Access wrote as 9/,
  });
});

test('an output column is a table column when it names one: [T].[C], [T].C, alias.C, or a bare column of the only table', (t) => {
  const one = [row(5, { Name1: 'Asset Items' })];
  const aliased = [row(5, { Name1: 'Orders', Name2: 'o' }), row(5, { Name1: 'Lines' })];
  t.deepEqual(columnReference('[Asset Items].[Asset No]', one), { table: 'Asset Items', column: 'Asset No' });
  t.deepEqual(columnReference('[Asset Items].Make', one), { table: 'Asset Items', column: 'Make' });
  t.deepEqual(columnReference('[Cost]', one), { table: 'Asset Items', column: 'Cost' });
  t.deepEqual(columnReference('o.Total', aliased), { table: 'Orders', column: 'Total' });
  t.is(columnReference('[Cost]', aliased), undefined, 'a bare name over two tables');
  t.is(columnReference('[Cost]/1.22', one), undefined);
  t.is(columnReference('Sum([Asset Items].[Cost])', one), undefined);
});
