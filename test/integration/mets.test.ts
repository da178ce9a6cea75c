/**
 * METS index (seed 002): the Northwind example written as a parent + three children, read back
 * by an INDEPENDENT parser (python3's xml.etree, plus xmllint for well-formedness), compared with
 * digests computed here with node:crypto, and checked by our checker against real files, intact
 * and damaged.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fsp, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  auditMetsIndex,
  BufferWriter,
  parseMets,
  ParentMetsNotUpdatable,
  planParentMetsUpdate,
  writeMetsIndex,
  writeParentMets,
  writeUpdatedParentMets,
  type MetsFinding,
  type MetsLobRecord,
  type MetsOutputSink,
} from '../../src/siard/mets/index.js';
import { metsSchemaErrors } from '../helpers/mets-schema.js';
import { hasProgram, testIf } from '../helpers/requires.js';
import { seed, sharedTest } from '../helpers/shared.js';
import { repetitions } from '../helpers/repetitions.js';
import { tempDir } from '../helpers/tmp.js';

// The seed's Northwind Categories pictures: row n+1 is recordN.bin, sizes as the seed prints them,
// limits 4 files / 45,000 bytes giving lobseg_0 = record0-3, _1 = record4-6, _2 = record7.
const SIZES = [10151, 12107, 12007, 9756, 12131, 11280, 12338, 12069];
const SEGMENT_OF = [0, 0, 0, 0, 1, 1, 1, 2];
const OBJID = 'ID.AVID.RA.18005';
const LOB_DIR = 'content/schema0/table2/lob4';
const METS_NS = 'http://www.loc.gov/METS/';
const XLINK_NS = 'http://www.w3.org/1999/xlink';

/** Deterministic bytes for record n (not the real pictures, which the seed does not give). */
function lobBytes(n: number, size: number): Buffer {
  const blocks: Buffer[] = [];
  for (let i = 0; blocks.length * 32 < size; i++) blocks.push(createHash('sha256').update(`northwind-picture-${n}-${i}`).digest());
  return Buffer.concat(blocks).subarray(0, size);
}

const md5 = (b: Uint8Array) => createHash('md5').update(b).digest('hex');

/** A minimal sink writing straight into a folder (the test's own, not the export's). */
function folderSink(root: string): MetsOutputSink & { aborted: string[] } {
  const aborted: string[] = [];
  return {
    aborted,
    async openFile(relPath: string) {
      const full = path.join(root, ...relPath.split('/'));
      await fsp.mkdir(path.dirname(full), { recursive: true });
      const handle = await fsp.open(full, 'wx');
      return {
        async write(chunk: Uint8Array) {
          await handle.write(chunk);
        },
        async close() {
          await handle.close();
        },
        async abort() {
          aborted.push(relPath);
          await handle.close().catch(() => undefined);
          await fsp.rm(full, { force: true });
        },
      };
    },
  };
}

interface Northwind {
  root: string;
  siard: Buffer;
  lobs: Buffer[];
  records: MetsLobRecord[];
  lobPaths: string[];
}

/** Writes the LOB files and a stand-in .siard into a fresh folder, and the records describing them. */
async function makeNorthwind(): Promise<Northwind> {
  const root = tempDir('siard-ocfl-mets-');
  const lobs = SIZES.map((size, n) => lobBytes(n, size));
  const records: MetsLobRecord[] = [];
  const lobPaths: string[] = [];
  for (let n = 0; n < lobs.length; n++) {
    const segment = `Northwind_lobseg_${SEGMENT_OF[n]}`;
    const rel = `${LOB_DIR}/record${n}.bin`;
    const full = path.join(root, segment, ...rel.split('/'));
    await fsp.mkdir(path.dirname(full), { recursive: true });
    await fsp.writeFile(full, lobs[n]!);
    lobPaths.push(`${segment}/${rel}`);
    records.push({
      segment,
      path: rel,
      identity: { schema: 0, table: 2, column: 4, row: n + 1 },
      size: SIZES[n]!,
      checksum: md5(lobs[n]!),
    });
  }
  const siard = Buffer.from('PK stand-in for Northwind.siard: the METS index only needs its bytes');
  await fsp.writeFile(path.join(root, 'Northwind.siard'), siard);
  return { root, siard, lobs, records, lobPaths };
}

async function writeIndex(nw: Northwind, records = nw.records) {
  return writeMetsIndex(folderSink(nw.root), {
    objId: OBJID,
    checksumType: 'MD5',
    siard: { path: 'Northwind.siard', size: nw.siard.length, checksum: md5(nw.siard) },
    files: records,
    createDate: new Date('2015-06-13T13:40:00Z'),
  });
}

// ---- independent reading -----------------------------------------------------------------

