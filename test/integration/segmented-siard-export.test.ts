/**
 * Issue 19, step 1: `export` / `ingest --max-siard-bytes N` write a segmented SIARD file (SIARD 2.2
 * draft S_8.5-0, S_8.6-0). Checked with python3's zipfile, not our reader: the names `.1` ... `.z`,
 * no file over N, each segment a complete package (CRCs, header/ last, its own messageDigest over
 * its bytes before header/, the same metadata.xml as the unsegmented export apart from that digest),
 * every table whole in one segment or cut into `.1` ... `.z` across consecutive segments whose
 * concatenation equals the unsegmented export's table file, each XSD once beside the first part.
 * The Northwind fixture shows whole tables per segment (S_8.5-0), a 1,000,000-row table the split
 * (S_8.6-0). Reading the sets back is tested in segmented-siard-read.test.ts.
 */
import test, { type ExecutionContext } from 'ava';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildNorthwind } from '../../fixtures/northwind.js';
import { runCli } from '../helpers/cli.js';
import { hasProgram, testIf } from '../helpers/requires.js';
import { pythonLayout, type PyLayout } from '../helpers/segment-layout.js';
import { tempDir } from '../helpers/tmp.js';
import { buildMillionRows } from '../helpers/million-rows.js';

const work = tempDir('siard-segmented-export-');
const northwind = path.join(work, 'Northwind.db');
buildNorthwind(northwind);
const python = testIf(hasProgram('python3', '--version'), 'python3 is not installed');

/** The segment files of `stem` in `dir`, in part order (.1, .2, ..., .z). */
function segmentsIn(dir: string, stem: string): string[] {
  const names = readdirSync(dir).filter((n) => n.startsWith(`${stem}.siard.`));
  const key = (n: string) => (n.endsWith('.z') ? Number.POSITIVE_INFINITY : Number(n.slice(`${stem}.siard.`.length)));
  return names.sort((a, b) => key(a) - key(b)).map((n) => path.join(dir, n));
}

const HEADER = ['header/', 'header/siardversion/2.2/', 'header/metadata.xsd', 'header/metadata.xml'];

/** Everything the seed and the issue ask of a segmented file, against the unsegmented export `whole`. */
function checkSegmented(t: ExecutionContext, set: PyLayout, whole: PyLayout, stem: string, max: number): void {
  const names = set.segments.map((s) => s.name);
  t.true(names.length >= 2, 'more than one segment');
  t.deepEqual(names, [...names.slice(0, -1).map((_n, i) => `${stem}.siard.${i + 1}`), `${stem}.siard.z`]);
  const wholeMeta = whole.segments[0]!.metadataWithoutDigest;
  for (const s of set.segments) {
    t.is(s.badEntry, null, `${s.name}: CRCs`);
    t.true(s.size <= max, `${s.name} is ${s.size} bytes, at most ${max}`);
    t.deepEqual(s.entries.slice(-4), HEADER, `${s.name}: header/ last`);
    t.is(s.statedDigest, s.prefixSha256, `${s.name}: its messageDigest covers its own bytes before header/`);
    t.is(s.metadataWithoutDigest, wholeMeta, `${s.name}: the same metadata.xml as the unsegmented export`);
    for (const e of s.entries.filter((x) => x.startsWith('content/') && !x.endsWith('/'))) {
      const folders = e
        .split('/')
        .slice(0, -1)
        .map((_p, i, a) => a.slice(0, i + 1).join('/') + '/');
      for (const f of folders) t.true(s.entries.includes(f), `${s.name}: folder entry ${f} of ${e}`);
    }
  }
  t.deepEqual(Object.keys(set.tables).sort(), Object.keys(whole.tables).sort());
  for (const [table, w] of Object.entries(whole.tables)) {
    const got = set.tables[table]!;
    t.is(got.sha256, w.sha256, `${table}: the parts joined are the unsegmented file`);
    t.is(got.size, w.size);
    const at = (segment: string) => names.indexOf(segment);
    if (got.parts.length === 1) t.is(got.parts[0]!.entry, table, `${table} whole`);
    else {
      t.deepEqual(
        got.parts.map((p) => p.entry),
        [...got.parts.slice(0, -1).map((_p, i) => `${table}.${i + 1}`), `${table}.z`],
      );
      got.parts.forEach((p, i) => {
        if (i > 0) t.is(at(p.segment), at(got.parts[i - 1]!.segment) + 1, `${p.entry} in the segment after the part before`);
      });
    }
    const xsd = table.replace(/\.xml$/, '.xsd');
    const holders = set.segments.filter((s) => s.entries.includes(xsd)).map((s) => s.name);
    t.deepEqual(holders, [got.parts[0]!.segment], `${xsd} once, beside the first part`);
  }
}

