/**
 * The METS index inside OCFL objects (issue 8 acceptance), through the built CLI:
 * 1. the Northwind example (Orders, Products, Categories; 4 files / 45,000 bytes) ingested with
 *    --mets: one parent and three children, each child listing exactly the records of its
 *    segment as the seed prints them;
 * 2. every METS file valid against the METS 1.12 schema (xmllint), namespaced (METS, xlink), and every CHECKSUM equal to
 *    the inventory's fixity value: for ingest --mets and for `siard-ocfl mets` on an object
 *    ingested without it (whose new version holds nothing new but the METS files, with checksums
 *    taken from the inventory, not from re-reading the LOBs);
 * 3. audit (exit 1) names a METS checksum that disagrees with its file, a missing child METS and
 *    a LOB file missing from its child METS, each built as a valid OCFL version (checkout, edit,
 *    put) so only the METS finding fires.
 * The METS files are parsed with python3's xml.etree, the inventory as plain JSON, the cells from
 * the table XML through unzip; digests with node:crypto. None of our METS reader is used.
 *
 * Each way of ingesting is run once (`ingested`): the tests that read an object as ingested share
 * it, and a test that adds versions works on its own copy of that object's storage root (`own`: the
 * root folder copied byte for byte, so the object is the one the ingest wrote).
 */
import test from 'ava';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
// @ts-expect-error plain JS fixture builder
import { buildNorthwind, CATEGORIES } from '../../fixtures/northwind.js';
import { contentPaths, fixityOf, readInventory, type InventoryJson } from '../helpers/archive-support.js';
import { readTableXml, unzipEntry } from '../helpers/export-support.js';
import { runCli } from '../helpers/cli.js';
import { seed, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const METS = 'http://www.loc.gov/METS/';
const XLINK = 'http://www.w3.org/1999/xlink';
const HREF = `{${XLINK}}href`;
/** The seed's example: Categories pictures, row n+1 in segment SEGMENT_OF[n]. */
const SEGMENT_OF = [0, 0, 0, 0, 1, 1, 1, 2];
const SEGMENTS = ['Northwind_lobseg_0', 'Northwind_lobseg_1', 'Northwind_lobseg_2'];
const SEED_TABLES = 'Orders,Products,Categories';
const LIMITS = ['--max-files', '4', '--max-bytes', '45000'];
const NODE_HASH: Record<string, string> = { MD5: 'md5', 'SHA-1': 'sha1', 'SHA-256': 'sha256' };
const OCFL_ALG: Record<string, string> = { MD5: 'md5', 'SHA-1': 'sha1', 'SHA-256': 'sha256' };

const work = tempDir('siard-ocfl-mets-ocfl-');
const db = path.join(work, 'Northwind.db');
buildNorthwind(db);

/** Reads one JSON list of METS files per line of its input and answers each with one line of JSON: the dump, or the error. */
const PY_DUMP = String.raw`
import json, sys, traceback, xml.etree.ElementTree as ET
M = '{http://www.loc.gov/METS/}'
def dump(paths):
    out = {}
    for p in paths:
        r = ET.parse(p).getroot()
        files = []
        def walk(grp, use):
            for el in grp:
                if el.tag == M + 'fileGrp': walk(el, el.get('USE', use))
                elif el.tag == M + 'file':
                    files.append({'use': use, 'attrs': dict(el.attrib), 'flocats': [dict(f.attrib) for f in el.findall(M + 'FLocat')]})
        for sec in r.findall(M + 'fileSec'): walk(sec, None)
        out[p] = {'tag': r.tag, 'objid': r.get('OBJID'), 'files': files, 'mptrs': [dict(m.attrib) for m in r.iter(M + 'mptr')]}
    return out
for line in sys.stdin:
    try:
        answer = {'dump': dump(json.loads(line))}
    except Exception:
        answer = {'error': traceback.format_exc()}
    sys.stdout.write(json.dumps(answer) + '\n')
    sys.stdout.flush()
`;
import { metsSchemaErrors } from '../helpers/mets-schema.js';
interface PyFile {
  use: string | null;
  attrs: Record<string, string>;
  flocats: Array<Record<string, string>>;
}
interface PyMets {
  tag: string;
  objid: string;
  files: PyFile[];
  mptrs: Array<Record<string, string>>;
}
interface PythonAnswer {
  dump?: Record<string, PyMets>;
  error?: string;
}
let python: { child: ChildProcessWithoutNullStreams; waiting: Array<(answer: PythonAnswer) => void> } | undefined;

/**
 * The METS files as python3's xml.etree reads them. One python3 serves the whole file (started when
 * first asked, ended and waited for after the last test): a question is a line on its input, the
 * answers come back in the order asked.
 */
function pythonDump(files: string[]): Promise<Record<string, PyMets>> {
  if (!python) {
    const child = spawn('python3', ['-c', PY_DUMP], { stdio: ['pipe', 'pipe', 'pipe'] });
    const waiting: Array<(answer: PythonAnswer) => void> = [];
    let stderr = '';
    const fail = (why: string) => {
      for (const answer of waiting.splice(0)) answer({ error: `${why}: ${stderr}` });
    };
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()!(JSON.parse(line) as PythonAnswer));
    child.on('error', (err) => fail(`python3: ${err.message}`));
    child.on('close', (code) => fail(`python3 exited ${code}`));
    python = { child, waiting };
  }
  const { child, waiting } = python;
  return new Promise((resolve, reject) => {
    waiting.push((answer) => (answer.dump ? resolve(answer.dump) : reject(new Error(answer.error))));
    child.stdin.write(JSON.stringify(files) + '\n');
  });
}

