/**
 * Cells written from the source's texts (CellTexts, text-cells.ts) are what the same rows give as
 * values: a table of every column kind with texts (integers, decimals, doubles, timestamps, dates,
 * times, text with COPY's back-slash pairs, XML's special characters, controls, runs of spaces,
 * characters outside ASCII, CLOBs inline, in files and read in slices) and a column of values is
 * written once from texts and once from the values the texts stand for (taken here from the
 * contract of database-source.ts, not from the code under test), through a sink that begins LOB
 * files ahead: the same table XML, stats, LOB files, journal order, cut states and fingerprint.
 */
import test from 'ava';
import path from 'node:path';
import type { CellTextKind, CellTexts, SourceLob, SourceValue } from '../../../src/siard/database-source.js';
import { SourceFingerprint } from '../../../src/siard/fingerprint/source-fingerprint.js';
import { createLobLayout } from '../../../src/siard/lob-placement.js';
import { LobWriter } from '../../../src/siard/lob-writer.js';
import type { SiardColumn } from '../../../src/siard/model.js';
import { DirectorySink } from '../../../src/siard/output-sink.js';
import { tableDataXml, type RowBatch, type TableDataStats } from '../../../src/siard/table-data.js';
import { plainShape } from '../../../src/siard/table-xsd.js';
import { rng } from '../../../fixtures/northwind.js';
import { treeDigests } from '../../helpers/file-tree.js';
import { tempDir } from '../../helpers/tmp.js';

const base = tempDir('siard-ocfl-text-cells-');

const columns: SiardColumn[] = [
  { name: 'id', type: 'BIGINT' },
  { name: 'name', type: 'VARCHAR(20000)' },
  { name: 'amount', type: 'DOUBLE PRECISION' },
  { name: 'at', type: 'TIMESTAMP' },
  { name: 'day', type: 'DATE' },
  { name: 'clock', type: 'TIME' },
  { name: 'price', type: 'DECIMAL(40, 10)' },
  { name: 'note', type: 'CLOB' },
  { name: 'flag', type: 'BOOLEAN' },
];
const kinds: Array<CellTextKind | undefined> = ['string', 'string', 'double', 'utc', 'utc', 'utc', 'string', 'string', undefined];
const INLINE_MAX = 2000;

/** Texts of each column with texts, COPY's text form (null: NULL; 'LOB': a CLOB read in slices). */
const candidates: string[][] = [
  ['0', '-12', '+7', '9223372036854775807', '123456789012345678901234567890'],
  [
    'plain',
    '',
    ' ',
    '  two  spaces   here ',
    'a&b<c>"d\'e',
    'back\\\\slash',
    'tab\\there',
    'line\\nbreak',
    'cr\\rlf\\n',
    'bs\\b ff\\f vt\\v',
    'ctl\u0001\u001f\u007f',
    'é',
    'naïve & <b>',
    '€ 😀',
    '\\\\\\\\',
    '\u0085 C1',
  ],
  [
    '0',
    '-0',
    '1',
    '100',
    '0.25',
    '-1.5',
    '0.1',
    '123456789012345',
    '1234567890123456',
    '0.30000000000000004',
    '1e+20',
    '1.5e-07',
    'Infinity',
    '-Infinity',
    'NaN',
    '0.0001',
    '3.14159',
    '10.5',
    '00.5',
    '2.50',
  ],
  ['2024-01-02 03:04:05', '2024-12-31 23:59:59.999999', '1999-01-01 00:00:00.5', '2024-01-02T03:04:05'],
  ['2024-02-29', '0001-01-01'],
  ['00:00:00', '23:59:59.123', '24:00:00'],
  ['0', '-1.50', '12345678901234567890.1234567890', '.5', '5.', '+3'],
  ['short note <1> & more', '', 'x'.repeat(1999), 'y'.repeat(2001), 'é'.repeat(900), 'é'.repeat(1200), 'a\\tb', 'LOB'],
];

const ROWS = 700;
/** name holds a long text most of the time: a cut (after 8 Mi characters) comes inside the table */
const LONG = 'long text & spaces  '.repeat(700);

