/**
 * The pages of an Access file as mdb-reader sees them: decrypted (Jet RC4 coding, Office RC4
 * CryptoAPI or agile encryption). mdb-reader reads no index definitions and gives no raw cell, so
 * table-definition.ts parses table definition pages itself; on an encrypted file those are only
 * readable after mdb-reader's own decryption. And a table can be read over pages some of which are
 * replaced (complex-ids.ts: a complex column read as the number it stores). mdb-reader's Database
 * class (the file's header page, the codec, `getPage`) and Table class are not among the package's
 * exports, so they are loaded from the installed package's folder by their path (a second instance
 * beside the reader's: an encrypted file's key is derived twice). The unit tests of
 * decrypted-pages.ts, complex-ids.ts and the Access samples' test check them on every sample (pages
 * as stored, encrypted files' definitions against their unencrypted twin, ids against the flat
 * tables); a version of mdb-reader whose files moved fails here in one sentence.
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
  /** mdb-reader's table whose definition starts on `firstPage`, read over these pages with `replaced` ones in place of theirs */
  table(name: string, firstPage: number, replaced: ReadonlyMap<number, Buffer>): MdbTable;
}

/** What complex-ids.ts uses of mdb-reader's Table */
export interface MdbTable {
  getData(options: { columns?: string[]; rowOffset?: number; rowLimit?: number }): Array<Record<string, unknown>>;
}

interface MdbDatabase {
  format: { pageSize: number };
  getPage(n: number): Buffer;
  findPageRow(pageRow: number): Buffer;
  findRow(page: Buffer, row: number): Buffer;
}

interface Internals {
  Database: new (buffer: Buffer, password: string) => MdbDatabase;
  Table: new (name: string, database: MdbDatabase, firstPage: number) => MdbTable;
}

let internals: Promise<Internals> | undefined;

/** mdb-reader's Database and Table classes, from lib/node/ beside the package's entry point. */
function loadInternals(): Promise<Internals> {
  internals ??= (async () => {
    const folder = path.dirname(createRequire(import.meta.url).resolve('mdb-reader'));
    try {
      const [{ Database }, { Table }] = (await Promise.all(
        ['Database.js', 'Table.js'].map((f) => import(pathToFileURL(path.join(folder, f)).href)),
      )) as [Partial<Internals>, Partial<Internals>];
      if (typeof Database !== 'function' || typeof Table !== 'function') throw new Error('no Database or Table class');
      return { Database, Table };
    } catch (err) {
      throw new Error(`mdb-reader's page reader (in ${folder}) cannot be loaded: ${(err as Error).message}.`, { cause: err });
    }
  })();
  return internals;
}

/** The decrypted pages of the file whose (paged) buffer is `buffer`; the password is already checked by the caller. */
export async function openDecryptedPages(buffer: Buffer, password: string | undefined): Promise<AccessPages> {
  const { Database, Table } = await loadInternals();
  const db = new Database(buffer, password ?? '');
  const pageSize = db.format.pageSize;
  return {
    pageSize,
    jet3: pageSize === 2048,
    page: (n) => db.getPage(n),
    table(name, firstPage, replaced) {
      const over: MdbDatabase = {
        format: db.format,
        getPage: (n) => replaced.get(n) ?? db.getPage(n),
        findPageRow: (pageRow) => db.findPageRow(pageRow),
        findRow: (page, row) => db.findRow(page, row),
      };
      return new Table(name, over, firstPage);
    },
  };
}
