/**
 * The one walk over an archive cell's ARRAY / UDT value that verify's compare form and the table
 * fingerprint's form share: lists up to the highest element (null for a missing one), objects of
 * the non-NULL attributes in attribute order, each leaf given its declared shape and its path.
 */
import test from 'ava';
import type { CellShape } from '../../../../src/siard/cell-shape.js';
import { complexTree } from '../../../../src/siard/reader/complex-tree.js';
import type { SiardReadCellValue, SiardReadComplexValue } from '../../../../src/siard/reader/types.js';

const INT: CellShape = { kind: 'scalar', type: 'INTEGER', family: 'integer' };
const TEXT: CellShape = { kind: 'scalar', type: 'VARCHAR(10)', family: 'char' };

function value(kind: 'array' | 'udt', entries: Array<[number, SiardReadCellValue]>): SiardReadComplexValue {
  return { kind, elements: new Map(entries) };
}

test('an ARRAY is a list to its highest element, a UDT an object of its non-NULL attributes in order', (t) => {
  const shape: CellShape = {
    kind: 'udt',
    schema: 's',
    name: 'pt',
    attributes: [
      { name: 'n', shape: INT },
      { name: 'tags', shape: { kind: 'array', cardinality: 4, element: TEXT } },
      { name: 'gone', shape: TEXT },
    ],
  };
  const cell = value('udt', [
    [
      2,
      value('array', [
        [3, 'c'],
        [1, 'a'],
      ]),
    ],
    [3, null],
    [1, '7'],
  ]);
  const leaves: Array<[unknown, string | undefined, string]> = [];
  const tree = complexTree(cell, shape, 'c4', (v, s, path) => {
    leaves.push([v, s?.kind === 'scalar' ? s.type : undefined, path]);
    return `<${String(v)}>`;
  });
  t.is(JSON.stringify(tree), '{"u1":"<7>","u2":["<a>",null,"<c>"]}');
  t.deepEqual(leaves.sort(), [
    ['7', 'INTEGER', 'c4/u1'],
    ['a', 'VARCHAR(10)', 'c4/u2/a1'],
    ['c', 'VARCHAR(10)', 'c4/u2/a3'],
  ]);
});

test('a shape that says nothing of a place gives its leaves no shape', (t) => {
  const shapes: Array<CellShape | undefined> = [];
  complexTree(value('array', [[1, value('udt', [[1, 'x']])]]), INT, 'c1', (_v, s) => shapes.push(s));
  t.deepEqual(shapes, [undefined]);
});