test.after.always(async () => {
  if (!python) return;
  const { child } = python;
  const closed = new Promise((resolve) => child.on('close', resolve));
  child.stdin.end();
  await closed;
});

const hashOf = (type: string, bytes: Uint8Array) => createHash(NODE_HASH[type]!).update(bytes).digest('hex');

async function cli(args: string[]) {
  const r = await runCli(args);
  if (r.code !== 0) throw new Error(`siard-ocfl ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}`);
  return r;
}

/** Runs `make` once, when first asked; every caller gets the same promise. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/** An object in a storage root of its own. */
interface Stored {
  root: string;
  id: string;
  objectDir: string;
}

/** An empty storage root made by `init`: copied wherever a test needs a root of its own. */
const emptyRoot = once(async () => {
  const dir = path.join(work, 'root-empty');
  await cli(['init', dir]);
  return dir;
});

function copyRoot(from: string, name: string): string {
  const to = path.join(work, `root-${name}`);
  cpSync(from, to, { recursive: true });
  return to;
}

/**
 * `ingest --json` of the seed's example (Orders, Products, Categories), or with `full` of the whole
 * Northwind, at the 4 files / 45,000 bytes limits, into a root of its own; run once, when first asked.
 * Tests read the object as it is; a test that adds versions takes its own copy with `own`.
 */
function ingested(name: string, id: string, extra: string[], full = false): () => Promise<Stored> {
  return once(async () => {
    const root = copyRoot(await emptyRoot(), name);
    const tables = full ? [] : ['--tables', SEED_TABLES];
    const r = await cli([
      'ingest',
      `sqlite:${db}`,
      '--root',
      root,
      '--id',
      id,
      '--name',
      'Northwind',
      ...tables,
      ...LIMITS,
      '--json',
      ...extra,
    ]);
    return { root, id, objectDir: path.join(root, JSON.parse(r.stdout).objectPath as string) };
  });
}

/** A copy of the root of `base` (made once by the CLI) for a test that adds versions to the object. */
async function own(base: () => Promise<Stored>, name: string): Promise<Stored> {
  const b = await base();
  const root = copyRoot(b.root, name);
  return { root, id: b.id, objectDir: path.join(root, path.relative(b.root, b.objectDir)) };
}

/** The seed's example with MD5 LOB digests and --mets (acceptance 1), which the audit and relocate tests damage or relocate. */
const seedMd5Mets = ingested('seed-md5-mets', 'urn:example:northwind-mets', ['--lob-digest', 'MD5', '--mets']);
/** The same without --mets: the mets verb adds the index later. */
const seedMd5 = ingested('seed-md5', 'urn:example:northwind-later', ['--lob-digest', 'MD5']);
/** --mets with the default digests (SHA-256 LOB digests, sha512 manifest). */
const seedMets = ingested('seed-mets', 'urn:example:northwind-seed', ['--mets']);
/** The whole Northwind with --mets, and without. */
const fullMets = ingested('full-mets', 'urn:example:full-a', ['--mets'], true);
const fullPlain = ingested('full-plain', 'urn:example:full-b', [], true);

interface MetsIndexOnDisk {
  inv: InventoryJson;
  /** logical path -> file on disk (head) */
  file: (logicalPath: string) => string;
  parent: PyMets;
  children: Map<string, PyMets>;
}

/**
 * Reads the index of an object's head with python, checks well-formedness and namespaces, and
 * compares every CHECKSUM (parent: .siard and children; children: every LOB) with the fixity
 * block of the inventory for the index's CHECKSUMTYPE.
 */
