/**
 * The LOB files `siard-ocfl mets` holds compactly (src/siard/mets/lob-file-table.ts, string-list.ts):
 * - the METS files the verb writes for an object of several segments, tables and LOB columns (BLOB
 *   and CLOB) list exactly what an independent reading of the archive says: the cells of every
 *   table.xml (read with a regex from `unzip -p`) name the files; their bytes on disk give size and
 *   checksum; python3's xml.etree reads the METS files. Each child in order, and its structMap;
 * - StringSet against a JS Set on random strings (Latin-1, wider, lone surrogates);
 * - LobFileTable against a plain grouping of records, with split parts, rows beyond int32, MIME
 *   types and checksums that are not lower-case hex.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from '../../src/sources/sqlite/driver.js';
import { contentPaths, readInventory } from '../helpers/archive-support.js';
import { readTableXml, unzipEntry, zipEntryNames } from '../helpers/export-support.js';
import { runCli } from '../helpers/cli.js';
import { metsSchemaErrors } from '../helpers/mets-schema.js';
import { tempDir } from '../helpers/tmp.js';
import { LobFileTable, type LobFilePlace } from '../../src/siard/mets/lob-file-table.js';
import { StringSet } from '../../src/siard/mets/string-list.js';
import type { LobIdentity, MetsLobRecord } from '../../src/siard/mets/types.js';

const PY_DUMP = String.raw`
import json, sys, xml.etree.ElementTree as ET
M = '{http://www.loc.gov/METS/}'
X = '{http://www.w3.org/1999/xlink}'
out = {}
for p in sys.argv[1:]:
    r = ET.parse(p).getroot()
    out[p] = {
      'files': [{'id': f.get('ID'), 'owner': f.get('OWNERID'), 'size': f.get('SIZE'), 'checksum': f.get('CHECKSUM'),
                 'type': f.get('CHECKSUMTYPE'), 'href': f.find(M + 'FLocat').get(X + 'href')} for f in r.iter(M + 'file')],
      'fptrs': [f.get('FILEID') for f in r.iter(M + 'fptr')],
    }
print(json.dumps(out))
`;
interface PyFile {
  id: string;
  owner: string;
  size: string;
  checksum: string;
  type: string;
  href: string;
}
function pythonDump(files: string[]): Record<string, { files: PyFile[]; fptrs: string[] }> {
  const r = spawnSync('python3', ['-c', PY_DUMP, ...files], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as Record<string, { files: PyFile[]; fptrs: string[] }>;
}
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Two tables, five LOB columns between them (BLOBs and a CLOB with a non-ASCII character), some cells NULL. */
function makeDatabase(file: string): void {
  const db = new Database(file);
  db.exec('CREATE TABLE docs (id INTEGER PRIMARY KEY, a BLOB, b BLOB)');
  db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, body TEXT, pic BLOB, scan BLOB)');
  const bytes = (seed: number, n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (seed * 31 + i * 7) & 255));
  const doc = db.prepare('INSERT INTO docs VALUES (?, ?, ?)');
  for (let i = 1; i <= 9; i++) doc.run(i, bytes(i, 5000 + i), i % 3 === 0 ? null : bytes(100 + i, 6000 + i));
  const note = db.prepare('INSERT INTO notes VALUES (?, ?, ?, ?, ?)');
  for (let i = 1; i <= 6; i++)
    note.run(i, `t${i}`, 'x'.repeat(9000 + i) + 'é', bytes(200 + i, 7000 + i), i % 2 ? bytes(300 + i, 8000 + i) : null);
  db.close();
}

