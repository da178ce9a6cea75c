/**
 * A table's XML formatted in a worker while the rows are read (table-xml-beside.ts) against the
 * same rows written by tableDataXml on one thread: the same bytes, cut at the same rows (each
 * segment's bytes equal), the same state at every cut (stats, fingerprint, the row's key), the same
 * stats, fingerprint and progress at the end. Tables large enough for the worker, with every kind
 * of value it takes (escapes, multi-byte text, numbers, bigints, booleans, bytes, timestamps,
 * NULLs); a LOB for a file before the first cut and in the worker's first rows (the rest written
 * here, going on from the worker's state); small tables (no worker); a resumed table; a value that
 * does not fit (the same error); a reader that stops early (worker and source closed).
 */
import test from 'ava';
import { SiardOcflError } from '../../../src/errors.js';
import type { SourceValue } from '../../../src/siard/database-source.js';
import { SourceFingerprint } from '../../../src/siard/fingerprint/source-fingerprint.js';
import type { LobWriter } from '../../../src/siard/lob-writer.js';
import type { SiardColumn } from '../../../src/siard/model.js';
import { tableDataXml, type RowBatch, type TableDataContext, type TableDataStats } from '../../../src/siard/table-data.js';
import { BESIDE_MIN_ROWS, besideWorkersStarted, tableDataXmlBeside } from '../../../src/siard/table-xml-beside.js';
import { plainShape } from '../../../src/siard/table-xsd.js';
import { isSegmentCut } from '../../../src/siard/zip/segmented-deflate.js';

const COLUMNS: SiardColumn[] = [
  { name: 'id', type: 'BIGINT' },
  { name: 'name', type: 'VARCHAR(200)' },
  { name: 'amount', type: 'DOUBLE PRECISION' },
  { name: 'at', type: 'TIMESTAMP' },
  { name: 'flag', type: 'BOOLEAN' },
  { name: 'note', type: 'CLOB' },
  { name: 'data', type: 'BLOB' },
  { name: 'big', type: 'DECIMAL(30)' },
];

const TEXTS = [
  'plain',
  'a < b & c > d "q" \'s\'',
  'tab\there\nline',
  'back\\slash  two  spaces',
  'Zürich 東京 😀',
  '\u0001\u007f\u0085',
  '',
];

/** Row `i` (from 1) of the test table: about 250 characters of XML, every kind of value in turn. */
function row(i: number, lobAt: ReadonlySet<number>): SourceValue[] {
  const text = TEXTS[i % TEXTS.length]!;
  return [
    i % 11 === 0 ? BigInt(i) * 10n ** 12n : i,
    i % 13 === 0 ? null : `${text} ${i} ${'x'.repeat(i % 90)}`,
    i % 5 === 0 ? -i / 7 : i * 0.25,
    `2024-01-${String(1 + (i % 28)).padStart(2, '0')} 10:${String(i % 60).padStart(2, '0')}:00`,
    i % 3 === 0 ? null : i % 2 === 0,
    lobAt.has(i) ? 'L'.repeat(5000) : i % 4 === 0 ? null : `note <${i}> & ${text}`,
    i % 6 === 0 ? null : Uint8Array.from([i & 255, (i >> 8) & 255, 0, 255]),
    i % 9 === 0 ? `${i}000000000000000000` : null,
  ];
}

async function* batchesOf(rows: number, lobAt: ReadonlySet<number>, first = 1, closed?: { value: boolean }): AsyncGenerator<RowBatch> {
  try {
    for (let start = first; start <= rows; start += 1000) {
      const batch: SourceValue[][] & { rowKeys?: unknown[] } = [];
      batch.rowKeys = [];
      for (let i = start; i < Math.min(start + 1000, rows + 1); i++) {
        batch.push(row(i, lobAt));
        batch.rowKeys.push(`key ${i}`);
      }
      yield batch;
    }
  } finally {
    if (closed) closed.value = true;
  }
}

/** A LOB writer that names each file by its row, as the real one does, without writing. */
function fakeLobWriter(): LobWriter {
  return {
    async write(address: { row: number; column: number; size: number }) {
      return {
        reference: {
          file: `lob${address.column}/record${address.row}.txt`,
          length: address.size,
          digestType: 'SHA-256',
          digest: 'ab'.repeat(32),
        },
        files: [],
        sha256: 'cd'.repeat(32),
      };
    },
  } as unknown as LobWriter;
}

interface Run {
  /** the bytes between two cuts, in order */
  segments: string[];
  cuts: string[];
  stats: string;
  fingerprint: string;
  onRows: number;
}

async function run(
  beside: boolean,
  rows: number,
  lobAt: ReadonlySet<number> = new Set(),
  resume?: { rows: number; fingerprint: { rows: number; sums: [number, number] } },
): Promise<Run> {
  const shapes = COLUMNS.map(plainShape);
  const observer = new SourceFingerprint(shapes);
  if (resume) observer.fingerprint.restore(resume.fingerprint);
  const stats: TableDataStats = { rows: resume?.rows ?? 0, lobs: 0, externalLobs: 0, lobBytes: 0, externalColumns: new Set() };
  const ctx: TableDataContext = {
    schemaIndex: 0,
    tableIndex: 0,
    tableName: 'events',
    folder: 'table0',
    columns: COLUMNS,
    inlineMax: 2000,
    lobWriter: fakeLobWriter(),
    shapes,
    observer,
    cutState: (key) => JSON.stringify([key, stats.rows, stats.lobs, stats.externalLobs, observer.fingerprint.state()]),
    ...(resume ? { continued: true } : {}),
  };
  let onRows = 0;
  const batches = batchesOf(rows, lobAt, (resume?.rows ?? 0) + 1);
  const xml = beside ? tableDataXmlBeside(batches, ctx, stats, () => onRows++) : tableDataXml(batches, ctx, stats, () => onRows++);
  const segments: string[] = [];
  const cuts: string[] = [];
  let current: Buffer[] = [];
  for await (const chunk of xml) {
    if (isSegmentCut(chunk)) {
      cuts.push(chunk.state as string);
      segments.push(Buffer.concat(current).toString('latin1'));
      current = [];
    } else current.push(chunk);
  }
  segments.push(Buffer.concat(current).toString('latin1'));
  return {
    segments,
    cuts,
    stats: JSON.stringify({ ...stats, externalColumns: [...stats.externalColumns] }),
    fingerprint: observer.fingerprint.hex(),
    onRows,
  };
}

