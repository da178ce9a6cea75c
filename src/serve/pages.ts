/**
 * The reading room's pages, rendered from what src/archive/ gives: pure functions from data to
 * HTML, every value escaped by the `html` template (html.ts). No script is sent: links and one GET
 * form per page are all the navigation.
 */
import type { ObjectsPage, VersionDiff, VersionFile } from '../archive/browse.js';
import { SORT_MAX_ROWS, type CellView, type RowView } from '../archive/browse-rows.js';
import type { InventoryVersionSummary } from '../ocfl/inventory/inventory.js';
import type { SiardArchive, SiardColumn, SiardSchema, SiardTable } from '../siard/model.js';
import type { SiardTableRef } from '../siard/reader/siard-reader.js';
import type { LobSummary } from '../siard/reader/table-summary.js';
import type { CopyProgress } from '../archive/copy-progress.js';
import { href, html, type SafeHtml } from './html.js';

/** Where an archive is: object id and version (the .siard's logical path is found in the version). */
export interface ArchiveAt {
  id: string;
  v: string;
}

function layout(title: string, body: SafeHtml, crumbs: SafeHtml[] = [], reloadSeconds?: number): string {
  return (
    '<!doctype html>\n' +
    html`<html lang="en">
      <head>
        <meta charset="utf-8" />
        ${reloadSeconds !== undefined ? html`<meta http-equiv="refresh" content="${reloadSeconds}" />` : ''}
        <meta name="viewport" content="width=device-width" />
        <title>${title} - siard-ocfl reading room</title>
        <link rel="stylesheet" href="/style.css" />
      </head>
      <body>
        <nav><a href="/">Objects</a>${crumbs.map((c) => html` / ${c}`)}</nav>
        <main>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`.text
  );
}

