/**
 * `check`: one SIARD package against the SIARD 2.2 requirements, by requirement id
 * (requirements.ts). The order: the ZIP container and its names, the folder structure,
 * metadata.xml (XSD, identifiers, URIs, messageDigest), every table (its XSD compared with the
 * metadata, then one read of its XML: XSD windows, shape, values, row count, keys), the keys
 * across tables, the LOB cells against their files, the files around the archive.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { SiardReader, SiardTableRef } from '../reader/siard-reader.js';
import { verifyArchiveMessageDigest, verifyZipMessageDigest } from '../reader/message-digest.js';
import { parseSiardMetadata } from '../reader/metadata.js';
import type { SegmentSetZip } from '../segments/segment-set-zip.js';
import { isSegmentedReader, setProblems } from '../segments/segment-set-reader.js';
import { officialMetadataXsd } from '../writer.js';
import { checkExtension, checkStructure, checkZipEntries } from './container.js';
import { KeyIndex, type KeySpec } from './key-index.js';
import { keySpecs } from './keys.js';
import { LobChecker, type LobCheckOptions } from './lob-checks.js';
import { checkPartNames } from './split-siard.js';
import {
  checkEncoding,
  checkForeignKeyTargets,
  checkIdentifiers,
  checkLobFolders,
  checkMetadataSchema,
  checkMetadataText,
} from './metadata-checks.js';
import type { CheckReport } from './report.js';
import { compareTableXsd, parseTableXsd } from './table-xsd.js';
import { tablePass } from './table-pass.js';
import { fastTablePass } from './table-pass-fast.js';
import { fastXsdProfile } from './fast-xsd.js';
import { messageDigestVerdict, rowCountVerdict } from './verdicts.js';
import { CompiledSchema, loadLibxml2, TableXsdWindows } from './xsd-validator.js';

export interface CheckPackageOptions extends LobCheckOptions {
  /** a local folder holding the package (mapping.txt, split parts, other .siard files); none for an object */
  packageDir?: string;
  /** progress: called after each table */
  onTable?: (table: string, rows: number) => void;
}

async function entryBytes(reader: SiardReader, name: string, max = 256 * 1024 * 1024): Promise<Buffer | undefined> {
  const e = reader.zip.entry(reader.root + name);
  if (!e || e.uncompressedSize > max) return undefined;
  const chunks: Buffer[] = [];
  try {
    for await (const c of (await reader.zip.openStream(e)) as AsyncIterable<Buffer>) chunks.push(c);
  } catch {
    return undefined; // an entry the ZIP reader refuses: said under G_4.1-2 / G_4.1-3
  }
  return Buffer.concat(chunks);
}

async function checkMetadata(reader: SiardReader, report: CheckReport): Promise<void> {
  const xml = await entryBytes(reader, 'header/metadata.xml');
  if (xml) {
    checkEncoding(xml, 'header/metadata.xml', report);
    checkMetadataSchema(xml, officialMetadataXsd(), report);
    checkMetadataText(xml, report);
  }
  if (reader.metadata.siardVersion !== '2.2') {
    report.fail(
      'M_5.0-1',
      `metadata.xml says SIARD version ${reader.metadata.siardVersion || '(none)'}; this check is against SIARD 2.2.`,
      { entry: 'header/metadata.xml' },
    );
  }
  checkIdentifiers(reader.archive, report);
  checkLobFolders(reader.archive, report);
  checkForeignKeyTargets(reader.archive, report);
  if (isSegmentedReader(reader)) return checkSegmentDigests(reader, report);
  const md = await verifyArchiveMessageDigest(reader);
  for (const c of md?.checks ?? []) messageDigestVerdict(report.fail.bind(report), c.digestType, c.expected, c.actual);
}

/**
 * A segmented SIARD file: each segment states its own messageDigest over its own bytes before its
 * header/ (M_5.1-1). A segment whose metadata.xml cannot be read is said under S_8.5-0.
 */
