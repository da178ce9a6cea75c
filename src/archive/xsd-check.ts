/**
 * metadata.xml against its XML schema. The SIARD reader has already parsed it (well-formed XML,
 * SIARD namespace, the structure the audit relies on); full XSD validation needs a schema
 * processor, and Node has none that is maintained, so we use `xmllint` (libxml2) when it is on the
 * PATH and say so when it is not. No user needs xmllint to run the tool: without it the audit
 * reports an info finding and keeps the structural check.
 *
 * Schema: SIARD 2.2 archives are checked against the official 2.2 metadata.xsd we ship (an
 * archive cannot vouch for itself); 2.1 and 1.0 archives against the metadata.xsd they carry in
 * `header/`, since the 2.2 schema's version enumeration does not admit them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { SiardReader } from '../siard/reader/siard-reader.js';
import { officialMetadataXsd } from '../siard/writer.js';

let available: boolean | undefined;

function xmllintAvailable(): boolean {
  available ??= spawnSync('xmllint', ['--version'], { stdio: 'ignore' }).status === 0;
  return available;
}

async function entryBytes(reader: SiardReader, name: string): Promise<Buffer | undefined> {
  if (!reader.zip.entry(name)) return undefined;
  const chunks: Buffer[] = [];
  for await (const c of (await reader.zip.openStream(name)) as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

export type XsdOutcome =
  { status: 'valid'; schema: string } | { status: 'invalid'; schema: string; message: string } | { status: 'skipped'; reason: string };

export async function checkMetadataXsd(reader: SiardReader): Promise<XsdOutcome> {
  if (!xmllintAvailable())
    return { status: 'skipped', reason: 'xmllint is not installed; metadata.xml was only checked by the SIARD parser' };
  const version = reader.metadata.siardVersion;
  const own = version === '2.2' ? undefined : await entryBytes(reader, `${reader.root}header/metadata.xsd`);
  if (version !== '2.2' && !own)
    return { status: 'skipped', reason: `SIARD ${version || '(unknown version)'} archive without header/metadata.xsd` };
  const xml = await entryBytes(reader, `${reader.root}header/metadata.xml`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-xsd-'));
  try {
    const xsdFile = path.join(dir, 'metadata.xsd');
    const xmlFile = path.join(dir, 'metadata.xml');
    writeFileSync(xsdFile, own ?? officialMetadataXsd());
    writeFileSync(xmlFile, xml!);
    const schema = own ? "the archive's own header/metadata.xsd" : 'the official SIARD 2.2 metadata.xsd';
    const r = spawnSync('xmllint', ['--noout', '--nonet', '--schema', xsdFile, xmlFile], { encoding: 'utf8', maxBuffer: 1 << 24 });
    if (r.status === 0) return { status: 'valid', schema };
    const lines = (r.stderr || r.stdout || '').split('\n').filter((l) => l && !l.endsWith('fails to validate'));
    const message = lines
      .slice(0, 3)
      .map((l) => l.replace(xmlFile, 'metadata.xml').replace(xsdFile, 'metadata.xsd'))
      .join(' | ');
    return { status: 'invalid', schema, message: message + (lines.length > 3 ? ` (and ${lines.length - 3} more)` : '') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A table's XML against its own tableN.xsd, streamed through `xmllint --stream` (constant memory):
 * used for the table files of a segmented SIARD file, whose parts are joined on the way.
 */
export async function checkTableXsd(reader: SiardReader, xmlEntry: string): Promise<XsdOutcome> {
  if (!xmllintAvailable()) return { status: 'skipped', reason: 'xmllint is not installed' };
  const xsd = await entryBytes(reader, xmlEntry.replace(/\.xml$/, '.xsd'));
  if (!xsd) return { status: 'invalid', schema: 'its XSD', message: `${xmlEntry.replace(/\.xml$/, '.xsd')} is missing` };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-xsd-'));
  try {
    const xsdFile = path.join(dir, 'table.xsd');
    writeFileSync(xsdFile, xsd);
    const child = spawn('xmllint', ['--noout', '--nonet', '--stream', '--schema', xsdFile, '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr.length < 65536 ? (stderr += d) : undefined));
    const exited = new Promise<number>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve(code ?? 1));
    });
    // xmllint may stop reading at the first error: a closed pipe then ends the copy, not the audit.
    await pipeline(await reader.zip.openStream(xmlEntry), child.stdin).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_PREMATURE_CLOSE') throw err;
    });
    const code = await exited;
    const schema = `its ${path.posix.basename(xmlEntry.replace(/\.xml$/, '.xsd'))}`;
    if (code === 0) return { status: 'valid', schema };
    const lines = stderr.split('\n').filter((l) => l && !/validates$|fails to validate$/.test(l));
    const message = lines.slice(0, 3).join(' | ').replaceAll(xsdFile, 'table.xsd') || `xmllint exit status ${code}`;
    return { status: 'invalid', schema, message };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
