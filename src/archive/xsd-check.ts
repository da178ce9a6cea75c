/**
 * Split table files of a segmented SIARD file against their own tableN.xsd, parts joined, for the
 * audit: the same in-process validator `check` uses (siard/check/xsd-validator.ts, libxml2 in
 * WebAssembly), so a machine without xmllint checks the same things. Table XML is validated as it
 * streams, in windows of rows. (metadata.xml: audit-check.ts, through check's own code.)
 */
import path from 'node:path';
import { CompiledSchema, loadLibxml2, TableXsdWindows } from '../siard/check/xsd-validator.js';
import type { SiardReader } from '../siard/reader/siard-reader.js';

async function entryBytes(reader: SiardReader, name: string): Promise<Buffer | undefined> {
  if (!reader.zip.entry(name)) return undefined;
  const chunks: Buffer[] = [];
  for await (const c of (await reader.zip.openStream(name)) as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

export type XsdOutcome =
  { status: 'valid'; schema: string } | { status: 'invalid'; schema: string; message: string } | { status: 'skipped'; reason: string };

function joined(errors: string[]): string {
  return errors.slice(0, 3).join(' | ') + (errors.length > 3 ? ` (and ${errors.length - 3} more)` : '');
}

/**
 * A table's XML against its own tableN.xsd, streamed in windows of rows (constant memory): used for
 * the table files of a segmented SIARD file, whose parts are joined on the way.
 */
export async function checkTableXsd(reader: SiardReader, xmlEntry: string): Promise<XsdOutcome> {
  const xsdEntry = xmlEntry.replace(/\.xml$/, '.xsd');
  const xsd = await entryBytes(reader, xsdEntry);
  if (!xsd) return { status: 'invalid', schema: 'its XSD', message: `${xsdEntry} is missing` };
  const schema = `its ${path.posix.basename(xsdEntry)}`;
  await loadLibxml2();
  let compiled: CompiledSchema;
  try {
    compiled = CompiledSchema.compile(xsd);
  } catch (err) {
    return { status: 'invalid', schema, message: `the schema cannot be used: ${(err as Error).message}` };
  }
  try {
    const windows = new TableXsdWindows(compiled);
    for await (const chunk of (await reader.zip.openStream(xmlEntry)) as AsyncIterable<Buffer>) windows.push(chunk);
    const errors = windows.finish();
    return errors.length === 0 ? { status: 'valid', schema } : { status: 'invalid', schema, message: joined(errors) };
  } finally {
    compiled.dispose();
  }
}
