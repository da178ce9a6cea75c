/**
 * Issue 16: restore into PostgreSQL turns table XML bytes into COPY text bytes in one pass
 * (src/sources/postgres/table-xml-copy.ts over src/siard/reader/table-cells-bytes.ts). It must change
 * nothing: the COPY bytes PostgresLoader.insertTableXml sends equal those insertRows sends for the
 * rows the usual reader gives (table-rows.ts -> copyFieldOfText -> CopyIn), for a column of every
 * type family the loader maps, values that need escaping on either side (tab, newline, back-slash,
 * `\N`-like text, entities, character references, SIARD `\u00XX` escapes of control characters,
 * non-ASCII, characters above U+FFFF), cut into chunks at many boundaries; and where the byte path
 * gives up (comments, CDATA, CR, LOB references, broken XML) the rows go the usual way from there,
 * with the same bytes or the same error. A fake client captures the COPY stream; the real server
 * round trips are roundtrip-postgres.test.ts and postgres-values.test.ts.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import type pg from 'pg';
import type { SiardColumn } from '../../src/siard/model.js';
import { columnTypeFamily, MAX_TEXT_RUN, readTableRowBatches } from '../../src/siard/reader/table-rows.js';
import { cellType } from '../../src/siard/model.js';
import type { LoadTable, LoadValue } from '../../src/sources/loader.js';
import { PostgresLoader } from '../../src/sources/postgres/loader.js';
import { TableXmlCopy } from '../../src/sources/postgres/table-xml-copy.js';
import { sharedTest } from '../helpers/shared.js';
import { pgTest, queryRows, startPostgres } from '../helpers/postgres.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { sampleTables } from '../helpers/sample-tables.js';

/** A column of every family the loader maps (and one without a type family: text). */
const COLUMNS: SiardColumn[] = [
  { name: 'i', type: 'BIGINT' },
  { name: 'd', type: 'DECIMAL(20,6)' },
  { name: 'f', type: 'DOUBLE PRECISION' },
  { name: 'b', type: 'BOOLEAN' },
  { name: 'v', type: 'VARCHAR(200)' },
  { name: 'cl', type: 'CLOB' },
  { name: 'bi', type: 'VARBINARY(20)' },
  { name: 'bl', type: 'BLOB' },
  { name: 'dt', type: 'DATE' },
  { name: 'tm', type: 'TIME WITH TIME ZONE' },
  { name: 'ts', type: 'TIMESTAMP' },
  { name: 'iv', type: 'INTERVAL DAY TO SECOND' },
  { name: 'x', type: 'XML' },
  { name: 'dl', type: 'DATALINK' },
  { name: 'u', typeName: 'some_udt' },
];

/** Cell texts as they stand in table XML, per column; undefined = absent cell (NULL). */
const VALUES: Array<Array<string | undefined>> = [
  ['0', '-42', '9223372036854775807', '-9223372036854775808', undefined],
  ['0.5', '-12345.678900', '1e3', undefined],
  ['INF', '-INF', 'NaN', '1.5E-7', '-0.0', '&#73;NF', 'INFINITY', '-IN', undefined],
  ['true', 'false', undefined],
  TEXTS(),
  TEXTS(),
  ['00ff', 'DEADbeef', '', ' 0a0b\n', '\t00\t', undefined],
  ['0123456789abcdefABCDEF', '', undefined],
  ['2024-01-02', '0001-01-01', undefined],
  ['12:34:56.5Z', '00:00:00+05:30', undefined],
  ['2024-01-02T03:04:05.123456', '2024-02-29T00:00:00', undefined],
  ['P1Y2M', '-P3DT1S', '-P1Y2M3DT4H5M6.5S', 'PT0S', '&#45;P1D', '', undefined],
  ['&lt;a b=&quot;1&quot;&gt;x&lt;/a&gt;', '&lt;?xml version="1.0"?&gt;&lt;r/&gt;', '\\u005cN', undefined],
  ['http://example.org/a?b=1&amp;c=2', undefined],
  ['{"a":1,"b":"\\u005c"}', 'plain', undefined],
];

