/**
 * `check`, the ids check.test.ts does not break: each fails on the smallest package broken for it,
 * and the ids it newly fails, against the same package unbroken, are exactly that id (plus, where a
 * break cannot help breaking a second rule, the ids named beside it). Packages are zipped here in
 * memory by a small ZIP writer of this file (not the project's), check runs in this process.
 * Bases: sql2008.siard of SIARD Suite (DISTINCT, UDT, ARRAY, types, attributes, fields, users) and a
 * segmented export of our own. Then hostile packages: zip bombs and XML entities.
 */
import test from 'ava';
import Database from '../../src/sources/sqlite/driver.js';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { CheckResult } from '../../src/siard/check/report.js';
import { BIN } from '../helpers/cli.js';
import { HAS_SHARED, reference, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

async function check(target: string): Promise<CheckResult> {
  return (await import('../../src/siard/check/check-siard.js')).checkSiardPackage(target);
}

// ---- a minimal ZIP writer (stored or deflated, 32-bit), independent of src/siard/zip ----

const CRC_TABLE = Array.from({ length: 256 }, (_v, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(b: Buffer): number {
  let c = 0xffffffff;
  for (const x of b) c = CRC_TABLE[(c ^ x) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

interface ZipItem {
  name: string;
  data: Buffer;
  /** what the headers say the uncompressed size is (a lie, for the bombs) */
  declaredSize?: number;
}

function zipBytes(items: ZipItem[]): Buffer {
  const out: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const it of items) {
    const dir = it.name.endsWith('/');
    const body = dir ? Buffer.alloc(0) : zlib.deflateRawSync(it.data);
    const name = Buffer.from(it.name);
    const fields = (h: Buffer, at: number) => {
      h.writeUInt16LE(20, at); // version needed
      h.writeUInt16LE(0x0800, at + 2); // UTF-8 names
      h.writeUInt16LE(dir ? 0 : 8, at + 4);
      h.writeUInt32LE(0x5b7c0000, at + 6); // 2025-11-28 00:00
      h.writeUInt32LE(crc32(it.data), at + 10);
      h.writeUInt32LE(body.length, at + 14);
      h.writeUInt32LE(it.declaredSize ?? it.data.length, at + 18);
      h.writeUInt16LE(name.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    fields(local, 4);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    fields(c, 6);
    c.writeUInt32LE(dir ? 0x10 : 0, 38);
    c.writeUInt32LE(offset, 42);
    out.push(local, name, body);
    central.push(c, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(items.length, 8);
  end.writeUInt16LE(items.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...out, cd, end]);
}

const PY_READ = `
import sys, zipfile, json, base64
z = zipfile.ZipFile(sys.argv[1])
print(json.dumps([[i.filename, base64.b64encode(z.read(i)).decode()] for i in z.infolist()]))
`;

type Entries = Map<string, Buffer | null>;

/** one read by python's zipfile (an independent ZIP reader) */
function readEntries(siard: string): Entries {
  const list = JSON.parse(execFileSync('python3', ['-c', PY_READ, siard], { encoding: 'utf8', maxBuffer: 1 << 26 })) as [string, string][];
  return new Map(list.map(([n, d]) => [n, Buffer.from(d, 'base64')]));
}

function edit(e: Entries, name: string, f: (s: string) => string): void {
  const before = e.get(name)!.toString('utf8');
  const after = f(before);
  if (after === before) throw new Error(`the edit of ${name} changed nothing`);
  e.set(name, Buffer.from(after));
}

function writeZip(file: string, e: Entries, lie: Record<string, number> = {}): string {
  const items = [...e].filter(([, d]) => d !== null).map(([name, data]) => ({ name, data: data!, declaredSize: lie[name] }));
  writeFileSync(file, zipBytes(items.map((i) => (i.declaredSize === undefined ? { name: i.name, data: i.data } : (i as ZipItem)))));
  return file;
}

function failedIds(r: CheckResult): string[] {
  return r.requirements.filter((q) => q.status === 'failed').map((q) => q.id);
}

const work = tempDir('siard-ocfl-check-ids-');

// ---- base 1: sql2008.siard, without its (MD5, not matching) messageDigest, in a folder with the LOBs it references ----

const SQ = path.join(work, 'sq');
const SQ_META = 'header/metadata.xml';
const SQ_X1 = 'content/schema0/table1/table1.xsd';
const SQ_T1 = 'content/schema0/table1/table1.xml';

const SQ_BASE: Entries | undefined = HAS_SHARED
  ? (() => {
      const src = reference('siard-samples', 'siardapi');
      const e = readEntries(path.join(src, 'sql2008.siard'));
      edit(e, SQ_META, (s) => s.replace(/\s*<messageDigest>[\s\S]*?<\/messageDigest>/, ''));
      // lobs/ is shared with other samples: only the files sql2008's cells reference
      for (const f of ['record0.txt', 'field/record0.flac', 'field/field/record0.txt']) {
        mkdirSync(path.dirname(path.join(SQ, 'lobs', f)), { recursive: true });
        copyFileSync(path.join(src, 'lobs', f), path.join(SQ, 'lobs', f));
      }
      return e;
    })()
  : undefined;

let sqN = 0;
/** a broken copy of sql2008 beside the shared lobs/ folder (one folder holds them all: G_3.2-1 notes it, no failure) */
function sqPackage(change?: (e: Entries) => void): string {
  const e: Entries = new Map(SQ_BASE);
  change?.(e);
  return writeZip(path.join(SQ, `sq${sqN++}.siard`), e);
}

/** the ids a change newly fails, against the unbroken base */
interface Case {
  change: (e: Entries) => void;
  /** ids the same break cannot help failing too */
  also?: string[];
}

const tableBefore = (first: string, insert: string) => (s: string) => s.replace(`${first}`, `${insert}${first}`);
/** metadata.xml edits: an element with a mandatory child missing, or a value of the wrong type, at its level */
const SQ_CASES: Record<string, Case> = {
  'P_4.3-4': {
    change: (e) => edit(e, SQ_X1, (s) => s.replace('name="c2" type="xs:integer"', 'name="c2" type="xs:string"')),
    also: ['T_6.1-3'],
  },
  'P_4.3-5': { change: (e) => edit(e, SQ_X1, (s) => s.replace('name="a1"', 'name="x1"')), also: ['T_6.0-2'] },
  'P_4.3-6': {
    change: (e) => edit(e, SQ_X1, (s) => s.replace('name="u3" type="blobType"', 'name="x3" type="blobType"')),
    also: ['T_6.0-2'],
  },
  'P_4.3-9': {
    change: (e) => edit(e, SQ_X1, (s) => s.replace(/<xs:element minOccurs="0" name="u3" type="blobType"\/>/, '')),
    also: ['T_6.0-2'],
  },
  'T_6.1-4': { change: (e) => edit(e, SQ_X1, (s) => s.replace('name="a2"', 'name="a7"')) },
  // metadata.xml's text: two spaces written raw (table values: check-samples.test.ts)
  'G_3.3-4': { change: (e) => edit(e, SQ_META, (s) => s.replace('Enter AG, Rüti', 'Enter AG,  Rüti')) },
  'T_6.4-4': { change: (e) => edit(e, SQ_T1, (s) => s.replace('<a1>element 1</a1>', '<b1>element 1</b1>')), also: ['T_6.0-2'] },
  'M_5.3-1': { change: (e) => edit(e, SQ_META, (s) => s.replace('<final>true</final>', '<final>maybe</final>')), also: ['M_5.0-1'] },
  'M_5.4-1': {
    change: (e) => edit(e, SQ_META, (s) => s.replace(/(<name>SOUND<\/name>\s*<type>BLOB<\/type>)/, '$1<nullable>maybe</nullable>')),
    also: ['M_5.0-1'],
  },
  'M_5.7-1': {
    change: (e) => edit(e, SQ_META, (s) => s.replace(/(<field>\s*<name>TABLEID<\/name>)/, '$1<bogus/>')),
    also: ['M_5.0-1'],
  },
  'M_5.11-1': {
    change: (e) =>
      edit(e, SQ_META, tableBefore('<rows>1</rows>', '<candidateKeys><candidateKey><column>X</column></candidateKey></candidateKeys>')),
    also: ['M_5.0-1'],
  },
  'M_5.12-1': {
    change: (e) =>
      edit(
        e,
        SQ_META,
        tableBefore('<rows>1</rows>', '<checkConstraints><checkConstraint><name>CK</name></checkConstraint></checkConstraints>'),
      ),
    also: ['M_5.0-1'],
  },
  'M_5.13-1': {
    change: (e) =>
      edit(
        e,
        SQ_META,
        tableBefore('<rows>1</rows>', '<triggers><trigger><name>TR</name><actionTime>BEFORE</actionTime></trigger></triggers>'),
      ),
    also: ['M_5.0-1'],
  },
  'M_5.14-1': {
    change: (e) => edit(e, SQ_META, (s) => s.replace('</tables>', '</tables><views><view><name>V</name></view></views>')),
    also: ['M_5.0-1'],
  },
  'M_5.15-1': {
    change: (e) => edit(e, SQ_META, (s) => s.replace('</tables>', '</tables><routines><routine><name>R</name></routine></routines>')),
    also: ['M_5.0-1'],
  },
  'M_5.16-1': {
    change: (e) =>
      edit(e, SQ_META, (s) =>
        s.replace(
          '</tables>',
          '</tables><routines><routine><specificName>R1</specificName><name>R</name>' +
            '<parameters><parameter><name>P</name></parameter></parameters></routine></routines>',
        ),
      ),
    also: ['M_5.0-1'],
  },
  'M_5.17-1': {
    change: (e) => edit(e, SQ_META, (s) => s.replace('<name>TESTUSER</name>', '<name>TESTUSER</name><bogus/>')),
    also: ['M_5.0-1'],
  },
  'M_5.18-1': {
    change: (e) => edit(e, SQ_META, (s) => s.replace('</users>', '</users><roles><role><name>R</name></role></roles>')),
    also: ['M_5.0-1'],
  },
  'M_5.19-1': {
    change: (e) =>
      edit(e, SQ_META, (s) => s.replace('</users>', '</users><privileges><privilege><type>SELECT</type></privilege></privileges>')),
    also: ['M_5.0-1'],
  },
};

let sqBaseFailed: string[] | undefined;
async function sqBaseline(): Promise<string[]> {
  sqBaseFailed ??= failedIds(await check(sqPackage()));
  return sqBaseFailed;
}

sharedTest('sql2008, its LOBs beside it and no stale messageDigest, passes every id', async (t) => {
  t.deepEqual(await sqBaseline(), []);
});

sharedTest("G_3.3-4 in metadata.xml: a column's description with a raw run of spaces is placed; escaped, it passes", async (t) => {
  const described = (text: string) => (e: Entries) =>
    edit(e, SQ_META, (s) => s.replace(/(<columns>\s*<column>[\s\S]*?)(<\/column>)/, `$1<description>${text}</description>$2`));
  const raw = (await check(sqPackage(described('see  below')))).requirements.find((q) => q.id === 'G_3.3-4')!;
  t.is(raw.status, 'failed');
  t.is(raw.findings.length, 1);
  t.like(raw.findings[0], { entry: 'header/metadata.xml', table: 'TESTSCHEMA.TESTSIMPLETABLE', column: 'CCHAR' });
  t.regex(raw.findings[0]!.message, /column CCHAR \/ description holds spaces in a row/);
  const escaped = await check(sqPackage(described('see \\u0020below')));
  t.is(escaped.requirements.find((q) => q.id === 'G_3.3-4')!.status, 'passed');
});

for (const [id, c] of Object.entries(SQ_CASES)) {
  sharedTest(`${id} fails on sql2008 broken for it, and only the ids that break cannot avoid`, async (t) => {
    const base = await sqBaseline();
    const r = await check(sqPackage(c.change));
    const added = failedIds(r).filter((x) => !base.includes(x));
    t.deepEqual(
      added.sort(),
      [id, ...(c.also ?? [])].sort(),
      JSON.stringify(r.requirements.filter((q) => q.status === 'failed')).slice(0, 1500),
    );
    const q = r.requirements.find((x) => x.id === id)!;
    t.true(q.findings.length > 0 && q.findings.every((f) => f.message.length > 10));
  });
}

// ---- base 2: our own export (an external LOB in a lobseg folder), and a segmented export of it ----

const own = path.join(work, 'own');

function exportOwn(): void {
  mkdirSync(own);
  const db = new Database(path.join(own, 't.db'));
  db.exec(
    'CREATE TABLE parent(id INTEGER PRIMARY KEY, name VARCHAR(60) NOT NULL, data BLOB);' +
      'CREATE TABLE child(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id));',
  );
  const p = db.prepare('INSERT INTO parent VALUES (?,?,?)');
  // text that deflate cannot shrink much, so that a 20,000-byte segment holds only part of the table
  for (let i = 1; i <= 1000; i++)
    p.run(
      i,
      Buffer.from(`${i * 7919}`.repeat(8))
        .toString('base64')
        .slice(0, 40),
      i === 1 ? Buffer.alloc(100, 1) : null,
    );
  db.prepare('INSERT INTO child VALUES (?,?)').run(1, 1);
  db.close();
  const cli = (out: string, ...extra: string[]) =>
    execFileSync(
      process.execPath,
      [BIN, 'export', `sqlite:${path.join(own, 't.db')}`, path.join(own, out), '--inline-max', '10', ...extra],
      {
        stdio: 'ignore',
      },
    );
  cli('whole');
  cli('seg', '--max-siard-bytes', '20000');
}
exportOwn();

const LOB = 't_lobseg_0/content/schema0/table0/lob3/record0.bin';
let ownN = 0;
/** the export, its LOB folder changed */
function ownPackage(change: (dir: string) => void): string {
  const dir = path.join(work, `own${ownN++}`);
  execFileSync('cp', ['-r', path.join(own, 'whole'), dir]);
  change(dir);
  return path.join(dir, 't.siard');
}

/** a segment zipped again by this file's writer: its messageDigest, over our writer's bytes, is left out (else M_5.1-1 fails too) */
function withoutDigest(e: Entries): void {
  edit(e, 'header/metadata.xml', (s) => s.replace(/\s*<messageDigest>[\s\S]*?<\/messageDigest>/g, ''));
}

/** the segmented export, one segment's entries changed (and its messageDigest left out, unless kept) */
function segPackage(segment: string, change: (e: Entries) => void, keepDigest = false): string {
  const dir = path.join(work, `own${ownN++}`);
  execFileSync('cp', ['-r', path.join(own, 'seg'), dir]);
  const e = readEntries(path.join(dir, segment));
  change(e);
  if (!keepDigest) withoutDigest(e);
  writeZip(path.join(dir, segment), e);
  return path.join(dir, 't.siard.1');
}

const OWN_CASES: Record<string, { target: () => string; also?: string[] }> = {
  'S_8.1.1-0 (a .0 ... .z split without its .z)': {
    target: () => ownPackage((dir) => execFileSync('mv', [path.join(dir, LOB), path.join(dir, `${LOB}.0`)])),
  },
  'S_8.1.1-0 (_part001, _part003: a gap)': {
    target: () =>
      ownPackage((dir) => {
        rmSync(path.join(dir, LOB));
        writeFileSync(path.join(dir, `${LOB}_part001`), Buffer.alloc(50, 1));
        writeFileSync(path.join(dir, `${LOB}_part003`), Buffer.alloc(50, 1));
      }),
    // the parts before the gap are read as the LOB: 50 bytes where the cell says 100
    also: ['T_6.4-5'],
  },
  'S_8.5-0 (a segment whose metadata.xml describes another database)': {
    target: () =>
      segPackage('t.siard.2', (e) => edit(e, 'header/metadata.xml', (s) => s.replace(/<dbname>[^<]*<\/dbname>/, '<dbname>other</dbname>'))),
  },
  'M_5.1-1 (a segment zipped again: its own messageDigest no longer matches its bytes)': {
    target: () => segPackage('t.siard.2', () => undefined, true),
  },
  'S_8.6-0 (part .2 of a table moved into the segment of the part after it)': {
    target: () => {
      const dir = path.join(work, `own${ownN++}`);
      execFileSync('cp', ['-r', path.join(own, 'seg'), dir]);
      // the segments holding part .2 and the part after it (.3, or .z when the table has three parts)
      const segs = readdirSync(dir).filter((n) => /\.siard\.(\d+|z)$/.test(n));
      const find = (suffix: string) => {
        for (const name of segs) {
          const e = readEntries(path.join(dir, name));
          const part = [...e.keys()].find((n) => n.endsWith(suffix));
          if (part) return { name, e, part };
        }
        return undefined;
      };
      const holding = (suffix: string) => {
        const found = find(suffix);
        if (!found) throw new Error(`no segment holds a ${suffix} part`);
        return found;
      };
      const two = holding('.xml.2');
      const three = find('.xml.3') ?? holding('.xml.z');
      three.e.set(two.part, two.e.get(two.part)!);
      two.e.delete(two.part);
      withoutDigest(two.e);
      withoutDigest(three.e);
      writeZip(path.join(dir, two.name), two.e);
      writeZip(path.join(dir, three.name), three.e);
      return path.join(dir, 't.siard.1');
    },
  },
};

const ownBase = new Map<string, Promise<string[]>>();
function ownBaseline(kind: 'whole' | 'seg'): Promise<string[]> {
  if (!ownBase.has(kind)) ownBase.set(kind, check(path.join(own, kind, kind === 'whole' ? 't.siard' : 't.siard.1')).then(failedIds));
  return ownBase.get(kind)!;
}

test('the export and its segmented export pass every id; the segmented one is split as S_8.5-0 / S_8.6-0 say', async (t) => {
  t.deepEqual(await ownBaseline('whole'), []);
  t.deepEqual(await ownBaseline('seg'), []);
  const names = readdirSync(path.join(own, 'seg')).filter((n) => n.includes('.siard'));
  t.true(names.length >= 3, names.join(', '));
  const r = await check(path.join(own, 'seg', 't.siard.1'));
  for (const id of ['S_8.5-0', 'S_8.6-0']) t.is(r.requirements.find((q) => q.id === id)!.status, 'passed');
});

for (const [name, c] of Object.entries(OWN_CASES)) {
  const id = name.split(' ')[0]!;
  test(`${name}: fails ${id}, and only the ids that break cannot avoid`, async (t) => {
    const target = c.target();
    const base = await ownBaseline(target.endsWith('.1') ? 'seg' : 'whole');
    const r = await check(target);
    const added = failedIds(r).filter((x) => !base.includes(x));
    t.deepEqual(
      added.sort(),
      [id, ...(c.also ?? [])].sort(),
      JSON.stringify(r.requirements.filter((q) => q.status === 'failed')).slice(0, 1500),
    );
    t.true(r.requirements.find((x) => x.id === id)!.findings.every((f) => f.message.length > 10));
  });
}

// ---- hostile packages: zip bombs and XML entities (issue 32, section 4) ----

const OWN_ENTRIES = (() => {
  const e = readEntries(path.join(own, 'whole', 't.siard'));
  edit(e, 'header/metadata.xml', (s) => s.replace(/\s*<messageDigest>[\s\S]*?<\/messageDigest>/, ''));
  return e;
})();
const OWN_META = 'header/metadata.xml';
const OWN_T0 = 'content/schema0/table0/table0.xml';

/** 1 GiB of zeros as raw deflate in ~1 MiB: one fully flushed 1 MiB block repeated (each starts afresh), then an empty final block */
function deflatedGiB(): Buffer {
  const block = zlib.deflateRawSync(Buffer.alloc(1 << 20), { finishFlush: zlib.constants.Z_FULL_FLUSH });
  return Buffer.concat([...Array.from({ length: 1024 }, () => block), zlib.deflateRawSync(Buffer.alloc(0))]);
}

/** a package whose `bomb` entry is 1 GiB of zeros that its headers say is `declared` bytes */
function bombPackage(bomb: string, declared: number): string {
  const dir = path.join(work, `bomb${ownN++}`);
  mkdirSync(dir);
  const items = [...OWN_ENTRIES]
    .filter(([n]) => n !== bomb)
    .map(([name, data]) => {
      const dirEntry = name.endsWith('/');
      return { name, body: dirEntry ? Buffer.alloc(0) : zlib.deflateRawSync(data!), size: data!.length, crc: crc32(data!), dirEntry };
    });
  // crc of 1 GiB of zeros, without making them: not needed, a reader must stop before it could check it
  items.push({ name: bomb, body: deflatedGiB(), size: declared, crc: 0, dirEntry: false });
  writeFileSync(path.join(dir, 't.siard'), rawZip(items));
  return path.join(dir, 't.siard');
}

/** zipBytes with the compressed bodies given (so a body need not be made from its bytes) */
function rawZip(items: { name: string; body: Buffer; size: number; crc: number; dirEntry: boolean }[]): Buffer {
  const out: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const it of items) {
    const name = Buffer.from(it.name);
    const fields = (h: Buffer, at: number) => {
      h.writeUInt16LE(20, at);
      h.writeUInt16LE(0x0800, at + 2);
      h.writeUInt16LE(it.dirEntry ? 0 : 8, at + 4);
      h.writeUInt32LE(0x5b7c0000, at + 6);
      h.writeUInt32LE(it.crc, at + 10);
      h.writeUInt32LE(it.body.length, at + 14);
      h.writeUInt32LE(it.size, at + 18);
      h.writeUInt16LE(name.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    fields(local, 4);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    fields(c, 6);
    c.writeUInt32LE(it.dirEntry ? 0x10 : 0, 38);
    c.writeUInt32LE(offset, 42);
    out.push(local, name, it.body);
    central.push(c, name);
    offset += 30 + name.length + it.body.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(items.length, 8);
  end.writeUInt16LE(items.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...out, cd, end]);
}

// the checker's modules and libxml2 loaded before the hostile tests measure memory and time
test.before(async () => {
  await (await import('../../src/siard/check/xsd-validator.js')).loadLibxml2();
});

/** check of a hostile package: not conformant, each failure said in a sentence, in bounded time and memory */
async function hostile(t: import('ava').ExecutionContext, target: string): Promise<CheckResult> {
  const started = process.hrtime.bigint();
  let peak = process.memoryUsage().rss;
  const before = peak;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    const r = await check(target);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    t.false(r.ok);
    const failed = r.requirements.filter((q) => q.status === 'failed');
    t.true(failed.length > 0 && failed.every((q) => q.findings.every((f) => f.message.length > 10)));
    t.log(
      `${Math.round(ms)} ms, RSS +${Math.round((peak - before) / 1048576)} MiB:`,
      failed.map((q) => `${q.id}: ${q.findings[0]!.message}`.slice(0, 200)),
    );
    t.true(ms < 60_000, `${ms} ms`);
    t.true(peak - before < 150 * 1024 * 1024, `RSS grew ${Math.round((peak - before) / 1048576)} MiB`);
    return r;
  } finally {
    clearInterval(sampler);
  }
}

const failedOf = (r: CheckResult) => JSON.stringify(r.requirements.filter((q) => q.status === 'failed'));

test.serial('zip bomb: metadata.xml of 1 GiB of zeros in 1 MiB, its size stated honestly', async (t) => {
  const r = await hostile(t, bombPackage(OWN_META, 2 ** 30));
  t.regex(failedOf(r), /metadata/i);
});

test.serial('zip bomb: a table of 1 GiB of zeros whose headers say 2,000 bytes', async (t) => {
  const r = await hostile(t, bombPackage(OWN_T0, 2000));
  t.regex(failedOf(r), /table0\.xml/);
});

test.serial('zip bomb: an entry claiming more than deflate can pass (4 GiB from 1 MiB)', async (t) => {
  const r = await hostile(t, bombPackage(OWN_T0, 2 ** 32 - 1));
  t.regex(failedOf(r), /table0\.xml/);
});

const SECRET = path.join(work, 'secret.txt');
writeFileSync(SECRET, 'SECRET-MARKER-4711');
const LAUGHS =
  '<!DOCTYPE d [<!ENTITY l0 "ha">' +
  Array.from({ length: 9 }, (_v, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join('') +
  `<!ENTITY secret SYSTEM "file://${SECRET}">]>`;

for (const [what, entry, at] of [
  ['metadata.xml', OWN_META, /(<dbname>)/],
  ['a table', OWN_T0, /(<c2>)/],
] as const) {
  test.serial(`XML entities in ${what}: billion laughs and an external entity naming a file outside the package`, async (t) => {
    const dir = path.join(work, `ent${ownN++}`);
    mkdirSync(dir);
    const e: Entries = new Map(OWN_ENTRIES);
    edit(e, entry, (s) => s.replace(/^(<\?xml[^>]*\?>)/, `$1${LAUGHS}`).replace(at, '$1&l9;&secret;'));
    const r = await hostile(t, writeZip(path.join(dir, 't.siard'), e));
    t.notRegex(JSON.stringify(r), /SECRET-MARKER|hahaha/);
  });
}
