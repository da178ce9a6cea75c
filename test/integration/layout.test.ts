/**
 * Extension 0003: every vector of spec/0003-vectors.json (made by python3 from the extension's own
 * Python code) through the library and through the built `siard-ocfl path`; parameter checks;
 * refusal of ids that are not well-formed Unicode; reading a storage root's layout, including the
 * reference storage roots of ocfl-py's extra fixtures.
 */
import test from 'ava';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { UsageError } from '../../src/errors.js';
import {
  ExtensionLayout,
  LAYOUT_0003_NAME,
  createLayout,
  loadLayout0003,
  readLayoutConfig,
  type Layout0003Config,
} from '../../src/ocfl/layout/index.js';
import { idDigestSync, isIdDigestReady } from '../../src/ocfl/layout/id-digest.js';
import { BIN, runCli } from '../helpers/cli.js';
import { PROJECT_ROOT, reference, seed, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';
import { hasProgram, testIf } from '../helpers/requires.js';
import { LAYOUT_0003_VECTORS, LAYOUT_0003_VECTORS_FILE, type Layout0003Vector } from '../helpers/layout-0003-vectors.js';

type Vector = Layout0003Vector;
const VECTORS_FILE = LAYOUT_0003_VECTORS_FILE;
const VECTORS = LAYOUT_0003_VECTORS;

function configOf(v: Vector): Partial<Layout0003Config> {
  return { digestAlgorithm: v.digestAlgorithm, tupleSize: v.tupleSize, numberOfTuples: v.numberOfTuples };
}

const key = (v: Vector) => `${v.digestAlgorithm} ${v.tupleSize} ${v.numberOfTuples}`;
function groupByConfig(vectors: Vector[]): Map<string, Vector[]> {
  const groups = new Map<string, Vector[]>();
  for (const v of vectors) groups.set(key(v), [...(groups.get(key(v)) ?? []), v]);
  return groups;
}

function refuses(t: import('ava').ExecutionContext, fn: () => unknown, pattern: RegExp): void {
  const err = t.throws(fn, { instanceOf: UsageError });
  t.regex(err?.message ?? '', pattern);
}

test.serial('blake2b-160/256/384 need the asynchronous start; the others work synchronously', async (t) => {
  // Serial tests run first, before anything in this process has loaded the WebAssembly hashers.
  t.false(isIdDigestReady('blake2b-256'));
  refuses(t, () => createLayout({ digestAlgorithm: 'blake2b-256' }), /asynchronous/);
  const layout = await loadLayout0003({ digestAlgorithm: 'blake2b-256' });
  t.is(layout.objectPath('object-01'), VECTORS.find((v) => v.digestAlgorithm === 'blake2b-256' && v.id === 'object-01')!.path);
  t.notThrows(() => createLayout({ digestAlgorithm: 'blake2b-512' }));
});

test('the vectors cover the seed tests, the spec examples and the edge cases asked for', (t) => {
  const sources = new Set(VECTORS.map((v) => v.source.replace(/ \(.*/, '')));
  t.deepEqual([...sources].sort(), ['python-seed-code', 'seed-python-tests', 'spec-examples']);
  t.is(VECTORS.filter((v) => v.source === 'seed-python-tests').length, 10);
  const has = (pred: (v: Vector) => boolean) => t.true(VECTORS.some(pred));
  has((v) => v.id === '..Hor/rib:lè-$id' && v.path === '373/529/21a/%2e%2eHor%2frib%3al%c3%a8-%24id');
  has((v) => v.path.endsWith('tab%09here'));
  has((v) => v.path.endsWith('tilde%7eid'));
  has((v) => v.path.includes('%21star%2aquote%27paren%28%29'));
  has((v) => v.path.includes('%f0%9f%98%80'));
  // forty "ä": the cut lands inside an escape ("...%c3%" then "-digest").
  has((v) => v.id === 'ä'.repeat(40) && /%c3%-[0-9a-f]+$/.test(v.path));
  for (const alg of ['sha1', 'sha512', 'blake2b-512']) has((v) => v.digestAlgorithm === alg);
});

testIf(
  hasProgram('python3', '--version'),
  'python3 is not installed',
  sharedTest,
)('the vectors file is what the generator makes from the seed (python3)', (t) => {
  const out = execFileSync('python3', [path.join(PROJECT_ROOT, 'spec', 'make-0003-vectors.py'), seed('001_41b28a7f90922e42.txt')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  t.deepEqual(JSON.parse(out), JSON.parse(readFileSync(VECTORS_FILE, 'utf8')));
});

test('library: every vector maps to its path and digest', async (t) => {
  for (const [, vectors] of groupByConfig(VECTORS)) {
    const layout = await ExtensionLayout.load(LAYOUT_0003_NAME, configOf(vectors[0]));
    for (const v of vectors) {
      t.is(layout.objectPath(v.id), v.path, `${JSON.stringify(v.id)} ${key(v)}`);
      t.is(idDigestSync(layout.config.digestAlgorithm as string, Buffer.from(v.id, 'utf8')), v.digest, `${JSON.stringify(v.id)} ${key(v)}`);
    }
  }
});

test('CLI: every vector through `siard-ocfl path`, one call per configuration', async (t) => {
  for (const [, vectors] of groupByConfig(VECTORS)) {
    const v0 = vectors[0];
    const cliVectors = vectors.filter((v) => !v.id.includes('\0')); // NUL cannot be a command-line argument
    const r = await runCli([
      'path',
      '--digest-algorithm',
      v0.digestAlgorithm,
      '--tuple-size',
      String(v0.tupleSize),
      '--number-of-tuples',
      String(v0.numberOfTuples),
      '--',
      ...cliVectors.map((v) => v.id),
    ]);
    t.is(r.code, 0, r.stderr);
    t.deepEqual(
      r.stdout.split('\n').slice(0, -1),
      cliVectors.map((v) => v.path),
      key(v0),
    );
  }
});

test('CLI: --stdin maps many ids in one call, after the argument ids; --json pairs ids and paths', async (t) => {
  const defaults = VECTORS.filter((v) => key(v) === 'sha256 3 3');
  t.true(defaults.length > 20);
  const stdinIds = defaults.slice(1);
  const r = await runCli(['path', '--stdin', '--json', defaults[0].id], { input: stdinIds.map((v) => v.id + '\n').join('') });
  t.is(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  t.deepEqual(doc.layout, { extensionName: LAYOUT_0003_NAME, digestAlgorithm: 'sha256', tupleSize: 3, numberOfTuples: 3 });
  t.deepEqual(
    doc.objects,
    defaults.map((v) => ({ id: v.id, path: v.path })),
  );
  // CRLF lines and no final newline are read the same way.
  const crlf = await runCli(['path', '--stdin'], { input: 'object-01\r\n..Hor/rib:lè-$id' });
  t.is(crlf.stdout, '3c0/ff4/240/object-01\n373/529/21a/%2e%2eHor%2frib%3al%c3%a8-%24id\n');
});

test('parameters: both sizes 0 or both > 0, product within the digest, known algorithm, right extension', (t) => {
  refuses(t, () => createLayout({ tupleSize: 0, numberOfTuples: 3 }), /both be 0 or both be more than 0/);
  refuses(t, () => createLayout({ tupleSize: 3, numberOfTuples: 0 }), /both be 0 or both be more than 0/);
  refuses(t, () => createLayout({ digestAlgorithm: 'md5', tupleSize: 3, numberOfTuples: 11 }), /exceeds the 32 hex characters/);
  t.notThrows(() => createLayout({ digestAlgorithm: 'md5', tupleSize: 32, numberOfTuples: 1 }));
  t.notThrows(() => createLayout({ digestAlgorithm: 'sha512', tupleSize: 4, numberOfTuples: 32 }));
  refuses(t, () => createLayout({ digestAlgorithm: 'sha3-256' }), /unknown digestAlgorithm "sha3-256"/);
  refuses(t, () => createLayout({ digestAlgorithm: 'SHA256' }), /unknown digestAlgorithm/);
  refuses(t, () => createLayout({ tupleSize: -1 }), /tupleSize must be a whole number/);
  refuses(t, () => createLayout({ tupleSize: 2.5 }), /tupleSize must be a whole number/);
  refuses(
    t,
    () => ExtensionLayout.create(LAYOUT_0003_NAME, { extensionName: LAYOUT_0003_NAME, numberOfTuples: '3' }, true),
    /numberOfTuples must be a whole number/,
  );
  refuses(
    t,
    () => ExtensionLayout.create(LAYOUT_0003_NAME, { extensionName: '0004-hashed-n-tuple-storage-layout' }, true),
    /names extension "0004-hashed-n-tuple-storage-layout"/,
  );
  refuses(t, () => ExtensionLayout.create(LAYOUT_0003_NAME, { digestAlgorithm: 'sha256' }, true), /no "extensionName"/);
  refuses(t, () => ExtensionLayout.create(LAYOUT_0003_NAME, [], true), /must be a JSON object/);
  const err = t.throws(() => createLayout({ digestAlgorithm: 'nope' }), { instanceOf: UsageError });
  t.is(err?.code, 'UNKNOWN_DIGEST_ALGORITHM');
  t.is(err?.exitCode, 2);
});

test('defaults: a config.json holding only extensionName is sha256/3/3, and the full config is what we write', (t) => {
  const layout = ExtensionLayout.create(LAYOUT_0003_NAME, { extensionName: LAYOUT_0003_NAME }, true);
  const full = { extensionName: LAYOUT_0003_NAME, digestAlgorithm: 'sha256', tupleSize: 3, numberOfTuples: 3 };
  t.deepEqual(layout.config, full);
  t.deepEqual(createLayout().config, full);
  t.deepEqual(ExtensionLayout.create(LAYOUT_0003_NAME, { extensionName: LAYOUT_0003_NAME, tupleSize: 2 }).config, {
    ...full,
    tupleSize: 2,
  });
  // The shipped default config is exactly that.
  t.deepEqual(JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'extensions', LAYOUT_0003_NAME, 'config.json'), 'utf8')), full);
  t.is(layout.objectPath('object-01'), '3c0/ff4/240/object-01');
  t.true(Object.isFrozen(layout.config));
});

test('ids that are not well-formed Unicode, or empty, are refused, never replaced', (t) => {
  const layout = createLayout();
  for (const id of ['\ud800', 'abc\udc00', '\ude00\ud83d', 'x\ud83d']) {
    const err = t.throws(() => layout.objectPath(id), { instanceOf: UsageError });
    t.regex(err?.message ?? '', /not well-formed Unicode/);
    t.is(err?.code, 'INVALID_OBJECT_ID');
  }
  const emoji = VECTORS.find((v) => v.id === 'emoji-\u{1F600}-id' && key(v) === 'sha256 3 3')!;
  t.is(layout.objectPath('emoji-\ud83d\ude00-id'), emoji.path, 'a surrogate pair is one character');
  refuses(t, () => layout.objectPath(''), /must not be empty/);
});

function spawnRaw(file: string, args: string[], input: Buffer): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

test('CLI: a lone surrogate (WTF-8 bytes) on stdin or in an argument is refused with exit 2 and no output', async (t) => {
  const loneSurrogate = Buffer.from([0xed, 0xa0, 0x80]); // U+D800 encoded as if it were a character
  const viaStdin = await spawnRaw(
    process.execPath,
    [BIN, 'path', '--stdin'],
    Buffer.concat([Buffer.from('object-01\n'), loneSurrogate, Buffer.from('\n')]),
  );
  t.is(viaStdin.code, 2);
  t.is(viaStdin.stdout, '');
  t.regex(viaStdin.stderr, /Standard input is not valid UTF-8/);
  if (process.platform === 'linux') {
    // A shell puts the raw bytes into argv; Node alone would turn them into U+FFFD.
    const viaArg = await spawnRaw(
      '/bin/sh',
      ['-c', `exec "$0" "$1" path object-01 "$(printf '\\355\\240\\200')"`, process.execPath, BIN],
      Buffer.alloc(0),
    );
    t.is(viaArg.code, 2);
    t.is(viaArg.stdout, '');
    t.regex(viaArg.stderr, /argument is not valid UTF-8/);
  }
});

test('CLI: bad parameters and missing ids end with exit 2 and one sentence', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [['path', '--tuple-size', '0', 'x'], /both be 0 or both be more than 0/],
    [['path', '--digest-algorithm', 'sha3-256', 'x'], /unknown digestAlgorithm "sha3-256"/],
    [['path', '--tuple-size', 'three', 'x'], /--tuple-size needs a whole number/],
    [['path'], /at least one object id/],
    [['path', '--root', '.', '--tuple-size', '2', 'x'], /either --root or the layout options/],
  ];
  for (const [args, pattern] of cases) {
    const r = await runCli(args);
    t.is(r.code, 2, args.join(' '));
    t.regex(r.stderr, pattern);
    t.is(r.stdout, '');
  }
});

