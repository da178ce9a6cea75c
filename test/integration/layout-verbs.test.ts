/**
 * Every verb on every layout (issue 36): the verbs other than those layout-end-to-end.test.ts runs
 * (ingest, audit, relocate, restore, validate) find objects through the same objectPath and
 * openObject; this runs each of them, as the command line runs it (in process: src/cli/main.ts),
 * against an object at the path its extension document gives (helpers/layout-cases.ts), in a root
 * of each of the seven layouts on disk and in one on S3 (Ceph RGW, layout 0007).
 *
 * Each root starts as an OCFL 1.0 root, so the object ingested there is a 1.0 object and `upgrade`
 * has work to do: info, ls, log, show, cat, check, verify, describe --template, checkout on the
 * ingested SIARD object; put of a folder (v2); diff v1 v2; upgrade refused before the root, the root
 * upgraded, the object upgraded (v3); the reading room's object page; purge. Where the object lies
 * is checked on the storage itself (its inventory at the expected path); every output against what
 * the test knows independently: the source database (verify), the inventory's digests (cat, show,
 * checkout, hashed here), the folder put (diff).
 */
import test, { type ExecutionContext } from 'ava';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from '../../src/sources/sqlite/driver.js';
import { ingest } from '../../src/archive/ingest.js';
import { chooseLayout } from '../../src/ocfl/layout/layout-choice.js';
import { initRoot } from '../../src/ocfl/root.js';
import { openStorage } from '../../src/ocfl/storage/open.js';
import { isObjectStore } from '../../src/ocfl/storage/storage.js';
import { startReadingRoom } from '../../src/serve/server.js';
import { cliInProcess } from '../helpers/in-process-cli.js';
import { ID, LAYOUT_CASES, S3_LAYOUT_CASE, type LayoutCase } from '../helpers/layout-cases.js';
import { testIf } from '../helpers/requires.js';
import { startRgw, type RgwServer } from '../helpers/s3.js';
import { tempDir } from '../helpers/tmp.js';

const SIARD = 'tiny.siard';

function tinyDatabase(dir: string): string {
  const file = path.join(dir, 'tiny.db');
  const db = new Database(file);
  db.exec(`CREATE TABLE shelf (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
           CREATE TABLE item (id INTEGER PRIMARY KEY, shelf INTEGER REFERENCES shelf(id), name TEXT, photo BLOB);`);
  db.prepare('INSERT INTO shelf VALUES (?, ?)').run(1, 'Émile’s shelf');
  db.prepare('INSERT INTO item VALUES (?, ?, ?, ?)').run(1, 1, 'with photo', Buffer.alloc(3000, 7));
  db.prepare('INSERT INTO item VALUES (?, ?, ?, ?)').run(2, null, 'no photo', null);
  db.close();
  return file;
}

const work = tempDir('siard-ocfl-layout-verbs-');
const source = tinyDatabase(work);

/** The root declared OCFL 1.0 instead of 1.1 (what an older tool made), through its own storage. */
async function declare10(rootDir: string): Promise<void> {
  const storage = await openStorage(rootDir);
  if (isObjectStore(storage)) await storage.putBytes('0=ocfl_1.0', Buffer.from('ocfl_1.0\n'));
  else {
    const file = await storage.openWrite('0=ocfl_1.0', { exclusive: true });
    await file.write(Buffer.from('ocfl_1.0\n'));
    await file.close();
  }
  await storage.remove('0=ocfl_1.1');
}

/** A file of the root, read through its storage (a folder or a bucket). */
async function readAt(rootDir: string, rel: string): Promise<Buffer> {
  return (await openStorage(rootDir)).readFile(rel);
}

interface Inventory {
  type: string;
  head: string;
  manifest: Record<string, string[]>;
  versions: Record<string, { state: Record<string, string[]> }>;
}

/** logical path -> digest of a version, from the inventory at the expected object root. */
function stateOf(inv: Inventory, version: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [digest, paths] of Object.entries(inv.versions[version]!.state)) for (const p of paths) out.set(p, digest);
  return out;
}

