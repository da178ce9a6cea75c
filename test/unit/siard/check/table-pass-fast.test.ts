/**
 * The fast table pass of `check` may accept a row only when the full pass would: every table it
 * reads to the end must be valid against its XSD by libxml2 (the validator the full pass uses) and
 * give no finding in the full pass (table-pass.ts). Checked on one-row tables over every column
 * type our writer's XSD has, with ordinary values (which it must accept, or it is no fast path) and
 * values at the edges of the XSD types and of the value checks (which it may refuse). Where it gives
 * up part way, the full pass must not index the rows it indexed already.
 */
import test from 'ava';
import { Readable } from 'node:stream';
import type { SiardColumn, SiardSchema, SiardTable } from '../../../../src/siard/model.js';
import type { SiardTableRef } from '../../../../src/siard/reader/siard-reader.js';
import { SIARD_TABLE_NAMESPACE, tableXsd, xmlTypeOf } from '../../../../src/siard/table-xsd.js';
import { KeyIndex, type KeySpec } from '../../../../src/siard/check/key-index.js';
import { CheckReport } from '../../../../src/siard/check/report.js';
import { fastTablePass } from '../../../../src/siard/check/table-pass-fast.js';
import { fastXsdProfile } from '../../../../src/siard/check/fast-xsd.js';
import { tablePass } from '../../../../src/siard/check/table-pass.js';
import { loadLibxml2, validateDocument } from '../../../../src/siard/check/xsd-validator.js';

const COLUMNS: SiardColumn[] = [
  { name: 'i', type: 'INTEGER', nullable: false },
  { name: 'd', type: 'DECIMAL(5,2)' },
  { name: 'f', type: 'DOUBLE PRECISION' },
  { name: 'r', type: 'REAL' },
  { name: 'b', type: 'BOOLEAN' },
  { name: 's', type: 'VARCHAR(10)' },
  { name: 'x', type: 'BINARY(4)' },
  { name: 'dt', type: 'DATE' },
  { name: 'tm', type: 'TIME' },
  { name: 'ts', type: 'TIMESTAMP' },
  { name: 'iv', type: 'INTERVAL DAY TO SECOND' },
  { name: 'c', type: 'CLOB' },
  { name: 'bl', type: 'BLOB' },
];

/** per column: a value our writer writes (must be accepted), then values at the edges (may be refused) */
const VALUES: string[][] = [
  ['42', '-7', '0', ' 5', '+5', '05', '-0', '', '5.0', '99999999999', '4&#x32;', '1e3'],
  ['12.5', '-0.01', '999.99', '1000', '1.234', '.5', '5.', '+1', ' 1', 'twelve', 'NaN'],
  ['1.5', '-2.5E10', '1e+21', 'INF', '-INF', 'NaN', '+INF', '1e400', '1e-400', '4.9e-324', '.5', '5.', '0x10', ''],
  ['1.5', '3.4e38', '3.5e38', '1e-40', '0.0', '-0', 'inf'],
  ['true', 'false', '1', '0', 'TRUE', 'yes', ' true', ''],
  [
    'hello',
    '',
    'a&amp;b',
    'tab\there',
    'a\\u005cb',
    'a\\b',
    'a\u0085b',
    'elevenchars',
    'émoji 😀',
    '&lt;x&gt;',
    'a&#0;',
    ']]>',
    'a  b',
    'a \\u0020b',
    ' a b ',
    'a&#32; b',
    'é123456789',
    'é1234567890',
    'a\ufffeb',
    'ü\u009f',
    'hel\r\nlo',
    'a\rb\r\n',
    'a&#13;b',
    'a\r\n\r\nbcdefgh',
    'a\r\n\r\nbcdefghi',
  ],
  ['0aff', '', 'abc', 'zz', '0AFF00FF', '0aff00ff11'],
  [
    '2020-01-02Z',
    '2020-01-02',
    '0000-01-02Z',
    '2020-02-30Z',
    '2020-01-02+02:00',
    '2020-01-02+00:00',
    '12020-01-02Z',
    '2020-1-2',
    '0001-01-01',
    '9999-12-31',
  ],
  ['12:34:56Z', '12:34:56.789Z', '24:00:00Z', '23:59:60Z', '12:34Z', '12:34:56.Z', '12:34:56+01:00'],
  [
    '2020-01-02T03:04:05Z',
    '2020-01-02T03:04:05.123456Z',
    '2020-01-02 03:04:05',
    '2020-01-02T24:00:00Z',
    '0000-01-01T00:00:00Z',
    '0001-01-01T00:00:00',
  ],
  ['P1DT2H3M4.5S', 'PT0S', '-P3D', 'P', 'PT', '1 day', 'P1.5D'],
  ['some text', '', 'x\\u0000y', 'back\\slash'],
  ['00ff', '', 'xyz', '0'],
];

