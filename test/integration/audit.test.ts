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
