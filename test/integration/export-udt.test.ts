/**
 * Columns of user-defined types in the SIARD writer, without a database: a source declaring a
 * DISTINCT type and structured types (one nested in another, an ARRAY attribute of an Oracle-sized
 * cardinality, CLOB and BLOB attributes) yields UDT values (SourceUdtValue). The export
 * - validates with xmllint: metadata.xml (its `<types>` with `<attributes>`, the columns' generated
 *   `<fields>`) against the official metadata.xsd, each tableN.xml against its generated XSD, which
 *   declares the long ARRAY only as far as the data uses it;
 * - reads back with the SIARD reader value by value: every attribute at its uI, NULL attributes
 *   absent, an empty UDT value as an empty cell, array elements at their aI, a LOB attribute above
 *   --inline-max as a file under its element path whose bytes and digest are the value's.
 * A value that does not fit its type (more attributes than the type has) stops the export naming
 * table, row, column and element.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { exportToDirectory } from '../../src/siard/export-directory.js';
import type { SiardColumn, SiardType } from '../../src/siard/model.js';
import { SiardReader } from '../../src/siard/reader/siard-reader.js';
import { isComplexValue, type SiardReadCellValue, type SiardReadComplexValue } from '../../src/siard/reader/types.js';
import type { DatabaseSource, SourceValue } from '../../src/siard/database-source.js';
import { assertArchiveValid, unzipEntry } from '../helpers/export-support.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const METADATA_XSD = path.join(PROJECT_ROOT, 'resources', 'metadata.xsd');
const work = tempDir('siard-ocfl-export-udt-');

const TYPES: SiardType[] = [
  { name: 'MONEY', category: 'distinct', instantiable: false, final: true, base: 'DECIMAL(10, 2)' },
  {
    name: 'POINT',
    category: 'udt',
    instantiable: true,
    final: false,
    attributes: [
      { name: 'X', type: 'DECIMAL' },
      { name: 'Y', type: 'DECIMAL' },
    ],
  },
  {
    name: 'SHAPE',
    category: 'udt',
    instantiable: true,
    final: false,
    description: 'a shape',
    attributes: [
      { name: 'SRID', type: 'INTEGER' },
      { name: 'CENTER', typeSchema: 'geo', typeName: 'POINT' },
      { name: 'ORDINATES', type: 'DECIMAL', cardinality: 1048576 },
      { name: 'LABEL', type: 'CLOB' },
      { name: 'PICTURE', type: 'BLOB' },
    ],
  },
];

const COLUMNS: SiardColumn[] = [
  { name: 'id', type: 'INTEGER', nullable: false },
  { name: 'price', typeSchema: 'geo', typeName: 'MONEY', baseType: 'DECIMAL(10, 2)' },
  { name: 'shape', typeSchema: 'geo', typeName: 'SHAPE' },
];

function udtSource(rows: SourceValue[][]): DatabaseSource {
  return {
    description: 'udt source',
    async catalog() {
      return {
        schemas: [
          {
            name: 'geo',
            types: TYPES,
            views: [],
            tables: [{ name: 'shapes', rows: rows.length, foreignKeys: [], candidateKeys: [], columns: COLUMNS }],
          },
        ],
      };
    },
    async *rows(): AsyncIterable<SourceValue[]> {
      yield* rows;
    },
    async close() {},
  };
}

const udt = (...elements: SourceValue[]): SourceValue => ({ kind: 'udt', elements });
const picture = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 251));
const longLabel = 'Grüße <&> '.repeat(40);

function complex(v: SiardReadCellValue): SiardReadComplexValue {
  if (!isComplexValue(v)) throw new Error(`not a complex value: ${JSON.stringify(v)}`);
  return v;
}

test(
  'UDT cells: types and fields in metadata.xml, nested XSD, values read back element by element, LOB attributes in files ' +
    'under their path',
  async (t) => {
    const out = path.join(work, 'ok');
    await exportToDirectory(
      udtSource([
        [1n, '12.50', udt(4326n, udt('1.5', '-2'), { kind: 'array', elements: ['1', '2', '3'] }, 'short label', picture)],
        [2n, null, udt(null, udt(null, '7'), null, longLabel)],
        [3n, '0.00', udt()],
        [4n, null, null],
      ]),
      out,
      { name: 'geo', inlineMax: 100 },
    );
    const siard = path.join(out, 'geo.siard');
    assertArchiveValid(t, siard, METADATA_XSD);

    const metadata = unzipEntry(siard, 'header/metadata.xml').toString('utf8');
    t.regex(
      metadata,
      /<name>SHAPE<\/name>\s*<category>udt<\/category>\s*<instantiable>true<\/instantiable>\s*<final>false<\/final>\s*<attributes>/,
    );
    t.regex(
      metadata,
      /<attribute>\s*<name>ORDINATES<\/name>\s*<type>DECIMAL<\/type>\s*<cardinality>1048576<\/cardinality>\s*<\/attribute>/,
    );
    t.regex(
      metadata,
      new RegExp(
        String.raw`<name>shape<\/name>\s*<lobFolder>\.\/<\/lobFolder>\s*<typeSchema>geo<\/typeSchema>\s*<typeName>` +
          String.raw`SHAPE<\/typeName>\s*<fields>\s*<field>\s*<name>SRID<\/name>\s*<\/field>\s*<field>\s*<name>` +
          String.raw`CENTER<\/name>\s*<fields>\s*<field>\s*<name>X<\/name>`,
      ),
    );
    const xsd = unzipEntry(siard, 'content/schema0/table0/table0.xsd').toString('utf8');
    // ORDINATES: the three elements the data uses, not 1,048,576.
    t.regex(
      xsd,
      new RegExp(
        String.raw`<xs:element name="u3" minOccurs="0">\s*<xs:complexType>\s*<xs:sequence>\s*<xs:element name="a1" ` +
          String.raw`type="xs:decimal" minOccurs="0"\/>\s*<xs:element name="a2" type="xs:decimal" minOccurs="0"\/>\s*` +
          String.raw`<xs:element name="a3" type="xs:decimal" minOccurs="0"\/>\s*<\/xs:sequence>`,
      ),
    );
    t.false(xsd.includes('name="a4"'));
    t.regex(xsd, /<xs:element name="u5" type="blobType" minOccurs="0"\/>/);

    const reader = await SiardReader.open(siard);
    try {
      const [table] = reader.tables();
      const rows = [];
      for await (const row of reader.rows(table!)) rows.push(row);
      t.is(rows.length, 4);
      // row 1: every attribute; the BLOB above --inline-max in a file under lob3/u5
      const s1 = complex(rows[0]!.cells[2]!);
      t.is(s1.kind, 'udt');
      t.is(s1.elements.get(1), '4326');
      t.deepEqual(
        [...complex(s1.elements.get(2)!).elements],
        [
          [1, '1.5'],
          [2, '-2'],
        ],
      );
      const ords = complex(s1.elements.get(3)!);
      t.is(ords.kind, 'array');
      t.deepEqual(
        [...ords.elements],
        [
          [1, '1'],
          [2, '2'],
          [3, '3'],
        ],
      );
      t.is(s1.elements.get(4), 'short label');
      const ref = s1.elements.get(5) as { file: string; length: number; digestType: string; digest: string };
      t.is(ref.file, 'geo_lobseg_0/content/schema0/table0/lob3/u5/record0.bin');
      t.is(ref.length, picture.length);
      t.is(ref.digest, createHash('sha256').update(picture).digest('hex'));
      t.deepEqual(readFileSync(path.join(out, ref.file)), picture);
      t.is(rows[0]!.cells[1], '12.50');
      // row 2: NULL attributes absent; the long CLOB in a file under lob3/u4
      const s2 = complex(rows[1]!.cells[2]!);
      t.deepEqual([...s2.elements.keys()], [2, 4]);
      t.deepEqual([...complex(s2.elements.get(2)!).elements], [[2, '7']]);
      const label = s2.elements.get(4) as { file: string; length: number };
      t.is(label.file, 'geo_lobseg_0/content/schema0/table0/lob3/u4/record1.txt');
      t.is(readFileSync(path.join(out, label.file), 'utf8'), longLabel);
      t.is(label.length, [...longLabel].length, 'CLOB length in characters');
      t.is(rows[1]!.cells[1], null);
      // row 3: a UDT value with every attribute NULL is an empty cell; row 4: NULL
      t.is(rows[2]!.cells[2], '');
      t.is(rows[3]!.cells[2], null);
    } finally {
      reader.close();
    }
  },
);

test('a UDT value with more attributes than its type stops the export naming table, row, column and type, leaving no output', async (t) => {
  const out = path.join(work, 'too-many');
  const err = await t.throwsAsync(exportToDirectory(udtSource([[1n, null, udt(1n, udt('1', '2', '3'))]]), out, { name: 'geo' }));
  t.is(err?.message, 'Table "shapes", row 1, column "shape", element u2: the value has 3 attributes, more than the 2 of geo.POINT.');
  t.false(existsSync(out));
});
