/**
 * `--mets` during a real export: the Northwind fixture exported by writeSiard through a
 * MetsIndexingSink around a DirectorySink (limits 4 files / 45,000 bytes, as the seeds' example).
 * The METS files are read with python3's xml.etree, the cells with the test's own table-XML reader,
 * digests computed here with node:crypto.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fsp, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { buildNorthwind, CATEGORIES } from '../../fixtures/northwind.js';
import { DirectorySink } from '../../src/siard/output-sink.js';
import { writeSiard } from '../../src/siard/writer.js';
import { SqliteSource } from '../../src/sources/sqlite/sqlite-source.js';
import { auditMetsIndex, lobPathInfo, MetsIndexingSink, type MetsChecksumType } from '../../src/siard/mets/index.js';
import { readTableXml, unzipEntry } from '../helpers/export-support.js';
import { tempDir } from '../helpers/tmp.js';

const work = tempDir('siard-ocfl-mets-export-');
const northwind = path.join(work, 'northwind.db');
buildNorthwind(northwind);

const PY_DUMP = String.raw`
import json, sys, xml.etree.ElementTree as ET
M = '{http://www.loc.gov/METS/}'
out = {}
for p in sys.argv[1:]:
    root = ET.parse(p).getroot()
    files = []
    def walk(grp, use):
        for el in grp:
            if el.tag == M + 'fileGrp': walk(el, el.get('USE', use))
            elif el.tag == M + 'file':
                files.append({'use': use, 'attrs': dict(el.attrib),
                              'href': [f.get('{http://www.w3.org/1999/xlink}href') for f in el.findall(M + 'FLocat')]})
    for sec in root.findall(M + 'fileSec'): walk(sec, None)
    out[p] = {'tag': root.tag, 'objid': root.get('OBJID'), 'files': files,
              'mptrs': [m.get('{http://www.w3.org/1999/xlink}href') for m in root.iter(M + 'mptr')]}
print(json.dumps(out))
`;
import { metsSchemaErrors } from '../helpers/mets-schema.js';
interface PyMets {
  tag: string;
  objid: string;
  files: Array<{ use: string | null; attrs: Record<string, string>; href: string[] }>;
  mptrs: string[];
}
function pythonDump(files: string[]): Record<string, PyMets> {
  const r = spawnSync('python3', ['-c', PY_DUMP, ...files], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as Record<string, PyMets>;
}

function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

const NODE: Record<string, string> = { MD5: 'md5', 'SHA-1': 'sha1', 'SHA-256': 'sha256' };
const digestOfFile = (root: string, p: string, type: string) =>
  createHash(NODE[type]!)
    .update(readFileSync(path.join(root, p)))
    .digest('hex');

async function exportWithMets(out: string, lobLayout: 'lobseg' | 'siard22', digest: MetsChecksumType & ('MD5' | 'SHA-1' | 'SHA-256')) {
  const sink = new DirectorySink(out);
  const indexing = new MetsIndexingSink(sink, { objId: 'urn:example:northwind', checksumType: digest });
  const source = SqliteSource.open(northwind);
  try {
    const summary = await writeSiard(source, indexing, { name: 'Northwind', maxFiles: 4, maxBytes: 45000, lobDigest: digest, lobLayout });
    const index = await indexing.finishIndex();
    await sink.commit();
    return { summary, index, lobFiles: indexing.lobFiles };
  } catch (err) {
    await indexing.abort();
    throw err;
  } finally {
    await source.close();
  }
}

/** Every LOB file (parts included) that some cell of the archive references, from the table XML. */
function referencedFiles(out: string, lobFiles: string[]): string[] {
  const siard = path.join(out, 'Northwind.siard');
  const names = spawnSync('python3', ['-c', 'import sys,zipfile;print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))', siard], {
    encoding: 'utf8',
  })
    .stdout.split('\n')
    .filter((n) => /^content\/schema\d+\/table\d+\/table\d+\.xml$/.test(n));
  const cellFiles = new Set<string>();
  for (const name of names) {
    for (const row of readTableXml(unzipEntry(siard, name).toString('utf8'))) {
      for (const cell of row.values()) if (cell.attrs.file) cellFiles.add(decodeURIComponent(cell.attrs.file));
    }
  }
  // A split LOB's cell names the unsplit file in the folder of its first part; the parts are that
  // name plus a part suffix, in the following folders too. Compare paths inside the segment.
  const inner = (f: string) => lobPathInfo(f)?.path ?? f;
  const cellInner = new Set([...cellFiles].map(inner));
  return lobFiles.filter((f) => cellFiles.has(f) || cellInner.has(inner(f).replace(/(\.(\d+|z)|_part\d{3,})$/, '')));
}