async function exportTo(source: string, out: string, ...args: string[]): Promise<Record<string, unknown>> {
  const r = await runCli(['export', source, out, '--json', ...args]);
  if (r.code !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

python("Northwind, small --max-siard-bytes: whole tables per segment (S_8.5-0), the seed's names, each segment complete", async (t) => {
  const max = 20000;
  await exportTo(northwind, path.join(work, 'nw-one'));
  const single = pythonLayout([path.join(work, 'nw-one', 'Northwind.siard')]);
  const summary = await exportTo(northwind, path.join(work, 'nw-seg'), '--max-siard-bytes', String(max));
  const files = segmentsIn(path.join(work, 'nw-seg'), 'Northwind');
  t.false(existsSync(path.join(work, 'nw-seg', 'Northwind.siard')));
  const set = pythonLayout(files);
  checkSegmented(t, set, single, 'Northwind', max);
  // S_8.5-0: every table whole, and a segment other than the first starts with one.
  t.true(
    Object.values(set.tables).every((x) => x.parts.length === 1),
    'no table split',
  );
  t.true(set.segments.slice(1).some((s) => s.entries.some((e) => /table\d+\.xml$/.test(e))));
  t.is(summary.siard, 'Northwind.siard.1');
  t.deepEqual(
    (summary.siardSegments as Array<{ file: string }>).map((s) => s.file),
    files.map((f) => path.basename(f)),
  );
  t.true(existsSync(path.join(work, 'nw-seg', 'Northwind_lobseg_0')), 'LOB folders as without segmenting');
});

python('a table larger than a segment is cut into .1 ... .z across consecutive segments (Northwind, tighter limit)', async (t) => {
  const max = 16000;
  await exportTo(northwind, path.join(work, 'nw-one-b'));
  const single = pythonLayout([path.join(work, 'nw-one-b', 'Northwind.siard')]);
  await exportTo(northwind, path.join(work, 'nw-tight'), '--max-siard-bytes', String(max));
  const set = pythonLayout(segmentsIn(path.join(work, 'nw-tight'), 'Northwind'));
  checkSegmented(t, set, single, 'Northwind', max);
  t.true(
    Object.values(set.tables).some((x) => x.parts.length > 1),
    'a table is split',
  );
});

python('1,000,000 rows: the table is split into tableN.xml.1, .2, ... .z (S_8.6-0), byte-identical when joined', async (t) => {
  const db = path.join(work, 'million.db');
  buildMillionRows(db);
  await exportTo(db, path.join(work, 'm-one'));
  const single = pythonLayout([path.join(work, 'm-one', 'million.siard')]);
  const max = 2_000_000;
  await exportTo(db, path.join(work, 'm-seg'), '--max-siard-bytes', '2M');
  const set = pythonLayout(segmentsIn(path.join(work, 'm-seg'), 'million'));
  checkSegmented(t, set, single, 'million', max);
  const big = set.tables['content/schema0/table1/table1.xml']!;
  t.true(big.parts.length >= 3, `${big.parts.length} parts`);
  t.is(big.parts[0]!.segment, 'million.siard.1', 'the first part fills the first segment after the small table');
  t.true(set.segments[0]!.entries.includes('content/schema0/table0/table0.xml'));
  // Middle segments hold nothing but their part (and their folders and header).
  for (const s of set.segments.slice(1, -1)) t.deepEqual(s.entries.filter((e) => !e.endsWith('/') && !e.startsWith('header/')).length, 1);
});

test('ingest --max-siard-bytes stores the segments as they are named, the last as .z (content path = logical path)', async (t) => {
  const root = path.join(work, 'root');
  t.is((await runCli(['init', root])).code, 0);
  const r = await runCli(['ingest', northwind, '--root', root, '--id', 'urn:seg:nw', '--max-siard-bytes', '20000', '--json']);
  t.is(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout) as { objectPath: string; export: { segmentFiles: Array<{ file: string }> } };
  const inventory = JSON.parse(readFileSync(path.join(root, result.objectPath, 'inventory.json'), 'utf8')) as {
    manifest: Record<string, string[]>;
    versions: Record<string, { state: Record<string, string[]> }>;
  };
  const state = inventory.versions.v1!.state;
  const logical = Object.values(state)
    .flat()
    .filter((p) => /\.siard/.test(p))
    .sort();
  const segments = result.export.segmentFiles.map((s) => s.file);
  t.deepEqual(logical, [...segments].sort());
  t.true(segments.at(-1)!.endsWith('.siard.z'));
  for (const [digest, paths] of Object.entries(state)) {
    for (const p of paths.filter((x) => /\.siard/.test(x))) t.deepEqual(inventory.manifest[digest], [`v1/content/${p}`]);
  }
});

test("a --max-siard-bytes below what a segment's header needs is refused with the least usable value, nothing written", async (t) => {
  const out = path.join(work, 'too-small');
  const r = await runCli(['export', northwind, out, '--max-siard-bytes', '8k']);
  t.is(r.code, 2);
  t.regex(r.stderr, /--max-siard-bytes 8000 is too small: .* use at least \d+\./);
  t.false(existsSync(out));
});