async function checkAgainstInventory(t: import('ava').ExecutionContext, objectDir: string, checksumType: string): Promise<MetsIndexOnDisk> {
  const inv = readInventory(objectDir);
  const logical = contentPaths(inv);
  const file = (p: string) => path.join(objectDir, logical.get(p) ?? `(no ${p})`);
  const alg = OCFL_ALG[checksumType]!;
  // The inventory's value for the algorithm: its fixity block, or the manifest when that is the algorithm.
  const fixity =
    inv.digestAlgorithm === alg
      ? new Map([...logical.values()].map((cp) => [cp, Object.entries(inv.manifest).find(([, ps]) => ps.includes(cp))![0]]))
      : fixityOf(inv, alg);
  const metsPaths = [...logical.keys()].filter((p) => p === 'mets.xml' || p.endsWith('/mets.xml'));
  t.is(metsSchemaErrors(metsPaths.map(file)), '', 'valid against the METS 1.12 schema');
  const dump = await pythonDump(metsPaths.map(file));
  const parent = dump[file('mets.xml')]!;
  const children = new Map<string, PyMets>();
  let compared = 0;
  const compare = (f: PyFile, logicalPath: string) => {
    t.is(f.attrs.CHECKSUMTYPE, checksumType, logicalPath);
    const cp = logical.get(logicalPath);
    t.truthy(cp, `${logicalPath} is in the head state`);
    t.is(f.attrs.CHECKSUM, fixity.get(cp!), `${logicalPath}: METS checksum = inventory ${alg}`);
    t.is(f.attrs.SIZE, String(readFileSync(file(logicalPath)).length), logicalPath);
    compared++;
  };
  for (const [p, m] of Object.entries(dump)) {
    t.is(m.tag, `{${METS}}mets`, `${p}: root element in the METS namespace`);
    for (const f of m.files) for (const l of f.flocats) t.truthy(l[HREF], `${p}: FLocat href in the xlink namespace`);
  }
  for (const f of parent.files) {
    const href = f.flocats[0]![HREF]!;
    compare(f, href);
    if (f.use === 'child IP') children.set(path.posix.dirname(href), dump[file(href)]!);
  }
  for (const [segment, child] of children)
    for (const f of child.files) compare(f, `${segment}/${decodeURIComponent(f.flocats[0]![HREF]!)}`);
  // Every METS file of the state was reached from the parent, and every LOB file is listed.
  t.is(children.size + 1, metsPaths.length);
  const lobFiles = [...logical.keys()].filter((p) => p.includes('_lobseg_') && !p.endsWith('/mets.xml'));
  t.is(compared, 1 + children.size + lobFiles.length);
  return { inv, file, parent, children };
}

/** The seed's records per segment: [ID, OWNERID, SIZE, CHECKSUMTYPE, CHECKSUM (the cell digest), href]. */
function seedRecords(siardFile: string, checksumType: string): string[][][] {
  const cells = readTableXml(unzipEntry(siardFile, 'content/schema0/table2/table2.xml').toString('utf8'));
  return SEGMENTS.map((_s, h) =>
    SEGMENT_OF.flatMap((s, n) => (s === h ? [n] : [])).map((n) => {
      const cell = cells[n]!.get(4)!.attrs;
      assertDigestType(cell.digestType, checksumType);
      return [
        `s0.t2.c4.r${n + 1}`,
        `s0.t2.c4.r${n + 1}`,
        String(CATEGORIES[n][3]),
        checksumType,
        cell.digest!,
        `content/schema0/table2/lob4/record${n}.bin`,
      ];
    }),
  );
}
function assertDigestType(actual: string | undefined, expected: string) {
  if (actual !== expected) throw new Error(`the cell says digestType ${actual}, expected ${expected}`);
}
const recordsOf = (child: PyMets) =>
  child.files.map((f) => [f.attrs.ID!, f.attrs.OWNERID!, f.attrs.SIZE!, f.attrs.CHECKSUMTYPE!, f.attrs.CHECKSUM!, f.flocats[0]![HREF]!]);

test('ingest --mets, the Northwind example: one parent, three children with the seed records, checksums = fixity', async (t) => {
  const { objectDir } = await seedMd5Mets();
  const index = await checkAgainstInventory(t, objectDir, 'MD5');
  t.is(index.parent.objid, 'urn:example:northwind-mets');
  t.deepEqual([...index.children.keys()], SEGMENTS);
  t.deepEqual(
    index.parent.mptrs.map((m) => m[HREF]),
    index.parent.files.filter((f) => f.use === 'child IP').map((f) => f.attrs.ID),
  );
  const siard = index.parent.files.find((f) => f.use !== 'child IP')!;
  t.is(siard.flocats[0]![HREF], 'Northwind.siard');
  const expected = seedRecords(index.file('Northwind.siard'), 'MD5');
  SEGMENTS.forEach((s, h) => {
    const child = index.children.get(s)!;
    t.deepEqual(recordsOf(child), expected[h]!, s);
    t.deepEqual(
      child.mptrs.map((m) => m[HREF]),
      ['urn:example:northwind-mets'],
    );
    // and the checksums are those of the bytes
    for (const f of child.files) t.is(f.attrs.CHECKSUM, hashOf('MD5', readFileSync(index.file(`${s}/${f.flocats[0]![HREF]}`))));
  });
});

