/**
 * Issue 19, step 2: every reading verb takes a segmented SIARD file (`x.siard.1` ... `.z`, named by a
 * member or by its stem) where it takes a `.siard`. restore gives the same database as the
 * unsegmented export (Northwind, and a large table split into parts across many segments: 30,000
 * rows in 40,000-byte segments here, the 1,000,000 rows in 2 MB segments in the bench, compared row
 * by row); audit checks each segment's messageDigest, the split table joined against its XSD and the
 * row counts, and names a missing middle segment, a missing `.z`, parts out of order and segments
 * disagreeing on metadata; relocate rewrites every segment's metadata.xml with each messageDigest
 * still valid (checked by python3's zipfile); checkout --join-segments writes one `.siard`; ingest
 * stores a received set.
 *
 * Set up once for the file (test.before): Northwind exported whole and as a set of 16,000-byte
 * segments, each restored once, and the set ingested once into a storage root; a test that adds a
 * version works on a copy of that root, a test that breaks the set on a copy of the set.
 */
import test, { type ExecutionContext } from 'ava';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { buildNorthwind } from '../../fixtures/northwind.js';
import Database from '../../src/sources/sqlite/driver.js';
import { runCli } from '../helpers/cli.js';
import { buildRows } from '../helpers/hs-rows.js';
import { MILLION } from '../helpers/million-rows.js';
import { repetitions } from '../helpers/repetitions.js';
import { hasProgram, testIf } from '../helpers/requires.js';
import { pythonLayout } from '../helpers/segment-layout.js';
import { tempDir } from '../helpers/tmp.js';

const work = tempDir('siard-segmented-read-');
const northwind = path.join(work, 'Northwind.db');
buildNorthwind(northwind);
const python = testIf(hasProgram('python3', '--version'), 'python3 is not installed');
const xmllint = testIf(hasProgram('xmllint', '--version'), 'xmllint is not installed');

async function cli(t: ExecutionContext, ...args: string[]): Promise<string> {
  const r = await runCli(args);
  t.is(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Every table of a SQLite file, rows in key order, as one comparable value (BLOBs as hex). */
function dump(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>;
    const tables = names.map((r) => r.name);
    const cell = (v: unknown) => (Buffer.isBuffer(v) ? `x${v.toString('hex')}` : v);
    return Object.fromEntries(
      tables.map((name) => [
        name,
        (db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).raw().all() as unknown[][]).map((row) => row.map(cell)),
      ]),
    );
  } finally {
    db.close();
  }
}

/** The file's shared set-up (test.before); nothing here is written to by a test. */
interface Shared {
  /** Northwind exported whole, and as a set of 16,000-byte segments (limits from segmented-siard-export.test.ts) */
  whole: string;
  set: string;
  /** `whole` restored, and `set` restored by its stem */
  wholeDb: string;
  stemDb: string;
  /** an empty storage root (made by `init`), copied where a test needs a root of its own */
  emptyRoot: string;
  /** a root holding the set ingested (`ingest --max-siard-bytes 16000`) as NW_ID, at `objectPath` */
  root: string;
  objectPath: string;
}
const NW_ID = 'urn:seg:nw';
let shared: Shared;

test.before(async (t) => {
  const whole = path.join(work, 'nw-whole');
  const set = path.join(work, 'nw-set');
  const emptyRoot = path.join(work, 'root-empty');
  const root = path.join(work, 'root-nw');
  await cli(t, 'export', northwind, whole);
  await cli(t, 'export', northwind, set, '--max-siard-bytes', '16000');
  const wholeDb = path.join(work, 'r-whole.db');
  const stemDb = path.join(work, 'r-stem.db');
  await cli(t, 'restore', path.join(whole, 'Northwind.siard'), wholeDb);
  await cli(t, 'restore', path.join(set, 'Northwind.siard'), stemDb);
  await cli(t, 'init', emptyRoot);
  copyRoot(emptyRoot, root);
  const ingested = await cli(t, 'ingest', northwind, '--root', root, '--id', NW_ID, '--max-siard-bytes', '16000', '--json');
  const { objectPath } = JSON.parse(ingested) as { objectPath: string };
  shared = { whole, set, wholeDb, stemDb, emptyRoot, root, objectPath };
});

/** A storage root of a test's own: a copy of `from` (a root is a folder; its workspace is made beside it when needed). */
function copyRoot(from: string, to: string): string {
  cpSync(from, to, { recursive: true });
  return to;
}

