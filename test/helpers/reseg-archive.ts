/**
 * The independent reading resegment-samples.test.ts checks a re-segmented archive with, done by one
 * python3 process per archive pair instead of one unzip or python3 process per entry (it used to
 * start some 2 + 3 x tables of them): Python's zipfile lists our archive's entries, writes its
 * header/metadata.xml and every table's XML and XSD to a folder (for xmllint and the regex checks),
 * writes the received package's header/metadata.xml there too, and reads the routines, users,
 * roles and privileges of both metadata files as element trees with xml.etree, exactly as
 * helpers/metadata-grants.ts does (same tree: local name, text of a leaf with the SIARD `\uXXXX`
 * escapes undone, children in order). Nothing here uses code under test.
 */
import type { ExecutionContext } from 'ava';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { xmllint } from './export-support.js';
import { GRANTS_PY, type MetadataGrants } from './metadata-grants.js';

const SCRIPT = String.raw`${GRANTS_PY}
made, received, folder = sys.argv[1], sys.argv[2], sys.argv[3]
import os
def write(name, data):
    with open(os.path.join(folder, name), 'wb') as f:
        f.write(data)
z = zipfile.ZipFile(made)
names = z.namelist()
metadata = z.read('header/metadata.xml')
write('metadata.xml', metadata)
tables = []
for n in names:
    m = re.match(r'^content/(schema\d+)/(table\d+)/(table\d+)\.xml$', n)
    if not m:
        continue
    base = '-'.join(m.groups())
    write(base + '.xml', z.read(n))
    table = {'entry': n, 'xml': base + '.xml'}
    if m.group(2) == m.group(3):
        write(base + '.xsd', z.read(n[:-len('.xml')] + '.xsd'))
        table['xsd'] = base + '.xsd'
    tables.append(table)
receivedMetadata = zipfile.ZipFile(received).read('header/metadata.xml')
write('received-metadata.xml', receivedMetadata)
print(json.dumps({'names': names, 'tables': tables, 'grants': {'made': grants(metadata), 'received': grants(receivedMetadata)}}))
`;

export interface ResegmentedReading {
  /** every entry name of our archive, in central directory order */
  names: string[];
  /** our header/metadata.xml, and the received package's, as UTF-8 text */
  metadata: string;
  receivedMetadata: string;
  /**
   * each `content/schemaN/tableM/tableK.xml` of our archive, its text and where it was written; where
   * K is M (a table's own XML), where its `tableK.xsd` was written
   */
  tables: Array<{ entry: string; text: string; xmlFile: string; xsdFile?: string }>;
  grants: { made: MetadataGrants; received: MetadataGrants };
  /** where header/metadata.xml of our archive was written */
  metadataFile: string;
}

/** Reads our re-segmented archive `made` and the package it was made from (`received`); files go to `folder`. */
export function readResegmented(made: string, received: string, folder: string): ResegmentedReading {
  const out = JSON.parse(execFileSync('python3', ['-c', SCRIPT, made, received, folder], { encoding: 'utf8', maxBuffer: 1 << 28 })) as {
    names: string[];
    tables: Array<{ entry: string; xml: string; xsd?: string }>;
    grants: { made: MetadataGrants; received: MetadataGrants };
  };
  const at = (name: string) => path.join(folder, name);
  return {
    names: out.names,
    metadata: readFileSync(at('metadata.xml'), 'utf8'),
    receivedMetadata: readFileSync(at('received-metadata.xml'), 'utf8'),
    tables: out.tables.map((t) => ({
      entry: t.entry,
      text: readFileSync(at(t.xml), 'utf8'),
      xmlFile: at(t.xml),
      ...(t.xsd ? { xsdFile: at(t.xsd) } : {}),
    })),
    grants: out.grants,
    metadataFile: at('metadata.xml'),
  };
}

/**
 * Acceptance 3, as export-support's assertArchiveValid: metadata.xml against the official schema,
 * every tableN.xml against its own tableN.xsd, all with xmllint (from the files the reading wrote).
 */
export function assertResegmentedValid(t: ExecutionContext, reading: ResegmentedReading, siard: string, officialXsd: string): void {
  t.is(xmllint(officialXsd, reading.metadataFile), '', `metadata.xml of ${path.basename(siard)} is valid`);
  for (const table of reading.tables) {
    if (table.xsdFile) t.is(xmllint(table.xsdFile, table.xmlFile), '', `${table.entry} is valid against its xsd`);
  }
}