function makeRows(): { texts: Array<Array<string | null>>; flags: Array<boolean | null> } {
  const rand = rng(52);
  const texts: Array<Array<string | null>> = [];
  const flags: Array<boolean | null> = [];
  for (let r = 0; r < ROWS; r++) {
    texts.push(
      candidates.map((list, c) => {
        if (rand() < 0.1) return null;
        if (c === 1 && rand() < 0.9) return LONG;
        return list[Math.floor(rand() * list.length)]!;
      }),
    );
    flags.push(rand() < 0.2 ? null : rand() < 0.5);
  }
  return { texts, flags };
}
const { texts: rowTexts, flags } = makeRows();

/** The string a 'string' text stands for: COPY's back-slash pairs undone. */
function unescape(text: string): string {
  const letters: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };
  return text.replace(/\\(.)/gs, (_, c: string) => letters[c]!);
}

function streamedText(text: string): SourceLob {
  const bytes = Buffer.from(text, 'utf8');
  return {
    kind: 'lob',
    byteLength: bytes.length,
    encoding: 'text',
    async *open() {
      yield bytes.subarray(0, 100);
      yield bytes.subarray(100);
    },
  };
}

/** The value a text stands for (database-source.ts's CellTextKind). */
function valueOf(text: string | null, c: number): SourceValue {
  if (text === null) return null;
  if (text === 'LOB') return streamedText('z'.repeat(5000));
  const kind = kinds[c];
  if (kind === 'double') return Number(text);
  if (kind === 'utc') return text.replace(' ', 'T') + 'Z';
  return unescape(text);
}

const valueRows: SourceValue[][] = rowTexts.map((texts, r) => [...texts.map(valueOf), flags[r]!]);

/** Rows r0.. as a batch of texts: every row's line in one Buffer, as COPY's chunks come. */
function textBatch(r0: number, count: number, calls: { value: number }): RowBatch {
  const fields = candidates.length;
  const bounds = new Int32Array(2 * count * fields);
  let line = '';
  const starts: number[] = [];
  for (let r = 0; r < count; r++) {
    candidates.forEach((_, c) => {
      const text = rowTexts[r0 + r]![c]!;
      const at = Buffer.byteLength(line, 'utf8');
      const shown = text === null || text === 'LOB' ? '\\N' : text;
      starts.push(text === null ? -1 : text === 'LOB' ? -2 : at, at + Buffer.byteLength(shown, 'utf8'));
      line += shown + (c === fields - 1 ? '\n' : '\t');
    });
  }
  bounds.set(starts);
  const bytes = Buffer.from(line, 'utf8');
  const texts: CellTexts = {
    kinds,
    bytes: Array.from({ length: count }, () => bytes),
    bounds,
    stride: fields,
    field: candidates.map((_, c) => c),
    value(r, c) {
      calls.value++;
      return valueOf(rowTexts[r0 + r]![c]!, c);
    },
  };
  const rows = Array.from({ length: count }, (_, r) => {
    const row: SourceValue[] = new Array(columns.length);
    row[8] = flags[r0 + r]!;
    return row;
  });
  return Object.assign(rows, { texts, rowKeys: rows.map((_, r) => `key ${r0 + r + 1}`) });
}

async function writeTable(name: string, fromTexts: boolean, calls = { value: 0 }) {
  const sink = new DirectorySink(path.join(base, name));
  await sink.prepareResumable();
  const layout = createLobLayout('lobseg', 'db', { maxFiles: 23, maxBytes: 700_000 });
  const journal: string[] = [];
  const lobWriter = new LobWriter(sink, layout, 'SHA-256', (file) => journal.push(file.relPath));
  const stats: TableDataStats = { rows: 0, lobs: 0, externalLobs: 0, lobBytes: 0, externalColumns: new Set() };
  const observer = new SourceFingerprint(columns.map(plainShape));
  const ctx = {
    ...{ schemaIndex: 0, tableIndex: 0, tableName: 't', folder: 'table0', columns, inlineMax: INLINE_MAX, lobWriter, observer },
    cutState: (key: unknown) => ({
      key,
      rows: stats.rows,
      layout: layout.snapshot(),
      journal: [...journal],
      fp: observer.fingerprint.state(),
    }),
  };
  async function* batches(): AsyncIterable<RowBatch> {
    for (let at = 0; at < ROWS; at += 100) {
      const count = Math.min(100, ROWS - at);
      if (fromTexts) yield textBatch(at, count, calls);
      else {
        const rows = valueRows.slice(at, at + count);
        yield Object.assign(rows, { rowKeys: rows.map((_, r) => `key ${at + r + 1}`) });
      }
    }
  }
  let xml = '';
  const cuts: unknown[] = [];
  for await (const chunk of tableDataXml(batches(), ctx, stats)) {
    if (Buffer.isBuffer(chunk)) xml += chunk.toString('utf8');
    else cuts.push(chunk.state);
  }
  return {
    xml,
    stats: { ...stats, externalColumns: [...stats.externalColumns] },
    cuts,
    journal,
    files: treeDigests(sink.stagingDir),
    fingerprint: observer.fingerprint.hex(),
  };
}

