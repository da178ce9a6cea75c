/**
 * A table of mostly LOB files cuts every 4,096 LOB files, not only every 8 MiB of XML (table-data.ts,
 * docs/resume.md): 9,000 rows of one 2,100-byte BLOB each (a file each: inline up to 2,000 bytes)
 * are 1.9 MB of XML, under one 8 MiB cut, and cut after rows 4,096 and 8,192; each cut's journal
 * holds exactly the files of the rows before it. A run that goes on after the first cut (its stats
 * those of the rows before it, as a resumed export's) cuts after the same row as the uninterrupted
 * one and writes the same XML after it.
 */
import test from 'ava';
import path from 'node:path';
import { createLobLayout } from '../../../src/siard/lob-placement.js';
import { LobWriter } from '../../../src/siard/lob-writer.js';
import type { SiardColumn } from '../../../src/siard/model.js';
import { DirectorySink } from '../../../src/siard/output-sink.js';
import { tableDataXml, type RowBatch, type TableDataStats } from '../../../src/siard/table-data.js';
import { tempDir } from '../../helpers/tmp.js';

const base = tempDir('siard-ocfl-lob-cuts-');
const columns: SiardColumn[] = [
  { name: 'id', type: 'INTEGER' },
  { name: 'doc', type: 'BLOB' },
];
const ROWS = 9000;
const rows = Array.from({ length: ROWS }, (_, r) => {
  const blob = Buffer.alloc(2100, r % 251);
  blob.writeUInt32BE(r, 0);
  return [r + 1, blob];
});

interface Cut {
  key: unknown;
  files: number;
  layout?: unknown;
}

/** The table written from row `from` (0-based) on, with `stats` as they were before it; its XML after `from` and its cuts. */
async function write(name: string, from: number, stats: TableDataStats, layoutAt?: unknown): Promise<{ xml: string; cuts: Cut[] }> {
  const sink = new DirectorySink(path.join(base, name), false);
  await sink.prepareResumable(); // the staging folder made before files are written side by side
  const layout = createLobLayout('lobseg', 'db', { maxFiles: 1000, maxBytes: 1e9 });
  if (layoutAt) layout.restore(layoutAt as Parameters<typeof layout.restore>[0]);
  const journal: string[] = [];
  const lobWriter = new LobWriter(sink, layout, 'SHA-256', (file) => journal.push(file.relPath));
  const cuts: Cut[] = [];
  const ctx = {
    ...{ schemaIndex: 0, tableIndex: 0, tableName: 't', folder: 'table0', columns, inlineMax: 2000, lobWriter },
    cutState: (key: unknown) => ({ key, files: journal.length, layout: layout.snapshot() }),
    ...(from > 0 ? { continued: true } : {}),
  };
  async function* batches(): AsyncIterable<RowBatch> {
    for (let at = from; at < ROWS; at += 500) {
      const batch = rows.slice(at, Math.min(ROWS, at + 500));
      yield Object.assign(batch, { rowKeys: batch.map((r) => r[0]) });
    }
  }
  let xml = '';
  for await (const chunk of tableDataXml(batches(), ctx, stats)) {
    if (Buffer.isBuffer(chunk)) xml += chunk.toString('utf8');
    else cuts.push(chunk.state as Cut);
  }
  await sink.abort();
  return { xml, cuts };
}

const fresh = (): TableDataStats => ({ rows: 0, lobs: 0, externalLobs: 0, lobBytes: 0, externalColumns: new Set() });

test('a table of LOB files cuts every 4,096 files under 8 MiB of XML; a run going on after a cut cuts as the whole run', async (t) => {
  const whole = await write('whole', 0, fresh());
  t.true(whole.xml.length < 8 * 1024 * 1024, `${whole.xml.length} characters of XML`);
  t.deepEqual(
    whole.cuts.map(({ key, files }) => ({ key, files })),
    [
      { key: 4096, files: 4096 },
      { key: 8192, files: 8192 },
    ],
  );
  // as a resumed export goes on after the first cut: the rows before it counted in its stats
  const stats = { ...fresh(), rows: 4096, lobs: 4096, externalLobs: 4096, lobBytes: 4096 * 2100, externalColumns: new Set([1]) };
  const after = await write('after', 4096, stats, whole.cuts[0]!.layout);
  t.deepEqual(
    after.cuts.map((c) => c.key),
    [8192],
  );
  const rowsAfter = (xml: string) => xml.slice(xml.indexOf('  <row><c1>4097</c1>'));
  t.is(after.xml, rowsAfter(whole.xml));
  t.is(stats.externalLobs, ROWS);
});
