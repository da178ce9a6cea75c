/**
 * The paged file stands in for the whole file's Buffer: mdb-reader over it reads every sample
 * (system tables, encrypted files included) exactly as over the file read whole, and never asks it
 * for more than one page (4 KiB) at a time. Fails if mdb-reader starts to use the buffer in a way
 * the paged file does not answer.
 */
import MDBReader from 'mdb-reader';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { openPagedFile } from '../../../../src/sources/access/paged-file.js';
import { HAS_SHARED, reference, sharedTest } from '../../../helpers/shared.js';

function accessFilesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? accessFilesUnder(full) : /\.(mdb|accdb)$/.test(name) ? [full] : [];
    });
}

/** Every table's columns and rows (system tables too), as JSON. */
function everything(reader: MDBReader): string {
  const names = reader.getTableNames({ normalTables: true, systemTables: true, linkedTables: false });
  const tables = names.map((n) => {
    try {
      const table = reader.getTable(n);
      return [n, table.rowCount, table.getColumns(), table.getData()];
    } catch (err) {
      return [n, (err as Error).message]; // a system table of a type mdb-reader does not know: the same error both ways
    }
  });
  return JSON.stringify([reader.getCreationDate(), reader.getPassword(), tables], (_k, v: unknown) =>
    typeof v === 'bigint' ? `${v}n` : v,
  );
}

const files = HAS_SHARED ? accessFilesUnder(reference('access-samples')) : [];

sharedTest('mdb-reader over the paged file reads every sample as over the whole file, one page at a time', (t) => {
  t.true(files.length >= 30, 'the samples are there');
  for (const file of files) {
    const options = /with-password|office-agile/.test(file) ? { password: 'password' } : {};
    const paged = openPagedFile(file);
    try {
      t.is(everything(new MDBReader(paged.buffer, options)), everything(new MDBReader(readFileSync(file), options)), file);
      t.true(paged.stats().largest <= 4096, `${file}: at most one page per read (${paged.stats().largest} bytes)`);
    } finally {
      paged.close();
    }
  }
});
