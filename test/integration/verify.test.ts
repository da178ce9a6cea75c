/**
 * verify and the table fingerprints (issue 34, points 1 and 2), on a small SQLite database made for
 * them: a table with an integer key, LOB files (BLOB and CLOB above --inline-max) and every scalar
 * family SQLite has; a table with a composite key; a table without key holding equal rows twice.
 * - export writes the fingerprints file; `restore --verify` of the export says every table equal,
 *   the archive's rows equal to the source's fingerprint;
 * - in the restored database a changed cell, a changed LOB, a deleted row, a row deleted of two equal
 *   ones and an added row are named by key (the row itself without key) and column, counted exactly;
 * - the same with the target's rows in another order and every unmatched row on disk (a tiny memory
 *   limit), in process;
 * - audit of an ingested object whose fingerprints file does not match its rows names the table.
 */
import test from 'ava';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { audit } from '../../src/archive/audit.js';
import { ingest } from '../../src/archive/ingest.js';
import { verify, type VerifiedTable } from '../../src/archive/verify/verify.js';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { initRoot, openRoot } from '../../src/ocfl/root.js';
import Database from '../../src/sources/sqlite/driver.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const work = tempDir('siard-ocfl-verify-');
const source = path.join(work, 'shop.db');
const out = path.join(work, 'out');
const siard = path.join(out, 'shop.siard');

function build(file: string): void {
  const db = new Database(file);
  db.exec(`
    CREATE TABLE item (id INTEGER PRIMARY KEY, name VARCHAR(40), price NUMERIC(10,2), weight REAL, made TIMESTAMP,
                       sold BOOLEAN, photo BLOB, notes TEXT);
    CREATE TABLE pair (a TEXT, b INTEGER, v TEXT, PRIMARY KEY (a, b));
    CREATE TABLE log (msg TEXT, n INTEGER);`);
  const item = db.prepare('INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  for (let i = 1; i <= 30; i++) {
    const photo = i % 5 === 0 ? Buffer.alloc(3000 + i, i) : i % 3 === 0 ? null : Buffer.from([i, 0, 255]);
    const notes = i % 4 === 0 ? `long note ${i} `.repeat(200) : i % 7 === 0 ? null : `note <${i}> & "more"`;
    item.run(
      i,
      `item ${i}`,
      (i * 1.25).toFixed(2),
      i / 3,
      `2024-01-${String(1 + (i % 28)).padStart(2, '0')} 10:${i % 60}:00`,
      i % 2,
      photo,
      notes,
    );
  }
  const pair = db.prepare('INSERT INTO pair VALUES (?, ?, ?)');
  for (const a of ['x', 'y', 'z']) for (let b = 1; b <= 4; b++) pair.run(a, b, `${a}${b}`);
  const log = db.prepare('INSERT INTO log VALUES (?, ?)');
  for (const [msg, n] of [
    ['start', 1],
    ['tick', 2],
    ['tick', 2],
    ['stop', null],
  ] as const)
    log.run(msg, n);
  db.close();
}

build(source);

function table(tables: VerifiedTable[], name: string): VerifiedTable {
  return tables.find((t) => t.table === `main.${name}`)!;
}

test.serial('export writes the fingerprints; restore --verify finds every table equal, the archive equal to its source', async (t) => {
  const exp = await runCli(['export', source, out, '--inline-max', '1000', '--json']);
  t.is(exp.code, 0, exp.stderr);
  const summary = JSON.parse(exp.stdout) as { fingerprints: string; lobs: number };
  t.is(summary.fingerprints, 'shop.fingerprints.json');
  t.true(summary.lobs >= 12, 'BLOBs and CLOBs above --inline-max are files');
  const file = JSON.parse(readFileSync(path.join(out, 'shop.fingerprints.json'), 'utf8')) as {
    tables: Array<{ table: string; rows: number }>;
  };
  t.deepEqual(
    file.tables.map((x) => [x.table, x.rows]),
    [
      ['item', 30],
      ['pair', 12],
      ['log', 4],
    ],
  );
  const res = await runCli(['restore', siard, path.join(work, 'restored.db'), '--verify', '--json']);
  t.is(res.code, 0, res.stderr + res.stdout);
  const verified = (JSON.parse(res.stdout) as { verify: { ok: boolean; tables: VerifiedTable[] } }).verify;
  t.true(verified.ok);
  for (const x of verified.tables) {
    t.true(x.equal, x.table);
    t.is(x.fingerprint, 'equal', x.table);
    t.is(x.targetRows, x.rows, x.table);
  }
});

