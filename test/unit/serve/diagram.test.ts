/**
 * The tables diagram: DOT made from the archive model (names quoted and escaped, one box per table,
 * one arrow per foreign key), drawn by Graphviz (WebAssembly, in this process) into SVG where
 * hostile names stay text.
 */
import test from 'ava';
import type { SiardArchive, SiardTable } from '../../../src/siard/model.js';
import { diagramDot, dotString, renderSvg } from '../../../src/serve/diagram.js';

function table(name: string, rows: number, foreignKeys: SiardTable['foreignKeys'] = []): SiardTable {
  return { name, folder: '', columns: [], foreignKeys, candidateKeys: [], rows };
}

const HOSTILE = 'x"];evil->a[label="<script>alert(1)</script>\\';

const archive = {
  version: '2.2',
  dbname: 'db',
  dataOwner: 'o',
  dataOriginTimespan: 't',
  archivalDate: '2026-01-01Z',
  messageDigests: [],
  users: [],
  schemas: [
    {
      name: 'main',
      folder: 'schema0',
      views: [],
      tables: [
        table('Orders', 40, [{ name: 'fk_customer', referencedSchema: 'main', referencedTable: 'Customers', references: [] }]),
        table('Customers', 7),
        table(HOSTILE, 1, [{ name: 'fk "odd"', referencedSchema: 'main', referencedTable: 'Orders', references: [] }]),
      ],
    },
  ],
} as unknown as SiardArchive;

test('DOT strings escape quotes and backslashes and fold line breaks', (t) => {
  t.is(dotString('a"b\\c\nd'), '"a\\"b\\\\c d"');
});

test('one box per table with its rows, one arrow per foreign key', (t) => {
  const dot = diagramDot(archive);
  t.regex(dot, /"main\.Orders" \[label="main\.Orders \(40 rows\)"\];/);
  t.regex(dot, /"main\.Orders" -> "main\.Customers" \[label="fk_customer"\];/);
  t.is(dot.match(/ -> /g)?.length, 2);
  // The hostile name is one quoted string: no statement of its own.
  t.false(dot.includes('evil->a'.replace('->', ' -> ')));
});

test('Graphviz draws it as SVG; a hostile name is text, not markup', async (t) => {
  const svg = await renderSvg(diagramDot(archive));
  t.regex(svg, /^<\?xml/);
  t.true(svg.includes('main.Customers (7 rows)'));
  t.false(svg.includes('<script'));
  t.true(svg.includes('&lt;script&gt;'));
});
