/**
 * Restore: a SIARD archive -> a SQLite file, a PostgreSQL database or a MariaDB / MySQL database.
 *
 * The archive comes from a `.siard` file (its external LOB folders beside it), a folder holding
 * one `.siard` (a checkout), or an OCFL object version, read in place: the `.siard` and every LOB
 * file are opened at their content paths, which may sit in different vN/content folders
 * (open-archive.ts, shared with the verbs that only read).
 *
 * Order: tables are created (mapped types), rows loaded in batches inside one transaction, keys
 * added, then committed; on any failure nothing is left in the target. Every LOB in a file is
 * streamed from wherever the reader finds it (inside the .siard, lob folders, split parts) and
 * checked on the way: its length and digest must equal the cell's, or the restore stops naming
 * table, row and column. Each table must end with as many rows as its `<rows>` says.
 *
 * A relocated archive (absolute database lobFolder) is read where the object or the folder keeps
 * its LOB folders (storage-base.ts), and the summary carries one note saying so.
 *
 * After the keys, the target recreates the views, triggers, defaults and types it can (those in its
 * own dialect); everything else the archive holds, and the indexes SIARD does not carry, is listed
 * in the summary's `notRecreated` (docs/values.md has the table).
 */
import { SiardOcflError } from '../errors.js';
import { cellType, isTextFamily, type SiardArchive } from '../siard/model.js';
import { describeLobCell, openLookedUp } from '../siard/reader/lob-open.js';
import { lobCellsOfRow, type SiardTableRef } from '../siard/reader/siard-reader.js';
import { columnTypeFamily } from '../siard/reader/table-rows.js';
import { isComplexValue, type SiardLobCell, type SiardReadCellValue, type SiardReadRow } from '../siard/reader/types.js';
import { type LobVerificationWithExtras, verifiedChunks } from '../siard/reader/verify-lob.js';
import type { LoadColumn, LoadLob, LoadTable, LoadValue, NotRecreated, TargetLoader } from '../sources/loader.js';
import type { DialectLoaderOptions } from '../sources/dialect.js';
import { targetDialect } from '../sources/dialects.js';
import { openArchive, type ArchiveSource, type OpenedArchive } from './open-archive.js';

/** Where the archive comes from. */
export type RestoreSource = ArchiveSource;

export interface RestoreOptions {
  /** called before each table's rows */
  onTable?: (table: { schema: string; name: string; rows: number }) => void;
  onRow?: () => void;
  /** progress: the tables and rows metadata.xml announces, once, before the first table */
  onPlan?: (plan: { tables: number; rows: number }) => void;
  /** a server target's --create / --into-existing, and its tuning (tests use small values) */
  target?: DialectLoaderOptions;
}

export interface RestoredTable {
  schema: string;
  name: string;
  /** name in the target ("schema.table" for PostgreSQL) */
  target: string;
  rows: number;
  /** LOBs read from files (inside the .siard or outside), each checked */
  lobFiles: number;
  lobBytes: number;
}

export interface RestoreSummary {
  /** the .siard read (a path on disk, or the logical path inside the OCFL object) */
  siard: string;
  target: string;
  /** the target's dialect (sources/dialects.ts): 'sqlite', 'postgres', 'mysql' */
  targetKind: string;
  tables: RestoredTable[];
  rows: number;
  lobFiles: number;
  lobBytes: number;
  /** LOB files whose digest was compared with the cell's */
  digestsVerified: number;
  warnings: string[];
  /** things the user should know that are not problems: where a relocated archive's LOBs were read */
  notes: string[];
  /** what the archive holds (or the source database had) that the target did not get, and why */
  notRecreated: NotRecreated[];
}

/** SIARD carries no indexes besides keys: every restore says so, as it says what else it left out. */
const INDEXES_NOT_CARRIED: NotRecreated = {
  kind: 'index',
  name: 'indexes other than primary and unique keys',
  reason: 'SIARD 2.2 does not carry them',
};

/** The not-recreated list as one summary sentence, grouped by kind. */
export function describeNotRecreated(items: NotRecreated[]): string {
  const singular: Record<NotRecreated['kind'], string> = {
    view: 'view',
    default: 'column default',
    check: 'check constraint',
    type: 'column type',
    trigger: 'trigger',
    routine: 'routine',
    role: 'role',
    privilege: 'privilege',
    index: 'index',
    comment: 'description',
  };
  const groups = new Map<NotRecreated['kind'], NotRecreated[]>();
  for (const i of items) groups.set(i.kind, [...(groups.get(i.kind) ?? []), i]);
  const parts = [...groups].map(([kind, list]) =>
    kind === 'index'
      ? `${list[0]!.name} (${list[0]!.reason})`
      : `${list.length} ${singular[kind]}${list.length === 1 ? '' : 's'} (${list.map((i) => `${i.name}: ${i.reason}`).join('; ')})`,
  );
  return `Not recreated: ${parts.join('; ')}.`;
}

