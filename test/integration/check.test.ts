/**
 * `check`: each requirement id fails on a package broken for it. The packages are made here from
 * one small export (two tables with a key and a foreign key, an external LOB), taken apart and
 * zipped again by python's zipfile (an independent ZIP writer) with one change each. The good
 * package, zipped the same way, passes every id.
 */
import test from 'ava';
import Database from '../../src/sources/sqlite/driver.js';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { CheckResult } from '../../src/siard/check/report.js';
import { REQUIREMENTS } from '../../src/siard/check/requirements.js';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

type Entries = Map<string, Buffer | null>;

/** loaded when first used: libxml2-wasm starts with a top-level await, and ava wants the tests declared at once */
async function checkSiardPackage(target: string): Promise<CheckResult> {
  return (await import('../../src/siard/check/check-siard.js')).checkSiardPackage(target);
}

const PY_READ = `
import sys, zipfile, json, base64
z = zipfile.ZipFile(sys.argv[1])
print(json.dumps([[i.filename, base64.b64encode(z.read(i)).decode()] for i in z.infolist()]))
`;
const PY_WRITE = `
import sys, zipfile, json, base64
spec = json.load(open(sys.argv[2]))
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    for name, data, method in spec:
        z.writestr(zipfile.ZipInfo(name, (2026, 11, 28, 0, 0, 0)), base64.b64decode(data), compress_type=method)
`;

const work = tempDir('siard-ocfl-check-');
const source = path.join(work, 'source');

function exportBase(): void {
  const db = new Database(path.join(work, 't.db'));
  db.exec(
    'CREATE TABLE parent(id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL, amount DECIMAL(5,2), born DATE, data BLOB);' +
      'CREATE TABLE child(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id), note TEXT);',
  );
  const p = db.prepare('INSERT INTO parent VALUES (?,?,?,?,?)');
  p.run(1, 'one', 12.5, '2020-01-02', Buffer.alloc(100, 1));
  p.run(2, 'two', null, null, Buffer.from('ab'));
  db.prepare('INSERT INTO child VALUES (?,?,?)').run(1, 1, 'x');
  db.prepare('INSERT INTO child VALUES (?,?,?)').run(2, null, 'y');
  db.close();
  execFileSync(process.execPath, [BIN, 'export', `sqlite:${path.join(work, 't.db')}`, source, '--inline-max', '10'], { stdio: 'ignore' });
}
exportBase();

const LOB = 't_lobseg_0/content/schema0/table0/lob5/record0.bin';

function readEntries(siard: string): Entries {
  const list = JSON.parse(execFileSync('python3', ['-c', PY_READ, siard], { encoding: 'utf8', maxBuffer: 1 << 26 })) as [string, string][];
  return new Map(list.map(([n, d]) => [n, Buffer.from(d, 'base64')]));
}

/** the export without its messageDigest (a new ZIP changes the bytes it covers) */
const BASE = (() => {
  const e = readEntries(path.join(source, 't.siard'));
  const meta = e
    .get('header/metadata.xml')!
    .toString('utf8')
    .replace(/\s*<messageDigest>[\s\S]*?<\/messageDigest>/, '');
  e.set('header/metadata.xml', Buffer.from(meta));
  return e;
})();

interface Broken {
  entries?: (e: Entries) => void;
  /** compression method per entry name (default deflate) */
  method?: Record<string, number>;
  /** the package folder after the ZIP is written */
  folder?: (dir: string, siard: string) => void;
  name?: string;
}

function edit(e: Entries, name: string, f: (s: string) => string): void {
  const before = e.get(name)!.toString('utf8');
  const after = f(before);
  if (after === before) throw new Error(`the edit of ${name} changed nothing`);
  e.set(name, Buffer.from(after));
}

