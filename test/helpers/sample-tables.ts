/**
 * Every table of the reference SIARD samples (`reference/siard-samples`) that has its table XML,
 * with the reader it came from (closed once the next archive begins) and a way to read its XML
 * bytes as stored: what the tests of the table readers compare their paths on.
 */
import type { Readable } from 'node:stream';
import { SiardReader, type SiardTableRef } from '../../src/siard/reader/index.js';
import { reference, siardFilesUnder } from './shared.js';

export interface SampleTable {
  file: string;
  reader: SiardReader;
  ref: SiardTableRef;
  /** The table XML as stored in the archive (inflated). */
  openXml(): Promise<Readable>;
}

export async function* sampleTables(): AsyncGenerator<SampleTable> {
  for (const file of siardFilesUnder(reference('siard-samples'))) {
    let reader: SiardReader;
    try {
      reader = await SiardReader.open(file);
    } catch {
      continue; // archives the reader refuses are tested elsewhere
    }
    const zip = (reader as unknown as { zip: { openStream(name: string): Promise<Readable> } }).zip;
    try {
      for (const ref of reader.tables()) {
        if (reader.hasEntry(ref.xmlEntry)) yield { file, reader, ref, openXml: () => zip.openStream(ref.xmlEntry) };
      }
    } finally {
      reader.close();
    }
  }
}
