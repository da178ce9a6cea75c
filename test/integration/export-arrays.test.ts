/**
 * ARRAY columns in the SIARD writer, without a database server: a source yielding array cells
 * (SourceArrayValue) is exported; metadata.xml (fields "col[i]", cardinality) and each tableN.xml
 * validate with xmllint against metadata.xsd and the generated tableN.xsd, and the reader gets
 * back every element at its index, a NULL element as a missing index, an empty array as an empty
 * cell. Values SIARD cannot hold (a trailing NULL element, more elements than the cardinality, a
 * wrong element type) stop the export naming table, row and column, leaving no output.
 */
import test from 'ava';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { exportToDirectory } from '../../src/siard/export-directory.js';
import type { SiardColumn } from '../../src/siard/model.js';
import { SiardReader } from '../../src/siard/reader/siard-reader.js';
import type { DatabaseSource, SourceValue } from '../../src/siard/database-source.js';
import { assertArchiveValid, unzipEntry } from '../helpers/export-support.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const METADATA_XSD = path.join(PROJECT_ROOT, 'resources', 'metadata.xsd');
const work = tempDir('siard-ocfl-export-arrays-');

function arraySource(columns: SiardColumn[], rows: SourceValue[][]): DatabaseSource {
  return {
    description: 'array source',
    async catalog() {
      return {
        schemas: [{ name: 'main', views: [], tables: [{ name: 'arr', rows: rows.length, foreignKeys: [], candidateKeys: [], columns }] }],
      };
    },
    async *rows(): AsyncIterable<SourceValue[]> {
      yield* rows;
    },
    async close() {},
  };
}

const array = (...elements: Array<string | number | bigint | boolean | Uint8Array | null>): SourceValue => ({ kind: 'array', elements });

const COLUMNS: SiardColumn[] = [
  { name: 'id', type: 'INTEGER', nullable: false },
  { name: 'ints', type: 'BIGINT', typeOriginal: 'bigint[]', cardinality: 3, nullable: false },
  { name: 'words', type: 'CLOB', typeOriginal: 'text[]', cardinality: 4, nullable: true },
  { name: 'bytes', type: 'BLOB', typeOriginal: 'bytea[]', cardinality: 2, nullable: true },
  { name: 'days', type: 'DATE', typeOriginal: 'date[]', cardinality: 2, nullable: true },
  { name: 'reals', type: 'DOUBLE PRECISION', typeOriginal: 'float8[]', cardinality: 3, nullable: true },
];

test('array cells validate against the generated XSD and read back element by element', async (t) => {
  const out = path.join(work, 'ok');
  const words = 'x'.repeat(5000); // far above the inline limit: array elements stay inline anyway
  await exportToDirectory(
    arraySource(COLUMNS, [
      [
        1n,
        array(1n, -9223372036854775808n, 3n),
        array('a  b', null, '', words),
        array(new Uint8Array([0, 255]), new Uint8Array()),
        array('2020-02-29'),
        array(1.5, -0, Infinity),
      ],
      [2n, array(), null, array(), null, array(Number.NaN)],
    ]),
    out,
    { name: 'arr', inlineMax: 100 },
  );
  const siard = path.join(out, 'arr.siard');
  assertArchiveValid(t, siard, METADATA_XSD);
  const metadata = unzipEntry(siard, 'header/metadata.xml').toString('utf8');
  t.regex(
    metadata,
    new RegExp(
      String.raw`<name>words<\/name>\s*<type>CLOB<\/type>\s*<typeOriginal>text\[\]<\/typeOriginal>\s*<fields>(\s*` +
        String.raw`<field>\s*<name>words\[\d\]<\/name>\s*<\/field>){4}\s*<\/fields>\s*<nullable>true<\/nullable>\s*` +
        String.raw`<cardinality>4<\/cardinality>`,
    ),
  );
  t.false(existsSync(path.join(out, 'arr_lobseg_0')), 'no LOB file: array elements are inline');

  const reader = await SiardReader.open(siard);
  try {
    const [ref] = reader.tables();
    const rows = [];
    for await (const row of reader.rows(ref!)) rows.push(row.cells);
    const elements = (v: unknown) => [...(v as { elements: Map<number, unknown> }).elements].sort((a, b) => a[0] - b[0]);
    t.deepEqual(elements(rows[0]![1]), [
      [1, '1'],
      [2, '-9223372036854775808'],
      [3, '3'],
    ]);
    t.deepEqual(
      elements(rows[0]![2]),
      [
        [1, 'a  b'],
        [3, ''],
        [4, words],
      ],
      'the NULL second element is absent',
    );
    t.deepEqual(elements(rows[0]![3]), [
      [1, '00ff'],
      [2, ''],
    ]);
    t.deepEqual(elements(rows[0]![4]), [[1, '2020-02-29Z']]);
    t.deepEqual(elements(rows[0]![5]), [
      [1, '1.5'],
      [2, '-0.0'],
      [3, 'INF'],
    ]);
    t.is(rows[1]![1], '', 'an empty array is an empty cell');
    t.is(rows[1]![2], null, 'a NULL array is an absent cell');
    t.deepEqual(elements(rows[1]![5]), [[1, 'NaN']]);
  } finally {
    reader.close();
  }
});

for (const [what, cell, message] of [
  ['a trailing NULL element', array(1n, null), /Table "arr", row 1, column "ints": the array ends with a NULL element/],
  [
    'more elements than the cardinality',
    array(1n, 2n, 3n, 4n),
    /Table "arr", row 1, column "ints": the array has 4 elements, more than the column's cardinality 3/,
  ],
  [
    'an element of the wrong type',
    array(1n, 'two'),
    /Table "arr", row 1, column "ints", element 2: a text value cannot be written as BIGINT/,
  ],
  ['a scalar in an array column', 5n, /Table "arr", row 1, column "ints": a bigint value cannot be written in an ARRAY column/],
] as const) {
  test(`${what} stops the export naming the cell, and nothing is left`, async (t) => {
    const out = path.join(work, what.replace(/\W+/g, '-'));
    const columns = COLUMNS.slice(0, 2);
    await t.throwsAsync(exportToDirectory(arraySource(columns, [[1n, cell]]), out, { name: 'arr' }), { message });
    t.false(existsSync(path.join(out, 'arr.siard')));
  });
}
