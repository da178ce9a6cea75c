/**
 * `tables` and `rows` through the real command line, on an archive inside an object (read in place,
 * not checked out) and on `.siard` files (our export, a DBPTK reference sample). Expected values
 * come from the source database the test makes and from metadata.xml / table XML read by Python's
 * zipfile and ElementTree, never from our own output; the CSV is parsed back by the small RFC 4180
 * parser below, which keeps NULL (empty unquoted field) and "" (quoted empty) apart and accepts
 * only CRLF between records.
 */
import test from 'ava';
import Database from '../../src/sources/sqlite/driver.js';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, openSync, readFileSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { reference, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const INLINE_MAX = 100;
const work = tempDir('siard-ocfl-tables-rows-');
const db = path.join(work, 'source.db');
const root = path.join(work, 'root');
const id = 'urn:example:tables-rows';

type Cell = string | number | bigint | Buffer | null;

const people: Array<[number, string | null, string | null, number | null]> = [
  [1, 'Ada, Countess of Lovelace', 'said "hello", then left', 1.5],
  [2, '', null, null],
  [3, 'Zoë 王小明 Παπαδοπούλου 🎉', 'line1\nline2\r\nline3', -0.25],
  [4, null, '', 0],
  [5, '  spaces kept  ', 'tab\there, "quote" at the end"', 1e10],
];

/** LOB bodies: some above --inline-max (files), some at or below (inline hex), one empty, one NULL. */
const bodies: Array<Buffer | null> = [
  randomBytes(500),
  Buffer.alloc(0),
  randomBytes(40),
  null,
  randomBytes(3000),
  randomBytes(150),
  randomBytes(90),
];
const bigText = 'Ünïcödé, "quoted" 🎉\n'.repeat(20); // 420 code points, > 100 bytes: a file
const memos: Array<string | null> = ['short, "quoted"', null, bigText, '', 'kurz', bigText.slice(0, 200), null];

function buildDatabase(file: string, manyRows = 0): void {
  const d = new Database(file);
  d.exec(`
    CREATE TABLE people (id INTEGER PRIMARY KEY, name VARCHAR(60), note TEXT, score REAL);
    CREATE TABLE documents (id INTEGER PRIMARY KEY, title VARCHAR(50), body BLOB, memo TEXT);
    CREATE TABLE empty_table (x INTEGER);
  `);
  const p = d.prepare('INSERT INTO people VALUES (?, ?, ?, ?)');
  for (const r of people) p.run(...r);
  const doc = d.prepare('INSERT INTO documents VALUES (?, ?, ?, ?)');
  bodies.forEach((b, i) => doc.run(i + 1, `doc ${i + 1}`, b, memos[i]));
  if (manyRows > 0) {
    d.exec('CREATE TABLE many (id INTEGER PRIMARY KEY, t VARCHAR(64))');
    const m = d.prepare('INSERT INTO many VALUES (?, ?)');
    d.transaction(() => {
      for (let i = 1; i <= manyRows; i++) m.run(i, randomBytes(24).toString('base64'));
    })();
  }
  d.close();
}

function dbRows(file: string, table: string): Cell[][] {
  const d = new Database(file, { readonly: true });
  d.defaultSafeIntegers(false);
  const rows = d.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).raw().all() as Cell[][];
  d.close();
  return rows;
}

function dbColumns(file: string, table: string): string[] {
  const d = new Database(file, { readonly: true });
  const names = (d.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>).map((c) => c.name);
  d.close();
  return names;
}