test('Northwind export with --mets (lobseg, MD5): one parent, a child per segment, the seed records in the first three', async (t) => {
  const out = path.join(work, 'lobseg');
  const { summary, index } = await exportWithMets(out, 'lobseg', 'MD5');
  const all = filesUnder(out);
  const segments = [...new Set(all.filter((f) => f.includes('_lobseg_')).map((f) => f.split('/')[0]!))].sort(
    (a, b) => Number(a.split('_').pop()) - Number(b.split('_').pop()),
  );
  t.is(segments.length, summary.segments);
  t.true(segments.length >= 3);
  t.deepEqual(
    index.children.map((c) => c.segment),
    segments,
  );

  const parentFile = path.join(out, 'mets.xml');
  const childFiles = segments.map((s) => path.join(out, s, 'mets.xml'));
  t.is(metsSchemaErrors([parentFile, ...childFiles]), '', 'valid against the METS 1.12 schema');
  const dump = pythonDump([parentFile, ...childFiles]);

  const parent = dump[parentFile]!;
  t.is(parent.tag, '{http://www.loc.gov/METS/}mets');
  t.is(parent.objid, 'urn:example:northwind');
  const siardEntry = parent.files.find((f) => f.use !== 'child IP')!;
  t.is(siardEntry.href[0], 'Northwind.siard');
  t.is(siardEntry.attrs.CHECKSUM, digestOfFile(out, 'Northwind.siard', 'MD5'));
  t.is(siardEntry.attrs.SIZE, String(readFileSync(path.join(out, 'Northwind.siard')).length));
  const childEntries = parent.files.filter((f) => f.use === 'child IP');
  t.deepEqual(
    childEntries.map((e) => [e.href[0], e.attrs.CHECKSUM]),
    segments.map((s) => [`${s}/mets.xml`, digestOfFile(out, `${s}/mets.xml`, 'MD5')]),
  );
  t.deepEqual(
    parent.mptrs,
    childEntries.map((e) => e.attrs.ID),
  );

  // Each child lists exactly the files of its folder, with their real sizes and digests.
  segments.forEach((s, h) => {
    const child = dump[childFiles[h]!]!;
    t.is(child.objid, childEntries[h]!.attrs.ID);
    t.deepEqual(child.mptrs, ['urn:example:northwind']);
    const inFolder = all.filter((f) => f.startsWith(`${s}/`) && f !== `${s}/mets.xml`).map((f) => f.slice(s.length + 1));
    t.deepEqual(child.files.map((f) => decodeURIComponent(f.href[0]!)).sort(), inFolder);
    for (const f of child.files) {
      const p = `${s}/${decodeURIComponent(f.href[0]!)}`;
      t.is(f.attrs.SIZE, String(readFileSync(path.join(out, p)).length), p);
      t.is(f.attrs.CHECKSUM, digestOfFile(out, p, 'MD5'), p);
    }
  });

  // The first three children are the seed's: the Categories pictures with the cell digests.
  const cells = readTableXml(unzipEntry(path.join(out, 'Northwind.siard'), 'content/schema0/table2/table2.xml').toString('utf8'));
  const folderOf = [0, 0, 0, 0, 1, 1, 1, 2];
  for (let h = 0; h < 2; h++) {
    const rows = folderOf.flatMap((f, n) => (f === h ? [n] : []));
    t.deepEqual(
      dump[childFiles[h]!]!.files.map((f) => [
        f.attrs.ID,
        f.attrs.OWNERID,
        f.attrs.SIZE,
        f.attrs.CHECKSUMTYPE,
        f.attrs.CHECKSUM,
        f.href[0],
      ]),
      rows.map((n) => [
        `s0.t2.c4.r${n + 1}`,
        `s0.t2.c4.r${n + 1}`,
        String(CATEGORIES[n]![3]),
        'MD5',
        cells[n]!.get(4)!.attrs.digest,
        `content/schema0/table2/lob4/record${n}.bin`,
      ]),
    );
  }
  const third = dump[childFiles[2]!]!.files[0]!;
  t.deepEqual(
    [third.attrs.ID, third.attrs.SIZE, third.attrs.CHECKSUM],
    ['s0.t2.c4.r8', String(CATEGORIES[7]![3]), cells[7]!.get(4)!.attrs.digest],
  );

  // And our checker, given the folder and the cells, finds nothing to report.
  const lobFiles = all.filter((f) => lobPathInfo(f) !== undefined);
  const findings = await auditMetsIndex({
    parentPath: 'mets.xml',
    open: (p) => fsp.readFile(path.join(out, p)).catch(() => undefined),
    facts: {
      size: (p) =>
        fsp.stat(path.join(out, p)).then(
          (s) => s.size,
          () => undefined,
        ),
      digest: (p, type) => digestOfFile(out, p, type),
    },
    presentFiles: filesUnder(out),
    referencedFiles: referencedFiles(out, lobFiles),
  });
  t.deepEqual(findings, []);
});

