/**
 * The reading room's pages through the built command line (`siard-ocfl serve` as a child process)
 * over a root the command line made: every page reached by following links from `/`, LOB bytes
 * compared with the source database, split LOBs joined, previews typed from their bytes, CSV
 * compared value by value with the database, cell text escaped. One root and one server for the file.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { startServe, type Served } from '../helpers/serve.js';
import { HOSTILE_TEXT, ID, makeServeFixture, MANY_ROWS, SEGMENTED_ID, ZIP_ID, type ServeFixture } from '../helpers/serve-fixture.js';
import { tempDir } from '../helpers/tmp.js';

let fx: ServeFixture;
let served: Served;

test.before(async () => {
  fx = await makeServeFixture(tempDir('siard-ocfl-serve-pages-'), undefined, true);
  served = await startServe(['--root', fx.root, '--port', '0']);
});

async function get(pathAndQuery: string): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(new URL(pathAndQuery, served.url));
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function bytes(pathAndQuery: string): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const res = await fetch(new URL(pathAndQuery, served.url));
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** The links of a page whose path is `pathname`, entities decoded. */
function links(page: string, pathname: string): string[] {
  return [...page.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&')).filter((h) => h.split('?')[0] === pathname);
}

/** The first link to `pathname` whose query has `key=value` (exactly that value). */
function one(page: string, pathname: string, keyValue: string): string {
  const eq = keyValue.indexOf('=');
  const [key, value] = [keyValue.slice(0, eq), keyValue.slice(eq + 1)];
  const found = links(page, pathname).find((h) => new URLSearchParams(h.split('?')[1] ?? '').get(key) === value);
  if (!found) throw new Error(`no link to ${pathname} with ${keyValue}`);
  return found;
}

test('the first line names the root and the address; pages forbid scripts and carry none', async (t) => {
  t.regex(served.lines[0]!, new RegExp(`^Serving ${fx.root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} at http://127\\.0\\.0\\.1:\\d+/$`));
  const home = await get('/');
  t.is(home.status, 200);
  t.regex(home.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  t.notRegex(home.headers.get('content-security-policy') ?? '', /script-src/);
  t.is(home.headers.get('x-content-type-options'), 'nosniff');
  t.false(home.text.includes('<script'));
});

test('/ lists the objects (id, head, date, files) and filters them by id', async (t) => {
  const home = await get('/');
  t.true(home.text.includes(ID));
  t.regex(home.text, /<td>v2<\/td>\s*<td>\d{4}-\d\d-\d\dT/);
  t.true((await get('/?q=reading-room')).text.includes(ID));
  const none = await get('/?q=no-such-object');
  t.false(none.text.includes(`>${ID}<`));
  t.true(none.text.includes('0 matching'));
});

test("an object: its versions (user, message), a version's files, what changed from v1 to v2", async (t) => {
  const object = await get(one((await get('/')).text, '/object', `id=${ID}`));
  t.is(object.status, 200);
  t.true(object.text.includes('Reading Room Test'));
  t.true(object.text.includes('siard-ocfl ingest of'));
  const v1 = await get(one(object.text, '/version', 'v=v1'));
  t.true(v1.text.includes('source.siard'));
  t.regex(v1.text, /source_lobseg_0\/content\/schema0\/table1\/lob3\/record0\.bin/);
  const diff = await get(`/diff?id=${encodeURIComponent(ID)}&a=v1&b=v2`);
  t.is(diff.status, 200);
  // v2 added rows: the .siard and its table fingerprints changed.
  t.regex(diff.text, /Changed \(2\)[\s\S]*source\.fingerprints\.json[\s\S]*source\.siard/);
  t.regex(diff.text, /Added \(1\)[\s\S]*record8\.bin/);
  t.regex(diff.text, /Removed \(0\)/);
});

test('a file of a version downloads as its exact bytes (the inventory digest)', async (t) => {
  const listed = await runCli(['ls', '--root', fx.root]);
  const objectDir = listed.stdout
    .split('\n')
    .find((l) => l.startsWith(`${ID}\t`))!
    .split('\t')[2]!;
  const inventory = JSON.parse(readFileSync(path.join(fx.root, objectDir, 'inventory.json'), 'utf8'));
  const digest = Object.entries(inventory.versions.v1.state as Record<string, string[]>).find(([, paths]) =>
    paths.includes('source.siard'),
  )![0];
  const v1 = await get(`/version?id=${encodeURIComponent(ID)}&v=v1`);
  const file = await bytes(one(v1.text, '/file', 'path=source.siard'));
  t.is(file.status, 200);
  t.is(file.headers.get('content-type'), 'application/octet-stream');
  t.regex(file.headers.get('content-disposition') ?? '', /^attachment/);
  t.is(createHash('sha512').update(file.body).digest('hex'), digest);
});

async function tablePage(table: string, page = 1): Promise<string> {
  const archive = await get(one((await get(`/object?id=${encodeURIComponent(ID)}`)).text, '/archive', 'v=v2'));
  const url = one(archive.text, '/table', `t=${table}`);
  return (await get(page === 1 ? url : `${url}&page=${page}`)).text;
}

test("the database: header, schemas, tables with rows; a table's columns and keys", async (t) => {
  const archive = await get(`/archive?id=${encodeURIComponent(ID)}&v=v2`);
  t.is(archive.status, 200);
  for (const s of ['data owner', 'data origin timespan', 'producer application', 'Schema main', 'SQLite'])
    t.true(archive.text.includes(s), s);
  t.regex(archive.text, />people<\/a><\/td>\s*<td>3<\/td>/);
  t.regex(archive.text, />many<\/a><\/td>\s*<td>130<\/td>/);
  const docs = await tablePage('docs');
  t.regex(docs, /<td>body<\/td>\s*<td>BLOB<\/td>\s*<td>BLOB<\/td>/);
  t.true(docs.includes('primary key'));
});

test('rows are paged by 50 with next and previous links; a page past the end is 404', async (t) => {
  const first = await tablePage('many');
  const rowNumbers = (page: string) => [...page.matchAll(/<td><a href="\/row\?[^"]*">(\d+)<\/a><\/td>/g)].map((m) => Number(m[1]));
  t.deepEqual(
    rowNumbers(first),
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
  const next = links(first, '/table').find((h) => h.includes('page=2'))!;
  const second = (await get(next)).text;
  t.deepEqual(
    rowNumbers(second),
    Array.from({ length: 50 }, (_, i) => i + 51),
  );
  t.true(links(second, '/table').some((h) => h.includes('page=1')));
  const last = await tablePage('many', 3);
  t.deepEqual(
    rowNumbers(last),
    Array.from({ length: MANY_ROWS - 100 }, (_, i) => i + 101),
  );
  t.false(links(last, '/table').some((h) => h.includes('page=4')));
  t.is((await get(`${next.replace('page=2', 'page=4')}`)).status, 404);
});

test('cell text is escaped in the table and on the row page', async (t) => {
  const people = await tablePage('people');
  t.false(people.includes('<script>'));
  t.false(people.includes('<img src=x'));
  t.true(people.includes('&lt;script&gt;alert(&quot;cell&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&amp;amp;&quot;&#39;'));
  const row = await get(one(people, '/row', 'r=1'));
  t.is(row.status, 200);
  t.false(row.text.includes('<script>'));
  t.true(row.text.includes('&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;'));
  t.true(HOSTILE_TEXT.includes('<script>'));
});

const EXPECTED_PREVIEW: Record<number, { type: string; inline: boolean }> = {
  1: { type: 'image/png', inline: true },
  2: { type: 'text/plain; charset=utf-8', inline: true }, // SVG with a script: its text, never an image
  3: { type: 'text/plain; charset=utf-8', inline: true }, // HTML with a script: its text, never a page
  4: { type: 'text/plain; charset=utf-8', inline: true },
  5: { type: 'application/pdf', inline: true },
  6: { type: 'application/octet-stream', inline: false }, // random bytes, split over segment folders
  7: { type: 'application/octet-stream', inline: false }, // inline in the table XML
};

test('every LOB downloads as its exact bytes (a split one joined, an inline one too) and previews by its bytes', async (t) => {
  const docs = await tablePage('docs');
  for (const [id, expected] of Object.entries(EXPECTED_PREVIEW)) {
    const source = fx.docs.get(Number(id))!;
    const row = (await get(one(docs, '/row', `r=${id}`))).text;
    const download = await bytes(one(row, '/lob', 'download=1'));
    t.is(download.status, 200, `row ${id}`);
    t.is(fx.sha256(download.body), fx.sha256(source), `row ${id}`);
    t.is(download.headers.get('content-type'), 'application/octet-stream');
    t.regex(download.headers.get('content-disposition') ?? '', /^attachment/);
    const view = await bytes(links(row, '/lob').find((h) => !h.includes('download'))!);
    t.is(view.headers.get('content-type'), expected.type, `row ${id}`);
    t.regex(view.headers.get('content-disposition') ?? '', expected.inline ? /^inline/ : /^attachment/, `row ${id}`);
    t.regex(view.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    t.notRegex(view.headers.get('content-security-policy') ?? '', /script-src/);
    t.is(view.headers.get('x-content-type-options'), 'nosniff');
    t.true(view.body.equals(source), `row ${id}`);
  }
  t.true(fx.docs.get(6)!.length > 45_000 * 3, 'the split LOB spans more than three segment folders');
});

/** RFC 4180 records, CRLF only between records; an empty unquoted field is null. */
function parseCsv(text: string): Array<Array<string | null>> {
  const records: Array<Array<string | null>> = [];
  let i = 0;
  while (i < text.length) {
    const record: Array<string | null> = [];
    for (;;) {
      let value: string | null;
      if (text[i] === '"') {
        let j = i + 1;
        value = '';
        for (;;) {
          const q = text.indexOf('"', j);
          value += text.slice(j, q);
          if (text[q + 1] === '"') {
            value += '"';
            j = q + 2;
          } else {
            i = q + 1;
            break;
          }
        }
      } else {
        const end = text.slice(i).search(/,|\r\n/);
        const raw = end < 0 ? text.slice(i) : text.slice(i, i + end);
        value = raw === '' ? null : raw;
        i += raw.length;
      }
      record.push(value);
      if (text[i] === ',') i++;
      else break;
    }
    if (text.slice(i, i + 2) !== '\r\n') throw new Error(`record not ended by CRLF at ${i}`);
    i += 2;
    records.push(record);
  }
  return records;
}

test('CSV of a table, value by value against the database; hostile text kept as data', async (t) => {
  const many = await tablePage('many');
  const csv = await get(one(many, '/csv', 't=many'));
  t.is(csv.status, 200);
  t.regex(csv.headers.get('content-type') ?? '', /^text\/csv/);
  t.regex(csv.headers.get('content-disposition') ?? '', /^attachment/);
  const records = parseCsv(csv.text);
  t.deepEqual(records[0], ['id', 't']);
  t.deepEqual(
    records.slice(1),
    fx.many.map(([id, text]) => [String(id), text]),
  );
  const people = parseCsv((await get(one(await tablePage('people'), '/csv', 't=people'))).text);
  t.deepEqual(people[1], ['1', HOSTILE_TEXT, '"><script>alert(2)</script>']);
  t.deepEqual(people[2], ['2', 'Ada', null]);
});

for (const [label, objectId, file, version] of [
  ['LOB segment folders as ZIPs (--lobseg-zip)', ZIP_ID, 'source_lobseg_0.zip', 'v1'],
  ['LOB segment folders as ZIPs, relocated to file:///Archives/Elsewhere/', ZIP_ID, 'source_lobseg_0.zip', 'v2'],
  ['a segmented SIARD file (--max-siard-bytes)', SEGMENTED_ID, 'source.siard.z', 'v1'],
]) {
  test(`${label}: the table pages and a split LOB's exact bytes`, async (t) => {
    const object = await get(one((await get('/')).text, '/object', `id=${objectId}`));
    t.true((await get(one(object.text, '/version', `v=${version}`))).text.includes(file!));
    const archive = await get(one(object.text, '/archive', `v=${version}`));
    if (version === 'v2') t.true(archive.text.includes('file:///Archives/Elsewhere/'));
    const docs = (await get(one(archive.text, '/table', 't=docs'))).text;
    const row = (await get(one(docs, '/row', 'r=6'))).text;
    const download = await bytes(one(row, '/lob', 'download=1'));
    t.is(download.status, 200);
    t.is(fx.sha256(download.body), fx.sha256(fx.docs.get(6)!));
    const many = await get(one(archive.text, '/table', 't=many'));
    t.regex(many.text, />50<\/a><\/td>/);
  });
}

const searchRowNumbers = (page: string) => [...page.matchAll(/<td><a href="\/row\?[^"]*">(\d+)<\/a><\/td>/g)].map((m) => Number(m[1]));

test('search within a table: every column or one, case-insensitive, 50 at a time with a continue link; the query escaped', async (t) => {
  const many = `/table?id=${encodeURIComponent(ID)}&v=v2&s=main&t=many`;
  const quoted = await get(`${many}&q=QUOTED`);
  t.is(quoted.status, 200);
  t.deepEqual(
    searchRowNumbers(quoted.text),
    fx.many.filter(([, text]) => text.includes('quoted')).map(([id]) => id),
  );
  t.regex(quoted.text, /Scanned rows 1 to the end \(130\)/);
  const startsWithOne = await get(`${many}&col=id&q=1`);
  t.deepEqual(
    searchRowNumbers(startsWithOne.text),
    fx.many.filter(([id]) => String(id).includes('1')).map(([id]) => id),
  );
  const first = await get(`${many}&q=row`);
  t.deepEqual(
    searchRowNumbers(first.text),
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
  const more = one(first.text, '/table', 'after=50');
  t.deepEqual(
    searchRowNumbers((await get(more)).text),
    Array.from({ length: 50 }, (_, i) => i + 51),
  );
  const hostile = await get(`${many}&q=${encodeURIComponent('"><script>alert(1)</script>')}`);
  t.false(hostile.text.includes('<script>'));
  t.true(hostile.text.includes('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"'));
  t.is((await get(`${many}&col=nope&q=x`)).status, 404);
  t.is((await get(`${many}&q=x&after=-1`)).status, 400);
});

test("a table's LOBs counted from its cells (the tables verb's code): cells in files, their bytes, inline ones", async (t) => {
  const docs = await tablePage('docs');
  const lobs = await get(one(docs, '/lobs', 't=docs'));
  t.is(lobs.status, 200);
  const value = (label: string) => Number(new RegExp(`<dt>${label}</dt>\\s*<dd>(\\d+)</dd>`).exec(lobs.text)?.[1]);
  const inFiles = [...fx.docs.values()].filter((b): b is Buffer => b !== null && b.length > 100);
  t.is(value('LOB cells \\(values in files\\)'), inFiles.length + 1); // + row 9, added in v2 (500 bytes)
  t.is(value('their bytes \\(BLOB and other binary LOBs\\)'), inFiles.reduce((n, b) => n + b.length, 0) + 500);
  // SQLite TEXT is CLOB: the 9 `kind` values, and row 7's 20-byte BLOB.
  t.is(value('LOB values written inline in the table XML'), 10);
});

test('sorting by a column: header links, numbers as numbers, text by code unit, both directions, paged', async (t) => {
  const first = await tablePage('many');
  const byId = one(first, '/table', 'sort=id');
  const ascending = await get(byId);
  t.deepEqual(
    searchRowNumbers(ascending.text),
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
  const descending = await get(one(ascending.text, '/table', 'dir=desc'));
  t.deepEqual(
    searchRowNumbers(descending.text),
    Array.from({ length: 50 }, (_, i) => MANY_ROWS - i),
  );
  const page2 = await get(one(descending.text, '/table', 'page=2'));
  t.deepEqual(
    searchRowNumbers(page2.text),
    Array.from({ length: 50 }, (_, i) => MANY_ROWS - 50 - i),
  );
  const byText = [...fx.many].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[0] - b[0])).map(([id]) => id);
  const textAscending = await get(one(first, '/table', 'sort=t'));
  t.deepEqual(searchRowNumbers(textAscending.text), byText.slice(0, 50));
  const textPage3 = await get(`${one(first, '/table', 'sort=t')}&dir=desc&page=3`);
  t.deepEqual(searchRowNumbers(textPage3.text), [...byText].reverse().slice(100));
  t.is((await get(`${byId.replace('sort=id', 'sort=nope')}`)).status, 404);
});

test('the diagram of the tables: a page with the SVG as an image, drawn by Graphviz, scripts forbidden', async (t) => {
  const archive = await get(`/archive?id=${encodeURIComponent(ID)}&v=v2`);
  const page = await get(one(archive.text, '/diagram', 'v=v2'));
  t.is(page.status, 200);
  const src = /<img id="diagram"[^>]* src="([^"]+)"/.exec(page.text)![1]!.replaceAll('&amp;', '&');
  const svg = await get(src);
  t.is(svg.headers.get('content-type'), 'image/svg+xml');
  t.regex(svg.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  t.is(svg.headers.get('x-content-type-options'), 'nosniff');
  for (const name of ['main.people (3 rows)', 'main.docs (9 rows)', `main.many (${MANY_ROWS} rows)`]) t.true(svg.text.includes(name), name);
  t.false(svg.text.includes('<script'));
});

test('CSV of the rows a search finds, linked from the search page, value by value', async (t) => {
  const search = await get(`/table?id=${encodeURIComponent(ID)}&v=v2&s=main&t=many&col=t&q=QUOTED`);
  const csv = await get(one(search.text, '/csv', 'q=QUOTED'));
  t.is(csv.status, 200);
  t.deepEqual(parseCsv(csv.text), [
    ['id', 't'],
    ...fx.many.filter(([, text]) => text.includes('quoted')).map(([id, text]) => [String(id), text]),
  ]);
});

test('CSV with its LOBs in a ZIP (read by unzip): each LOB field of the CSV names an entry with the exact bytes', async (t) => {
  const docs = await tablePage('docs');
  const zip = await bytes(one(docs, '/zip', 't=docs'));
  t.is(zip.status, 200);
  t.is(zip.headers.get('content-type'), 'application/zip');
  const dir = tempDir('siard-ocfl-serve-zip-');
  writeFileSync(path.join(dir, 'docs.zip'), zip.body);
  execFileSync('unzip', ['-q', 'docs.zip', '-d', 'out'], { cwd: dir });
  const csvText = readFileSync(path.join(dir, 'out', 'main.docs.csv'), 'utf8');
  t.is(csvText, (await get(one(docs, '/csv', 't=docs'))).text);
  const records = parseCsv(csvText).slice(1);
  let compared = 0;
  for (const [id, , body] of records) {
    const source = fx.docs.get(Number(id));
    if (source === undefined || source === null || source.length <= 100) continue; // inline, NULL, or row 9 of v2
    t.is(fx.sha256(readFileSync(path.join(dir, 'out', body!))), fx.sha256(source), `row ${id}`);
    compared++;
  }
  t.is(compared, 6);
  t.true(existsSync(path.join(dir, 'out', records.find((r) => r[0] === '9')![2]!)));
  const filtered = await bytes(`${one(docs, '/zip', 't=docs')}&col=kind&q=${encodeURIComponent('kind 6')}`);
  writeFileSync(path.join(dir, 'six.zip'), filtered.body);
  const listing = execFileSync('unzip', ['-Z1', 'six.zip'], { cwd: dir, encoding: 'utf8' }).trim().split('\n');
  t.is(listing.length, 2, listing.join(', '));
});