sharedTest('the child of Northwind_lobseg_0 in the object lists the IDs and sizes the seed prints', async (t) => {
  const text = readFileSync(seed('002_005a98f6ab27beae.txt'), 'utf8');
  const printed = [
    ...text.matchAll(/<mets:file ID="(s[^"]+)"[^>]*?SIZE="(\d+)">\s*<mets:FLocat[^>]*?xlink:href="file:\/\/\/([^"]+)"/g),
  ].map((m) => [m[1], m[2], m[3]]);
  t.is(printed.length, 4);
  const { objectDir } = await seedMets();
  const logical = contentPaths(readInventory(objectDir));
  const childFile = path.join(objectDir, logical.get('Northwind_lobseg_0/mets.xml')!);
  const child = (await pythonDump([childFile]))[childFile]!;
  t.deepEqual(
    child.files.map((f) => [f.attrs.ID, f.attrs.SIZE, `Northwind_lobseg_0/${f.flocats[0]![HREF]}`]),
    printed,
  );
});

test(
  'mets verb on an object ingested without --mets: only METS files are new, checksums from the inventory, the same records ' +
    'as ingest --mets',
  async (t) => {
    const { root, id, objectDir } = await own(seedMd5, 'later');
    const v1 = readInventory(objectDir);
    t.false([...contentPaths(v1).keys()].some((p) => p.endsWith('mets.xml')));
    const r = await cli([
      'mets',
      '--root',
      root,
      '--id',
      id,
      '--message',
      'METS index',
      '--user-name',
      'Archivist',
      '--user-address',
      'mailto:a@example.org',
      '--json',
    ]);
    const result = JSON.parse(r.stdout);
    t.is(result.version, 'v2');
    t.is(result.checksumType, 'MD5');
    t.is(result.rehashed, 0, 'every checksum came from the inventory');

    const index = await checkAgainstInventory(t, objectDir, 'MD5');
    const v2 = index.inv;
    t.is(v2.head, 'v2');
    t.like(v2.versions.v2 as object, { message: 'METS index', user: { name: 'Archivist', address: 'mailto:a@example.org' } });
    // The new content of v2 is exactly the four METS files; every other path keeps its v1 content.
    const newContent = Object.values(v2.manifest)
      .flat()
      .filter((cp) => cp.startsWith('v2/'))
      .sort();
    t.deepEqual(newContent, ['v2/content/mets.xml', ...SEGMENTS.map((s) => `v2/content/${s}/mets.xml`)].sort());
    const before = contentPaths(v1);
    const after = contentPaths(v2);
    for (const [p, cp] of before) t.is(after.get(p), cp, p);
    t.is(after.size, before.size + 4);

    // The same records as the seed's, as ingest --mets writes them.
    t.is(index.parent.objid, id);
    t.deepEqual([...index.children.keys()], SEGMENTS);
    const expected = seedRecords(index.file('Northwind.siard'), 'MD5');
    SEGMENTS.forEach((s, h) => t.deepEqual(recordsOf(index.children.get(s)!), expected[h]!, s));

    // Audit agrees; a second run without --replace refuses (exit 2) and writes nothing.
    const a = await runCli(['audit', '--root', root, '--id', id, '--no-xsd', '--json']);
    t.is(a.code, 0, a.stdout);
    t.false((JSON.parse(a.stdout).findings as Array<{ code: string }>).some((f) => f.code.startsWith('METS_')));
    const again = await runCli(['mets', '--root', root, '--id', id]);
    t.is(again.code, 2);
    t.regex(again.stderr, /already has a METS index \(mets\.xml in v2\).*--replace/);
    t.is(readInventory(objectDir).head, 'v2');
    const replaced = await cli(['mets', '--root', root, '--id', id, '--replace', '--json']);
    t.is(JSON.parse(replaced.stdout).version, 'v3');
    await checkAgainstInventory(t, objectDir, 'MD5');
  },
);

test('the whole Northwind (split 5 MiB BLOB, CLOB, 120 segments): the mets verb writes the same children as ingest --mets', async (t) => {
  const a0 = await fullMets();
  const b0 = await own(fullPlain, 'full-later');
  const withMets = a0.objectDir;
  const later = b0.objectDir;
  await cli(['mets', '--root', b0.root, '--id', b0.id]);
  const a = contentPaths(readInventory(withMets));
  const b = contentPaths(readInventory(later));
  const children = [...a.keys()].filter((p) => p.endsWith('/mets.xml')).sort();
  t.true(children.length > 100);
  t.deepEqual(children, [...b.keys()].filter((p) => p.endsWith('/mets.xml')).sort());
  t.true(
    children.some((p) => readFileSync(path.join(withMets, a.get(p)!), 'utf8').includes('.pz"')),
    'a split LOB is among them',
  );
  // Same bytes but for the creation date and the parent's OBJID (the object id).
  const normal = (file: string, id: string) =>
    readFileSync(file, 'utf8')
      .replace(/CREATEDATE="[^"]*"/, '')
      .replaceAll(`"${id}"`, '"OBJECT"');
  for (const p of children) t.is(normal(path.join(later, b.get(p)!), b0.id), normal(path.join(withMets, a.get(p)!), a0.id), p);
  await checkAgainstInventory(t, later, 'SHA-256');
});

