/**
 * A Microsoft Access file (.mdb, .accdb: Jet 3 to ACE 17) as an export source, read by mdb-reader
 * through a paged file (paged-file.ts: never the whole file in memory). Access has no schemas: the
 * tables go into one schema, "main". Relationships become foreign keys, primary keys and unique
 * indexes keys (read from the table definitions: keys.ts); what is not read (indexes that are not
 * unique, saved queries' SQL, linked tables, column properties) is named in the catalogue's
 * notExported. An attachment column becomes a table of its own, one row per
 * attached file (attachments.ts).
 */
import type MDBReader from 'mdb-reader';
import type { Column, Table } from 'mdb-reader';
import { SiardOcflError, UsageError } from '../../errors.js';
import type { DatabaseSource, SourceCatalog, SourceTable, SourceValue } from '../../siard/database-source.js';
import type { SiardColumn, SiardForeignKey } from '../../siard/model.js';
import { attachmentColumns, attachmentRows, attachmentTableName } from './attachments.js';
import { openDecryptedPages } from './decrypted-pages.js';
import { definitionPages, tableKeys } from './keys.js';
import { openPagedFile, type PagedFile } from './paged-file.js';
import { foreignKeysByTable, savedQueryNames } from './relationships.js';
import { rowSteps } from './row-steps.js';
import { siardTypeOf, sourceValueOf } from './type-mapping.js';

export interface AccessSourceOptions {
  tableFilter?: (name: string, schema: string) => boolean;
  /** the database password (Jet 3/4) or the encryption password (Office encryption, ACE) */
  password?: string;
}

const SCHEMA = 'main';

/** Access versions by the format byte at 0x14 of the header page. */
const FORMATS = [
  'Jet 3 (Access 97)',
  'Jet 4 (Access 2000-2003)',
  'ACE 12 (Access 2007)',
  'ACE 14 (Access 2010)',
  'ACE 15 (Access 2013)',
  'ACE 16 (Access 2016)',
  'ACE 17 (Access 2019)',
];

interface TablePlan {
  table: Table;
  columns: Column[];
  /** for an attachment table: its parent table's plan and the attachment column */
  attachmentOf?: { parent: TablePlan; column: Column };
  source: SourceTable;
}

function openReader(reader: typeof MDBReader, paged: PagedFile, file: string, password: string | undefined): MDBReader {
  let db: MDBReader;
  try {
    db = new reader(paged.buffer, password !== undefined ? { password } : {});
  } catch (err) {
    const message = (err as Error).message;
    if (message === 'Wrong password') throw passwordError(file, password);
    const why = message.replace(/\.$/, '');
    throw new SiardOcflError(`${file} cannot be read as an Access database: ${why}.`, { code: 'SOURCE_UNREADABLE', exitCode: 2 });
  }
  // A Jet 3/4 database password is only a check Access makes: the pages are readable without it, so it is made here.
  const own = paged.buffer[0x14] === 0 || paged.buffer[0x14] === 1 ? db.getPassword() : null;
  if (own !== null && own !== password) throw passwordError(file, password);
  return db;
}

function passwordError(file: string, password: string | undefined): UsageError {
  return password === undefined
    ? new UsageError(`${file} is protected by a password: give it with --password.`, 'PASSWORD_NEEDED')
    : new UsageError(`The password given with --password does not open ${file}.`, 'PASSWORD_WRONG');
}

function siardColumn(column: Column, bytesPerChar: 1 | 2): SiardColumn {
  const { type, original } = siardTypeOf(column, bytesPerChar);
  return { name: column.name, type, typeOriginal: original, nullable: column.nullable };
}

/** The file in pages; a path that is no readable file is exit 2 in one sentence. */
function openLocal(file: string): PagedFile {
  try {
    return openPagedFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES')
      throw new UsageError(`${file} cannot be opened as an Access file (${code}).`, 'SOURCE_MISSING', err);
    throw err;
  }
}

/** What `read` returns, or the message of what it threw (a column type mdb-reader does not know). */
function readable<T>(read: () => T): T | string {
  try {
    return read();
  } catch (err) {
    return (err as Error).message;
  }
}

export class AccessSource implements DatabaseSource {
  private plans = new Map<string, TablePlan>();
  private catalogue: SourceCatalog | undefined;

  private constructor(
    readonly description: string,
    private readonly paged: PagedFile,
    private readonly reader: MDBReader,
    private readonly options: AccessSourceOptions,
  ) {}

  static async open(file: string, options: AccessSourceOptions = {}): Promise<AccessSource> {
    const { default: reader } = await import('mdb-reader');
    const paged = openLocal(file);
    try {
      return new AccessSource(`access:${file}`, paged, openReader(reader, paged, file, options.password), options);
    } catch (err) {
      paged.close();
      throw err;
    }
  }

