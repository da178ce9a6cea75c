/**
 * The journal of a resumable export (docs/resume.md): what follows the last table line (the table
 * in progress, a torn line) is not part of the work; a table line whose LOB count or digest
 * disagrees with the LOB lines before it makes the journal unusable; continuing a journal cuts it
 * back to its last table line, so the lines of the table written again are counted once.
 */
import test from 'ava';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { JOURNAL_FORMAT, JournalWriter, journaledLobs, readJournal, type LobLine } from '../../../../src/siard/resume/export-journal.js';
import { tempDir } from '../../../helpers/tmp.js';

const header = { format: JOURNAL_FORMAT, key: 'k'.repeat(64), name: 'db', archivalDay: '2026-11-29', source: 'db.sqlite' };

function table(n: number) {
  return {
    schema: 0,
    table: n,
    qualifiedName: `main.t${n}`,
    written: { name: `t${n}`, folder: `table${n}`, columns: [], foreignKeys: [], candidateKeys: [], rows: 2 },
    stats: { rows: 2, externalLobs: 1, lobBytes: 10 },
    catalogRows: 2,
    zip: { offset: 100 * (n + 1), sha256: 'a'.repeat(64), entries: [] },
    layout: { files: n + 1, fillers: {} },
  };
}

async function lobsOf(file: string, validLength: number): Promise<LobLine[]> {
  const out: LobLine[] = [];
  for await (const l of journaledLobs(file, validLength)) out.push(l);
  return out;
}

test('a table line ends a table; the lines after the last one and a torn line are not the work', async (t) => {
  const file = path.join(tempDir(), 'journal.jsonl');
  const w = JournalWriter.create(file, header);
  w.lob(['db_lobseg_0/a.bin', 5, 'd1']);
  w.lob(['db_lobseg_0/b.bin', 5, 'd2']);
  w.table(table(0));
  const afterTable = readFileSync(file).length;
  w.lob(['db_lobseg_0/c.bin', 7, 'd3']);
  w.table(table(1));
  w.lob(['db_lobseg_0/d.bin', 9, 'd4']); // the table in progress
  w.close();
  appendFileSync(file, '{"table":{"schema":0,"tab'); // torn by the kill
  const read = await readJournal(file);
  t.truthy(read);
  t.deepEqual(read!.header, header);
  t.deepEqual(
    read!.tables.map((l) => l.table),
    [0, 1],
  );
  t.is(read!.lobFiles, 3);
  t.true(read!.validLength > afterTable);
  t.deepEqual(
    (await lobsOf(file, read!.validLength)).map((l) => l[0]),
    ['db_lobseg_0/a.bin', 'db_lobseg_0/b.bin', 'db_lobseg_0/c.bin'],
  );
});

test('a LOB line changed, dropped or added before a table line makes the journal unusable', async (t) => {
  const dir = tempDir();
  const file = path.join(dir, 'journal.jsonl');
  const w = JournalWriter.create(file, header);
  w.lob(['x/a.bin', 5, 'd1']);
  w.lob(['x/b.bin', 5, 'd2']);
  w.table(table(0));
  w.close();
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const variants = {
    changed: text.replace('"x/b.bin",5', '"x/b.bin",6'),
    dropped: [lines[0], lines[2], lines[3], ''].join('\n'),
    added: [lines[0], lines[1], lines[1], lines[2], lines[3], ''].join('\n'),
  };
  for (const [what, body] of Object.entries(variants)) {
    const damaged = path.join(dir, `${what}.jsonl`);
    writeFileSync(damaged, body);
    t.is(await readJournal(damaged), undefined, what);
  }
  t.truthy(await readJournal(file), 'the journal as written is read');
});

