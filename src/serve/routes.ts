/**
 * One function per page of the reading room: read the query parameters, look each one up (object
 * id in the root, version in the object, logical path in the version's state, schema and table in
 * metadata.xml, row by its number in the table XML, LOB by its cell path in the row), then render.
 * Nothing from a URL is used as a file path.
 */
import { PassThrough, Readable } from 'node:stream';
import { bytesUnder, diffVersions, SIZED_FILES, versionFiles } from '../archive/browse.js';
import {
  findRow,
  findTable,
  openCellBytes,
  readRowsPage,
  rowMatches,
  rowView,
  searchRows,
  SORT_MAX_ROWS,
  sortedRowsPage,
} from '../archive/browse-rows.js';
import { csvRecord } from '../archive/csv.js';
import type { OpenedArchive } from '../archive/open-archive.js';
import { tableTextRows } from '../archive/rows.js';
import { writeTableZip } from '../archive/table-zip.js';
import type { SiardTableRef } from '../siard/reader/siard-reader.js';
import { mayHoldLobs, summariseTable } from '../siard/reader/table-summary.js';
import type { AccessCopies } from '../archive/access-copy.js';
import {
  archivePage,
  copyProgressPage,
  copySearchPage,
  diagramPage,
  diffPage,
  lobsPage,
  objectPage,
  rootPage,
  rowPage,
  searchPage,
  tablePage,
  versionPage,
  type ArchiveAt,
  type TableLobs,
  type TableParams,
} from './pages.js';
import { diagramDot, renderSvg } from './diagram.js';
import { lobHeaders, previewOf, SNIFF_BYTES } from './preview.js';
import { HttpError, type Reply, type Room } from './room.js';

/** The key of a table's LOB counts in Room.lobCounts. */
function lobKey(at: ArchiveAt, t: SiardTableRef): string {
  return `${at.id}\n${at.v}\n${t.schema.name}\n${t.table.name}`;
}

/** Compressed table XML the database page reads, at most, to count LOBs (tables beyond it are counted on demand). */
const LOB_COUNT_BUDGET = 8 * 1024 * 1024;

/**
 * Each table's LOBs for the database page: none when metadata.xml says the table cannot hold any;
 * else as counted before (the /lobs page, an access copy), or counted now from the cells when its
 * table XML is small (within LOB_COUNT_BUDGET for the page); undefined: not counted yet.
 */
async function tableLobs(room: Room, at: ArchiveAt, archive: OpenedArchive, tables: SiardTableRef[]): Promise<TableLobs[]> {
  let budget = LOB_COUNT_BUDGET;
  const out: TableLobs[] = [];
  for (const t of tables) {
    const key = lobKey(at, t);
    const copy = room.copies.peek({ root: room.root.location, id: at.id, version: at.v }, t)?.copy;
    if (copy) room.lobCounts.set(key, copy.lobs);
    const known = room.lobCounts.get(key);
    const xmlBytes = archive.reader.zip.entry(t.xmlEntry)?.compressedSize ?? 0;
    if (t.table.rows === 0 || !mayHoldLobs(t)) out.push({ by: 'metadata' });
    else if (known) out.push({ by: 'cells', summary: known });
    else if (xmlBytes <= budget) {
      budget -= xmlBytes;
      const summary = await summariseTable(archive.reader, t);
      room.lobCounts.set(key, summary);
      out.push({ by: 'cells', summary });
    } else out.push({ by: 'not counted', xmlBytes });
  }
  return out;
}

/** A page (HTML) or a reply of bytes. */
export type Route = (room: Room, q: URLSearchParams) => Promise<Reply | string>;

const PAGE_SIZE = 50;

function need(q: URLSearchParams, name: string): string {
  const v = q.get(name);
  if (v === null || v === '') throw new HttpError(400, `The address lacks its "${name}" parameter.`);
  return v;
}

function pageNumber(q: URLSearchParams): number {
  const p = q.get('page');
  if (p === null) return 1;
  if (!/^[1-9][0-9]{0,8}$/.test(p)) throw new HttpError(400, `Page "${p}" is not a page number.`);
  return Number(p);
}

/**
 * The object and version named by `id` and `v` (default: the head), both looked up: the version's
 * reader (Room.version) is opened here, so a missing object or version is a 404 before any page.
 */
async function versionAt(room: Room, q: URLSearchParams): Promise<ArchiveAt> {
  const id = need(q, 'id');
  const asked = q.get('v');
  if (asked !== null && !/^v[0-9]{1,9}$/.test(asked)) throw new HttpError(404, `Object "${id}" has no version "${asked}".`);
  const v = asked ?? (await room.head(id));
  await room.version(id, v);
  return { id, v };
}