const PY_DUMP = String.raw`
import json, sys, xml.etree.ElementTree as ET
M = '{http://www.loc.gov/METS/}'
X = '{http://www.w3.org/1999/xlink}'
out = {}
for p in sys.argv[1:]:
    root = ET.parse(p).getroot()
    def files(grp, use):
        res = []
        for el in grp:
            if el.tag == M + 'fileGrp':
                res += files(el, el.get('USE', use))
            elif el.tag == M + 'file':
                res.append({'use': use, 'attrs': dict(el.attrib),
                  'flocat': [dict(f.attrib) for f in el.findall(M + 'FLocat')],
                  'transform': [dict(t.attrib) for t in el.findall(M + 'transformFile')]})
        return res
    fs = []
    for sec in root.findall(M + 'fileSec'):
        fs += files(sec, None)
    out[p] = {'tag': root.tag, 'attrs': dict(root.attrib), 'files': fs,
      'structMaps': [{'attrs': dict(s.attrib),
         'mptrs': [dict(m.attrib) for m in s.iter(M + 'mptr')],
         'fptrs': [dict(f.attrib) for f in s.iter(M + 'fptr')]} for s in root.findall(M + 'structMap')]}
print(json.dumps(out))
`;

interface PyFile {
  use: string | null;
  attrs: Record<string, string>;
  flocat: Array<Record<string, string>>;
  transform: Array<Record<string, string>>;
}
interface PyMets {
  tag: string;
  attrs: Record<string, string>;
  files: PyFile[];
  structMaps: Array<{ attrs: Record<string, string>; mptrs: Array<Record<string, string>>; fptrs: Array<Record<string, string>> }>;
}

function pythonDump(files: string[]): Record<string, PyMets> {
  const r = spawnSync('python3', ['-c', PY_DUMP, ...files], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`python3 could not parse the METS files: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, PyMets>;
}

/** Valid against the METS 1.12 schema (which implies well-formed). */
function xmllintWellFormed(files: string[]): { ok: boolean; stderr: string } {
  const errors = metsSchemaErrors(files);
  return { ok: errors === '', stderr: errors };
}

const HREF = `${XLINK_NS.replace(/^/, '{')}}href`;

// ---- facts from the real folder, computed here ---------------------------------------------

function folderFacts(root: string) {
  return {
    async size(p: string) {
      try {
        const st = await fsp.stat(path.join(root, ...p.split('/')));
        return st.isFile() ? st.size : undefined;
      } catch {
        return undefined;
      }
    },
    async digest(p: string, type: string) {
      const name = ({ MD5: 'md5', 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-512': 'sha512' } as Record<string, string>)[type];
      if (!name) return undefined;
      return createHash(name)
        .update(await fsp.readFile(path.join(root, ...p.split('/'))))
        .digest('hex');
    },
  };
}

async function listFiles(root: string, dir = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fsp.readdir(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await listFiles(root, rel)));
    else out.push(rel);
  }
  return out;
}

async function audit(nw: Northwind, referenced = nw.lobPaths): Promise<MetsFinding[]> {
  return auditMetsIndex({
    parentPath: 'mets.xml',
    open: async (p) => {
      try {
        return await fsp.readFile(path.join(nw.root, ...p.split('/')));
      } catch {
        return undefined;
      }
    },
    facts: folderFacts(nw.root),
    presentFiles: await listFiles(nw.root),
    referencedFiles: referenced,
  });
}

const codesAt = (findings: MetsFinding[]) => findings.map((f) => `${f.code} ${f.path}`).sort();

// ---- tests -------------------------------------------------------------------------------

test('Northwind: one parent and three children, as read by python3 xml.etree, match the files', async (t) => {
  const nw = await makeNorthwind();
  const written = await writeIndex(nw);
  t.deepEqual(
    written.children.map((c) => c.path),
    ['Northwind_lobseg_0/mets.xml', 'Northwind_lobseg_1/mets.xml', 'Northwind_lobseg_2/mets.xml'],
  );
  const parentFile = path.join(nw.root, 'mets.xml');
  const childFiles = [0, 1, 2].map((h) => path.join(nw.root, `Northwind_lobseg_${h}`, 'mets.xml'));
  const wf = xmllintWellFormed([parentFile, ...childFiles]);
  t.true(wf.ok, wf.stderr);
  const dump = pythonDump([parentFile, ...childFiles]);

  // Parent: namespaced root, OBJID, the SIARD file with its checksum and the ZIP64 transform.
  const parent = dump[parentFile]!;
  t.is(parent.tag, `{${METS_NS}}mets`);
  t.is(parent.attrs.OBJID, OBJID);
  const siardEntries = parent.files.filter((f) => f.use !== 'child IP');
  t.is(siardEntries.length, 1);
  const siard = siardEntries[0]!;
  t.is(siard.attrs.CHECKSUMTYPE, 'MD5');
  t.is(siard.attrs.CHECKSUM, md5(nw.siard));
  t.is(siard.attrs.SIZE, String(nw.siard.length));
  t.deepEqual(siard.flocat, [{ LOCTYPE: 'URL', [`{${XLINK_NS}}type`]: 'simple', [HREF]: 'Northwind.siard' }]);
  t.deepEqual(siard.transform, [{ TRANSFORMTYPE: 'decompression', TRANSFORMALGORITHM: 'ZIP64', TRANSFORMORDER: '1' }]);

  // Parent: one "child IP" file per segment METS, its checksum and size those of the file on disk.
  const childEntries = parent.files.filter((f) => f.use === 'child IP');
  t.is(childEntries.length, 3);
  for (let h = 0; h < 3; h++) {
    const entry = childEntries[h]!;
    const bytes = readFileSync(childFiles[h]!);
    t.is(entry.attrs.ID, `ID_Northwind_lobseg_${h}_mets`);
    t.is(entry.attrs.CHECKSUMTYPE, 'MD5');
    t.is(entry.attrs.CHECKSUM, md5(bytes));
    t.is(entry.attrs.SIZE, String(bytes.length));
    t.is(entry.flocat[0]![HREF], `Northwind_lobseg_${h}/mets.xml`);
    t.is(entry.flocat[0]!.LOCTYPE, 'URL');
    t.is(new URL(entry.flocat[0]![HREF]!, `file://${parentFile}`).pathname, childFiles[h]);
  }
  // Parent structMap: one mptr per child, its href the child's file ID (and the child's OBJID).
  const parentMptrs = parent.structMaps.flatMap((s) => s.mptrs);
  t.deepEqual(
    parentMptrs.map((m) => m[HREF]),
    childEntries.map((e) => e.attrs.ID),
  );
  const fileIds = new Set(parent.files.map((f) => f.attrs.ID));
  for (const fptr of parent.structMaps.flatMap((s) => s.fptrs)) t.true(fileIds.has(fptr.FILEID), `fptr ${fptr.FILEID} names a file`);

  // Children: exactly the records of their segment, IDs/OWNERIDs s0.t2.c4.r<row>, sizes,
  // checksums computed here, hrefs that resolve to the real file, an mptr back at the parent.
  for (let h = 0; h < 3; h++) {
    const child = dump[childFiles[h]!]!;
    t.is(child.tag, `{${METS_NS}}mets`);
    t.is(child.attrs.OBJID, childEntries[h]!.attrs.ID);
    const rows = SEGMENT_OF.flatMap((s, n) => (s === h ? [n] : []));
    t.deepEqual(
      child.files.map((f) => [f.attrs.ID, f.attrs.OWNERID, f.attrs.SIZE, f.attrs.CHECKSUMTYPE, f.attrs.CHECKSUM, f.flocat[0]![HREF]]),
      rows.map((n) => [`s0.t2.c4.r${n + 1}`, `s0.t2.c4.r${n + 1}`, String(SIZES[n]), 'MD5', md5(nw.lobs[n]!), `${LOB_DIR}/record${n}.bin`]),
    );
    for (const f of child.files) {
      const target = new URL(f.flocat[0]![HREF]!, `file://${childFiles[h]}`).pathname;
      t.is(md5(readFileSync(target)), f.attrs.CHECKSUM);
    }
    const mptrs = child.structMaps.flatMap((s) => s.mptrs.map((m) => ({ ...m, smType: s.attrs.TYPE })));
    t.deepEqual(
      mptrs.map((m) => [m.smType, m[HREF]]),
      [['logical', OBJID]],
    );
    const childIds = new Set(child.files.map((f) => f.attrs.ID));
    const fptrs = child.structMaps.flatMap((s) => s.fptrs);
    t.deepEqual(new Set(fptrs.map((f) => f.FILEID)), childIds, 'the LOBPOINTER structMap points at every listed file');
  }

  // The values the writer returned are those of the bytes on disk.
  t.is(written.parent.checksum, md5(readFileSync(parentFile)));
  t.deepEqual(
    written.children.map((c) => [c.checksum, c.fileCount]),
    childFiles.map((f, h) => [md5(readFileSync(f)), SEGMENT_OF.filter((s) => s === h).length]),
  );
});

