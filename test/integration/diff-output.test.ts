/**
 * diff's output is held until the diff is done (issue 34; cli/held-output.ts): two ingests of a
 * database with 24,000 changed rows, whose --json output (1.2 MB) goes through the temporary file;
 * then a LOB file of the object damaged, read after those rows: the diff fails with exit 2 and stdout
 * is the JSON error document alone, not the head of the diff followed by it; no temporary file stays.
 */
import test from 'ava';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TableDiff } from '../../src/archive/diff/table-diff.js';
import { ingest } from '../../src/archive/ingest.js';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { initRoot, openRoot } from '../../src/ocfl/root.js';
import Database from '../../src/sources/sqlite/driver.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const ROWS = 24_000;
const LOB_BYTES = 2000;

test('diff --json: a failure after a megabyte of row changes leaves the JSON error alone on stdout, exit 2', async (t) => {
  const work = tempDir('siard-ocfl-diff-output-');
  const db = path.join(work, 'wide.db');
  const root = path.join(work, 'root');
  const scratch = path.join(work, 'tmp');
  const id = 'urn:example:wide';
  const user = { name: 'test', address: 'mailto:test@example.org' };
  const d = new Database(db);
  d.exec('CREATE TABLE a_rows (id INTEGER PRIMARY KEY, v TEXT); CREATE TABLE b_lob (id INTEGER PRIMARY KEY, data BLOB);');
  d.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS}) INSERT INTO a_rows SELECT i, 'v' || i FROM n`,
  ).run();
  d.prepare('INSERT INTO b_lob VALUES (1, ?)').run(Buffer.alloc(LOB_BYTES, 7));
  d.close();
  await ingest(`sqlite:${db}`, await initRoot(root, await loadLayout0003()), id, { name: 'wide', inlineMax: 1000, user });
  const e = new Database(db);
  e.exec(`UPDATE a_rows SET v = v || '!'`);
  e.close();
  await ingest(`sqlite:${db}`, await openRoot(root), id, { name: 'wide', inlineMax: 1000, user });
  mkdirSync(scratch);
  const env = { TMPDIR: scratch };

  const whole = await runCli(['diff', '--root', root, '--id', id, 'v1', 'v2', '--json'], { env });
  t.is(whole.code, 1, whole.stderr);
  t.true(whole.stdout.length > 1 << 20, `${whole.stdout.length} characters: beyond what is held in memory`);
  const out = JSON.parse(whole.stdout) as { tables: TableDiff[] };
  t.deepEqual(
    out.tables.map((x) => [x.table, x.changed, x.added + x.removed]),
    [
      ['main.a_rows', ROWS, 0],
      ['main.b_lob', 0, 0],
    ],
    'the changed rows come first, the table with the LOB after them',
  );
  t.deepEqual(
    out.tables[0]!.rows.map((r) => Number(r.key[0])).sort((x, y) => x - y),
    Array.from({ length: ROWS }, (_, i) => i + 1),
  );

  // The LOB file (one copy in the object, both versions point at it) damaged, its length kept.
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => (statSync(path.join(dir, n)).isDirectory() ? files(path.join(dir, n)) : [path.join(dir, n)]));
  const lobs = files(root).filter((f) => statSync(f).size === LOB_BYTES);
  t.is(lobs.length, 1);
  const bytes = readFileSync(lobs[0]!);
  bytes[0] = 8;
  writeFileSync(lobs[0]!, bytes);

  const failed = await runCli(['diff', '--root', root, '--id', id, 'v1', 'v2', '--json'], { env });
  const doc = JSON.parse(failed.stdout) as { error: { code: string; message: string; exitCode: number } };
  t.is(failed.code, 2, 'exit 2: the versions could not be compared (1 would say they differ)');
  t.deepEqual(Object.keys(doc), ['error']);
  t.deepEqual([doc.error.code, doc.error.exitCode], ['LOB_DIGEST', 2]);
  t.regex(doc.error.message, /b_lob/);
  t.deepEqual(readdirSync(scratch), [], 'the held output removed');
});
