/**
 * `checkout --join-segments`: a segmented SIARD file (`[db].siard.1` ... `.z`) in a checked-out
 * folder written back as one `[db].siard`. Entries are copied in segment order without
 * recompression, except each split table file, whose parts are inflated (CRC-checked) and deflated
 * again as one `tableN.xml`; the header is the first segment's, its metadata.xml stating the
 * messageDigest of the joined file (the only text that changes). The joined file is written under a
 * temporary name and read back as a SIARD archive before the segments are removed, so a failure
 * leaves the segments as they were.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { SiardOcflError } from '../errors.js';
import { SiardReader } from '../siard/reader/siard-reader.js';
import { isSegmentedReader, openLocalSiard } from '../siard/segments/segment-set-reader.js';
import { ZipWriter } from '../siard/zip/writer.js';

/** Joins the set named by `base` (a path `.../x.siard` whose segments lie beside it); returns the segments removed. */
export async function joinSegments(base: string): Promise<string[]> {
  const reader = await openLocalSiard(base);
  const temp = `${base}.joining-${process.pid}`;
  let members: string[] = [];
  try {
    if (!isSegmentedReader(reader)) return [];
    members = reader.zip.members.map((m) => m.name);
    const zip = await ZipWriter.create(temp);
    try {
      const seen = new Set<string>();
      const header = `${reader.root}header/`;
      const entries = reader.zip.entries;
      for (const e of entries) {
        if (e.name.startsWith(header) || seen.has(e.name)) continue;
        seen.add(e.name);
        if (e.isDirectory) await zip.addDirectory(e.name, { mtime: e.mtime });
        else if (reader.zip.partsOf(e.name).length > 0) await zip.addStream(e.name, await reader.zip.openStream(e), { mtime: e.mtime });
        else await zip.addRaw(e, await reader.zip.openRawStream(e));
      }
      const mark = await zip.markDigestEnd();
      for (const e of entries.filter((x) => x.name.startsWith(header))) {
        if (e.isDirectory) await zip.addDirectory(e.name, { mtime: e.mtime });
        else if (e.name === `${header}metadata.xml`) {
          await zip.addBuffer(e.name, await withDigest(reader, e.name, mark.sha256), { mtime: e.mtime });
        } else await zip.addRaw(e, await reader.zip.openRawStream(e));
      }
      await zip.close();
    } catch (err) {
      await zip.abort();
      throw err;
    }
  } finally {
    reader.close();
  }
  (await SiardReader.open(temp)).close(); // reads back as a SIARD archive
  await fsp.rename(temp, base);
  for (const m of members) await fsp.rm(m, { force: true });
  return members.map((m) => path.basename(m));
}

/** The first segment's metadata.xml stating `sha256` as its (SHA-256) messageDigest. */
async function withDigest(reader: SiardReader, name: string, sha256: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of (await reader.zip.openStream(name)) as AsyncIterable<Buffer>) chunks.push(c);
  const xml = Buffer.concat(chunks).toString('utf8');
  const ns = String.raw`([\w.-]+:)?`;
  const re = new RegExp(String.raw`(<${ns}messageDigest>\s*<${ns}digestType>SHA-256</${ns}digestType>\s*<${ns}digest>)[0-9a-fA-F]+(</)`);
  if (!re.test(xml)) {
    const message = `${reader.file}: its metadata.xml states no SHA-256 messageDigest to write for the joined file.`;
    throw new SiardOcflError(message, { code: 'JOIN_METADATA' });
  }
  return Buffer.from(xml.replace(re, `$1${sha256}$6`), 'utf8');
}
