/**
 * A small storage root for the reading room's tests, made by the command line as a user makes one:
 * a SQLite database with hostile cell text, LOBs of many kinds (an image, SVG and HTML with
 * scripts, text, PDF, one large enough to be split over segment folders, an inline one) and a table
 * of a few pages, ingested twice (v2 adds a row and a LOB) with small segment limits.
 */
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import Database from '../../src/sources/sqlite/driver.js';
import { runCli } from './cli.js';
import { tinyPng } from './tiny-png.js';

export const HOSTILE_TEXT = `<script>alert("cell")</script><img src=x onerror=alert(1)>&amp;"'`;
const SVG_SCRIPT = `<svg xmlns="http://www.w3.org/2000/svg"><script>alert('svg')</script><circle r="5"/></svg>`;
const HTML_SCRIPT = `<!doctype html><html><body><script>alert('html')</script><p>page</p></body></html>`;
export const ID = 'urn:example:reading-room';
export const MANY_ROWS = 130;
/**
 * With `layouts`: the v2 database again, its LOB segment folders as ZIPs (--lobseg-zip; v2 of that object relocated to an
 * absolute lobFolder), and as a segmented SIARD file.
 */
export const ZIP_ID = 'urn:example:reading-room-zip';
export const SEGMENTED_ID = 'urn:example:reading-room-segmented';

export interface ServeFixture {
  db: string;
  root: string;
  /** docs.body by id (row n of the table is id n) */
  docs: Map<number, Buffer | null>;
  many: Array<[number, string]>;
  sha256(b: Buffer): string;
}

/** Builds the database in `work` and the root (`work/root`, or `root`: an s3:// one) by init, ingest v1, a change, ingest v2. */
export async function makeServeFixture(work: string, root = path.join(work, 'root'), layouts = false): Promise<ServeFixture> {
  const db = path.join(work, 'source.db');
  const docs = new Map<number, Buffer | null>([
    [1, tinyPng(200)], // 200 bytes after IEND keep it above --inline-max, so it lies in a file
    [2, Buffer.from(SVG_SCRIPT.padEnd(300, ' '))],
    [3, Buffer.from(HTML_SCRIPT.padEnd(300, ' '))],
    [4, Buffer.from('Plain text, Zoë 王小明 🎉\n'.repeat(20))],
    [5, Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n'.padEnd(400, ' '), 'latin1')],
    [6, randomBytes(150_000)],
    [7, randomBytes(20)],
    [8, null],
  ]);
  const many: Array<[number, string]> = [];
  for (let i = 1; i <= MANY_ROWS; i++) many.push([i, i % 7 === 0 ? `row ${i}, "quoted"\r\nnext <b>line</b>` : `row ${i}`]);
  const d = new Database(db);
  d.exec(`CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, note TEXT);
    CREATE TABLE docs (id INTEGER PRIMARY KEY, kind TEXT, body BLOB);
    CREATE TABLE many (id INTEGER PRIMARY KEY, t TEXT);`);
  d.prepare('INSERT INTO people VALUES (?, ?, ?)').run(1, HOSTILE_TEXT, '"><script>alert(2)</script>');
  d.prepare('INSERT INTO people VALUES (?, ?, ?)').run(2, 'Ada', null);
  const doc = d.prepare('INSERT INTO docs VALUES (?, ?, ?)');
  for (const [id, body] of docs) doc.run(id, `kind ${id}`, body);
  const m = d.prepare('INSERT INTO many VALUES (?, ?)');
  for (const r of many) m.run(...r);
  d.close();
  const env = { SIARD_OCFL_USER_NAME: 'Reading Room Test', SIARD_OCFL_USER_ADDRESS: 'mailto:room@example.org' };
  const limits = ['--inline-max', '100', '--max-files', '4', '--max-bytes', '45k'];
  for (const args of [
    ['init', '--root', root],
    ['ingest', db, '--root', root, '--id', ID, ...limits],
  ]) {
    const r = await runCli(args, { env });
    if (r.code !== 0) throw new Error(`${args[0]} failed: ${r.stderr}`);
  }
  const d2 = new Database(db);
  d2.prepare('INSERT INTO people VALUES (?, ?, ?)').run(3, 'Added in v2', 'x');
  d2.prepare('INSERT INTO docs VALUES (?, ?, ?)').run(9, 'kind 9', randomBytes(500));
  d2.close();
  const r = await runCli(['ingest', db, '--root', root, '--id', ID, ...limits], { env });
  if (r.code !== 0) throw new Error(`second ingest failed: ${r.stderr}`);
  if (layouts) {
    const segmented = ['--id', SEGMENTED_ID, ...limits];
    const segmentBytes = await smallestSegment(['ingest', db, '--root', root, ...segmented], env);
    for (const args of [
      ['--id', ZIP_ID, ...limits, '--lobseg-zip'],
      [...segmented, '--max-siard-bytes', String(segmentBytes)],
    ]) {
      const more = await runCli(['ingest', db, '--root', root, ...args], { env });
      if (more.code !== 0) throw new Error(`ingest ${args[1]} failed: ${more.stderr}`);
    }
    // v2 of the zipped one is relocated: its LOBs are read where the object keeps them.
    const moved = await runCli(['relocate', '--root', root, '--id', ZIP_ID, '--lob-folder', 'file:///Archives/Elsewhere/'], { env });
    if (moved.code !== 0) throw new Error(`relocate failed: ${moved.stderr}`);
  }
  return { db, root, docs, many, sha256: (b) => createHash('sha256').update(b).digest('hex') };
}

/**
 * The smallest --max-siard-bytes the ingest takes for this database, as its refusal of a smaller one
 * names it (nothing is stored then): the header's size depends on the path of the database, so a
 * fixed number breaks when the temporary folder moves. The smallest gives the most segments.
 */
async function smallestSegment(ingest: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const probe = await runCli([...ingest, '--max-siard-bytes', '1000'], { env });
  const least = /use at least (\d+)/.exec(probe.stderr)?.[1];
  if (probe.code !== 2 || !least) throw new Error(`ingest --max-siard-bytes 1000 did not name its least size: ${probe.stderr}`);
  return Number(least);
}
