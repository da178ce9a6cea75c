/**
 * Acceptance 2: audit finds each corruption, exits 1 and names the file (and table/row/column where
 * it applies): a flipped byte in a LOB file, a deleted LOB file, a truncated .siard, a wrong
 * `length` attribute, a missing split part; a LOB file no cell references is a warning (exit 0).
 * Each case works on its own copy of one ingested Northwind object.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { promises as fsp, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openRoot } from '../../src/ocfl/root.js';
import {
  auditCli,
  contentPaths,
  copyTree,
  ingestNorthwind,
  readInventory,
  type AuditJson,
  type Ingested,
} from '../helpers/archive-support.js';
import { tempDir } from '../helpers/tmp.js';

let base: Ingested;
test.before(async () => {
  base = await ingestNorthwind();
});

/** A private copy of the ingested root; returns its root and object folder. */
function copy(): { root: string; objectDir: string } {
  const dir = tempDir('siard-ocfl-audit-');
  const root = path.join(dir, 'root');
  copyTree(base.root, root);
  return { root, objectDir: path.join(root, path.relative(base.root, base.objectDir)) };
}

const PICTURE_3 = 'Northwind_lobseg_0/content/schema0/table2/lob4/record2.bin';

function errors(report: AuditJson, code: string) {
  return report.findings.filter((f) => f.code === code && f.severity === 'error');
}

test('the untouched object passes', async (t) => {
  const { cli, report } = await auditCli(base.root);
  t.is(cli.code, 0, cli.stdout);
  t.true(report.ok);
  t.is(report.objects[0]!.siards[0]!.messageDigest, 'verified');
});

test('a flipped byte in a LOB file', async (t) => {
  const { root, objectDir } = copy();
  const file = path.join(objectDir, contentPaths(readInventory(objectDir)).get(PICTURE_3)!);
  const bytes = readFileSync(file);
  bytes[100] = bytes[100]! ^ 0x01;
  writeFileSync(file, bytes);
  const { cli, report } = await auditCli(root);
  t.is(cli.code, 1);
  const lob = errors(report, 'LOB_DIGEST');
  t.is(lob.length, 1);
  t.like(lob[0], { path: PICTURE_3, table: 'main.Categories', row: 3, column: 'Picture' });
  t.true(
    errors(report, 'E092').some((f) => f.message.includes(PICTURE_3)),
    'manifest digest mismatch named',
  );
  t.true(
    errors(report, 'E093').some((f) => f.message.includes(PICTURE_3)),
    'fixity mismatch named',
  );
});

test('a deleted LOB file', async (t) => {
  const { root, objectDir } = copy();
  await fsp.rm(path.join(objectDir, contentPaths(readInventory(objectDir)).get(PICTURE_3)!));
  const { cli, report } = await auditCli(root);
  t.is(cli.code, 1);
  t.true(
    errors(report, 'E092').some((f) => f.message.includes(PICTURE_3)),
    'the validator names the missing content file',
  );
  t.like(errors(report, 'LOB_MISSING')[0], { path: PICTURE_3, table: 'main.Categories', row: 3, column: 'Picture' });
  t.is(report.objects[0]!.siards[0]!.lobFiles, 128, 'the other LOB files were still checked');
});

test('a LOB file removed from the version: missing, with table, row and column', async (t) => {
  const { root } = copy();
  const staged = await (await openRoot(root)).startVersion(base.id);
  await staged.remove(PICTURE_3);
  await staged.commit({ message: 'lose a picture', user: { name: 'test' } });
  const { cli, report } = await auditCli(root);
  t.is(cli.code, 1);
  t.like(errors(report, 'LOB_MISSING')[0], { path: PICTURE_3, table: 'main.Categories', row: 3, column: 'Picture' });
});

