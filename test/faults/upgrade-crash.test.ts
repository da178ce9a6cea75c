/**
 * `siard-ocfl upgrade` killed (issue 36): an interrupted upgrade leaves the object at OCFL 1.0 or
 * 1.1, and after the same upgrade again it is a valid 1.1 object with one new version, its earlier
 * versions byte for byte the official fixture's. The child is SIGKILLed at every failpoint of the
 * commit by exchange (atomic: the object validates at once, at 1.0 or 1.1) and by renames (after the
 * switch it reads at 1.1 but may be invalid, E038 or E003, until the re-run finishes it), at the
 * recovery's own step, and between the two steps of a root's upgrade. On S3 (Ceph RGW) at four
 * steps of the publication (before the switch, at it, after it): once the killed writer's lease
 * ran out, the same upgrade finishes it.
 */
import test, { type ExecutionContext } from 'ava';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { initRoot, openRoot } from '../../src/ocfl/root.js';
import { validateObject, validateStorageRoot } from '../../src/ocfl/validate/index.js';
import { forEachConcurrent } from '../../src/ocfl/concurrent.js';
import { openStorage } from '../../src/ocfl/storage/open.js';
import type { ValidationResult } from '../../src/ocfl/validate/index.js';
import { runCli } from '../helpers/cli.js';
import { testIf } from '../helpers/requires.js';
import { startRgw, type RgwServer } from '../helpers/s3.js';
import { reference, sharedTest } from '../helpers/shared.js';
import { treeDigests } from '../helpers/file-tree.js';
import { tempDir } from '../helpers/tmp.js';

const FIXTURE = () => reference('ocfl-fixtures', '1.0', 'good-objects', 'spec-ex-full');
const ID = 'ark:/12345/bcd987';

async function rootWithFixture(): Promise<{ rootDir: string; objectDir: string }> {
  const rootDir = path.join(tempDir('siard-ocfl-upgrade-crash-'), 'root');
  const root = await initRoot(rootDir, { extensionName: '0003-hash-and-id-n-tuple-storage-layout' });
  const objectDir = path.join(rootDir, root.objectPath(ID));
  cpSync(FIXTURE(), objectDir, { recursive: true });
  return { rootDir, objectDir };
}

const declarations = (objectDir: string) =>
  readdirSync(objectDir)
    .filter((n) => n.startsWith('0='))
    .sort();
const inventoryOf = (objectDir: string) =>
  JSON.parse(readFileSync(path.join(objectDir, 'inventory.json'), 'utf8')) as { type: string; head: string };