test.serial('a changed cell, a changed LOB, deleted and added rows are named by key and column; exit 1', async (t) => {
  const target = path.join(work, 'restored.db');
  const db = new Database(target);
  db.exec(`UPDATE item SET name = 'renamed' WHERE id = 7;
           UPDATE item SET photo = zeroblob(3010) WHERE id = 10;
           DELETE FROM item WHERE id = 9;
           DELETE FROM log WHERE rowid = (SELECT max(rowid) FROM log WHERE msg = 'tick');
           INSERT INTO pair VALUES ('w', 1, 'w1');`);
  db.close();
  const res = await runCli(['verify', siard, target, '--json']);
  t.is(res.code, 1, res.stderr);
  const result = JSON.parse(res.stdout) as { ok: boolean; tables: VerifiedTable[] };
  t.false(result.ok);
  const item = table(result.tables, 'item');
  t.deepEqual([item.missing, item.extra, item.changed, item.rows, item.targetRows], [1, 0, 2, 30, 29]);
  t.deepEqual(item.differences.map((d) => [d.key, d.column, d.change]).sort(), [
    [['10'], 'photo', 'changed'],
    [['7'], 'name', 'changed'],
    [['9'], null, 'missing'],
  ]);
  const log = table(result.tables, 'log');
  t.deepEqual(
    log.differences.map((d) => [d.key, d.column, d.change]),
    [[['tick', '2'], null, 'missing']],
    'a table without key: the row itself, one of its two copies',
  );
  const pair = table(result.tables, 'pair');
  t.deepEqual(
    pair.differences.map((d) => [d.key, d.change]),
    [[['w', '1'], 'extra']],
  );
  for (const x of result.tables) t.is(x.fingerprint, 'equal', 'the archive still equals its source');
});

test.serial('rows in another order, every unmatched row on disk: the same differences', async (t) => {
  // pair and log written again in reverse order (their rowids are their order)
  const target = path.join(work, 'restored.db');
  const db = new Database(target);
  db.exec(`CREATE TABLE p2 AS SELECT * FROM pair ORDER BY rowid DESC; DELETE FROM pair; INSERT INTO pair SELECT * FROM p2; DROP TABLE p2;
           CREATE TABLE l2 AS SELECT * FROM log ORDER BY rowid DESC; DELETE FROM log; INSERT INTO log SELECT * FROM l2; DROP TABLE l2;`);
  db.close();
  const scratch = path.join(work, 'scratch');
  mkdirSync(scratch);
  const result = await verify({ siard }, target, { memoryBytes: 1, scratchDir: scratch });
  t.deepEqual(
    table(result.tables, 'pair').differences.map((d) => [d.key, d.change]),
    [[['w', '1'], 'extra']],
  );
  t.deepEqual(
    table(result.tables, 'log').differences.map((d) => [d.key, d.change]),
    [[['tick', '2'], 'missing']],
  );
  t.is(table(result.tables, 'item').changed, 2);
  t.deepEqual(readdirSync(scratch), [], 'the file of unmatched rows is removed');
});

test.serial('audit names a table whose rows do not match the fingerprint the export took', async (t) => {
  const root = path.join(work, 'root');
  const id = 'urn:example:shop';
  await ingest(`sqlite:${source}`, await initRoot(root, await loadLayout0003()), id, {
    name: 'shop',
    inlineMax: 1000,
    user: { name: 'test', address: 'mailto:test@example.org' },
  });
  const clean = await audit(root, { ids: [id] });
  t.true(clean.ok, JSON.stringify(clean.findings));
  // a second version whose fingerprints file says other things of table pair
  const ocfl = await openRoot(root);
  const staged = await ocfl.startVersion(id);
  const name = 'shop.fingerprints.json';
  t.true(staged.currentState().has(name), 'ingest stored the fingerprints beside the .siard');
  const file = JSON.parse(readFileSync(path.join(out, name), 'utf8')) as { tables: Array<{ table: string; fingerprint: string }> };
  file.tables.find((x) => x.table === 'pair')!.fingerprint = '0123456789abcdef';
  await staged.addBuffer(name, JSON.stringify(file));
  await staged.commit({ message: 'a wrong fingerprint', user: { name: 'test', address: 'mailto:test@example.org' } });
  const report = await audit(root, { ids: [id] });
  t.false(report.ok);
  const found = report.findings.filter((f) => f.code === 'SIARD_FINGERPRINT');
  t.deepEqual(
    found.map((f) => [f.severity, f.table]),
    [['error', 'main.pair']],
  );
  t.regex(found[0]!.message, /table main\.pair: its rows as archived \(12 rows, fingerprint [0-9a-f]{16}\) are not those the export read/);
});