async function checkSegmentDigests(reader: SiardReader & { zip: SegmentSetZip }, report: CheckReport): Promise<void> {
  const name = `${reader.root}header/metadata.xml`;
  for (const m of reader.zip.members) {
    const entry = m.zip.entry(name);
    if (!entry || entry.uncompressedSize > 256 * 1024 * 1024) continue;
    let stated;
    try {
      const chunks: Buffer[] = [];
      for await (const c of (await m.zip.openStream(entry)) as AsyncIterable<Buffer>) chunks.push(c);
      stated = parseSiardMetadata(Buffer.concat(chunks).toString('utf8'), `${m.name}: ${name}`).archive.messageDigests;
    } catch {
      continue;
    }
    const md = await verifyZipMessageDigest(m.zip, reader.root, stated);
    const segment = path.basename(m.name);
    for (const c of md?.checks ?? []) messageDigestVerdict(report.fail.bind(report), c.digestType, c.expected, c.actual, segment);
  }
}

interface TableRead {
  rows: number;
  /** the LOB cells of rows after this one are read again by the LOB checks (undefined: none) */
  lobsAfter?: number;
}

async function checkTable(
  reader: SiardReader,
  t: SiardTableRef,
  keys: KeySpec[],
  index: KeyIndex,
  lobs: LobChecker,
  report: CheckReport,
): Promise<TableRead | undefined> {
  const table = `${t.schema.name}.${t.table.name}`;
  const xsdEntry = t.xmlEntry.replace(/\.xml$/, '.xsd');
  const xsd = await entryBytes(reader, xsdEntry.slice(reader.root.length), 64 * 1024 * 1024);
  let compiled: CompiledSchema | undefined;
  if (xsd) {
    try {
      compareTableXsd(t.schema, t.table, parseTableXsd(xsd), xsdEntry, report);
      compiled = CompiledSchema.compile(xsd);
    } catch (err) {
      report.fail('T_6.1-1', `${xsdEntry} is not a usable XML schema: ${(err as Error).message}`, { entry: xsdEntry, table });
      report.fail('G_3.1-1', `${xsdEntry} is not a valid XML Schema 1.0 document.`, { entry: xsdEntry, table });
    }
  }
  if (!reader.zip.entry(t.xmlEntry) && !(isSegmentedReader(reader) && reader.zip.partsOf(t.xmlEntry).length > 0)) return undefined;
  report.applies('T_6.0-1', 'T_6.0-2', 'T_6.4-2', 'G_3.3-3', 'G_3.3-4', 'T_6.3-1', 'T_6.3-2');
  try {
    // An XSD whose meaning the fast pass knows: rows it can judge are read by the fast pass, the full pass takes over where it gives up.
    const profile = compiled && xsd ? fastXsdProfile(t.table, xsd) : undefined;
    let accepted = 0;
    if (profile) {
      const stream = await reader.zip.openStream(t.xmlEntry);
      const fast = await fastTablePass({ table: t, profile, keys, index, stream, onLobCell: (cell) => lobs.cell(t, cell) });
      if (fast.done) return { rows: fast.rows };
      accepted = fast.rows;
    }
    return await fullTablePass(reader, t, { keys, index, report, accepted, ...(compiled ? { compiled } : {}) });
  } catch (err) {
    // an entry the ZIP reader refuses (method, encryption: reported under G_4.1-x) or a read that breaks off
    report.fail('T_6.0-2', `${t.xmlEntry} cannot be read: ${(err as Error).message}`, { entry: t.xmlEntry, table });
    return undefined;
  } finally {
    compiled?.dispose();
  }
}

/** The full pass (saxes, the XSD windows) over a table whose first `accepted` rows the fast pass indexed and LOB-checked. */
async function fullTablePass(
  reader: SiardReader,
  t: SiardTableRef,
  o: { keys: KeySpec[]; index: KeyIndex; report: CheckReport; accepted: number; compiled?: CompiledSchema },
): Promise<TableRead> {
  const windows = o.compiled ? new TableXsdWindows(o.compiled) : undefined;
  const pass = await tablePass({
    table: t,
    stream: await reader.zip.openStream(t.xmlEntry),
    ...(windows ? { windows } : {}),
    keys: o.keys,
    index: o.index,
    report: o.report,
    indexedRows: o.accepted,
  });
  for (const e of windows?.finish() ?? [])
    o.report.fail('T_6.0-2', `${t.xmlEntry} is not valid against its XSD: ${e}`, {
      entry: t.xmlEntry,
      table: `${t.schema.name}.${t.table.name}`,
    });
  return { rows: pass.rows, ...(pass.hasFiles ? { lobsAfter: o.accepted } : {}) };
}

