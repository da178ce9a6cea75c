/**
 * The same object tests on both backends: a storage root in a local folder and one on a real S3
 * server (a Ceph RADOS Gateway started for this file by scripts/ceph-rgw.sh, see helpers/s3.ts).
 * Everything runs through the command line, as a user would, in child processes: init, put,
 * ingest, validate, audit (and --shard), relocate, mets, checkout, show, log, ls, restore --root,
 * repair; the lock race between processes; the reference fixtures copied into a bucket and validated with the same codes as on disk; a
 * root copied from S3 to disk and back. The kill series on S3 (a writer killed at each step of the
 * publication, at random moments, a killed writer's lease) are in faults/s3-kill.test.ts.
 *
 * Over 60 s (about 80 s of CPU, 130 s wall in npm test): some 120 command-line runs against a real
 * gateway, whose requests take milliseconds each, and lease tests that wait for a lease to run out.
 */
import test, { type ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync, statfsSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import Database from '../../src/sources/sqlite/driver.js';
import { runCli, BIN } from '../helpers/cli.js';
import { startRgw, type RgwServer } from '../helpers/s3.js';
import { HAS_SHARED, reference, PROJECT_ROOT } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';
import { canMount, mountTmpfs } from '../helpers/tmpfs.js';
import { readTree, writeTree } from '../helpers/file-tree.js';
import { S3Storage } from '../../src/ocfl/storage/s3.js';
import { forEachConcurrent } from '../../src/ocfl/concurrent.js';
import { SiardOcflError } from '../../src/errors.js';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { LeaseLockProvider } from '../../src/ocfl/lock/lease.js';
import { initRoot, openRoot } from '../../src/ocfl/root.js';
import { ID_CASES } from './hostile/expected.js';
import { FileSystemStorage } from '../../src/ocfl/storage/fs.js';
import type { ReadStorage, WriteStorage } from '../../src/ocfl/storage/storage.js';
import { validateObject, validateStorageRoot, type ValidationResult } from '../../src/ocfl/validate/index.js';

const started = startRgw();
const server: RgwServer | undefined = 'skipped' in started ? undefined : started;
test.after.always(async () => server?.stop());

type Backend = 'fs' | 's3';
const BACKENDS: Backend[] = ['fs', 's3'];

/** A location for a new root on the backend (nothing there yet). */
async function newRoot(backend: Backend, label: string): Promise<string> {
  if (backend === 'fs') return path.join(tempDir(), label);
  return server!.bucket(label, 'root');
}

/** One test per backend; on S3 a skipped test naming why, where no gateway could be started. */
function both(title: string, fn: (t: ExecutionContext, backend: Backend) => Promise<void>, backends = BACKENDS): void {
  for (const backend of backends) {
    if (backend === 's3' && !server)
      test.skip(`${backend}: ${title} (no S3 server: ${(started as { skipped: string }).skipped})`, () => {});
    else test(`${backend}: ${title}`, (t) => fn(t, backend));
  }
}

/**
 * The lease of the writers these tests start: short, so that a killed writer's lease runs out
 * soon, but not so short that a live writer loses it. (At 3 s, renewed every second and counted
 * lost 2.25 s after the last renewal, a writer on a loaded machine whose RGW answered slowly lost
 * its own lease and exited 2 in CI.)
 */
const TEST_LEASE_MS = 10_000;
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(args, { env: { ...server?.env, SIARD_OCFL_LEASE_MS: String(TEST_LEASE_MS), ...env } });

const HOSTILE_ID = 'info:fedora/obj ü:1/../%41 (copy)';

both('init, put, validate, show, log, ls, checkout and audit through the command line', async (t, backend) => {
  const root = await newRoot(backend, 'core');
  const work = tempDir();
  t.is((await cli(['init', root])).code, 0);
  const v1 = writeTree(path.join(work, 'v1'), { 'a.txt': 'alpha', 'sub/b.bin': Buffer.alloc(9 * 1024 * 1024, 1), 'sub/c.txt': 'gamma' });
  const put1 = await cli(['put', '--root', root, '--id', HOSTILE_ID, v1, '--message', 'first']);
  t.is(put1.code, 0, put1.stderr);
  const v2 = writeTree(path.join(work, 'v2'), {
    'a.txt': 'alpha changed',
    'sub/b.bin': Buffer.alloc(9 * 1024 * 1024, 1),
    'd.txt': 'delta',
  });
  const put2 = await cli(['put', '--root', root, '--id', HOSTILE_ID, v2, '--message', 'second']);
  t.is(put2.code, 0, put2.stderr);

  const validated = await cli(['validate', root, '--json']);
  t.is(validated.code, 0, validated.stdout + validated.stderr);
  const report = JSON.parse(validated.stdout) as ValidationResult;
  t.true(report.valid);
  t.is(report.objects, 1);
  t.deepEqual(report.errors, []);

  const ls = await cli(['ls', '--root', root, '--json']);
  t.is(ls.code, 0, ls.stderr);
  t.true(ls.stdout.includes(JSON.stringify(HOSTILE_ID).slice(1, -1)));
  const log = await cli(['log', '--root', root, '--id', HOSTILE_ID, '--json']);
  t.is(log.code, 0, log.stderr);
  t.deepEqual(
    (JSON.parse(log.stdout) as Array<{ version: string; message?: string }>).map((v) => [v.version, v.message]),
    [
      ['v1', 'first'],
      ['v2', 'second'],
    ],
  );
  const show = await cli(['show', '--root', root, '--id', HOSTILE_ID, '--version', 'v1']);
  t.is(show.code, 0, show.stderr);
  for (const p of ['a.txt', 'sub/b.bin', 'sub/c.txt']) t.true(show.stdout.includes(p), p);

  for (const [version, source] of [
    ['v1', v1],
    ['v2', v2],
  ] as const) {
    const dest = path.join(work, `out-${version}`);
    const co = await cli(['checkout', '--root', root, '--id', HOSTILE_ID, '--version', version, dest]);
    t.is(co.code, 0, co.stderr);
    t.deepEqual(readTree(dest), readTree(source), `checkout of ${version}`);
  }
  const audit = await cli(['audit', '--root', root, '--json']);
  t.is(audit.code, 0, audit.stdout + audit.stderr);
  t.true((JSON.parse(audit.stdout) as { ok: boolean }).ok);
});

both('cat, info and purge (refused without --yes; the object removed whole, the other kept)', async (t, backend) => {
  const root = await newRoot(backend, 'purge');
  const work = tempDir();
  t.is((await cli(['init', root])).code, 0);
  const files = writeTree(path.join(work, 'in'), { 'a.txt': 'alpha', 'sub/b.txt': 'beta' });
  for (const id of ['urn:purge:gone', 'urn:purge:kept'])
    t.is((await cli(['put', '--root', root, '--id', id, files, '--message', 'm'])).code, 0);
  const cat = await cli(['cat', '--root', root, '--id', 'urn:purge:kept', 'sub/b.txt']);
  t.is(cat.stdout, 'beta', cat.stderr);
  const info = await cli(['info', '--root', root, '--json']);
  t.like(JSON.parse(info.stdout), { ocflVersion: '1.1', objects: 2 }, info.stderr);
  const refused = await cli(['purge', '--root', root, '--id', 'urn:purge:gone']);
  t.is(refused.code, 2);
  t.regex(refused.stderr, /add --yes to do it\. Nothing was removed\./);
  const purged = await cli(['purge', '--root', root, '--id', 'urn:purge:gone', '--yes', '--json']);
  t.is(purged.code, 0, purged.stderr);
  t.like(JSON.parse(purged.stdout), { id: 'urn:purge:gone', resumed: false });
  t.regex(purged.stderr, /Removed the declaration of object "urn:purge:gone"/);
  const validated = await cli(['validate', root, '--json']);
  t.like(JSON.parse(validated.stdout), { valid: true, objects: 1, errors: [] }, validated.stdout);
  t.deepEqual(
    (JSON.parse((await cli(['ls', '--root', root, '--json'])).stdout) as Array<{ id: string }>).map((o) => o.id),
    ['urn:purge:kept'],
  );
  const again = await cli(['purge', '--root', root, '--id', 'urn:purge:gone', '--yes']);
  t.is(again.code, 2);
  t.regex(again.stderr, /holds no object "urn:purge:gone"/);
});

both('ingest a database, audit, relocate, mets, audit again, checkout --join-chunks and restore --root', async (t, backend) => {
  const root = await newRoot(backend, 'archive');
  const work = tempDir();
  const db = path.join(work, 'shop.sqlite');
  const conn = new Database(db);
  conn.exec('CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, photo BLOB)');
  const insert = conn.prepare('INSERT INTO item VALUES (?, ?, ?)');
  const photos = [0, 1, 2, 3].map((i) => Buffer.alloc(3000 + i * 2500, i + 1));
  photos.forEach((p, i) => insert.run(i + 1, `item ${i}`, p));
  conn.close();
  t.is((await cli(['init', root])).code, 0);
  const ingest = await cli([
    'ingest',
    `sqlite:${db}`,
    '--root',
    root,
    '--id',
    'shop',
    '--name',
    'shop',
    '--inline-max',
    '100',
    '--max-bytes',
    '6000',
    '--message',
    'ingest',
  ]);
  t.is(ingest.code, 0, ingest.stderr);
  const audit1 = await cli(['audit', '--root', root, '--id', 'shop', '--json']);
  t.is(audit1.code, 0, audit1.stdout + audit1.stderr);
  const relocated = await cli(['relocate', '--root', root, '--id', 'shop', '--lob-folder', 'file:///Archives/shop/']);
  t.is(relocated.code, 0, relocated.stderr);
  const mets = await cli(['mets', '--root', root, '--id', 'shop']);
  t.is(mets.code, 0, mets.stderr);
  const audit2 = await cli(['audit', '--root', root, '--id', 'shop', '--json']);
  t.is(audit2.code, 0, audit2.stdout + audit2.stderr);
  const audited = JSON.parse(audit2.stdout) as {
    ok: boolean;
    objects: Array<{ version: string; siards: Array<{ lobs: number; messageDigest: string }> }>;
  };
  t.true(audited.ok);
  t.is(audited.objects[0]!.version, 'v3');
  t.is(audited.objects[0]!.siards[0]!.lobs, 4);
  t.is(audited.objects[0]!.siards[0]!.messageDigest, 'verified');
  const dest = path.join(work, 'checkout');
  const co = await cli(['checkout', '--root', root, '--id', 'shop', dest, '--join-chunks']);
  t.is(co.code, 0, co.stderr);
  t.true(readdirSync(dest).some((n) => n.endsWith('.siard')));
  const target = path.join(work, 'restored.sqlite');
  const restored = await cli(['restore', '--root', root, '--id', 'shop', target]);
  t.is(restored.code, 0, restored.stderr);
  const back = new Database(target, { readonly: true });
  const rows = back.prepare('SELECT * FROM item ORDER BY id').all() as Array<{ id: number; name: string; photo: Buffer }>;
  back.close();
  t.deepEqual(
    rows.map((r) => [r.id, r.name, Buffer.from(r.photo).equals(photos[r.id - 1]!)]),
    photos.map((_, i) => [i + 1, `item ${i}`, true]),
  );
});

/** The version: 40 LOBs of 384 KiB and one of 12 MiB (uploaded in parts), random, about 27 MiB in all. */
const BIG_VERSION_LOBS = [...Array.from({ length: 40 }, () => 384 * 1024), 12 * 1024 * 1024];

both(
  'an ingest whose version is 27 MiB into a 4 MiB workspace: content goes straight to the bucket, never through the workspace',
  async (t) => {
    const workspace = mountTmpfs('siard-ocfl-small-ws-', '4m');
    if (!workspace) return t.fail('a 4 MiB tmpfs could not be mounted');
    const root = await newRoot('s3', 'bigversion');
    const work = tempDir();
    const db = path.join(work, 'big.sqlite');
    const conn = new Database(db);
    conn.exec('CREATE TABLE doc (id INTEGER PRIMARY KEY, body BLOB)');
    const insert = conn.prepare('INSERT INTO doc VALUES (?, ?)');
    const bodies = BIG_VERSION_LOBS.map((size) => randomBytes(size));
    bodies.forEach((b, i) => insert.run(i + 1, b));
    conn.close();
    const total = bodies.reduce((n, b) => n + b.length, 0);
    t.is((await cli(['init', root])).code, 0);
    const ingest = await cli(['ingest', `sqlite:${db}`, '--root', root, '--id', 'big', '--workspace', workspace]);
    t.is(ingest.code, 0, ingest.stderr);
    t.true(total > 6 * statfsSync(workspace).blocks * statfsSync(workspace).bsize, 'the version is over six times the workspace');
    t.deepEqual(
      readdirSync(workspace).filter((n) => n !== 'locks'),
      [],
      'the workspace is left empty',
    );
    const store = S3Storage.fromUrl(root);
    const objectDir = (await store.walk('')).files
      .find((f) => f.relative.endsWith('/v1/inventory.json'))!
      .relative.slice(0, -'/v1/inventory.json'.length);
    t.true((await store.bytesUnder(`${objectDir}/v1/content`)) > total, 'every LOB is in the bucket');
    t.is(await store.abortUploads(''), 0, 'no upload in parts left unfinished');
    const audit = await cli(['audit', '--root', root, '--id', 'big', '--json']);
    t.is(audit.code, 0, audit.stdout + audit.stderr);
    const target = path.join(work, 'restored.sqlite');
    t.is((await cli(['restore', '--root', root, '--id', 'big', target])).code, 0);
    const back = new Database(target, { readonly: true });
    const rows = back.prepare('SELECT id, body FROM doc ORDER BY id').all() as Array<{ id: number; body: Buffer }>;
    back.close();
    t.deepEqual(
      rows.map((r) => Buffer.from(r.body).equals(bodies[r.id - 1]!)),
      bodies.map(() => true),
    );
  },
  canMount || process.env.CI ? ['s3'] : [],
);
if (!canMount && !process.env.CI)
  test.skip('s3: an ingest into a workspace smaller than its version (mounting a tmpfs is refused here)', () => {});

/** Starts a put that stops (holding the object's lock) at a pause point until `go` exists. */
function startPut(
  root: string,
  id: string,
  dir: string,
  env: NodeJS.ProcessEnv,
): { done: Promise<{ code: number; stderr: string }>; waiting: (file: string) => Promise<void> } {
  const child = spawn(process.execPath, [BIN, 'put', '--root', root, '--id', id, dir], {
    env: { ...process.env, ...server?.env, SIARD_OCFL_LEASE_MS: String(TEST_LEASE_MS), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<{ code: number; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stderr })),
  );
  const waiting = async (file: string) => {
    for (let i = 0; i < 600 && !existsSync(`${file}.waiting`); i++) await new Promise((r) => setTimeout(r, 100));
  };
  return { done, waiting };
}

both(
  'put of 301 files in many slices (duplicates, files of 9 and 17 MiB sent in parts), fixity md5: ' +
    'duplicates stored once, checkout equal, valid (sha512 and md5), no upload left unfinished',
  async (t, backend) => {
    const root = await newRoot(backend, 'slices');
    const work = tempDir();
    t.is((await cli(['init', root])).code, 0);
    // The pool hashes 8 MiB slices ahead of the uploads (add-local-files.ts addToStore): many slices here.
    const files: Record<string, Buffer> = { 'big.bin': randomBytes(17 * 1024 * 1024 + 5) };
    for (let i = 0; i < 300; i++)
      files[`d${i % 9}/f${i}.bin`] =
        i % 25 === 0 ? Buffer.from('the same content\n') : randomBytes(i % 150 === 7 ? 9 * 1024 * 1024 + i : 20_000 + i * 97);
    const input = writeTree(path.join(work, 'in'), files);
    const put = await cli(['put', '--root', root, '--id', 'urn:test:slices', input, '--fixity', 'md5', '--json']);
    t.is(put.code, 0, put.stderr);
    t.like(JSON.parse(put.stdout), { files: 301, stored: 301 - 11 }, 'the 12 identical files stored once');
    const out = path.join(work, 'out');
    const co = await cli(['checkout', '--root', root, '--id', 'urn:test:slices', '--version', 'v1', out]);
    t.is(co.code, 0, co.stderr);
    t.deepEqual(readTree(out), readTree(input));
    const validated = await cli(['validate', root, '--json']);
    t.is(validated.code, 0, validated.stdout + validated.stderr);
    t.true((JSON.parse(validated.stdout) as ValidationResult).valid);
    t.is(await S3Storage.fromUrl(root).abortUploads(''), 0, 'no upload in parts left unfinished');
  },
  ['s3'],
);

both('lock race: of five writers started at once exactly one gets the object, the others exit 2 at once', async (t, backend) => {
  const root = await newRoot(backend, 'race');
  const work = tempDir();
  t.is((await cli(['init', root])).code, 0);
  t.is((await cli(['put', '--root', root, '--id', 'raced', writeTree(path.join(work, 'v1'), { 'a.txt': 'v1' })])).code, 0);
  const go = path.join(work, 'go');
  const writers = [0, 1, 2, 3, 4].map((i) =>
    startPut(root, 'raced', writeTree(path.join(work, `w${i}`), { 'a.txt': `writer ${i}` }), {
      SIARD_OCFL_PAUSE: 'after-root-inventory-staged',
      SIARD_OCFL_PAUSE_FILE: `${go}${i}`,
    }),
  );
  // Losers end by themselves; the winner waits at its pause point until told to go on.
  const settled: Array<{ code: number; stderr: string } | undefined> = new Array(5);
  writers.forEach((w, i) => void w.done.then((r) => (settled[i] = r)));
  for (let i = 0; i < 600 && settled.filter(Boolean).length < 4; i++) await new Promise((r) => setTimeout(r, 100));
  const losers = settled.filter((r): r is { code: number; stderr: string } => r !== undefined);
  t.is(losers.length, 4);
  for (const l of losers) {
    t.is(l.code, 2, l.stderr);
    t.regex(l.stderr, /being written by another process/);
  }
  const winner = settled.findIndex((r) => r === undefined);
  await writers[winner]!.waiting(`${go}${winner}`);
  writeFileSync(`${go}${winner}`, '');
  t.is((await writers[winner]!.done).code, 0);
  const log = await cli(['log', '--root', root, '--id', 'raced', '--json']);
  t.is((JSON.parse(log.stdout) as unknown[]).length, 2);
  const co = await cli(['checkout', '--root', root, '--id', 'raced', path.join(work, 'out')]);
  t.is(co.code, 0);
  t.is(readFileSync(path.join(work, 'out', 'a.txt'), 'utf8'), `writer ${winner}`);
  t.is((await cli(['validate', root])).code, 0);
});

both('audit --shard 1/2 and 2/2 from two processes together cover every object exactly once', async (t, backend) => {
  const root = await newRoot(backend, 'shard');
  const work = tempDir();
  t.is((await cli(['init', root])).code, 0);
  const ids = Array.from({ length: 8 }, (_, i) => `object-${i}`);
  for (const id of ids) t.is((await cli(['put', '--root', root, '--id', id, writeTree(path.join(work, id), { 'f.txt': id })])).code, 0);
  const [a, b] = await Promise.all([
    cli(['audit', '--root', root, '--shard', '1/2', '--json']),
    cli(['audit', '--root', root, '--shard', '2/2', '--json']),
  ]);
  t.is(a.code, 0, a.stderr);
  t.is(b.code, 0, b.stderr);
  const seen = [a, b].flatMap((r) => (JSON.parse(r.stdout) as { objects: Array<{ id: string }> }).objects.map((o) => o.id));
  t.deepEqual([...seen].sort(), ids);
  t.true(
    (JSON.parse(a.stdout) as { objects: unknown[] }).objects.length > 0 &&
      (JSON.parse(b.stdout) as { objects: unknown[] }).objects.length > 0,
  );
});

async function copyTree(
  from: ReadStorage,
  to: WriteStorage & { putBytes?: (p: string, b: Uint8Array) => Promise<void> },
  base = '',
): Promise<void> {
  const walked = await from.walk(base);
  for (const f of walked.files) {
    const bytes = await from.readFile(base ? `${base}/${f.relative}` : f.relative);
    const file = await to.openWrite(f.relative);
    await file.write(bytes);
    await file.close();
  }
}

both(
  'a root written on S3 and copied to disk validates clean there, and the other way round',
  async (t) => {
    const s3Root = await newRoot('s3', 'copy');
    const work = tempDir();
    t.is((await cli(['init', s3Root])).code, 0);
    for (const id of ['x', 'y:z'])
      t.is(
        (
          await cli([
            'put',
            '--root',
            s3Root,
            '--id',
            id,
            writeTree(path.join(work, id.replace(':', '_')), { 'a.txt': id, 'd/b.txt': 'b' }),
          ])
        ).code,
        0,
      );
    const disk = path.join(work, 'disk-root');
    await copyTree(S3Storage.fromUrl(s3Root), new FileSystemStorage(disk));
    const onDisk = await validateStorageRoot(disk);
    t.deepEqual(onDisk.errors, []);
    t.is(onDisk.objects, 2);

    const diskRoot = path.join(work, 'made-on-disk');
    t.is((await cli(['init', diskRoot])).code, 0);
    t.is((await cli(['put', '--root', diskRoot, '--id', 'w', writeTree(path.join(work, 'w'), { 'w.txt': 'w' })])).code, 0);
    const target = await newRoot('s3', 'copy-back');
    await copyTree(new FileSystemStorage(diskRoot), S3Storage.fromUrl(target));
    const onS3 = await validateStorageRoot(target);
    t.deepEqual(onS3.errors, []);
    t.is(onS3.objects, 1);
    const audit = await cli(['audit', '--root', target, '--json']);
    t.is(audit.code, 0, audit.stdout);
  },
  ['s3'],
);

/** Codes an object store cannot hold: empty folders and links. */
const FILESYSTEM_ONLY_CODES = new Set(['E024', 'E073', 'E090']);

function hasEmptyFolder(dir: string): boolean {
  const names = readdirSync(dir);
  return names.length === 0 || names.some((n) => statSync(path.join(dir, n)).isDirectory() && hasEmptyFolder(path.join(dir, n)));
}

const codes = (r: ValidationResult) => [...new Set([...r.errors, ...r.warnings].map((f) => f.code))].sort();

both(
  'the reference fixtures copied into a bucket validate with the same codes as on disk',
  async (t) => {
    if (!HAS_SHARED) {
      t.log('../shared is absent: no fixtures to copy');
      t.pass();
      return;
    }
    const base = reference('ocfl-fixtures', '1.1');
    const url = await server!.bucket('fixtures');
    const bucket = S3Storage.fromUrl(url);
    let compared = 0;
    for (const kind of ['good-objects', 'bad-objects', 'warn-objects']) {
      for (const name of readdirSync(path.join(base, kind)).sort()) {
        const dir = path.join(base, kind, name);
        if (!statSync(dir).isDirectory() || hasEmptyFolder(dir)) continue;
        const local = await validateObject(dir);
        if (codes(local).some((c) => FILESYSTEM_ONLY_CODES.has(c))) continue;
        const store = bucket.at(`${kind}/${name}`);
        await copyTree(new FileSystemStorage(dir), store);
        const remote = await validateObject(`${url}/${kind}/${name}`);
        t.deepEqual(codes(remote), codes(local), `${kind}/${name}`);
        t.is(remote.valid, local.valid, `${kind}/${name}`);
        compared++;
      }
    }
    t.true(compared > 50, `${compared} fixtures compared`);
  },
  ['s3'],
);

void PROJECT_ROOT;

both(
  'hostile ids (slashes, "..", absolute, 10,000 characters, NUL) land inside the root at their 0003 paths and read back; a lone ' +
    'surrogate is refused',
  async (t, backend) => {
    const location = await newRoot(backend, 'ids');
    const root = await initRoot(location, await loadLayout0003({}));
    const ids = Object.values(ID_CASES)
      .filter((c) => c.putExit !== 2 && c.id !== ID_CASES['id-lone-surrogate']!.id)
      .map((c) => c.id);
    for (const id of ids) {
      const staged = await root.startVersion(id);
      await staged.addBuffer('a.txt', `content of ${id.length}`);
      await staged.commit({ message: 'hostile id' });
    }
    const reopened = await openRoot(location);
    for (const id of ids) {
      const reader = await reopened.openObject(id);
      t.is(reader.id, id);
      t.is((await reader.readLogical('a.txt')).toString(), `content of ${id.length}`);
      t.false(
        root
          .objectPath(id)
          .split('/')
          .some((s) => s === '..' || s === '' || s === '.'),
        root.objectPath(id),
      );
    }
    const scanned: string[] = [];
    for await (const loc of reopened.scanObjects()) scanned.push(loc.path);
    t.deepEqual(scanned.sort(), ids.map((id) => root.objectPath(id)).sort());
    const validated = await validateStorageRoot(location);
    t.deepEqual(validated.errors, []);
    t.is(validated.objects, ids.length);
    const err = await t.throwsAsync(root.startVersion(ID_CASES['id-lone-surrogate']!.id), { instanceOf: SiardOcflError });
    t.is(err!.code, 'BAD_OBJECT_ID');
  },
);

both(
  'lease: of five hosts taking over one expired lease at once exactly one gets it; the holder it was taken from learns it lost the lock',
  async (t) => {
    const store = S3Storage.fromUrl(await newRoot('s3', 'lease-race'));
    // A holder with a 9 s lease (renewed every 3 s); its lease is then made to look expired, as if
    // its process had been stopped past the lease. (With a 3 s lease renewed every second, a loaded
    // machine's RGW did not fit one read and one conditional write between renewals in 10 tries.)
    const stalled = new LeaseLockProvider(store, 'locks', 9000);
    const first = await stalled.acquire('contested');
    t.notThrows(() => first.assertHeld());
    // The holder renews every 3 s, so on a busy machine a renewal can land between our read and
    // our conditional write (412, or RGW's 500 for a lost If-Match race): read again and retry.
    const leasePath = new LeaseLockProvider(store, 'locks').leasePath('contested');
    let forged = false;
    for (let attempt = 0; attempt < 10 && !forged; attempt++) {
      const held = await store.getWithTag(leasePath);
      t.truthy(held);
      const raw = JSON.parse(held!.bytes.toString('utf8')) as { expires: number };
      const expired = Buffer.from(JSON.stringify({ ...raw, expires: Date.now() - 60_000 }));
      forged = (await store.putIfMatch(leasePath, expired, held!.etag)).ok;
    }
    t.true(forged, 'the lease could be made to look expired');
    const takers = Array.from({ length: 5 }, () => new LeaseLockProvider(store, 'locks', 60_000));
    const results = await Promise.allSettled(takers.map((p) => p.acquire('contested')));
    const won = results.filter(
      (r): r is PromiseFulfilledResult<Awaited<ReturnType<LeaseLockProvider['acquire']>>> => r.status === 'fulfilled',
    );
    t.is(won.length, 1, results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'won')).join(' | '));
    t.true(won[0]!.value.tookOverDeadLock);
    for (const r of results) if (r.status === 'rejected') t.regex((r.reason as Error).message, /being written by another process/);
    // The first holder's next renewal (within 3 s) finds its lease replaced: it must not publish any more.
    for (let waited = 0; waited < 10_000; waited += 250) {
      try {
        first.assertHeld();
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const lost = t.throws(() => first.assertHeld());
    t.regex(lost!.message, /lock on object "contested" was lost/);
    await first.release();
    t.notThrows(() => won[0]!.value.assertHeld(), 'releasing a lost lock leaves the new holder alone');
    t.truthy(await store.getWithTag(new LeaseLockProvider(store, 'locks').leasePath('contested')));
    await won[0]!.value.release();
    t.is(await store.getWithTag(new LeaseLockProvider(store, 'locks').leasePath('contested')), undefined);
  },
  ['s3'],
);

both(
  'lease: a create the store failed (5xx, no lease written) is tried again; a store that keeps failing is one clear error, no lease left',
  async (t) => {
    const store = S3Storage.fromUrl(await newRoot('s3', 'lease-flaky'));
    /** The store, with its first `failures` creations answered as a loaded RGW does: 503, nothing written. */
    const flaky = (failures: number) =>
      new Proxy(store, {
        get(target, key, receiver) {
          if (key !== 'putIfAbsent') return Reflect.get(target, key, receiver) as unknown;
          return (rel: string, bytes: Uint8Array) =>
            failures-- > 0 ? Promise.resolve({ ok: false, reason: 'unknown' } as const) : target.putIfAbsent(rel, bytes);
        },
      });
    const lock = await new LeaseLockProvider(flaky(2), 'locks', 60_000).acquire('flaky');
    t.notThrows(() => lock.assertHeld());
    t.false(lock.tookOverDeadLock ?? false);
    const leasePath = new LeaseLockProvider(store, 'locks').leasePath('flaky');
    t.truthy(await store.getWithTag(leasePath), 'the lease was written on the third try');
    await lock.release();
    const err = await t.throwsAsync(new LeaseLockProvider(flaky(100), 'locks', 60_000).acquire('flaky'), { instanceOf: SiardOcflError });
    t.is(err!.code, 'STORAGE_UNAVAILABLE');
    t.regex(err!.message, /did not take the lease .* in 5 tries; nothing was written\.$/);
    t.is(await store.getWithTag(leasePath), undefined);
  },
  ['s3'],
);

both(
  'what cannot be reached is one sentence and exit 2: a missing bucket, a malformed URL, a refused signature, an empty prefix',
  async (t) => {
    const one = (r: { code: number; stderr: string }, pattern: RegExp) => {
      t.is(r.code, 2, r.stderr);
      t.regex(r.stderr, pattern);
      t.is(r.stderr.trim().split('\n').length, 1, r.stderr);
    };
    one(
      await cli(['validate', 's3://no-such-bucket-here/root']),
      /^siard-ocfl: The bucket no-such-bucket-here of s3:\/\/no-such-bucket-here\/root does not exist\.$/m,
    );
    one(
      await cli(['init', 's3://no-such-bucket-here/root']),
      /The bucket no-such-bucket-here of s3:\/\/no-such-bucket-here\/root does not exist\./,
    );
    one(await cli(['ls', '--root', 's3://']), /s3:\/\/ is not an S3 location; write s3:\/\/bucket or s3:\/\/bucket\/prefix\./);
    const root = await newRoot('s3', 'errors');
    one(await cli(['ls', '--root', root]), /does not exist\./);
    t.is((await cli(['init', root])).code, 0);
    one(
      await cli(['ls', '--root', root], { AWS_SECRET_ACCESS_KEY: 'not-the-secret' }),
      /^siard-ocfl: Cannot list s3:\/\/.*: SignatureDoesNotMatch \(HTTP 403\)\.$/m,
    );
    one(await cli(['init', root]), /is already an OCFL storage root\./);
  },
  ['s3'],
);

/** The storage capabilities, held to the same contract on both backends. */
async function storageOf(backend: Backend): Promise<WriteStorage> {
  if (backend === 'fs') return new FileSystemStorage(path.join(tempDir(), 'store'));
  return S3Storage.fromUrl(await server!.bucket('contract', 'base'));
}

async function put(storage: WriteStorage, rel: string, bytes: Buffer): Promise<void> {
  const f = await storage.openWrite(rel);
  for (let off = 0; off < bytes.length; off += 3 * 1024 * 1024) await f.write(bytes.subarray(off, off + 3 * 1024 * 1024));
  await f.close();
}

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

both(
  'storage contract: stat, list, walk past 1,000 entries, ranged reads across upload parts, exclusive create, remove past 1,000 keys',
  async (t, backend) => {
    const s = await storageOf(backend);
    t.is(await s.stat('nothing'), undefined);
    const missing = await t.throwsAsync(s.readFile('nothing/here'));
    t.is((missing as NodeJS.ErrnoException).code, 'ENOENT');
    const noList = await t.throwsAsync(s.list('nothing'));
    t.is((noList as NodeJS.ErrnoException).code, 'ENOENT');

    // 2,500 files in one folder: more than a listing page (1,000) and a delete batch (1,000).
    const N = 2500;
    await forEachConcurrent(
      Array.from({ length: N }, (_, i) => i),
      16,
      (i) => put(s, `many/f${String(i).padStart(5, '0')}.txt`, Buffer.from(`file ${i}`)),
    );
    await put(s, 'many/sub/deeper/x.bin', Buffer.from('x'));
    const listed = await s.list('many');
    t.is(listed.filter((e) => e.isFile).length, N);
    t.deepEqual(
      listed.filter((e) => e.isDirectory).map((e) => [e.name, e.kind]),
      [['sub', 'dir']],
    );
    const walked = await s.walk('many');
    t.is(walked.files.length, N + 1);
    t.deepEqual(
      walked.files.map((f) => f.relative),
      [...walked.files.map((f) => f.relative)].sort(),
    );
    t.is(walked.files.find((f) => f.relative === 'f00042.txt')!.size, 'file 42'.length);
    t.is(walked.files[walked.files.length - 1]!.relative, 'sub/deeper/x.bin');
    const folder = await s.stat('many/sub');
    t.like(folder, { isFile: false, isDirectory: true }); // a folder's size is the filesystem's business
    t.deepEqual(await s.stat('many/f00007.txt'), { isFile: true, isDirectory: false, size: 'file 7'.length });

    // A 20 MiB file, written in 3 MiB chunks (on S3: a multipart upload of 8 MiB parts).
    const big = Buffer.alloc(20 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4) big.writeUInt32LE(i, i);
    await put(s, 'big/file.bin', big);
    t.is((await s.stat('big/file.bin'))!.size, big.length);
    const edge = 8 * 1024 * 1024;
    t.true(
      (await collect(s.readStream('big/file.bin', { start: edge - 10, end: edge + 9 }))).equals(big.subarray(edge - 10, edge + 10)),
      'a range across the first part boundary',
    );
    t.true((await collect(s.readStream('big/file.bin', { start: big.length - 5 }))).equals(big.subarray(big.length - 5)), 'the tail');
    t.true((await collect(s.readStream('big/file.bin'))).equals(big), 'the whole file, streamed');
    const badRead = await t.throwsAsync(collect(s.readStream('big/nothing.bin')));
    t.is((badRead as NodeJS.ErrnoException).code, 'ENOENT');

    // Exclusive create: refused when the file exists, whatever the backend; the file keeps its bytes.
    const exclusive = await t.throwsAsync(async () => {
      const f = await s.openWrite('many/f00001.txt', { exclusive: true });
      await f.write(Buffer.from('overwritten'));
      await f.close();
    });
    t.is((exclusive as NodeJS.ErrnoException).code, 'EEXIST');
    t.is((await s.readFile('many/f00001.txt')).toString(), 'file 1');
    const fresh = await s.openWrite('new/one.txt', { exclusive: true });
    await fresh.write(Buffer.from('one'));
    await fresh.close();
    t.is((await s.readFile('new/one.txt')).toString(), 'one');

    // An aborted write leaves nothing.
    const aborted = await s.openWrite('new/aborted.bin');
    await aborted.write(Buffer.alloc(12 * 1024 * 1024, 1));
    await aborted.abort();
    t.is(await s.stat('new/aborted.bin'), undefined);

    await s.remove('many');
    t.is(await s.stat('many'), undefined);
    t.is(await s.stat('many/f02499.txt'), undefined);
    t.truthy(await s.stat('big/file.bin'), 'other folders stay');
  },
);
