/**
 * The reading room's access copies (src/archive/access-copy.ts) through the built command line:
 * `serve --access-copy-rows 100` makes the 130-row table `many` of the fixture a "large" one, so
 * its sorting, filtering and search go through a SQLite copy built on first use in the workspace.
 * The first request shows the build's progress (a page that reloads itself); the copy's answers
 * equal the scan's rule and the in-memory sort, before and after its full-text index; the copy
 * lies in the workspace and nothing in the root changes; a workspace inside the root is refused.
 * The indexes are built in a worker thread: held there at a pause (as a CREATE INDEX of millions of
 * rows holds it), the server still answers pages, a search through the copy, and a sort that waits
 * for its index. A search the index cannot answer scans the copy in a worker: held there at a
 * pause (as a scan of millions of rows holds it), the server answers other pages, the search after.
 */
import test from 'ava';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from '../../src/sources/sqlite/driver.js';
import { runCli } from '../helpers/cli.js';
import { readTree } from '../helpers/file-tree.js';
import { startServe, type Served } from '../helpers/serve.js';
import { ID, makeServeFixture, MANY_ROWS, type ServeFixture } from '../helpers/serve-fixture.js';
import { tempDir } from '../helpers/tmp.js';

let fx: ServeFixture;
let served: Served;
let workspace: string;
let before: Record<string, string>;
/** The indexer waits at its first index until this file exists (copy-indexer.ts). */
let pauseFile: string;

test.before(async () => {
  const work = tempDir('siard-ocfl-serve-copy-');
  fx = await makeServeFixture(work);
  workspace = path.join(work, 'reading-room');
  before = readTree(fx.root);
  pauseFile = path.join(work, 'index-pause');
  served = await startServe(['--root', fx.root, '--port', '0', '--workspace', workspace, '--access-copy-rows', '100'], {
    SIARD_OCFL_PAUSE: 'access-copy-index',
    SIARD_OCFL_PAUSE_FILE: pauseFile,
  });
});

const MANY = `/table?id=${encodeURIComponent(ID)}&v=v2&s=main&t=many`;

async function get(pathAndQuery: string): Promise<{ status: number; text: string }> {
  const res = await fetch(new URL(pathAndQuery, served.url));
  return { status: res.status, text: await res.text() };
}

/** The page at `url` once the copy answers (following the progress page's reloads). */
async function answered(url: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const page = await get(url);
    if (page.status !== 200) throw new Error(`${url} answered ${page.status}: ${page.text}`);
    if (!page.text.includes('id="copy-progress"')) return page.text;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the access copy of ${url} was not built`);
}

/** The page once the copy's full-text index is built too. */
async function indexed(url: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const text = await answered(url);
    if (/it is\s+ready/.test(text)) return text;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the full-text index was not built: ${(await get(url)).text}`);
}

