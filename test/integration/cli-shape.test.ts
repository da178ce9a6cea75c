/**
 * Issue 14, one style and one shape: the root as --root everywhere (init and validate keep their
 * argument), restore's named arguments, unknown options named as unknown, sizes with units, the
 * JSON error object, and an example plus marked required options in every --help.
 */
import test from 'ava';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { buildNorthwind } from '../../fixtures/northwind.js';
import { EXAMPLES, VERBS } from '../../src/cli/verbs.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

test('init and validate take --root as every verb does, and keep their argument', async (t) => {
  const base = tempDir();
  const a = path.join(base, 'a');
  const init = await runCli(['init', '--root', a]);
  t.is(init.code, 0, init.stderr);
  t.true(existsSync(path.join(a, '0=ocfl_1.1')));
  t.is((await runCli(['init', path.join(base, 'b')])).code, 0);
  const both = await runCli(['init', path.join(base, 'c'), '--root', path.join(base, 'd')]);
  t.is(both.code, 2);
  t.false(existsSync(path.join(base, 'c')) || existsSync(path.join(base, 'd')));
  t.regex((await runCli(['validate', '--root', a])).stdout, /^VALID: /);
  t.regex((await runCli(['validate', a])).stdout, /^VALID: /);
  t.is((await runCli(['validate'])).stderr, 'siard-ocfl: Give the storage root or object root to validate: --root <root>.\n');
});

test('an unknown option is reported as unknown, not as a missing required one; --json gives a JSON error', async (t) => {
  const r = await runCli(['ls', '--rot', 'R']);
  t.is(r.code, 2);
  t.regex(r.stderr, /^error: unknown option '--rot'\n\(Did you mean --root\?\)/);
  const j = await runCli(['audit', '--rot', 'R', '--json']);
  t.is(j.code, 2);
  t.deepEqual(JSON.parse(j.stdout), { error: { code: 'USAGE', message: "unknown option '--rot' (Did you mean --root?)", exitCode: 2 } });
  const missing = await runCli(['ls']);
  t.regex(missing.stderr, /^error: required option '--root <root>' not specified/);
});

test('restore names its arguments in --help', async (t) => {
  const help = (await runCli(['restore', '--help'])).stdout;
  t.regex(
    help,
    /^Usage: siard-ocfl restore \[options\] <archive> <target> {2}\| {2}--root <root> --id <object-id> \[--version vN\] <target>$/m,
  );
  t.regex(help, /^ {2}archive {2,}a \.siard file or a folder holding one/m);
  t.regex(help, /^ {2}target {2,}an SQLite file path/m);
});

test('sizes take decimal and binary units: 45k is 45,000 bytes, 2KiB is 2,048', async (t) => {
  const base = tempDir();
  const db = path.join(base, 'nw.db');
  buildNorthwind(db);
  const plain = JSON.parse(
    (await runCli(['export', db, path.join(base, 'plain'), '--max-files', '4', '--max-bytes', '45000', '--inline-max', '2048', '--json']))
      .stdout,
  );
  const units = await runCli([
    'export',
    db,
    path.join(base, 'units'),
    '--max-files',
    '4',
    '--max-bytes',
    '45k',
    '--inline-max',
    '2KiB',
    '--json',
  ]);
  t.is(units.code, 0, units.stderr);
  t.like(JSON.parse(units.stdout), { segments: plain.segments, lobs: plain.lobs, lobFiles: plain.lobFiles });
  t.deepEqual(readdirSync(path.join(base, 'units')).length, readdirSync(path.join(base, 'plain')).length);
  const bad = await runCli(['export', db, path.join(base, 'bad'), '--max-bytes', '45 parsecs']);
  t.is(bad.code, 2);
  t.is(bad.stderr, 'siard-ocfl: Option --max-bytes needs a size in bytes such as 45000, 45k, 2KiB or 1G, not "45 parsecs".\n');
  t.is((await runCli(['export', db, path.join(base, 'g'), '--max-bytes', '1G', '--json'])).code, 0);
});

test('every verb has one example in its --help, and its required options are marked', async (t) => {
  t.deepEqual(Object.keys(EXAMPLES).sort(), Object.keys(VERBS).sort());
  for (const verb of Object.keys(VERBS)) {
    const help = (await runCli([verb, '--help'])).stdout;
    t.true(help.includes(`\nExample:\n  $ ${EXAMPLES[verb]}\n`), verb);
    t.true(EXAMPLES[verb]!.startsWith(`siard-ocfl ${verb} `), verb);
    if (['ls', 'log', 'show', 'audit', 'checkout', 'put', 'ingest', 'relocate', 'mets', 'repair'].includes(verb)) {
      t.regex(help, /--root <root> +OCFL storage root \(required\)/, verb);
    }
  }
});
