/**
 * The ZIP container and the folder structure inside it: compression methods (G_4.1-2), no
 * encryption (G_4.1-3), ZIP32/ZIP64 (G_4.1-4), the extension (G_4.1-5), entry names (P_4.2-6),
 * the root, content/ and table folders (P_4.2-1 ... P_4.2-5), the metadata's structure against
 * content/ (P_4.3-1), a schema and a data file per table (T_6.1-1, T_6.4-1).
 */
import path from 'node:path';
import type { SiardReader } from '../reader/siard-reader.js';
import type { ZipEntry } from '../zip/reader.js';
import type { CheckReport } from './report.js';

const MAX_UINT32 = 0xffffffff;
const NAME = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)?$/;
/** a part of a table file split across segments of a segmented SIARD file (seed S_8.6-0) */
const TABLE_PART = /^table\d+\.xml\.(\d+|z)$/;

export function checkZipEntries(entries: readonly ZipEntry[], report: CheckReport): void {
  report.applies('G_4.1-1', 'G_4.1-2', 'G_4.1-3', 'G_4.1-4', 'P_4.2-6');
  let zip64 = false;
  for (const e of entries) {
    const where = { entry: e.name };
    if (e.compressionMethod !== 0 && e.compressionMethod !== 8) {
      report.fail(
        'G_4.1-2',
        `Entry ${e.name} is compressed with method ${e.compressionMethod}; SIARD allows only stored (0) or deflate (8).`,
        where,
      );
    }
    if (e.encrypted)
      report.fail('G_4.1-3', `Entry ${e.name} is encrypted; a SIARD file must not be password-protected or encrypted.`, where);
    if (e.unsafeReason !== null) report.fail('P_4.2-6', `Entry name ${JSON.stringify(e.name)} is not allowed: ${e.unsafeReason}.`, where);
    if (e.compressedSize > MAX_UINT32 || e.uncompressedSize > MAX_UINT32 || e.localHeaderOffset > MAX_UINT32) zip64 = true;
  }
  if (zip64 || entries.length > 0xffff) report.note('G_4.1-4', 'The archive is a ZIP64 archive (its sizes or entry count need it).');
}

export function checkExtension(file: string, report: CheckReport): void {
  report.applies('G_4.1-5');
  const base = path.basename(file);
  if (!/\.siard$/i.test(base) && !/\.siard\.(\d+|z)$/i.test(base)) {
    report.fail('G_4.1-5', `The archive is named ${base}; a SIARD file has the extension .siard.`, { entry: base });
  }
}

function checkNames(names: readonly string[], segmented: boolean, report: CheckReport): void {
  for (const name of names) {
    for (const part of name.split('/').filter((p) => p !== '')) {
      if (NAME.test(part)) continue;
      if (segmented && TABLE_PART.test(part)) continue;
      if (/^\d+\.\d+$/.test(part) && name.startsWith('header/siardversion/')) continue; // the version folder P_4.2-4 prescribes
      report.fail(
        'P_4.2-6',
        `The name "${part}" in ${name} does not start with a letter or uses characters other than ` +
          'a-z A-Z 0-9 _ and one "." before the extension.',
        {
          entry: name,
        },
      );
      break;
    }
  }
}

/** Entry names relative to the SIARD root (directory entries end with '/'). */
function namesOf(reader: SiardReader): string[] {
  const out: string[] = [];
  for (const e of reader.zip.entries) {
    if (e.unsafeReason !== null && e.unsafeReason !== 'the name occurs twice in the archive') continue;
    if (!e.name.startsWith(reader.root)) {
      out.push(`/${e.name}`); // outside the SIARD root: reported by P_4.2-1
      continue;
    }
    out.push(e.name.slice(reader.root.length));
  }
  return out;
}

function checkRoot(reader: SiardReader, names: string[], report: CheckReport): void {
  report.applies('P_4.2-1');
  if (reader.root !== '') {
    report.fail('P_4.2-1', `content/ and header/ are inside the folder ${reader.root} instead of at the root of the ZIP archive.`, {
      entry: reader.root,
    });
  }
  const bad = new Set<string>();
  for (const n of names) {
    const top = n.startsWith('/') ? n.slice(1).split('/')[0]! : n.split('/')[0]!;
    if (top === '' || (n.startsWith('/') && `${n.slice(1)}` === reader.root)) continue;
    if (n.startsWith('/') || (top !== 'content' && top !== 'header')) bad.add(n.startsWith('/') ? n.slice(1) : n);
  }
  for (const b of [...bad].slice(0, 20)) {
    if (reader.root !== '' && b.startsWith(reader.root)) continue;
    report.fail('P_4.2-1', `The root of the archive holds ${b}; only content/ and header/ are allowed there.`, { entry: b });
  }
}

