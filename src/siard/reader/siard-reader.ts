/**
 * Opens a `.siard` (SIARD 1.0, 2.1, 2.2): the ZIP through ZipReader (CRC-checked, unsafe names
 * refused), `header/metadata.xml` into the archive model, table XML as a stream of rows, and every
 * LOB cell with its lobFolder chain and resolved location. Some producers put everything under a
 * top folder (`siard1_med_blobs/header/...`): the SIARD root is where `header/metadata.xml` is.
 */
import path from 'node:path';
import type { Readable } from 'node:stream';
import { SiardOcflError } from '../../errors.js';
import { lobLocationResolver, type LobLocation } from '../lob-location.js';
import { cellType, type SiardArchive, type SiardColumn, type SiardSchema, type SiardTable } from '../model.js';
import { ZipReader, type ByteSource, type ZipEntry, type ZipReadLimits } from '../zip/reader.js';
import type { SiardZip } from '../zip/siard-zip.js';
import { parseSiardMetadata } from './metadata.js';
import { columnTypeFamily, readTableRowBatches } from './table-rows.js';
import {
  isComplexValue,
  type SiardLobCell,
  type SiardReadCellValue,
  type SiardReadColumnExtras,
  type SiardReadField,
  type SiardReadMetadata,
  type SiardReadRow,
} from './types.js';

export interface OpenSiardOptions {
  /**
   * Where the .siard sits inside its package (POSIX, relative), default its file name. LOB
   * locations are expressed relative to the package folder; e.g. "data/x.siard" makes the package
   * folder the parent of the .siard's folder.
   */
  siardPath?: string;
  /** ZIP guards (maximum inflated size, compression ratio) applied to every entry read. */
  limits?: ZipReadLimits;
  /**
   * Resolve LOBs as if the database-level lobFolder were this value (e.g. "../" for an archive
   * received with an absolute lobFolder whose LOB folders now lie beside the .siard). The
   * metadata keeps the value as written.
   */
  databaseLobFolder?: string;
}

/** One table of the archive, with everything needed to stream it. */
export interface SiardTableRef {
  schemaIndex: number;
  tableIndex: number;
  schema: SiardSchema;
  table: SiardTable;
  /** `content/schemaI/tableJ` relative to the SIARD root */
  folder: string;
  /** ZIP entry name of tableJ.xml (with the root prefix, if any) */
  xmlEntry: string;
  columnExtras: SiardReadColumnExtras[];
}

/** Metadata larger than this is refused (it is held in memory). */
const MAX_METADATA_ENTRY = 256 * 1024 * 1024;

export class SiardReader {
  /** locate's resolvers by table and lobFolder chain. */
  private readonly resolvers = new Map<string, (file: string) => LobLocation>();

  private constructor(
    /** the .siard file on disk */
    readonly file: string,
    /** its path inside the package folder (see OpenSiardOptions.siardPath) */
    readonly siardPath: string,
    /** the package folder on disk */
    readonly packageDir: string,
    /** one .siard, or a segmented SIARD file seen as one (segments/segment-set-zip.ts) */
    readonly zip: SiardZip,
    /** prefix of the SIARD root inside the ZIP: "" or e.g. "siard1_med_blobs/" */
    readonly root: string,
    readonly metadata: SiardReadMetadata,
    readonly warnings: string[],
    /** the database-level lobFolder used for resolution (the metadata's unless overridden) */
    readonly databaseLobFolder: string | undefined,
  ) {}

  /**
   * Opens a .siard: a local file, or a ByteSource (an archive kept elsewhere, e.g. in an object
   * on an object store; its package folder is then only a name in messages).
   */
  static async open(source: string | ByteSource, options: OpenSiardOptions = {}): Promise<SiardReader> {
    const file = typeof source === 'string' ? source : source.name;
    const siardPath = (options.siardPath ?? path.basename(file)).split(path.sep).join('/');
    const depth = siardPath.split('/').filter((s) => s !== '' && s !== '.').length;
    if (siardPath.split('/').includes('..') || depth === 0) {
      throw new SiardOcflError(`siardPath "${siardPath}" must be a relative path inside the package folder.`, { code: 'USAGE' });
    }
    const dirname = typeof source === 'string' ? path.dirname : path.posix.dirname;
    let packageDir = typeof source === 'string' ? path.dirname(path.resolve(file)) : dirname(file);
    for (let i = 1; i < depth; i++) packageDir = dirname(packageDir);

    const zip = await ZipReader.open(source, options.limits ?? {});
    return SiardReader.fromZip(zip, file, siardPath, packageDir, options);
  }

