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

test('100 tables are drawn readable: tables without keys in a grid, no arrow of their own, text at its size', async (t) => {
  const name = (i: number) => `table_${String(i).padStart(3, '0')}`;
  // Every third table references one of the first fifteen; the other 66 stand alone.
  const tables = Array.from({ length: 100 }, (_, i) =>
    table(
      name(i),
      i * 13,
      i % 3 === 1 ? [{ name: `fk_${i}`, referencedSchema: 'main', referencedTable: name(Math.floor(i / 7)), references: [] }] : [],
    ),
  );
  const svg = await renderSvg(diagramDot({ ...archive, schemas: [{ ...archive.schemas[0]!, tables }] }));
  const [width, height] = /<svg width="(\d+)pt" height="(\d+)pt"/.exec(svg)!.slice(1).map(Number);
  // One rank of 66 tables alone was a column 30 times as tall as wide (148 x 5786 pt without keys at all).
  t.true(Math.max(width!, height!) / Math.min(width!, height!) < 2.5, `${width} x ${height} pt`);
  t.regex(svg, /<g id="graph0" class="graph" transform="scale\(1 1\) /);
  for (const [i, tbl] of tables.entries()) t.true(svg.includes(`>main.${tbl.name} (${i * 13} rows)</text>`), tbl.name);
  t.is([...svg.matchAll(/<g id="edge\d+" class="edge">/g)].length, 33, 'one arrow per foreign key');
});