function makeRoot(layoutJson: unknown, config?: unknown): string {
  const root = tempDir();
  writeFileSync(path.join(root, '0=ocfl_1.1'), 'ocfl_1.1\n');
  if (layoutJson !== undefined) writeFileSync(path.join(root, 'ocfl_layout.json'), JSON.stringify(layoutJson));
  if (config !== undefined) {
    const dir = path.join(root, 'extensions', LAYOUT_0003_NAME);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config));
  }
  return root;
}

test('readLayoutConfig: config, defaults, and clear errors for roots it cannot use', async (t) => {
  const decl = { extension: LAYOUT_0003_NAME, description: 'x' };
  const md5 = await readLayoutConfig(
    makeRoot(decl, { extensionName: LAYOUT_0003_NAME, digestAlgorithm: 'md5', tupleSize: 2, numberOfTuples: 15 }),
  );
  t.is(md5.objectPath('object-01'), 'ff/75/53/44/92/48/5e/ab/b3/9f/86/35/67/28/88/object-01');
  t.deepEqual((await readLayoutConfig(makeRoot(decl, { extensionName: LAYOUT_0003_NAME }))).config, createLayout().config);
  t.deepEqual((await readLayoutConfig(makeRoot(decl))).config, createLayout().config, 'no config.json: defaults');

  const failures: Array<[string, RegExp]> = [
    [path.join(tempDir(), 'absent'), /does not exist/],
    [makeRoot(undefined), /has no ocfl_layout\.json/],
    [
      makeRoot({ extension: '0011-direct-clean-path-layout', description: 'x' }),
      /uses layout "0011-direct-clean-path-layout", which siard-ocfl does not support/,
    ],
    [makeRoot({ description: 'x' }), /no "extension" name/],
    [makeRoot(decl, '{ not json'), /config\.json .* is not valid UTF-8 JSON/],
    [makeRoot(decl, { extensionName: '0002-flat-direct-storage-layout' }), /names extension "0002-flat-direct-storage-layout"/],
    [makeRoot(decl, { extensionName: LAYOUT_0003_NAME, tupleSize: 40, numberOfTuples: 2 }), /exceeds the 64 hex characters/],
  ];
  for (const [root, pattern] of failures) {
    const err = await t.throwsAsync(readLayoutConfig(root), { instanceOf: UsageError });
    t.regex(err?.message ?? '', pattern, root);
  }
});