const dumps = new Map<string, Record<string, unknown[]>>();
/** dump() of a shared database, read once. */
function dumpShared(file: string): Record<string, unknown[]> {
  if (!dumps.has(file)) dumps.set(file, dump(file));
  return dumps.get(file)!;
}

function segmentNames(dir: string): string[] {
  const key = (n: string) => (n.endsWith('.z') ? Infinity : Number(n.split('.').pop()));
  return readdirSync(dir)
    .filter((n) => /\.siard\.(\d+|z)$/.test(n))
    .sort((a, b) => key(a) - key(b));
}

test('restore of a segmented Northwind, named by its first segment or by its stem, equals the unsegmented restore', async (t) => {
  const { set, wholeDb, stemDb } = shared;
  await cli(t, 'restore', path.join(set, 'Northwind.siard.1'), path.join(work, 'r-first.db'));
  const expected = dumpShared(wholeDb);
  t.true(Object.keys(expected).length >= 6);
  t.deepEqual(dump(path.join(work, 'r-first.db')), expected);
  t.deepEqual(dumpShared(stemDb), expected);
  t.is(JSON.parse(await cli(t, 'tables', path.join(set, 'Northwind.siard.z'), '--json')).tables.length, 6, 'tables reads the set too');
});

/**
 * A large table split into parts across many segments: how the reader joins the parts does not depend
 * on the table's size, so `npm test` splits 30,000 rows into 40,000-byte segments (17 segments, the
 * table in 16 parts, more than 9 of them: parts 10, 11 ... are ordered as numbers); the bench restores
 * the 1,000,000 rows in 2 MB segments (5 segments).
 */
const ROWS = repetitions(30_000, MILLION);
const ROWS_MAX_SIARD_BYTES = String(repetitions(40_000, 2_000_000));

test(`${ROWS.toLocaleString('en-US')} rows: restore of the segmented export equals that of the unsegmented one`, async (t) => {
  const db = path.join(work, 'million.db');
  buildRows(db, ROWS);
  await cli(t, 'export', db, path.join(work, 'm-whole'));
  await cli(t, 'export', db, path.join(work, 'm-set'), '--max-siard-bytes', ROWS_MAX_SIARD_BYTES);
  t.true(segmentNames(path.join(work, 'm-set')).length >= 4);
  await cli(t, 'restore', path.join(work, 'm-whole', 'million.siard'), path.join(work, 'm-whole.db'));
  await cli(t, 'restore', path.join(work, 'm-set', 'million.siard.1'), path.join(work, 'm-set.db'));
  const a = dump(path.join(work, 'm-whole.db'));
  const b = dump(path.join(work, 'm-set.db'));
  t.is(a.big!.length, ROWS);
  t.deepEqual(b, a);
});

xmllint("audit of an ingested set: each segment's messageDigest verified, the split table valid against its XSD, rows", async (t) => {
  const r = await runCli(['audit', '--root', shared.root, '--id', NW_ID, '--json']);
  t.is(r.code, 0, r.stdout);
  type Summary = { path: string; rows: number; messageDigest: string; segments: Array<{ messageDigest: string }> };
  const report = JSON.parse(r.stdout) as { objects: Array<{ siards: Summary[] }>; findings: Array<{ code: string; severity: string }> };
  const s = report.objects[0]!.siards[0]!;
  t.is(s.path, 'Northwind.siard');
  t.is(s.rows, 87);
  t.is(s.messageDigest, 'verified');
  t.true(s.segments.length >= 3);
  t.true(s.segments.every((x) => x.messageDigest === 'verified'));
  t.false(report.findings.some((f) => f.severity === 'error'));
  t.false(
    report.findings.some((f) => f.code === 'SIARD_XSD_SKIPPED'),
    'the joined table was checked against its XSD',
  );
});

/** A set broken on disk, stored as an object with `put` (which stores any folder), then audited. */
type Finding = { code: string; severity: string; message: string };

async function auditBroken(t: ExecutionContext, name: string, folder: string): Promise<Finding[]> {
  const root = copyRoot(shared.emptyRoot, path.join(work, `root-${name}`));
  await cli(t, 'put', '--root', root, '--id', `urn:seg:${name}`, folder);
  const r = await runCli(['audit', '--root', root, '--id', `urn:seg:${name}`, '--json', '--no-xsd']);
  t.is(r.code, 1, `${name}: audit fails`);
  return (JSON.parse(r.stdout) as { findings: Finding[] }).findings;
}