sharedTest('the child of Northwind_lobseg_0 lists the files the seed prints (IDs, sizes, locations)', async (t) => {
  const text = readFileSync(seed('002_005a98f6ab27beae.txt'), 'utf8');
  // The seed's child example: <mets:file ID="s0.t2.c4.r1" ... SIZE="10151"> ... xlink:href="file:///Northwind_lobseg_0/...">
  const printed = [
    ...text.matchAll(/<mets:file ID="(s[^"]+)"[^>]*?SIZE="(\d+)">\s*<mets:FLocat[^>]*?xlink:href="file:\/\/\/([^"]+)"/g),
  ].map((m) => [m[1], m[2], m[3]]);
  t.is(printed.length, 4, 'the seed prints the four files of Northwind_lobseg_0');
  // The seed's table of picture sizes agrees with the constants used here.
  const seedSizes = [...text.matchAll(/BLOB \(Size: (\d+)\)/g)].map((m) => Number(m[1]));
  t.deepEqual(seedSizes, SIZES);

  const nw = await makeNorthwind();
  await writeIndex(nw);
  const childFile = path.join(nw.root, 'Northwind_lobseg_0', 'mets.xml');
  const child = pythonDump([childFile])[childFile]!;
  // Our hrefs are relative to the child METS; resolved from the archive folder they give the
  // seed's paths (which it writes as file:/// URLs rooted at that folder).
  t.deepEqual(
    child.files.map((f) => [f.attrs.ID, f.attrs.SIZE, `Northwind_lobseg_0/${f.flocat[0]![HREF]}`]),
    printed,
  );
});

