/**
 * LOB files begun ahead of their rows (lobs-ahead.ts) change nothing an export keeps. A table of
 * BLOB and CLOB columns (inline, in one file written on this thread or on a worker, split over
 * segment folders, streamed, NULL) written through a sink that writes files side by side and
 * through the same sink seen as one that does not (the writer's one-by-one path) gives the same
 * table XML, the same files at the same places, the same journal order, and at every cut the same
 * layout counters and journaled files (what a resumed export goes on from). Each cell's digest is
 * also checked against SHA-256 of the value put in. A LOB that cannot be written stops the table
 * with its error (its code kept) once no file is still being written.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SourceLob, SourceValue } from '../../../src/siard/database-source.js';
import { createLobLayout } from '../../../src/siard/lob-placement.js';
import { LobWriter } from '../../../src/siard/lob-writer.js';
import type { SiardColumn } from '../../../src/siard/model.js';
import { DirectorySink, type OutputSink } from '../../../src/siard/output-sink.js';
import { tableDataXml, type RowBatch, type TableDataStats } from '../../../src/siard/table-data.js';
import { rng } from '../../../fixtures/northwind.js';
import { treeDigests } from '../../helpers/file-tree.js';
import { tempDir } from '../../helpers/tmp.js';

const base = tempDir('siard-ocfl-lobs-ahead-');
const columns: SiardColumn[] = [
  { name: 'id', type: 'INTEGER' },
  { name: 'doc', type: 'BLOB' },
  { name: 'note', type: 'CLOB' },
  { name: 'scan', type: 'BLOB' },
  { name: 'pad', type: 'VARCHAR(40000)' },
];
const ROWS = 700;

function streamed(bytes: Buffer): SourceLob {
  return {
    kind: 'lob',
    byteLength: bytes.length,
    encoding: 'binary',
    async *open() {
      yield bytes.subarray(0, 1000);
      yield bytes.subarray(1000);
    },
  };
}

/** Rows whose sizes cross every way of writing a LOB; `pad` makes a cut every ~270 rows (8 Mi characters of XML). */
function makeRows(): SourceValue[][] {
  const rand = rng(39);
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
  return Array.from({ length: ROWS }, (_, r) => {
    const pick = rand();
    const size =
      pick < 0.2
        ? 1 + Math.floor(rand() * 2000)
        : pick < 0.5
          ? 2001 + Math.floor(rand() * 60_000)
          : pick < 0.97
            ? 70_000 + Math.floor(rand() * 60_000)
            : 900_000;
    const note = rand() < 0.3 ? null : 'é'.repeat(rand() < 0.5 ? 500 : 700 + Math.floor(rand() * 3000));
    const scan = rand() < 0.9 ? null : rand() < 0.5 ? streamed(bytes(5000)) : bytes(3000);
    return [r + 1, rand() < 0.05 ? null : bytes(size), note, scan, 'p'.repeat(30_000)];
  });
}
const rows = makeRows();

/** The sink as one that writes a file at a time: the writer's one-by-one path, the reference. */
function oneByOne(sink: DirectorySink): OutputSink {
  return { openFile: (p, o) => sink.openFile(p, o), commit: () => sink.commit(), abort: () => sink.abort() };
}

interface Written {
  xml: string;
  stats: TableDataStats;
  journal: string[];
  cuts: unknown[];
  files: Map<string, string>;
}

async function writeTable(name: string, ahead: boolean, prepare?: (staging: string) => void): Promise<Written> {
  const sink = new DirectorySink(path.join(base, name));
  await sink.prepareResumable();
  prepare?.(sink.stagingDir);
  const layout = createLobLayout('lobseg', 'db', { maxFiles: 23, maxBytes: 700_000 });
  const journal: string[] = [];
  const lobWriter = new LobWriter(ahead ? sink : oneByOne(sink), layout, 'SHA-256', (file) => journal.push(file.relPath));
  const cuts: unknown[] = [];
  const stats: TableDataStats = { rows: 0, lobs: 0, externalLobs: 0, lobBytes: 0, externalColumns: new Set() };
  const ctx = {
    ...{ schemaIndex: 0, tableIndex: 0, tableName: 't', folder: 'table0', columns, inlineMax: 2000, lobWriter },
    cutState: (key: unknown) => ({ key, layout: layout.snapshot(), journal: [...journal] }),
  };
  async function* batches(): AsyncIterable<RowBatch> {
    for (let at = 0; at < rows.length; at += 64) {
      const batch: RowBatch = Object.assign(rows.slice(at, at + 64), { rowKeys: rows.slice(at, at + 64).map((r) => r[0]) });
      yield batch;
    }
  }
  let xml = '';
  for await (const chunk of tableDataXml(batches(), ctx, stats)) {
    if (Buffer.isBuffer(chunk)) xml += chunk.toString('utf8');
    else cuts.push(chunk.state);
  }
  return { xml, stats, journal, cuts, files: treeDigests(sink.stagingDir) };
}