function loadTableOf(t: SiardTableRef): LoadTable {
  const columns: LoadColumn[] = t.table.columns.map((column, i) => ({
    column,
    family: columnTypeFamily(cellType(column)),
    array: column.cardinality !== undefined || /(\[\]|\bARRAY(\[\d*\])?)$/i.test((column.typeOriginal ?? '').trim()) || isArrayFields(t, i),
  }));
  const table: LoadTable = {
    schema: t.schema.name,
    name: t.table.name,
    columns,
    candidateKeys: t.table.candidateKeys ?? [],
    foreignKeys: t.table.foreignKeys ?? [],
    checkConstraints: t.table.checkConstraints ?? [],
    triggers: t.table.triggers ?? [],
  };
  if (t.table.description !== undefined) table.description = t.table.description;
  if (t.table.primaryKey) table.primaryKey = t.table.primaryKey;
  return table;
}

/** ARRAY columns declare fields named "col[1]", "col[2]" ... (or a1, a2 ...). */
function isArrayFields(t: SiardTableRef, column: number): boolean {
  const fields = t.columnExtras[column]?.fields ?? [];
  return fields.length > 0 && fields.every((f, i) => f.name.endsWith(`[${i + 1}]`) || f.name === `a${i + 1}`);
}

interface TableCounters {
  lobFiles: number;
  lobBytes: number;
  digests: number;
}

/** A LOB file as a stream checked against its cell (length, digest) once it has been read through. */
function verifiedLob(archive: OpenedArchive, cell: SiardLobCell, counters: TableCounters): LoadLob {
  const text = isTextFamily(cell.family);
  async function* chunks(): AsyncGenerator<Uint8Array> {
    const stream = openLookedUp(archive.reader, cell, await archive.lobs.lookup(cell), archive.access);
    let result: LobVerificationWithExtras | undefined;
    yield* verifiedChunks(stream, cell.ref, { family: cell.family }, (r) => (result = r));
    if (!result) return; // always set once the stream was read through
    const where = describeLobCell(archive.reader, cell);
    if (result.lengthOk === false) {
      throw new SiardOcflError(
        `${where}: LOB file "${cell.ref.file}" has ${result.bytes} ` +
          `bytes${result.codePoints !== undefined ? ` (${result.codePoints} characters)` : ''}, but the cell says ` +
          `length ${cell.ref.length}; restore stopped.`,
        {
          code: 'LOB_LENGTH',
          exitCode: 1,
        },
      );
    }
    if (result.digestOk === false) {
      throw new SiardOcflError(
        `${where}: LOB file "${cell.ref.file}" has ${result.digestType} digest ${result.digest}, but the cell ` +
          `says ${cell.ref.digest}; restore stopped.`,
        {
          code: 'LOB_DIGEST',
          exitCode: 1,
        },
      );
    }
    counters.lobFiles++;
    counters.lobBytes += result.bytes;
    if (result.digestOk === true) counters.digests++;
  }
  return { kind: 'lob', text, chunks: chunks() };
}

/** Reader cells -> loader values, LOB references becoming verified streams; in the reader's batches; the first `skip` rows left out. */
async function* loadBatches(
  archive: OpenedArchive,
  t: SiardTableRef,
  table: LoadTable,
  counters: TableCounters,
  skip = 0,
): AsyncGenerator<LoadValue[][]> {
  const arrayColumns = table.columns.flatMap((c, i) => (c.array ? [i] : []));
  for await (const all of archive.reader.rowBatches(t)) {
    // rows the target took from the table XML's bytes already (insertTableXml)
    const rows = skip > 0 && all.length > 0 && all[0]!.index <= skip ? all.filter((r) => r.index > skip) : all;
    if (rows.length === 0) continue;
    const batch: LoadValue[][] = new Array(rows.length);
    for (let r = 0; r < rows.length; r++) {
      const cells = rows[r]!.cells;
      // Most rows hold only text, bytes and NULLs: those cells are the loader's values as they are.
      batch[r] = cells.every(isPlainCell) ? (cells as LoadValue[]) : loadRow(archive, t, rows[r]!, counters);
      // An empty ARRAY cell is an array with no elements, not an empty string (nor, for an array
      // of a binary type, the empty byte string the reader makes of an empty hex cell).
      for (const c of arrayColumns) {
        const value = cells[c];
        if (value === '' || (value instanceof Uint8Array && value.length === 0)) batch[r]![c] = { kind: 'array', elements: new Map() };
      }
    }
    yield batch;
  }
}

function isPlainCell(value: SiardReadCellValue): boolean {
  return value === null || typeof value === 'string' || value instanceof Uint8Array;
}