const rowNumbers = (page: string) => [...page.matchAll(/<td><a href="\/row\?[^"]*">(\d+)<\/a><\/td>/g)].map((m) => Number(m[1]));
const total = (page: string) => Number(/<p id="search-status">([\d,]+) rows holding/.exec(page)?.[1]?.replaceAll(',', ''));

test.serial('the first search shows the build in a page that reloads itself, with a scan offered instead', async (t) => {
  // The rows in table order need no copy: none is started by them.
  const plain = await get(MANY);
  t.regex(plain.text, /it is not built yet/);
  t.deepEqual(
    rowNumbers(plain.text),
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
  t.is(readdirSync(workspace, { recursive: true }).length, 0);
  const first = await get(`${MANY}&q=quoted`);
  t.is(first.status, 200);
  t.regex(first.text, /<meta http-equiv="refresh" content="2" \/>/);
  t.regex(first.text, /Building the access copy of this table: <progress max="130"/);
  const scan = first.text.match(/href="([^"]*scan=1[^"]*)"/)?.[1]?.replaceAll('&amp;', '&');
  t.truthy(scan);
  t.regex((await get(scan!)).text, /Scanned rows 1 to the end \(130\)/);
  t.false(first.text.includes('<script'));
});

test.serial(
  'while an index is built (the indexer held), the server answers: pages, a search of the copy, a sort awaiting its index',
  async (t) => {
    for (let i = 0; i < 200 && !existsSync(`${pauseFile}.waiting`); i++) await new Promise((r) => setTimeout(r, 50));
    t.true(existsSync(`${pauseFile}.waiting`), 'the indexer reached its first index');
    // A server whose thread built the index would not answer until the pause ends: each request gets 5 s.
    const quick = async (url: string) => {
      const res = await fetch(new URL(url, served.url), { signal: AbortSignal.timeout(5000) });
      return { status: res.status, text: await res.text() };
    };
    const plain = await quick(MANY);
    t.is(plain.status, 200);
    t.regex(plain.text, /its indexes are being built \(sort indexes: 0 of 2; full-text index:/);
    const search = await quick(`${MANY}&q=QUOTED`);
    t.regex(search.text, /found by a scan of the access copy/);
    t.deepEqual(
      rowNumbers(search.text),
      fx.many.filter(([, text]) => text.toLowerCase().includes('quoted')).map(([id]) => id),
    );
    const sorting = await quick(`${MANY}&sort=t&dir=desc`);
    t.is(sorting.status, 200);
    t.regex(sorting.text, /Sorting by t needs the access copy's index of that column, which is being built now/);
    t.regex(sorting.text, /<meta http-equiv="refresh" content="2" \/>/);
    writeFileSync(pauseFile, '');
    const byText = [...fx.many].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[0] - b[0])).map(([id]) => id);
    t.deepEqual(rowNumbers(await answered(`${MANY}&sort=t&dir=desc`)), byText.reverse().slice(0, 50));
  },
);

test.serial('a search through the copy: every matching row counted and paged, one column or all, the scan rule', async (t) => {
  // Before and after the full-text index: the same rows (the index proposes, the scan rule decides).
  for (const when of ['copied', 'indexed']) {
    const page = when === 'copied' ? await answered(`${MANY}&q=QUOTED`) : await indexed(`${MANY}&q=QUOTED`);
    const quoted = fx.many.filter(([, text]) => text.toLowerCase().includes('quoted')).map(([id]) => id);
    t.deepEqual(rowNumbers(page), quoted, when);
    t.is(total(page), quoted.length, when);
  }
  const indexedPage = await indexed(`${MANY}&q=QUOTED`);
  t.regex(indexedPage, /found through the full-text index/);
  // Two characters: below the trigram index, scanned.
  const one = await indexed(`${MANY}&col=id&q=1`);
  const withOne = fx.many.filter(([id]) => String(id).includes('1')).map(([id]) => id);
  t.is(total(one), withOne.length);
  t.deepEqual(rowNumbers(one), withOne.slice(0, 50));
  t.regex(one, /found by a scan of the access copy/);
  const row = await indexed(`${MANY}&q=row`);
  t.is(total(row), MANY_ROWS);
  t.deepEqual(
    rowNumbers(row),
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
  const page3 = await get(`${MANY}&q=row&page=3`);
  t.deepEqual(
    rowNumbers(page3.text),
    Array.from({ length: MANY_ROWS - 100 }, (_, i) => i + 101),
  );
  t.is((await get(`${MANY}&q=row&page=4`)).status, 404);
  t.is(total(await indexed(`${MANY}&q=${encodeURIComponent('"quoted"')}`)), fx.many.filter(([, s]) => s.includes('"quoted"')).length);
  t.is(total(await indexed(`${MANY}&q=no-row-holds-this`)), 0);
  t.is((await get(`${MANY}&col=nope&q=x`)).status, 404);
});

test.serial('sorting through the copy: numbers as numbers, text, both directions, paged; a search sorted', async (t) => {
  const byText = [...fx.many].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[0] - b[0])).map(([id]) => id);
  t.deepEqual(rowNumbers(await answered(`${MANY}&sort=t`)), byText.slice(0, 50));
  t.deepEqual(rowNumbers(await answered(`${MANY}&sort=t&dir=desc&page=3`)), [...byText].reverse().slice(100));
  const descending = await answered(`${MANY}&sort=id&dir=desc`);
  t.deepEqual(
    rowNumbers(descending),
    Array.from({ length: 50 }, (_, i) => MANY_ROWS - i),
  );
  t.regex(descending, /id="access-copy"/);
  const quotedDown = await answered(`${MANY}&q=quoted&sort=id&dir=desc`);
  t.deepEqual(
    rowNumbers(quotedDown),
    fx.many
      .filter(([, s]) => s.includes('quoted'))
      .map(([id]) => id)
      .reverse(),
  );
  // The headers of a search page keep the search.
  t.regex(quotedDown, /href="\/table\?[^"]*q=quoted[^"]*sort=t"/);
  t.is((await get(`${MANY}&sort=nope`)).status, 404);
});

test.serial('the database page: LOBs and their bytes per table; the copy lies in the workspace; the root is unchanged', async (t) => {
  const archive = await get(`/archive?id=${encodeURIComponent(ID)}&v=v2`);
  const inFiles = [...fx.docs.values()].filter((b): b is Buffer => b !== null && b.length > 100);
  // + row 9 (v2, 500 bytes), + the inline values: row 7's 20-byte BLOB and the 9 `kind N` texts (SQLite TEXT is CLOB)
  const bytes = inFiles.reduce((n, b) => n + b.length, 0) + 500 + 20 + 9 * 'kind 1'.length;
  t.regex(archive.text, new RegExp(`>docs</a></td>\\s*<td>9</td>\\s*<td>3</td>\\s*<td>${inFiles.length + 1} \\(\\+ 10 inline\\)</td>`));
  t.true(archive.text.includes(`<td>${bytes.toLocaleString('en')}</td>`));
  // SQLite TEXT is CLOB: `many` holds 130 inline CLOB values, no LOB in a file.
  const text = fx.many.reduce((n, [, s]) => n + Buffer.byteLength(s), 0);
  t.regex(
    archive.text,
    new RegExp(`>many</a></td>\\s*<td>130</td>\\s*<td>2</td>\\s*<td>0 \\(\\+ 130 inline\\)</td>\\s*<td>${text.toLocaleString('en')}</td>`),
  );
  const copies = readdirSync(workspace, { recursive: true }).filter((f) => String(f).endsWith('.sqlite'));
  t.is(copies.length, 1);
  t.deepEqual(readTree(fx.root), before);
});

test('the rows shown through a copy are those the table XML gives: text, NULL, inline bytes, LOB files', async (t) => {
  // Every table over 5 rows copied: docs holds LOBs in files (kept as the page's view), an inline BLOB and a NULL (shown from their text).
  const room = await startServe(
    ['--root', fx.root, '--port', '0', '--workspace', path.join(tempDir('siard-ocfl-serve-copy-'), 'room')].concat([
      '--access-copy-rows',
      '5',
    ]),
  );
  const from = async (url: string) => (await fetch(new URL(url, room.url))).text();
  const body = (page: string) => /<table id="rows">[\s\S]*?(<tbody>[\s\S]*?<\/tbody>)/.exec(page)?.[1];
  for (const table of ['docs', 'many']) {
    const url = `/table?id=${encodeURIComponent(ID)}&v=v2&s=main&t=${table}`;
    const plain = body(await from(url));
    let copied = await from(`${url}&sort=id`);
    for (let i = 0; i < 200 && copied.includes('id="copy-progress"'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      copied = await from(`${url}&sort=id`);
    }
    t.regex(copied, /id="access-copy"/, table);
    t.truthy(plain, table);
    t.is(body(copied), plain, table);
  }
  const docs = body(await from(`/table?id=${encodeURIComponent(ID)}&v=v2&s=main&t=docs`))!;
  t.regex(docs, /<td><span class="null">NULL<\/span><\/td>/);
  t.regex(docs, /<\/code> \(20 bytes\)/);
});

test('a search that scans the copy runs in a worker: held there (as a long scan holds it), the server answers other pages', async (t) => {
  const pause = path.join(tempDir('siard-ocfl-serve-copy-'), 'scan-pause');
  const room = await startServe(
    ['--root', fx.root, '--port', '0', '--workspace', path.join(path.dirname(pause), 'room'), '--access-copy-rows', '100'],
    { SIARD_OCFL_PAUSE: 'access-copy-scan', SIARD_OCFL_PAUSE_FILE: pause },
  );
  const from = async (url: string) => {
    // A server whose thread scanned the copy would not answer until the pause ends: each request gets 5 s.
    const res = await fetch(new URL(url, room.url), { signal: AbortSignal.timeout(5000) });
    return { status: res.status, text: await res.text() };
  };
  // The copy and its indexes built first, through a sort (which scans nothing).
  let sorted = await from(`${MANY}&sort=id&dir=desc`);
  for (let i = 0; i < 200 && !/it is\s+ready/.test(sorted.text); i++) {
    await new Promise((r) => setTimeout(r, 50));
    sorted = await from(`${MANY}&sort=id&dir=desc`);
  }
  t.regex(sorted.text, /it is\s+ready/);
  // One character: below the trigram index, the copy scanned.
  let searched = false;
  const search = fetch(new URL(`${MANY}&col=id&q=1`, room.url)).then(async (res) => {
    searched = true;
    return { status: res.status, text: await res.text() };
  });
  for (let i = 0; i < 200 && !existsSync(`${pause}.waiting`); i++) await new Promise((r) => setTimeout(r, 50));
  t.true(existsSync(`${pause}.waiting`), 'the scan reached its worker');
  const plain = await from(MANY);
  t.is(plain.status, 200);
  t.deepEqual(
    rowNumbers(plain.text),
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
  const down = await from(`${MANY}&sort=id&dir=desc`);
  t.deepEqual(
    rowNumbers(down.text),
    Array.from({ length: 50 }, (_, i) => MANY_ROWS - i),
  );
  const indexed = await from(`${MANY}&q=QUOTED`);
  t.regex(indexed.text, /found through the full-text index/);
  t.false(searched, 'the scan is still held while the other pages were answered');
  writeFileSync(pause, '');
  const found = await search;
  t.is(found.status, 200);
  const withOne = fx.many.filter(([id]) => String(id).includes('1')).map(([id]) => id);
  t.regex(found.text, /found by a scan of the access copy/);
  t.is(total(found.text), withOne.length);
  t.deepEqual(rowNumbers(found.text), withOne.slice(0, 50));
});

test('a workspace inside the root is refused, in one sentence', async (t) => {
  const r = await runCli(['serve', '--root', fx.root, '--port', '0', '--workspace', path.join(fx.root, 'extensions', 'x')]);
  t.is(r.code, 2);
  t.regex(r.stderr, /The workspace .* is inside the storage root/);
});

test.serial('a new version of the object: the copies of the old one are removed once serve sees it (10 s recheck)', async (t) => {
  const versions = () =>
    readdirSync(workspace, { recursive: true }).filter((f) => /^[0-9a-f]{32}\/v\d+$/.test(String(f).split(path.sep).join('/')));
  t.deepEqual(
    versions().map((f) => path.basename(String(f))),
    ['v2'],
  );
  const d = new Database(fx.db);
  d.prepare('INSERT INTO many VALUES (?, ?)').run(MANY_ROWS + 1, 'row added in v3');
  d.close();
  const r = await runCli(
    ['ingest', fx.db, '--root', fx.root, '--id', ID, '--inline-max', '100', '--max-files', '4', '--max-bytes', '45k'],
    {
      env: { SIARD_OCFL_USER_NAME: 'Reading Room Test', SIARD_OCFL_USER_ADDRESS: 'mailto:room@example.org' },
    },
  );
  t.is(r.code, 0, r.stderr);
  await new Promise((resolve) => setTimeout(resolve, 10_500));
  t.is((await get(`/object?id=${encodeURIComponent(ID)}`)).status, 200);
  for (let i = 0; i < 100 && versions().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  t.deepEqual(versions(), []);
  // The new head's table gets a copy of its own, holding the new row.
  const added = await answered(`/table?id=${encodeURIComponent(ID)}&s=main&t=many&q=added`);
  t.deepEqual(rowNumbers(added), [MANY_ROWS + 1]);
});