test(
  'mets verb on a relocated object (lobFolder file:///Archives/x/, not on this machine): the LOB folders the object keeps ' +
    'are indexed, with one note, as ingest --mets indexes them',
  async (t) => {
    const { root, id, objectDir } = await own(fullPlain, 'full-relocated');
    await cli(['relocate', '--root', root, '--id', id, '--lob-folder', 'file:///Archives/x/']);
    t.false(existsSync('/Archives/x'), 'the lobFolder does not exist here');
    const m = await runCli(['mets', '--root', root, '--id', id, '--json']);
    t.is(m.code, 0, m.stderr);
    const result = JSON.parse(m.stdout) as { version: string; lobFiles: number; rehashed: number; notes: string[] };
    t.is(result.version, 'v3');
    t.is(result.rehashed, 0, 'every checksum came from the inventory');
    t.is(result.notes.length, 1, 'one note, not one per cell');
    t.regex(
      result.notes[0]!,
      new RegExp(
        String.raw`^Northwind\.siard: the database lobFolder "file:\/\/\/Archives\/x\/" points elsewhere .*listed ` +
          String.raw`where the object keeps them instead, at Northwind_lobseg_\d+\/`,
      ),
    );
    const index = await checkAgainstInventory(t, objectDir, 'SHA-256');
    // The same children as ingest --mets writes for the unrelocated database.
    const reference = contentPaths(readInventory((await fullMets()).objectDir));
    const children = (paths: Iterable<string>) => [...paths].filter((p) => p.endsWith('/mets.xml')).sort();
    t.deepEqual(children(contentPaths(index.inv).keys()), children(reference.keys()));
    t.is(result.lobFiles, [...reference.keys()].filter((p) => p.includes('_lobseg_') && !p.endsWith('/mets.xml')).length);
    const a = await runCli(['audit', '--root', root, '--id', id, '--json']);
    t.is(a.code, 0, a.stdout);
    t.false(
      (JSON.parse(a.stdout).findings as Array<{ code: string }>).some((f) => f.code.startsWith('METS_') || f.code.startsWith('LOB_')),
    );
  },
);

test('mets verb takes LOB checksums from the inventory, not from the files (a damaged LOB keeps its recorded checksum)', async (t) => {
  const { root, id, objectDir } = await ingested('damaged', 'urn:example:northwind-damaged', [])(); // SHA-256 LOB digests, sha512 manifest
  const inv = readInventory(objectDir);
  const lob = 'Northwind_lobseg_1/content/schema0/table2/lob4/record5.bin';
  const lobFile = path.join(objectDir, contentPaths(inv).get(lob)!);
  const bytes = readFileSync(lobFile);
  bytes[100] ^= 0xff;
  writeFileSync(lobFile, bytes);
  const r = await cli(['mets', '--root', root, '--id', id, '--json']);
  t.is(JSON.parse(r.stdout).checksumType, 'SHA-256');
  const index = await checkAgainstInventory(t, objectDir, 'SHA-256');
  const listed = index.children
    .get('Northwind_lobseg_1')!
    .files.find((f) => f.flocats[0]![HREF] === 'content/schema0/table2/lob4/record5.bin')!;
  t.is(listed.attrs.CHECKSUM, fixityOf(inv, 'sha256').get(contentPaths(inv).get(lob)!));
  t.not(listed.attrs.CHECKSUM, hashOf('SHA-256', bytes));
  // Audit finds the damage (fixity and METS agree with each other, not with the file).
  const a = await runCli(['audit', '--root', root, '--id', id, '--no-xsd', '--json']);
  t.is(a.code, 1);
  const codes = (JSON.parse(a.stdout).findings as Array<{ code: string; path?: string }>).filter((f) => f.path === lob).map((f) => f.code);
  t.true(codes.includes('METS_CHECKSUM_MISMATCH'), codes.join());
});

test('mets verb with a sha256 manifest and SHA-256 LOBs takes checksums from the manifest', async (t) => {
  const { root, id, objectDir } = await ingested('sha256', 'urn:example:northwind-sha256', ['--digest', 'sha256'])();
  t.is(readInventory(objectDir).digestAlgorithm, 'sha256');
  const r = await cli(['mets', '--root', root, '--id', id, '--json']);
  t.is(JSON.parse(r.stdout).rehashed, 0);
  await checkAgainstInventory(t, objectDir, 'SHA-256');
  t.is((await runCli(['audit', '--root', root, '--id', id, '--no-xsd'])).code, 0);
});

test(
  'mets verb on an object with no fixity block (put of an exported folder): the files it lacks are hashed, the index agrees ' +
    'with the fixity the commit completes',
  async (t) => {
    const out = path.join(work, 'exported');
    await cli(['export', `sqlite:${db}`, out, '--name', 'Northwind', '--tables', SEED_TABLES, ...LIMITS]);
    const root = copyRoot(await emptyRoot(), 'put');
    const id = 'urn:example:northwind-put';
    await cli(['put', out, '--root', root, '--id', id]);
    const objectDir = path.join(root, (await cli(['path', id, '--root', root])).stdout.trim());
    t.is(readInventory(objectDir).fixity, undefined);
    const m = JSON.parse((await cli(['mets', '--root', root, '--id', id, '--json'])).stdout);
    t.is(m.checksumType, 'SHA-256');
    t.is(m.rehashed, 9, 'the eight LOBs and the .siard');
    await checkAgainstInventory(t, objectDir, 'SHA-256');
    t.is((await runCli(['audit', '--root', root, '--id', id, '--no-xsd'])).code, 0);
  },
);

