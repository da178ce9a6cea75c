/**
 * Acceptance 4: relocate makes a version whose manifest LOB entries are unchanged (no LOB stored
 * twice), whose .siard differs from the old one only in header/metadata.xml (compared entry by
 * entry with python's zipfile), whose archive messageDigest verifies (SHA-256 of the bytes before
 * header/, offset from python), and audit passes on both versions.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { relocate, rewriteDatabaseLobFolder } from '../../src/archive/relocate.js';
import { ingest } from '../../src/archive/ingest.js';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { initRoot } from '../../src/ocfl/root.js';
import { auditCli, contentPaths, ingestNorthwind, readInventory, type Ingested } from '../helpers/archive-support.js';
import { unzipEntry, zipEntryOffset } from '../helpers/export-support.js';
import { runCli } from '../helpers/cli.js';
import { reference, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

let base: Ingested;
test.before(async () => {
  base = await ingestNorthwind();
  const cli = await runCli([
    'relocate',
    '--root',
    base.root,
    '--id',
    base.id,
    '--lob-folder',
    'file:///Archives/Northwind/',
    '--user-name',
    'test',
  ]);
  if (cli.code !== 0) throw new Error(cli.stderr);
});

/** Entry name -> bytes, read by python's zipfile. */
function entries(siard: string): Map<string, string> {
  const out = execFileSync(
    'python3',
    [
      '-c',
      'import sys,zipfile,hashlib\nz=zipfile.ZipFile(sys.argv[1])\nfor i in z.infolist(): print(i.filename, ' +
        'hashlib.sha256(z.read(i)).hexdigest())',
      siard,
    ],
    { encoding: 'utf8' },
  );
  return new Map(
    out
      .trim()
      .split('\n')
      .map((l) => l.split(' ') as [string, string]),
  );
}

test('the manifest keeps every LOB entry: nothing but the .siard is stored in v2', (t) => {
  const v1 = readInventory(base.objectDir, 'v1');
  const v2 = readInventory(base.objectDir);
  t.is(v2.head, 'v2');
  for (const [digest, paths] of Object.entries(v1.manifest)) t.deepEqual(v2.manifest[digest], paths, 'v1 manifest entries unchanged');
  const added = Object.values(v2.manifest)
    .flat()
    .filter((p) => p.startsWith('v2/'));
  t.deepEqual(added, ['v2/content/Northwind.siard']);
  const s1 = contentPaths(v2, 'v1');
  const s2 = contentPaths(v2, 'v2');
  t.deepEqual([...s2.keys()].sort(), [...s1.keys()].sort(), 'same logical files');
  for (const [p, cp] of s2) if (p !== 'Northwind.siard') t.is(cp, s1.get(p), `${p} points at v1 content`);
});

test('the new .siard differs only in header/metadata.xml, whose database lobFolder is the new URI', (t) => {
  const inv = readInventory(base.objectDir);
  const before = path.join(base.objectDir, contentPaths(inv, 'v1').get('Northwind.siard')!);
  const after = path.join(base.objectDir, contentPaths(inv, 'v2').get('Northwind.siard')!);
  const a = entries(before);
  const b = entries(after);
  t.deepEqual([...b.keys()], [...a.keys()], 'same entries in the same order');
  t.deepEqual(
    [...a.keys()].filter((n) => a.get(n) !== b.get(n)),
    ['header/metadata.xml'],
  );
  const oldXml = unzipEntry(before, 'header/metadata.xml').toString('utf8');
  const newXml = unzipEntry(after, 'header/metadata.xml').toString('utf8');
  t.is(newXml, oldXml.replace('<lobFolder>../</lobFolder>', '<lobFolder>file:///Archives/Northwind/</lobFolder>'));
  // The bytes before header/ are copied unchanged.
  const end = zipEntryOffset(before, 'header/');
  t.is(zipEntryOffset(after, 'header/'), end);
  t.true(readFileSync(before).subarray(0, end).equals(readFileSync(after).subarray(0, end)));
});