/** Text values: everything COPY, XML or SIARD escapes, as a SIARD writer (or an older one) puts them. */
function TEXTS(): Array<string | undefined> {
  return [
    'plain ascii',
    '',
    'tab\there',
    'new\nline',
    '\n',
    'back\\u005cslash',
    '\\u005cN',
    '\\N', // a bare back-slash from an older producer, kept as it is
    'a\\b\\',
    '\\u0001\\u0008\\u000b\\u001f\\u007f\\u0085\\u009f',
    'runs\\u0020\\u0020of spaces',
    '\\u000d carriage return, escaped',
    '&lt;&gt;&amp;&quot;&apos;x&amp;amp;',
    '&#9;&#xA;&#92;&#x5C;u0041&#65;&#x42;',
    'caf\u00e9 \u65e5\u672c \u00ff\u0100',
    'astral \u{1F600} \u{10FFFF} &#x1F600;&#128512;',
    'quotes " \' and > alone',
    'ends with backslash \\u005c',
    'x'.repeat(300) + '\t' + 'y'.repeat(100),
    'z'.repeat(200),
    undefined,
  ];
}

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<table xmlns="http://www.bar.admin.ch/xmlns/siard/2/table.xsd" version="2.2">\n';

/** Rows combining the values (each column cycles through its own list), in a few shapes of markup. */
function tableXml(rows: number): string {
  let xml = HEAD;
  for (let r = 0; r < rows; r++) {
    const cells: string[] = [];
    COLUMNS.forEach((_, c) => {
      const list = VALUES[c]!;
      const v = list[(r + c) % list.length];
      if (v === undefined) return;
      const name = `c${c + 1}`;
      cells.push(v === '' && r % 2 === 0 ? `<${name}/>` : `<${name}>${v}</${name}>`);
    });
    if (r % 5 === 1) cells.reverse(); // cells out of order
    xml += r % 3 === 0 ? `  <row>${cells.join('')}</row>\n` : `<row>\n\t${cells.join('\n ')}\n</row>`;
  }
  return xml + '</table>\n';
}

function chunked(bytes: Buffer, size: number): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  return Readable.from(parts);
}

const loadTable = (columns: SiardColumn[]): LoadTable => ({
  schema: 's',
  name: 't',
  columns: columns.map((column) => ({ column, family: columnTypeFamily(cellType(column)), array: false })),
  candidateKeys: [],
  foreignKeys: [],
  checkConstraints: [],
  triggers: [],
});

/** A loader whose client takes COPY streams into `copied` (no other query is expected). */
function capturingLoader(copied: Buffer[]): PostgresLoader {
  const loader = new PostgresLoader('postgres://x@127.0.0.1/db');
  const client = {
    query(): Writable {
      return new Writable({
        highWaterMark: 1024,
        write(chunk: Buffer, _enc, done) {
          copied.push(Buffer.from(chunk));
          setImmediate(done); // let backpressure happen
        },
      });
    },
  } as unknown as pg.Client;
  (loader as unknown as { client: pg.Client }).client = client;
  return loader;
}

/** The rows the usual reader gives after `skip`, as restore hands plain rows to the loader. */
async function* readerRows(xml: () => Readable, columns: SiardColumn[], skip = 0): AsyncGenerator<LoadValue[][]> {
  for await (const batch of readTableRowBatches(xml(), { what: 't', columns, reopen: async () => xml() })) {
    const rows = batch.filter((r) => r.index > skip).map((r) => r.cells as LoadValue[]);
    if (rows.length > 0) yield rows;
  }
}

interface Outcome {
  copy: string;
  rows?: number;
  error?: string;
  /** the row count after which the byte path gave up (undefined: it did not) */
  gaveUpAfter?: number;
}

async function usualPath(xml: () => Readable, columns: SiardColumn[]): Promise<Outcome> {
  const copied: Buffer[] = [];
  const loader = capturingLoader(copied);
  try {
    const rows = await loader.insertRows(loadTable(columns), readerRows(xml, columns));
    return { copy: Buffer.concat(copied).toString('latin1'), rows };
  } catch (err) {
    return { copy: '', error: (err as Error).message };
  }
}