test('audit names a missing middle segment, a missing .z, parts out of order and segments disagreeing on metadata', async (t) => {
  const { set } = shared;
  const names = segmentNames(set);
  t.true(names.length >= 4, names.join(' '));
  const copy = (name: string) => {
    const dir = path.join(work, `broken-${name}`);
    cpSync(set, dir, { recursive: true });
    return dir;
  };

  const middle = copy('middle');
  rmSync(path.join(middle, names[1]!));
  const f1 = await auditBroken(t, 'middle', middle);
  t.true(
    f1.some((f) => f.code === 'SIARD_SEGMENT_MISSING' && f.severity === 'error' && f.message.includes(names[1]!)),
    JSON.stringify(f1),
  );

  const last = copy('last');
  rmSync(path.join(last, names.at(-1)!));
  const f2 = await auditBroken(t, 'last', last);
  t.true(
    f2.some((f) => f.code === 'SIARD_SEGMENT_LAST_MISSING' && f.message.includes('Northwind.siard.z')),
    JSON.stringify(f2),
  );

  // The split table's parts: .1 in one segment, .z in the next; the two segments swap names.
  const layout = pythonLayout(names.map((n) => path.join(set, n)));
  const split = Object.values(layout.tables).find((x) => x.parts.length > 1)!;
  t.truthy(split, 'Northwind at 16000 bytes splits a table');
  const [a, b] = [split.parts[0]!.segment, split.parts[1]!.segment];
  const order = copy('order');
  renameSync(path.join(order, a), path.join(order, 'tmp'));
  renameSync(path.join(order, b), path.join(order, a));
  renameSync(path.join(order, 'tmp'), path.join(order, b));
  const f3 = await auditBroken(t, 'order', order);
  t.true(
    f3.some((f) => f.code === 'SIARD_TABLE_PART_ORDER' && f.severity === 'error'),
    JSON.stringify(f3),
  );
  t.false(
    f3.some((f) => f.code === 'SIARD_MESSAGE_DIGEST'),
    'each segment is intact in itself',
  );

  // Another export of the same database whose metadata says another dataOwner (of the same length, so that
  // its segments split alike): one segment swapped in.
  const other = path.join(work, 'broken-other');
  await cli(t, 'export', northwind, other, '--max-siard-bytes', '16000', '--data-owner', 'Unspecified');
  const meta = copy('meta-src');
  t.deepEqual(segmentNames(other), segmentNames(meta));
  copyFileSync(path.join(other, names[2]!), path.join(meta, names[2]!));
  const f4 = await auditBroken(t, 'meta', meta);
  const disagree = (f: Finding) => f.code === 'SIARD_SEGMENT_METADATA' && f.message.includes(names[2]!) && f.message.includes('dataOwner');
  t.true(f4.some(disagree), JSON.stringify(f4));
  t.false(f4.some((f) => f.code === 'SIARD_MESSAGE_DIGEST'));

  // Readers other than audit refuse a broken set, in one sentence.
  const r = await runCli(['restore', path.join(order, 'Northwind.siard.1'), path.join(work, 'never.db')]);
  t.is(r.code, 1);
  t.regex(r.stderr, /is not a complete segmented SIARD file: .*Northwind\.siard\.\d+|\.z/);
  t.false(existsSync(path.join(work, 'never.db')));
});

python('relocate rewrites the lobFolder of every segment, each messageDigest still valid; audit passes', async (t) => {
  const root = copyRoot(shared.root, path.join(work, 'root-relocate'));
  const relocated = await cli(t, 'relocate', '--root', root, '--id', NW_ID, '--lob-folder', 'file:///Archives/NW/', '--json');
  const out = JSON.parse(relocated) as { archives: Array<{ path: string }> };
  const members = out.archives.map((a) => a.path);
  t.true(members.length >= 3);
  t.is(members.at(-1), 'Northwind.siard.z');
  const layout = pythonLayout(members.map((m) => path.join(root, shared.objectPath, 'v2', 'content', m)));
  for (const s of layout.segments) {
    t.is(s.statedDigest, s.prefixSha256, `${s.name}: messageDigest valid after relocate`);
    t.regex(s.metadataWithoutDigest, /<lobFolder>file:\/\/\/Archives\/NW\/<\/lobFolder>/);
  }
  const r = await runCli(['audit', '--root', root, '--id', NW_ID, '--json']);
  t.is(r.code, 0, r.stdout);
});