/** RFC 4180 records; an unquoted empty field is null, a quoted one is a string. Records end with CRLF. */
function parseCsv(text: string): Array<Array<string | null>> {
  const records: Array<Array<string | null>> = [];
  let fields: Array<string | null> = [];
  let i = 0;
  while (i < text.length) {
    let value: string | null;
    if (text[i] === '"') {
      let s = '';
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) throw new Error('unterminated quoted field');
        s += text.slice(i, q);
        i = q + 1;
        if (text[i] === '"') {
          s += '"';
          i++;
        } else break;
      }
      value = s;
    } else {
      let j = i;
      while (j < text.length && text[j] !== ',' && text[j] !== '\r' && text[j] !== '\n') j++;
      const raw = text.slice(i, j);
      if (raw.includes('"')) throw new Error(`a quote inside an unquoted field at ${i}`);
      value = raw === '' ? null : raw;
      i = j;
    }
    fields.push(value);
    if (text[i] === ',') {
      i++;
      if (i === text.length) throw new Error('a record ends with a comma and no CRLF');
      continue;
    }
    if (text.startsWith('\r\n', i)) {
      i += 2;
      records.push(fields);
      fields = [];
      continue;
    }
    throw new Error(`expected a comma or CRLF at ${i}, found ${JSON.stringify(text.slice(i, i + 10))}`);
  }
  if (fields.length > 0) throw new Error('the last record has no CRLF');
  return records;
}

interface MetaTable {
  schema: string;
  name: string;
  folder: string;
  rows: number;
  columns: Array<{ name: string; type: string | null; typeOriginal: string | null }>;
  /** from the table XML: elements with a file attribute, and the sum of their length attributes */
  fileCells: number;
  fileLength: number;
}

/** metadata.xml and table XML of a .siard as Python's zipfile and ElementTree read them. */
function pythonMetadata(siard: string): MetaTable[] {
  const script = `
import sys, json, zipfile, xml.etree.ElementTree as ET
z = zipfile.ZipFile(sys.argv[1])
meta = sorted(n for n in z.namelist() if n.endswith('header/metadata.xml'))[0]
prefix = meta[:-len('header/metadata.xml')]
local = lambda t: t.split('}')[-1]
kids = lambda e, n: [c for c in e if local(c.tag) == n]
text = lambda e, n: (kids(e, n)[0].text if kids(e, n) else None)
out = []
for schemas in kids(ET.fromstring(z.read(meta)), 'schemas'):
  for schema in kids(schemas, 'schema'):
    for tables in kids(schema, 'tables'):
      for table in kids(tables, 'table'):
        folder = 'content/%s/%s' % (text(schema, 'folder'), text(table, 'folder'))
        cols = [{'name': text(c, 'name'), 'type': text(c, 'type'), 'typeOriginal': text(c, 'typeOriginal')}
                for col in kids(table, 'columns') for c in kids(col, 'column')]
        files = length = 0
        entry = prefix + folder + '/' + text(table, 'folder') + '.xml'
        if entry in z.namelist():
          for e in ET.fromstring(z.read(entry)).iter():
            if 'file' in e.attrib:
              files += 1
              length += int(e.attrib.get('length', '0'))
        out.append({'schema': text(schema, 'name'), 'name': text(table, 'name'), 'folder': folder,
                    'rows': int(text(table, 'rows')), 'columns': cols, 'fileCells': files, 'fileLength': length})
print(json.dumps(out))
`;
  return JSON.parse(execFileSync('python3', ['-c', script, siard], { encoding: 'utf8' })) as MetaTable[];
}

interface TableJson {
  schema: string;
  name: string;
  folder: string;
  rows: number;
  columns: Array<{ name: string; type?: string; typeOriginal?: string }>;
  lobCells: number;
  lobBytes: number;
  lobCharacters: number;
  lobCellsWithoutLength: number;
  inlineLobs: number;
  inlineLobBytes: number;
  tableDataRead: boolean;
}

const checkout = path.join(work, 'checkout');
let siardInCheckout = '';

test.before(async () => {
  buildDatabase(db);
  for (const args of [
    ['init', root],
    ['ingest', db, '--root', root, '--id', id, '--inline-max', String(INLINE_MAX), '--name', 'source'],
    ['checkout', '--root', root, '--id', id, checkout],
  ]) {
    const r = await runCli(args);
    if (r.code !== 0) throw new Error(`${args[0]}: ${r.stderr}`);
  }
  siardInCheckout = path.join(checkout, 'source.siard');
});

