/**
 * A relocated object is still usable (issue "A database of a million LOBs", part 2). Northwind
 * (120 segment folders of at most 4 files / 45,000 bytes, a 5 MiB photo split over many of them)
 * is ingested and relocated to file:///Archives/x/, which does not exist on this machine. Then,
 * through the built CLI:
 * - restore --root --id gives the source database value by value (LOB bytes included), reading
 *   the LOBs where the object keeps them, and says so in one note (--json too);
 * - checkout of the head + restore of the checkout folder (or of its .siard) gives the same;
 * - audit is clean, every LOB file verified, with exactly one note;
 * - ingest of the checkout as a received package stores every LOB file (the inventory state lists
 *   them all) and the new object audits clean;
 * - a received package missing one LOB file: ingest exits 1 with one sentence naming how many
 *   cells and the first, and leaves no object; --allow-missing-lobs stores it, still exit 1.
 */
import test from 'ava';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { auditCli, copyTree, ingestNorthwind, readInventory, sqliteContents, type Ingested } from '../helpers/archive-support.js';
import { unzipEntry } from '../helpers/export-support.js';
import { runCli } from '../helpers/cli.js';

const LOB_FOLDER = 'file:///Archives/x/';
/** Categories.Picture of row 2: a whole (unsplit) LOB file in the first segment folder. */
const ONE_LOB = 'Northwind_lobseg_0/content/schema0/table2/lob4/record1.bin';

let base: Ingested;
let want: Record<string, string>;
let checkout: string;

test.before(async () => {
  base = await ingestNorthwind();
  want = sqliteContents(base.db);
  const r = await runCli(['relocate', '--root', base.root, '--id', base.id, '--lob-folder', LOB_FOLDER, '--user-name', 'test']);
  if (r.code !== 0) throw new Error(r.stderr);
  checkout = path.join(base.dir, 'checkout-v2');
  const co = await runCli(['checkout', '--root', base.root, '--id', base.id, checkout]);
  if (co.code !== 0) throw new Error(co.stderr);
});