test('the archive messageDigest of the new .siard verifies', (t) => {
  const after = path.join(base.objectDir, contentPaths(readInventory(base.objectDir), 'v2').get('Northwind.siard')!);
  const xml = unzipEntry(after, 'header/metadata.xml').toString('utf8');
  const stated = /<messageDigest>\s*<digestType>SHA-256<\/digestType>\s*<digest>([0-9a-f]{64})<\/digest>/.exec(xml)![1];
  const end = zipEntryOffset(after, 'header/');
  t.is(createHash('sha256').update(readFileSync(after).subarray(0, end)).digest('hex'), stated);
});

test('audit passes on both versions, and OCFL validation on the root', async (t) => {
  for (const version of ['v1', 'v2']) {
    const { cli, report } = await auditCli(base.root, '--version', version);
    t.is(cli.code, 0, `${version}: ${cli.stdout}`);
    t.is(report.objects[0]!.siards[0]!.lobFiles, 129, `${version}: every LOB file verified`);
    t.is(report.objects[0]!.siards[0]!.messageDigest, 'verified');
  }
  const { report } = await auditCli(base.root);
  t.true(
    report.findings.some((f) => f.code === 'SIARD_LOBFOLDER_ABSOLUTE' && f.severity === 'info'),
    'the absolute base is reported',
  );
  t.is((await runCli(['validate', base.root])).code, 0);
});

test('checkout --join-chunks of the relocated version joins the split photo at its storage base', async (t) => {
  const dest = path.join(base.dir, 'co-v2');
  const r = await runCli(['checkout', '--root', base.root, '--id', base.id, '--join-chunks', dest]);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /1 split LOBs joined/);
});

test('metadata rewriting: replace, insert after dataOriginTimespan with a prefix, refuse a bad URI', async (t) => {
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?>\n<s:siardArchive xmlns:s="x">\n  <s:dataOriginTimespan>x</s:dataOriginTimespan>\n  ' +
    '<s:schemas><s:lobFolder>col/</s:lobFolder></s:schemas>\n</s:siardArchive>';
  t.is(
    rewriteDatabaseLobFolder(xml, 'file:///A%20B/'),
    xml.replace('</s:dataOriginTimespan>', '</s:dataOriginTimespan>\n  <s:lobFolder>file:///A%20B/</s:lobFolder>'),
  );
  const cli = await runCli(['relocate', '--root', base.root, '--id', base.id, '--lob-folder', 'C:\\Archives']);
  t.is(cli.code, 2);
  t.regex(cli.stderr, /lob-folder/);
});

sharedTest(
  'a received SiardApi archive (sql2008, column lobFolders ../lobs/, no database lobFolder): content bytes kept, LOBs still ' +
    'verified after relocation',
  async (t) => {
    const root = await initRoot(path.join(tempDir('siard-ocfl-relocate-'), 'root'), await loadLayout0003());
    const siard = reference('siard-samples', 'siardapi', 'sql2008.siard');
    await ingest(siard, root, 'sql2008', { user: { name: 'test' } });
    const result = await relocate(root, 'sql2008', { lobFolder: 'file:///Archives/sql2008/' });
    t.is(result.stored, 1);
    const objectDir = path.join(root.location, root.objectPath('sql2008'));
    const inv = readInventory(objectDir);
    const after = path.join(objectDir, contentPaths(inv, 'v2').get('sql2008.siard')!);
    const end = zipEntryOffset(siard, 'header/');
    t.true(readFileSync(siard).subarray(0, end).equals(readFileSync(after).subarray(0, end)), "the producer's content bytes are kept");
    const { cli, report } = await auditCli(root.location, '--id', 'sql2008');
    t.is(cli.code, 0, cli.stdout);
    t.is(report.objects[0]!.siards[0]!.lobFiles, 3, 'the LOBs under lobs/ verified at their place in the object');
  },
);