/** Where two texts part, with a little of each from there; undefined when they are the same. */
function firstDifference(a: string, b: string): string | undefined {
  if (a === b) return undefined;
  let k = 0;
  while (k < a.length && a[k] === b[k]) k++;
  return `at ${k}: ${JSON.stringify(a.slice(k - 40, k + 60))} against ${JSON.stringify(b.slice(k - 40, k + 60))}`;
}

test('cells written from texts: the same XML, stats, LOB files, cuts and fingerprint as from the values they stand for', async (t) => {
  const reference = await writeTable('values', false);
  const calls = { value: 0 };
  const fromTexts = await writeTable('texts', true, calls);
  t.true(reference.cuts.length >= 1, `cuts: ${reference.cuts.length}`);
  t.true(reference.stats.externalLobs > 50, `LOB files: ${reference.stats.externalLobs}`);
  // (ava's diff of two 18 MB texts takes minutes: where they part instead)
  t.is(firstDifference(fromTexts.xml, reference.xml), undefined);
  t.deepEqual(fromTexts.stats, reference.stats);
  t.deepEqual(fromTexts.cuts, reference.cuts);
  t.deepEqual(fromTexts.journal, reference.journal);
  t.deepEqual(fromTexts.files, reference.files);
  t.is(fromTexts.fingerprint, reference.fingerprint);
  // most cells were written from their bytes, the unusual ones from their values
  const cells = rowTexts.flat().filter((text) => text !== null).length;
  t.true(calls.value > 0 && calls.value < cells / 4, `values asked for ${calls.value} of ${cells} cells`);
});

/** One cell of column `c` from its text, or from the value it stands for: the XML, or the error's message. */
async function oneCell(c: number, text: string, fromTexts: boolean, value = () => valueOf(text, c)): Promise<string> {
  const stats: TableDataStats = { rows: 0, lobs: 0, externalLobs: 0, lobBytes: 0, externalColumns: new Set() };
  const ctx = { schemaIndex: 0, tableIndex: 0, tableName: 't', folder: 'table0', columns: [columns[c]!], inlineMax: INLINE_MAX };
  const bytes = Buffer.from(text + '\n', 'utf8');
  async function* batches(): AsyncIterable<RowBatch> {
    if (!fromTexts) return yield [[value()]];
    const texts: CellTexts = {
      kinds: [kinds[c]],
      bytes: [bytes],
      bounds: Int32Array.from([0, bytes.length - 1]),
      stride: 1,
      field: [0],
      value,
    };
    yield Object.assign([[]] as SourceValue[][], { texts });
  }
  let xml = '';
  try {
    for await (const chunk of tableDataXml(batches(), { ...ctx, lobWriter: undefined as unknown as LobWriter }, stats)) {
      if (Buffer.isBuffer(chunk)) xml += chunk.toString('utf8');
    }
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
  return xml;
}

test('a text whose value does not fit its column, or that the source refuses, fails as its value does', async (t) => {
  const cases: Array<[number, string]> = [
    [0, ''],
    [0, '1.5'],
    [3, '10000-01-01 00:00:00'],
    [3, '2024-01-02'],
    [4, '12345-01-01'],
    [4, '2024-1-01'],
    [5, '1:00:00'],
    [6, 'NaN'],
    [6, ''],
  ];
  for (const [c, text] of cases) {
    const expected = await oneCell(c, text, false);
    t.regex(expected, /^error: .*cannot be written as/, `${columns[c]!.name} ${text}`);
    t.is(await oneCell(c, text, true), expected, `${columns[c]!.name} ${text}`);
  }
  const refused = () => {
    throw new Error('date/time "0044-03-15 12:00:00 BC" has no SIARD form');
  };
  t.is(await oneCell(3, '0044-03-15 12:00:00 BC', true, refused), 'error: date/time "0044-03-15 12:00:00 BC" has no SIARD form');
});
