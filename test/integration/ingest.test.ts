/**
 * Acceptance 5 and the ingest contract: two ingests of the same database give a second version
 * that stores nothing new but the .siard; a changed LOB is the only LOB stored again; the version
 * state is exactly the new export; the export goes straight into the object (nothing is left in
 * the workspace or beside the root); and a failed ingest leaves no version behind.
 */
import test from 'ava';
import Database from '../../src/sources/sqlite/driver.js';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ingest } from '../../src/archive/ingest.js';
import { openRoot } from '../../src/ocfl/root.js';
import { contentPaths, fixityOf, ingestNorthwind, NORTHWIND_LIMITS, readInventory, type Ingested } from '../helpers/archive-support.js';
import { runCli } from '../helpers/cli.js';

let base: Ingested;
test.before(async () => {
  base = await ingestNorthwind();
});

test.serial('the second ingest of the same database stores nothing new but the .siard', async (t) => {
  // Without --allow-unchanged no version is made at all (test/cli-messages.test.ts); forced, it stores nothing again.
  const second = await runCli([
    'ingest',
    `sqlite:${base.db}`,
    '--root',
    base.root,
    '--id',
    base.id,
    '--name',
    'Northwind',
    '--max-files',
    '4',
    '--max-bytes',
    '45000',
    '--allow-unchanged',
    '--json',
  ]);
  t.is(second.code, 0, second.stderr);
  const inv = readInventory(base.objectDir);
  t.is(inv.head, 'v2');
  // The .siard's ZIP entries are dated at the start of the archival day, so it is identical unless
  // the two ingests straddle midnight (UTC), when it alone is stored again.
  const stored = Object.values(inv.manifest)
    .flat()
    .filter((p) => p.startsWith('v2/'));
  t.true(stored.length <= 1 && stored.every((p) => p === 'v2/content/Northwind.siard'), stored.join(', '));
  const v1 = contentPaths(inv, 'v1');
  const v2 = contentPaths(inv, 'v2');
  t.deepEqual([...v2.keys()].sort(), [...v1.keys()].sort(), 'same logical files');
  for (const [p, cp] of v2) if (p !== 'Northwind.siard') t.is(cp, v1.get(p), `${p} is not stored again`);
  t.is(JSON.parse(second.stdout).stored, stored.length);
});

test.serial('a changed LOB: only it, the .siard and the table fingerprints are stored', async (t) => {
  const db = new Database(base.db);
  db.prepare('UPDATE Categories SET Picture = ? WHERE CategoryID = 3').run(Buffer.alloc(12007, 7));
  db.prepare('DELETE FROM Shippers WHERE ShipperID = 4').run();
  db.close();
  const result = await ingest(`sqlite:${base.db}`, base.root, base.id, { name: 'Northwind', ...NORTHWIND_LIMITS });
  const inv = readInventory(base.objectDir);
  const stored = Object.values(inv.manifest)
    .flat()
    .filter((p) => p.startsWith(`${result.version}/`))
    .sort();
  t.deepEqual(stored, [
    `${result.version}/content/Northwind.fingerprints.json`,
    `${result.version}/content/Northwind.siard`,
    `${result.version}/content/Northwind_lobseg_0/content/schema0/table2/lob4/record2.bin`,
  ]);
  const fixity = fixityOf(inv, 'sha256');
  t.truthy(
    fixity.get(`${result.version}/content/Northwind_lobseg_0/content/schema0/table2/lob4/record2.bin`),
    'the new LOB has its fixity entry',
  );
  const a = await runCli(['audit', '--root', base.root]);
  t.is(a.code, 0, a.stdout);
});

test.serial('nothing is left in the workspace; a failed ingest commits nothing', async (t) => {
  const ws = path.join(path.dirname(base.root), '.root.siard-ocfl-work');
  t.deepEqual(
    readdirSync(ws).filter((n) => n.startsWith('stage-')),
    [],
    'no staging left',
  );
  const before = readInventory(base.objectDir).head;
  const bad = await runCli(['ingest', `sqlite:${path.join(base.dir, 'absent.db')}`, '--root', base.root, '--id', base.id]);
  t.is(bad.code, 2);
  const lobFolder = await runCli(['ingest', `sqlite:${base.db}`, '--root', base.root, '--id', base.id, '--lob-folder', 'C:\\x']);
  t.is(lobFolder.code, 2);
  t.regex(lobFolder.stderr, /lob-folder/);
  t.is(readInventory(base.objectDir).head, before);
  t.deepEqual(
    readdirSync(ws).filter((n) => n.startsWith('stage-')),
    [],
  );
  t.false(existsSync(path.join(base.root, 'Northwind.siard')));
  // Another writer holding the object: a clear error at once.
  const staged = await (await openRoot(base.root)).startVersion(base.id);
  try {
    const held = await runCli(['ingest', `sqlite:${base.db}`, '--root', base.root, '--id', base.id]);
    t.is(held.code, 2);
    t.regex(held.stderr, /lock|held|another/i);
  } finally {
    await staged.abort();
  }
});