function checkHeader(names: string[], report: CheckReport): void {
  report.applies('P_4.2-4', 'P_4.2-5');
  const set = new Set(names);
  if (!set.has('header/siardversion/2.2/')) {
    const other = names.find((n) => /^header\/siardversion\/[^/]+\/$/.test(n));
    report.fail(
      'P_4.2-4',
      other
        ? `The archive has ${other} but not the empty folder header/siardversion/2.2/ (it is not marked as SIARD 2.2).`
        : 'The empty folder header/siardversion/2.2/ is missing.',
      { entry: 'header/siardversion/2.2/' },
    );
  } else if (names.some((n) => n.startsWith('header/siardversion/2.2/') && n !== 'header/siardversion/2.2/')) {
    report.fail('P_4.2-4', 'header/siardversion/2.2/ is not empty.', { entry: 'header/siardversion/2.2/' });
  }
  for (const f of ['header/metadata.xml', 'header/metadata.xsd']) {
    if (!set.has(f)) report.fail('P_4.2-5', `${f} is missing.`, { entry: f });
  }
}

function checkContent(reader: SiardReader, names: string[], segmented: boolean, report: CheckReport): void {
  report.applies('P_4.2-2', 'P_4.2-3', 'P_4.3-1', 'T_6.1-1', 'T_6.4-1');
  const expected = new Set<string>();
  const present = new Set<string>();
  for (const t of reader.tables()) {
    const folder = `${t.schema.folder}/${t.table.folder}`;
    expected.add(folder);
    const base = `content/${folder}/${t.table.folder}`;
    const where = { entry: `content/${folder}/`, table: `${t.schema.name}.${t.table.name}` };
    const has = (n: string) =>
      reader.zip.entry(reader.root + n) !== undefined || (segmented && reader.zip.entry(reader.root + n) !== undefined);
    if (!has(`${base}.xsd`))
      report.fail('T_6.1-1', `Table ${where.table} has no XML schema ${base}.xsd.`, { ...where, entry: `${base}.xsd` });
    if (!has(`${base}.xml`))
      report.fail('T_6.4-1', `Table ${where.table} has no data file ${base}.xml.`, { ...where, entry: `${base}.xml` });
  }
  for (const n of names) {
    if (!n.startsWith('content/')) continue;
    const parts = n.slice('content/'.length).split('/');
    const isDir = n.endsWith('/');
    if (isDir) parts.pop();
    if (parts.length === 0 || parts[0] === '') continue;
    if (parts.length === 1 && !isDir)
      report.fail('P_4.2-2', `content/ holds the file ${parts[0]}; only schema folders are allowed there.`, { entry: n });
    if (parts.length === 2 && !isDir)
      report.fail('P_4.2-2', `The schema folder content/${parts[0]}/ holds the file ${parts[1]}; only table folders are allowed there.`, {
        entry: n,
      });
    if (parts.length >= 2) present.add(`${parts[0]}/${parts[1]}`);
    if (parts.length === 3 && !isDir) {
      const table = parts[1]!;
      const file = parts[2]!;
      const ok = file === `${table}.xml` || file === `${table}.xsd` || (segmented && new RegExp(`^${table}\\.xml\\.(\\d+|z)$`).test(file));
      if (!ok)
        report.fail(
          'P_4.2-3',
          `Table folder content/${parts[0]}/${table}/ holds ${file}; only ${table}.xml, ${table}.xsd and LOB folders are allowed there.`,
          { entry: n },
        );
    }
  }
  for (const p of present) {
    if (!expected.has(p)) report.fail('P_4.3-1', `content/${p}/ is not a table of metadata.xml.`, { entry: `content/${p}/` });
  }
  for (const e of expected) {
    if (!present.has(e))
      report.fail('P_4.3-1', `metadata.xml describes a table in content/${e}/, which the archive does not have.`, {
        entry: `content/${e}/`,
      });
  }
}

export function checkStructure(reader: SiardReader, segmented: boolean, report: CheckReport): void {
  const names = namesOf(reader);
  checkNames(
    names.filter((n) => !n.startsWith('/')),
    segmented,
    report,
  );
  checkRoot(reader, names, report);
  checkHeader(names, report);
  checkContent(reader, names, segmented, report);
}
