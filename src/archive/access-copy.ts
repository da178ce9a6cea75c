/**
 * The access copy of a table: what the reading room sorts, filters and searches a large table
 * with. The table XML is read once, in the order it is written, into a SQLite database in the
 * reading room's workspace (never in the storage root): one row per table row holding the row as
 * the pages show it (JSON), each cell's text as the search compares it, and each number as a number.
 * A row whose every cell is NULL, text, or inline bytes of a BLOB/BINARY column is shown from its
 * texts (`plainView`); only the others keep the page's view as JSON (at 1,000,000 narrow rows the
 * views took 180 of the copy's 494 MB).
 * It is built in two steps, neither of which stops the server answering:
 * 1. the rows, in batches the server answers between (filtering and search work from here on, a
 *    search scanning the copy),
 * 2. in a worker thread with its own connection (copy-indexer.ts; the copy in WAL mode, so the
 *    pages read while it writes): an index per column for sorting (one CREATE INDEX each, some
 *    seconds per million rows), a column asked for by a page first, then a full-text index (FTS5,
 *    trigram tokenizer, without positions: a text of three characters or more is looked up as the
 *    rows holding all its trigrams). A sort waits for its column's index (a page that reloads).
 * A search finds the same rows either way: the index only proposes candidates, every one is
 * checked with the rule of the scan (browse-rows.ts `rowMatches`: case-insensitive substring of
 * the cell's text). A search the index cannot answer scans the whole copy, in a worker thread
 * (copy-scan.ts) so that the server answers other requests meanwhile. LOB counts (table-summary.ts)
 * are kept too, counted while the rows are copied.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToServer } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';
import { cellType } from '../siard/model.js';
import type { SiardTableRef } from '../siard/reader/siard-reader.js';
import type { SiardReadRow } from '../siard/reader/types.js';
import { columnTypeFamily } from '../siard/reader/table-rows.js';
import { lobCounter, type LobSummary } from '../siard/reader/table-summary.js';
import { cellText, rowView, type CellView, type RowView } from './browse-rows.js';
import { CopyIndexer, sortIndexName } from './copy-indexer.js';
import { CopyScans } from './copy-scan.js';
import type { CopyProgress } from './copy-progress.js';
import type { OpenedArchive } from './open-archive.js';

export interface CopyQuery {
  /** text looked for (case-insensitive), in `column` (0-based) or in every column */
  query?: string;
  column?: number;
  sort?: { column: number; descending: boolean };
  offset: number;
  limit: number;
}

export interface CopyPage {
  rows: RowView[];
  /** rows matching (the table's rows without a query) */
  total: number;
  /** how the rows holding the query were found: the full-text index, or a scan of the copy */
  by: 'index' | 'scan' | 'none';
}

/** One table's copy, open. */
class AccessCopy {
  private readonly numeric: boolean[];
  private readonly binary: boolean[];

  constructor(
    private readonly db: BetterSqlite3.Database,
    readonly file: string,
    t: SiardTableRef,
    private readonly scans: CopyScans,
  ) {
    this.numeric = numericColumns(t);
    this.binary = binaryColumns(t);
    // The scan's rule (browse-rows.ts rowMatches), as copy-scan.ts's worker defines it too.
    db.function('siard_has', { deterministic: true, varargs: true }, (needle: unknown, ...values: unknown[]) =>
      values.some((v) => typeof v === 'string' && v.toLowerCase().includes(needle as string)) ? 1 : 0,
    );
  }