test('our reader gives the same facts as the independent parse', async (t) => {
  const nw = await makeNorthwind();
  await writeIndex(nw);
  const files = ['mets.xml', 'Northwind_lobseg_0/mets.xml', 'Northwind_lobseg_1/mets.xml', 'Northwind_lobseg_2/mets.xml'].map((p) =>
    path.join(nw.root, p),
  );
  const dump = pythonDump(files);
  for (const file of files) {
    // Fed in small chunks, so multi-byte boundaries and streaming are exercised.
    const bytes = readFileSync(file);
    const chunks = function* () {
      for (let i = 0; i < bytes.length; i += 7) yield bytes.subarray(i, i + 7);
    };
    const ours = await parseMets(chunks(), file);
    const theirs = dump[file]!;
    t.is(ours.objId, theirs.attrs.OBJID);
    t.deepEqual(
      ours.files.map((f) => [f.id, f.ownerId, f.size, f.checksum, f.checksumType, f.use ?? null, f.flocats.map((l) => l.href)]),
      theirs.files.map((f) => [
        f.attrs.ID,
        f.attrs.OWNERID,
        f.attrs.SIZE,
        f.attrs.CHECKSUM,
        f.attrs.CHECKSUMTYPE,
        f.use,
        f.flocat.map((l) => l[HREF]),
      ]),
    );
    t.deepEqual(
      ours.structMaps.map((s) => [s.type, s.mptrs.map((m) => m.href), s.fptrs.map((f) => f.fileId)]),
      theirs.structMaps.map((s) => [s.attrs.TYPE, s.mptrs.map((m) => m[HREF]), s.fptrs.map((f) => f.FILEID)]),
    );
  }
});

testIf(hasProgram('xmllint', '--version'), 'xmllint is not installed')(
  'every METS file written is valid against the official METS 1.12 schema (shipped in resources/mets)',
  async (t) => {
    const nw = await makeNorthwind();
    await writeIndex(nw);
    const files = ['mets.xml', 'Northwind_lobseg_0/mets.xml', 'Northwind_lobseg_1/mets.xml', 'Northwind_lobseg_2/mets.xml'].map((p) =>
      path.join(nw.root, p),
    );
    t.deepEqual(metsSchemaErrors(files), '');
    // The schema is really applied: a METS with an element it does not define is refused.
    const bad = path.join(nw.root, 'bad-mets.xml');
    writeFileSync(bad, readFileSync(files[0]!, 'utf8').replace('<mets:metsHdr', '<mets:bogus/><mets:metsHdr'));
    t.regex(metsSchemaErrors([bad]), /bogus/);
  },
);

test('checker: the intact index has no findings', async (t) => {
  const nw = await makeNorthwind();
  await writeIndex(nw);
  t.deepEqual(await audit(nw), []);
});

test('checker: a LOB whose bytes disagree with its METS checksum', async (t) => {
  const nw = await makeNorthwind();
  await writeIndex(nw);
  const victim = nw.lobPaths[5]!;
  const bytes = Buffer.from(nw.lobs[5]!);
  bytes[100] = bytes[100]! ^ 0xff; // same size, other content
  await fsp.writeFile(path.join(nw.root, victim), bytes);
  const findings = await audit(nw);
  t.deepEqual(codesAt(findings), [`METS_CHECKSUM_MISMATCH ${victim}`]);
  t.regex(findings[0]!.message, new RegExp(md5(bytes)));
  t.regex(findings[0]!.message, /Northwind_lobseg_1\/mets\.xml/);
});

test('checker: a child METS that is missing', async (t) => {
  const nw = await makeNorthwind();
  await writeIndex(nw);
  await fsp.rm(path.join(nw.root, 'Northwind_lobseg_2', 'mets.xml'));
  const findings = await audit(nw);
  // The child is missing, so the cell's file in that folder is listed nowhere.
  t.deepEqual(codesAt(findings), ['METS_CHILD_MISSING Northwind_lobseg_2/mets.xml', `METS_FILE_UNLISTED ${nw.lobPaths[7]}`]);
});

test('checker: a LOB file missing from its child METS', async (t) => {
  const nw = await makeNorthwind();
  await writeIndex(
    nw,
    nw.records.filter((_, n) => n !== 2),
  );
  const findings = await audit(nw);
  t.deepEqual(codesAt(findings), [`METS_FILE_UNLISTED ${nw.lobPaths[2]}`]);
  t.regex(findings[0]!.message, /Northwind_lobseg_0\/mets\.xml does not list it/);
  // Only the cells know it (no folder listing given): still reported.
  const nw2 = await makeNorthwind();
  await writeIndex(
    nw2,
    nw2.records.filter((_, n) => n !== 2),
  );
  const findings2 = await auditMetsIndex({
    parentPath: 'mets.xml',
    open: (p) => fsp.readFile(path.join(nw2.root, p)).catch(() => undefined),
    facts: folderFacts(nw2.root),
    referencedFiles: nw2.lobPaths,
  });
  t.deepEqual(codesAt(findings2), [`METS_FILE_UNLISTED ${nw2.lobPaths[2]}`]);
  t.regex(findings2[0]!.message, /referenced by a cell/);
});