async function bytePath(xml: () => Readable, columns: SiardColumn[]): Promise<Outcome> {
  const copied: Buffer[] = [];
  const loader = capturingLoader(copied);
  let gaveUpAfter: number | undefined;
  try {
    const rows = await loader.insertTableXml(loadTable(columns), {
      open: async () => xml(),
      rest: (skip) => {
        gaveUpAfter = skip;
        return readerRows(xml, columns, skip);
      },
    });
    return { copy: Buffer.concat(copied).toString('latin1'), rows, ...(gaveUpAfter !== undefined ? { gaveUpAfter } : {}) };
  } catch (err) {
    return { copy: '', error: (err as Error).message, ...(gaveUpAfter !== undefined ? { gaveUpAfter } : {}) };
  }
}

const SIZES = [1, 2, 3, 5, 7, 13, 64, 1000, 4096, 1 << 20];

test('every column type, every escape: the same COPY bytes at every chunk size, without giving up', async (t) => {
  const bytes = Buffer.from(tableXml(120), 'utf8');
  const expected = await usualPath(() => chunked(bytes, 1 << 20), COLUMNS);
  t.is(expected.rows, 120);
  t.is(expected.error, undefined);
  // the values that need work reach the COPY text as PostgreSQL reads them
  for (const field of [
    'tab\\there',
    'new\\nline',
    'back\\\\slash',
    '\\\\N',
    'a\\\\b\\\\',
    'Infinity',
    '-Infinity',
    'P-3DT-1S',
    '\\\\xdeadbeef',
  ]) {
    t.true(expected.copy.includes(field), field);
  }
  t.true(expected.copy.includes(Buffer.from('astral \u{1F600} \u{10FFFF} \u{1F600}\u{1F600}').toString('latin1')));
  for (const size of SIZES) {
    const got = await bytePath(() => chunked(bytes, size), COLUMNS);
    t.is(got.gaveUpAfter, undefined, `chunks of ${size}: gave up`);
    t.is(got.rows, expected.rows);
    t.is(got.copy, expected.copy, `chunks of ${size} bytes`);
  }
});

test('a BOM, no XML declaration, whitespace everywhere, many chunk boundaries inside multi-byte characters', async (t) => {
  const columns = COLUMNS.slice(4, 5);
  const xml = '\ufeff<table>\n \t<row> <c1>\u00e9\u65e5\u{1F600}&amp;\t</c1> </row>\n<row/><row></row><row><c1/></row>\n</table>\n\n';
  // <row/> is not in the fast subset: the usual way from there
  const bytes = Buffer.from(xml, 'utf8');
  const expected = await usualPath(() => chunked(bytes, 1 << 20), columns);
  for (let size = 1; size <= bytes.length; size++) {
    const got = await bytePath(() => chunked(bytes, size), columns);
    t.is(got.copy, expected.copy, `chunks of ${size} bytes`);
    t.is(got.rows, expected.rows);
  }
  const clean = Buffer.from(xml.replace('<row/>', ''), 'utf8');
  const cleanExpected = await usualPath(() => chunked(clean, 1 << 20), columns);
  t.is(cleanExpected.copy, Buffer.from('\u00e9\u65e5\u{1F600}&\\t\n\\N\n\n').toString('latin1'));
  for (let size = 1; size <= clean.length; size++) {
    const got = await bytePath(() => chunked(clean, size), columns);
    t.is(got.gaveUpAfter, undefined, `chunks of ${size}`);
    t.is(got.copy, cleanExpected.copy, `chunks of ${size} bytes`);
  }
});

