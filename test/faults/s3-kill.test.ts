/**
 * Kills on an S3 root (a Ceph RADOS Gateway, helpers/s3.ts), moved here from
 * integration/s3-backends.test.ts because they are kill series that spend most of their time
 * waiting for a dead writer's lease to run out: a writer killed at each step of an S3 publication
 * (9 cases) leaves the object at its old or new version and repair settles the rest; a killed
 * writer's lease is respected while it runs and taken over once it has expired; `put` SIGKILLed at
 * 6 random moments leaves the old or the new version and the next writer succeeds.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, BIN } from '../helpers/cli.js';
import { startRgw, type RgwServer } from '../helpers/s3.js';
import { tempDir } from '../helpers/tmp.js';
import { readTree, writeTree } from '../helpers/file-tree.js';
import { forEachConcurrent } from '../../src/ocfl/concurrent.js';
import type { ValidationResult } from '../../src/ocfl/validate/index.js';

const started = startRgw();
const server: RgwServer | undefined = 'skipped' in started ? undefined : started;
test.after.always(async () => server?.stop());

/** Each test here needs the gateway: without one it is skipped naming why (and fails under CI, see helpers/s3.ts). */
const s3Test = (title: string, fn: (t: import('ava').ExecutionContext) => Promise<void>) =>
  server ? test(title, fn) : test.skip(`${title} (no S3 server: ${(started as { skipped: string }).skipped})`, () => {});

const newRoot = async (_backend: 's3', label: string): Promise<string> => server!.bucket(label, 'root');

/** The lease of the writers these tests start, as in s3-backends.test.ts (why 10 s is said there). */
const TEST_LEASE_MS = 10_000;
/** How long after a writer was killed its lease has surely run out (lease, clock skew allowed, margin). */
const DEAD_LEASE_GONE_MS = TEST_LEASE_MS + 5000 + 500;
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(args, { env: { ...server?.env, SIARD_OCFL_LEASE_MS: String(TEST_LEASE_MS), ...env } });

const S3_STEPS = [
  's3-after-content',
  's3-after-version-inventory',
  's3-after-root-inventory',
  's3-after-root-sidecar',
  's3-after-declaration',
];

s3Test(
  'a writer killed at each step of the publication leaves the object at its old or new version; repair settles the rest',
  async (t) => {
    const work = tempDir();
    const cases = S3_STEPS.flatMap((step, i) =>
      [true, false].filter((isNew) => isNew || step !== 's3-after-declaration').map((isNew) => ({ step, i, isNew })),
    );
    // Three at a time: each waits for the killed writer's lease to run out.
    await forEachConcurrent(cases, 3, async ({ step, i, isNew }) => {
      const where = `${step}, ${isNew ? 'new object' : 'existing object'}`;
      const tag = `${i}${isNew ? 'n' : 'e'}`;
      const root = await newRoot('s3', `kill${tag}`);
      t.is((await cli(['init', root])).code, 0);
      const old = writeTree(path.join(work, `old${tag}`), { 'a.txt': 'old', 'keep.bin': Buffer.alloc(10 * 1024 * 1024, 3) });
      if (!isNew) {
        const first = await cli(['put', '--root', root, '--id', 'k', old]);
        t.is(first.code, 0, `${where}: the first put: ${first.stderr}`);
      }
      const next = writeTree(path.join(work, `new${tag}`), {
        'a.txt': 'new',
        'keep.bin': Buffer.alloc(10 * 1024 * 1024, 3),
        'big.bin': Buffer.alloc(9 * 1024 * 1024, 5),
      });
      const killed = await cli(['put', '--root', root, '--id', 'k', next], { SIARD_OCFL_FAILPOINT: step });
      t.is(killed.code, 128, `${where}: the writer was killed`);
      const co = await cli(['checkout', '--root', root, '--id', 'k', path.join(work, `co${tag}`)]);
      const switched = step === 's3-after-root-inventory' || step === 's3-after-root-sidecar' || step === 's3-after-declaration';
      if (isNew && !switched) {
        t.is(co.code, 2, `${where}: no object yet`);
        t.regex(co.stderr, /holds no object/);
      } else {
        t.is(co.code, 0, `${where}: readable: ${co.stderr}`);
        t.is(readFileSync(path.join(work, `co${tag}`, 'a.txt'), 'utf8'), switched ? 'new' : 'old', where);
      }
      // The lease of the killed writer runs out; then repair (as the next writer would) settles the object.
      await new Promise((r) => setTimeout(r, DEAD_LEASE_GONE_MS));
      const repaired = await cli(['repair', '--root', root, '--json']);
      t.is(repaired.code, 0, `${where}: ${repaired.stdout}${repaired.stderr}`);
      const kinds = new Set(
        (JSON.parse(repaired.stdout) as { objects: Array<{ actions: Array<{ kind: string }> }> }).objects.flatMap((o) =>
          o.actions.map((x) => x.kind),
        ),
      );
      const expected = {
        's3-after-content': ['rolled-back-version'],
        's3-after-version-inventory': ['rolled-back-version'],
        's3-after-root-inventory': isNew ? ['finished-sidecar', 'finished-declaration'] : ['finished-sidecar'],
        's3-after-root-sidecar': isNew ? ['finished-declaration'] : [],
        's3-after-declaration': [],
      }[step]!;
      for (const kind of expected) t.true(kinds.has(kind), `${where}: repair did ${kind} (${[...kinds].join(', ')})`);
      t.false(kinds.has('rolled-back-version') && switched, `${where}: a switched version is never rolled back`);
      const validated = await cli(['validate', root, '--json']);
      t.is(validated.code, 0, `${where}: ${validated.stdout}`);
      t.deepEqual((JSON.parse(validated.stdout) as ValidationResult).errors, [], where);
      const again = await cli(['put', '--root', root, '--id', 'k', next]);
      t.is(again.code, 0, `${where}: the next writer: ${again.stderr}`);
    });
  },
);