test('checker: missing, resized, stray and unreferenced files; a changed child METS; broken links', async (t) => {
  const nw = await makeNorthwind();
  await writeIndex(nw);
  await fsp.rm(path.join(nw.root, nw.lobPaths[0]!));
  await fsp.appendFile(path.join(nw.root, nw.lobPaths[4]!), 'x');
  await fsp.writeFile(path.join(nw.root, 'Northwind_lobseg_1', 'stray.bin'), 'not listed');
  // A child METS edited after the parent recorded its checksum (same size, one byte changed).
  const child2 = path.join(nw.root, 'Northwind_lobseg_2', 'mets.xml');
  await fsp.writeFile(child2, readFileSync(child2, 'utf8').replace('IP child SIARD content', 'IP child SIARD c0ntent'));
  const referenced = nw.lobPaths.filter((_, n) => n !== 6); // row 7's cell no longer references its file
  const findings = await audit(nw, referenced);
  t.deepEqual(codesAt(findings), [
    `METS_CHECKSUM_MISMATCH Northwind_lobseg_2/mets.xml`,
    `METS_FILE_MISSING ${nw.lobPaths[0]}`,
    `METS_FILE_UNLISTED Northwind_lobseg_1/stray.bin`,
    `METS_FILE_UNREFERENCED ${nw.lobPaths[6]}`,
    `METS_SIZE_MISMATCH ${nw.lobPaths[4]}`,
  ]);

  // A child whose back link names another parent, and a parent whose mptr names nothing.
  const nw2 = await makeNorthwind();
  await writeIndex(nw2);
  const c0 = path.join(nw2.root, 'Northwind_lobseg_0', 'mets.xml');
  await fsp.writeFile(c0, readFileSync(c0, 'utf8').replace(`xlink:href="${OBJID}"`, 'xlink:href="ID.OTHER.ARCHIVE"'));
  const p = path.join(nw2.root, 'mets.xml');
  await fsp.writeFile(p, readFileSync(p, 'utf8').replace('xlink:href="ID_Northwind_lobseg_1_mets"', 'xlink:href="ID_nowhere"'));
  const codes2 = codesAt(await audit(nw2));
  t.true(codes2.includes('METS_LINK_BROKEN Northwind_lobseg_0/mets.xml'));
  t.is(codes2.filter((c) => c === 'METS_LINK_BROKEN mets.xml').length, 2, 'the dangling mptr and the child file without mptr');
  // (the parent's own checksum of child 0 also disagrees now)
  t.true(codes2.includes('METS_CHECKSUM_MISMATCH Northwind_lobseg_0/mets.xml'));
});

test('checker: hrefs that leave the folder or are absolute are refused, not followed', async (t) => {
  const nw = await makeNorthwind();
  await writeIndex(nw);
  const c1 = path.join(nw.root, 'Northwind_lobseg_1', 'mets.xml');
  let xml = readFileSync(c1, 'utf8');
  xml = xml.replace(`xlink:href="${LOB_DIR}/record4.bin"`, 'xlink:href="../Northwind_lobseg_0/content/schema0/table2/lob4/record0.bin"');
  xml = xml.replace(`xlink:href="${LOB_DIR}/record5.bin"`, 'xlink:href="file:///etc/passwd"');
  await fsp.writeFile(c1, xml);
  const findings = await audit(nw);
  const invalid = findings.filter((f) => f.code === 'METS_HREF_INVALID');
  t.is(invalid.length, 2);
  t.true(invalid.every((f) => f.path === 'Northwind_lobseg_1/mets.xml'));
  t.regex(invalid.map((f) => f.message).join(' '), /"\.\."/);
  t.regex(invalid.map((f) => f.message).join(' '), /absolute URL/);
});

test('reader: DOCTYPE, entities, foreign roots and bad UTF-8 are refused', async (t) => {
  const laughs =
    '<?xml version="1.0"?><!DOCTYPE mets [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>' +
    '<mets xmlns="http://www.loc.gov/METS/" OBJID="&b;"/>';
  const xxe =
    '<?xml version="1.0"?><!DOCTYPE mets [<!ENTITY x SYSTEM "file:///etc/passwd">]><mets xmlns="http://www.loc.gov/METS/" OBJID="&x;"/>';
  for (const bad of [laughs, xxe]) {
    const err = await t.throwsAsync(parseMets(bad, 'hostile.xml'));
    t.regex(err!.message, /hostile\.xml .*DOCTYPE/);
    t.is((err as { code?: string }).code, 'METS_MALFORMED');
  }
  await t.throwsAsync(parseMets('<mets xmlns="http://www.loc.gov/METS/" OBJID="&undefined;"/>'), { message: /undefined entity/ });
  await t.throwsAsync(parseMets('<mets OBJID="x"/>'), { message: /root element is \{\}mets/ });
  await t.throwsAsync(parseMets(Buffer.from([0x3c, 0x6d, 0xc3, 0x28, 0x2f, 0x3e])), { message: /UTF-8/ });
  await t.throwsAsync(parseMets('<mets:mets xmlns:mets="http://www.loc.gov/METS/"><mets:fileSec>'), { message: /not a usable METS/ });
});