const XSD = Buffer.from(tableXsd(COLUMNS));

function tableRef(columns: SiardColumn[], rows: number): SiardTableRef {
  const table: SiardTable = { name: 't', folder: 'table0', columns, foreignKeys: [], candidateKeys: [], rows };
  const schema: SiardSchema = { name: 's', folder: 'schema0', tables: [table], views: [] };
  return {
    schemaIndex: 0,
    tableIndex: 0,
    schema,
    table,
    folder: 'content/schema0/table0',
    xmlEntry: 'content/schema0/table0/table0.xml',
    columnExtras: [],
  };
}

function doc(rows: string[]): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<table xmlns="${SIARD_TABLE_NAMESPACE}" ` +
    `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="${SIARD_TABLE_NAMESPACE} table0.xsd" version="2.2">\n` +
    rows.map((r) => `  <row>${r}</row>\n`).join('') +
    '</table>\n'
  );
}

function row(cells: Array<string | undefined>): string {
  return cells.map((v, i) => (v === undefined ? '' : v === '' ? `<c${i + 1}/>` : `<c${i + 1}>${v}</c${i + 1}>`)).join('');
}

const ORDINARY = VALUES.map((v) => v[0]!);

/** The fast pass over `xml` (given as one chunk, or as the chunks to feed). */
async function fast(xml: string | Buffer[], keys: KeySpec[] = [], index?: KeyIndex, columns = COLUMNS, rows = 1) {
  const t = tableRef(columns, rows);
  const profile = fastXsdProfile(t.table, Buffer.from(tableXsd(columns)))!;
  const lobs: unknown[] = [];
  const r = await fastTablePass({
    table: t,
    profile,
    keys,
    ...(index ? { index } : {}),
    stream: Readable.from(typeof xml === 'string' ? [Buffer.from(xml)] : xml),
    onLobCell: async (c) => {
      lobs.push(c);
    },
  });
  return { ...r, lobs };
}

async function fullFindings(xml: string): Promise<string[]> {
  const report = new CheckReport();
  await tablePass({ table: tableRef(COLUMNS, 1), stream: Readable.from([Buffer.from(xml)]), keys: [], report });
  return report
    .result()
    .requirements.filter((q) => q.status === 'failed')
    .map((q) => `${q.id}: ${q.findings.map((f) => f.message).join(' / ')}`);
}

/** Accepted by the fast pass implies valid for libxml2 and no finding in the full pass. */
async function agrees(t: import('ava').ExecutionContext, xml: string, what: string): Promise<boolean> {
  const r = await fast(xml);
  if (!r.done) return false;
  t.deepEqual(validateDocument(Buffer.from(xml), XSD), [], `accepted but not valid: ${what}`);
  t.deepEqual(await fullFindings(xml), [], `accepted but the full pass finds: ${what}`);
  return true;
}

test.before(async () => {
  await loadLibxml2();
});

test("the writer's XSD is read by its meaning; constructs the fast pass does not judge are not", (t) => {
  const table = tableRef(COLUMNS, 1).table;
  const profile = fastXsdProfile(table, XSD)!;
  t.deepEqual(
    profile.types,
    COLUMNS.map((c) => xmlTypeOf(c.type!)),
  );
  t.deepEqual(
    profile.required,
    COLUMNS.map((c) => c.nullable === false),
  );
  t.is(profile.namespace, SIARD_TABLE_NAMESPACE);
  t.deepEqual([...profile.version!.values], ['2.2']);
  // a cell the XSD requires is required
  const other = (from: string, to: string) => fastXsdProfile(table, Buffer.from(tableXsd(COLUMNS).replace(from, to)));
  t.true(other('name="c2" type="xs:decimal" minOccurs="0"', 'name="c2" type="xs:decimal"')!.required[1]);
  t.is(other('minOccurs="0" maxOccurs="unbounded"', 'maxOccurs="unbounded"'), undefined); // a table of at least one row
  t.is(other('<xs:sequence>\n      <xs:element name="c1"', '<xs:choice>\n      <xs:element name="c1"'), undefined);
  t.is(other('name="c2"', 'name="c2" nillable="true"'), undefined);
  t.is(other('name="c2"', 'name="c3"'), undefined);
  t.is(other('<xs:pattern value="\\d{4}-\\d{2}-\\d{2}Z?"/>', '<xs:pattern value="[0-9]{4}-.*"/>'), undefined);
  t.is(other('<xs:whiteSpace value="collapse"/>\n      <xs:enumeration value="MD5"/>', '<xs:whiteSpace value="collapse"/>'), undefined);
  t.is(other('type="xs:anyURI"', 'type="xs:string"'), undefined);
  t.is(other('elementFormDefault="qualified"', 'elementFormDefault="unqualified"'), undefined);
  t.is(fastXsdProfile({ ...table, columns: [{ name: 'a', type: 'INTEGER', cardinality: 3 }] }, XSD), undefined);
});

test('an ordinary row is accepted; every value at an edge is accepted only where libxml2 and the full pass agree', async (t) => {
  t.true(await agrees(t, doc([row(ORDINARY)]), 'ordinary'));
  // CR in text is read as XML normalises it: 10 characters after CRLF -> LF fit VARCHAR(10)
  const text = (v: string) => doc([row(ORDINARY.map((o, i) => (i === 5 ? v : o)))]);
  t.true(await agrees(t, text('a\r\n\r\nbcdefgh'), 'CRLF'));
  t.false((await fast(text('a\r\n\r\nbcdefghi'))).done, 'CRLF, 11 characters');
  let refused = 0;
  for (let c = 0; c < VALUES.length; c++) {
    for (const v of VALUES[c]!) {
      const cells = [...ORDINARY];
      cells[c] = v;
      if (!(await agrees(t, doc([row(cells)]), `column ${COLUMNS[c]!.name} = ${JSON.stringify(v)}`))) refused++;
    }
  }
  t.true(refused > 40, `${refused} refused`); // the edges are there to be refused, most of them
});

test('shapes the fast pass leaves to the full pass', async (t) => {
  const ordinary = row(ORDINARY);
  const variants = [
    doc([ordinary.replace('<c1>42</c1><c2>12.5</c2>', '<c2>12.5</c2><c1>42</c1>')]), // order
    doc([ordinary.replace('<c1>42</c1>', '')]), // NOT NULL cell missing
    doc([ordinary.replace('<c2>', '<c2 x="1">')]), // attribute
    doc([ordinary.replace('<c6>hello</c6>', '<c6><!-- x -->hello</c6>')]),
    doc([ordinary.replace('<c6>hello</c6>', '<c6><![CDATA[hello]]></c6>')]),
    doc([ordinary.replace('<c6>hello</c6>', '<c6>&nbsp;</c6>')]),
    doc([ordinary + '<c14>1</c14>']),
    doc([ordinary]).replace(' version="2.2"', ''),
    doc([ordinary]).replace(' version="2.2"', ' version="2.1"'),
    doc([ordinary]).replace(`xmlns="${SIARD_TABLE_NAMESPACE}"`, 'xmlns="urn:other"'),
    doc([ordinary]).replace('<?xml', '<!-- c --><?xml'),
    doc([ordinary]).replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'),
    doc([ordinary]).replace('version="1.0"', 'version="1.1"'),
    doc([ordinary]).replace('</table>', ''),
    doc([ordinary]).replace('</table>\n', '</table>\n<row/>'),
  ];
  for (const xml of variants) t.false((await fast(xml)).done, xml);
  t.true((await fast(doc([]), [], undefined, COLUMNS, 0)).done, 'an empty table');
});

test('LOB cells: accepted with file, length and digest, handed out with their row and column', async (t) => {
  const lob = '<c12 file="../lobs/r1.txt" length="5" digestType="SHA-256" digest="abc"/>';
  const cells = [...ORDINARY];
  cells[11] = undefined;
  const base = row(cells);
  const xml = doc([base.replace('<c13>', `${lob}<c13>`)]);
  const r = await fast(xml);
  t.true(r.done);
  t.deepEqual(validateDocument(Buffer.from(xml), XSD), []);
  t.like(r.lobs, [{ row: 1, column: 12, ref: { file: '../lobs/r1.txt', length: 5, digest: 'abc' } }]);
  for (const bad of [lob.replace(' length="5"', ''), lob.replace(' digest="abc"', ''), lob.replace('SHA-256', 'SHA-512')]) {
    t.false((await fast(doc([base.replace('<c13>', `${bad}<c13>`)]))).done, bad);
  }
  t.false((await fast(doc([row(ORDINARY).replace('<c6>', '<c6 file="x" length="1" digest="a">')]))).done, 'a file on a VARCHAR');
});

test('giving up part way: the rows accepted are indexed once, the full pass indexes the rest', async (t) => {
  const cols: SiardColumn[] = [
    { name: 'id', type: 'INTEGER', nullable: false },
    { name: 's', type: 'VARCHAR(10)' },
  ];
  const key: KeySpec = { id: 0, table: 's.t', name: 'pk', kind: 'primary', columns: ['id'], indexes: [0] };
  const xml = doc(['<c1>1</c1><c2>a</c2>', '<c1>2</c1><c2>a\\b</c2>', '<c1>3</c1>']);
  const run = async (skip: boolean) => {
    const index = new KeyIndex([key]);
    try {
      const r = await fast(xml, [key], index, cols, 3);
      const report = new CheckReport();
      const pass = await tablePass({
        table: tableRef(cols, 3),
        stream: Readable.from([Buffer.from(xml)]),
        keys: [key],
        index,
        report,
        ...(skip ? { indexedRows: r.rows } : {}),
      });
      return { fast: r, rows: pass.rows, violations: [...index.violations()].map((v) => v.message), report: report.result() };
    } finally {
      index.close();
    }
  };
  const good = await run(true);
  t.false(good.fast.done);
  t.is(good.fast.rows, 1);
  t.is(good.rows, 3);
  t.deepEqual(good.violations, []);
  t.is(good.report.requirements.find((q) => q.id === 'G_3.3-4')!.status, 'failed');
  // without the count, row 1 would be indexed twice: the test above would not see that
  t.is((await run(false)).violations.length, 1);
});

/** The bytes of `xml` in chunks of `size` bytes (cutting tags, UTF-8 characters, the byte order mark). */
function chunked(xml: string, size: number): Buffer[] {
  const bytes = Buffer.from(xml);
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

test('chunks cut anywhere give what one chunk gives', async (t) => {
  const lobCells = [...ORDINARY] as Array<string | undefined>;
  lobCells[11] = undefined;
  const lob = row(lobCells).replace('<c13>', '<c12 file="../lobs/r1.txt" length="5" digest="abc"/><c13>');
  const texts = ['émoji 😀', 'ünï €', 'a \\u0020b', 'x&amp;y'].map((v) => row(ORDINARY.map((o, i) => (i === 5 ? v : o))));
  const docs = [
    doc([row(ORDINARY), ...texts, lob]),
    '\ufeff' + doc([row(ORDINARY), ...texts]),
    doc([row(ORDINARY), row(ORDINARY.map((o, i) => (i === 5 ? 'a  b' : o))), row(ORDINARY)]), // gives up at row 2
    doc([row(ORDINARY)]).replace('</table>', '</tab'), // cut short
  ];
  for (const xml of docs) {
    const rows = (xml.match(/<row>/g) ?? []).length;
    const whole = await fast(xml, [], undefined, COLUMNS, rows);
    for (const size of [1, 2, 3, 5, 7, 64])
      t.deepEqual(await fast(chunked(xml, size), [], undefined, COLUMNS, rows), whole, `${size}: ${xml}`);
  }
  t.deepEqual((await fast(docs[0]!, [], undefined, COLUMNS, 6)).lobs.length, 1);
  t.like(await fast(docs[2]!, [], undefined, COLUMNS, 3), { done: false, rows: 1 });
});

test('bytes that are not UTF-8 are left to the full pass', async (t) => {
  const xml = Buffer.from(doc([row(ORDINARY)]));
  t.true((await fast([xml])).done);
  const at = xml.indexOf('hello');
  for (const bad of [[0xff], [0xc3], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
    const broken = Buffer.concat([xml.subarray(0, at), Buffer.from(bad), xml.subarray(at)]);
    t.false((await fast([broken])).done, JSON.stringify(bad));
  }
});

test('key values read from bytes and from strings meet in one index: the same violations as the full pass finds', async (t) => {
  const cols: SiardColumn[] = [
    { name: 'id', type: 'BIGINT', nullable: false },
    { name: 's', type: 'VARCHAR(10)' },
  ];
  const key: KeySpec = { id: 0, table: 's.t', name: 'pk', kind: 'primary', columns: ['id'], indexes: [0] };
  // 5 and 05, -7 and -07, 3 and +3, 0 and -0 are one value each; 16 digits and more go as text
  const ids = ['1', '2', '5', '05', '-7', '-07', '1234567890123456', '1234567890123456', '999999999999999', '0', '-0', '3', '+3'];
  const xml = doc(ids.map((v) => `<c1>${v}</c1><c2>x</c2>`));
  const violations = async (fastFirst: boolean) => {
    const index = new KeyIndex([key]);
    try {
      let skip = 0;
      if (fastFirst) {
        const r = await fast(xml, [key], index, cols, ids.length);
        t.true(r.done);
        skip = r.rows;
      }
      if (skip < ids.length) {
        const report = new CheckReport();
        await tablePass({
          table: tableRef(cols, ids.length),
          stream: Readable.from([Buffer.from(xml)]),
          keys: [key],
          index,
          report,
          indexedRows: skip,
        });
      }
      return [...index.violations()].map((v) => v.message).sort();
    } finally {
      index.close();
    }
  };
  const full = await violations(false);
  t.is(full.length, 5, full.join('\n'));
  t.deepEqual(await violations(true), full);
});