/** A row with LOB references or ARRAY / UDT values. */
function loadRow(archive: OpenedArchive, t: SiardTableRef, row: SiardReadRow, counters: TableCounters): LoadValue[] {
  const lobs = new Map<string, SiardLobCell>();
  for (const cell of lobCellsOfRow(t, row)) lobs.set(cell.cellPath.join('/'), cell);
  const convert = (value: SiardReadCellValue, cellPath: string[]): LoadValue => {
    if (value === null || typeof value === 'string' || value instanceof Uint8Array) return value;
    if (isComplexValue(value)) {
      const elements = new Map<number, LoadValue>();
      for (const [i, v] of value.elements) elements.set(i, convert(v, [...cellPath, `${value.kind === 'array' ? 'a' : 'u'}${i}`]));
      return { kind: value.kind, elements };
    }
    const cell = lobs.get(cellPath.join('/'));
    if (!cell) throw new Error(`LOB reference at ${cellPath.join('/')} was not found among the row's LOB cells`);
    return verifiedLob(archive, cell, counters);
  };
  return row.cells.map((value, c) => convert(value, [`c${c + 1}`]));
}

/** Loads one table's rows, then checks the count against metadata.xml and against the target. */
async function restoreTable(
  loader: TargetLoader,
  archive: Awaited<ReturnType<typeof openArchive>>,
  ref: ReturnType<Awaited<ReturnType<typeof openArchive>>['reader']['tables']>[number],
  table: ReturnType<typeof loadTableOf>,
  options: RestoreOptions,
): Promise<{ rows: number; counters: TableCounters }> {
  options.onTable?.({ schema: table.schema, name: table.name, rows: ref.table.rows });
  const counters: TableCounters = { lobFiles: 0, lobBytes: 0, digests: 0 };
  const rows = loader.insertTableXml
    ? await loader.insertTableXml(
        table,
        { open: () => archive.reader.openTableXml(ref), rest: (skip) => loadBatches(archive, ref, table, counters, skip) },
        options.onRow,
      )
    : await loader.insertRows(table, loadBatches(archive, ref, table, counters), options.onRow);
  if (rows !== ref.table.rows) {
    throw new SiardOcflError(
      `${archive.reader.describeTable(ref)}: metadata.xml says ${ref.table.rows} rows but the table data holds ${rows}; restore stopped.`,
      { code: 'ROW_COUNT', exitCode: 1 },
    );
  }
  const stored = await loader.countRows(table);
  if (stored !== rows) {
    throw new SiardOcflError(
      `Table ${loader.targetName(table)} in ${loader.description} holds ${stored} rows after loading ${rows}; restore stopped.`,
      {
        code: 'ROW_COUNT',
        exitCode: 1,
      },
    );
  }
  return { rows, counters };
}

/** Restores `source` into `target` (an SQLite file path or a postgres:// URL). */
export async function restore(source: RestoreSource, target: string, options: RestoreOptions = {}): Promise<RestoreSummary> {
  // Only the target's module (and driver) is loaded.
  const dialect = targetDialect(target);
  const loader = await dialect.openLoader(target, options.target ?? {});
  const kind = dialect.name;
  const archive = await openArchive(source, { purpose: 'restore' });
  const refs = archive.reader.tables();
  const tables = refs.map(loadTableOf);
  const summary: RestoreSummary = {
    siard: archive.name,
    target: loader.description,
    targetKind: kind,
    tables: [],
    rows: 0,
    lobFiles: 0,
    lobBytes: 0,
    digestsVerified: 0,
    warnings: [...archive.reader.warnings],
    notes: [],
    notRecreated: [],
  };
  let begun = false;
  try {
    await loader.begin(archive.reader.archive as SiardArchive, tables);
    begun = true;
    for (const table of tables) await loader.createTable(table);
    options.onPlan?.({ tables: refs.length, rows: refs.reduce((n, r) => n + r.table.rows, 0) });
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i]!;
      const table = tables[i]!;
      const { rows, counters } = await restoreTable(loader, archive, ref, table, options);
      summary.tables.push({
        schema: table.schema,
        name: table.name,
        target: loader.targetName(table),
        rows,
        lobFiles: counters.lobFiles,
        lobBytes: counters.lobBytes,
      });
      summary.rows += rows;
      summary.lobFiles += counters.lobFiles;
      summary.lobBytes += counters.lobBytes;
      summary.digestsVerified += counters.digests;
    }
    await loader.addKeys(tables);
    await loader.addViews(
      (archive.reader.archive as SiardArchive).schemas.flatMap((s) =>
        s.views.map((v) => ({
          schema: s.name,
          name: v.name,
          ...(v.queryOriginal !== undefined ? { queryOriginal: v.queryOriginal } : {}),
        })),
      ),
      tables,
    );
    summary.warnings.push(...loader.warnings);
    summary.notRecreated.push(...loader.notRecreated);
    for (const o of archive.reader.metadata.otherObjects) {
      summary.notRecreated.push({ kind: o.kind, name: o.name, reason: 'restore does not recreate it' });
    }
    summary.notRecreated.push(INDEXES_NOT_CARRIED);
    await loader.commit();
    if (archive.lobs.note !== undefined) summary.notes.push(archive.lobs.note);
    return summary;
  } catch (err) {
    if (begun) await loader.abort();
    else await loader.abort().catch(() => {});
    throw err;
  } finally {
    archive.access.close?.();
    archive.reader.close();
  }
}