let n = 0;
function build(b: Broken = {}): string {
  const dir = path.join(work, `p${n++}`);
  mkdirSync(path.join(dir, path.dirname(LOB)), { recursive: true });
  copyFileSync(path.join(source, LOB), path.join(dir, LOB));
  const e: Entries = new Map(BASE);
  b.entries?.(e);
  const spec = [...e]
    .filter(([, d]) => d !== null)
    .map(([name, d]) => [name, d!.toString('base64'), b.method?.[name] ?? (name.endsWith('/') ? 0 : 8)]);
  writeFileSync(path.join(dir, 'spec.json'), JSON.stringify(spec));
  const siard = path.join(dir, b.name ?? 't.siard');
  execFileSync('python3', ['-c', PY_WRITE, siard, path.join(dir, 'spec.json')]);
  execFileSync('rm', [path.join(dir, 'spec.json')]);
  b.folder?.(dir, siard);
  return siard;
}

function status(r: CheckResult, id: string): string {
  return r.requirements.find((q) => q.id === id)!.status;
}

const META = 'header/metadata.xml';
const T0 = 'content/schema0/table0/table0.xml';
const X0 = 'content/schema0/table0/table0.xsd';
const T1 = 'content/schema0/table1/table1.xml';

const BROKEN: Record<string, Broken> = {
  'G_3.1-1': { entries: (e) => edit(e, T0, (s) => s.replace('</table>', '')) },
  'G_3.3-1': { entries: (e) => edit(e, META, (s) => s.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"')) },
  'G_3.3-3': { entries: (e) => edit(e, T0, (s) => s.replace('<c2>one</c2>', '<c2>o\u0085e</c2>')) },
  'G_3.3-4': { entries: (e) => edit(e, T0, (s) => s.replace('<c2>one</c2>', '<c2>o\\e</c2>')) },
  'G_3.4-1': { entries: (e) => edit(e, META, (s) => s.replace('<lobFolder>../</lobFolder>', '<lobFolder>..\\</lobFolder>')) },
  'G_3.4-2': { entries: (e) => edit(e, META, (s) => s.replace('<lobFolder>./</lobFolder>', '<lobFolder>./my lobs/</lobFolder>')) },
  'G_3.5-3': { entries: (e) => edit(e, META, (s) => s.replace('<name>parent</name>', '<name>"parent"</name>')) },
  'G_4.1-2': { method: { [T1]: 12 } },
  'G_4.1-5': { name: 't.zip' },
  'P_4.2-1': { entries: (e) => e.set('extra.txt', Buffer.from('x')) },
  'P_4.2-2': { entries: (e) => e.set('content/readme.txt', Buffer.from('x')) },
  'P_4.2-3': { entries: (e) => e.set('content/schema0/table0/notes.txt', Buffer.from('x')) },
  'P_4.2-4': { entries: (e) => e.set('header/siardversion/2.2/', null) },
  'P_4.2-5': { entries: (e) => e.set('header/metadata.xsd', null) },
  'P_4.2-6': { entries: (e) => e.set('content/schema0/table0/lob5/1-bad.bin', Buffer.from('x')) },
  'P_4.3-1': { entries: (e) => e.set('content/schema0/table9/table9.xml', Buffer.from('<table/>')) },
  'P_4.3-2': { entries: (e) => edit(e, X0, (s) => s.replace(/\s*<xs:element name="c5"[^>]*\/>/, '')) },
  'P_4.3-3': { entries: (e) => edit(e, X0, (s) => s.replace('name="c3" type="xs:decimal"', 'name="c3" type="xs:boolean"')) },
  'P_4.3-7': {
    entries: (e) => edit(e, X0, (s) => s.replace('name="c2" type="xs:string"/>', 'name="c2" type="xs:string" minOccurs="0"/>')),
  },
  'P_4.3-8': {
    entries: (e) =>
      edit(e, X0, (s) => s.replace('name="c1"', 'name="cX"').replace('name="c2"', 'name="c1"').replace('name="cX"', 'name="c2"')),
  },
  'P_4.3-10': { entries: (e) => edit(e, META, (s) => s.replace('<rows>2</rows>', '<rows>3</rows>')) },
  'M_5.0-1': { entries: (e) => edit(e, META, (s) => s.replace('<dataOwner>unspecified</dataOwner>', '')) },
  'M_5.1-1': { entries: (e) => edit(e, META, (s) => s.replace('<dataOwner>unspecified</dataOwner>', '')) },
  'M_5.2-1': { entries: (e) => edit(e, META, (s) => s.replace('<folder>schema0</folder>', '<folder>schema0</folder><bogus/>')) },
  'M_5.5-1': { entries: (e) => edit(e, META, (s) => s.replace('<rows>2</rows>', '<rows>two</rows>')) },
  'M_5.6-1': { entries: (e) => edit(e, META, (s) => s.replace('<type>VARCHAR(20)</type>', '')) },
  'M_5.9-1': {
    entries: (e) =>
      edit(e, META, (s) => s.replace('<referencedTable>parent</referencedTable>', '<referencedTable>nosuch</referencedTable>')),
  },
  'M_5.10-1': { entries: (e) => edit(e, META, (s) => s.replace('<referenced>id</referenced>', '<referenced>nosuch</referenced>')) },
  'T_6.0-1': { entries: (e) => edit(e, T1, (s) => s.replace('<c2>1</c2>', '<c2>7</c2>')) },
  'T_6.0-2': { entries: (e) => edit(e, T0, (s) => s.replace('<c3>12.5</c3>', '<c3>twelve</c3>')) },
  'T_6.1-1': { entries: (e) => e.set(X0, null) },
  'T_6.1-2': { entries: (e) => edit(e, X0, (s) => s.replace('<xs:element name="table">', '<xs:element name="tabel">')) },
  'T_6.1-3': { entries: (e) => edit(e, X0, (s) => s.replace('name="c3" type="xs:decimal"', 'name="c3" type="xs:boolean"')) },
  'T_6.2-1': { entries: (e) => edit(e, T0, (s) => s.replace(' length="100"', '')) },
  'T_6.3-1': { entries: (e) => edit(e, T0, (s) => s.replace('2020-01-02Z', '0000-01-02Z')) },
  'T_6.3-2': { entries: (e) => edit(e, T0, (s) => s.replace('2020-01-02Z', '2020-01-02+02:00')) },
  'T_6.4-1': { entries: (e) => e.set(T0, null) },
  'T_6.4-2': { entries: (e) => edit(e, T0, (s) => s.replace('<c1>1</c1><c2>one</c2>', '<c2>one</c2><c1>1</c1>')) },
  'T_6.4-5': { folder: (dir) => writeFileSync(path.join(dir, LOB), Buffer.alloc(100, 2)) },
  'L_7.1-0': { folder: (dir) => writeFileSync(path.join(dir, path.dirname(LOB), 'stray.bin'), 'x') },
  'S_8.1.2-0': { folder: (dir) => writeFileSync(path.join(dir, 'mapping.txt'), 'no uri here\n') },
  'S_8.2-0': {
    folder: (dir, siard) => {
      writeFileSync(`${siard}_part001`, 'x');
      writeFileSync(`${siard}_part003`, 'x');
    },
  },
  'M_5.8-1': { entries: (e) => edit(e, META, (s) => s.replace(/(<primaryKey>\s*)<name>[^<]*<\/name>/, '$1')) },
};

test('the good package passes every id it can decide', async (t) => {
  const r = await checkSiardPackage(build());
  const failed = r.requirements.filter((q) => q.status === 'failed');
  t.deepEqual(failed, []);
  t.true(r.ok);
  t.is(r.requirements.length, REQUIREMENTS.length);
});

for (const [id, broken] of Object.entries(BROKEN)) {
  test(`${id} fails on a package broken for it`, async (t) => {
    const r = await checkSiardPackage(build(broken));
    t.is(status(r, id), 'failed', JSON.stringify(r.requirements.filter((q) => q.status === 'failed')).slice(0, 2000));
    t.false(r.ok);
    const q = r.requirements.find((x) => x.id === id)!;
    t.true(q.findings.length > 0 && q.findings.every((f) => f.message.length > 10));
  });
}

/** The package's .siard cut into `count` binary parts `t.siard_part001` ... beside it; the whole removed unless kept. */
function split(siard: string, count: number, keep = false): string[] {
  const bytes = readFileSync(siard);
  const size = Math.ceil(bytes.length / count);
  const parts = Array.from({ length: count }, (_v, i) => {
    const part = `${siard}_part${String(i + 1).padStart(3, '0')}`;
    writeFileSync(part, bytes.subarray(i * size, (i + 1) * size));
    return part;
  });
  if (!keep) rmSync(siard);
  return parts;
}

function statuses(r: CheckResult): Record<string, string> {
  return Object.fromEntries(r.requirements.map((q) => [q.id, q.status]));
}

test('S_8.2-0: split parts checked as the archive they make; a part missing, out of order, not the whole beside them fails', async (t) => {
  const whole = statuses(await checkSiardPackage(build()));
  t.is(whole['S_8.2-0'], 'not-applicable');
  const parts = split(build(), 3);
  const byFolder = await checkSiardPackage(path.dirname(parts[0]!));
  // every id as for the whole .siard (its LOB file found beside the parts, its rows and keys read), and S_8.2-0 passed
  t.deepEqual(statuses(byFolder), { ...whole, 'S_8.2-0': 'passed' });
  t.deepEqual(statuses(await checkSiardPackage(parts[1]!)), statuses(byFolder), 'a part named');

  const gap = split(build(), 3);
  renameSync(gap[1]!, gap[1]!.replace('_part002', '_part004'));
  const r = await checkSiardPackage(path.dirname(gap[0]!));
  t.is(status(r, 'S_8.2-0'), 'failed');
  t.is(status(r, 'G_4.1-1'), 'failed');
  t.regex(
    r.requirements.find((q) => q.id === 'S_8.2-0')!.findings[0]!.message,
    /t\.siard_part003 found where t\.siard_part002 was expected/,
  );

  const swapped = split(build(), 3);
  const [a, b] = [readFileSync(swapped[0]!), readFileSync(swapped[1]!)];
  writeFileSync(swapped[0]!, b);
  writeFileSync(swapped[1]!, a);
  t.false((await checkSiardPackage(path.dirname(swapped[0]!))).ok, 'parts out of order');

  const beside = build();
  const exact = split(beside, 2, true);
  t.is(status(await checkSiardPackage(beside), 'S_8.2-0'), 'passed', 'the whole beside its own parts');
  const last = readFileSync(exact[1]!);
  last[last.length - 10]! ^= 1;
  writeFileSync(exact[1]!, last);
  const differ = await checkSiardPackage(beside);
  t.is(status(differ, 'S_8.2-0'), 'failed');
  t.regex(differ.requirements.find((q) => q.id === 'S_8.2-0')!.findings[0]!.message, /joined differ from t\.siard within bytes \d+ to \d+/);
  t.deepEqual(statuses(differ), { ...whole, 'S_8.2-0': 'failed' }, 'the whole itself is checked as before');
});

test('G_4.1-1 fails on random bytes, G_4.1-3 on an encrypted entry', async (t) => {
  const dir = path.join(work, 'raw');
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'x.siard'), Buffer.from(Array.from({ length: 5000 }, (_v, i) => (i * 7919) % 251)));
  t.is(status(await checkSiardPackage(path.join(dir, 'x.siard')), 'G_4.1-1'), 'failed');
  const siard = build();
  const bytes = readFileSync(siard);
  // general purpose flag bit 0 (encrypted) of every local and central header
  for (let i = bytes.indexOf('PK\u0003\u0004'); i >= 0; i = bytes.indexOf('PK\u0003\u0004', i + 4)) bytes[i + 6]! |= 1;
  for (let i = bytes.indexOf('PK\u0001\u0002'); i >= 0; i = bytes.indexOf('PK\u0001\u0002', i + 4)) bytes[i + 8]! |= 1;
  writeFileSync(siard, bytes);
  const r = await checkSiardPackage(siard);
  t.is(status(r, 'G_4.1-3'), 'failed');
});