  /** One pass over the tables builds the plans, the attachment tables and the not-exported list together. */
  async catalog(): Promise<SourceCatalog> {
    if (this.catalogue) return this.catalogue;
    const version = this.paged.buffer[0x14] ?? 0;
    const bytesPerChar = version === 0 ? 1 : 2;
    const keys = foreignKeysByTable(this.reader, SCHEMA);
    const pages = await openDecryptedPages(this.paged.buffer, this.options.password);
    const firstPages = definitionPages(this.reader);
    const notExported: string[] = [];
    const tables: SourceTable[] = [];
    for (const name of this.reader.getTableNames()) {
      if (this.options.tableFilter && !this.options.tableFilter(name, SCHEMA)) continue;
      const table = this.reader.getTable(name);
      const all = readable(() => table.getColumns());
      if (typeof all === 'string') {
        notExported.push(`table "${name}" (mdb-reader cannot read it: ${all})`);
        continue;
      }
      const attachments = attachmentColumns(all);
      const columns = all.filter((c) => !attachments.includes(c));
      const tableKey = tableKeys(
        pages,
        firstPages.get(name),
        name,
        columns.map((c) => c.name),
      );
      notExported.push(...tableKey.notExported);
      const plan: TablePlan = {
        table,
        columns,
        source: {
          name,
          columns: columns.map((c) => siardColumn(c, bytesPerChar)),
          ...(tableKey.primaryKey ? { primaryKey: tableKey.primaryKey } : {}),
          foreignKeys: keys.get(name) ?? ([] as SiardForeignKey[]),
          candidateKeys: tableKey.candidateKeys,
          rows: table.rowCount,
        },
      };
      this.plans.set(name, plan);
      tables.push(plan.source);
      for (const column of attachments) {
        const child = attachmentTableName(name, column.name);
        const childPlan: TablePlan = {
          table,
          columns: [column],
          attachmentOf: { parent: plan, column },
          source: attachmentRows.table(child, name, column.name),
        };
        this.plans.set(child, childPlan);
        tables.push(childPlan.source);
        notExported.push(`the ids of attachment column "${name}"."${column.name}" (its files are in table "${child}", by row number)`);
      }
    }
    // a relationship to a table left out (by --tables, or unreadable) would name a table the archive does not hold
    const exported = new Set(tables.map((t) => t.name));
    for (const table of tables) {
      const kept = table.foreignKeys.filter((k) => exported.has(k.referencedTable));
      for (const k of table.foreignKeys.filter((fk) => !kept.includes(fk)))
        notExported.push(`relationship "${k.name}" (table "${table.name}" to "${k.referencedTable}", which is not exported)`);
      table.foreignKeys = kept;
    }
    const queries = savedQueryNames(this.reader);
    const quoted = queries.map((q) => `"${q}"`).join(', ');
    if (queries.length > 0) notExported.push(`saved queries as views (${quoted}: mdb-reader gives no SQL for them)`);
    for (const linked of this.reader.getTableNames({ normalTables: false, linkedTables: true }))
      notExported.push(`linked table "${linked}"`);
    notExported.push("column properties (descriptions, defaults, validation rules, formats, calculated columns' expressions)");
    this.catalogue = {
      databaseProduct: `Microsoft Access ${FORMATS[version] ?? `format ${version}`}`,
      connection: this.description,
      schemas: [{ name: SCHEMA, tables, views: [] }],
      notExported,
    };
    return this.catalogue;
  }

  async *rows(schema: string, table: string): AsyncIterable<SourceValue[]> {
    for await (const batch of this.rowBatches(schema, table)) yield* batch;
  }

  async *rowBatches(_schema: string, name: string): AsyncIterable<SourceValue[][]> {
    const plan = this.plans.get(name);
    if (!plan) throw new Error(`${this.description} has no table "${name}" in its catalogue.`);
    const columns = plan.columns;
    const read = (rowOffset: number, rowLimit: number) =>
      plan.table.getData({ columns: columns.map((c) => c.name), rowOffset, rowLimit }) as Array<Record<string, unknown>>;
    const attachment = plan.attachmentOf?.column.name;
    const convert = (record: Record<string, unknown>, row: number): SourceValue[][] =>
      attachment !== undefined ? attachmentRows.of(record[attachment], row) : [columns.map((c) => sourceValueOf(record[c.name], c))];
    yield* rowSteps(read, plan.table.rowCount, convert);
  }

  async close(): Promise<void> {
    this.paged.close();
  }
}
