/**
 * Issue 16: table XML of the usual shape is read by a fast path (src/siard/reader/table-rows-fast.ts)
 * that gives up, and lets saxes read the table again, on anything else. It must change nothing:
 * the rows (and, for broken XML, the error message) equal those of the saxes reader alone, on
 * hand-written documents that sit just inside and just outside the fast path's subset, cut into
 * chunks at every position, and on every table of the real archives in the shared references.
 */
import test from 'ava';
import { Readable } from 'node:stream';
import type { SiardColumn } from '../../../../src/siard/model.js';
import { readTableRows } from '../../../../src/siard/reader/index.js';
import { readTableRowBatches } from '../../../../src/siard/reader/table-rows.js';
import { FastTableRows } from '../../../../src/siard/reader/table-rows-fast.js';
import { sharedTest } from '../../../helpers/shared.js';
import { sampleTables } from '../../../helpers/sample-tables.js';

const columns: SiardColumn[] = [
  { name: 'a', type: 'INTEGER' },
  { name: 'b', type: 'VARCHAR(100)' },
  { name: 'c', type: 'BLOB' },
];

/** What a reader gives: the rows, or the error message. */
async function outcome(read: () => AsyncIterable<unknown>): Promise<unknown> {
  const rows: unknown[] = [];
  try {
    for await (const r of read()) rows.push(r);
    return rows;
  } catch (err) {
    return { error: (err as Error).message, after: rows.length };
  }
}

function chunks(xml: string, size: number): Readable {
  const parts: Buffer[] = [];
  const bytes = Buffer.from(xml, 'utf8');
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  return Readable.from(parts);
}

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<table xmlns="http://www.bar.admin.ch/xmlns/siard/2/table.xsd" version="2.2">\n';
const DOCS: Record<string, string> = {
  plain: HEAD + '  <row><c1>1</c1><c2>x</c2><c3>00ff</c3></row>\n  <row><c1>2</c1><c3/></row>\n</table>\n',
  entities: HEAD + '<row><c2>&lt;a&gt; &amp; &quot;&apos; &#65;&#x42;&#x1F600; \\u0041 \\u005C</c2></row></table>',
  'empty and NULL': HEAD + '<row><c2/></row><row></row><row><c2></c2><c1>7</c1></row></table>',
  whitespace: HEAD + '\n\t <row>\n <c1>1</c1>\t<c2> spaced  text </c2>\n</row>  \n</table>  \n',
  'no declaration': '<table><row><c1>1</c1></row></table>',
  'a BOM': '\ufeff' + HEAD + '<row><c1>1</c1></row></table>',
  'a LOB file cell': HEAD + '<row><c1>1</c1></row><row><c3 file="x.bin" length="1" digestType="MD5" digest="AB"/></row></table>',
  'LOB cells spaced':
    HEAD +
    '<row><c3\n file = "a b/x.bin"\tlength="12"  digestType="SHA-256" digest=" Ab "  /><c2 file="y" dlurlpathonly="p"/></row></table>',
  'a LOB digest type we do not know': HEAD + '<row><c3 file="x" digestType="CRC32" other="z"/></row></table>',
  // outside the fast path: saxes reads them
  'a LOB cell with an entity': HEAD + '<row><c1>1</c1></row><row><c3 file="a&amp;b.bin"/></row></table>',
  'a LOB cell in single quotes': HEAD + "<row><c1>1</c1></row><row><c3 file='x.bin'/></row></table>",
  'a LOB cell with > in a value': HEAD + '<row><c1>1</c1></row><row><c3 file="a/>b" length="3"/></row></table>',
  'a LOB cell with a tab in a value': HEAD + '<row><c1>1</c1></row><row><c3 file="a\tb"/></row></table>',
  'a prefixed LOB attribute': HEAD + '<row><c1>1</c1></row><row><c3 xmlns:x="u" x:file="x.bin"/></row></table>',
  'a LOB cell with text': HEAD + '<row><c1>1</c1></row><row><c3 file="x.bin">t</c3></row></table>',
  'attributes without file': HEAD + '<row><c1>1</c1></row><row><c3 length="1"/><c2 a="1">x</c2></row></table>',
  'a LOB cell of a column too many': HEAD + '<row><c1>1</c1></row><row><c4 file="x.bin"/></row></table>',
  'a comment': HEAD + '<row><c1>1</c1></row><!-- c --><row><c1>2</c1></row></table>',
  CDATA: HEAD + '<row><c2><![CDATA[<x>]]></c2></row></table>',
  'a carriage return': HEAD + '<row><c2>a\r\nb</c2></row></table>',
  'a prefixed root': '<t:table xmlns:t="u"><row><c1>1</c1></row></t:table>',
  'an array cell': HEAD + '<row><c2><a1>x</a1></c2></row></table>',
  'text between cells': HEAD + '<row>x<c1>1</c1></row></table>',
  'a surrogate pair': HEAD + '<row><c2>😀</c2></row></table>',
  // broken: the same error either way
  'bad hex': HEAD + '<row><c1>1</c1></row><row><c3>0g</c3></row></table>',
  'an unknown entity': HEAD + '<row><c1>1</c1></row><row><c2>&nbsp;</c2></row></table>',
  'a forbidden reference': HEAD + '<row><c2>&#1;</c2></row></table>',
  'a forbidden character': HEAD + '<row><c1>1</c1></row><row><c2>\u0001</c2></row></table>',
  'a lone ampersand': HEAD + '<row><c2>a & b</c2></row></table>',
  'a column too many': HEAD + '<row><c1>1</c1></row><row><c4>1</c4></row></table>',
  'mismatched tags': HEAD + '<row><c1>1</c2></row></table>',
  'cut short': HEAD + '<row><c1>1</c1></row><row><c1>2',
  'text after the root': HEAD + '<row><c1>1</c1></row></table>junk',
  'two roots': HEAD + '</table><table></table>',
  'duplicate root attributes': '<table a="1" a="2"><row><c1>1</c1></row></table>',
  'a LOB attribute given twice': HEAD + '<row><c1>1</c1></row><row><c3 file="x" file="y"/></row></table>',
  'a LOB length that is no integer': HEAD + '<row><c1>1</c1></row><row><c3 file="x" length="1.5"/></row></table>',
  'a LOB cell cut short': HEAD + '<row><c1>1</c1></row><row><c3 file="x" length="1"',
  'a DOCTYPE': '<!DOCTYPE table><table><row><c1>1</c1></row></table>',
  'not table': '<tabel><row><c1>1</c1></row></tabel>',
  empty: '',
  ']]> in text': HEAD + '<row><c2>a]]>b</c2></row></table>',
  // the predefined entities and end tags are compared in place: near misses must still be refused
  'every predefined entity': HEAD + '<row><c2>&gt;&lt;&amp;&quot;&apos;x&amp;amp;</c2></row></table>',
  'a near miss of lt': HEAD + '<row><c1>1</c1></row><row><c2>&lq;</c2></row></table>',
  'a near miss of gt': HEAD + '<row><c1>1</c1></row><row><c2>&mt;</c2></row></table>',
  'a near miss of amp': HEAD + '<row><c1>1</c1></row><row><c2>&amq;</c2></row></table>',
  'a near miss of quot': HEAD + '<row><c1>1</c1></row><row><c2>&quit;</c2></row></table>',
  'an upper-case entity': HEAD + '<row><c1>1</c1></row><row><c2>&LT;</c2></row></table>',
  'an end tag with a longer name': HEAD + '<row><c1>1</c1></row><row><c1>2</c11></row></table>',
  'an end tag of another cell': HEAD + '<row><c1>1</c1></row><row><c2>2</c3></row></table>',
  'a forbidden character far in': HEAD + '<row><c1>1</c1></row>'.repeat(50) + '<row><c2>a\u0008b</c2><c3>\u0007</c3></row></table>',
};

