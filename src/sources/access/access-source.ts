/**
 * A Microsoft Access file (.mdb, .accdb: Jet 3 to ACE 17) as an export source, read by mdb-reader
 * through a paged file (paged-file.ts: never the whole file in memory). Access has no schemas: the
 * tables go into one schema, "main". Relationships become foreign keys, primary keys and unique
 * indexes keys (read from the table definitions: keys.ts), saved queries views (saved-queries.ts),
 * the columns' Description properties and calculated columns' expressions their descriptions
 * (column-properties.ts). A complex column (attachments, multi-valued) becomes a table of its own,
 * one row per value or attached file (complex-columns.ts, complex-ids.ts, complex-tables.ts). What
 * is not carried (indexes that are not unique, queries that are no view, linked tables, other
 * column properties) is named in the catalogue's notExported.
 */
import type MDBReader from 'mdb-reader';
import type { Column, Table } from 'mdb-reader';
import { SiardOcflError, UsageError } from '../../errors.js';
import type { DatabaseSource, SourceCatalog, SourceTable, SourceValue } from '../../siard/database-source.js';
import type { SiardColumn, SiardForeignKey, SiardView } from '../../siard/model.js';
import { columnDescription, parseProperties, tablePropertyValues, type PropertyBlocks } from './column-properties.js';
import { complexCatalogue, resolveComplex, type ComplexCatalogue, type ComplexColumn } from './complex-columns.js';
import { complexIdReader, IdNumbers } from './complex-ids.js';
import { complexKindName, complexRow, complexTable, complexTableName } from './complex-tables.js';
import { openDecryptedPages, type AccessPages } from './decrypted-pages.js';
import { firstDefinitionPages, tableKeys } from './keys.js';
import { oleColumnDescription } from './ole-header.js';
import { openPagedFile, type PagedFile } from './paged-file.js';
import { foreignKeysByTable } from './relationships.js';
import { savedQueries } from './saved-queries.js';
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
  /** the table read: the table itself, or a complex column's flat table */
  table: Table;
  columns: Column[];
  /** the table's columns, complex ones too (what its saved queries see) */
  allColumns?: Column[];
  /** for a complex column's table: its parent table's plan, where the parent's definition starts, and the column */
  complexOf?: { parent: TablePlan; firstPage: number; complex: ComplexColumn };
  source: SourceTable;
}