test('the CLI: exit 0 / 1 / 2, --json in the promised shape, --html one self-contained page', async (t) => {
  const good = build();
  const bad = build(BROKEN['T_6.0-1']);
  const html = path.join(work, 'report.html');
  const run = (args: string[]) => {
    try {
      return { code: 0, out: execFileSync(process.execPath, [BIN, 'check', ...args], { encoding: 'utf8' }) };
    } catch (err) {
      const e = err as { status: number; stdout: string };
      return { code: e.status, out: e.stdout };
    }
  };
  t.is(run([good]).code, 0);
  const r = run([bad, '--json', '--html', html]);
  t.is(r.code, 1);
  const json = JSON.parse(r.out) as CheckResult;
  t.deepEqual(Object.keys(json), ['ok', 'requirements']);
  for (const q of json.requirements) {
    t.deepEqual(Object.keys(q), ['id', 'status', 'source', 'findings']);
    for (const f of q.findings) t.true(Object.keys(f).every((k) => ['message', 'entry', 'table', 'row', 'column'].includes(k)));
  }
  const page = readFileSync(html, 'utf8');
  t.regex(page, /T_6\.0-1/);
  t.notRegex(page, /<script|src=|href=/);
  const text = run([bad]).out;
  t.regex(text, /^FAILED T_6\.0-1/);
  t.regex(text, /NOT CONFORMANT: .*\d+ passed, \d+ failed, \d+ not-applicable, \d+ not-checked\.\n$/);
  t.is(run([path.join(work, 'nonexistent.siard')]).code, 2);
  t.true(readdirSync(work).length > 0);
});