/** Every file under `dir`, as POSIX paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((p) => statSync(path.join(dir, p)).isFile())
    .map((p) => p.split(path.sep).join('/'))
    .sort();
}

interface RestoreJson {
  siard: string;
  lobFiles: number;
  digestsVerified: number;
  warnings: string[];
  notes: string[];
}

const NOTE = new RegExp(
  String.raw`the database lobFolder "file:\/\/\/Archives\/x\/" points elsewhere \(file:` +
    String.raw`\/\/\/Archives\/x\/Northwind_lobseg_0\/\S+ \(outside the package\) and the like\); the LOB files ` +
    String.raw`were read where (the object|the package folder \S+) keeps them instead, at Northwind_lobseg_0\/\S+ ` +
    String.raw`and the like \(lobFolder read as "\.\.\/"\)\.$`,
);

test('the relocated head: metadata names file:///Archives/x/, which this machine does not have', (t) => {
  t.false(existsSync('/Archives/x'), 'the test needs /Archives/x to be absent');
  const xml = unzipEntry(path.join(checkout, 'Northwind.siard'), 'header/metadata.xml').toString('utf8');
  t.true(xml.includes(`<lobFolder>${LOB_FOLDER}</lobFolder>`));
  t.true(
    filesUnder(checkout).some((p) => p.endsWith('.bin.0')),
    'a split LOB is among the files',
  );
  t.true(filesUnder(checkout).filter((p) => p.includes('_lobseg_')).length > 100, 'many segment folders');
});

test('restore --root --id of the relocated head equals the source value by value, LOB bytes included, with one note', async (t) => {
  const out = path.join(base.dir, 'head.db');
  const r = await runCli(['restore', '--root', base.root, '--id', base.id, out, '--json']);
  t.is(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout) as RestoreJson;
  t.regex(summary.siard, /v2: Northwind\.siard$/);
  t.is(summary.lobFiles, 13);
  t.is(summary.digestsVerified, 13);
  t.deepEqual(summary.warnings, []);
  t.is(summary.notes.length, 1, 'one note, not one per cell');
  t.regex(summary.notes[0]!, NOTE);
  t.regex(summary.notes[0]!, /read where the object keeps them/);
  t.deepEqual(sqliteContents(out), want);
  // Without --json the note goes to stderr, once.
  const human = await runCli(['restore', '--root', base.root, '--id', base.id, path.join(base.dir, 'head-human.db')]);
  t.is(human.code, 0, human.stderr);
  t.is(human.stderr.split('\n').filter((l) => l.startsWith('note: ')).length, 1, human.stderr);
});

test('checkout of the head, then restore of the checkout folder (and of its .siard) equals the source', async (t) => {
  for (const [source, out] of [
    [checkout, 'from-folder.db'],
    [path.join(checkout, 'Northwind.siard'), 'from-file.db'],
  ] as const) {
    const r = await runCli(['restore', source, path.join(base.dir, out), '--json']);
    t.is(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout) as RestoreJson;
    t.is(summary.digestsVerified, 13);
    t.is(summary.notes.length, 1);
    t.regex(summary.notes[0]!, NOTE);
    t.true(summary.notes[0]!.includes(`the package folder ${checkout} keeps them`), summary.notes[0]);
    t.deepEqual(sqliteContents(path.join(base.dir, out)), want, source);
  }
});

test('audit of the relocated head: clean, every LOB file verified in the object, exactly one note', async (t) => {
  const { cli, report } = await auditCli(base.root, '--id', base.id);
  t.is(cli.code, 0, cli.stdout);
  t.is(report.errors, 0);
  t.is(report.objects[0]!.version, 'v2');
  t.is(report.objects[0]!.siards[0]!.lobFiles, 129);
  const notes = report.findings.filter((f) => f.code === 'SIARD_LOBFOLDER_ABSOLUTE');
  t.is(notes.length, 1);
  t.is(notes[0]!.severity, 'info');
  t.regex(notes[0]!.message, /points elsewhere .* the LOB files were verified where the object keeps them instead/);
  t.false(
    report.findings.some((f) => f.code.startsWith('LOB_')),
    'no LOB finding',
  );
});

test(
  'ingest of the checkout (a received package) stores every LOB file; ' + 'the new object audits clean and restores to the source',
  async (t) => {
    const id = 'urn:example:received-checkout';
    const r = await runCli(['ingest', path.join(checkout, 'Northwind.siard'), '--root', base.root, '--id', id, '--json']);
    t.is(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as { objectPath: string; files: number; warnings: string[]; notes: string[]; missingLobs: number };
    t.deepEqual(result.warnings, []);
    t.is(result.missingLobs, 0);
    t.is(result.notes.length, 1);
    t.regex(result.notes[0]!, /the LOB files were taken where the package folder \S+ keeps them instead/);
    // The inventory state is exactly the checkout: the .siard, every file of its LOB folders, the table fingerprints.
    const inv = readInventory(path.join(base.root, result.objectPath));
    const state = Object.values(inv.versions.v1!.state).flat().sort();
    t.deepEqual(state, filesUnder(checkout));
    t.is(state.filter((p) => p.includes('_lobseg_')).length, 129);
    t.is(result.files, 131, 'the .siard, 129 LOB files and the table fingerprints');

    const { cli, report } = await auditCli(base.root, '--id', id);
    t.is(cli.code, 0, cli.stdout);
    t.is(report.objects[0]!.siards[0]!.lobFiles, 129);
    t.is(report.findings.filter((f) => f.code === 'SIARD_LOBFOLDER_ABSOLUTE').length, 1);
    t.false(report.findings.some((f) => f.code.startsWith('LOB_')));

    const out = path.join(base.dir, 'received.db');
    const restored = await runCli(['restore', '--root', base.root, '--id', id, out]);
    t.is(restored.code, 0, restored.stderr);
    t.deepEqual(sqliteContents(out), want);
  },
);

test(
  'a received package missing one LOB file: ingest exits 1 with one sentence and leaves no object; --allow-missing-lobs ' +
    'stores it, still exit 1',
  async (t) => {
    const damaged = path.join(base.dir, 'damaged');
    copyTree(checkout, damaged);
    t.true(existsSync(path.join(damaged, ONE_LOB)));
    rmSync(path.join(damaged, ONE_LOB));
    const id = 'urn:example:received-damaged';
    const objectDir = path.join(base.root, (await runCli(['path', '--root', base.root, id])).stdout.trim());

    const r = await runCli(['ingest', path.join(damaged, 'Northwind.siard'), '--root', base.root, '--id', id]);
    t.is(r.code, 1, r.stdout + r.stderr);
    t.is(r.stdout, '');
    t.is(r.stderr.trim().split('\n').length, 1, 'one sentence');
    t.regex(
      r.stderr,
      new RegExp(
        String.raw`Northwind\.siard: 1 LOB cell references a file the package folder does not hold \(the first: ` +
          String.raw`.*table main\.Categories, row 2, column Picture: ` +
          String.raw`"Northwind_lobseg_0\/content\/schema0\/table2\/lob4\/record1\.bin" points outside the package ` +
          String.raw`folder \(file:\/\/\/Archives\/x\/\S+ \(outside the package\)\) and is not in it either\), so ` +
          String.raw`nothing was stored in object "urn:example:received-damaged"`,
      ),
    );
    t.false(existsSync(objectDir), 'no object left');
    t.false((await runCli(['ls', '--root', base.root])).stdout.includes(id));

    const allowed = await runCli([
      'ingest',
      path.join(damaged, 'Northwind.siard'),
      '--root',
      base.root,
      '--id',
      id,
      '--allow-missing-lobs',
    ]);
    t.is(allowed.code, 1, 'stored as asked, but a package whose LOBs are not all stored never exits 0');
    t.regex(allowed.stdout, /^Committed v1 of object "urn:example:received-damaged"/);
    t.regex(allowed.stdout, /WARNING .*row 2, column Picture: LOB file "Northwind_lobseg_0\/content\/schema0\/table2\/lob4\/record1\.bin"/);
    const state = Object.values(readInventory(objectDir).versions.v1!.state).flat();
    t.false(state.includes(ONE_LOB));
    t.is(state.filter((p) => p.includes('_lobseg_')).length, 128, 'every other LOB file stored');
  },
);
