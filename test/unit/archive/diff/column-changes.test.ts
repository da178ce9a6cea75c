/**
 * How a table's columns changed between two versions, and how its rows pair: by name; the primary
 * key only when both versions declare the same one; rows projected on the columns both have.
 */
import test from 'ava';
import { columnChanges, projectRows, rowPairing } from '../../../../src/archive/diff/column-changes.js';
import type { SiardColumn, SiardTable } from '../../../../src/siard/model.js';

function table(columns: Array<[string, string]>, key?: string[]): SiardTable {
  return {
    name: 't',
    folder: 'table1',
    columns: columns.map(([name, type]): SiardColumn => ({ name, type })),
    ...(key ? { primaryKey: { name: 'pk', columns: key } } : {}),
    foreignKeys: [],
    candidateKeys: [],
    rows: 0,
  } as SiardTable;
}

test('columns added, removed and retyped, by name', (t) => {
  const a = table([
    ['id', 'INTEGER'],
    ['name', 'VARCHAR(20)'],
    ['old', 'DATE'],
  ]);
  const b = table([
    ['id', 'BIGINT'],
    ['name', 'VARCHAR(20)'],
    ['colour', 'VARCHAR(10)'],
  ]);
  t.deepEqual(columnChanges(a, b), { added: ['colour'], removed: ['old'], retyped: [{ column: 'id', from: 'INTEGER', to: 'BIGINT' }] });
  t.deepEqual(columnChanges(a, a), { added: [], removed: [], retyped: [] });
});

test('rows pair on the shared columns, by the key both versions declare', (t) => {
  const a = table(
    [
      ['id', 'INTEGER'],
      ['old', 'DATE'],
      ['name', 'VARCHAR(20)'],
    ],
    ['id'],
  );
  const b = table(
    [
      ['name', 'VARCHAR(20)'],
      ['id', 'INTEGER'],
      ['colour', 'TEXT'],
    ],
    ['id'],
  );
  const p = rowPairing(a, b);
  t.deepEqual(p.columns, ['id', 'name']);
  t.deepEqual(p.at, [
    [0, 2],
    [1, 0],
  ]);
  t.deepEqual(p.key, [0]);
  t.deepEqual(projectRows([['n1', '7', 'red']], p.at[1], 3), [['7', 'n1']]);
  const same = [['1', '2']];
  t.is(projectRows(same, [0, 1], 2), same, 'all columns in order: the rows as they are');
  t.is(rowPairing(a, table([['id', 'INTEGER']], ['id', 'name'])).key, undefined, 'another key: whole rows');
  t.is(rowPairing(a, table([['id', 'INTEGER']])).key, undefined, 'no key in one version: whole rows');
  t.deepEqual(rowPairing(undefined, b).columns, ['name', 'id', 'colour'], 'a table only one version has: its own columns');
});