  private meta(key: string): string | undefined {
    return (this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  /** the table's LOBs, counted from its cells while the rows were copied */
  get lobs(): LobSummary {
    return JSON.parse(this.meta('lobs')!) as LobSummary;
  }

  get rowCount(): number {
    return Number(this.meta('rows'));
  }

  /** rows in the full-text index (all of them once it is built) */
  get indexedTo(): number {
    return Number(this.meta('indexed') ?? 0);
  }

  get indexed(): boolean {
    return this.meta('fts') === 'done';
  }

  /** the sort key of a column: its number for integer, decimal and float columns, else its text */
  private key(column: number): string {
    return this.numeric[column] ? `n${column + 1}` : `t${column + 1}`;
  }

  /** Whether the index a sort by `column` uses is built (the indexer builds it: copy-indexer.ts). */
  canSort(column: number): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(sortIndexName(column)) !== undefined;
  }

  /** A page of rows; a search the index cannot answer scans the copy in a worker thread (copy-scan.ts). */
  async page(q: CopyQuery): Promise<CopyPage> {
    const where: string[] = [];
    const params: unknown[] = [];
    let by: CopyPage['by'] = 'none';
    if (q.query !== undefined && q.query !== '') {
      const columns = q.column === undefined ? this.numeric.map((_, c) => `t${c + 1}`) : [`t${q.column + 1}`];
      where.push(`siard_has(?, ${columns.join(', ')})`);
      params.push(q.query.toLowerCase());
      by = 'scan';
      // The trigram index proposes the rows holding every trigram of the text (three characters or
      // more; shorter ones are scanned), in any column: the rule above decides.
      const trigrams = trigramsOf(q.query);
      if (this.indexed && trigrams.length > 0) {
        where.push('i IN (SELECT rowid FROM fts WHERE fts MATCH ?)');
        params.push(trigrams.map((g) => `"${g.replaceAll('"', '""')}"`).join(' AND '));
        by = 'index';
      }
    }
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    let order = 'i';
    if (q.sort) {
      // NULLs first ascending (last descending); ties in table order.
      order = `${this.key(q.sort.column)} ${q.sort.descending ? 'DESC' : 'ASC'}, i`;
    }
    const texts = this.numeric.map((_, c) => `t${c + 1}`).join(', ');
    const select = {
      sql: `SELECT i, view, ${texts} FROM rows ${clause} ORDER BY ${order} LIMIT ? OFFSET ?`,
      params: [...params, q.limit, q.offset],
    };
    const count = { sql: `SELECT count(*) FROM rows ${clause}`, params };
    let found: Array<[number, string | null, ...Array<string | null>]>;
    let total: number;
    if (by === 'scan') {
      const scanned = await this.scans.scan(this.file, select, count);
      found = scanned.rows as typeof found;
      total = scanned.total;
    } else {
      found = this.db
        .prepare(select.sql)
        .raw()
        .all(...select.params) as typeof found;
      total =
        clause === ''
          ? this.rowCount
          : (this.db
              .prepare(count.sql)
              .pluck()
              .get(...count.params) as number);
    }
    const rows = found.map(([i, view, ...text]) =>
      view === null ? plainView(i, text, this.binary) : { index: i, ...(JSON.parse(view) as Omit<RowView, 'index'>) },
    );
    return { rows, total, by };
  }

  close(): void {
    this.db.close();
  }
}

/** The distinct three-character pieces of `text` (by code point), at most 16 spread over it: what the index is asked for. */
function trigramsOf(text: string): string[] {
  const chars = [...text];
  const all = [...new Set(chars.slice(2).map((_, i) => chars.slice(i, i + 3).join('')))];
  if (all.length <= 16) return all;
  return Array.from({ length: 16 }, (_, k) => all[Math.floor((k * (all.length - 1)) / 15)]!);
}

/** Columns whose inline values are bytes (their text: hex). */
function binaryColumns(t: SiardTableRef): boolean[] {
  return t.table.columns.map((c) => {
    const family = columnTypeFamily(cellType(c));
    return family === 'blob' || family === 'binary';
  });
}

/**
 * Whether a row is shown exactly by plainView from its cells' texts: every cell NULL, a string in a
 * column of text, or bytes in a BLOB/BINARY column (no LOB file, no ARRAY or UDT value).
 */
function isPlain(row: SiardReadRow, binary: boolean[]): boolean {
  return row.cells.every((v, c) => v === null || (binary[c] ? v instanceof Uint8Array : typeof v === 'string'));
}

/** The view of a plain row (isPlain) from its cells' texts, as rowView makes it from the cells. */
function plainView(index: number, text: Array<string | null>, binary: boolean[]): RowView {
  const cells = text.map((v, c): CellView => {
    if (v === null) return { kind: 'null' };
    return binary[c] ? { kind: 'binary', bytes: v.length / 2, hex: v } : { kind: 'text', text: v };
  });
  return { index, cells, lobs: [] };
}

function numericColumns(t: SiardTableRef): boolean[] {
  return t.table.columns.map((c) => {
    const family = columnTypeFamily(cellType(c));
    return family === 'integer' || family === 'decimal' || family === 'float';
  });
}

interface Build {
  progress: CopyProgress;
  copy?: AccessCopy;
  /** while the indexes are built: asks for a column's sort index before the others */
  preferSort?: (column: number) => void;
}

/** Where the copy of a table of an object version is, and what the workspace keeps. */
export interface CopyAt {
  /** the storage root's location: one workspace may serve several roots */
  root: string;
  id: string;
  version: string;
}

/** The access copies of a workspace folder: found there, or built on the first call that needs one. */
export class AccessCopies {
  private readonly builds = new Map<string, Build>();
  /** set by close(): builds stop at their next batch (a copy of rows is removed, an index resumes next time) */
  private stopped = false;
  /** index builds running, stopped by close() */
  private readonly indexers = new Set<CopyIndexer>();
  /** searches scanning a copy, in worker threads; ended by close() */
  private readonly scans = new CopyScans();