  /**
   * A reader over an opened ZIP (a segmented SIARD file's view, segments/segment-set-reader.ts):
   * `file` names it in messages, `siardPath` and `packageDir` place it in its package. Closes `zip`
   * when it is not a SIARD archive.
   */
  static async fromZip(
    zip: SiardZip,
    file: string,
    siardPath: string,
    packageDir: string,
    options: OpenSiardOptions = {},
  ): Promise<SiardReader> {
    try {
      // The usual place is looked up in the index; only an archive without it is walked for a root folder.
      const direct = zip.entry('header/metadata.xml');
      const metaEntry =
        direct && direct.unsafeReason === null
          ? direct
          : zip.entries
              .filter((e) => e.unsafeReason === null && (e.name === 'header/metadata.xml' || e.name.endsWith('/header/metadata.xml')))
              .sort((a, b) => a.name.length - b.name.length)[0];
      if (!metaEntry) {
        throw new SiardOcflError(`${file} is not a SIARD archive: it has no header/metadata.xml.`, {
          code: 'SIARD_NOT_SIARD',
          exitCode: 1,
        });
      }
      const root = metaEntry.name.slice(0, metaEntry.name.length - 'header/metadata.xml'.length);
      const warnings: string[] = [];
      if (root !== '') warnings.push(`${file}: the SIARD content sits under the folder "${root}" inside the ZIP instead of at its root.`);
      const xml = await readEntryText(zip, metaEntry.name, MAX_METADATA_ENTRY);
      const metadata = parseSiardMetadata(xml, `${file}: ${metaEntry.name}`);
      warnings.push(...metadata.warnings);
      const folders = [
        metadata.archive.lobFolder,
        ...metadata.archive.schemas.flatMap((sc) => sc.tables.flatMap((t) => t.columns.map((c) => c.lobFolder))),
      ];
      if (folders.some((f) => f?.includes('\\'))) {
        warnings.push(
          `${file}: lobFolder values use back-slashes (not valid in a URI, as Full Convert writes them); they are read as "/".`,
        );
      }
      const lobFolder = options.databaseLobFolder ?? metadata.archive.lobFolder;
      return new SiardReader(file, siardPath, packageDir, zip, root, metadata, warnings, lobFolder);
    } catch (err) {
      zip.close();
      throw err;
    }
  }

  get archive(): SiardArchive {
    return this.metadata.archive;
  }

  /** Every table, schema by schema, in metadata order. */
  tables(): SiardTableRef[] {
    const out: SiardTableRef[] = [];
    this.archive.schemas.forEach((schema, schemaIndex) => {
      schema.tables.forEach((table, tableIndex) => {
        const schemaFolder = schema.folder || `schema${schemaIndex}`;
        const tableFolder = table.folder || `table${tableIndex}`;
        const folder = `content/${schemaFolder}/${tableFolder}`;
        out.push({
          schemaIndex,
          tableIndex,
          schema,
          table,
          folder,
          xmlEntry: `${this.root}${folder}/${tableFolder}.xml`,
          columnExtras: this.metadata.columnExtras[schemaIndex]?.[tableIndex] ?? [],
        });
      });
    });
    return out;
  }

  /** The table called `tableName` in schema `schemaName`. */
  table(schemaName: string, tableName: string): SiardTableRef {
    const t = this.tables().find((r) => r.schema.name === schemaName && r.table.name === tableName);
    if (!t) throw new SiardOcflError(`${this.file} has no table ${schemaName}.${tableName}.`, { code: 'SIARD_NO_TABLE', exitCode: 2 });
    return t;
  }

  /** Names the table in messages. */
  describeTable(t: SiardTableRef): string {
    return `${this.file}: table ${t.schema.name}.${t.table.name} (${t.xmlEntry})`;
  }

  /** Streams the rows of a table (constant memory). */
  async *rows(t: SiardTableRef): AsyncGenerator<SiardReadRow> {
    for await (const batch of this.rowBatches(t)) yield* batch;
  }

  /** The same rows in batches (those one chunk of the table XML completes): for readers of many rows. */
  async *rowBatches(t: SiardTableRef): AsyncGenerator<SiardReadRow[]> {
    const entry = this.tableEntry(t);
    const stream = await this.zip.openStream(entry);
    yield* readTableRowBatches(stream, { what: this.describeTable(t), columns: t.table.columns, reopen: () => this.zip.openStream(entry) });
  }

  /** The bytes of a table's XML (inflated), for a reader of its own (table-cells-bytes.ts). */
  async openTableXml(t: SiardTableRef): Promise<Readable> {
    return this.zip.openStream(this.tableEntry(t));
  }

