/**
 * A table as a ZIP, streamed: `<schema>.<table>.csv` (the `rows` verb's CSV, where a LOB in a file
 * is its path in the object) and every such LOB under that same path, its bytes joined when it is
 * split, so each CSV field that names a LOB names an entry of the ZIP. Two reads of the table XML
 * (the CSV, then the LOB cells); `where` keeps only some rows (a search). Nothing is held but the
 * current row and entry.
 */
import type { Writable } from 'node:stream';
import { csvRecord } from './csv.js';
import type { OpenedArchive } from './open-archive.js';
import { partPath, tableTextRows } from './rows.js';
import { lobCellsOfRow, type SiardTableRef } from '../siard/reader/siard-reader.js';
import { openFoundLob } from '../siard/reader/lob-open.js';
import type { SiardReadRow } from '../siard/reader/types.js';
import { ZipWriter } from '../siard/zip/writer.js';

export async function writeTableZip(
  archive: OpenedArchive,
  t: SiardTableRef,
  out: Writable,
  where?: (row: SiardReadRow) => boolean,
): Promise<{ lobs: number }> {
  const zip = await ZipWriter.create(out);
  try {
    const rows = tableTextRows(archive, t, where);
    await zip.addStream(
      `${t.schema.name}.${t.table.name}.csv`,
      (async function* () {
        yield csvRecord(t.table.columns.map((c) => c.name));
        for await (const fields of rows) yield csvRecord(fields);
      })(),
    );
    let lobs = 0;
    const seen = new Set<string>();
    for await (const row of archive.reader.rows(t)) {
      if (where && !where(row)) continue;
      for (const cell of lobCellsOfRow(t, row)) {
        const lookup = await archive.lobs.lookup(cell);
        if (lookup.status !== 'found') continue; // the CSV names where it should be; the ZIP has nothing to add
        const name = partPath(archive.reader, lookup.found.target);
        if (seen.has(name)) continue;
        seen.add(name);
        await zip.addStream(name, openFoundLob(lookup.found, archive.access));
        lobs++;
      }
    }
    await zip.close();
    return { lobs };
  } catch (err) {
    await zip.abort();
    throw err;
  }
}