test('names with spaces and non-ASCII are percent-encoded and resolve to the file', async (t) => {
  const root = tempDir('siard-ocfl-mets-names-');
  const segment = 'Nörd wind_lobseg_0';
  const rel = 'content/schema0/table0/lob1/récord 0#%.bin';
  const bytes = Buffer.from('lob');
  await fsp.mkdir(path.join(root, segment, 'content/schema0/table0/lob1'), { recursive: true });
  await fsp.writeFile(path.join(root, segment, ...rel.split('/')), bytes);
  await fsp.writeFile(path.join(root, 'a.siard'), 'z');
  await writeMetsIndex(folderSink(root), {
    objId: 'urn:x-test:archive 1 & <2>',
    checksumType: 'SHA-256',
    siard: { path: 'a.siard', size: 1, checksum: createHash('sha256').update('z').digest('hex') },
    files: [
      {
        segment,
        path: rel,
        identity: { schema: 0, table: 0, column: 1, row: 1 },
        size: 3,
        checksum: createHash('sha256').update(bytes).digest('hex'),
      },
    ],
  });
  const parentFile = path.join(root, 'mets.xml');
  const childFile = path.join(root, segment, 'mets.xml');
  t.true(xmllintWellFormed([parentFile, childFile]).ok);
  const dump = pythonDump([parentFile, childFile]);
  t.is(dump[parentFile]!.attrs.OBJID, 'urn:x-test:archive 1 & <2>');
  const childHref = dump[parentFile]!.files.find((f) => f.use === 'child IP')!.flocat[0]![HREF]!;
  t.is(decodeURIComponent(new URL(childHref, `file://${parentFile}`).pathname), childFile);
  const lobHref = dump[childFile]!.files[0]!.flocat[0]![HREF]!;
  t.notRegex(lobHref, /[ #%](?![0-9A-F]{2})/);
  t.is(decodeURIComponent(new URL(lobHref, `file://${childFile}`).pathname), path.join(root, segment, rel));
  t.is(dump[childFile]!.structMaps.flatMap((s) => s.mptrs)[0]![HREF], 'urn:x-test:archive 1 & <2>');
  t.deepEqual(
    await auditMetsIndex({
      parentPath: 'mets.xml',
      open: (p) => fsp.readFile(path.join(root, p)).catch(() => undefined),
      facts: folderFacts(root),
      presentFiles: await listFiles(root),
      referencedFiles: [`${segment}/${rel}`],
    }),
    [],
  );
});

test('split LOB parts get their own IDs under the cell OWNERID', async (t) => {
  const root = tempDir('siard-ocfl-mets-split-');
  const parts = ['0', '1', 'z'].map((p, i) => ({
    segment: `db_lobseg_${i}`,
    path: `content/schema0/table0/lob2/record4.bin.${p}`,
    identity: { schema: 0, table: 0, column: 2, row: 5, part: p },
    size: 1,
    checksum: md5(Buffer.from(p)),
  }));
  await writeMetsIndex(folderSink(root), {
    objId: 'obj',
    checksumType: 'MD5',
    siard: { path: 'db.siard', size: 0, checksum: md5(Buffer.alloc(0)) },
    files: parts,
  });
  const files = parts.map((p) => path.join(root, p.segment, 'mets.xml'));
  const dump = pythonDump(files);
  t.deepEqual(
    files.map((f) => dump[f]!.files.map((e) => [e.attrs.ID, e.attrs.OWNERID])),
    [[['s0.t0.c2.r5.p0', 's0.t0.c2.r5']], [['s0.t0.c2.r5.p1', 's0.t0.c2.r5']], [['s0.t0.c2.r5.pz', 's0.t0.c2.r5']]],
  );
});

test('bad input is refused and the files already opened are aborted', async (t) => {
  const root = tempDir('siard-ocfl-mets-bad-');
  const rec = (n: number, over: Partial<MetsLobRecord> = {}): MetsLobRecord => ({
    segment: `db_lobseg_${n}`,
    path: `content/schema0/table0/lob1/record${n}.bin`,
    identity: { schema: 0, table: 0, column: 1, row: n + 1 },
    size: 1,
    checksum: md5(Buffer.from([n])),
    ...over,
  });
  const cases: Array<[MetsLobRecord[], RegExp]> = [
    [[rec(0), rec(1, { checksum: 'ABC' })], /not 32 lower-case hex/],
    [[rec(0), rec(0)], /listed twice/],
    [[rec(0), rec(1, { segment: 'db_lobseg_0', path: 'other.bin' })], /ID "s0\.t0\.c1\.r2" would appear twice|ID .* twice/],
    [[rec(0, { path: '../escape.bin' })], /not a usable/],
    [[rec(0, { segment: '/abs' })], /not a usable segment/],
    [[rec(0, { size: -1 })], /not a byte count/],
    [[rec(0, { identity: { schema: 0, table: 0, column: 0, row: 1 } })], /column and row from 1/],
  ];
  // Make the third case a genuine duplicate identity in one segment.
  cases[2]![0][1]!.identity = { schema: 0, table: 0, column: 1, row: 1 };
  for (const [records, message] of cases) {
    const dir = await fsp.mkdtemp(path.join(root, 'case-'));
    const sink = folderSink(dir);
    await t.throwsAsync(
      writeMetsIndex(sink, {
        objId: 'o',
        checksumType: 'MD5',
        siard: { path: 'db.siard', size: 0, checksum: md5(Buffer.alloc(0)) },
        files: records,
      }),
      { message },
    );
    t.deepEqual(await listFiles(dir), [], 'nothing half-written is left');
  }
});

// 20,000 files (a child METS of some 7 MB, many times the 128 KiB bound) in npm test, 100,000 in the bench.
const BIG_CHILD = repetitions(20_000, 100_000);

test(`a child of ${BIG_CHILD} files is written in bounded chunks and read back streaming`, async (t) => {
  const root = tempDir('siard-ocfl-mets-big-');
  const N = BIG_CHILD;
  let chunks = 0;
  let largest = 0;
  const sink: MetsOutputSink = {
    async openFile(relPath) {
      const full = path.join(root, ...relPath.split('/'));
      await fsp.mkdir(path.dirname(full), { recursive: true });
      const handle = await fsp.open(full, 'wx');
      return {
        async write(chunk: Uint8Array) {
          chunks++;
          largest = Math.max(largest, chunk.length);
          await handle.write(chunk);
        },
        close: () => handle.close(),
        abort: () => handle.close(),
      };
    },
  };
  function* records(): Generator<MetsLobRecord> {
    for (let n = 0; n < N; n++) {
      yield {
        segment: 'big_lobseg_0',
        path: `content/schema0/table0/lob1/record${n}.bin`,
        identity: { schema: 0, table: 0, column: 1, row: n + 1 },
        size: n,
        checksum: createHash('md5').update(String(n)).digest('hex'),
      };
    }
  }
  const written = await writeMetsIndex(sink, {
    objId: 'big',
    checksumType: 'MD5',
    siard: { path: 'big.siard', size: 0, checksum: md5(Buffer.alloc(0)) },
    files: records(),
  });
  const childFile = path.join(root, 'big_lobseg_0', 'mets.xml');
  const stat = await fsp.stat(childFile);
  t.is(written.children[0]!.size, stat.size);
  t.true(largest < 128 * 1024, `largest chunk ${largest} bytes`);
  t.true(chunks > stat.size / (128 * 1024), `${chunks} chunks for ${stat.size} bytes`);
  t.true(xmllintWellFormed([childFile]).ok);
  const { createReadStream } = await import('node:fs');
  const parsed = await parseMets(createReadStream(childFile, { highWaterMark: 16 * 1024 }), childFile);
  t.is(parsed.files.length, N);
  t.is(parsed.files[N - 1]!.id, `s0.t0.c1.r${N}`);
  t.is(
    parsed.files[N - 1]!.checksum,
    createHash('md5')
      .update(String(N - 1))
      .digest('hex'),
  );
  t.is(parsed.structMaps[0]!.fptrs.length, N);
  t.log(`child METS of ${N} files: ${stat.size} bytes in ${chunks} chunks`);
});

test('LOB paths of both layouts give segment, inner path and cell; other paths give nothing', async (t) => {
  const { lobPathInfo } = await import('../../src/siard/mets/index.js');
  t.deepEqual(lobPathInfo('Northwind_lobseg_0/content/schema0/table2/lob4/record0.bin'), {
    segment: 'Northwind_lobseg_0',
    path: 'content/schema0/table2/lob4/record0.bin',
    identity: { schema: 0, table: 2, column: 4, row: 1 },
  });
  t.deepEqual(lobPathInfo('N_lobseg_12/content/schema1/table0/lob2/record9.txt.z')?.identity, {
    schema: 1,
    table: 0,
    column: 2,
    row: 10,
    part: 'z',
  });
  t.deepEqual(lobPathInfo('N_lobs/s0_t3_c2/seg_4/t3_c2_r7.bin_part002'), {
    segment: 'N_lobs/s0_t3_c2/seg_4',
    path: 't3_c2_r7.bin_part002',
    identity: { schema: 0, table: 3, column: 2, row: 7, part: '002' },
  });
  for (const other of [
    'Northwind.siard',
    'mets.xml',
    'Northwind_lobseg_0/mets.xml',
    'x/Northwind_lobseg_0/content/schema0/table2/lob4/record0.bin',
    'N_lobseg_0/content/schema0/table2/lob0/record0.bin',
    'N_lobs/s0_t3_c2/seg_4/t9_c2_r7.bin',
  ]) {
    t.is(lobPathInfo(other), undefined, other);
  }
});

test('an archive without external LOBs gets a parent with no children; a repeated file ID is reported', async (t) => {
  const root = tempDir('siard-ocfl-mets-empty-');
  await fsp.writeFile(path.join(root, 'db.siard'), 'zip');
  const written = await writeMetsIndex(folderSink(root), {
    objId: 'o',
    checksumType: 'SHA-1',
    siard: { path: 'db.siard', size: 3, checksum: createHash('sha1').update('zip').digest('hex') },
    files: [],
  });
  t.deepEqual(written.children, []);
  t.deepEqual(await listFiles(root), ['db.siard', 'mets.xml']);
  t.true(xmllintWellFormed([path.join(root, 'mets.xml')]).ok);
  const dump = pythonDump([path.join(root, 'mets.xml')]);
  t.deepEqual(
    dump[path.join(root, 'mets.xml')]!.files.map((f) => f.use),
    [null],
  );
  const facts = folderFacts(root);
  const open = (p: string) => fsp.readFile(path.join(root, p)).catch(() => undefined);
  t.deepEqual(await auditMetsIndex({ parentPath: 'mets.xml', open, facts, presentFiles: await listFiles(root) }), []);

  // A hand-edited child with the same ID on two files.
  const nw = await makeNorthwind();
  await writeIndex(nw);
  const c0 = path.join(nw.root, 'Northwind_lobseg_0', 'mets.xml');
  await fsp.writeFile(c0, readFileSync(c0, 'utf8').replace('ID="s0.t2.c4.r2"', 'ID="s0.t2.c4.r1"'));
  const codes = codesAt(await audit(nw));
  t.true(codes.includes('METS_DUPLICATE Northwind_lobseg_0/mets.xml'));
});

test('checkMetsIndex on parsed documents (a Map of children) finds what the streaming audit finds', async (t) => {
  const { checkMetsIndex } = await import('../../src/siard/mets/index.js');
  const nw = await makeNorthwind();
  await writeIndex(nw);
  await fsp.writeFile(path.join(nw.root, nw.lobPaths[3]!), Buffer.alloc(SIZES[3]!)); // same size, zeros
  const read = (p: string) => parseMets(readFileSync(path.join(nw.root, p)), p);
  const children = new Map<string, Awaited<ReturnType<typeof parseMets>>>();
  for (const h of [0, 1, 2]) children.set(`Northwind_lobseg_${h}/mets.xml`, await read(`Northwind_lobseg_${h}/mets.xml`));
  const findings = await checkMetsIndex({
    parentPath: 'mets.xml',
    parent: await read('mets.xml'),
    children,
    facts: folderFacts(nw.root),
    presentFiles: await listFiles(nw.root),
    referencedFiles: nw.lobPaths,
  });
  t.deepEqual(codesAt(findings), [`METS_CHECKSUM_MISMATCH ${nw.lobPaths[3]}`]);
  t.deepEqual(findings, await audit(nw));
});

test(
  'a parent METS written again for a new .siard: same bytes but SIZE, CHECKSUM and LASTMODDATE; ' + 'a parent in another form is refused',
  async (t) => {
    const options = {
      objId: 'urn:x & <y>',
      checksumType: 'MD5' as const,
      siard: { path: 'Northwind.siard', size: 100, checksum: md5(Buffer.from('old')) },
      children: [0, 1, 2].map((h) => ({ segment: `Northwind_lobseg_${h}`, size: 1000 + h, checksum: md5(Buffer.from(String(h))) })),
      createDate: new Date('2024-05-06T07:08:09Z'),
      agentName: 'Some <tool> & co',
    };
    const out = new BufferWriter();
    await writeParentMets(out, options);
    const old = out.bytes();
    const plan = await planParentMetsUpdate(old, 'mets.xml');
    t.is(plan.siardPath, 'Northwind.siard');
    t.is(plan.children, 3);
    const updated = await writeUpdatedParentMets(plan, { size: 123, checksum: md5(Buffer.from('new')) }, new Date('2025-01-02T03:04:05Z'));
    const text = updated.bytes.toString('utf8');
    t.is(updated.size, updated.bytes.length);
    t.is(updated.checksum, md5(updated.bytes));
    t.is(
      text,
      old
        .toString('utf8')
        .replace('CREATEDATE="2024-05-06T07:08:09Z"', 'CREATEDATE="2024-05-06T07:08:09Z" LASTMODDATE="2025-01-02T03:04:05Z"')
        .replace(`CHECKSUM="${md5(Buffer.from('old'))}" SIZE="100"`, `CHECKSUM="${md5(Buffer.from('new'))}" SIZE="123"`),
    );
    // Written again (a second relocation): the LASTMODDATE is read back and replaced.
    const again = await writeUpdatedParentMets(
      await planParentMetsUpdate(updated.bytes, 'mets.xml'),
      { size: 7, checksum: md5(Buffer.from('x')) },
      new Date('2026-01-01T00:00:00Z'),
    );
    t.regex(again.bytes.toString('utf8'), /CREATEDATE="2024-05-06T07:08:09Z" LASTMODDATE="2026-01-01T00:00:00Z"/);
    // Anything the writer would not reproduce is refused, not dropped.
    const foreign = old.toString('utf8').replace('<mets:fileSec>', '<!-- hand edit --><mets:fileSec>');
    await t.throwsAsync(planParentMetsUpdate(Buffer.from(foreign), 'mets.xml'), {
      instanceOf: ParentMetsNotUpdatable,
      message: /not in the form this tool writes/,
    });
    const sha1 = old.toString('utf8').replace('CHECKSUMTYPE="MD5" CHECKSUM', 'CHECKSUMTYPE="CRC32" CHECKSUM');
    await t.throwsAsync(planParentMetsUpdate(Buffer.from(sha1), 'mets.xml'), { instanceOf: ParentMetsNotUpdatable, message: /CRC32/ });
  },
);
