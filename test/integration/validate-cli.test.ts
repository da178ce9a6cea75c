/**
 * `siard-ocfl validate` as users run it (the built CLI), and the worker-thread hashing both from
 * the built JavaScript (the CLI) and from TypeScript source (this test process runs under tsx).
 */
import test from 'ava';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { HashPool } from '../../src/ocfl/validate/hash-pool.js';
import { validatePath } from '../../src/ocfl/validate/index.js';
import { digestSync, MultiHasher } from '../../src/ocfl/digest.js';
import { runCli } from '../helpers/cli.js';
import { reference, sharedTest } from '../helpers/shared.js';
import { ramTempDir } from '../helpers/ram-temp-dir.js';
import { tempDir } from '../helpers/tmp.js';

const FIXTURES = reference('ocfl-fixtures', '1.1');

sharedTest('valid object: exit 0, summary line, --json has exactly the documented keys', async (t) => {
  const dir = path.join(FIXTURES, 'good-objects', 'spec-ex-full');
  const human = await runCli(['validate', dir]);
  t.is(human.code, 0, human.stderr);
  t.regex(human.stdout, /^VALID: .*1 object, 4 content files .*0 errors, 0 warnings\.\n$/);
  const res = await runCli(['validate', '--json', dir]);
  t.is(res.code, 0);
  const report = JSON.parse(res.stdout);
  t.deepEqual(Object.keys(report), ['valid', 'errors', 'warnings', 'objects', 'files', 'bytes']);
  t.deepEqual(report, { valid: true, errors: [], warnings: [], objects: 1, files: 4, bytes: report.bytes });
  t.true(report.bytes > 0);
});

sharedTest('invalid object: exit 1, one line per finding; --no-fixity skips the digests only', async (t) => {
  const dir = path.join(FIXTURES, 'bad-objects', 'E092_content_file_digest_mismatch');
  const human = await runCli(['validate', dir]);
  t.is(human.code, 1);
  const lines = human.stdout.trimEnd().split('\n');
  t.regex(lines[0], /^INVALID: .*1 error, 0 warnings\.$/);
  t.is(lines.length, 2);
  t.regex(lines[1], /^ERROR E092 .*v1\/content\/test\.txt: The sha512 digest of "v1\/content\/test\.txt" is [0-9a-f]{128}, but/);
  const json = JSON.parse((await runCli(['validate', '--json', dir])).stdout);
  t.false(json.valid);
  // The finding record audit shares (issue 14): code, severity, object, path, message.
  t.deepEqual(Object.keys(json.errors[0]), ['code', 'severity', 'object', 'path', 'message']);
  t.like(json.errors[0], { severity: 'error', object: null });
  t.is(json.errors[0].code, 'E092');
  const skipped = await runCli(['validate', '--no-fixity', dir]);
  t.is(skipped.code, 0);
  t.regex(skipped.stdout, /digests not checked/);
  // A structural error is still found without fixity.
  t.is((await runCli(['validate', '--no-fixity', path.join(FIXTURES, 'bad-objects', 'E058_no_sidecar')])).code, 1);
});

sharedTest('warnings keep exit 0 and are listed', async (t) => {
  const res = await runCli(['validate', path.join(FIXTURES, 'warn-objects', 'W004_uses_sha256')]);
  t.is(res.code, 0);
  t.regex(res.stdout, /^VALID: .*1 warning\.\nWARNING W004 /);
});

test('could not run: missing path, a file, a folder that is not OCFL -> exit 2 with one sentence', async (t) => {
  const base = tempDir();
  writeFileSync(path.join(base, 'file.txt'), 'x');
  mkdirSync(path.join(base, 'plain'));
  for (const target of [path.join(base, 'missing'), path.join(base, 'file.txt'), path.join(base, 'plain')]) {
    const res = await runCli(['validate', '--json', target]);
    t.is(res.code, 2, target);
    t.regex(res.stderr, /^siard-ocfl: .+\.\n$/);
    // Issue 14: with --json a failure is a JSON error object on stdout (it was empty), saying the same sentence.
    const { error } = JSON.parse(res.stdout);
    t.deepEqual(Object.keys(error), ['code', 'message', 'exitCode']);
    t.is(error.exitCode, 2);
    t.is(`siard-ocfl: ${error.message}\n`, res.stderr);
  }
});

/**
 * An object of `count` files (enough to go through the worker pool), written directly rather than
 * with the core writer so that this test depends on the validator alone; one file corrupted when asked.
 */
async function bigObject(count: number, corrupt: boolean): Promise<string> {
  const dir = path.join(tempDir(), 'obj');
  mkdirSync(path.join(dir, 'v1', 'content', 'f'), { recursive: true });
  writeFileSync(path.join(dir, '0=ocfl_object_1.1'), 'ocfl_object_1.1\n');
  const manifest: Record<string, string[]> = {};
  const state: Record<string, string[]> = {};
  const md5: Record<string, string[]> = {};
  const blake: Record<string, string[]> = {};
  for (let i = 0; i < count; i++) {
    const body = `file number ${i}\n`.repeat((i % 7) + 1) + i;
    writeFileSync(path.join(dir, 'v1', 'content', 'f', `${i}.txt`), body);
    const h = await MultiHasher.create(['sha512', 'md5', 'blake2b-256']);
    h.update(Buffer.from(body));
    const d = h.digests();
    manifest[d.sha512] = [`v1/content/f/${i}.txt`];
    state[d.sha512] = [`f/${i}.txt`];
    md5[d.md5] = [`v1/content/f/${i}.txt`];
    blake[d['blake2b-256']] = [`v1/content/f/${i}.txt`];
  }
  const inv = JSON.stringify({
    id: 'urn:pool:test',
    type: 'https://ocfl.io/1.1/spec/#inventory',
    digestAlgorithm: 'sha512',
    head: 'v1',
    manifest,
    versions: { v1: { created: '2024-01-01T00:00:00Z', message: 'm', user: { name: 'n', address: 'mailto:n@example.org' }, state } },
    fixity: { md5, 'blake2b-256': blake },
  });
  for (const where of ['', 'v1']) {
    writeFileSync(path.join(dir, where, 'inventory.json'), inv);
    writeFileSync(path.join(dir, where, 'inventory.json.sha512'), `${digestSync('sha512', inv)} inventory.json\n`);
  }
  if (corrupt) writeFileSync(path.join(dir, 'v1', 'content', 'f', '123.txt'), 'changed\n');
  return dir;
}