test('checkout --join-chunks writes the split photo back whole, verified against its cell', async (t) => {
  const dest = path.join(base.dir, 'joined');
  const r = await runCli(['checkout', '--root', base.root, '--id', base.id, '--version', 'v1', '--join-chunks', dest]);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /1 split LOBs joined/);
  const { createHash } = await import('node:crypto');
  const { readFileSync } = await import('node:fs');
  const { unzipEntry, readTableXml } = await import('../helpers/export-support.js');
  const cell = readTableXml(unzipEntry(path.join(dest, 'Northwind.siard'), 'content/schema0/table4/table4.xml').toString('utf8'))[1]!.get(
    7,
  )!;
  const whole = readFileSync(path.join(dest, decodeURIComponent(cell.attrs.file!)));
  t.is(whole.length, Number(cell.attrs.length));
  t.is(createHash('sha256').update(whole).digest('hex'), cell.attrs.digest);
  const leftovers = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? leftovers(path.join(dir, e.name)) : /\.(\d+|z)$/.test(e.name) ? [e.name] : [],
    );
  t.deepEqual(leftovers(dest), [], 'no part files remain');
});

test('ingest --mets writes the METS index into the version; audit checks it; a package refuses export options', async (t) => {
  const { tempDir } = await import('../helpers/tmp.js');
  const root = path.join(tempDir('siard-ocfl-mets-'), 'root');
  t.is((await runCli(['init', root])).code, 0);
  const r = await runCli([
    'ingest',
    `sqlite:${base.db}`,
    '--root',
    root,
    '--id',
    'mets',
    '--name',
    'Northwind',
    '--max-files',
    '4',
    '--max-bytes',
    '45000',
    '--mets',
    '--json',
  ]);
  t.is(r.code, 0, r.stderr);
  const objectDir = path.join(root, JSON.parse(r.stdout).objectPath);
  const state = [...contentPaths(readInventory(objectDir)).keys()];
  t.true(state.includes('mets.xml'), 'parent METS beside the .siard');
  t.true(state.includes('Northwind_lobseg_0/mets.xml'), 'child METS in a segment folder');
  const a = await runCli(['audit', '--root', root, '--json']);
  t.is(a.code, 0, a.stdout);
  const findings = JSON.parse(a.stdout).findings as Array<{ code: string }>;
  t.false(findings.some((f) => f.code === 'LOB_UNREFERENCED'));
  // A child METS swapped for another segment's: the METS check in audit names it.
  const staged = await (await openRoot(root)).startVersion('mets', { fixityAlgorithms: ['sha256'] });
  await staged.addFile(
    'Northwind_lobseg_0/mets.xml',
    path.join(objectDir, contentPaths(readInventory(objectDir)).get('Northwind_lobseg_1/mets.xml')!),
  );
  await staged.commit({ message: 'a wrong child METS', user: { name: 'test' } });
  const bad = await runCli(['audit', '--root', root, '--json']);
  t.is(bad.code, 1);
  const metsErrors = (JSON.parse(bad.stdout).findings as Array<{ code: string; severity: string; path: string }>).filter(
    (f) => f.code.startsWith('METS_') && f.severity === 'error',
  );
  t.true(
    metsErrors.some((f) => f.path.startsWith('Northwind_lobseg_0/')),
    JSON.stringify(metsErrors.slice(0, 3)),
  );
  const pkg = await runCli(['ingest', path.join(objectDir, 'v1', 'content', 'Northwind.siard'), '--root', root, '--id', 'pkg', '--mets']);
  t.is(pkg.code, 2);
  t.regex(pkg.stderr, /export options do not apply/);
});