test('mets verb: an unknown object and an object without a .siard are refused (exit 2)', async (t) => {
  const root = copyRoot(await emptyRoot(), 'plain');
  const missing = await runCli(['mets', '--root', root, '--id', 'urn:example:none']);
  t.is(missing.code, 2);
  t.regex(missing.stderr, /holds no object "urn:example:none"/);
  const plain = path.join(work, 'plain');
  mkdirSync(plain);
  writeFileSync(path.join(plain, 'a.txt'), 'hello');
  await cli(['put', plain, '--root', root, '--id', 'urn:example:plain']);
  const none = await runCli(['mets', '--root', root, '--id', 'urn:example:plain']);
  t.is(none.code, 2);
  t.regex(none.stderr, /holds no \.siard/);
});

// ---- Acceptance 3: audit names what is wrong with the METS index ------------------------

/**
 * The object of acceptance 1 as ingested (`seedMd5Mets`, v1), audited once and checked out once: the
 * objects edited below are byte-for-byte copies of it (`own`), so its audit is theirs before the edit
 * and its checkout is the checkout of their head.
 */
const seedMd5MetsAudit = once(async () => {
  const { root, id } = await seedMd5Mets();
  return runCli(['audit', '--root', root, '--id', id, '--no-xsd']);
});
const seedMd5MetsCheckout = once(async () => {
  const { root, id } = await seedMd5Mets();
  const dir = path.join(work, 'checkout-seed-md5-mets');
  await cli(['checkout', '--root', root, '--id', id, dir]);
  return dir;
});

/** Checks the head out (a copy of `seedMd5Mets` at v1), lets `edit` change the tree, and puts it back as the next version. */
async function editVersion(obj: Stored, name: string, edit: (dir: string) => void): Promise<void> {
  if (readInventory(obj.objectDir).head !== 'v1') throw new Error(`${obj.root}: not the object as ingested`);
  const dir = path.join(work, `edit-${name}`);
  cpSync(await seedMd5MetsCheckout(), dir, { recursive: true });
  edit(dir);
  await cli(['put', dir, '--root', obj.root, '--id', obj.id, '--fixity', 'md5', '--message', name, '--user-name', 'test']);
  rmSync(dir, { recursive: true, force: true });
}

/** Rewrites the parent's SIZE and CHECKSUM for a child METS after the child was edited, so only the intended finding fires. */
function refreshParentEntry(dir: string, segment: string): void {
  const parentFile = path.join(dir, 'mets.xml');
  const child = readFileSync(path.join(dir, segment, 'mets.xml'));
  const text = readFileSync(parentFile, 'utf8');
  const re = new RegExp(`(<mets:file ID="ID_${segment}_mets"[^>]*?CHECKSUM=")[0-9a-f]+(" SIZE=")\\d+(")`);
  if (!re.test(text)) throw new Error(`no entry for ${segment} in the parent`);
  writeFileSync(parentFile, text.replace(re, `$1${hashOf('MD5', child)}$2${child.length}$3`));
}

async function auditFindings({ root, id }: Stored) {
  const human = await runCli(['audit', '--root', root, '--id', id, '--no-xsd']);
  const json = await runCli(['audit', '--root', root, '--id', id, '--no-xsd', '--json']);
  const findings = (JSON.parse(json.stdout).findings as Array<{ code: string; severity: string; path?: string }>).filter(
    (f) => f.severity === 'error',
  );
  return { human, code: json.code, errors: findings.map((f) => `${f.code} ${f.path}`).sort() };
}

const damaged = test.macro(async (t, name: string, edit: (dir: string) => void, expected: string[]) => {
  const obj = await own(seedMd5Mets, name);
  t.is((await seedMd5MetsAudit()).code, 0, 'intact before the edit');
  await editVersion(obj, name, edit);
  const { human, code, errors } = await auditFindings(obj);
  t.is(human.code, 1, human.stdout);
  t.is(code, 1);
  t.deepEqual(errors, expected);
  // The human report names the code and the path too.
  for (const e of expected) {
    const [findingCode, findingPath] = e.split(' ');
    t.true(
      human.stdout.split('\n').some((l) => l.includes(findingCode!) && l.includes(findingPath!)),
      `${e} in:\n${human.stdout}`,
    );
  }
});