const body = '<row><c1>1</c1><c2>a</c2></row>'.repeat(40);
const TWO: SiardColumn[] = [
  { name: 'a', type: 'INTEGER' },
  { name: 'b', type: 'VARCHAR(10)' },
];
/** Documents the byte path leaves (from some row on) to the usual reader: the same bytes, or the same error. */
const OUTSIDE: Record<string, string> = {
  'a comment': HEAD + body + '<!-- c --><row><c1>2</c1></row></table>',
  CDATA: HEAD + body + '<row><c2><![CDATA[<x>]]></c2></row></table>',
  'a carriage return': HEAD + body + '<row><c2>a\r\nb</c2></row></table>',
  'an attribute (a LOB reference)': HEAD + body + '<row><c2 file="x.txt" length="1"/></row></table>',
  'a nested element': HEAD + body + '<row><c2><a1>x</a1></c2></row></table>',
  'a prefixed root': '<t:table xmlns:t="u">' + body + '</t:table>',
  'an unknown entity': HEAD + body + '<row><c2>&nbsp;</c2></row></table>',
  'a forbidden reference': HEAD + body + '<row><c2>&#1;</c2></row></table>',
  'a forbidden character': HEAD + body + '<row><c2>\u0001</c2></row></table>',
  'U+FFFE': HEAD + body + '<row><c2>\ufffe</c2></row></table>',
  'bad hex': HEAD + body + '<row><c2>0g</c2></row></table>',
  'a lone ampersand': HEAD + body + '<row><c2>a & b</c2></row></table>',
  'a column too many': HEAD + body + '<row><c3>1</c3></row></table>',
  'mismatched tags': HEAD + body + '<row><c1>1</c2></row></table>',
  'cut short': HEAD + body + '<row><c1>2',
  'text after the root': HEAD + body + '</table>junk',
  ']]> in text': HEAD + body + '<row><c2>a]]>b</c2></row></table>',
  'a near miss of an entity': HEAD + body + '<row><c2>&ampx;</c2></row></table>',
  empty: '',
  'a DOCTYPE': '<!DOCTYPE table><table>' + body + '</table>',
};

for (const [name, xml] of Object.entries(OUTSIDE)) {
  test(`outside the byte path, the same outcome: ${name}`, async (t) => {
    const columns = name === 'bad hex' ? [TWO[0]!, { name: 'b', type: 'VARBINARY(10)' }] : TWO;
    const bytes = Buffer.from(xml, 'utf8');
    for (const size of [1, 7, 64, 1 << 20]) {
      // (saxes's positions and row numbers in messages depend on where chunks end)
      const expected = await usualPath(() => chunked(bytes, size), columns);
      const got = await bytePath(() => chunked(bytes, size), columns);
      if (expected.error !== undefined) t.is(got.error, expected.error, `chunks of ${size}`);
      else {
        t.is(got.copy, expected.copy, `chunks of ${size}`);
        t.is(got.rows, expected.rows);
      }
      t.not(got.gaveUpAfter, undefined, 'the usual reader had the rest');
    }
  });
}

test('bytes that are not UTF-8: the usual reader names the problem', async (t) => {
  const bytes = Buffer.concat([Buffer.from(HEAD + body + '<row><c2>'), Buffer.from([0xc3, 0x28]), Buffer.from('</c2></row></table>')]);
  const expected = await usualPath(() => chunked(bytes, 100), TWO);
  t.regex(expected.error ?? '', /not valid UTF-8/);
  const got = await bytePath(() => chunked(bytes, 100), TWO);
  t.is(got.error, expected.error);
});

test('the converter alone: rows counted per chunk, finish only after </table>', (t) => {
  const converter = new TableXmlCopy([undefined, 'integer'], MAX_TEXT_RUN);
  const first = converter.feed(Buffer.from('<table><row><c2>1</c2><c1>a\tb</c1></row><row><c1>'));
  t.is(first?.rows, 1);
  t.is(first?.copy.toString(), 'a\\tb\t1\n');
  t.false(converter.finish());
  const second = converter.feed(Buffer.from('&quot;x&apos;</c1></row></table> \n'));
  t.is(second?.copy.toString(), '"x\'\t\\N\n');
  t.true(converter.finish());
});

