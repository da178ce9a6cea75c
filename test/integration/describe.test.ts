/**
 * Issue 33, describe: the template round trip through the command line (template -> edit ->
 * apply -> template again equal), the new version storing exactly one new content file (LOB files
 * not stored again), the described metadata.xml valid against the official metadata.xsd with
 * hostile text, an unknown name refused (exit 2, naming it, nothing written), audit clean, and
 * relocate and describe composing in either order. The described copy of a bare archive on a
 * reference sample. ingest --describe of a package stored as received: v1 the package byte for
 * byte, v2 described (one new content file), an unknown name refused before anything is stored;
 * ingest --resegment --describe, described as written.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  describeCopy,
  describeObject,
  describeTemplate,
  type DescribeResult,
  type DescribeTemplate,
} from '../../src/archive/describe/describe.js';
import { ingest, type IngestResult } from '../../src/archive/ingest.js';
import { openArchive } from '../../src/archive/open-archive.js';
import { relocate } from '../../src/archive/relocate.js';
import { archivePage } from '../../src/serve/pages.js';
import { loadLibxml2, validateDocument } from '../../src/siard/check/xsd-validator.js';
import { officialMetadataXsd } from '../../src/siard/writer.js';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { initRoot } from '../../src/ocfl/root.js';
import { auditCli, contentPaths, ingestNorthwind, readInventory, type Ingested } from '../helpers/archive-support.js';
import { runCli } from '../helpers/cli.js';
import { sha256OfRange, unzipEntry, zipEntryOffset } from '../helpers/export-support.js';
import { reference, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

/** Markup, entities, a CDATA end, controls, CR, runs of spaces, back-slashes, astral characters, 100 KB. */
const HOSTILE =
  '<b>&amp; "q" \'a\' ]]> </description>\n\r\t\u0001\u007f\u0085 two  spaces \\u0041 \\ 😀 日本語 עברית' + 'Ω'.repeat(100_000);

let base: Ingested;
/** A copy of the described object's root, for the test that must see no version added (the others add some to base). */
let still: Ingested;
let original: DescribeTemplate;
let edited: DescribeTemplate;
const names: { schema: string; table: string; column: string } = { schema: '', table: '', column: '' };

test.before(async () => {
  base = await ingestNorthwind('urn:example:described');
  const cli = await runCli(['describe', '--template', '--root', base.root, '--id', base.id]);
  if (cli.code !== 0) throw new Error(cli.stderr);
  original = JSON.parse(cli.stdout) as DescribeTemplate;
  edited = structuredClone(original);
  names.schema = Object.keys(edited.schemas!)[0]!;
  const schema = edited.schemas![names.schema]!;
  const tables = schema['tables'] as Record<string, Record<string, unknown>>;
  names.table = Object.keys(tables)[0]!;
  names.column = Object.keys(tables[names.table]!['columns'] as object)[0]!;
  edited.database!.description = HOSTILE;
  edited.database!.archiver = 'A. Archivist';
  edited.database!.dataOwner = 'Ünïcødé Owner & Co <owner@example.org>';
  schema.description = 'The sample schema\nover two lines';
  tables[names.table]!['description'] = 'Table: ' + HOSTILE.slice(0, 200);
  (tables[names.table]!['columns'] as Record<string, { description: string | null }>)[names.column]!.description = 'Column <id> & "key"';
  const file = path.join(base.dir, 'described.json');
  writeFileSync(file, JSON.stringify(edited));
  const applied = await runCli(['describe', '--apply', file, '--root', base.root, '--id', base.id, '--json']);
  if (applied.code !== 0) throw new Error(applied.stderr);
  const root = path.join(base.dir, 'still-root');
  cpSync(base.root, root, { recursive: true });
  still = { ...base, root, objectDir: path.join(root, path.relative(base.root, base.objectDir)) };
});

function siardOf(version: string): string {
  const inv = readInventory(base.objectDir);
  for (const [digest, paths] of Object.entries(inv.versions[version]!.state))
    if (paths.some((p) => p.endsWith('.siard'))) return path.join(base.objectDir, inv.manifest[digest]![0]!);
  throw new Error(`no .siard in ${version}`);
}

test('template -> edit -> apply -> template again: equal', async (t) => {
  const cli = await runCli(['describe', '--template', '--root', base.root, '--id', base.id, '--version', 'v2']);
  t.is(cli.code, 0, cli.stderr);
  t.deepEqual(JSON.parse(cli.stdout), edited);
  t.notDeepEqual(original, edited);
  t.deepEqual(await describeTemplate({ root: base.root, id: base.id, version: 'v1' }), original, 'v1 unchanged');
});

test('tables --json and tables show the descriptions', async (t) => {
  const given = edited.schemas![names.schema]!['tables'] as Record<
    string,
    { description: string; columns: Record<string, { description: string }> }
  >;
  const json = await runCli(['tables', '--root', base.root, '--id', base.id, '--version', 'v2', '--json']);
  t.is(json.code, 0, json.stderr);
  const listed = (
    JSON.parse(json.stdout) as {
      tables: Array<{ name: string; description?: string; columns: Array<{ name: string; description?: string }> }>;
    }
  ).tables;
  const table = listed.find((x) => x.name === names.table)!;
  t.is(table.description, given[names.table]!.description);
  t.is(table.columns.find((c) => c.name === names.column)!.description, 'Column <id> & "key"');
  for (const other of listed.filter((x) => x.name !== names.table)) t.is(other.description, given[other.name]!.description ?? undefined);
});