test('Northwind export with --mets (siard22 layout, SHA-256): a child per seg_ folder, checker clean', async (t) => {
  const out = path.join(work, 'siard22');
  const { index, lobFiles } = await exportWithMets(out, 'siard22', 'SHA-256');
  const all = filesUnder(out);
  const segFolders = [
    ...new Set(all.filter((f) => f.startsWith('Northwind_lobs/') && !f.endsWith('/mets.xml')).map((f) => path.posix.dirname(f))),
  ].sort();
  t.deepEqual(index.children.map((c) => c.segment).sort(), segFolders);
  t.is(
    index.children.reduce((n, c) => n + c.fileCount, 0),
    lobFiles,
  );
  const metsFiles = ['mets.xml', ...segFolders.map((s) => `${s}/mets.xml`)].map((p) => path.join(out, p));
  t.is(metsSchemaErrors(metsFiles), '', 'valid against the METS 1.12 schema');
  const dump = pythonDump(metsFiles);
  for (const s of segFolders) {
    for (const f of dump[path.join(out, s, 'mets.xml')]!.files) {
      const p = `${s}/${decodeURIComponent(f.href[0]!)}`;
      t.is(f.attrs.CHECKSUMTYPE, 'SHA-256');
      t.is(f.attrs.CHECKSUM, digestOfFile(out, p, 'SHA-256'), p);
    }
  }
  const findings = await auditMetsIndex({
    parentPath: 'mets.xml',
    open: (p) => fsp.readFile(path.join(out, p)).catch(() => undefined),
    facts: {
      size: (p) =>
        fsp.stat(path.join(out, p)).then(
          (s) => s.size,
          () => undefined,
        ),
      digest: (p, type) => digestOfFile(out, p, type),
    },
    presentFiles: all,
  });
  t.deepEqual(findings, []);
});

test('a failed export leaves no METS file behind', async (t) => {
  const out = path.join(work, 'failed');
  const sink = new DirectorySink(out);
  const indexing = new MetsIndexingSink(sink, { objId: 'x', checksumType: 'MD5' });
  const source = SqliteSource.open(northwind);
  try {
    // The METS index refuses a second .siard: the export fails part-way.
    const file = await indexing.openFile('Other.siard');
    await file.write(Buffer.from('x'));
    await file.close();
    await t.throwsAsync(writeSiard(source, indexing, { name: 'Northwind', maxFiles: 4, maxBytes: 45000, lobDigest: 'MD5' }), {
      message: /Two \.siard files/,
    });
  } finally {
    await source.close();
  }
  await indexing.abort();
  t.deepEqual(await fsp.readdir(out).catch(() => []), []);
});