sharedTest('every table of the reference archives without LOB files: the same COPY bytes either way', async (t) => {
  let tables = 0;
  for await (const { file, reader, ref, openXml } of sampleTables()) {
    let plain = true;
    for await (const row of reader.rows(ref)) {
      if (!row.cells.every((c) => c === null || typeof c === 'string' || c instanceof Uint8Array)) plain = false;
    }
    if (!plain) continue; // LOB files and arrays need the whole restore: restore-samples.test.ts
    const parts: Buffer[] = [];
    for await (const part of await openXml()) parts.push(part as Buffer);
    const bytes = Buffer.concat(parts);
    const columns = ref.table.columns;
    const expected = await usualPath(() => chunked(bytes, 1 << 16), columns);
    for (const size of [997, 1 << 16]) {
      const got = await bytePath(() => chunked(bytes, size), columns);
      t.is(got.copy, expected.copy, `${file} ${ref.xmlEntry}, chunks of ${size}`);
      t.is(got.error, expected.error);
    }
    tables++;
  }
  t.true(tables > 20, `${tables} tables compared`);
});

pgTest(
  'through a real server: values that need escaping, of every common type, come back equal (restore reads them by the byte path)',
  async (t) => {
    const server = await startPostgres();
    const work = tempDir('siard-ocfl-xml-copy-');
    try {
      await server.createDatabase('src');
      await server.createDatabase('dst');
      const text = [
        'tab\there',
        'new\nline',
        'back\\slash',
        '\\N',
        '\\u0041 stays as typed',
        'ctrl \u0001\u0008\u001f\u007f\u0085 end',
        'runs  of   spaces',
        '<&>"\'',
        'caf\u00e9 \u65e5\u672c \u{1F600}',
        '',
      ];
      await queryRows(
        server,
        'src',
        `CREATE TABLE t (id bigint, s text, v varchar(40), f double precision, r real, n numeric(12,3), b boolean,
         by bytea, d date, ts timestamp, tz timestamptz, tm time, iv interval, u uuid, j jsonb)`,
      );
      for (let i = 0; i < text.length; i++) {
        await queryRows(server, 'src', `INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`, [
          i,
          text[i],
          text[(i + 3) % text.length]!.slice(0, 40),
          [1.5e-7, 'Infinity', '-Infinity', 'NaN', -0][i % 5],
          [0.25, 'Infinity', 3.4e38][i % 3],
          i % 2 ? '-12.345' : null,
          i % 2 === 0,
          Buffer.from([0, 255, 92, 9, i]),
          '2024-02-29',
          '1999-12-31 23:59:59.5',
          '2024-06-01 12:34:56.789+02',
          '23:59:59.999999',
          i % 2 ? '-3 days -00:00:01' : '1 year 2 mons 3 days 04:05:06.5',
          'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
          JSON.stringify({ s: text[i] }),
        ]);
      }
      const out = path.join(work, 'out');
      const exported = await runCli(['export', server.url('src'), out, '--name', 'esc']);
      t.is(exported.code, 0, exported.stderr);
      const restored = await runCli(['restore', path.join(out, 'esc.siard'), server.url('dst')]);
      t.is(restored.code, 0, restored.stderr);
      const all = `SELECT ARRAY[id::text, s, v, f::text, r::text, n::text, b::text, encode(by, 'hex'), d::text, ts::text, tz::text,
      tm::text, iv::text, u::text, j::text] AS r FROM t ORDER BY id`;
      const want = await queryRows(server, 'src', all);
      t.is(want.length, text.length);
      t.deepEqual(await queryRows(server, 'dst', all), want);

      // an archive without its table file: one sentence, nothing left behind, no COPY left open
      const broken = path.join(work, 'broken.siard');
      execFileSync('python3', [
        '-c',
        'import sys,zipfile\nsrc=zipfile.ZipFile(sys.argv[1])\nwith zipfile.ZipFile(sys.argv[2],"w",zipfile.ZIP_DEFLATED) as dst:\n' +
          ' for i in src.infolist():\n  if not i.filename.endswith("table0.xml"): dst.writestr(i, src.read(i))',
        path.join(out, 'esc.siard'),
        broken,
      ]);
      await server.createDatabase('dst2');
      const failed = await runCli(['restore', broken, server.url('dst2')]);
      t.is(failed.code, 1, failed.stderr);
      t.regex(failed.stderr, /table data file is missing/);
      t.deepEqual(await queryRows(server, 'dst2', `SELECT relname FROM pg_class WHERE relname = 't'`), []);
    } finally {
      await server.stop();
      rmSync(work, { recursive: true, force: true });
    }
  },
);
