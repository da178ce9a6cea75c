/**
 * restore --root R --id I [--version vN] reads the archive in place from an OCFL object: the
 * `.siard` and its LOB files at their content paths, which after a second version sit in v1's
 * content folder while the state is v2's. Also: a folder holding one .siard (a checkout) restores
 * the same, and a missing version or object is a clear exit 2.
 */
import test from 'ava';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildNorthwind } from '../../fixtures/northwind.js';
import { sqliteContents as contents } from '../helpers/archive-support.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const work = tempDir('siard-ocfl-restore-ocfl-');
const db = buildNorthwind(path.join(work, 'northwind.db'));
const root = path.join(work, 'root');
const id = 'urn:example:northwind';

test.before(async () => {
  const init = await runCli(['init', root]);
  if (init.code !== 0) throw new Error(init.stderr);
  const ingest = await runCli(['ingest', db, '--root', root, '--id', id, '--inline-max', '1000', '--max-bytes', '100000']);
  if (ingest.code !== 0) throw new Error(ingest.stderr);
  // v2: the same files plus a note; unchanged files stay in v1's content folder.
  const checkout = path.join(work, 'checkout-v1');
  const co = await runCli(['checkout', '--root', root, '--id', id, checkout]);
  if (co.code !== 0) throw new Error(co.stderr);
  writeFileSync(path.join(checkout, 'NOTE.txt'), 'second version\n');
  const put = await runCli(['put', '--root', root, '--id', id, checkout, '--message', 'add a note']);
  if (put.code !== 0) throw new Error(put.stderr);
});

test('restore from the object head (v2, content in v1) equals the original database, and so do v1 and a checkout folder', async (t) => {
  const want = contents(db);
  const head = path.join(work, 'head.db');
  const res = await runCli(['restore', '--root', root, '--id', id, head, '--json']);
  t.is(res.code, 0, res.stderr);
  const summary = JSON.parse(res.stdout) as { siard: string; lobFiles: number; digestsVerified: number };
  t.regex(summary.siard, /v2: northwind\.siard$/);
  t.true(summary.lobFiles > 0);
  t.is(summary.digestsVerified, summary.lobFiles);
  t.deepEqual(contents(head), want);

  const v1 = path.join(work, 'v1.db');
  t.is((await runCli(['restore', '--root', root, '--id', id, '--version', 'v1', v1])).code, 0);
  t.deepEqual(contents(v1), want);

  const fromDir = path.join(work, 'dir.db');
  const viaDir = await runCli(['restore', path.join(work, 'checkout-v1'), fromDir]);
  t.is(viaDir.code, 0, viaDir.stderr);
  t.deepEqual(contents(fromDir), want);
  // the object's content folders: the .siard and LOB files only in v1, the note in v2
  const objectDirs = readdirSync(root, { recursive: true }).map(String);
  t.true(objectDirs.some((p) => /v1[\\/]content[\\/]northwind\.siard$/.test(p)));
  t.false(objectDirs.some((p) => /v2[\\/]content[\\/]northwind\.siard$/.test(p)));
});

test('an unknown version or object, or a folder without a .siard, is exit 2 with a clear message', async (t) => {
  const noVersion = await runCli(['restore', '--root', root, '--id', id, '--version', 'v9', path.join(work, 'x.db')]);
  t.is(noVersion.code, 2);
  t.regex(noVersion.stderr, /has no version v9 \(it has v1, v2\)/);
  const noObject = await runCli(['restore', '--root', root, '--id', 'urn:example:none', path.join(work, 'y.db')]);
  t.is(noObject.code, 2);
  const empty = tempDir();
  const noSiard = await runCli(['restore', empty, path.join(work, 'z.db')]);
  t.is(noSiard.code, 2);
  t.regex(noSiard.stderr, /holds no \.siard file to restore/);
});