function same(t: import('ava').ExecutionContext, a: Run, b: Run, cuts: number): void {
  t.is(a.cuts.length, cuts);
  t.deepEqual(b.cuts, a.cuts);
  t.is(b.segments.length, a.segments.length);
  for (let k = 0; k < a.segments.length; k++) t.true(b.segments[k] === a.segments[k], `segment ${k} differs`);
  t.is(b.stats, a.stats);
  t.is(b.fingerprint, a.fingerprint);
  t.is(b.onRows, a.onRows);
}

const ROWS = 70_000;

test.serial('the worker writes the bytes, cuts and fingerprint of one thread', async (t) => {
  t.true(ROWS >= BESIDE_MIN_ROWS);
  const started = besideWorkersStarted();
  const one = await run(false, 90_000);
  const two = await run(true, 90_000);
  t.is(besideWorkersStarted(), started + 1);
  same(t, one, two, 2);
  t.true(one.segments[0]!.startsWith('<?xml') && one.segments[2]!.endsWith('</table>\n'));
});

test.serial("a LOB for a file before the first cut: the rest written here from the worker's state", async (t) => {
  const lobAt = new Set([30_500]);
  const started = besideWorkersStarted();
  same(t, await run(false, ROWS, lobAt), await run(true, ROWS, lobAt), 1);
  t.is(besideWorkersStarted(), started + 1);
});

test.serial("a LOB for a file in the worker's first row or first batch: the rest written here", async (t) => {
  for (const at of [BESIDE_MIN_ROWS + 1, BESIDE_MIN_ROWS + 7]) {
    const lobAt = new Set([at, 40_000]);
    const started = besideWorkersStarted();
    same(t, await run(false, ROWS, lobAt), await run(true, ROWS, lobAt), 1);
    t.is(besideWorkersStarted(), started + (at === BESIDE_MIN_ROWS + 1 ? 0 : 1));
  }
});

test.serial('a table of BESIDE_MIN_ROWS rows or fewer is written without a worker', async (t) => {
  const started = besideWorkersStarted();
  for (const rows of [0, 1, BESIDE_MIN_ROWS]) same(t, await run(false, rows), await run(true, rows), 0);
  t.is(besideWorkersStarted(), started);
});

test.serial('a table resumed after a cut goes on with the stats and fingerprint it was given', async (t) => {
  const resume = { rows: 20_000, fingerprint: { rows: 20_000, sums: [123456789, 987654321] as [number, number] } };
  same(t, await run(false, ROWS, new Set(), resume), await run(true, ROWS, new Set(), resume), 1);
});

test.serial('a value that does not fit fails with the same sentence', async (t) => {
  const bad = async (beside: boolean) => {
    const shapes = COLUMNS.map(plainShape);
    const stats: TableDataStats = { rows: 0, lobs: 0, externalLobs: 0, lobBytes: 0, externalColumns: new Set() };
    async function* batches(): AsyncGenerator<RowBatch> {
      for await (const b of batchesOf(ROWS, new Set())) {
        if (b.rowKeys![0] === 'key 40001') b[5]![3] = 'not a timestamp';
        yield b;
      }
    }
    const ctx: TableDataContext = {
      schemaIndex: 0,
      tableIndex: 0,
      tableName: 'events',
      folder: 'table0',
      columns: COLUMNS,
      inlineMax: 2000,
      lobWriter: fakeLobWriter(),
      shapes,
      observer: new SourceFingerprint(shapes),
    };
    const xml = beside ? tableDataXmlBeside(batches(), ctx, stats) : tableDataXml(batches(), ctx, stats);
    for await (const _ of xml);
  };
  const one = await t.throwsAsync(bad(false), { instanceOf: SiardOcflError });
  const two = await t.throwsAsync(bad(true), { instanceOf: SiardOcflError });
  t.regex(one.message, /row 40006, column "at"/);
  t.is(two.message, one.message);
  t.is((two as SiardOcflError).code, (one as SiardOcflError).code);
});

test.serial('a reader that stops early closes the worker and the source', async (t) => {
  const shapes = COLUMNS.map(plainShape);
  const stats: TableDataStats = { rows: 0, lobs: 0, externalLobs: 0, lobBytes: 0, externalColumns: new Set() };
  const closed = { value: false };
  const ctx: TableDataContext = {
    schemaIndex: 0,
    tableIndex: 0,
    tableName: 'events',
    folder: 'table0',
    columns: COLUMNS,
    inlineMax: 2000,
    lobWriter: fakeLobWriter(),
    shapes,
  };
  let bytes = 0;
  for await (const chunk of tableDataXmlBeside(batchesOf(ROWS, new Set(), 1, closed), ctx, stats)) {
    if (!isSegmentCut(chunk)) bytes += chunk.length;
    if (bytes > 1_000_000) break;
  }
  t.true(closed.value);
});