  private tableEntry(t: SiardTableRef): ZipEntry {
    const entry = this.zip.entry(t.xmlEntry);
    if (!entry) {
      throw new SiardOcflError(`${this.describeTable(t)}: the table data file is missing from the archive.`, {
        code: 'SIARD_TABLE_MISSING',
        exitCode: 1,
      });
    }
    return entry;
  }

  /** Every LOB reference of a table, with its lobFolder chain, row and column. */
  async *lobCells(t: SiardTableRef): AsyncGenerator<SiardLobCell> {
    for await (const row of this.rows(t)) yield* lobCellsOfRow(t, row);
  }

  /** Where a LOB cell points (pure: no file is touched). */
  locate(cell: SiardLobCell): LobLocation {
    // One resolver per table and lobFolder chain (a column or field): its lobFolders resolved once, not per cell.
    const key = `${cell.schemaIndex}/${cell.tableIndex}/${cell.lobFolders.map((f) => (f === undefined ? '\u0001' : f)).join('\u0000')}`;
    let resolve = this.resolvers.get(key);
    if (!resolve) {
      const t = this.tables().find((r) => r.schemaIndex === cell.schemaIndex && r.tableIndex === cell.tableIndex);
      resolve = lobLocationResolver({
        ...(this.databaseLobFolder !== undefined ? { databaseLobFolder: this.databaseLobFolder } : {}),
        columnLobFolders: cell.lobFolders,
        siardPath: this.siardPath,
        ...(t ? { tableFolder: t.folder } : {}),
        dialect: this.metadata.dialect,
      });
      this.resolvers.set(key, resolve);
    }
    return resolve(cell.ref.file);
  }

  /** Whether the archive holds a file entry at `entry` (relative to the SIARD root). */
  hasEntry(entry: string): boolean {
    const e = this.zip.entry(this.root + entry);
    return e !== undefined && !e.isDirectory && e.unsafeReason === null;
  }

  close(): void {
    this.zip.close();
  }
}

async function readEntryText(zip: SiardZip, name: string, max: number): Promise<string> {
  const stream = await zip.openStream(name, { maxUncompressedSize: max });
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  try {
    // fatal: bytes that are not UTF-8 are an error, never silently turned into U+FFFD.
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new SiardOcflError(`${zip.path}: ${name} is not valid UTF-8.`, { code: 'SIARD_METADATA', exitCode: 1 });
  }
}

type LobFamily = SiardLobCell['family'];

function lobFamily(type: string | undefined): LobFamily {
  const f = columnTypeFamily(type);
  return f === 'blob' || f === 'clob' || f === 'xml' || f === 'datalink' || f === 'char' ? f : undefined;
}

/** Walks one row's cells (and nested ARRAY/UDT values) for LOB references. */
export function* lobCellsOfRow(t: SiardTableRef, row: SiardReadRow): Generator<SiardLobCell> {
  const columns: readonly SiardColumn[] = t.table.columns;
  for (let c = 0; c < row.cells.length; c++) {
    const column = columns[c]!;
    const extras = t.columnExtras[c];
    yield* walk(
      row.cells[c]!,
      [`c${c + 1}`],
      [column.lobFolder],
      column.mimeType,
      lobFamily(cellType(column)),
      extras?.fields ?? [],
      c + 1,
    );
  }

  function* walk(
    value: SiardReadCellValue,
    cellPath: string[],
    lobFolders: Array<string | undefined>,
    mimeType: string | undefined,
    family: LobFamily,
    fields: SiardReadField[],
    column: number,
  ): Generator<SiardLobCell> {
    if (value === null || typeof value === 'string' || value instanceof Uint8Array) return;
    if (isComplexValue(value)) {
      for (const [index, element] of value.elements) {
        const field = fields[index - 1];
        yield* walk(
          element,
          [...cellPath, `${value.kind === 'array' ? 'a' : 'u'}${index}`],
          [...lobFolders, field?.lobFolder],
          field?.mimeType ?? (value.kind === 'array' ? mimeType : undefined),
          field?.type ? lobFamily(field.type) : value.kind === 'array' ? family : undefined,
          field?.fields ?? [],
          column,
        );
      }
      return;
    }
    yield {
      schemaIndex: t.schemaIndex,
      tableIndex: t.tableIndex,
      row: row.index,
      column,
      cellPath,
      lobFolders,
      ...(mimeType !== undefined ? { mimeType } : {}),
      ...(family !== undefined ? { family } : {}),
      ref: value,
    };
  }
}