test('LOBs begun ahead: the same XML, files, journal order and cut states as one at a time; each digest that of its value', async (t) => {
  const reference = await writeTable('one-by-one', false);
  const ahead = await writeTable('ahead', true);
  t.true(reference.cuts.length >= 2, `cuts: ${reference.cuts.length}`);
  t.true(reference.files.size > 400, `files: ${reference.files.size}`);
  t.is(ahead.xml, reference.xml);
  t.deepEqual(ahead.cuts, reference.cuts);
  t.deepEqual(ahead.journal, reference.journal);
  t.deepEqual(ahead.files, reference.files);
  t.deepEqual(
    { ...ahead.stats, externalColumns: [...ahead.stats.externalColumns] },
    {
      ...reference.stats,
      externalColumns: [...reference.stats.externalColumns],
    },
  );
  // every file cell, row by row: its digest is SHA-256 of the value put in (the bytes as given, a CLOB's UTF-8)
  const cells = [...ahead.xml.matchAll(/<row>(.*?)<\/row>/g)].map((m) => m[1]!);
  t.is(cells.length, ROWS);
  let checked = 0;
  cells.forEach((row, r) => {
    for (const m of row.matchAll(/<c(\d) file="[^"]+" length="\d+" digestType="SHA-256" digest="([0-9a-f]{64})"\/>/g)) {
      const v = rows[r]![Number(m[1]) - 1]!;
      if (typeof v === 'object' && v !== null && 'kind' in v) continue; // streamed: its bytes are the generator's
      const bytes = typeof v === 'string' ? Buffer.from(v, 'utf8') : (v as Uint8Array);
      t.is(m[2], createHash('sha256').update(bytes).digest('hex'), `row ${r + 1} column ${m[1]}`);
      checked++;
    }
  });
  t.true(checked > 400, `checked ${checked}`);
});

test('a LOB file that cannot be written stops the table with its error and code, no file still being written', async (t) => {
  // the place of row 40's doc taken in advance: its worker's create fails with EEXIST
  const reference = await writeTable('find-place', false);
  const target = reference.journal.find((p) => p.includes('/lob2/record39.'));
  t.truthy(target);
  const err = await t.throwsAsync(
    writeTable('taken', true, (staging) => {
      mkdirSync(path.dirname(path.join(staging, target!)), { recursive: true });
      writeFileSync(path.join(staging, target!), 'taken');
    }),
  );
  t.is((err as NodeJS.ErrnoException).code, 'EEXIST');
});

test('a table written without a LOB writer (its XML in a worker up to the first LOB file) begins nothing ahead', async (t) => {
  const stats: TableDataStats = { rows: 0, lobs: 0, externalLobs: 0, lobBytes: 0, externalColumns: new Set() };
  const ctx = { schemaIndex: 0, tableIndex: 0, tableName: 't', folder: 'table0', columns, inlineMax: 2000 };
  async function* batches(): AsyncIterable<RowBatch> {
    yield [[1, Buffer.from('inline'), 'short', null, 'p']];
  }
  let xml = '';
  for await (const chunk of tableDataXml(batches(), { ...ctx, lobWriter: undefined as unknown as LobWriter }, stats)) {
    if (Buffer.isBuffer(chunk)) xml += chunk.toString('utf8');
  }
  t.regex(xml, /<row><c1>1<\/c1><c2>696e6c696e65<\/c2><c3>short<\/c3><c5>p<\/c5><\/row>/);
  t.is(stats.lobs, 2);
});
