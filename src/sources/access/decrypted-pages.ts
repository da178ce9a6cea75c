/**
 * The pages of an Access file as mdb-reader sees them: decrypted (Jet RC4 coding, Office RC4
 * CryptoAPI or agile encryption). mdb-reader reads no index definitions and gives no raw cell, so
 * table-definition.ts parses table definition pages itself; on an encrypted file those are only
 * readable after mdb-reader's own decryption. Its Database class (the file's header page, the
 * codec, `getPage`) is not among the package's exports, so it is loaded from the installed
 * package's folder by its path (a second instance beside the reader's: an encrypted file's key is
 * derived twice). test/unit/sources/access/decrypted-pages.test.ts checks it on every sample
 * (pages as stored, encrypted files' definitions against their unencrypted twin); a version of
 * mdb-reader whose files moved fails here in one sentence.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface AccessPages {
  /** 2048 (Jet 3) or 4096 */
  readonly pageSize: number;
  /** Jet 3 (Access 97): 1-byte name lengths, 18-byte column entries */
  readonly jet3: boolean;
  /** page `n`, decrypted */
  page(n: number): Buffer;
}

interface MdbDatabase {
  format: { pageSize: number };
  getPage(n: number): Buffer;
}

type DatabaseClass = new (buffer: Buffer, password: string) => MdbDatabase;

let databaseClass: Promise<DatabaseClass> | undefined;

/** mdb-reader's Database class, from lib/node/Database.js beside the package's entry point. */
function loadDatabaseClass(): Promise<DatabaseClass> {
  databaseClass ??= (async () => {
    const entry = createRequire(import.meta.url).resolve('mdb-reader');
    const file = path.join(path.dirname(entry), 'Database.js');
    try {
      const module = (await import(pathToFileURL(file).href)) as { Database?: DatabaseClass };
      if (typeof module.Database !== 'function') throw new Error('no Database class');
      return module.Database;
    } catch (err) {
      throw new Error(`mdb-reader's page reader (${file}) cannot be loaded: ${(err as Error).message}.`, { cause: err });
    }
  })();
  return databaseClass;
}

/** The decrypted pages of the file whose (paged) buffer is `buffer`; the password is already checked by the caller. */
export async function openDecryptedPages(buffer: Buffer, password: string | undefined): Promise<AccessPages> {
  const Database = await loadDatabaseClass();
  const db = new Database(buffer, password ?? '');
  const pageSize = db.format.pageSize;
  return { pageSize, jet3: pageSize === 2048, page: (n) => db.getPage(n) };
}