/** After a kill: 1.0 or 1.1 (valid at once where `atomic`), then upgrade again finishes it, the earlier versions untouched. */
async function assertSettles(t: ExecutionContext, rootDir: string, objectDir: string, label: string, atomic: boolean): Promise<string> {
  const inventory = inventoryOf(objectDir);
  const state = `${inventory.head} ${inventory.type.includes('/1.1/') ? '1.1' : '1.0'} ${declarations(objectDir).join('+')}`;
  t.true(['v3', 'v4'].includes(inventory.head), `${label}: ${state}`);
  t.is(inventory.type.includes('/1.1/'), inventory.head === 'v4', `${label}: the new version is the 1.1 one (${state})`);
  const reader = await (await openRoot(rootDir)).openObject(ID);
  t.is(reader.head, inventory.head, `${label}: readable at its head`);
  if (atomic) t.deepEqual((await validateObject(objectDir)).errors, [], `${label}: valid at once (${state})`);

  const again = await runCli(['upgrade', '--root', rootDir, '--id', ID, '--json']);
  t.is(again.code, 0, `${label}: ${again.stderr}`);
  t.deepEqual((await validateStorageRoot(rootDir)).errors, [], `${label}: valid after the re-run`);
  t.is(inventoryOf(objectDir).head, 'v4', `${label}: one new version, never two`);
  t.is(inventoryOf(objectDir).type, 'https://ocfl.io/1.1/spec/#inventory');
  t.deepEqual(declarations(objectDir), ['0=ocfl_object_1.1'], label);
  const fixture = treeDigests(FIXTURE());
  const now = treeDigests(objectDir);
  for (const [p, digest] of fixture) if (/^v\d+\//.test(p)) t.is(now.get(p), digest, `${label}: ${p}`);
  return state;
}

const EXCHANGE_POINTS = [
  'after-stage-fsync',
  'after-shadow-linked',
  'before-exchange',
  'after-exchange',
  'after-exchange-fsync',
  'after-old-tree-removed',
  'before-stage-cleanup',
];
const RENAME_POINTS = [
  'after-stage-fsync',
  'after-version-rename',
  'after-version-fsync',
  'after-inventory-rename',
  'after-sidecar-rename',
  'after-sidecar-fsync',
  'after-declaration-added',
  'after-declaration-replaced',
];

for (const [mode, points] of [
  ['exchange', EXCHANGE_POINTS],
  ['rename', RENAME_POINTS],
] as const) {
  sharedTest(`upgrade by ${mode} killed at each failpoint: 1.0 or 1.1, and the re-run finishes it`, async (t) => {
    const outcomes: string[] = [];
    for (const point of points) {
      const { rootDir, objectDir } = await rootWithFixture();
      const killed = await runCli(['upgrade', '--root', rootDir, '--id', ID], {
        env: { SIARD_OCFL_FAILPOINT: point, SIARD_OCFL_COMMIT: mode === 'rename' ? 'rename' : '' },
      });
      t.not(killed.code, 0, `${point}: killed`);
      outcomes.push(`${point}: ${await assertSettles(t, rootDir, objectDir, `${mode} ${point}`, mode === 'exchange')}`);
    }
    t.log(outcomes.join('; '));
  });
}

sharedTest('recovery killed while it finishes a half upgrade: the next run finishes it', async (t) => {
  const { rootDir, objectDir } = await rootWithFixture();
  const rename = { SIARD_OCFL_COMMIT: 'rename' };
  const first = await runCli(['upgrade', '--root', rootDir, '--id', ID], {
    env: { ...rename, SIARD_OCFL_FAILPOINT: 'after-sidecar-fsync' },
  });
  t.not(first.code, 0);
  t.deepEqual(declarations(objectDir), ['0=ocfl_object_1.0'], 'the new inventory with the old declaration');
  t.true(
    (await validateObject(objectDir)).errors.some((e) => e.code === 'E038'),
    'flagged',
  );
  const second = await runCli(['upgrade', '--root', rootDir, '--id', ID], {
    env: { ...rename, SIARD_OCFL_FAILPOINT: 'recovery-after-declaration-added' },
  });
  t.not(second.code, 0);
  t.deepEqual(declarations(objectDir), ['0=ocfl_object_1.0', '0=ocfl_object_1.1'], 'both, between the recovery steps');
  await assertSettles(t, rootDir, objectDir, 'after the recovery was killed', false);
});

sharedTest('a root upgrade killed between its steps reads as 1.1, and the same upgrade finishes it', async (t) => {
  const rootDir = path.join(tempDir('siard-ocfl-upgrade-crash-root-'), 'root');
  cpSync(reference('ocfl-extra-fixtures', '1.0', 'good-storage-roots', 'reg-extension-dir-root'), rootDir, { recursive: true });
  const killed = await runCli(['upgrade', '--root', rootDir], { env: { SIARD_OCFL_FAILPOINT: 'root-upgrade-declared' } });
  t.not(killed.code, 0);
  t.true(existsSync(path.join(rootDir, '0=ocfl_1.1')) && existsSync(path.join(rootDir, '0=ocfl_1.0')), 'both declarations');
  t.is((await openRoot(rootDir)).ocflVersion, '1.1');
  const again = await runCli(['upgrade', '--root', rootDir, '--json']);
  t.is(again.code, 0, again.stderr);
  t.like(JSON.parse(again.stdout), { from: '1.0', to: '1.1', upgraded: true });
  t.deepEqual(
    readdirSync(rootDir).filter((n) => n.startsWith('0=')),
    ['0=ocfl_1.1'],
  );
  t.deepEqual((await validateStorageRoot(rootDir)).errors, []);
});

const started = startRgw();
const rgw: RgwServer | undefined = 'skipped' in started ? undefined : started;
test.after.always(async () => rgw?.stop());

/** The lease of the writers here, as in s3-kill.test.ts; a killed one's has surely run out after DEAD_LEASE_GONE_MS. */
const TEST_LEASE_MS = 10_000;
const DEAD_LEASE_GONE_MS = TEST_LEASE_MS + 5000 + 500;

testIf(rgw !== undefined, 'no Ceph RADOS Gateway')(
  'on S3, upgrade killed at each step of its publication: readable, and the same upgrade finishes it once the lease ran out',
  async (t) => {
    const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      runCli(args, { env: { ...rgw!.env, SIARD_OCFL_LEASE_MS: String(TEST_LEASE_MS), ...env } });
    const steps = ['s3-after-version-inventory', 's3-after-root-inventory', 's3-after-root-sidecar', 's3-after-declaration-added'];
    await forEachConcurrent(steps, 4, async (step) => {
      const rootUrl = await rgw!.bucket(`upgrade-${steps.indexOf(step)}`, 'root');
      const root = await initRoot(rootUrl, { extensionName: '0003-hash-and-id-n-tuple-storage-layout' });
      const storage = await openStorage(rootUrl);
      const objectPath = root.objectPath(ID);
      for (const [rel] of treeDigests(FIXTURE())) {
        await (storage as { putBytes(p: string, b: Buffer): Promise<void> }).putBytes(
          `${objectPath}/${rel}`,
          readFileSync(path.join(FIXTURE(), rel)),
        );
      }
      const killed = await cli(['upgrade', '--root', rootUrl, '--id', ID], { SIARD_OCFL_FAILPOINT: step });
      t.is(killed.code, 128, `${step}: killed`);
      const log = await cli(['log', '--root', rootUrl, '--id', ID, '--json']);
      t.is(log.code, 0, `${step}: readable: ${log.stderr}`);
      const switched = step !== 's3-after-version-inventory';
      t.is((JSON.parse(log.stdout) as unknown[]).length, switched ? 4 : 3, step);
      await new Promise((r) => setTimeout(r, DEAD_LEASE_GONE_MS));
      const again = await cli(['upgrade', '--root', rootUrl, '--id', ID, '--json']);
      t.is(again.code, 0, `${step}: ${again.stderr}`);
      t.like(JSON.parse(again.stdout), switched ? { upgraded: false } : { upgraded: true, version: 'v4' }, step);
      const validated = await cli(['validate', rootUrl, '--json']);
      t.deepEqual((JSON.parse(validated.stdout) as ValidationResult).errors, [], step);
      const names = (await storage.list(objectPath)).map((e) => e.name).filter((n) => n.startsWith('0='));
      t.deepEqual(names, ['0=ocfl_object_1.1'], step);
      for (const [rel, digest] of treeDigests(FIXTURE())) {
        if (!/^v\d+\//.test(rel)) continue;
        t.is(
          createHash('sha256')
            .update(await storage.readFile(`${objectPath}/${rel}`))
            .digest('hex'),
          digest,
          `${step}: ${rel}`,
        );
      }
    });
  },
);
