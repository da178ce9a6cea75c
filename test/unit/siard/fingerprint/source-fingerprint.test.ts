/**
 * The fingerprint the writer takes (source-fingerprint.ts through table-data.ts's observer) is the
 * fingerprint of the cells its table XML holds: dates, times and timestamps as a source gives them
 * (a space or a 'T', with or without 'Z', fractions of odd and even length), which the observer
 * hashes from the source's text without building the form, NULLs at the start, middle and end of a
 * row. The forms expected are read from the XML written (every value here needs no escaping).
 */
import test from 'ava';
import type { SourceValue } from '../../../../src/siard/database-source.js';
import { TableFingerprint } from '../../../../src/siard/fingerprint/row-hash.js';
import { SourceFingerprint } from '../../../../src/siard/fingerprint/source-fingerprint.js';
import type { LobWriter } from '../../../../src/siard/lob-writer.js';
import type { SiardColumn } from '../../../../src/siard/model.js';
import { plainShape } from '../../../../src/siard/table-xsd.js';
import { tableDataXml, type TableDataStats } from '../../../../src/siard/table-data.js';

const columns: SiardColumn[] = [
  { name: 'id', type: 'INTEGER' },
  { name: 'at', type: 'TIMESTAMP' },
  { name: 'day', type: 'DATE' },
  { name: 'clock', type: 'TIME' },
  { name: 'name', type: 'VARCHAR(40)' },
  { name: 'amount', type: 'DOUBLE PRECISION' },
];

const rows: SourceValue[][] = [
  [1, '2024-01-05 10:00:00', '2024-01-05', '10:00:00', 'one', 0.25],
  [2, '2024-01-05T10:00:00.5', '2024-01-05Z', '10:00:00.123456', 'two', null],
  [null, '2024-12-31 23:59:59.1234567Z', null, '23:59:59.5Z', null, 1.5],
  [4, null, '1999-02-28', null, '', null],
  [5, '2024-01-05T10:00:00Z', null, null, null, null],
];

/** The cells of each row of table XML, null for an absent one. */
function xmlForms(xml: string): Array<Array<string | null>> {
  return [...xml.matchAll(/<row>(.*?)<\/row>/g)].map((m) => {
    const cells = new Array<string | null>(columns.length).fill(null);
    for (const c of m[1]!.matchAll(/<c(\d+)>([^<]*)<\/c\1>|<c(\d+)\/>/g)) cells[Number(c[1] ?? c[3]) - 1] = c[2] ?? '';
    return cells;
  });
}

test('the writer fingerprint of dates, times and timestamps is that of the cells written', async (t) => {
  const observer = new SourceFingerprint(columns.map(plainShape));
  const stats: TableDataStats = { rows: 0, lobs: 0, externalLobs: 0, lobBytes: 0, externalColumns: new Set() };
  async function* batches() {
    yield rows;
  }
  const noLobs = {} as LobWriter;
  const ctx = { schemaIndex: 0, tableIndex: 0, tableName: 't', folder: 'table0', columns, inlineMax: 4000, lobWriter: noLobs, observer };
  let xml = '';
  for await (const chunk of tableDataXml(batches(), ctx, stats)) xml += chunk.toString('utf8');
  const forms = xmlForms(xml);
  t.is(forms.length, rows.length);
  t.true(
    forms.some((r) => r[1] === '2024-01-05T10:00:00Z'),
    xml,
  );
  const expected = new TableFingerprint();
  for (const r of forms) expected.add(r);
  t.is(observer.fingerprint.hex(), expected.hex());
  t.is(observer.fingerprint.rows, rows.length);
});

test('a column given out of order is an error, not a wrong fingerprint', (t) => {
  const observer = new SourceFingerprint(columns.map(plainShape));
  observer.cell(2, 'x');
  t.throws(() => observer.cell(1, 'y'), { message: /column 2 given after column 3/ });
});