/** Every table: read once (keys indexed, LOB cells checked as found), then the keys across tables. */
async function checkTables(reader: SiardReader, report: CheckReport, lobs: LobChecker, options: CheckPackageOptions): Promise<void> {
  const specs = keySpecs(reader.archive);
  const index = new KeyIndex([...specs.values()].flat());
  try {
    for (const t of reader.tables()) {
      const keys = specs.get(`${t.schema.name}\u0000${t.table.name}`) ?? [];
      const read = await checkTable(reader, t, keys, index, lobs, report);
      index.finishTable(keys);
      // a table that cannot be read: its LOB cells up to the point where it breaks off
      if (read === undefined) await lobs.table(t);
      else if (read.lobsAfter !== undefined) await lobs.table(t, read.lobsAfter);
      const rows = read?.rows;
      const table = `${t.schema.name}.${t.table.name}`;
      if (rows !== undefined) rowCountVerdict(report.fail.bind(report), table, t.xmlEntry, rows, t.table.rows);
      options.onTable?.(table, rows ?? 0);
    }
    for (const v of index.violations())
      report.fail('T_6.0-1', v.message, { table: v.key.table, ...(v.row !== undefined ? { row: v.row } : {}) });
  } finally {
    index.close();
  }
}

function checkSegments(reader: SiardReader, report: CheckReport): void {
  if (!isSegmentedReader(reader)) return;
  report.applies('S_8.5-0', 'G_3.2-1');
  if (reader.tables().some((t) => reader.zip.partsOf(t.xmlEntry).length > 0)) report.applies('S_8.6-0');
  // a split table's parts missing or out of order break S_8.6-0; segments missing or disagreeing, S_8.5-0
  for (const p of setProblems(reader)) report.fail(p.code.startsWith('SIARD_TABLE_PART') ? 'S_8.6-0' : 'S_8.5-0', p.message, {});
}

/** Files beside the archive: other SIARD files (G_3.2-1), mapping.txt (S_8.1.2-0), _partNNN splits (S_8.2-0). */
function checkPackageFolder(reader: SiardReader, dir: string, report: CheckReport): void {
  report.applies('G_3.2-1');
  const names = readdirSync(dir);
  const siards = names.filter((n) => /\.siard$/i.test(n));
  if (siards.length > 1)
    report.note('G_3.2-1', `The folder holds ${siards.length} SIARD files (${siards.slice(0, 5).join(', ')}); each is one database.`);
  const mapping = path.join(dir, 'mapping.txt');
  if (existsSync(mapping)) {
    report.applies('S_8.1.2-0');
    readFileSync(mapping, 'utf8')
      .split(/\r?\n/)
      .forEach((line, i) => {
        if (line.trim() === '') return;
        if (!/^\S+\/ [A-Za-z][A-Za-z0-9+.-]*:\S*$/.test(line))
          report.fail('S_8.1.2-0', `mapping.txt line ${i + 1} is not "<segment folder>/ <URI>".`, { entry: 'mapping.txt' });
      });
  }
  checkPartNames(reader.file, report);
}

/** Runs every check on an opened archive. */
export async function checkOpenedSiard(reader: SiardReader, report: CheckReport, options: CheckPackageOptions = {}): Promise<void> {
  await loadLibxml2();
  // a segmented reader's file is a label (`x.siard.1 ... .z`): its members carry the names
  if (isSegmentedReader(reader)) for (const m of reader.zip.members) checkExtension(m.name, report);
  else checkExtension(reader.file, report);
  checkZipEntries(reader.zip.entries, report);
  checkStructure(reader, isSegmentedReader(reader), report);
  checkSegments(reader, report);
  await checkMetadata(reader, report);
  const lobs = new LobChecker(reader, report, options);
  try {
    await checkTables(reader, report, lobs, options);
  } finally {
    lobs.close();
  }
  await lobs.finish();
  // A zipped LOB folder is addressed by a URI into a ZIP file: G_3.4-3 goes with L_7.1-1.
  if (report.isApplicable('L_7.1-1')) report.applies('G_3.4-3');
  if (options.packageDir) checkPackageFolder(reader, options.packageDir, report);
}
