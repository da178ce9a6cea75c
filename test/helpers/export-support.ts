/**
 * Independent tools for the export tests: ZIP entries through the `unzip` and `python3` programs,
 * table XML through a small regex reader written here (not the project's reader), schema checks
 * through `xmllint`. Nothing here uses code under test.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export function unzipEntry(siard: string, entry: string): Buffer {
  return execFileSync('unzip', ['-p', siard, entry], { maxBuffer: 1 << 30 });
}

export function zipEntryNames(siard: string): string[] {
  const out = execFileSync('python3', ['-c', 'import sys,zipfile\nfor n in zipfile.ZipFile(sys.argv[1]).namelist(): print(n)', siard], {
    encoding: 'utf8',
  });
  return out.split('\n').filter(Boolean);
}

/** Local header offset of an entry, as python's zipfile reads it from the central directory. */
export function zipEntryOffset(siard: string, entry: string): number {
  const out = execFileSync(
    'python3',
    ['-c', 'import sys,zipfile\nprint(zipfile.ZipFile(sys.argv[1]).getinfo(sys.argv[2]).header_offset)', siard, entry],
    {
      encoding: 'utf8',
    },
  );
  return Number(out.trim());
}

export function sha256OfRange(file: string, end: number): string {
  return createHash('sha256').update(readFileSync(file).subarray(0, end)).digest('hex');
}

export function digestOf(algorithm: string, data: Uint8Array): string {
  return createHash(algorithm).update(data).digest('hex');
}

/** Runs xmllint --schema; returns '' when valid, else its message. */
export function xmllint(schema: string, xml: string): string {
  try {
    execFileSync('xmllint', ['--noout', '--schema', schema, xml], { stdio: ['ignore', 'pipe', 'pipe'] });
    return '';
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    return e.stderr?.toString() ?? e.message;
  }
}

/** One cell as read from table XML: absent (NULL), or its attributes and unescaped text. */
export interface ReadCell {
  attrs: Record<string, string>;
  text: string;
}

function decodeEntities(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#x[0-9a-fA-F]+|#\d+);/g, (_m, e: string) => {
    if (e === 'lt') return '<';
    if (e === 'gt') return '>';
    if (e === 'amp') return '&';
    if (e === 'quot') return '"';
    if (e === 'apos') return "'";
    return String.fromCodePoint(e.startsWith('#x') ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });
}

/** SIARD text: XML entities, then \u00XX escapes (G_3.3-4). XML line-end normalisation applied as a parser would. */
export function siardText(raw: string): string {
  const xml = raw.replace(/\r\n?/g, '\n');
  return decodeEntities(xml).replace(/\\u([0-9a-fA-F]{4})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** Rows of a table XML: per row, a map column number -> cell (NULL cells are missing). */
export function readTableXml(xml: string): Array<Map<number, ReadCell>> {
  const rows: Array<Map<number, ReadCell>> = [];
  for (const m of xml.matchAll(/<row>([\s\S]*?)<\/row>/g)) {
    const cells = new Map<number, ReadCell>();
    for (const c of m[1]!.matchAll(/<c(\d+)((?:\s+[a-zA-Z]+="[^"]*")*)\s*(?:\/>|>([\s\S]*?)<\/c\1>)/g)) {
      const attrs: Record<string, string> = {};
      for (const a of c[2]!.matchAll(/([a-zA-Z]+)="([^"]*)"/g)) attrs[a[1]!] = decodeEntities(a[2]!);
      cells.set(Number(c[1]), { attrs, text: siardText(c[3] ?? '') });
    }
    rows.push(cells);
  }
  return rows;
}

/** Column types per table folder from metadata.xml (regex, document order). */
export function metadataTables(
  xml: string,
): Array<{ name: string; folder: string; rows: number; columns: Array<{ name: string; type: string; lobFolder?: string }> }> {
  const tables = [];
  for (const t of xml.matchAll(/<table>([\s\S]*?)<\/table>/g)) {
    const body = t[1]!;
    const columns = [...body.matchAll(/<column>\s*(<name>[\s\S]*?)<\/column>/g)].map((c) => {
      const col: { name: string; type: string; lobFolder?: string } = {
        name: /<name>([\s\S]*?)<\/name>/.exec(c[1]!)![1]!,
        type: /<type>([\s\S]*?)<\/type>/.exec(c[1]!)![1]!,
      };
      const lf = /<lobFolder>([\s\S]*?)<\/lobFolder>/.exec(c[1]!);
      if (lf) col.lobFolder = lf[1]!;
      return col;
    });
    tables.push({
      name: siardText(/<name>([\s\S]*?)<\/name>/.exec(body)![1]!),
      folder: /<folder>([\s\S]*?)<\/folder>/.exec(body)![1]!,
      rows: Number(/<rows>(\d+)<\/rows>/.exec(body)![1]),
      columns,
    });
  }
  return tables;
}

import type { ExecutionContext } from 'ava';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Acceptance 3 for one archive: metadata.xml against the official schema, every tableN.xml
 * against its own tableN.xsd, all with xmllint.
 */
export function assertArchiveValid(t: ExecutionContext, siard: string, officialXsd: string): void {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'siard-xmllint-'));
  try {
    const metadata = path.join(dir, 'metadata.xml');
    writeFileSync(metadata, unzipEntry(siard, 'header/metadata.xml'));
    t.is(xmllint(officialXsd, metadata), '', `metadata.xml of ${path.basename(siard)} is valid`);
    for (const name of zipEntryNames(siard)) {
      const m = /^content\/(schema\d+)\/(table\d+)\/\2\.xml$/.exec(name);
      if (!m) continue;
      const xml = path.join(dir, `${m[1]}-${m[2]}.xml`);
      const xsd = path.join(dir, `${m[2]}.xsd`);
      writeFileSync(xml, unzipEntry(siard, name));
      writeFileSync(xsd, unzipEntry(siard, name.replace(/\.xml$/, '.xsd')));
      t.is(xmllint(xsd, xml), '', `${name} is valid against its xsd`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
