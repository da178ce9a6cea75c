/**
 * `siard-ocfl init --layout <extension-name> [--layout-config <file.json>]` as users run it: the
 * files the OCFL specification asks for (ocfl_layout.json naming the extension, its config.json with
 * every parameter), and bad input refused with exit 2, one sentence on stderr, nothing written
 * (neither the root nor its workspace beside it; a given empty folder stays empty).
 */
import test from 'ava';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const LAYOUTS = [
  '0002-flat-direct-storage-layout',
  '0003-hash-and-id-n-tuple-storage-layout',
  '0004-hashed-n-tuple-storage-layout',
  '0006-flat-omit-prefix-storage-layout',
  '0007-n-tuple-omit-prefix-storage-layout',
  '0010-differential-n-tuple-omit-prefix-storage-layout',
  '0012-hash-and-no-prefix-id-n-tuple-storage-layout',
];

test('--layout with --layout-config writes ocfl_layout.json and the full config.json; --json says the same', async (t) => {
  const dir = tempDir();
  const root = path.join(dir, 'root');
  const config = path.join(dir, 'layout.json');
  writeFileSync(config, JSON.stringify({ delimiter: 'edu/', tupleSegmentSizes: [3, 4] }));
  const r = await runCli([
    'init',
    root,
    '--layout',
    '0010-differential-n-tuple-omit-prefix-storage-layout',
    '--layout-config',
    config,
    '--json',
  ]);
  t.is(r.code, 0, r.stderr);
  // The parameters given, and the one left out with the default 0010's document states.
  const full = {
    extensionName: '0010-differential-n-tuple-omit-prefix-storage-layout',
    delimiter: 'edu/',
    tupleSegmentSizes: [3, 4],
    fullIdentifierAsObjectRoot: false,
  };
  t.deepEqual(JSON.parse(r.stdout).layout, full);
  t.deepEqual(JSON.parse(readFileSync(path.join(root, 'extensions', full.extensionName, 'config.json'), 'utf8')), full);
  const declared = JSON.parse(readFileSync(path.join(root, 'ocfl_layout.json'), 'utf8'));
  t.is(declared.extension, full.extensionName);
  t.regex(declared.description, /Differential N-tuple Omit Prefix/);
  t.deepEqual(readdirSync(root).sort(), ['0=ocfl_1.1', 'extensions', 'ocfl_layout.json']);
});

test('--help names every layout and the --layout-config option', async (t) => {
  const r = await runCli(['init', '--help']);
  t.is(r.code, 0);
  const help = r.stdout.replace(/\s+/g, ' ');
  for (const name of LAYOUTS) t.true(help.includes(name), name);
  t.true(help.includes('--layout-config <file.json>'));
});

test('bad names and configurations: exit 2, one sentence, nothing written', async (t) => {
  const dir = tempDir();
  const file = (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const emptyFolder = path.join(dir, 'empty');
  mkdirSync(emptyFolder);
  const cases: Array<{ args: string[]; root: string; says: RegExp }> = [
    { root: 'r1', args: ['--layout', '0011-direct-clean-path-layout'], says: /"0011-direct-clean-path-layout" is not supported/ },
    { root: 'r2', args: ['--layout-config', file('broken.json', '{"delimiter": ')], says: /broken\.json is not JSON/ },
    {
      root: 'r3',
      args: ['--layout', LAYOUTS[3]!, '--layout-config', file('typo.json', '{"delimiter": ":", "tupelSize": 2}')],
      says: /typo\.json gives "tupelSize", which is no parameter of 0006/,
    },
    {
      root: 'r4',
      args: ['--layout', LAYOUTS[0]!, '--tuple-size', '2'],
      says: /--tuple-size does not apply to 0002-flat-direct-storage-layout/,
    },
    { root: 'empty', args: ['--layout', LAYOUTS[3]!], says: /0006 layout: the extension has no default "delimiter"/ },
    { root: 'r6', args: ['--layout-config', path.join(dir, 'missing.json')], says: /Cannot read the layout configuration .*missing\.json/ },
  ];
  const results = await Promise.all(cases.map((c) => runCli(['init', path.join(dir, c.root), ...c.args])));
  results.forEach((r, i) => {
    const c = cases[i]!;
    t.is(r.code, 2, `${c.args.join(' ')}: ${r.stderr}`);
    t.is(r.stdout, '');
    t.regex(r.stderr, c.says);
    t.is(r.stderr.trim().split('\n').length, 1, 'one line');
  });
  t.deepEqual(readdirSync(emptyFolder), [], 'the given empty folder stays empty');
  t.deepEqual(readdirSync(dir).sort(), ['broken.json', 'empty', 'typo.json'], 'no root, no workspace made');
});