async function tableAt(room: Room, q: URLSearchParams): Promise<{ at: TableParams; archive: OpenedArchive; t: SiardTableRef }> {
  const at = await versionAt(room, q);
  const archive = await room.archive(at.id, at.v);
  const s = need(q, 's');
  const name = need(q, 't');
  const t = findTable(archive, s, name);
  if (!t) throw new HttpError(404, `The database has no table "${name}" in schema "${s}".`);
  return { at: { ...at, s, t: name }, archive, t };
}

async function rowAt(room: Room, q: URLSearchParams) {
  const found = await tableAt(room, q);
  const r = need(q, 'r');
  const key = [found.at.id, found.at.v, found.at.s, found.at.t, r].join('\n');
  const row = /^[1-9][0-9]{0,15}$/.test(r) ? await room.foundRow(key, () => findRow(found.archive, found.t, Number(r))) : undefined;
  if (!row) throw new HttpError(404, `Table ${found.t.table.name} has no row "${r}".`);
  return { ...found, row };
}

const SEARCH_BUDGET_MS = 2000;

/** The `sort` and `dir` parameters, looked up among the table's columns. */
function sortOf(t: SiardTableRef, q: URLSearchParams): { column: string; index: number; descending: boolean } | undefined {
  const column = q.get('sort');
  if (column === null || column === '') return undefined;
  const index = t.table.columns.findIndex((c) => c.name === column);
  if (index < 0) throw new HttpError(404, `Table ${t.table.name} has no column "${column}".`);
  return { column, index, descending: q.get('dir') === 'desc' };
}

/**
 * The access copy of a table larger than the room's threshold, or undefined for a smaller table;
 * `start`: its build is started if need be (a sort or a search), else only a build already started.
 */
function copyOf(room: Room, at: TableParams, archive: OpenedArchive, t: SiardTableRef, start: boolean) {
  if (t.table.rows <= room.copyFrom) return undefined;
  const where = { root: room.root.location, id: at.id, version: at.v };
  return start ? room.copies.copy(where, archive, t) : room.copies.peek(where, t);
}

/** A page of a table sorted, filtered or searched through its access copy (access-copy.ts), or how far its build is. */
async function throughCopy(
  at: TableParams,
  t: SiardTableRef,
  build: ReturnType<AccessCopies['copy']>,
  q: URLSearchParams,
): Promise<string | Reply> {
  const query = q.get('q') ?? '';
  const col = q.get('col') ?? '';
  const sort = sortOf(t, q);
  const column = searchColumn(t, q);
  if (!build.copy) {
    const page = copyProgressPage(at, t, build.progress, { q: query || undefined, col: col || undefined });
    return build.progress.phase === 'failed' ? { status: 500, body: page } : page;
  }
  if (sort && build.preferSort && !build.copy.canSort(sort.index)) {
    // Its index is being built in the indexer's thread: asked for first, shown as progress meanwhile.
    build.preferSort(sort.index);
    return copyProgressPage(at, t, build.progress, { q: query || undefined, col: col || undefined }, sort.column);
  }
  const page = pageNumber(q);
  const found = await build.copy.page({
    ...(query !== '' ? { query } : {}),
    ...(column !== undefined ? { column } : {}),
    ...(sort ? { sort: { column: sort.index, descending: sort.descending } } : {}),
    offset: (page - 1) * PAGE_SIZE,
    limit: PAGE_SIZE,
  });
  if (found.rows.length === 0 && page > 1) throw new HttpError(404, `Table ${t.table.name} has no page ${page}.`);
  const more = found.total > page * PAGE_SIZE;
  const shown = sort ? { column: sort.column, descending: sort.descending } : undefined;
  if (query === '') return tablePage(at, t, found.rows, page, more, shown, true, build.progress);
  return copySearchPage(at, t, { query, column: col, page, more, ...found }, shown, build.progress);
}

/** The `col` parameter as a column index (undefined: every column). */
function searchColumn(t: SiardTableRef, q: URLSearchParams): number | undefined {
  const col = q.get('col') ?? '';
  if (col === '') return undefined;
  const column = t.table.columns.findIndex((c) => c.name === col);
  if (column === -1) throw new HttpError(404, `Table ${t.table.name} has no column "${col}".`);
  return column;
}