test('a truncated .siard', async (t) => {
  const { root, objectDir } = copy();
  const file = path.join(objectDir, contentPaths(readInventory(objectDir)).get('Northwind.siard')!);
  truncateSync(file, 9000);
  const { cli, report } = await auditCli(root);
  t.is(cli.code, 1);
  t.like(errors(report, 'SIARD_UNREADABLE')[0], { path: 'Northwind.siard' });
  t.true(errors(report, 'E092').some((f) => f.message.includes('Northwind.siard')));
});

test('a wrong length attribute', async (t) => {
  const { root, objectDir } = copy();
  const siard = path.join(objectDir, contentPaths(readInventory(objectDir)).get('Northwind.siard')!);
  const altered = path.join(path.dirname(root), 'Northwind.siard');
  // Rewrite table2.xml with python's zipfile (independent of our ZIP code): row 1 Picture length 10151 -> 10150.
  execFileSync('python3', [
    '-c',
    `import sys, zipfile
src, dst = zipfile.ZipFile(sys.argv[1]), zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED)
for info in src.infolist():
    data = src.read(info)
    if info.filename == 'content/schema0/table2/table2.xml':
        assert b'length="10151"' in data
        data = data.replace(b'length="10151"', b'length="10150"', 1)
    dst.writestr(info, data)
dst.close()`,
    siard,
    altered,
  ]);
  const staged = await (await openRoot(root)).startVersion(base.id, { fixityAlgorithms: ['sha256'] });
  await staged.addFile('Northwind.siard', altered);
  await staged.commit({ message: 'a wrong length', user: { name: 'test' } });
  const { cli, report } = await auditCli(root);
  t.is(cli.code, 1);
  const f = errors(report, 'LOB_LENGTH');
  t.is(f.length, 1);
  t.like(f[0], { path: 'Northwind_lobseg_0/content/schema0/table2/lob4/record0.bin', table: 'main.Categories', row: 1, column: 'Picture' });
  t.regex(f[0]!.message, /10151 bytes.*length 10150/);
});

test('a missing split part', async (t) => {
  const { root, objectDir } = copy();
  const parts = [...contentPaths(readInventory(objectDir)).keys()].filter((p) => /\/table4\/lob7\/record1\.bin\.\d+$/.test(p));
  t.true(parts.length > 5);
  const victim = parts.find((p) => p.endsWith('.5'))!;
  const staged = await (await openRoot(root)).startVersion(base.id);
  await staged.remove(victim);
  await staged.commit({ message: 'lose a part', user: { name: 'test' } });
  const { cli, report } = await auditCli(root);
  t.is(cli.code, 1);
  const f = errors(report, 'LOB_SPLIT_INCOMPLETE');
  t.is(f.length, 1);
  t.like(f[0], { table: 'main.Employees', row: 2, column: 'Photo' });
  t.regex(f[0]!.path!, /table4\/lob7\/record1\.bin$/);
});

test('a LOB file no cell references: a warning, exit 0', async (t) => {
  const { root } = copy();
  const stray = path.join(path.dirname(root), 'stray.bin');
  writeFileSync(stray, 'not referenced by any cell');
  const staged = await (await openRoot(root)).startVersion(base.id, { fixityAlgorithms: ['sha256'] });
  await staged.addFile('Northwind_lobseg_0/content/schema0/table2/lob4/stray.bin', stray);
  await staged.commit({ message: 'a stray file', user: { name: 'test' } });
  const { cli, report } = await auditCli(root);
  t.is(cli.code, 0, cli.stdout);
  const w = report.findings.filter((f) => f.code === 'LOB_UNREFERENCED');
  t.is(w.length, 1);
  t.like(w[0], { severity: 'warning', path: 'Northwind_lobseg_0/content/schema0/table2/lob4/stray.bin' });
});

test('human output: summary and exit 2 for an unknown object', async (t) => {
  const { runCli } = await import('../helpers/cli.js');
  const ok = await runCli(['audit', '--root', base.root]);
  t.regex(ok.stdout, /AUDIT PASSED: 1 object, 0 errors/);
  const missing = await runCli(['audit', '--root', base.root, '--id', 'no-such-object']);
  t.is(missing.code, 2);
  t.regex(missing.stderr, /no object "no-such-object"/);
});