test('worker pool from the built JavaScript: 600 files verified, one corrupted file found', async (t) => {
  const dir = await bigObject(600, true);
  const res = await runCli(['validate', '--json', dir]);
  t.is(res.code, 1, res.stderr);
  const report = JSON.parse(res.stdout);
  t.is(report.files, 600);
  const codes = report.errors.map((e: { code: string; path: string }) => `${e.code} ${path.basename(e.path)}`).sort();
  // sha512 (manifest) -> E092; md5 and blake2b-256 (fixity) -> E093.
  t.deepEqual([...new Set(codes)], ['E092 123.txt', 'E093 123.txt']);
  t.is(report.errors.filter((e: { code: string }) => e.code === 'E093').length, 2);
});

test('worker pool from TypeScript source (tsx workers): same result in this process', async (t) => {
  const r = await validatePath(await bigObject(600, true));
  t.is(r.files, 600);
  t.deepEqual([...new Set(r.errors.map((e) => `${e.code} ${path.basename(e.path)}`))].sort(), ['E092 123.txt', 'E093 123.txt']);
  t.true((await validatePath(await bigObject(300, false))).valid);
});

test('HashPool: threads return every algorithm of each file, in task order, one read per file', async (t) => {
  const dir = tempDir();
  const tasks = [];
  const sizes = [];
  const bodies: Buffer[] = [];
  for (let i = 0; i < 400; i++) {
    const body = Buffer.alloc(i * 97, i % 251);
    bodies.push(body);
    writeFileSync(path.join(dir, `${i}`), body);
    tasks.push({ path: path.join(dir, `${i}`), algorithms: ['sha512', 'sha256', 'md5'] });
    sizes.push(body.length);
  }
  tasks.push({ path: path.join(dir, 'missing'), algorithms: ['sha512'] });
  sizes.push(0);
  const pool = new HashPool(2);
  let hashedBytes = 0;
  try {
    const results = await pool.hashAll(tasks, sizes, (_n, bytes) => (hashedBytes += bytes));
    for (let i = 0; i < 400; i++) {
      t.deepEqual(results[i].digests, {
        sha512: digestSync('sha512', bodies[i]),
        sha256: digestSync('sha256', bodies[i]),
        md5: digestSync('md5', bodies[i]),
      });
      t.is(results[i].size, bodies[i].length);
    }
    t.regex(results[400].error ?? '', /ENOENT/);
    t.is(
      hashedBytes,
      sizes.reduce((a, b) => a + b, 0),
    );
  } finally {
    await pool.close();
  }
});

test('content digests are checked in batches: a corrupted file in every batch of a 45,000-file object is found', async (t) => {
  const { createHash } = await import('node:crypto');
  // In memory where there is room: 45,000 small files are what is read, not the disk they lie on.
  const dir = path.join(ramTempDir('siard-ocfl-validate-', 256 << 20), 'obj');
  mkdirSync(path.join(dir, 'v1', 'content', 'f'), { recursive: true });
  writeFileSync(path.join(dir, '0=ocfl_object_1.1'), 'ocfl_object_1.1\n');
  const manifest: Record<string, string[]> = {};
  const state: Record<string, string[]> = {};
  const count = 45_000; // the validator hashes 20,000 files at a time
  const corrupted = [7, 22_222, 44_999];
  for (let i = 0; i < count; i++) {
    const body = `file ${i}\n`;
    const d = createHash('sha512').update(body).digest('hex');
    manifest[d] = [`v1/content/f/${i}.txt`];
    state[d] = [`f/${i}.txt`];
    writeFileSync(path.join(dir, 'v1', 'content', 'f', `${i}.txt`), corrupted.includes(i) ? `changed ${i}\n` : body);
  }
  const inv = JSON.stringify({
    id: 'urn:batches:test',
    type: 'https://ocfl.io/1.1/spec/#inventory',
    digestAlgorithm: 'sha512',
    head: 'v1',
    manifest,
    versions: { v1: { created: '2024-01-01T00:00:00Z', message: 'm', user: { name: 'n', address: 'mailto:n@example.org' }, state } },
  });
  for (const where of ['', 'v1']) {
    writeFileSync(path.join(dir, where, 'inventory.json'), inv);
    writeFileSync(path.join(dir, where, 'inventory.json.sha512'), `${digestSync('sha512', inv)} inventory.json\n`);
  }
  const res = await runCli(['validate', '--json', dir]);
  t.is(res.code, 1, res.stderr);
  const report = JSON.parse(res.stdout);
  t.is(report.files, count);
  t.deepEqual(
    report.errors.map((e: { code: string; path: string }) => `${e.code} ${path.basename(e.path)}`).sort(),
    corrupted.map((i) => `E092 ${i}.txt`).sort(),
  );
});
