/**
 * The reading room as the command line's bundle runs it, on this Node line (CI: every supported
 * line): `serve` over a small root made by init and ingest, then the sequence that once ended the
 * bundled server only (its yauzl carried its own fd-slicer, which the guard did not patch): a search
 * through a table's access copy, a page of that table, a LOB downloaded with its exact bytes; then
 * rounds of a whole table read as CSV while pages of rows of the same archive stop reading early
 * (the streams that share the archive's file). The server must live through it all and answer every
 * request exactly. What serve shows is tested by the integration tier; what differs here is the
 * bundle and the streams of this Node.
 */
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import Database from '../../src/sources/sqlite/driver.js';
import { runCli } from '../helpers/cli.js';
import { startServe } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';

const ID = 'urn:example:line:reading-room';
const ROWS = 3000;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** The start of a cell's text, as a page shows it (a long one is cut). */
const shown = (text: string) => text.slice(0, 100);

test(`bundled serve: a search through the copy, a page, a LOB, pages beside a whole CSV (Node ${process.versions.node})`, async (t) => {
  const dir = tempDir('siard-ocfl-line-serve-');
  const db = path.join(dir, 'room.db');
  // Random text, so that a table's XML stays some 1 MB in the archive: a page stops long before its end.
  const text = (n: number) => `row ${n} ${randomBytes(150).toString('hex')}`;
  const big = Array.from({ length: ROWS }, (_, i) => text(i + 1));
  const other = Array.from({ length: ROWS }, (_, i) => text(i + 1));
  const docs = [randomBytes(300_000), randomBytes(5_000)];
  const d = new Database(db);
  d.exec('CREATE TABLE big (id INTEGER PRIMARY KEY, t TEXT); CREATE TABLE other (id INTEGER PRIMARY KEY, t TEXT);');
  d.exec('CREATE TABLE docs (id INTEGER PRIMARY KEY, body BLOB);');
  const insert = (table: string, values: unknown[]) => {
    const s = d.prepare(`INSERT INTO ${table} VALUES (?, ?)`);
    d.transaction(() => values.forEach((v, i) => s.run(i + 1, v)))();
  };
  insert('big', big);
  insert('other', other);
  insert('docs', docs);
  d.close();
  const root = path.join(dir, 'root');
  const env = { SIARD_OCFL_USER_NAME: 'Line test', SIARD_OCFL_USER_ADDRESS: 'mailto:line@example.org' };
  for (const args of [
    ['init', root],
    ['ingest', db, '--root', root, '--id', ID],
  ]) {
    const r = await runCli(args, { env });
    t.is(r.code, 0, r.stderr);
  }
  // Tables of more than 1,000 rows are searched through an access copy.
  const served = await startServe(['--root', root, '--port', '0', '--workspace', path.join(dir, 'room'), '--access-copy-rows', '1000']);
  const at = (table: string, query: Record<string, string> = {}) =>
    new URL(`/table?${new URLSearchParams({ id: ID, s: 'main', t: table, ...query })}`, served.url);
  const get = async (url: URL) => {
    const res = await fetch(url).catch((err: Error) => {
      throw new Error(`${url.pathname}${url.search}: ${err.message}; serve's exit ${served.child.exitCode}, stderr: ${served.stderr()}`);
    });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`${url.pathname}${url.search} answered ${res.status}: ${body.toString()}`);
    return body;
  };

  // A search through the copy (built on first use; its page reloads itself until the copy answers).
  const wanted = big[776]!.slice(-24);
  let found = '';
  for (let i = 0; i < 600 && (found === '' || found.includes('id="copy-progress"')); i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    found = (await get(at('big', { q: wanted }))).toString();
  }
  t.false(found.includes('id="copy-progress"'), 'the access copy answered');
  t.true(found.includes(shown(big[776]!)), 'row 777 found');
  t.regex(found, /1 rows holding/);
  // Then a page of rows, and a LOB with its exact bytes.
  const page2 = (await get(at('big', { page: '2' }))).toString();
  for (const n of [51, 100]) t.true(page2.includes(shown(big[n - 1]!)), `row ${n} on page 2`);
  const lob = await get(
    new URL(`/lob?${new URLSearchParams({ id: ID, s: 'main', t: 'docs', r: '1', p: 'c2', download: '1' })}`, served.url),
  );
  t.is(sha256(lob), sha256(docs[0]!));

  // Rounds of a whole table read as CSV while pages of both tables stop reading early.
  const csv = `id,t\r\n${other.map((v, i) => `${i + 1},${v}\r\n`).join('')}`;
  for (let round = 0; round < 8; round++) {
    const [whole, ...pages] = await Promise.all([
      get(new URL(`/csv?${new URLSearchParams({ id: ID, s: 'main', t: 'other' })}`, served.url)),
      get(at('big', { page: String(round + 1) })),
      get(at('other', { page: String(round + 3) })),
      get(at('big', { page: String(round + 20) })),
    ]);
    t.is(whole.toString(), csv, `round ${round}: the CSV`);
    t.true(pages[0]!.toString().includes(shown(big[round * 50]!)), `round ${round}: a page of big`);
    t.true(pages[1]!.toString().includes(shown(other[(round + 2) * 50]!)), `round ${round}: a page of other`);
    t.true(pages[2]!.toString().includes(shown(big[(round + 19) * 50]!)), `round ${round}: a later page of big`);
  }
  t.is(served.child.exitCode, null, `serve still running: ${served.stderr()}`);
  t.notRegex(served.stderr(), /TypeError|reading 'fd'/);
});