/**
 * The pool hashes the content files from the start, before the plan says which files a LOB cell
 * needs more of. Here the object is `put` from an exported folder, so its inventory has no fixity
 * block and every BLOB cell's SHA-256 must be computed besides the manifest's sha512, and its
 * non-ASCII CLOBs (length in characters, not bytes) are read by jobs of the plan: a file hashed
 * before the plan reached it is hashed again or read by its job, one not yet handed over is hashed
 * once with both. 2,600 LOB files: more than the sets the pool is handed before the plan begins.
 */
test('an object without a fixity block: every LOB cell checked, whichever read came first', async (t) => {
  const { runCli } = await import('../helpers/cli.js');
  const Database = (await import('../../src/sources/sqlite/driver.js')).default;
  const { createHash, randomBytes } = await import('node:crypto');
  const dir = tempDir('siard-ocfl-audit-put-');
  const db = path.join(dir, 'docs.db');
  const d = new Database(db);
  d.exec('CREATE TABLE docs (id INTEGER PRIMARY KEY, body BLOB NOT NULL, note TEXT)');
  const insert = d.prepare('INSERT INTO docs VALUES (?, ?, ?)');
  d.transaction(() => {
    for (let i = 1; i <= 2500; i++) insert.run(i, randomBytes(2100), i % 25 === 0 ? `${i} é中`.repeat(400) : null);
  })();
  d.close();
  const out = path.join(dir, 'out');
  t.is((await runCli(['export', `sqlite:${db}`, out])).code, 0);
  const root = path.join(dir, 'root');
  t.is((await runCli(['init', root])).code, 0);
  t.is((await runCli(['put', out, '--root', root, '--id', 'docs'])).code, 0, 'put');
  const objectDir = path.join(root, (await runCli(['path', '--root', root, 'docs'])).stdout.trim());
  const inv = readInventory(objectDir);
  t.is(inv.fixity, undefined, 'no fixity block: the cells need SHA-256 the inventory lacks');

  const clean = await auditCli(root);
  t.is(clean.cli.code, 0, clean.cli.stdout);
  t.like(clean.report.objects[0]!.siards[0], { lobs: 2600, lobFiles: 2600 });

  // A flipped byte in the first, a middle and the last BLOB file in path order, and in a CLOB file.
  const lobFiles = [...contentPaths(inv).entries()].filter(([logical]) => logical.endsWith('.txt') || logical.endsWith('.bin')).sort();
  t.is(lobFiles.length, 2600);
  const blobs = lobFiles.filter(([l]) => l.endsWith('.bin'));
  const damaged = [blobs[0]!, blobs[1250]!, blobs[blobs.length - 1]!, lobFiles.find(([l]) => l.endsWith('.txt'))!];
  for (const [, content] of damaged) {
    const bytes = readFileSync(path.join(objectDir, content));
    bytes[7] = bytes[7]! ^ 0x10;
    writeFileSync(path.join(objectDir, content), bytes);
  }
  const { cli, report } = await auditCli(root);
  t.is(cli.code, 1);
  const digestFindings = errors(report, 'LOB_DIGEST');
  t.deepEqual(digestFindings.map((f) => f.path).sort(), damaged.map(([l]) => l).sort());
  for (const f of digestFindings) {
    // The SHA-256 named is the one of the bytes on disk, computed here.
    const content = damaged.find(([l]) => l === f.path)![1];
    const now = createHash('sha256')
      .update(readFileSync(path.join(objectDir, content)))
      .digest('hex');
    t.true(f.message.includes(` has SHA-256 ${now}, but the cell says `), f.message);
  }
  t.deepEqual(errors(report, 'E092').length, damaged.length);
});