s3Test("a killed writer's lease is respected while it runs and taken over once it has expired", async (t) => {
  const root = await newRoot('s3', 'lease');
  const work = tempDir();
  t.is((await cli(['init', root])).code, 0);
  // A 20 s lease: the second writer must start while it runs, even on a machine busy enough to
  // take seconds to start a process (a 3 s lease was outlived there).
  const lease = { SIARD_OCFL_LEASE_MS: '20000' };
  const killed = await cli(['put', '--root', root, '--id', 'l', writeTree(path.join(work, 'a'), { 'a.txt': 'a' })], {
    ...lease,
    SIARD_OCFL_FAILPOINT: 's3-after-content',
  });
  t.is(killed.code, 128);
  const early = await cli(['put', '--root', root, '--id', 'l', writeTree(path.join(work, 'b'), { 'a.txt': 'b' })], lease);
  t.is(early.code, 2);
  t.regex(early.stderr, /being written by another process \(pid \d+ on .*, lease until/);
  await new Promise((r) => setTimeout(r, 20_000 + 5000 + 500));
  const late = await cli(['put', '--root', root, '--id', 'l', path.join(work, 'b')]);
  t.is(late.code, 0, late.stderr);
  t.is((await cli(['validate', root])).code, 0);
});

s3Test(
  'put SIGKILLed at random moments: the object is at its old or its new version every time, and the next writer succeeds',
  async (t) => {
    const work = tempDir();
    const old = writeTree(path.join(work, 'old'), { 'a.txt': 'old', 'keep.bin': Buffer.alloc(4 * 1024 * 1024, 3) });
    const next = writeTree(path.join(work, 'new'), {
      'a.txt': 'new',
      'keep.bin': Buffer.alloc(4 * 1024 * 1024, 3),
      'more/big.bin': Buffer.alloc(12 * 1024 * 1024, 5),
      ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`more/s${i}.txt`, `small ${i}`])),
    });
    // The duration of an uninterrupted run, to draw kill moments from.
    const probe = await newRoot('s3', 'randkill-probe');
    t.is((await cli(['init', probe])).code, 0);
    t.is((await cli(['put', '--root', probe, '--id', 'r', old])).code, 0);
    const t0 = Date.now();
    t.is((await cli(['put', '--root', probe, '--id', 'r', next])).code, 0);
    const duration = Date.now() - t0;
    let seed = Number(process.env.FAULT_SEED ?? Date.now() % 100_000);
    t.log(`uninterrupted put ${duration} ms; FAULT_SEED=${seed}`);
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const outcomes: string[] = [];
    await forEachConcurrent(
      Array.from({ length: 6 }, (_, i) => i),
      3,
      async (i) => {
        const root = await newRoot('s3', `randkill${i}`);
        t.is((await cli(['init', root])).code, 0);
        t.is((await cli(['put', '--root', root, '--id', 'r', old])).code, 0);
        // Drawn from the later part of a run, where the uploads and the switch are (the start is the
        // process starting and staging, which the named failpoints above do not need chance to reach).
        const delay = Math.floor(duration * (0.4 + 0.7 * random()));
        const child = spawn(process.execPath, [BIN, 'put', '--root', root, '--id', 'r', next], {
          env: { ...process.env, ...server!.env, SIARD_OCFL_LEASE_MS: String(TEST_LEASE_MS) },
          stdio: 'ignore',
        });
        const ended = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
        await new Promise((r) => setTimeout(r, delay));
        child.kill('SIGKILL');
        const code = await ended;
        const co = await cli(['checkout', '--root', root, '--id', 'r', path.join(work, `co${i}`)]);
        t.is(co.code, 0, `kill after ${delay} ms: ${co.stderr}`);
        const state = readFileSync(path.join(work, `co${i}`, 'a.txt'), 'utf8');
        t.deepEqual(
          readTree(path.join(work, `co${i}`)),
          readTree(state === 'new' ? next : old),
          `kill after ${delay} ms: exactly the ${state} version`,
        );
        outcomes.push(`${delay} ms: ${code === null ? 'killed' : 'finished'}, ${state}`);
        await new Promise((r) => setTimeout(r, DEAD_LEASE_GONE_MS)); // the dead writer's lease runs out
        const again = await cli(['put', '--root', root, '--id', 'r', next]);
        t.is(again.code, 0, again.stderr);
        const validated = await cli(['validate', root, '--json']);
        t.deepEqual((JSON.parse(validated.stdout) as ValidationResult).errors, [], `kill after ${delay} ms`);
      },
    );
    t.log(outcomes.join('; '));
  },
);