  constructor(
    /** a folder outside the storage root */
    readonly dir: string,
  ) {}

  private objectDir(at: { root: string; id: string }): string {
    return path.join(this.dir, createHash('sha256').update(`${at.root}\n${at.id}`).digest('hex').slice(0, 32));
  }

  private fileOf(at: CopyAt, t: SiardTableRef): string {
    const table = createHash('sha256').update(`${t.schema.name}\n${t.table.name}`).digest('hex').slice(0, 32);
    // `.2`: rows without their view (plainView); a copy of the first form is not read as this one.
    return path.join(this.objectDir(at), at.version, `${table}.2.sqlite`);
  }

  /**
   * The copy of table `t` of the archive at `at` when it can be used (while its indexes are still
   * being built, too), and how far its build is. The first call starts the build.
   */
  copy(at: CopyAt, archive: OpenedArchive, t: SiardTableRef): Build {
    const file = this.fileOf(at, t);
    let build = this.builds.get(file);
    if (!build) {
      build = { progress: { phase: 'rows', done: 0, total: t.table.rows, columns: t.table.columns.length, startedAt: Date.now() } };
      this.builds.set(file, build);
      const b = build;
      void this.run(file, archive, t, b).catch((err: Error) => {
        b.progress.phase = 'failed';
        b.progress.error = err.message;
      });
    }
    return build;
  }

  /** The copy of a table and its progress if its build has started (none is started here). */
  peek(at: CopyAt, t: SiardTableRef): Build | undefined {
    return this.builds.get(this.fileOf(at, t));
  }