/** What building the plans of the tables needs, once per catalogue. */
interface CatalogueContext {
  pages: AccessPages;
  firstPages: Map<string, number>;
  /** each table's LvProp value (its and its columns' properties) */
  properties: Map<string, Buffer>;
  complex: ComplexCatalogue | undefined;
  foreignKeys: Map<string, SiardForeignKey[]>;
  bytesPerChar: 1 | 2;
  notExported: string[];
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

function siardColumn(column: Column, bytesPerChar: 1 | 2, description?: string): SiardColumn {
  const { type, original } = siardTypeOf(column, bytesPerChar);
  return { name: column.name, type, typeOriginal: original, nullable: column.nullable, ...(description ? { description } : {}) };
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
  private pages: AccessPages | undefined;

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

  /** A column's description: its properties', and for an OLE column the classes of its first objects. */
  private describe(table: Table, column: Column, properties: PropertyBlocks | undefined): string | undefined {
    const own = columnDescription(properties?.get(column.name));
    const ole = column.type === 'ole' ? readable(() => oleColumnDescription(table, column)) : undefined;
    const parts = [
      own,
      ole === undefined ? undefined : ole.startsWith('OLE objects') ? ole : `OLE objects (their headers cannot be read: ${ole})`,
    ];
    const text = parts.filter((p) => p !== undefined).join(' ');
    return text === '' ? undefined : text;
  }

  /** A table's column properties; a value that cannot be read is named in `c.notExported`. */
  private columnProperties(name: string, c: CatalogueContext): PropertyBlocks | undefined {
    const blob = c.properties.get(name);
    if (!blob) return undefined;
    const read = readable(() => parseProperties(blob, c.bytesPerChar === 1));
    if (typeof read !== 'string') return read;
    c.notExported.push(`the column descriptions of table "${name}" (its properties cannot be read: ${read})`);
    return undefined;
  }

  /** A table's plan and those of its complex columns' tables; what is left out goes to `c.notExported`. */
  private planTable(name: string, c: CatalogueContext): TablePlan[] {
    const table = this.reader.getTable(name);
    const all = readable(() => table.getColumns());
    if (typeof all === 'string') {
      c.notExported.push(`table "${name}" (mdb-reader cannot read it: ${all})`);
      return [];
    }
    const columns = all.filter((col) => col.type !== 'complex');
    const firstPage = c.firstPages.get(name);
    const properties = this.columnProperties(name, c);
    const keys = tableKeys(
      c.pages,
      firstPage,
      name,
      columns.map((col) => col.name),
    );
    c.notExported.push(...keys.notExported);
    const plan: TablePlan = {
      table,
      columns,
      allColumns: all,
      source: {
        name,
        columns: columns.map((col) => siardColumn(col, c.bytesPerChar, this.describe(table, col, properties))),
        ...(keys.primaryKey ? { primaryKey: keys.primaryKey } : {}),
        foreignKeys: c.foreignKeys.get(name) ?? [],
        candidateKeys: keys.candidateKeys,
        rows: table.rowCount,
      },
    };
    const plans = [plan];
    for (const column of all.filter((col) => col.type === 'complex')) {
      const complex = readable(() => resolveComplex(this.reader, c.complex, firstPage ?? -1, column));
      if (typeof complex === 'string') {
        c.notExported.push(`complex column "${name}"."${column.name}" (${complex})`);
        continue;
      }
      const child = complexTableName(name, column.name);
      const source = complexTable(child, name, complex, c.bytesPerChar);
      plans.push({
        table: this.reader.getTable(complex.flatTable),
        columns: [],
        complexOf: { parent: plan, firstPage: firstPage!, complex },
        source,
      });
      c.notExported.push(
        `the ids of ${complexKindName(complex.kind)} "${name}"."${column.name}" (its values are in table "${child}", by row number)`,
      );
    }
    return plans;
  }

  /** Saved queries as views, their columns typed as the table columns they are; the others named in `c.notExported`. */
  private views(c: CatalogueContext): SiardView[] {
    const columnsOf = (table: string) => this.plans.get(table)?.allColumns;
    const views: SiardView[] = [];
    for (const query of savedQueries(this.reader, columnsOf)) {
      if ('why' in query) {
        c.notExported.push(`saved query "${query.name}" as a view (${query.why})`);
        continue;
      }
      const columns = query.columns.map((q) => {
        const column = columnsOf(q.table)!.find((x) => x.name === q.column)!;
        return { ...siardColumn(column, c.bytesPerChar), name: q.name };
      });
      views.push({
        name: query.name,
        queryOriginal: query.sql,
        description: 'An Access saved query (its SQL rebuilt from MSysQueries).',
        columns,
      });
    }
    return views;
  }

  /** One pass over the tables builds the plans, the complex columns' tables and the not-exported list together. */
  async catalog(): Promise<SourceCatalog> {
    if (this.catalogue) return this.catalogue;
    const version = this.paged.buffer[0x14] ?? 0;
    this.pages = await openDecryptedPages(this.paged.buffer, this.options.password);
    const context: CatalogueContext = {
      pages: this.pages,
      firstPages: firstDefinitionPages(this.reader),
      properties: tablePropertyValues(this.reader),
      complex: complexCatalogue(this.reader),
      foreignKeys: foreignKeysByTable(this.reader, SCHEMA),
      bytesPerChar: version === 0 ? 1 : 2,
      notExported: [],
    };
    const notExported = context.notExported;
    const tables: SourceTable[] = [];
    for (const name of this.reader.getTableNames()) {
      if (this.options.tableFilter && !this.options.tableFilter(name, SCHEMA)) continue;
      for (const plan of this.planTable(name, context)) {
        this.plans.set(plan.source.name, plan);
        tables.push(plan.source);
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
    const views = this.views(context);
    for (const linked of this.reader.getTableNames({ normalTables: false, linkedTables: true }))
      notExported.push(`linked table "${linked}"`);
    notExported.push("column properties other than descriptions and calculated columns' expressions (defaults, validation rules, formats)");
    this.catalogue = {
      databaseProduct: `Microsoft Access ${FORMATS[version] ?? `format ${version}`}`,
      connection: this.description,
      schemas: [{ name: SCHEMA, tables, views }],
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
    if (plan.complexOf) {
      yield* this.complexBatches(plan.table, plan.complexOf);
      return;
    }
    const columns = plan.columns;
    const read = (rowOffset: number, rowLimit: number) =>
      plan.table.getData({ columns: columns.map((c) => c.name), rowOffset, rowLimit }) as Array<Record<string, unknown>>;
    yield* rowSteps(read, plan.table.rowCount, (record) => [columns.map((c) => sourceValueOf(record[c.name], c))]);
  }

  /**
   * A complex column's values: first the parent row of each id (the parent's cells read as the ids
   * they store, complex-ids.ts), then the flat table once, each of its rows a row of ours with that
   * parent row and its place among the id's values. A flat row whose id no parent row holds is no
   * value of any cell (Access removes them with the row) and gives no row.
   */
  private *complexBatches(flat: Table, of: NonNullable<TablePlan['complexOf']>): Generator<SourceValue[][]> {
    const { parent, firstPage, complex } = of;
    const column = complex.column.name;
    const rowOf = new IdNumbers();
    const ids = complexIdReader(this.pages!, parent.source.name, firstPage, [column]);
    const mark = (record: Record<string, number | null>, row: number) => {
      const id = record[column];
      if (id !== null && id !== undefined) rowOf.set(id, row);
      return [];
    };
    for (const _ of rowSteps(ids, parent.table.rowCount, mark));
    const positions = new IdNumbers();
    const names = [complex.foreignKey, ...complex.values.map((c) => c.name)];
    const read = (rowOffset: number, rowLimit: number) =>
      flat.getData({ columns: names, rowOffset, rowLimit }) as Array<Record<string, unknown>>;
    yield* rowSteps(read, flat.rowCount, (record) => {
      const id = record[complex.foreignKey] as number;
      const row = rowOf.get(id);
      return row > 0 ? [complexRow(complex, record, row, positions.next(id))] : [];
    });
  }

  async close(): Promise<void> {
    this.paged.close();
  }
}