python("checkout --join-segments writes one .siard: the unsegmented export's tables, a valid messageDigest, restorable", async (t) => {
  const dest = path.join(work, 'joined');
  await cli(t, 'checkout', '--root', shared.root, '--id', NW_ID, dest, '--join-segments');
  t.deepEqual(segmentNames(dest), [], 'the segments are replaced');
  const joined = pythonLayout([path.join(dest, 'Northwind.siard')]);
  const reference = pythonLayout([path.join(shared.whole, 'Northwind.siard')]);
  t.is(joined.segments[0]!.badEntry, null);
  t.is(joined.segments[0]!.statedDigest, joined.segments[0]!.prefixSha256);
  t.deepEqual(
    Object.fromEntries(Object.entries(joined.tables).map(([k, v]) => [k, v.sha256])),
    Object.fromEntries(Object.entries(reference.tables).map(([k, v]) => [k, v.sha256])),
  );
  t.is(joined.segments[0]!.metadataWithoutDigest, reference.segments[0]!.metadataWithoutDigest);
  await cli(t, 'restore', path.join(dest, 'Northwind.siard'), path.join(work, 'joined.db'));
  t.deepEqual(dump(path.join(work, 'joined.db')), dumpShared(shared.wholeDb), 'equals the restore of the whole export');
});

test('ingest of a received segmented SIARD file stores every segment and its LOB folders as received; audit passes', async (t) => {
  const received = path.join(work, 'received-pkg');
  mkdirSync(received);
  cpSync(shared.set, received, { recursive: true });
  const root = copyRoot(shared.emptyRoot, path.join(work, 'root-received'));
  const stdout = await cli(t, 'ingest', path.join(received, 'Northwind.siard.1'), '--root', root, '--id', 'urn:seg:received', '--json');
  const result = JSON.parse(stdout) as { files: number };
  // The export that made the set wrote its table fingerprints beside it; ingest takes them along.
  t.true(existsSync(path.join(received, 'Northwind.fingerprints.json')), 'the fingerprints beside the set');
  t.is(result.files, segmentNames(received).length + 13 + 1, 'the segments, the 13 LOB files and the fingerprints');
  const r = await runCli(['audit', '--root', root, '--id', 'urn:seg:received', '--json']);
  t.is(r.code, 0, r.stdout);
  await cli(t, 'restore', '--root', root, '--id', 'urn:seg:received', path.join(work, 'received.db'));
  t.deepEqual(dump(path.join(work, 'received.db')), dumpShared(shared.stemDb), 'equals the restore of the set on disk');
});

python('--mets with a segmented file: the parent METS lists each segment, its size and SHA-256; the mets verb; audit', async (t) => {
  const out = path.join(work, 'mets-set');
  await cli(t, 'export', northwind, out, '--max-siard-bytes', '16000', '--mets');
  const names = segmentNames(out);
  t.true(names.length >= 3);
  const script = String.raw`
import json, sys, xml.etree.ElementTree as ET
M = '{http://www.loc.gov/METS/}'
root = ET.parse(sys.argv[1]).getroot()
X = '{http://www.w3.org/1999/xlink}href'
print(json.dumps([{'href': f.find(M + 'FLocat').get(X), 'size': f.get('SIZE'), 'checksum': f.get('CHECKSUM'), 'type': f.get('CHECKSUMTYPE')}
  for f in root.iter(M + 'file') if f.get('MIMETYPE') == 'application/zip']))`;
  const { execFileSync } = await import('node:child_process');
  const { createHash } = await import('node:crypto');
  const { readFileSync } = await import('node:fs');
  const printed = execFileSync('python3', ['-c', script, path.join(out, 'mets.xml')], { encoding: 'utf8' });
  const listed = JSON.parse(printed) as Array<{ href: string; size: string; checksum: string; type: string }>;
  t.deepEqual(
    listed.map((f) => f.href),
    names,
  );
  for (const f of listed) {
    const bytes = readFileSync(path.join(out, f.href));
    t.is(Number(f.size), bytes.length);
    t.is(f.type, 'SHA-256');
    t.is(f.checksum, createHash('sha256').update(bytes).digest('hex'));
  }
  const root = copyRoot(shared.root, path.join(work, 'root-mets'));
  await cli(t, 'mets', '--root', root, '--id', NW_ID);
  const r = await runCli(['audit', '--root', root, '--id', NW_ID, '--json']);
  t.is(r.code, 0, r.stdout);
  t.false((JSON.parse(r.stdout) as { findings: Array<{ code: string }> }).findings.some((f) => /^METS_/.test(f.code)));
});