  private async run(file: string, archive: OpenedArchive, t: SiardTableRef, build: Build): Promise<void> {
    const { default: Database } = await import('../sources/sqlite/driver.js');
    if (!existsSync(file)) {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      const building = `${file}.${process.pid}.building`;
      rmSync(building, { force: true });
      const started = Date.now();
      const db = new Database(building);
      try {
        await copyRows(db, archive, t, build.progress, () => this.stopped);
        db.close();
      } catch (err) {
        db.close();
        rmSync(building, { force: true });
        throw err;
      }
      renameSync(building, file);
      build.progress.rowsSeconds = (Date.now() - started) / 1000;
    }
    const db = new Database(file);
    // WAL: the pages read from this connection while the indexer writes from its own.
    db.pragma('journal_mode = WAL');
    build.copy = new AccessCopy(db, file, t, this.scans);
    if (!build.copy.indexed) {
      if (this.stopped) throw new Error(STOPPED);
      build.progress.phase = 'indexes';
      build.progress.sorted = 0;
      const started = Date.now();
      const sortKeys = numericColumns(t).map((isNumber, c) => (isNumber ? `n${c + 1}` : `t${c + 1}`));
      const indexer = new CopyIndexer(file, sortKeys, build.progress);
      this.indexers.add(indexer);
      build.preferSort = (column) => indexer.prefer(column);
      try {
        await indexer.done;
      } finally {
        this.indexers.delete(indexer);
        build.preferSort = undefined;
      }
      build.progress.indexSeconds = (Date.now() - started) / 1000;
    }
    build.progress.phase = 'ready';
  }

  /** Removes the copies of object `id` made for other versions than `keep` (its head changed). */
  retire(at: { root: string; id: string }, keep: string): void {
    const dir = this.objectDir(at);
    for (const [file, build] of this.builds) {
      if (!file.startsWith(dir + path.sep) || path.basename(path.dirname(file)) === keep || build.progress.phase !== 'ready') continue;
      build.copy?.close();
      this.builds.delete(file);
      rmSync(path.dirname(file), { recursive: true, force: true });
    }
  }

  close(): void {
    this.stopped = true;
    for (const indexer of this.indexers) indexer.stop();
    this.scans.stop();
    for (const b of this.builds.values()) if (b.progress.phase === 'ready') b.copy?.close();
    this.builds.clear();
  }
}

const STOPPED = 'The reading room was stopped while the access copy was built.';

async function copyRows(
  db: BetterSqlite3.Database,
  archive: OpenedArchive,
  t: SiardTableRef,
  progress: CopyProgress,
  stopped: () => boolean,
): Promise<void> {
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  const numeric = numericColumns(t);
  const n = numeric.length;
  const texts = numeric.map((_, c) => `t${c + 1}`);
  const numbers = numeric.flatMap((isNumber, c) => (isNumber ? [`n${c + 1} REAL`] : []));
  const declared = [...texts.map((c) => `${c} TEXT`), ...numbers].map((c) => `, ${c}`).join('');
  db.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
    CREATE TABLE rows (i INTEGER PRIMARY KEY, view TEXT${declared})`);
  const columns = ['i', 'view', ...texts, ...numeric.flatMap((isNumber, c) => (isNumber ? [`n${c + 1}`] : []))];
  const insert = db.prepare(`INSERT INTO rows (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  const lobs = lobCounter(t);
  const binary = binaryColumns(t);
  const insertBatch = db.transaction((values: unknown[][]) => {
    for (const v of values) insert.run(...v);
  });
  for await (const batch of archive.reader.rowBatches(t)) {
    const values: unknown[][] = [];
    for (const row of batch) {
      lobs.add(row);
      const view = isPlain(row, binary) ? undefined : rowView(t, row);
      const text = row.cells.map((v) => cellText(v) ?? null);
      const nums: Array<number | null> = [];
      for (let c = 0; c < n; c++) {
        if (!numeric[c]) continue;
        const x = text[c] === null ? NaN : Number(text[c]);
        nums.push(Number.isNaN(x) ? null : x);
      }
      values.push([row.index, view ? JSON.stringify({ cells: view.cells, lobs: view.lobs }) : null, ...text, ...nums]);
      progress.done = row.index;
    }
    insertBatch(values);
    await yieldToServer();
    if (stopped()) throw new Error(STOPPED);
  }
  const meta = db.prepare('INSERT INTO meta VALUES (?, ?)');
  meta.run('rows', String(progress.done));
  meta.run('lobs', JSON.stringify(lobs.summary));
}