/** Rows holding `query`, by a scan from the start (or from `after`), within a time budget (browse-rows.ts). */
async function search(at: TableParams, archive: OpenedArchive, t: SiardTableRef, query: string, q: URLSearchParams) {
  const col = q.get('col') ?? '';
  const column = searchColumn(t, q);
  const afterText = q.get('after') ?? '0';
  if (!/^[0-9]{1,16}$/.test(afterText)) throw new HttpError(400, `"${afterText}" is not a row number.`);
  const after = Number(afterText);
  const found = await searchRows(archive, t, {
    query,
    ...(column !== undefined ? { column } : {}),
    after,
    limit: PAGE_SIZE,
    budgetMs: SEARCH_BUDGET_MS,
  });
  return searchPage(at, t, { query, column: col, after, ...found });
}

/** A stream sent after its first bytes decided how (preview.ts). */
async function lobReply(bytes: Readable, size: number | undefined, download: boolean, fileName: string): Promise<Reply> {
  const iterator = (bytes as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let got = 0;
  let done = false;
  while (got < SNIFF_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    head.push(next.value);
    got += next.value.length;
  }
  const first = Buffer.concat(head);
  const preview = await previewOf(first.subarray(0, SNIFF_BYTES));
  const body = (async function* () {
    try {
      yield first;
      if (!done) for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    } finally {
      // A client gone mid-LOB stops this generator: the LOB's stream is closed with it.
      bytes.destroy();
    }
  })();
  return { headers: lobHeaders(preview, download, fileName, size), body: Object.assign(body, { destroy: () => bytes.destroy() }) };
}

export const ROUTES: Record<string, Route> = {
  '/': async (room, q) => {
    const [filter, page] = [q.get('q') ?? '', pageNumber(q)];
    return rootPage(room.root.location, await room.listObjects(filter, (page - 1) * PAGE_SIZE, PAGE_SIZE), filter, page, PAGE_SIZE);
  },

  '/object': async (room, q) => {
    const id = need(q, 'id');
    // A head read before is checked again (a sidecar read when unchanged): a new version retires the old ones' access copies.
    if (room.knowsHead(id)) await room.head(id);
    // The versions' metadata streamed from the inventory, not an open object.
    const versions = await room.root.objectVersions(id);
    const path = await room.root.findObject(id);
    const files = versions.reduce((most, v) => Math.max(most, v.fileCount), 0);
    // A large object's bytes are counted when asked: a folder listing per folder and a stat per file.
    const count = files <= SIZED_FILES || q.get('count') !== null;
    return objectPage(id, versions, count && path !== undefined ? await bytesUnder(room.root.storage, path) : undefined);
  },

  '/version': async (room, q) => {
    const at = await versionAt(room, q);
    const page = pageNumber(q);
    const { total, files } = await versionFiles(await room.version(at.id, at.v), at.v, (page - 1) * PAGE_SIZE, PAGE_SIZE);
    return versionPage(at, files, total, page, PAGE_SIZE);
  },

  '/diff': async (room, q) => {
    const id = need(q, 'id');
    const object = await room.object(id);
    const [a, b] = [need(q, 'a'), need(q, 'b')];
    for (const v of [a, b]) if (!object.hasVersion(v)) throw new HttpError(404, `Object "${id}" has no version "${v}".`);
    return diffPage(id, a, b, diffVersions(object, a, b));
  },

  '/file': async (room, q) => {
    const at = await versionAt(room, q);
    const object = await room.version(at.id, at.v);
    const path = need(q, 'path');
    // Looked up in the version's state: a path not there (`..`, absolute, anything) is simply not found.
    if (!object.state(at.v).has(path)) throw new HttpError(404, `Version ${at.v} has no file "${path}".`);
    const size = (await object.storage.stat(object.storagePath(object.contentPath(path, at.v))))?.size;
    const name = path.slice(path.lastIndexOf('/') + 1).replace(/[^A-Za-z0-9._-]/g, '_');
    return {
      headers: {
        'Content-Type': 'application/octet-stream',
        'Content-Disposition': `attachment; filename="${name}"`,
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; sandbox",
        ...(size !== undefined ? { 'Content-Length': String(size) } : {}),
      },
      body: object.openLogical(path, at.v),
    };
  },

  '/archive': async (room, q) => {
    const at = await versionAt(room, q);
    const archive = await room.archive(at.id, at.v);
    const tables = archive.reader.tables();
    return archivePage(at, archive.name, archive.reader.archive, tables, await tableLobs(room, at, archive, tables));
  },

  '/diagram': async (room, q) => {
    const at = await versionAt(room, q);
    const archive = await room.archive(at.id, at.v);
    return diagramPage(at, archive.reader.archive.dbname);
  },

  '/diagram.svg': async (room, q) => {
    const at = await versionAt(room, q);
    const archive = await room.archive(at.id, at.v);
    return {
      headers: {
        'Content-Type': 'image/svg+xml',
        'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
        'X-Content-Type-Options': 'nosniff',
      },
      body: Readable.from([await renderSvg(diagramDot(archive.reader.archive))]),
    };
  },

  '/table': async (room, q) => {
    const { at, archive, t } = await tableAt(room, q);
    const query = q.get('q');
    const large = t.table.rows > room.copyFrom;
    // `scan`: a search by scanning the table XML, without the copy (offered while it is built).
    if (large && q.get('scan') === null && ((query !== null && query !== '') || sortOf(t, q)))
      return throughCopy(at, t, copyOf(room, at, archive, t, true)!, q);
    if (query !== null && query !== '') return search(at, archive, t, query, q);
    const page = pageNumber(q);
    const sort = sortOf(t, q);
    if (sort && t.table.rows > SORT_MAX_ROWS)
      throw new HttpError(
        400,
        `Table ${t.table.name} has ${t.table.rows} rows; sorting in memory is offered for at most ${SORT_MAX_ROWS}.`,
      );
    const { rows, more } = sort
      ? await sortedRowsPage(archive, t, sort.index, sort.descending, (page - 1) * PAGE_SIZE, PAGE_SIZE)
      : await readRowsPage(archive, t, (page - 1) * PAGE_SIZE, PAGE_SIZE);
    if (rows.length === 0 && page > 1) throw new HttpError(404, `Table ${t.table.name} has no page ${page}.`);
    const shown = sort ? { column: sort.column, descending: sort.descending } : undefined;
    const progress = large ? (copyOf(room, at, archive, t, false)?.progress ?? { phase: 'none', total: t.table.rows }) : undefined;
    return tablePage(at, t, rows, page, more, shown, large || t.table.rows <= SORT_MAX_ROWS, progress);
  },

  '/lobs': async (room, q) => {
    const { at, archive, t } = await tableAt(room, q);
    const summary = await summariseTable(archive.reader, t);
    room.lobCounts.set(lobKey(at, t), summary);
    return lobsPage(at, t, summary);
  },

  '/row': async (room, q) => {
    const { at, t, row } = await rowAt(room, q);
    return rowPage(at, t, rowView(t, row));
  },

  '/lob': async (room, q) => {
    const { archive, t, row } = await rowAt(room, q);
    const cellPath = need(q, 'p');
    const { stream, size } = await openCellBytes(archive, t, row, cellPath);
    const name = `${t.table.name}-row${row.index}-${cellPath.replaceAll('/', '-')}.bin`;
    return lobReply(stream, size, q.get('download') !== null, name);
  },

  '/zip': async (room, q) => {
    const { archive, t } = await tableAt(room, q);
    const query = q.get('q') ?? '';
    const where = query === '' ? undefined : rowMatches(query, searchColumn(t, q));
    const out = new PassThrough();
    writeTableZip(archive, t, out, where).catch((err: Error) => out.destroy(err));
    const name = `${t.schema.name}.${t.table.name}.zip`.replace(/[^A-Za-z0-9._-]/g, '_');
    return {
      headers: {
        'Content-Type': 'application/zip',
        'Content-Disposition': `attachment; filename="${name}"`,
        'X-Content-Type-Options': 'nosniff',
      },
      body: out,
    };
  },

  '/csv': async (room, q) => {
    const { archive, t } = await tableAt(room, q);
    const header = csvRecord(t.table.columns.map((c) => c.name));
    // With a search's `q` (and `col`): only the rows it finds, the whole table scanned.
    const query = q.get('q') ?? '';
    const rows = tableTextRows(archive, t, query === '' ? undefined : rowMatches(query, searchColumn(t, q)));
    const body = (async function* () {
      let pending = header;
      for await (const fields of rows) {
        pending += csvRecord(fields);
        if (pending.length >= 65536) {
          yield pending;
          pending = '';
        }
      }
      yield pending;
    })();
    const name = `${t.schema.name}.${t.table.name}.csv`.replace(/[^A-Za-z0-9._-]/g, '_');
    return {
      headers: {
        'Content-Type': 'text/csv; charset=utf-8; header=present',
        'Content-Disposition': `attachment; filename="${name}"`,
        'X-Content-Type-Options': 'nosniff',
      },
      body: Readable.from(body),
    };
  },
};