for (const [name, xml] of Object.entries(DOCS)) {
  test(`fast path or not, the same outcome: ${name}`, async (t) => {
    for (const size of [1, 2, 3, 5, 7, 16, 64, 1 << 20]) {
      const expected = await outcome(() => readTableRows(chunks(xml, size), { what: 't', columns }));
      const got = await outcome(async function* () {
        for await (const batch of readTableRowBatches(chunks(xml, size), { what: 't', columns, reopen: async () => chunks(xml, size) }))
          yield* batch;
      });
      t.deepEqual(got, expected, `chunks of ${size} bytes`);
    }
  });
}

test('LOB file cells are read by the fast path, not left to saxes', (t) => {
  const rows = new FastTableRows(['integer', 'text', 'blob'], 64 * 1024 * 1024);
  const lobs = '<row><c1>1</c1><c3 file="seg_0/record1.bin" length="2048" digestType="SHA-256" digest="AB01"/></row>\n';
  const got = rows.feed(HEAD + lobs.repeat(3) + '<row><c2 file="x"/></row></table>');
  t.truthy(got, 'the fast path gave up');
  t.is(got!.length, 4);
  t.deepEqual(got![0]!.cells, ['1', null, { file: 'seg_0/record1.bin', length: 2048, digestType: 'SHA-256', digest: 'ab01' }]);
  t.deepEqual(got![3]!.cells, [null, { file: 'x' }, null]);
  t.true(rows.finish());
});

sharedTest('every table of every reference archive reads the same through the fast path as through saxes', async (t) => {
  let tables = 0;
  for await (const { file, reader, ref, openXml } of sampleTables()) {
    const fast = await outcome(() => reader.rows(ref));
    const plain = await outcome(async function* () {
      yield* readTableRows(await openXml(), { what: reader.describeTable(ref), columns: ref.table.columns });
    });
    t.deepEqual(fast, plain, `${file} ${ref.xmlEntry}`);
    tables++;
  }
  t.true(tables > 20, `${tables} tables compared`);
});
