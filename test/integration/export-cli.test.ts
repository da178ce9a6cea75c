/**
 * Acceptance 8 of issue 4 through the real command line: bad input exits 2 with a clear message
 * and leaves nothing behind; a good export prints its JSON summary. Needs the build (npm test builds).
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildNorthwind } from '../../fixtures/northwind.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const work = tempDir('siard-export-cli-');
const db = path.join(work, 'Northwind.db');
buildNorthwind(db);

function treeDigest(dir: string): string {
  const h = createHash('sha256');
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true }).sort((a, b) =>
    (a.parentPath + a.name).localeCompare(b.parentPath + b.name),
  )) {
    const p = path.join(e.parentPath, e.name);
    h.update(path.relative(dir, p));
    if (e.isFile()) h.update(readFileSync(p));
  }
  return h.digest('hex');
}

test('export prints a JSON summary and names the archive after the database file', async (t) => {
  const out = path.join(work, 'ok');
  const r = await runCli([
    'export',
    `sqlite:${db}`,
    out,
    '--json',
    '--max-files',
    '4',
    '--max-bytes',
    '45000',
    '--data-owner',
    'Test archive',
  ]);
  t.is(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  t.is(s.siard, 'Northwind.siard');
  t.is(s.tables, 6);
  t.is(s.rows, 87);
  t.is(s.lobs, 13);
  t.true(s.segments >= 3);
  t.true(s.bytes > 5 * 1024 * 1024);
  t.true(existsSync(path.join(out, 'Northwind.siard')));
  t.true(existsSync(path.join(out, 'Northwind_lobseg_0', 'content/schema0/table2/lob4/record0.bin')));
  t.true(
    readdirSync(out).every((n) => !n.startsWith('.')),
    'no staging folder left',
  );
});

test('--tables exports only the matching tables, numbered from 0 in export order', async (t) => {
  const out = path.join(work, 'some-tables');
  const r = await runCli(['export', db, out, '--json', '--tables', 'Cat*,Ship?ers', '--name', 'Part']);
  t.is(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  t.is(s.siard, 'Part.siard');
  t.is(s.tables, 2);
  t.is(s.rows, 8 + 4);
  t.true(existsSync(path.join(out, 'Part_lobseg_0', 'content/schema0/table0/lob4/record0.bin')), 'Categories is table0 now');
});

test('bad input: a missing database file exits 2 and creates nothing', async (t) => {
  const out = path.join(work, 'missing-out');
  const r = await runCli(['export', path.join(work, 'nope.db'), out]);
  t.is(r.code, 2);
  t.regex(r.stderr, /nope\.db does not exist/);
  t.false(existsSync(out));
});

test('bad input: a file that is not SQLite exits 2 and creates nothing', async (t) => {
  const fake = path.join(work, 'fake.sqlite');
  writeFileSync(fake, 'this is plain text, not a database\n'.repeat(10));
  const out = path.join(work, 'fake-out');
  const r = await runCli(['export', fake, out]);
  t.is(r.code, 2);
  t.regex(r.stderr, /fake\.sqlite is not a SQLite database/);
  t.false(existsSync(out));
});

test('bad input: an out-dir already holding the archive exits 2 and changes nothing', async (t) => {
  const out = path.join(work, 'twice');
  t.is((await runCli(['export', db, out, '--max-bytes', '100000'])).code, 0);
  const before = treeDigest(out);
  const r = await runCli(['export', db, out]);
  t.is(r.code, 2);
  t.regex(r.stderr, /already exists/);
  t.is(treeDigest(out), before, 'the earlier export is untouched');
  // Only a LOB folder of that name is enough to refuse.
  const other = path.join(work, 'lobs-only');
  mkdirSync(path.join(other, 'Northwind_lobseg_0'), { recursive: true });
  const r2 = await runCli(['export', db, other]);
  t.is(r2.code, 2);
  t.deepEqual(readdirSync(other), ['Northwind_lobseg_0']);
});

test('bad options exit 2 with one sentence', async (t) => {
  for (const args of [
    ['--lob-layout', 'flat'],
    ['--lob-digest', 'SHA-512'],
    ['--max-files', 'many'],
    ['--max-bytes', '0'],
    ['--lob-folder', 'file:///no/trailing/slash'],
  ]) {
    const out = path.join(work, `opt-${args[0]!.slice(2)}`);
    const r = await runCli(['export', db, out, ...args]);
    t.is(r.code, 2, args.join(' '));
    t.regex(r.stderr, /^siard-ocfl: .+/, args.join(' '));
    t.false(existsSync(out), args.join(' '));
  }
});

test('kill -9 during an export leaves nothing visible; the next export removes the leftovers', async (t) => {
  const Database = (await import('../../src/sources/sqlite/driver.js')).default;
  const { spawn } = await import('node:child_process');
  const { BIN } = await import('../helpers/cli.js');
  const big = path.join(work, 'big.db');
  const conn = new Database(big);
  conn.exec('CREATE TABLE b (id INTEGER PRIMARY KEY, data BLOB)');
  const ins = conn.prepare('INSERT INTO b VALUES (?, ?)');
  const chunk = Buffer.alloc(1 << 20, 7);
  conn.transaction(() => {
    for (let i = 1; i <= 300; i++) ins.run(i, chunk);
  })();
  conn.close();
  const out = path.join(work, 'killed');
  mkdirSync(out);
  const child = spawn(process.execPath, [BIN, 'export', big, out], { stdio: 'ignore' });
  // Wait until LOB files are being written into the staging folder, then kill hard.
  const started = Date.now();
  const stagingFiles = () =>
    readdirSync(out)
      .filter((n) => n.startsWith('.siard-ocfl-export-'))
      .flatMap((n) => readdirSync(path.join(out, n), { recursive: true }));
  while (stagingFiles().length < 20 && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 20));
  child.kill('SIGKILL');
  await new Promise((r) => child.once('close', r));
  const left = readdirSync(out);
  t.true(left.length > 0 && left.every((n) => n.startsWith('.siard-ocfl-export-')), `only a hidden staging folder: ${left.join(', ')}`);
  const r = await runCli(['export', big, out, '--json']);
  t.is(r.code, 0, r.stderr);
  t.deepEqual(readdirSync(out).sort(), ['big.fingerprints.json', 'big.siard', 'big_lobseg_0']);
});

test('--mets writes a parent mets.xml beside the .siard and a child mets.xml in every segment folder', async (t) => {
  const out = path.join(work, 'mets');
  const r = await runCli(['export', db, out, '--mets', '--json', '--max-files', '4', '--max-bytes', '45000', '--lob-digest', 'MD5']);
  t.is(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  const parent = readFileSync(path.join(out, 'mets.xml'), 'utf8');
  t.regex(parent, /Northwind\.siard/);
  for (const folder of s.lobFolders as string[]) {
    t.true(existsSync(path.join(out, folder, 'mets.xml')), `${folder}/mets.xml`);
    t.true(parent.includes(`${folder}/mets.xml`), `parent points at ${folder}`);
  }
  const child0 = readFileSync(path.join(out, 'Northwind_lobseg_0', 'mets.xml'), 'utf8');
  const md5 = createHash('md5')
    .update(readFileSync(path.join(out, 'Northwind_lobseg_0', 'content/schema0/table2/lob4/record0.bin')))
    .digest('hex');
  t.true(child0.toLowerCase().includes(md5), 'child METS carries the MD5 of its files');
  // an existing mets.xml in the out-dir is refused before anything is written
  const other = path.join(work, 'mets-clash');
  mkdirSync(other);
  writeFileSync(path.join(other, 'mets.xml'), 'mine');
  const r2 = await runCli(['export', db, other, '--mets']);
  t.is(r2.code, 2);
  t.deepEqual(readdirSync(other), ['mets.xml']);
});