test(
  'tables --json: row counts, columns and types as metadata.xml states them, ' + 'LOB counts and sizes as the test data has them',
  async (t) => {
    const r = await runCli(['tables', '--root', root, '--id', id, '--json']);
    t.is(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { archive: string; version: string; tables: TableJson[] };
    t.is(doc.version, 'v1');
    t.regex(doc.archive, /v1: source\.siard$/);
    const meta = pythonMetadata(siardInCheckout);
    t.deepEqual(
      doc.tables.map((x) => [x.schema, x.name, x.rows]),
      meta.map((m) => [m.schema, m.name, m.rows]),
    );
    t.deepEqual(
      doc.tables.map((x) => x.rows),
      ['people', 'documents', 'empty_table'].map((n) => dbRows(db, n).length),
    );
    for (const x of doc.tables) {
      const m = meta.find((mm) => mm.name === x.name)!;
      t.deepEqual(
        x.columns.map((c) => [c.name, c.type ?? null, c.typeOriginal ?? null]),
        m.columns.map((c) => [c.name, c.type, c.typeOriginal]),
        x.name,
      );
      t.deepEqual(
        x.columns.map((c) => c.name),
        dbColumns(db, x.name),
        x.name,
      );
    }
    const docs = doc.tables.find((x) => x.name === 'documents')!;
    t.is(docs.columns.find((c) => c.name === 'body')!.type, 'BLOB');
    t.is(docs.columns.find((c) => c.name === 'memo')!.type, 'CLOB');

    // From the test's own data: BLOBs above --inline-max are LOB cells of that many bytes; CLOBs
    // above it count in characters (code points); the rest non-NULL are inline, measured in bytes.
    const bigBodies = bodies.filter((b): b is Buffer => b !== null && b.length > INLINE_MAX);
    const smallBodies = bodies.filter((b): b is Buffer => b !== null && b.length <= INLINE_MAX);
    const bigMemos = memos.filter((m): m is string => m !== null && Buffer.byteLength(m) > INLINE_MAX);
    const smallMemos = memos.filter((m): m is string => m !== null && Buffer.byteLength(m) <= INLINE_MAX);
    t.true(bigBodies.length >= 3 && smallBodies.length >= 3 && bigMemos.length >= 2 && smallMemos.length >= 2);
    t.is(docs.lobCells, bigBodies.length + bigMemos.length);
    t.is(
      docs.lobBytes,
      bigBodies.reduce((s, b) => s + b.length, 0),
    );
    t.is(
      docs.lobCharacters,
      bigMemos.reduce((s, m) => s + [...m].length, 0),
    );
    t.is(docs.lobCellsWithoutLength, 0);
    t.is(docs.inlineLobs, smallBodies.length + smallMemos.length);
    t.is(docs.inlineLobBytes, smallBodies.reduce((s, b) => s + b.length, 0) + smallMemos.reduce((s, m) => s + Buffer.byteLength(m), 0));
    // the independent count of file cells in the table XML agrees
    t.is(docs.lobCells, meta.find((m) => m.name === 'documents')!.fileCells);

    const ppl = doc.tables.find((x) => x.name === 'people')!;
    const notes = people.map((p) => p[2]).filter((n): n is string => n !== null);
    t.is(ppl.lobCells, 0);
    t.is(ppl.inlineLobs, notes.length);
    t.is(
      ppl.inlineLobBytes,
      notes.reduce((s, n) => s + Buffer.byteLength(n), 0),
    );
    const empty = doc.tables.find((x) => x.name === 'empty_table')!;
    t.is(empty.rows, 0);
    t.false(empty.tableDataRead, 'a table without rows or LOB columns is answered by metadata.xml alone');
  },
);

test('tables (human): one line per table with its rows and LOBs, then its columns', async (t) => {
  const r = await runCli(['tables', '--root', root, '--id', id]);
  t.is(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n');
  const bigBodies = bodies.filter((b) => b !== null && b.length > INLINE_MAX).length;
  const bigMemos = memos.filter((m) => m !== null && Buffer.byteLength(m) > INLINE_MAX).length;
  const docLine = lines.find((l) => l.startsWith('main.documents\t'));
  t.truthy(docLine, r.stdout);
  t.true(docLine!.startsWith(`main.documents\t${bodies.length} rows\t${bigBodies + bigMemos} LOB cells (`), docLine);
  t.true(lines.includes('\tbody\tBLOB\tBLOB'), r.stdout);
  t.true(
    lines.some((l) => l.startsWith('main.empty_table\t0 rows\tno LOBs')),
    r.stdout,
  );
});

test('rows: CSV parsed back equals the database rows; LOB paths exist in a checkout and hold the LOB bytes', async (t) => {
  const r = await runCli(['rows', '--root', root, '--id', id, '--table', 'documents']);
  t.is(r.code, 0, r.stderr);
  const [header, ...records] = parseCsv(r.stdout);
  t.deepEqual(header, dbColumns(db, 'documents'));
  const want = dbRows(db, 'documents');
  t.is(records.length, want.length);
  let files = 0;
  records.forEach((rec, i) => {
    const [idv, title, body, memo] = want[i]!;
    t.is(rec[0], String(idv));
    t.is(rec[1], title as string);
    if (body === null) t.is(rec[2], null, `row ${i + 1} body`);
    else if ((body as Buffer).length <= INLINE_MAX) t.is(rec[2], (body as Buffer).toString('hex'), `row ${i + 1} body`);
    else {
      files++;
      t.regex(rec[2]!, /^source_lobseg_\d+\/content\/schema0\/table\d+\/lob3\/record\d+\.bin$/);
      t.true(existsSync(path.join(checkout, rec[2]!)), rec[2]!);
      t.deepEqual(readFileSync(path.join(checkout, rec[2]!)), body as Buffer, `row ${i + 1} body file`);
    }
    if (memo === null) t.is(rec[3], null, `row ${i + 1} memo`);
    else if (Buffer.byteLength(memo as string) <= INLINE_MAX) t.is(rec[3], memo as string, `row ${i + 1} memo`);
    else {
      files++;
      t.regex(rec[3]!, /^source_lobseg_\d+\/.*\/lob4\/record\d+\.txt$/);
      t.is(readFileSync(path.join(checkout, rec[3]!), 'utf8'), memo as string, `row ${i + 1} memo file`);
    }
  });
  t.true(files >= 5);
  t.is(r.stdout.split('\r\n')[0], 'id,title,body,memo');
});

test('rows: NULL is an empty field, the empty string "", and commas, quotes, CR/LF and unicode survive', async (t) => {
  const r = await runCli(['rows', '--root', root, '--id', id, '--table', 'people']);
  t.is(r.code, 0, r.stderr);
  const [header, ...records] = parseCsv(r.stdout);
  t.deepEqual(header, ['id', 'name', 'note', 'score']);
  const want = dbRows(db, 'people');
  t.is(records.length, want.length);
  records.forEach((rec, i) => {
    const [idv, name, note, score] = want[i]!;
    t.is(rec[0], String(idv));
    t.is(rec[1], name as string | null, `row ${i + 1} name`);
    t.is(rec[2], note as string | null, `row ${i + 1} note`);
    if (score === null) t.is(rec[3], null);
    else t.is(Number(rec[3]), score as number, `row ${i + 1} score ${rec[3]}`);
  });
  // the raw text: row 2 has an empty name ("") and a NULL note and score (nothing)
  t.true(r.stdout.includes('\r\n2,"",,\r\n'), r.stdout);
});

test('rows --limit N gives the header and the first N rows; --limit 0 only the header; --version v1 is the same archive', async (t) => {
  const full = parseCsv((await runCli(['rows', '--root', root, '--id', id, '--table', 'documents'])).stdout);
  const two = await runCli(['rows', '--root', root, '--id', id, '--table', 'documents', '--limit', '2', '--version', 'v1']);
  t.is(two.code, 0, two.stderr);
  t.deepEqual(parseCsv(two.stdout), full.slice(0, 3));
  const none = await runCli(['rows', '--root', root, '--id', id, '--table', 'documents', '--limit', '0']);
  t.is(none.code, 0, none.stderr);
  t.is(none.stdout, 'id,title,body,memo\r\n');
});

test(
  'an unknown table is exit 2 naming the tables there are; ' + 'an unknown version or object is exit 2; --json gives the error object',
  async (t) => {
    const r = await runCli(['rows', '--root', root, '--id', id, '--table', 'nope']);
    t.is(r.code, 2);
    t.is(r.stdout, '');
    t.regex(r.stderr, /has no table "nope"; it has main\.people, main\.documents, main\.empty_table\./);
    const wrongSchema = await runCli(['rows', '--root', root, '--id', id, '--table', 'people', '--schema', 'other']);
    t.is(wrongSchema.code, 2);
    t.regex(wrongSchema.stderr, /no table "people" in schema "other"/);
    const version = await runCli(['tables', '--root', root, '--id', id, '--version', 'v9']);
    t.is(version.code, 2);
    t.regex(version.stderr, /has no version v9 \(it has v1\)/);
    const json = await runCli(['tables', '--root', root, '--id', 'urn:example:none', '--json']);
    t.is(json.code, 2);
    const err = JSON.parse(json.stdout) as { error: { code: string; message: string; exitCode: number } };
    t.is(err.error.exitCode, 2);
    t.regex(err.error.message, /urn:example:none/);
    const both = await runCli(['tables', siardInCheckout, '--root', root, '--id', id]);
    t.is(both.code, 2);
    t.regex(both.stderr, /Give the archive once/);
  },
);

test(
  'a .siard path: rows --limit stops reading (a table damaged past its first rows still gives them); tables reads no table ' +
    'XML without LOB columns',
  async (t) => {
    const dbMany = path.join(work, 'many.db');
    buildDatabase(dbMany, 60_000);
    const out = path.join(work, 'export');
    const ex = await runCli(['export', `sqlite:${dbMany}`, out, '--inline-max', String(INLINE_MAX), '--name', 'many']);
    t.is(ex.code, 0, ex.stderr);
    const siard = path.join(out, 'many.siard');
    const want = dbRows(dbMany, 'many');

    const fine = await runCli(['rows', siard, '--table', 'many', '--limit', '10']);
    t.is(fine.code, 0, fine.stderr);
    t.deepEqual(parseCsv(fine.stdout), [['id', 't'], ...want.slice(0, 10).map(([i, s]) => [String(i), s as string])]);

    // Damage the compressed table data at 80 % of its length (Python finds where it is).
    const many = pythonMetadata(siard).find((m) => m.name === 'many')!;
    const [offset, size] = JSON.parse(
      execFileSync(
        'python3',
        [
          '-c',
          `
import sys, json, zipfile, struct
z = zipfile.ZipFile(sys.argv[1]); i = z.getinfo(sys.argv[2])
with open(sys.argv[1], 'rb') as f:
  f.seek(i.header_offset); h = f.read(30)
  n, e = struct.unpack('<HH', h[26:30])
print(json.dumps([i.header_offset + 30 + n + e, i.compress_size]))
`,
          siard,
          `${many.folder}/${many.folder.split('/').pop()}.xml`,
        ],
        { encoding: 'utf8' },
      ),
    ) as [number, number];
    t.true(size > 1_000_000, `the table data is large enough to damage far from its start (${size} bytes)`);
    const damaged = path.join(out, 'damaged.siard');
    copyFileSync(siard, damaged);
    const fd = openSync(damaged, 'r+');
    writeSync(fd, Buffer.alloc(64, 0xa5), 0, 64, offset + Math.floor(size * 0.8));
    closeSync(fd);

    const whole = await runCli(['rows', damaged, '--table', 'many']);
    t.not(whole.code, 0, 'reading the whole damaged table fails');
    t.regex(whole.stderr, /table0|many|CRC|inflat|invalid/i);
    const limited = await runCli(['rows', damaged, '--table', 'many', '--limit', '10']);
    t.is(limited.code, 0, limited.stderr);
    t.is(limited.stdout, fine.stdout);

    const tables = await runCli(['tables', damaged, '--json']);
    t.is(tables.code, 0, tables.stderr);
    const listed = (JSON.parse(tables.stdout) as { tables: TableJson[] }).tables.find((x) => x.name === 'many')!;
    t.is(listed.rows, want.length);
    t.false(listed.tableDataRead);
  },
);

sharedTest(
  'a DBPTK reference sample read through its .siard path: tables and rows agree with its metadata.xml and table XML',
  async (t) => {
    const siard = reference('siard-samples', 'arkade5', 'dbPtk', 'external', 'dbptk.siard');
    const meta = pythonMetadata(siard);
    const r = await runCli(['tables', siard, '--json']);
    t.is(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { tables: TableJson[] };
    t.deepEqual(
      doc.tables.map((x) => [x.schema, x.name, x.rows, x.columns.map((c) => [c.name, c.type ?? null, c.typeOriginal ?? null]), x.lobCells]),
      meta.map((m) => [m.schema, m.name, m.rows, m.columns.map((c) => [c.name, c.type, c.typeOriginal]), m.fileCells]),
    );
    // sizes are the cells' length attributes (this sample's files do not all match them)
    const blobs = doc.tables.find((x) => x.name === 'blobs')!;
    t.is(blobs.lobBytes, meta.find((m) => m.name === 'blobs')!.fileLength);
    const clobs = doc.tables.find((x) => x.name === 'clobs')!;
    t.is(clobs.lobCharacters, meta.find((m) => m.name === 'clobs')!.fileLength);

    // rows: the departments table as the table XML holds it, and blobs' LOB paths beside the .siard
    const xml = JSON.parse(
      execFileSync(
        'python3',
        [
          '-c',
          `
import sys, json, zipfile, xml.etree.ElementTree as ET
z = zipfile.ZipFile(sys.argv[1])
rows = []
for row in ET.fromstring(z.read('content/schema1/table3/table3.xml')):
  cells = {c.tag.split('}')[-1]: (c.text or '') for c in row}
  rows.append([cells.get('c1'), cells.get('c2')])
print(json.dumps(rows))
`,
          siard,
        ],
        { encoding: 'utf8' },
      ),
    ) as Array<Array<string | null>>;
    const dept = await runCli(['rows', siard, '--table', 'departments']);
    t.is(dept.code, 0, dept.stderr);
    t.deepEqual(parseCsv(dept.stdout), [['dept_no', 'dept_name'], ...xml]);

    const lobs = await runCli(['rows', siard, '--table', 'blobs', '--schema', 't01bclob12', '--limit', '3']);
    t.is(lobs.code, 0, lobs.stderr);
    const recs = parseCsv(lobs.stdout);
    t.is(recs.length, 4);
    for (const rec of recs.slice(1)) {
      t.regex(rec[8]!, /_lobseg_1\/content\/schema1\/table1\/lob9\/record\d+\.bin$/);
      t.true(existsSync(path.join(path.dirname(siard), rec[8]!)), rec[8]!);
    }
  },
);

test('a relocated archive (absolute lobFolder): rows prints the paths where the object keeps the LOBs, with one note', async (t) => {
  const id2 = 'urn:example:tables-rows-relocated';
  const copy = path.join(work, 'relocated-checkout');
  for (const args of [
    ['ingest', db, '--root', root, '--id', id2, '--inline-max', String(INLINE_MAX), '--name', 'source'],
    ['relocate', '--root', root, '--id', id2, '--lob-folder', 'file:///Archives/Elsewhere/'],
    ['checkout', '--root', root, '--id', id2, copy],
  ]) {
    const r = await runCli(args);
    t.is(r.code, 0, `${args[0]}: ${r.stderr}`);
  }
  const r = await runCli(['rows', '--root', root, '--id', id2, '--table', 'documents']);
  t.is(r.code, 0, r.stderr);
  const want = dbRows(db, 'documents');
  const records = parseCsv(r.stdout).slice(1);
  let files = 0;
  records.forEach((rec, i) => {
    const body = want[i]![2] as Buffer | null;
    if (body !== null && body.length > INLINE_MAX) {
      files++;
      t.deepEqual(readFileSync(path.join(copy, rec[2]!)), body, rec[2]!);
    }
  });
  t.true(files >= 3);
  t.is(r.stderr.match(/^note: /gm)?.length, 1, r.stderr);
  t.regex(r.stderr, /file:\/\/\/Archives\/Elsewhere\/.*located where the object keeps them/);
});
