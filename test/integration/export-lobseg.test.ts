/**
 * Acceptance 1-4 of issue 4: the E-ARK Northwind example, splitting, schema validity and the
 * archive messageDigest, checked with independent tools (unzip, python zipfile, xmllint, node:crypto).
 */
import Database from '../../src/sources/sqlite/driver.js';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { exportToDirectory } from '../../src/siard/export-directory.js';
import { SqliteSource } from '../../src/sources/sqlite/sqlite-source.js';
import { buildNorthwind, CATEGORIES, seededBytes } from '../../fixtures/northwind.js';
import { reference, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';
import {
  assertArchiveValid,
  digestOf,
  metadataTables,
  readTableXml,
  sha256OfRange,
  unzipEntry,
  zipEntryNames,
  zipEntryOffset,
} from '../helpers/export-support.js';

const OFFICIAL_XSD = reference('siard', 'metadata.xsd');

async function exportDb(db: string, outDir: string, options: Parameters<typeof exportToDirectory>[2]) {
  const source = SqliteSource.open(db);
  try {
    return await exportToDirectory(source, outDir, options);
  } finally {
    await source.close();
  }
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

const work = tempDir('siard-export-lobseg-');
const northwind = path.join(work, 'northwind.db');
buildNorthwind(northwind);

sharedTest('acceptance 1: the Northwind example with --max-files 4 --max-bytes 45000', async (t) => {
  const out = path.join(work, 'nw1');
  for (const digest of ['SHA-256', 'MD5'] as const) {
    const dir = `${out}-${digest}`;
    await exportDb(northwind, dir, { name: 'Northwind', maxFiles: 4, maxBytes: 45000, lobDigest: digest });
    const lob4 = (h: number) => filesUnder(path.join(dir, `Northwind_lobseg_${h}`, 'content/schema0/table2/lob4'));
    t.deepEqual(lob4(0), ['record0.bin', 'record1.bin', 'record2.bin', 'record3.bin']);
    t.deepEqual(lob4(1), ['record4.bin', 'record5.bin', 'record6.bin']);
    t.deepEqual(lob4(2), ['record7.bin']);
    // Segments 0 and 1 hold nothing else (the pictures are the first LOBs in export order).
    t.deepEqual(
      filesUnder(path.join(dir, 'Northwind_lobseg_0')),
      lob4(0).map((f) => `content/schema0/table2/lob4/${f}`),
    );
    t.deepEqual(
      filesUnder(path.join(dir, 'Northwind_lobseg_1')),
      lob4(1).map((f) => `content/schema0/table2/lob4/${f}`),
    );

    const siard = path.join(dir, 'Northwind.siard');
    const rows = readTableXml(unzipEntry(siard, 'content/schema0/table2/table2.xml').toString('utf8'));
    t.is(rows.length, 8);
    const db = new Database(northwind, { readonly: true });
    const pictures = db.prepare('SELECT Picture FROM Categories ORDER BY CategoryID').pluck().all() as Buffer[];
    db.close();
    const folderOf = [0, 0, 0, 0, 1, 1, 1, 2];
    rows.forEach((row, n) => {
      const [id, name, description, size] = CATEGORIES[n]!;
      t.is(row.get(1)?.text, String(id));
      t.is(row.get(2)?.text, name);
      t.is(row.get(3)?.text, description);
      const c4 = row.get(4)!;
      const file = `Northwind_lobseg_${folderOf[n]}/content/schema0/table2/lob4/record${n}.bin`;
      t.is(c4.attrs.file, file);
      t.is(c4.attrs.length, String(size));
      t.is(c4.attrs.digestType, digest);
      const algorithm = digest === 'MD5' ? 'md5' : 'sha256';
      t.is(c4.attrs.digest, digestOf(algorithm, pictures[n]!), 'digest of the database value');
      t.is(c4.attrs.digest, digestOf(algorithm, seededBytes(1000 + Number(id), Number(size))), 'digest of the fixture bytes');
      t.deepEqual(readFileSync(path.join(dir, file)), pictures[n]!);
    });
    const meta = unzipEntry(siard, 'header/metadata.xml').toString('utf8');
    t.regex(meta, /<lobFolder>\.\.\/<\/lobFolder>/, 'database-level lobFolder ../');
    const table2 = metadataTables(meta)[2]!;
    t.is(table2.name, 'Categories');
    t.is(table2.columns[3]!.lobFolder, './', 'column-level lobFolder ./ on the externalised column');
    t.is(table2.columns[2]!.lobFolder, undefined, 'inline-only columns have no lobFolder');
    assertArchiveValid(t, siard, OFFICIAL_XSD);
  }
});

sharedTest('acceptance 2: a LOB of 2.5 x --max-bytes after three small ones is split .0/.1/.z; later LOBs follow .z', async (t) => {
  const db = path.join(work, 'split.db');
  const maxBytes = 40000;
  const small = [3000, 4000, 5000];
  const bigSize = 2.5 * maxBytes;
  const after = [3000, 3000];
  const sizes = [...small, bigSize, ...after];
  const conn = new Database(db);
  conn.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)');
  const ins = conn.prepare('INSERT INTO t VALUES (?, ?)');
  sizes.forEach((s, i) => ins.run(i + 1, seededBytes(500 + i, s)));
  conn.close();
  const out = path.join(work, 'split-out');
  await exportDb(db, out, { name: 'S', maxFiles: 100, maxBytes });

  const base = 'content/schema0/table0/lob2';
  const part0 = maxBytes - (3000 + 4000 + 5000);
  // Expected layout, derived from the recommendation's rule (not from the code).
  t.deepEqual(filesUnder(path.join(out, 'S_lobseg_0')), [
    `${base}/record0.bin`,
    `${base}/record1.bin`,
    `${base}/record2.bin`,
    `${base}/record3.bin.0`,
  ]);
  t.deepEqual(filesUnder(path.join(out, 'S_lobseg_1')), [`${base}/record3.bin.1`]);
  t.deepEqual(filesUnder(path.join(out, 'S_lobseg_2')), [`${base}/record3.bin.z`, `${base}/record4.bin`, `${base}/record5.bin`]);
  t.false(existsSync(path.join(out, 'S_lobseg_3')));
  t.is(readFileSync(path.join(out, 'S_lobseg_0', base, 'record3.bin.0')).length, part0);
  t.is(readFileSync(path.join(out, 'S_lobseg_1', base, 'record3.bin.1')).length, maxBytes);
  t.is(readFileSync(path.join(out, 'S_lobseg_2', base, 'record3.bin.z')).length, bigSize - part0 - maxBytes);

  const big = seededBytes(503, bigSize);
  const joined = Buffer.concat([
    readFileSync(path.join(out, 'S_lobseg_0', base, 'record3.bin.0')),
    readFileSync(path.join(out, 'S_lobseg_1', base, 'record3.bin.1')),
    readFileSync(path.join(out, 'S_lobseg_2', base, 'record3.bin.z')),
  ]);
  t.true(joined.equals(big), 'joining the parts gives the LOB');
  const rows = readTableXml(unzipEntry(path.join(out, 'S.siard'), 'content/schema0/table0/table0.xml').toString('utf8'));
  const cell = rows[3]!.get(2)!;
  t.is(cell.attrs.file, `S_lobseg_0/${base}/record3.bin`, 'file names the unsplit file in the folder of .0');
  t.is(cell.attrs.length, String(bigSize));
  t.is(cell.attrs.digest, digestOf('sha256', big));
  t.is(rows[4]!.get(2)!.attrs.file, `S_lobseg_2/${base}/record4.bin`);
  assertArchiveValid(t, path.join(out, 'S.siard'), OFFICIAL_XSD);
});

sharedTest('acceptance 4: the archive messageDigest covers bytes 0 .. offset of header/, entries in SIARD order', async (t) => {
  const out = path.join(work, 'md');
  const summary = await exportDb(northwind, out, { name: 'Northwind' });
  const siard = path.join(out, 'Northwind.siard');
  const names = zipEntryNames(siard);
  const header = names.indexOf('header/');
  t.true(header > 0);
  t.true(
    names.slice(0, header).every((n) => n.startsWith('content/')),
    'content/ entries first',
  );
  t.deepEqual(names.slice(header), ['header/', 'header/siardversion/2.2/', 'header/metadata.xsd', 'header/metadata.xml']);
  const offset = zipEntryOffset(siard, 'header/');
  const expected = sha256OfRange(siard, offset);
  const meta = unzipEntry(siard, 'header/metadata.xml').toString('utf8');
  const m = /<messageDigest>\s*<digestType>([^<]*)<\/digestType>\s*<digest>([^<]*)<\/digest>\s*<\/messageDigest>/.exec(meta);
  t.truthy(m, 'metadata.xml has a messageDigest');
  t.is(m![1], 'SHA-256');
  t.is(m![2], expected);
  t.is(summary.messageDigest, expected);
  t.true(unzipEntry(siard, 'header/metadata.xsd').equals(readFileSync(OFFICIAL_XSD)), 'header/metadata.xsd is the official schema');
  assertArchiveValid(t, siard, OFFICIAL_XSD);
});