export const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222}nav{background:#234;color:#9ab;padding:.5em 1em}
nav a{color:#fff}main{padding:0 1em 2em}table{border-collapse:collapse;margin:.5em 0}
td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top;text-align:left;max-width:40em;overflow-wrap:anywhere}
th{background:#eef}.null{color:#999;font-style:italic}.num{text-align:right}.pager a{margin-right:1em}
pre{white-space:pre-wrap;overflow-wrap:anywhere}`;

function when(s: string | undefined): string {
  return s ?? '';
}

export function rootPage(root: string, objects: ObjectsPage, filter: string, page: number, pageSize: number): string {
  const shown = objects.rows;
  const counted = objects.partial
    ? html`<span id="listing"
        >being listed: ${objects.total} objects found so far, these the first of them by id; this page reloads itself until the whole list
        is made</span
      >`
    : html`${objects.total} objects${filter !== '' ? `, ${objects.matching} matching` : ''}`;
  const body = html`<p>Storage root <code>${root}</code>: ${counted}.</p>
    <form method="get" action="/">
      <label>Filter by id <input name="q" value="${filter}" /></label> <button>Filter</button>
    </form>
    <table id="objects">
      <thead>
        <tr>
          <th>id</th>
          <th>head</th>
          <th>date</th>
          <th>files</th>
          <th>bytes stored</th>
        </tr>
      </thead>
      <tbody>
        ${shown.map((o) =>
          o.id === undefined
            ? html`<tr>
                <td colspan="5">${o.path}: ${o.error ?? 'unreadable'}</td>
              </tr>`
            : html`<tr>
                <td><a href="${href('/object', { id: o.id })}">${o.id}</a></td>
                <td>${o.head ?? ''}</td>
                ${
                  o.inventoryBytes !== undefined
                    ? html`<td colspan="3">(an inventory of ${(o.inventoryBytes / 1e6).toFixed(0)} MB: read on the object's page)</td>`
                    : html`<td>${when(o.created)}</td>
                        <td class="num">${o.fileCount ?? ''}</td>
                        <td class="num">${o.bytes !== undefined ? o.bytes.toLocaleString('en') : "on the object's page"}</td>`
                }
              </tr>`,
        )}
      </tbody>
    </table>
    ${pager('/', { q: filter || undefined }, page, objects.matching > page * pageSize)}`;
  return layout('Objects', body, [], objects.partial ? 1 : undefined);
}

function pager(path: string, params: Record<string, string | number | undefined>, page: number, more: boolean): SafeHtml {
  return html`<p class="pager">
    ${page > 1 ? html`<a rel="prev" href="${href(path, { ...params, page: page - 1 })}">previous page</a>` : ''} page
    ${page}${more ? html` <a rel="next" href="${href(path, { ...params, page: page + 1 })}">next page</a>` : ''}
  </p>`;
}

function user(v: InventoryVersionSummary): string {
  return v.user ? `${v.user.name}${v.user.address ? ` <${v.user.address}>` : ''}` : '';
}

/** `bytes`: stored under the object root; undefined: not counted (a large object's are counted when asked). */
export function objectPage(id: string, versions: InventoryVersionSummary[], bytes: number | undefined): string {
  const newest = [...versions].reverse();
  const options = (selected: string) =>
    newest.map((v) => html`<option${v.version === selected ? html` selected` : ''}>${v.version}</option>`);
  const count = href('/object', { id, count: '1' });
  const stored =
    bytes !== undefined
      ? html`${bytes.toLocaleString('en')} bytes stored`
      : html`<a id="count-bytes" href="${count}">count the bytes stored</a> (a listing of each of its folders)`;
  const body = html`<p>${versions.length} versions, ${stored}.</p>
    <table id="versions">
      <thead>
        <tr>
          <th>version</th>
          <th>date</th>
          <th>user</th>
          <th>message</th>
          <th>files</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${newest.map(
          (v) =>
            html`<tr>
              <td><a href="${href('/version', { id, v: v.version })}">${v.version}</a></td>
              <td>${v.created}</td>
              <td>${user(v)}</td>
              <td>${v.message ?? ''}</td>
              <td class="num">${v.fileCount}</td>
              <td><a href="${href('/archive', { id, v: v.version })}">database</a></td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${
      versions.length > 1
        ? html`<form method="get" action="/diff">
            <input type="hidden" name="id" value="${id}" />What changed from
            <select name="a">
              ${options(newest[1]!.version)}
            </select>
            to
            <select name="b">
              ${options(newest[0]!.version)}
            </select>
            <button>Compare</button>
          </form>`
        : ''
    }`;
  return layout(id, body, [html`<a href="${href('/object', { id })}">${id}</a>`]);
}

export function versionPage(at: ArchiveAt, files: VersionFile[], total: number, page: number, pageSize: number): string {
  const body = html`<p>${total} files. <a href="${href('/archive', { ...at })}">The database in this version</a></p>
    <table id="files">
      <thead>
        <tr>
          <th>logical path</th>
          <th>bytes</th>
        </tr>
      </thead>
      <tbody>
        ${files.map(
          (f) =>
            html`<tr>
              <td><a href="${href('/file', { ...at, path: f.logicalPath })}">${f.logicalPath}</a></td>
              <td class="num">${f.size < 0 ? 'missing' : f.size}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${pager('/version', { ...at }, page, total > page * pageSize)}`;
  return layout(`${at.id} ${at.v}`, body, objectCrumbs(at));
}

function objectCrumbs(at: ArchiveAt): SafeHtml[] {
  return [html`<a href="${href('/object', { id: at.id })}">${at.id}</a>`, html`<a href="${href('/version', { ...at })}">${at.v}</a>`];
}

export function diffPage(id: string, a: string, b: string, diff: VersionDiff): string {
  const list = (title: string, paths: string[]) =>
    html`<h2>${title} (${paths.length})</h2>
      <ul>
        ${paths.slice(0, 1000).map((p) => html`<li>${p}</li>`)}
      </ul>
      ${paths.length > 1000 ? html`<p>and ${paths.length - 1000} more</p>` : ''}`;
  const body = html`<p>From ${a} to ${b}: ${diff.unchanged} files unchanged.</p>
    ${list('Added', diff.added)}${list('Removed', diff.removed)}${list('Changed', diff.changed)}`;
  return layout(`${id}: ${a} to ${b}`, body, [html`<a href="${href('/object', { id })}">${id}</a>`]);
}

function dl(pairs: Array<[string, string | undefined]>): SafeHtml {
  return html`<dl>
    ${pairs
      .filter((p) => p[1] !== undefined && p[1] !== '')
      .map(
        ([k, v]) =>
          html`<dt>${k}</dt>
            <dd>${v}</dd>`,
      )}
  </dl>`;
}

type Cell = SafeHtml | string | number;

/** A table of `headers` and `rows` (cells escaped unless made by html). */
function grid(headers: string[], rows: Cell[][], attributes: SafeHtml = html``): SafeHtml {
  return html`<table ${attributes}>
    <thead>
      <tr>
        ${headers.map((h) => html`<th>${h}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (r) =>
          html`<tr>
            ${r.map((c) => html`<td>${c}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** A table's LOBs on the database page: how they were counted, and the counts. */
export type TableLobs = { by: 'metadata' } | { by: 'cells'; summary: LobSummary } | { by: 'not counted'; xmlBytes: number };

function lobCells(at: ArchiveAt, t: SiardTableRef, lobs: TableLobs): Cell[] {
  if (lobs.by === 'metadata') return [0, 0];
  if (lobs.by === 'not counted') {
    const count = html`<a href="${href('/lobs', { ...at, s: t.schema.name, t: t.table.name })}">count them</a>`;
    return [html`${count} (reads ${(lobs.xmlBytes / 1e6).toFixed(0)} MB of table XML)`, ''];
  }
  const s = lobs.summary;
  const characters = s.lobCharacters > 0 ? ` + ${s.lobCharacters.toLocaleString('en')} characters` : '';
  return [
    `${s.lobCells.toLocaleString('en')}${s.inlineLobs > 0 ? ` (+ ${s.inlineLobs.toLocaleString('en')} inline)` : ''}`,
    `${(s.lobBytes + s.inlineLobBytes).toLocaleString('en')}${characters}`,
  ];
}

function schemaSection(at: ArchiveAt, s: SiardSchema, tables: Array<[SiardTableRef, TableLobs]>): SafeHtml {
  const routines = s.routines ?? [];
  const link = (t: SiardTableRef) => html`<a href="${href('/table', { ...at, s: s.name, t: t.table.name })}">${t.table.name}</a>`;
  return html`<h2>Schema ${s.name}</h2>
    ${s.description ? html`<p>${s.description}</p>` : ''}
    ${grid(
      ['table', 'rows', 'columns', 'LOBs', 'LOB bytes', 'description'],
      tables.map(([t, lobs]) => [link(t), t.table.rows, t.table.columns.length, ...lobCells(at, t, lobs), t.table.description ?? '']),
      html`class="tables"`,
    )}
    ${
      s.views.length > 0
        ? html`<h3>Views</h3>
            ${grid(
              ['view', 'query', 'description'],
              s.views.map((v) => [v.name, html`<pre>${v.query ?? v.queryOriginal ?? ''}</pre>`, v.description ?? '']),
            )}`
        : ''
    }
    ${
      routines.length > 0
        ? html`<h3>Routines</h3>
            ${grid(
              ['routine', 'returns', 'body', 'description'],
              routines.map((r) => [r.name, r.returnType ?? '', html`<pre>${r.body ?? r.source ?? ''}</pre>`, r.description ?? '']),
            )}`
        : ''
    }`;
}

export function archivePage(at: ArchiveAt, name: string, siard: SiardArchive, tables: SiardTableRef[], lobs: TableLobs[]): string {
  const header = dl([
    ['database', siard.dbname],
    ['description', siard.description],
    ['data owner', siard.dataOwner],
    ['data origin timespan', siard.dataOriginTimespan],
    ['producer application', siard.producerApplication],
    ['archiver', siard.archiver],
    ['archiver contact', siard.archiverContact],
    ['archival date', siard.archivalDate],
    ['database product', siard.databaseProduct],
    ['SIARD version', siard.version],
    ['LOB folder (database lobFolder)', siard.lobFolder],
  ]);
  const schemas = siard.schemas.map((s, si) =>
    schemaSection(
      at,
      s,
      tables.flatMap((t, i): Array<[SiardTableRef, TableLobs]> => (t.schemaIndex === si ? [[t, lobs[i]!]] : [])),
    ),
  );
  const users =
    siard.users.length > 0
      ? html`<h2>Users</h2>
          <ul>
            ${siard.users.map((u) => html`<li>${u.name}${u.description ? html`: ${u.description}` : ''}</li>`)}
          </ul>`
      : '';
  const body = html`<p><code>${name}</code> <a href="${href('/diagram', { ...at })}">diagram of the tables and foreign keys</a></p>
    ${header}${schemas}${users}
    <p>
      LOBs: the values of LOB columns in files (and inline), counted from the cells of the table XML (their length attributes; LOB files are
      not opened). A table whose columns cannot hold LOBs (metadata.xml) shows 0 without a read; a small table XML is read here; a large one
      when asked (or by its access copy). LOB bytes: BLOB bytes, plus characters for CLOB and XML.
    </p>`;
  return layout(`Database ${siard.dbname}`, body, archiveCrumbs(at));
}

function archiveCrumbs(at: ArchiveAt): SafeHtml[] {
  return [...objectCrumbs(at), html`<a href="${href('/archive', { ...at })}">database</a>`];
}

function columnType(c: SiardColumn): string {
  return c.type ?? (c.typeName !== undefined ? `${c.typeSchema ?? ''}.${c.typeName}` : '');
}

function structure(table: SiardTable): SafeHtml {
  const key = (name: string, columns: string[]) => html`<li>${name}: ${columns.join(', ')}</li>`;
  return html`<details>
    <summary>Columns and keys</summary>
    <table id="columns">
      <thead>
        <tr>
          <th>#</th>
          <th>column</th>
          <th>type</th>
          <th>original type</th>
          <th>nullable</th>
          <th>description</th>
        </tr>
      </thead>
      <tbody>
        ${table.columns.map(
          (c, i) =>
            html`<tr>
              <td>${i + 1}</td>
              <td>${c.name}</td>
              <td>${columnType(c)}</td>
              <td>${c.typeOriginal ?? ''}</td>
              <td>${c.nullable === undefined ? '' : c.nullable ? 'yes' : 'no'}</td>
              <td>${c.description ?? ''}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <ul>
      ${table.primaryKey ? key(`primary key ${table.primaryKey.name}`, table.primaryKey.columns) : ''}
      ${table.candidateKeys.map((k) => key(`candidate key ${k.name}`, k.columns))}
      ${table.foreignKeys.map(
        (k) =>
          html`<li>
            foreign key ${k.name}: (${k.references.map((r) => r.column).join(', ')}) references ${k.referencedSchema}.${k.referencedTable}
            (${k.references.map((r) => r.referenced).join(', ')})
          </li>`,
      )}
    </ul>
  </details>`;
}

export interface TableParams extends ArchiveAt {
  s: string;
  t: string;
}

/** How a table page is sorted: a column name and direction, or undefined (table order). */
export interface SortShown {
  column: string;
  descending: boolean;
}

/** A column header: a link sorting by it (ascending, or descending when it is already sorted ascending). */
/** `sort` null: the table is not sortable (plain headers). */
function header(at: TableParams, name: string, sort: SortShown | undefined | null, search: Search): SafeHtml {
  if (sort === null) return html`<th>${name}</th>`;
  const current = sort?.column === name;
  const mark = current ? (sort!.descending ? ' ▼' : ' ▲') : '';
  const dir = current && !sort!.descending ? 'desc' : undefined;
  return html`<th><a class="sort" href="${href('/table', { ...at, ...search, sort: name, dir })}">${name}</a>${mark}</th>`;
}

/** A search's parameters kept by the links of its page (sorting, paging). */
type Search = { q?: string | undefined; col?: string | undefined };

function rowsTable(at: TableParams, t: SiardTableRef, rows: RowView[], sort: SortShown | undefined | null, search: Search = {}): SafeHtml {
  return html`<table id="rows">
    <thead>
      <tr>
        <th>row</th>
        ${t.table.columns.map((c) => header(at, c.name, sort, search))}
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (r) =>
          html`<tr>
            <td><a href="${href('/row', { ...at, r: r.index })}">${r.index}</a></td>
            ${r.cells.map((c) => html`<td>${cell(at, r, c, 200)}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The search form: a text, in one column or all; GET /table with the table's parameters. */
function searchForm(at: TableParams, t: SiardTableRef, query: string, column: string, copy = false): SafeHtml {
  return html`<form method="get" action="/table" id="search">
    <input type="hidden" name="id" value="${at.id}" /><input type="hidden" name="v" value="${at.v}" />
    <input type="hidden" name="s" value="${at.s}" /><input type="hidden" name="t" value="${at.t}" />
    <label>Find <input name="q" value="${query}" /></label>
    <label
      >in
      <select name="col">
        <option value="">every column</option>
        ${t.table.columns.map((c) => html`<option${c.name === column ? html` selected` : ''}>${c.name}</option>`)}
      </select></label
    >
    <button>Search</button>
    ${copy ? '(in the access copy of the table)' : '(a scan of the table from its start: no index is built)'}
  </form>`;
}

export function tablePage(
  at: TableParams,
  t: SiardTableRef,
  rows: RowView[],
  page: number,
  more: boolean,
  sort: SortShown | undefined,
  sortable: boolean,
  copy?: CopyShown,
): string {
  const order = sort ? { sort: sort.column, dir: sort.descending ? 'desc' : undefined } : {};
  const body = html`<p>
      ${t.table.rows} rows. ${t.table.description ?? ''} <a href="${href('/csv', { ...at })}" download>CSV of the whole table</a>
      <a href="${href('/zip', { ...at })}" download>CSV with its LOBs, in a ZIP</a>
      <a href="${href('/lobs', { ...at })}">count its LOBs</a>
    </p>
    ${structure(t.table)} ${searchForm(at, t, '', '', copy !== undefined)}
    ${sortable ? '' : html`<p>Sorting is offered for tables of at most ${SORT_MAX_ROWS} rows (it reads the whole table twice).</p>`}
    ${copy ? copyNote(copy) : ''} ${rowsTable(at, t, rows, sortable ? sort : null)} ${pager('/table', { ...at, ...order }, page, more)}`;
  return layout(`${t.schema.name}.${t.table.name}`, body, archiveCrumbs(at));
}

export interface SearchShown {
  query: string;
  /** column name, '' for every column */
  column: string;
  after: number;
  rows: RowView[];
  scannedTo: number;
  complete: boolean;
}

export function searchPage(at: TableParams, t: SiardTableRef, found: SearchShown): string {
  const where = found.column === '' ? 'any column' : `column ${found.column}`;
  const status = found.complete
    ? html`Scanned rows ${found.after + 1} to the end (${found.scannedTo}).`
    : html`Scanned rows ${found.after + 1} to ${found.scannedTo} of ${t.table.rows}.
        <a rel="next" href="${href('/table', { ...at, q: found.query, col: found.column || undefined, after: found.scannedTo })}"
          >continue the search</a
        >`;
  const body = html`${searchForm(at, t, found.query, found.column)}
    <p id="search-status">${found.rows.length} rows holding "${found.query}" in ${where}. ${status}</p>
    <p>
      <a href="${href('/csv', { ...at, q: found.query, col: found.column || undefined })}" download
        >CSV of every row holding it (a scan of the whole table)</a
      >
      <a href="${href('/zip', { ...at, q: found.query, col: found.column || undefined })}" download>the same with their LOBs, in a ZIP</a>
    </p>
    ${rowsTable(at, t, found.rows, null)}
    <p><a href="${href('/table', { ...at })}">all rows</a></p>`;
  return layout(`${t.schema.name}.${t.table.name}: search`, body, archiveCrumbs(at));
}

function cell(at: TableParams, r: RowView, c: CellView, max: number): SafeHtml {
  switch (c.kind) {
    case 'null':
      return html`<span class="null">NULL</span>`;
    case 'text':
      return html`${c.text.length > max ? `${c.text.slice(0, max)}...` : c.text}`;
    case 'binary':
      return html`<code>${c.hex.length > max ? `${c.hex.slice(0, max)}...` : c.hex}</code> (${c.bytes} bytes)`;
    case 'complex':
      return html`<code>${c.json.length > max ? `${c.json.slice(0, max)}...` : c.json}</code>`;
    case 'lob':
      return lobLinks(at, r.index, c.cellPath, c.length);
  }
}

function lobLinks(at: TableParams, row: number, cellPath: string, length: number | undefined): SafeHtml {
  const params = { ...at, r: row, p: cellPath };
  return html`LOB${length !== undefined ? ` (${length})` : ''}: <a href="${href('/lob', params)}">view</a>
    <a class="download" href="${href('/lob', { ...params, download: 1 })}" download>download</a>`;
}

export function rowPage(at: TableParams, t: SiardTableRef, r: RowView): string {
  const nested = r.lobs.filter((p) => p.includes('/'));
  const body = html`<table id="row">
      <tbody>
        ${t.table.columns.map(
          (c, i) =>
            html`<tr>
              <th>${c.name}</th>
              <td>${cellFull(at, r, r.cells[i] ?? { kind: 'null' })}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${
      nested.length > 0
        ? html`<h2>LOBs inside values</h2>
            <ul>
              ${nested.map((p) => html`<li>${p}: ${lobLinks(at, r.index, p, undefined)}</li>`)}
            </ul>`
        : ''
    }
    <p><a href="${href('/table', { ...at, page: Math.floor((r.index - 1) / 50) + 1 })}">back to the table</a></p>`;
  return layout(`${t.schema.name}.${t.table.name} row ${r.index}`, body, [
    ...archiveCrumbs(at),
    html`<a href="${href('/table', { ...at })}">${t.table.name}</a>`,
  ]);
}

function cellFull(at: TableParams, r: RowView, c: CellView): SafeHtml {
  if (c.kind === 'text') return html`<pre>${c.text}</pre>`;
  if (c.kind === 'binary')
    return html`<code>${c.hex.slice(0, 2000)}${c.hex.length > 2000 ? '...' : ''}</code> (${c.bytes} bytes)
      ${lobLinks(at, r.index, `c${r.cells.indexOf(c) + 1}`, c.bytes)}`;
  return cell(at, r, c, Number.POSITIVE_INFINITY);
}

export function messagePage(title: string, sentence: string): string {
  return layout(title, html`<p>${sentence}</p>`);
}

export function lobsPage(at: TableParams, t: SiardTableRef, summary: LobSummary): string {
  const body = html`<p>
      The LOBs of ${t.table.rows} rows, counted from their cells (the table XML read once; LOB files not opened; split LOBs counted once).
    </p>
    ${dl([
      ['LOB cells (values in files)', String(summary.lobCells)],
      ['their bytes (BLOB and other binary LOBs)', String(summary.lobBytes)],
      ['their characters (CLOB and XML)', String(summary.lobCharacters)],
      ['LOB cells without a length', String(summary.lobCellsWithoutLength)],
      ['LOB values written inline in the table XML', String(summary.inlineLobs)],
      ['their bytes', String(summary.inlineLobBytes)],
    ])}
    <p><a href="${href('/table', { ...at })}">the rows</a></p>`;
  return layout(`${t.schema.name}.${t.table.name}: LOBs`, body, archiveCrumbs(at));
}

export function diagramPage(at: ArchiveAt, dbname: string): string {
  const body = html`<p>Tables (with their rows) and foreign keys, each arrow from the referencing table to the one it references.</p>
    <p><img id="diagram" alt="tables and foreign keys" src="${href('/diagram.svg', { ...at })}" /></p>`;
  return layout(`Database ${dbname}: diagram`, body, archiveCrumbs(at));
}

const count = (n: number) => n.toLocaleString('en');

/** A large table's access copy as a page shows it: its build's progress, or none started yet. */
type CopyShown = CopyProgress | { phase: 'none'; total: number };

/** What a page of a large table says about its access copy. */
function copyNote(p: CopyShown): SafeHtml {
  const state =
    p.phase === 'none'
      ? html`it is not built yet`
      : p.phase === 'rows'
        ? html`it is being built: ${count(p.done)} of ${count(p.total)} rows copied`
        : p.phase === 'indexes'
          ? html`its rows are copied; its indexes are being built (sort indexes: ${p.sorted ?? 0} of ${p.columns}; full-text index:
            ${count(p.done)} of ${count(p.total)} rows), until then a search scans the copy`
          : p.phase === 'failed'
            ? html`its build failed: ${p.error ?? ''}`
            : html`it is
              ready${p.rowsSeconds !== undefined ? html` (rows copied in ${p.rowsSeconds.toFixed(1)} s` : ''}${
                p.indexSeconds !== undefined
                  ? html`, indexes built in ${p.indexSeconds.toFixed(1)} s)`
                  : p.rowsSeconds !== undefined
                    ? ')'
                    : ''
              }`;
  return html`<p id="access-copy">
    Sorting, filtering and search over this table of ${count(p.total)} rows use an access copy (SQLite, in the reading room's workspace,
    kept until the object's version changes; the first sort or search builds it): ${state}.
  </p>`;
}

/**
 * The page shown while a table's access copy is built (or, `sortingBy`, while the sort index of
 * that column is): its progress, reloaded every 2 s until the copy answers.
 */
export function copyProgressPage(at: TableParams, t: SiardTableRef, p: CopyProgress, search: Search, sortingBy?: string): string {
  const seconds = Math.max(0, (Date.now() - p.startedAt) / 1000);
  const percent = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 100;
  const failed = p.phase === 'failed';
  const reloads = html`This page reloads every 2 seconds and shows the result once the copy can answer.`;
  const body = html`<p id="copy-progress">
      ${
        failed
          ? html`The access copy of this table could not be built: ${p.error ?? ''}`
          : sortingBy !== undefined
            ? html`Sorting by ${sortingBy} needs the access copy's index of that column, which is being built now (sort indexes built:
              ${p.sorted ?? 0} of ${t.table.columns.length}). ${reloads}`
            : html`Building the access copy of this table: <progress max="${p.total}" value="${p.done}"></progress> ${count(p.done)} of
                ${count(p.total)} rows copied (${percent} %) in ${seconds.toFixed(0)} s. ${reloads}`
      }
    </p>
    ${
      search.q !== undefined
        ? html`<p>
            <a href="${href('/table', { ...at, ...search, scan: 1 })}">Search by scanning the table instead</a> (no copy: 50 rows at a time,
            continued by a link)
          </p>`
        : ''
    }
    <p><a href="${href('/table', { ...at })}">the rows in table order</a></p>`;
  return layout(`${t.schema.name}.${t.table.name}: access copy`, body, archiveCrumbs(at), failed ? undefined : 2);
}

export interface CopySearchShown {
  query: string;
  /** column name, '' for every column */
  column: string;
  rows: RowView[];
  total: number;
  page: number;
  more: boolean;
  by: 'index' | 'scan' | 'none';
}

/** Search results from a table's access copy: every matching row counted, paged and sortable. */
export function copySearchPage(
  at: TableParams,
  t: SiardTableRef,
  found: CopySearchShown,
  sort: SortShown | undefined,
  p: CopyProgress,
): string {
  const where = found.column === '' ? 'any column' : `column ${found.column}`;
  const search: Search = { q: found.query, col: found.column || undefined };
  const order = sort ? { sort: sort.column, dir: sort.descending ? 'desc' : undefined } : {};
  const how = found.by === 'index' ? 'found through the full-text index, each checked' : 'found by a scan of the access copy';
  const body = html`${searchForm(at, t, found.query, found.column, true)}
    <p id="search-status">${count(found.total)} rows holding "${found.query}" in ${where} (${how}).</p>
    <p>
      <a href="${href('/csv', { ...at, ...search })}" download>CSV of every row holding it (a scan of the whole table)</a>
      <a href="${href('/zip', { ...at, ...search })}" download>the same with their LOBs, in a ZIP</a>
    </p>
    ${copyNote(p)} ${rowsTable(at, t, found.rows, sort, search)} ${pager('/table', { ...at, ...search, ...order }, found.page, found.more)}
    <p><a href="${href('/table', { ...at })}">all rows</a></p>`;
  return layout(`${t.schema.name}.${t.table.name}: search`, body, archiveCrumbs(at));
}