const sha512 = (b: Buffer) => createHash('sha512').update(b).digest('hex');

async function run(t: ExecutionContext, label: string, args: string[], expectCode = 0): Promise<string> {
  const res = await cliInProcess(args);
  t.is(res.code, expectCode, `${label}: ${args[0]}: ${res.stderr}`);
  return res.stdout.toString('utf8');
}

/** Every verb on `rootDir`, initialised with `c`'s layout; `local` roots also get a checkout folder and a validation on disk. */
async function everyVerb(t: ExecutionContext, c: LayoutCase, rootDir: string): Promise<void> {
  const label = c.extensionName;
  const R = ['--root', rootDir];
  await initRoot(rootDir, await chooseLayout({ extensionName: c.extensionName, configJson: c.config }));
  await declare10(rootDir);
  const ingested = await ingest(`sqlite:${source}`, rootDir, ID, { name: 'tiny', inlineMax: 100 });
  t.is(ingested.objectPath, c.expected, label);
  const inv1 = JSON.parse((await readAt(rootDir, `${c.expected}/inventory.json`)).toString('utf8')) as Inventory;
  t.is(inv1.type, 'https://ocfl.io/1.0/spec/#inventory', `${label}: a 1.0 object in a 1.0 root`);
  const state1 = stateOf(inv1, 'v1');
  t.true(state1.has(SIARD), label);

  t.deepEqual(JSON.parse(await run(t, label, ['ls', ...R, '--json'])), [{ id: ID, head: 'v1', path: c.expected }], label);
  t.like(JSON.parse(await run(t, label, ['info', ...R, '--id', ID, '--json'])), { id: ID, path: c.expected, ocflVersion: '1.0' }, label);
  t.deepEqual(
    (JSON.parse(await run(t, label, ['log', ...R, '--id', ID, '--json'])) as Array<{ version: string }>).map((v) => v.version),
    ['v1'],
  );
  const shown = JSON.parse(await run(t, label, ['show', ...R, '--id', ID, '--json'])) as {
    files: Array<{ logicalPath: string; digest: string; size: number }>;
  };
  const sorted = (entries: Iterable<[string, string]>) => [...entries].sort(([a], [b]) => (a < b ? -1 : 1));
  t.deepEqual(sorted(shown.files.map((f) => [f.logicalPath, f.digest])), sorted(state1), `${label}: show lists the inventory's state`);
  const siardBytes = (await cliInProcess(['cat', ...R, '--id', ID, SIARD])).stdout;
  t.is(sha512(siardBytes), state1.get(SIARD), `${label}: cat gives the bytes the inventory names`);
  t.is(shown.files.find((f) => f.logicalPath === SIARD)?.size, siardBytes.length, `${label}: show's size read at the content path`);
  t.like(JSON.parse(await run(t, label, ['check', ...R, '--id', ID, '--json'])), { ok: true }, label);
  t.like(JSON.parse(await run(t, label, ['verify', ...R, '--id', ID, source, '--json'])), { ok: true }, `${label}: equal to its source`);
  const template = await run(t, label, ['describe', '--template', ...R, '--id', ID]);
  t.true(/"shelf": \{/.test(template) && /"item": \{/.test(template), `${label}: describe's template names the tables`);
  const out = path.join(tempDir('siard-ocfl-layout-verbs-out-'), 'v1');
  await run(t, label, ['checkout', ...R, '--id', ID, '--version', 'v1', out]);
  t.is(sha512(readFileSync(path.join(out, SIARD))), state1.get(SIARD), `${label}: checkout`);

  // put: the state becomes exactly the folder (v2); diff names what changed.
  const folder = path.join(tempDir('siard-ocfl-layout-verbs-put-'), 'doc');
  mkdirSync(path.join(folder, 'notes'), { recursive: true });
  writeFileSync(path.join(folder, 'notes', 'a.txt'), `notes for ${label}\n`);
  await run(t, label, ['put', ...R, '--id', ID, folder, '--message', 'notes']);
  // Exit 1: the versions differ, as diff(1) says it.
  const diff = JSON.parse(await run(t, label, ['diff', ...R, '--id', ID, 'v1', 'v2', '--json'], 1)) as Record<string, unknown>;
  const diffText = JSON.stringify(diff);
  t.true(diffText.includes('notes/a.txt') && diffText.includes(SIARD), `${label}: ${diffText.slice(0, 300)}`);
  t.is((await cliInProcess(['cat', ...R, '--id', ID, 'notes/a.txt'])).stdout.toString('utf8'), `notes for ${label}\n`);

  // upgrade: refused before the root (E081), then the root, then the object in a new version.
  const early = await cliInProcess(['upgrade', ...R, '--id', ID]);
  t.is(early.code, 2, `${label}: ${early.stderr}`);
  t.regex(early.stderr, /upgrade the root first/);
  t.like(JSON.parse(await run(t, label, ['upgrade', ...R, '--json'])), { from: '1.0', to: '1.1', upgraded: true }, label);
  t.deepEqual(
    JSON.parse(await run(t, label, ['upgrade', ...R, '--id', ID, '--json'])),
    { id: ID, path: c.expected, from: '1.0', to: '1.1', version: 'v3', upgraded: true },
    label,
  );
  const inv3 = JSON.parse((await readAt(rootDir, `${c.expected}/inventory.json`)).toString('utf8')) as Inventory;
  t.is(inv3.type, 'https://ocfl.io/1.1/spec/#inventory', label);
  t.deepEqual(stateOf(inv3, 'v3'), stateOf(inv3, 'v2'), `${label}: the upgrade changed no content`);
  t.is((await readAt(rootDir, `${c.expected}/0=ocfl_object_1.1`)).toString('utf8'), 'ocfl_object_1.1\n', label);
  const validated = await cliInProcess(['validate', ...R]);
  t.is(validated.code, 0, `${label}: validate: ${validated.stdout.toString('utf8')}${validated.stderr}`);

  // The reading room finds the object by its id.
  const room = await startReadingRoom({ root: rootDir, port: 0, workspace: tempDir('siard-ocfl-layout-verbs-room-') });
  try {
    const page = await fetch(new URL(`/object?id=${encodeURIComponent(ID)}`, room.url));
    t.is(page.status, 200, label);
    const html = await page.text();
    t.true(
      ['v1', 'v2', 'v3'].every((v) => html.includes(v)),
      `${label}: the object page lists its versions`,
    );
  } finally {
    await room.close();
  }

  await run(t, label, ['purge', ...R, '--id', ID, '--yes']);
  t.deepEqual(JSON.parse(await run(t, label, ['ls', ...R, '--json'])), [], `${label}: purged`);
  await t.throwsAsync(readAt(rootDir, `${c.expected}/inventory.json`), undefined, `${label}: nothing left at ${c.expected}`);
  if (!isObjectStore(await openStorage(rootDir))) t.false(existsSync(path.join(rootDir, c.expected)), label);
}

for (const c of LAYOUT_CASES) {
  test.serial(`${c.extensionName}: every verb finds the object where the extension puts it`, async (t) => {
    await everyVerb(t, c, path.join(tempDir('siard-ocfl-layout-verbs-'), 'root'));
  });
}

const started = startRgw();
const rgw: RgwServer | undefined = 'skipped' in started ? undefined : started;
test.after.always(async () => rgw?.stop());

testIf(rgw !== undefined, 'no Ceph RADOS Gateway').serial(
  `S3: ${S3_LAYOUT_CASE.extensionName} (tuples of 2) on Ceph RGW: every verb finds the object`,
  async (t) => {
    await everyVerb(t, S3_LAYOUT_CASE, await rgw!.bucket('layout-verbs', 'root'));
  },
);