test('hostile: 100k-deep XML fails T_6.4-2 quickly', async (t) => {
  // bounded in CPU seconds of this process (the check runs in it): wall time at a load of 20 measured the neighbours
  const started = process.cpuUsage();
  const deep = await checkSiardPackage(
    build({ entries: (e) => edit(e, T0, (s) => s.replace('<c2>one</c2>', `<c2>${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}</c2>`)) }),
  );
  t.is(status(deep, 'T_6.4-2'), 'failed');
  const used = process.cpuUsage(started);
  const ms = (used.user + used.system) / 1000;
  t.true(ms < 30_000, `${Math.round(ms)} ms of CPU`);
});

test('hostile: a ".." entry name fails P_4.2-6 and nothing is written outside temp', async (t) => {
  const dots = await checkSiardPackage(build({ entries: (e) => e.set('../evil.txt', Buffer.from('x')) }));
  t.is(status(dots, 'P_4.2-6'), 'failed');
  t.false(readdirSync(path.dirname(work)).includes('evil.txt'));
});

test('check --root --id: the archive of an object version, read in place; a LOB changed in storage fails T_6.4-5', async (t) => {
  const root = path.join(work, 'root');
  const cli = (...args: string[]) => {
    try {
      return { code: 0, out: execFileSync(process.execPath, [BIN, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
    } catch (err) {
      const e = err as { status: number; stdout: string };
      return { code: e.status, out: e.stdout };
    }
  };
  t.is(cli('init', '--root', root).code, 0);
  t.is(cli('ingest', `sqlite:${path.join(work, 't.db')}`, '--root', root, '--id', 'urn:check:t', '--inline-max', '10').code, 0);
  const good = cli('check', '--root', root, '--id', 'urn:check:t', '--json');
  t.is(good.code, 0, good.out);
  t.true((JSON.parse(good.out) as CheckResult).ok);
  const lob = execFileSync('find', [root, '-name', 'record0.bin'], { encoding: 'utf8' }).trim();
  writeFileSync(lob, Buffer.alloc(100, 9));
  const bad = cli('check', '--root', root, '--id', 'urn:check:t', '--json');
  t.is(bad.code, 1);
  t.is(status(JSON.parse(bad.out) as CheckResult, 'T_6.4-5'), 'failed');
});