test(
  'audit: a METS checksum that disagrees with the file',
  damaged,
  'bad-checksum',
  (dir) => {
    const child = path.join(dir, 'Northwind_lobseg_1', 'mets.xml');
    const text = readFileSync(child, 'utf8');
    const edited = text.replace(/(<mets:file ID="s0\.t2\.c4\.r6"[^>]*?CHECKSUM=")[0-9a-f]+/, '$1' + '0'.repeat(32));
    if (edited === text) throw new Error('no entry for s0.t2.c4.r6');
    writeFileSync(child, edited);
    refreshParentEntry(dir, 'Northwind_lobseg_1');
  },
  ['METS_CHECKSUM_MISMATCH Northwind_lobseg_1/content/schema0/table2/lob4/record5.bin'],
);

test(
  'audit: a child METS that is missing',
  damaged,
  'child-missing',
  (dir) => rmSync(path.join(dir, 'Northwind_lobseg_2', 'mets.xml')),
  // With its child gone, the segment's one LOB is listed by no METS: named as well.
  ['METS_CHILD_MISSING Northwind_lobseg_2/mets.xml', 'METS_FILE_UNLISTED Northwind_lobseg_2/content/schema0/table2/lob4/record7.bin'],
);

test(
  'audit: a LOB file missing from its child METS',
  damaged,
  'lob-unlisted',
  (dir) => {
    const child = path.join(dir, 'Northwind_lobseg_0', 'mets.xml');
    const text = readFileSync(child, 'utf8');
    const edited = text
      .replace(/\s*<mets:file ID="s0\.t2\.c4\.r3"[\s\S]*?<\/mets:file>/, '')
      .replace(/\s*<mets:fptr FILEID="s0\.t2\.c4\.r3"\/>/, '');
    if (edited === text) throw new Error('no entry for s0.t2.c4.r3');
    writeFileSync(child, edited);
    refreshParentEntry(dir, 'Northwind_lobseg_0');
  },
  ['METS_FILE_UNLISTED Northwind_lobseg_0/content/schema0/table2/lob4/record2.bin'],
);

// ---- relocate keeps the METS index true ----------------------------------------------------

/**
 * Relocates the object (whose head holds a METS index) and checks the new version from outside:
 * the parent mets.xml of a checkout is well-formed (xmllint) and lists the checked-out .siard's
 * real SIZE and CHECKSUM (computed here with node:crypto); it differs from the previous parent
 * only in those two values and a LASTMODDATE; the only content new in the version is the .siard
 * and the parent (child METS and LOBs point at earlier content); audit passes with no METS_ or
 * LOB_ finding; the human output says the index was updated.
 */
async function relocateAndCheck(t: import('ava').ExecutionContext, obj: Stored, lobFolder: string, checksumType: string) {
  const { root, id, objectDir } = obj;
  const before = readInventory(objectDir);
  const oldParent = readFileSync(path.join(objectDir, contentPaths(before).get('mets.xml')!), 'utf8');
  const r = await cli(['relocate', '--root', root, '--id', id, '--lob-folder', lobFolder]);
  t.regex(r.stdout, /^mets\.xml: METS index updated for the new Northwind\.siard \(SIZE \d+, /m);
  const after = readInventory(objectDir);
  const version = after.head;
  t.is(Number(version.slice(1)), Number(before.head.slice(1)) + 1);

  // Only the .siard and the parent METS are stored new; every other path keeps its content.
  const newContent = Object.values(after.manifest)
    .flat()
    .filter((cp) => cp.startsWith(`${version}/`))
    .sort();
  t.deepEqual(newContent, [`${version}/content/Northwind.siard`, `${version}/content/mets.xml`]);
  const s0 = contentPaths(before);
  const s1 = contentPaths(after);
  t.deepEqual([...s1.keys()].sort(), [...s0.keys()].sort());
  for (const [p, cp] of s1) if (p !== 'Northwind.siard' && p !== 'mets.xml') t.is(cp, s0.get(p), `${p} not stored again`);

  // A checkout of the new version, read without our code.
  const dir = path.join(work, `relocated-${path.basename(root)}-${version}`);
  await cli(['checkout', '--root', root, '--id', id, dir]);
  t.is(metsSchemaErrors([path.join(dir, 'mets.xml')]), '', 'the rewritten parent is valid against the METS 1.12 schema');
  const siardBytes = readFileSync(path.join(dir, 'Northwind.siard'));
  const parent = (await pythonDump([path.join(dir, 'mets.xml')]))[path.join(dir, 'mets.xml')]!;
  const siardEntry = parent.files.find((f) => f.use !== 'child IP')!;
  t.is(siardEntry.flocats[0]![HREF], 'Northwind.siard', 'the FLocat stays relative to the parent');
  t.is(siardEntry.attrs.SIZE, String(siardBytes.length), 'SIZE of the checked-out .siard');
  t.is(siardEntry.attrs.CHECKSUMTYPE, checksumType);
  t.is(siardEntry.attrs.CHECKSUM, hashOf(checksumType, siardBytes), 'CHECKSUM of the checked-out .siard');
  t.true(
    unzipEntry(path.join(dir, 'Northwind.siard'), 'header/metadata.xml').toString('utf8').includes(`<lobFolder>${lobFolder}</lobFolder>`),
  );
  // The children are listed as before and still match their files.
  for (const f of parent.files.filter((x) => x.use === 'child IP')) {
    const child = readFileSync(path.join(dir, f.flocats[0]![HREF]!));
    t.is(f.attrs.SIZE, String(child.length), f.flocats[0]![HREF]);
    t.is(f.attrs.CHECKSUM, hashOf(checksumType, child), f.flocats[0]![HREF]);
  }
  // Nothing else of the parent changed.
  const newParent = readFileSync(path.join(dir, 'mets.xml'), 'utf8');
  const normal = (xml: string) =>
    xml.replace(/ LASTMODDATE="[^"]*"/, '').replace(/(ID="ID_SIARD_ARCHIVE"[^>]*?CHECKSUM=")[0-9a-f]+(" SIZE=")\d+"/, '$1X$2X"');
  t.is(normal(newParent), normal(oldParent));
  t.regex(newParent, /<mets:metsHdr CREATEDATE="[^"]+" LASTMODDATE="[^"]+"/);
  rmSync(dir, { recursive: true, force: true });

  const a = await runCli(['audit', '--root', root, '--id', id, '--json']);
  t.is(a.code, 0, a.stdout);
  const findings = JSON.parse(a.stdout).findings as Array<{ code: string; severity: string }>;
  t.deepEqual(
    findings.filter((f) => f.code.startsWith('METS_') || f.code.startsWith('LOB_') || f.severity === 'error'),
    [],
  );
  await checkAgainstInventory(t, objectDir, checksumType);
}

test('ingest, mets, relocate: the new version holds a parent METS for the new .siard and audits clean', async (t) => {
  const obj = await own(seedMd5, 'relocate-mets-verb');
  const { root, id, objectDir } = obj;
  await cli(['mets', '--root', root, '--id', id]);
  t.deepEqual(
    [...contentPaths(readInventory(objectDir)).keys()].filter((p) => p.endsWith('/mets.xml')).sort(),
    SEGMENTS.map((s) => `${s}/mets.xml`),
    'three segment folders, each with its child METS',
  );
  await relocateAndCheck(t, obj, 'file:///Archives/x/', 'MD5');
});

test('ingest --mets, relocate twice (and back to ../): each version audits clean and lists its own .siard', async (t) => {
  const obj = await own(seedMets, 'relocate-ingest-mets');
  await relocateAndCheck(t, obj, 'file:///Archives/x/', 'SHA-256');
  await relocateAndCheck(t, obj, 'file:///Archives/Other%20place/', 'SHA-256');
  await relocateAndCheck(t, obj, '../', 'SHA-256');
  t.is(readInventory(obj.objectDir).head, 'v4');
});

test('relocate --json reports the METS index it wrote again', async (t) => {
  const { root, id, objectDir } = await own(seedMd5Mets, 'relocate-mets-json');
  const r = JSON.parse((await cli(['relocate', '--root', root, '--id', id, '--lob-folder', 'file:///Archives/x/', '--json'])).stdout);
  const siard = readFileSync(path.join(objectDir, 'v2/content/Northwind.siard'));
  t.deepEqual(r.mets, [
    {
      path: 'mets.xml',
      siard: 'Northwind.siard',
      checksumType: 'MD5',
      size: siard.length,
      checksum: hashOf('MD5', siard),
      childrenUnchanged: 3,
    },
  ]);
  t.is(r.stored, 2);
  t.is(r.notes.length, 1);
  t.regex(r.notes[0], /^mets\.xml: .*relative to itself.*not at file:\/\/\/Archives\/x\//);
});

test('relocate refuses (exit 2, nothing written) when the parent METS is not one it can write again', async (t) => {
  const obj = await own(seedMd5Mets, 'relocate-foreign-mets');
  const { root, id, objectDir } = obj;
  // Another tool's touch: a comment in the parent, which the METS writer would not reproduce.
  await editVersion(obj, 'foreign-parent', (dir) => {
    const p = path.join(dir, 'mets.xml');
    writeFileSync(p, readFileSync(p, 'utf8').replace('  <mets:fileSec>', '  <!-- edited by hand -->\n  <mets:fileSec>'));
  });
  t.is((await runCli(['audit', '--root', root, '--id', id, '--no-xsd'])).code, 0, 'the edited index is valid');
  const r = await runCli(['relocate', '--root', root, '--id', id, '--lob-folder', 'file:///Archives/x/']);
  t.is(r.code, 2, r.stdout);
  t.regex(r.stderr, /METS index mets\.xml beside Northwind\.siard cannot be written again .*nothing was written.*mets --replace/);
  t.is(readInventory(objectDir).head, 'v2');
  // The way out it names works: a fresh index, then relocate.
  await cli(['mets', '--root', root, '--id', id, '--replace']);
  await relocateAndCheck(t, obj, 'file:///Archives/x/', 'MD5');
});
