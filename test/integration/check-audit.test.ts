/**
 * `audit` runs check's code for what the two share (one implementation): an ingested object
 * broken in six ways at once (a LOB file's bytes changed, a LOB file and a part of a split LOB
 * removed from the version, a cell's length, a table's <rows>, metadata.xml invalid, an unsafe ZIP
 * entry name, all rewritten by python's zipfile so the messageDigest no longer matches) is checked
 * by `check --root --id` and audited, both in this process. For every requirement id the audit
 * reports, it gives exactly the findings check gives for that id: the same sentences, after the
 * cell's or archive's place, under the audit's own codes (OCFL codes beside them unchanged).
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { audit } from '../../src/archive/audit.js';
import { openRoot } from '../../src/ocfl/root.js';
import { contentPaths, ingestNorthwind, readInventory } from '../helpers/archive-support.js';

const PICTURE_3 = 'Northwind_lobseg_0/content/schema0/table2/lob4/record2.bin';
/** the ids the audit judges with check's code */
const SHARED = ['T_6.4-5', 'S_8.1.1-0', 'P_4.3-10', 'M_5.0-1', 'M_5.1-1', 'P_4.2-6'];
/** the audit's code for each kind of finding, by id */
const CODES: Record<string, string[]> = {
  'T_6.4-5': ['LOB_DIGEST', 'LOB_LENGTH', 'LOB_MISSING'],
  'S_8.1.1-0': ['LOB_SPLIT_INCOMPLETE'],
  'P_4.3-10': ['SIARD_ROWS'],
  'M_5.0-1': ['SIARD_METADATA_XSD'],
  'M_5.1-1': ['SIARD_MESSAGE_DIGEST'],
  'P_4.2-6': ['SIARD_ZIP_UNSAFE_ENTRY'],
};

const PY_REZIP = `import sys, zipfile, re
src, dst = zipfile.ZipFile(sys.argv[1]), zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED)
for info in src.infolist():
    data = src.read(info)
    if info.filename == 'content/schema0/table2/table2.xml':
        assert b'length="10151"' in data
        data = data.replace(b'length="10151"', b'length="10150"', 1)
    if info.filename == 'header/metadata.xml':
        assert b'<rows>8</rows>' in data and b'<dbname>' in data
        data = data.replace(b'<rows>8</rows>', b'<rows>9</rows>', 1).replace(b'<dbname>', b'<notInTheSchema/><dbname>', 1)
    dst.writestr(info, data)
    if info.filename == 'content/schema0/table2/table2.xml':
        dst.writestr('content/../escape.txt', b'outside')
dst.close()`;

async function checkObject(root: string, id: string) {
  // loaded when first used: libxml2-wasm starts with a top-level await
  return (await import('../../src/archive/check-object.js')).checkObject(root, id);
}

test('audit and check --root report the shared ids with the same findings', async (t) => {
  const base = await ingestNorthwind();
  const inv = readInventory(base.objectDir);
  const content = contentPaths(inv);
  const picture = path.join(base.objectDir, content.get(PICTURE_3)!);
  const bytes = readFileSync(picture);
  bytes[100] = bytes[100]! ^ 0x01;
  writeFileSync(picture, bytes);
  const altered = path.join(base.dir, 'Northwind.siard');
  execFileSync('python3', ['-c', PY_REZIP, path.join(base.objectDir, content.get('Northwind.siard')!), altered]);
  const splitPart = [...content.keys()].find((p) => /\/table4\/lob7\/record1\.bin\.5$/.test(p))!;
  const picture5 = [...content.keys()].find((p) => /\/table2\/lob4\/record4\.bin$/.test(p))!;
  const staged = await (await openRoot(base.root)).startVersion(base.id, { fixityAlgorithms: ['sha256'] });
  await staged.addFile('Northwind.siard', altered);
  await staged.remove(picture5);
  await staged.remove(splitPart);
  await staged.commit({ message: 'broken six ways', user: { name: 'test' } });

  const checked = await checkObject(base.root, base.id);
  const audited = await audit(base.root, { ids: [base.id] });
  t.false(checked.ok);
  t.false(audited.ok);
  // the OCFL side keeps its codes: the changed file's manifest digest
  t.true(audited.findings.some((f) => f.code === 'E092' && f.message.includes(PICTURE_3)));

  // check says each schema error of metadata.xml under M_5.0-1 and again under its level (M_5.1-1 ...); the audit once, under M_5.0-1
  const schemaErrors = new Set(checked.requirements.find((r) => r.id === 'M_5.0-1')!.findings.map((f) => f.message));
  for (const id of SHARED) {
    const q = checked.requirements.find((r) => r.id === id)!;
    t.is(q.status, 'failed', `check fails ${id}`);
    const fromCheck = q.findings
      .map((f) => f.message)
      .filter((m) => id === 'M_5.0-1' || !schemaErrors.has(m))
      .sort();
    const fromAudit = audited.findings.filter((f) => f.requirement === id);
    t.true(fromAudit.length > 0, `audit reports ${id}`);
    for (const f of fromAudit) t.true(CODES[id]!.includes(f.code), `${id} under ${f.code}`);
    // each audit finding is "<place>: <check's sentence>", and every sentence of check is there
    const sentences = fromAudit.map((f) => fromCheck.find((m) => f.message.endsWith(`: ${m}`)) ?? `(none for ${f.message})`).sort();
    t.deepEqual(sentences, fromCheck, id);
  }
  // what each shared finding says, spot-checked against the break
  const said = (code: string) => audited.findings.filter((f) => f.code === code).map((f) => f.message);
  t.regex(said('LOB_LENGTH')[0]!, /record0\.bin has 10151 bytes, but the cell says length 10150\.$/);
  t.regex(said('LOB_DIGEST')[0]!, new RegExp(`${PICTURE_3} has SHA-256 [0-9a-f]{64}, but the cell says [0-9a-f]{64}\\.$`));
  t.regex(said('LOB_MISSING')[0]!, new RegExp(`is missing: nothing at ${picture5}\\.$`));
  t.regex(said('SIARD_ROWS')[0]!, /has 8 rows in content\/schema0\/table\d+\/table\d+\.xml, but metadata\.xml says <rows>9<\/rows>\.$/);
  t.regex(said('SIARD_METADATA_XSD')[0]!, /notInTheSchema/);
  t.regex(said('SIARD_ZIP_UNSAFE_ENTRY')[0]!, /"content\/\.\.\/escape\.txt" is not allowed/);
});