test('continuing a journal cuts it back to its last table line', async (t) => {
  const file = path.join(tempDir(), 'journal.jsonl');
  const first = JournalWriter.create(file, header);
  first.lob(['x/a.bin', 5, 'd1']);
  first.table(table(0));
  first.lob(['x/b.bin', 5, 'd2']); // the table in progress when killed
  first.close();
  const read = await readJournal(file);
  const again = await JournalWriter.continue(file, read!.validLength);
  again.lob(['x/b.bin', 5, 'd2']); // the same table written again
  again.lob(['x/c.bin', 6, 'd3']);
  again.table(table(1));
  again.close();
  const after = await readJournal(file);
  t.deepEqual(
    after!.tables.map((l) => l.table),
    [0, 1],
  );
  t.is(after!.lobFiles, 3);
  t.deepEqual(
    (await lobsOf(file, after!.validLength)).map((l) => l[0]),
    ['x/a.bin', 'x/b.bin', 'x/c.bin'],
  );
});

test('a journal without its header, or of another format, is not read', async (t) => {
  const dir = tempDir();
  const none = path.join(dir, 'none.jsonl');
  writeFileSync(none, '{"lob":["x",1,"d"]}\n');
  t.is(await readJournal(none), undefined);
  const other = path.join(dir, 'other.jsonl');
  writeFileSync(other, `${JSON.stringify({ ...header, format: 99 })}\n`);
  t.is(await readJournal(other), undefined);
});

function batch(key: string) {
  return {
    schema: 0,
    table: 1,
    qualifiedName: 'main.t1',
    key,
    settled: false,
    cut: { zip: { offset: 500, sha256: 'b'.repeat(64), entries: [] } },
    stats: { rows: 7, lobs: 1, externalLobs: 1, lobBytes: 9, externalColumns: [1] },
    arrayUse: [],
    layout: { files: 2, fillers: {} },
  };
}

test('a batch line: the LOB lines after its cut wait for it, and the journal read up to it is the table in progress there', async (t) => {
  const file = path.join(tempDir(), 'journal.jsonl');
  const w = JournalWriter.create(file, header);
  w.lob(['db_lobseg_0/a.bin', 5, 'd1']);
  w.table(table(0));
  w.lob(['db_lobseg_0/b.bin', 5, 'd2']); // a row before the cut
  const mark = w.mark();
  w.lob(['db_lobseg_0/c.bin', 5, 'd3']); // a row after it, written before the cut's bytes are durable
  w.batch(mark, batch('41'));
  w.close();
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  t.deepEqual(
    lines.map((l) => Object.keys(JSON.parse(l) as object)[0]),
    ['format', 'lob', 'table', 'lob', 'batch', 'lob'],
  );
  const read = await readJournal(file);
  t.is(read!.progress?.key, '41');
  t.is(read!.lobFiles, 2);
  t.deepEqual(
    (await lobsOf(file, read!.validLength)).map((l) => l[0]),
    ['db_lobseg_0/a.bin', 'db_lobseg_0/b.bin'],
  );
  // continued after the cut: the table's line counts the LOB lines before the cut and those after it, once
  const w2 = await JournalWriter.continue(file, read!.validLength, read!.lobsSinceTable);
  w2.lob(['db_lobseg_0/c.bin', 5, 'd3']);
  w2.table(table(1));
  w2.close();
  const done = await readJournal(file);
  t.deepEqual(
    done!.tables.map((l) => [l.table, l.lobs.count]),
    [
      [0, 1],
      [1, 2],
    ],
  );
  t.is(done!.progress, undefined);
  t.is(done!.lobFiles, 3);
});

test('a batch line whose LOB count disagrees makes the journal unusable; a restart line voids the cuts before it', async (t) => {
  const file = path.join(tempDir(), 'journal.jsonl');
  const w = JournalWriter.create(file, header);
  w.table(table(0));
  const afterTable = readFileSync(file).length;
  w.batch(w.mark(), batch('9'));
  w.restartTable(0, 1);
  w.close();
  const read = await readJournal(file);
  t.is(read!.progress, undefined);
  t.is(read!.validLength, afterTable);
  const text = readFileSync(file, 'utf8').replace('"count":0', '"count":1');
  writeFileSync(file, text);
  t.is(await readJournal(file), undefined);
});