test('the reading room shows the descriptions, escaped', async (t) => {
  const archive = await openArchive({ root: base.root, id: base.id, version: 'v2' });
  try {
    const tables = archive.reader.tables();
    const page = archivePage(
      { id: base.id, v: 'v2' },
      archive.name,
      archive.reader.archive,
      tables,
      tables.map(() => ({ by: 'metadata' })),
    );
    t.true(page.includes('<dd>A. Archivist</dd>'), 'archiver');
    t.true(page.includes('&lt;b&gt;&amp;amp; &quot;q&quot;'), 'the hostile description, as text');
    t.false(page.includes('<b>&amp;'), 'no markup from the description');
    t.true(page.includes('over two lines'), 'the schema description');
  } finally {
    archive.reader.close();
  }
});

test('the version stores exactly one new content file, the .siard, and its message says what was described', (t) => {
  const inv = readInventory(base.objectDir);
  t.is(inv.head, 'v2');
  const newFiles = Object.values(inv.manifest)
    .flat()
    .filter((p) => p.startsWith('v2/'));
  t.is(newFiles.length, 1, newFiles.join(', '));
  t.regex(newFiles[0]!, /\.siard$/);
  const v1 = inv.versions['v1']!.state;
  const v2 = inv.versions['v2']!.state;
  t.is(Object.values(v2).flat().length, Object.values(v1).flat().length, 'the same logical files');
  t.regex(inv.versions['v2']!.message!, /siard-ocfl describe: \d+ texts \(database/);
  // Everything before header/ (the messageDigest range) is the same bytes.
  const end = zipEntryOffset(siardOf('v1'), 'header/metadata.xml');
  t.is(zipEntryOffset(siardOf('v2'), 'header/metadata.xml'), end);
  t.is(sha256OfRange(siardOf('v2'), end), sha256OfRange(siardOf('v1'), end));
});

test('the described metadata.xml is valid against the official metadata.xsd and holds the hostile text as given', async (t) => {
  await loadLibxml2();
  const xml = unzipEntry(siardOf('v2'), 'header/metadata.xml');
  t.deepEqual(validateDocument(xml, officialMetadataXsd()), []);
  const read = await describeTemplate({ root: base.root, id: base.id });
  t.is(read.database!.description, HOSTILE);
});

test('an unknown name is refused with exit 2 naming it, and nothing is written', async (t) => {
  const file = path.join(still.dir, 'unknown.json');
  writeFileSync(
    file,
    JSON.stringify({ database: { description: 'x' }, schemas: { [names.schema]: { tables: { NoSuchTable: { description: 'x' } } } } }),
  );
  const before = readInventory(still.objectDir).head;
  const cli = await runCli(['describe', '--apply', file, '--root', still.root, '--id', still.id]);
  t.is(cli.code, 2, cli.stderr);
  t.regex(cli.stderr, /NoSuchTable/);
  await t.throwsAsync(describeObject(still.root, still.id, { users: { nobody: { description: 'x' } } }), { message: /nobody/ });
  await t.throwsAsync(describeObject(still.root, still.id, { schemas: { [names.schema]: { tabels: {} } } }), { message: /tabels/ });
  t.is(readInventory(still.objectDir).head, before);
});

test('relocate and describe compose in either order; audit is clean on the described object', async (t) => {
  await relocate(base.root, base.id, { lobFolder: 'file:///Archives/Described/' });
  t.deepEqual(await describeTemplate({ root: base.root, id: base.id }), edited, 'relocate keeps the descriptions');
  const again = await describeObject(base.root, base.id, { schemas: { [names.schema]: { description: 'after relocate' } } });
  t.truthy(again.version);
  const xml = unzipEntry(siardOf(again.version!), 'header/metadata.xml').toString('utf8');
  t.regex(xml, /<lobFolder>file:\/\/\/Archives\/Described\/<\/lobFolder>/, 'describe keeps the lobFolder');
  t.is((await describeTemplate({ root: base.root, id: base.id })).schemas![names.schema]!.description, 'after relocate');
  const unchanged = await describeObject(base.root, base.id, { schemas: { [names.schema]: { description: 'after relocate' } } });
  t.is(unchanged.version, undefined, 'a template that changes nothing writes no version');
  const { cli, report } = await auditCli(base.root, '--id', base.id);
  t.is(cli.code, 0, cli.stdout + cli.stderr);
  t.is(report.objects[0]!.siards[0]!.messageDigest, 'verified');
});

sharedTest(
  'describe --apply <file.json> <archive> <out-dir>, a described copy: content bytes unchanged, texts as given, the original untouched',
  async (t) => {
    const sample = reference('siard-samples', 'siardapi', 'sfdbsakila.siard');
    const out = tempDir('siard-ocfl-describe-copy-');
    const before = await describeTemplate({ siard: sample });
    const file = path.join(tempDir('siard-ocfl-describe-copy-template-'), 'described.json');
    writeFileSync(file, JSON.stringify({ database: { description: 'Sakila, described' } }));
    const cli = await runCli(['describe', '--apply', file, sample, out, '--json']);
    t.is(cli.code, 0, cli.stderr);
    const result = JSON.parse(cli.stdout) as DescribeResult;
    const copy = path.join(out, 'sfdbsakila.siard');
    t.is(result.file, copy);
    const after = await describeTemplate({ siard: copy });
    t.deepEqual(after, { ...before, database: { ...before.database, description: 'Sakila, described' } });
    // The content entries (the messageDigest range, up to the first header/ entry) are the same bytes.
    const end = result.archives[0]!.messageDigestRangeBytes;
    t.true(end > 1_000_000, `${end} bytes of content`);
    t.is(sha256OfRange(copy, end), sha256OfRange(sample, end));
    t.deepEqual(await describeTemplate({ siard: sample }), before);
    await t.throwsAsync(describeCopy(sample, out, { database: { description: 'again' } }), { message: /already exists/ });
  },
);

sharedTest('ingest --describe of a package stored as received: v1 holds it byte for byte, v2 only its new metadata.xml', async (t) => {
  const sample = reference('siard-samples', 'arkade5', 'dbPtk', 'external', 'dbptk.siard');
  const dir = tempDir('siard-ocfl-describe-received-');
  const root = path.join(dir, 'root');
  const r = await initRoot(root, await loadLayout0003());
  const printed = await runCli(['describe', '--template', sample]);
  t.is(printed.code, 0, printed.stderr);
  const before = JSON.parse(printed.stdout) as DescribeTemplate;
  t.deepEqual(before, await describeTemplate({ siard: sample }), 'describe --template <archive>');
  const schema = Object.keys(before.schemas!)[0]!;
  const file = path.join(dir, 'described.json');
  writeFileSync(
    file,
    JSON.stringify({ database: { description: HOSTILE.slice(0, 300) }, schemas: { [schema]: { description: 'A & <b>' } } }),
  );
  const cli = await runCli([
    'ingest',
    sample,
    '--root',
    root,
    '--id',
    'urn:example:received',
    '--describe',
    file,
    '--data-owner',
    'Owner',
    '--json',
  ]);
  t.is(cli.code, 0, cli.stderr);
  const result = JSON.parse(cli.stdout) as IngestResult;
  t.is(result.version, 'v1');
  t.deepEqual(result.described, { version: 'v2', texts: 3, stored: 1 });
  const objectDir = path.join(root, result.objectPath);
  const inv = readInventory(objectDir);
  const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');
  const v1 = contentPaths(inv, 'v1');
  t.is(sha(path.join(objectDir, v1.get('dbptk.siard')!)), sha(sample), 'v1: the .siard as received');
  const v2 = contentPaths(inv, 'v2');
  t.deepEqual([...v2.keys()].sort(), [...v1.keys()].sort(), 'the same logical files');
  t.deepEqual(
    [...v2.values()].filter((p) => p.startsWith('v2/')),
    ['v2/content/dbptk.siard'],
    'v2 stores the .siard alone; the LOB files are v1 content',
  );
  t.regex(inv.versions['v2']!.message!, /^siard-ocfl describe: 3 texts/);
  t.deepEqual(await describeTemplate({ root, id: 'urn:example:received' }), {
    ...before,
    database: { ...before.database, description: HOSTILE.slice(0, 300), dataOwner: 'Owner' },
    schemas: { ...before.schemas, [schema]: { ...before.schemas![schema]!, description: 'A & <b>' } },
  });
  // Re-segmented, a package is described as it is written.
  const simple = path.join(dir, 'simple.json');
  writeFileSync(simple, JSON.stringify({ database: { description: 'Re-segmented & described' } }));
  const reseg = ['ingest', reference('siard-samples', 'siard2sql', 'simpledb.siard'), '--resegment', '--describe', simple];
  const resegmented = await runCli([...reseg, '--root', root, '--id', 'urn:example:resegmented']);
  t.is(resegmented.code, 0, resegmented.stderr);
  t.is((await describeTemplate({ root, id: 'urn:example:resegmented' })).database!.description, 'Re-segmented & described');
  // Refused before anything is stored: a name the package lacks; describe (the export's) or describeAfter where it does not apply.
  const refused = 'urn:example:refused';
  await t.throwsAsync(ingest(sample, r, refused, { describeAfter: { schemas: { NoSuchSchema: { description: 'x' } } } }), {
    message: /NoSuchSchema/,
  });
  await t.throwsAsync(ingest(sample, r, refused, { describe: () => undefined }), { message: /stored as received/ });
  await t.throwsAsync(ingest(sample, r, refused, { resegment: true, describeAfter: {} }), { message: /re-segmented/ });
  await t.throwsAsync(ingest('sqlite:absent.db', r, refused, { describeAfter: {} }), { message: /stored as received/ });
  t.false(existsSync(path.join(root, r.objectPath(refused))), 'no object made');
});