test("CLI: --root follows the root's own configuration; an unknown layout is exit 2", async (t) => {
  const root = makeRoot(
    { extension: LAYOUT_0003_NAME, description: 'x' },
    { extensionName: LAYOUT_0003_NAME, digestAlgorithm: 'md5', tupleSize: 2, numberOfTuples: 15 },
  );
  const r = await runCli(['path', '--root', root, '..hor/rib:le-$id']);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, '08/31/97/66/fb/6c/29/35/dd/17/5b/94/26/77/17/%2e%2ehor%2frib%3ale-%24id\n');
  const unknown = await runCli(['path', '--root', makeRoot({ extension: '0011-direct-clean-path-layout', description: 'x' }), 'a']);
  t.is(unknown.code, 2);
  t.regex(unknown.stderr, /uses layout "0011-direct-clean-path-layout"/);
});

/** Every object under a root: its id (from inventory.json) and where it lies. */
async function objectsOf(root: string): Promise<Array<{ id: string; at: string }>> {
  const markers = await fg('**/0=ocfl_object_1.*', { cwd: root, dot: true });
  return markers.map((marker) => {
    const at = path.posix.dirname(marker);
    return { id: JSON.parse(readFileSync(path.join(root, at, 'inventory.json'), 'utf8')).id as string, at };
  });
}

sharedTest('reference storage roots (ocfl-py extra fixtures): every object lies at layout(id)', async (t) => {
  const base = reference('ocfl-extra-fixtures', '1.0', 'good-storage-roots');
  const roots = [path.join(base, 'reg-extension-dir-root')];
  for (const zip of ['root_ext0003_ex1.zip', 'root_ext0003_ex2.zip']) {
    const dest = tempDir();
    execFileSync('unzip', ['-q', path.join(base, zip), '-d', dest]); // the root's files are at the zip's top level
    roots.push(dest);
  }
  let checked = 0;
  for (const root of roots) {
    const layout = await readLayoutConfig(root);
    const objects = await objectsOf(root);
    t.true(objects.length > 0, root);
    for (const { id, at } of objects) {
      t.is(layout.objectPath(id), at, `${root}: ${id}`);
      checked++;
    }
  }
  t.true(checked >= 5);
});
