/**
 * mdb-reader's page reader, loaded from the installed package by its path: over every unencrypted
 * sample each page it gives is the file's page as stored; over the encrypted samples (Office agile
 * encryption, an ACE file with a password) every table definition it gives decodes to the same
 * indexes as the unencrypted file of the same content. Fails if a new mdb-reader moves or changes
 * the class.
 */
import MDBReader from 'mdb-reader';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { openDecryptedPages } from '../../../../src/sources/access/decrypted-pages.js';
import { firstDefinitionPages } from '../../../../src/sources/access/keys.js';
import { openPagedFile } from '../../../../src/sources/access/paged-file.js';
import { definitionBytes, parseTableDefinition } from '../../../../src/sources/access/table-definition.js';
import { HAS_SHARED, reference, sharedTest } from '../../../helpers/shared.js';

const SAMPLES = HAS_SHARED ? reference('access-samples') : '';
const ENCRYPTED = /office-agile|V2010_with-password/;
const TWIN = 'password/data/V2010_no-password.accdb';

function accessFilesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? accessFilesUnder(full) : /\.(mdb|accdb)$/.test(name) ? [full] : [];
    });
}

/** Every user table's indexes, as JSON, read through the decrypted pages. */
async function indexesOf(file: string, password?: string): Promise<string> {
  const paged = openPagedFile(file);
  try {
    const reader = new MDBReader(paged.buffer, password ? { password } : {});
    const pages = await openDecryptedPages(paged.buffer, password);
    const first = firstDefinitionPages(reader);
    const tables = reader.getTableNames().map((n) => [n, parseTableDefinition(definitionBytes(pages, first.get(n)!), pages.jet3).indexes]);
    return JSON.stringify(tables);
  } finally {
    paged.close();
  }
}

sharedTest('an unencrypted file: every page after the header page as stored in the file', async (t) => {
  const files = accessFilesUnder(SAMPLES).filter((f) => !ENCRYPTED.test(f));
  t.true(files.length >= 28);
  for (const file of files) {
    const whole = readFileSync(file);
    const paged = openPagedFile(file);
    try {
      const pages = await openDecryptedPages(paged.buffer, /with-password/.test(file) ? 'password' : undefined);
      t.is(pages.pageSize, whole[0x14] === 0 ? 2048 : 4096, file);
      for (let n = 1; n * pages.pageSize < whole.length; n++)
        if (!pages.page(n).equals(whole.subarray(n * pages.pageSize, (n + 1) * pages.pageSize))) t.fail(`${file}: page ${n}`);
    } finally {
      paged.close();
    }
  }
});

sharedTest('an encrypted file: its table definitions decrypted give the indexes of the unencrypted file of the same content', async (t) => {
  const files = accessFilesUnder(SAMPLES).filter((f) => ENCRYPTED.test(f));
  t.is(files.length, 3);
  const twin = await indexesOf(path.join(SAMPLES, TWIN));
  t.regex(twin, /"primary":true/);
  for (const file of files) t.is(await indexesOf(file, 'password'), twin, file);
});