test('the mets verb lists every LOB file of every table and column in its own segment, as the cells and the bytes say', async (t) => {
  const work = tempDir('siard-ocfl-mets-lob-files-');
  const db = path.join(work, 'db.sqlite');
  makeDatabase(db);
  const root = path.join(work, 'root');
  const cli = async (args: string[]) => {
    const r = await runCli(args, { env: { SIARD_OCFL_USER_NAME: 'T', SIARD_OCFL_USER_ADDRESS: 'mailto:t@example.org' } });
    if (r.code !== 0) throw new Error(`siard-ocfl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  };
  await cli(['init', root]);
  const ingested = JSON.parse(await cli(['ingest', `sqlite:${db}`, '--root', root, '--id', 'urn:t:lobs', '--max-files', '4', '--json']));
  const objectDir = path.join(root, ingested.objectPath as string);
  const result = JSON.parse(await cli(['mets', '--root', root, '--id', 'urn:t:lobs', '--json']));

  // The independent reading: every cell that names a file, in table, row, column order.
  const logical = contentPaths(readInventory(objectDir));
  const file = (p: string) => path.join(objectDir, logical.get(p) ?? `(no ${p})`);
  const siard = file('db.siard');
  const tables = zipEntryNames(siard)
    .map((n) => /^content\/schema(\d+)\/table(\d+)\/table\d+\.xml$/.exec(n))
    .filter((m) => m !== null)
    .map((m) => ({ entry: m[0], schema: Number(m[1]), table: Number(m[2]) }))
    .sort((a, b) => a.schema - b.schema || a.table - b.table);
  const expected = new Map<string, PyFile[]>();
  const columns = new Set<string>();
  for (const { entry, schema, table } of tables) {
    readTableXml(unzipEntry(siard, entry).toString('utf8')).forEach((cells, r) => {
      for (const [column, cell] of [...cells].sort(([a], [b]) => a - b)) {
        const name = cell.attrs.file;
        if (name === undefined) continue;
        const bytes = readFileSync(file(name));
        t.is(cell.attrs.digest, sha256(bytes), `${name}: the cell's digest is the file's`);
        const id = `s${schema}.t${table}.c${column}.r${r + 1}`;
        const [segment, ...inner] = name.split('/');
        const list = expected.get(segment!) ?? expected.set(segment!, []).get(segment!)!;
        list.push({ id, owner: id, size: String(bytes.length), checksum: sha256(bytes), type: 'SHA-256', href: inner.join('/') });
        columns.add(`${table}.${column}`);
      }
    });
  }
  const lobFiles = [...expected.values()].reduce((n, l) => n + l.length, 0);
  t.true(expected.size >= 5 && columns.size === 5 && lobFiles === 30, `${expected.size} segments, ${lobFiles} files`);
  t.is(result.lobFiles, lobFiles);

  const segments = [...expected.keys()];
  const metsFiles = ['mets.xml', ...segments.map((s) => `${s}/mets.xml`)].map(file);
  t.is(metsSchemaErrors(metsFiles), '', 'valid against the METS 1.12 schema');
  t.is([...logical.keys()].filter((p) => p.endsWith('mets.xml')).length, metsFiles.length, 'no other METS file');
  const dump = pythonDump(metsFiles);
  const parentChildren = dump[file('mets.xml')]!.files.filter((f) => f.href.endsWith('/mets.xml'));
  t.deepEqual(
    parentChildren.map((f) => [f.href, f.size, f.checksum]),
    segments.map((s) => {
      const bytes = readFileSync(file(`${s}/mets.xml`));
      return [`${s}/mets.xml`, String(bytes.length), sha256(bytes)];
    }),
    'the parent lists the children in the order their segments first appear',
  );
  for (const segment of segments) {
    const child = dump[file(`${segment}/mets.xml`)]!;
    t.deepEqual(child.files, expected.get(segment), `${segment}: its files, in cell order`);
    t.deepEqual(
      child.fptrs,
      expected.get(segment)!.map((f) => f.id),
      `${segment}: the structMap points at each file`,
    );
  }
});

test('StringSet answers as a Set and gives every string back as it was added', (t) => {
  let seed = 7;
  const random = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  const alphabet = ['a', 'b', '/', 'é', 'ÿ', '\u0100', '€', '😀', '\ud800', '\udfff', '\u0000', '.'];
  const word = () => Array.from({ length: random(6) }, () => alphabet[random(alphabet.length)]).join('');
  const set = new StringSet();
  const reference = new Set<string>();
  for (let i = 0; i < 20_000; i++) {
    const s = i % 1000 === 0 ? '' : word();
    t.is(set.add(s), !reference.has(s), JSON.stringify(s));
    reference.add(s);
  }
  t.is(set.size, reference.size);
  t.deepEqual([...set], [...reference]);
  t.is(set.at(3), [...reference][3]!);
  set.clear();
  t.is(set.size, 0);
  t.true(set.add('a'));
  t.false(set.add('a'));
  set.withoutIndex();
  t.throws(() => set.add('b'));
  t.deepEqual([...set], ['a']);
});

test('LobFileTable gives back each record with its own cell, segment, size and checksum, grouped by segment in added order', async (t) => {
  let seed = 11;
  const random = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  const table = new LobFileTable();
  const records: MetsLobRecord[] = [];
  const hex = (n: number) => Array.from({ length: 64 }, (_, i) => '0123456789abcdef'[(n * 7 + i * 13) % 16]).join('');
  for (let i = 0; i < 3000; i++) {
    const segment = `seg_${random(7)}`;
    const inner = `content/schema${random(2)}/table${random(3)}/lob${i}/record${i}.bin`;
    const identity: LobIdentity = { schema: random(2), table: random(3), column: 1 + random(4), row: i + 1 };
    if (i % 97 === 0) identity.row = 2 ** 40 + i; // beyond int32
    if (i % 89 === 0) identity.part = String(random(3));
    const mimeType = i % 5 === 0 ? undefined : ['image/png', 'text/plain', 'application/pdf'][random(3)];
    const checksum = i % 211 === 0 ? hex(i).toUpperCase() : i % 223 === 0 ? 'abc' : hex(i);
    const record: MetsLobRecord = { segment, path: inner, identity, size: i % 101 === 0 ? 2 ** 45 + i : random(1 << 20), checksum };
    if (mimeType !== undefined) record.mimeType = mimeType;
    t.true(table.add(`dir/${segment}/${inner}`, identity, mimeType));
    t.false(table.add(`dir/${segment}/${inner}`, { schema: 0, table: 0, column: 1, row: 1 }), 'a path added twice is kept once');
    records.push(record);
  }
  t.is(table.size, records.length);
  const byPath = new Map(records.map((r) => [`dir/${r.segment}/${r.path}`, r]));
  const seen: string[] = [];
  const segments = await table.place(64, async (logicalPath): Promise<LobFilePlace> => {
    seen.push(logicalPath);
    const r = byPath.get(logicalPath)!;
    return { segment: r.segment, path: r.path, size: r.size, checksum: r.checksum };
  });
  t.deepEqual(seen, [...byPath.keys()], 'placed in added order');
  const grouped = new Map<string, MetsLobRecord[]>();
  for (const r of records) (grouped.get(r.segment) ?? grouped.set(r.segment, []).get(r.segment)!).push(r);
  t.deepEqual(segments, [...grouped.keys()]);
  const out = [...table.segments()].map(({ segment, records: rs }) => [segment, [...rs]] as const);
  t.deepEqual(out, [...grouped]);
  t.throws(() => table.add('dir/late', { schema: 0, table: 0, column: 1, row: 1 }));
});
