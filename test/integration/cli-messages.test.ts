/**
 * Issue 14, messages a person can act on: unreadable input exits 2, unsupported sources list the
 * supported ones, unwritable targets are named once, LOBs are counted in the same words by ingest,
 * export and audit, `log` and `show` print clean tab-separated columns (show in natural order with
 * sizes), ids with control characters are refused by writers and escaped by `ls`, and an unchanged
 * re-ingest makes no version.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildNorthwind } from '../../fixtures/northwind.js';
import { openRoot } from '../../src/ocfl/root.js';
import { BIN, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const work = tempDir('siard-messages-');
chmodSync(work, 0o755);
const db = path.join(work, 'nw.db');
buildNorthwind(db);
const LIMITS = ['--max-files', '4', '--max-bytes', '45k'];

test('a random or truncated .siard: restore and ingest exit 2 with one sentence naming the file', async (t) => {
  const random = path.join(work, 'random.siard');
  writeFileSync(random, Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 7919) % 251)));
  const out = path.join(work, 'trunc-src');
  t.is((await runCli(['export', db, out])).code, 0);
  const truncated = path.join(work, 'truncated.siard');
  writeFileSync(truncated, readFileSync(path.join(out, 'nw.siard')).subarray(0, 5000));
  const root = path.join(work, 'root-bad');
  t.is((await runCli(['init', root])).code, 0);
  for (const file of [random, truncated]) {
    const r = await runCli(['restore', file, path.join(work, 'never.db')]);
    t.is(r.code, 2, r.stderr);
    t.regex(r.stderr, new RegExp(`^siard-ocfl: Cannot read the ZIP archive ${file.replace(/[.]/g, '\\.')}: [^\\n]+\\.\\n$`));
    const i = await runCli(['ingest', file, '--root', root, '--id', 'urn:x:bad']);
    t.is(i.code, 2, i.stderr);
    t.is(i.stderr.split('\n').length, 2);
  }
});

test('export of an unsupported scheme says so and lists the supported sources', async (t) => {
  const r = await runCli(['export', 'oracle://u:p@host/db', path.join(work, 'never')]);
  t.is(r.code, 2);
  t.is(
    r.stderr,
    'siard-ocfl: The source scheme oracle:// is not supported; sources are access:<file>, a .mdb/.accdb file, ' +
      'sqlite:<file>, a .db/.sqlite/.sqlite3 file, postgres://, postgresql://, mysql:// or mariadb://.\n',
  );
});

(process.getuid?.() === 0 ? test : test.skip)(
  'a folder its user cannot write: restore and export name it, and say it once (run as an unprivileged user)',
  (t) => {
    const ro = path.join(work, 'read-only');
    mkdirSync(ro, { mode: 0o555 });
    chmodSync(ro, 0o555);
    const siard = path.join(work, 'ro-src');
    t.is(spawnSync(process.execPath, [BIN, 'export', db, siard]).status, 0);
    chmodSync(siard, 0o755);
    const as = { uid: 65534, gid: 65534, encoding: 'utf8' as const };
    const target = path.join(ro, 'x.db');
    const r = spawnSync(process.execPath, [BIN, 'restore', path.join(siard, 'nw.siard'), target], as);
    t.is(r.status, 2, r.stderr);
    t.is(r.stderr, `siard-ocfl: Cannot restore into ${target}: cannot create a file in the folder ${ro} (unable to open database file).\n`);
    const e = spawnSync(process.execPath, [BIN, 'export', db, path.join(ro, 'out')], as);
    t.is(e.status, 2, e.stderr);
    t.is(e.stderr, `siard-ocfl: Could not finish: permission denied (mkdir ${path.join(ro, 'out')}) [EACCES].\n`);
  },
);

test('ingest, export and audit count LOB cells, LOB files and segment folders in the same words', async (t) => {
  const root = path.join(work, 'root-words');
  t.is((await runCli(['init', root])).code, 0);
  const words = '13 LOB cells in 129 LOB files in 120 segment folders';
  // The version: the .siard, its 129 LOB files and its table fingerprints (<name>.fingerprints.json).
  const i = await runCli(['ingest', db, '--root', root, '--id', 'urn:x:words', ...LIMITS]);
  t.is(i.code, 0, i.stderr);
  t.regex(
    i.stdout,
    new RegExp(
      `^Committed v1 of object "urn:x:words" \\(.+\\): 6 tables, 87 rows, ${words}; the version holds 131 files \\(\\d+ ` +
        `bytes\\), 131 stored new`,
    ),
  );
  const e = await runCli(['export', db, path.join(work, 'words-out'), ...LIMITS]);
  t.true(e.stdout.startsWith(`Exported 6 tables, 87 rows, ${words} (`), e.stdout);
  const a = await runCli(['audit', '--root', root]);
  t.regex(a.stdout, /nw\.siard: 6 tables, 87 rows, 13 LOB cells, 129 LOB files,/);
  const j = JSON.parse((await runCli(['export', db, path.join(work, 'words-json'), ...LIMITS, '--json'])).stdout);
  t.like(j, { lobs: 13, lobFiles: 129, segments: 120 });
});

test('log prints five tab-separated columns; show sorts naturally and prints each size', async (t) => {
  const root = path.join(work, 'root-columns');
  t.is((await runCli(['init', root])).code, 0);
  const id = 'urn:x:columns';
  t.is((await runCli(['ingest', db, '--root', root, '--id', id, ...LIMITS, '--user-name', 'Ada', '--message', 'first'])).code, 0);
  const dir = path.join(work, 'columns-in');
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'a'), 'a');
  t.is((await runCli(['put', '--root', root, '--id', id, dir], { env: { SIARD_OCFL_USER_NAME: '' } })).code, 0);
  const log = await runCli(['log', '--root', root, '--id', id]);
  const rows = log.stdout
    .trimEnd()
    .split('\n')
    .map((l) => l.split('\t'));
  t.deepEqual(
    rows.map((r) => [r[0], r[2], r[3], r[4]]),
    [
      ['v2', '1 files', '', ''],
      ['v1', '131 files', 'Ada', 'first'], // the .siard, 129 LOB files, the fingerprints
    ],
  );
  t.true(rows.every((r) => r.length === 5));

  const show = await runCli(['show', '--root', root, '--id', id, '--version', 'v1']);
  const files = show.stdout
    .trimEnd()
    .split('\n')
    .map((l) => l.split('\t'));
  const order = files.map((f) => f[0]!);
  t.true(
    order.indexOf('nw_lobseg_2/content/schema0/table2/lob4/record7.bin') <
      order.indexOf('nw_lobseg_10/content/schema0/table4/lob7/record1.bin.8'),
  );
  t.true(
    order.indexOf('nw_lobseg_9/content/schema0/table4/lob7/record1.bin.7') <
      order.indexOf('nw_lobseg_10/content/schema0/table4/lob7/record1.bin.8'),
  );
  const objectDir = path.join(root, (await runCli(['path', '--root', root, id])).stdout.trim());
  for (const f of files) t.is(Number(f[3]), statSync(path.join(objectDir, f[1]!)).size, f[0]);
});

test('writers refuse ids with control characters; ls shows such an id made elsewhere escaped', async (t) => {
  const root = path.join(work, 'root-ids');
  t.is((await runCli(['init', root])).code, 0);
  const dir = path.join(work, 'ids-in');
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'a'), 'a');
  for (const id of ['urn:x:a\nb', 'urn:x:a\tb']) {
    const put = await runCli(['put', '--root', root, '--id', id, dir]);
    t.is(put.code, 2);
    t.is(
      put.stderr,
      `siard-ocfl: The object id ${JSON.stringify(id)} holds a control character (such as a newline or tab), which siard-ocfl ` +
        `does not write.\n`,
    );
    const ingest = await runCli(['ingest', db, '--root', root, '--id', id]);
    t.is(ingest.code, 2);
  }
  // Another tool may write one (OCFL allows it): the library does, and ls keeps one line per object.
  const staged = await (await openRoot(root)).startVersion('urn:x:new\nline');
  await staged.addBuffer('a', 'a');
  await staged.commit();
  const ls = await runCli(['ls', '--root', root]);
  t.is(ls.code, 0, ls.stderr);
  t.regex(ls.stdout, /^urn:x:new\\nline\tv1\t\S+\n$/);
});

test('re-ingesting an unchanged database makes no version unless --allow-unchanged', async (t) => {
  const root = path.join(work, 'root-unchanged');
  t.is((await runCli(['init', root])).code, 0);
  const id = 'urn:x:unchanged';
  t.is((await runCli(['ingest', db, '--root', root, '--id', id, ...LIMITS])).code, 0);
  const again = await runCli(['ingest', db, '--root', root, '--id', id, ...LIMITS]);
  t.is(again.code, 0, again.stderr);
  t.regex(
    again.stdout,
    new RegExp(
      String.raw`^Object "urn:x:unchanged" \(.+\) is unchanged, no new version: .*nw\.db gives the same 131 files ` +
        String.raw`as v1 \(--allow-unchanged makes one anyway\)\.\n$`,
    ),
  );
  const json = JSON.parse((await runCli(['ingest', db, '--root', root, '--id', id, ...LIMITS, '--json'])).stdout);
  t.like(json, { version: 'v1', unchanged: true });
  t.is(JSON.parse((await runCli(['log', '--root', root, '--id', id, '--json'])).stdout).length, 1);
  const forced = await runCli(['ingest', db, '--root', root, '--id', id, ...LIMITS, '--allow-unchanged', '--json']);
  t.like(JSON.parse(forced.stdout), { version: 'v2', unchanged: false, stored: 0 });
  // Other limits give other files: a version.
  const changed = await runCli(['ingest', db, '--root', root, '--id', id, '--json']);
  t.like(JSON.parse(changed.stdout), { version: 'v3', unchanged: false });
});
