/**
 * `upgrade` (issue 36): an OCFL 1.0 object becomes 1.1 in a new version, as the 1.1 specification
 * allows (a version may conform to a later OCFL version than the one before it, E103), its earlier
 * versions untouched; a root's declaration 0=ocfl_1.0 becomes 0=ocfl_1.1, its objects keeping theirs.
 *
 * Against references: every official 1.0 good fixture (OCFL/fixtures) is copied into a 1.1 root,
 * upgraded, and then: each file of its earlier versions has the same sha256 as the fixture's,
 * computed here with node:crypto; the new inventory's earlier version blocks and manifest are the
 * fixture's; the new version's state is the fixture head's; the sidecar is the inventory's digest,
 * computed here; the validator finds no error and no warning the fixture itself does not have; and
 * @ocfl/ocfl-fs reads every file of the head as the fixture holds it. The 1.0 root is ocfl-py's
 * (its extra fixtures). Both intermediate states an upgrade by renames can be killed in (E038:
 * the new inventory with the old declaration; E003: both declarations) are flagged by the
 * validator and finished by `repair`.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { initRoot, openRoot } from '../../../src/ocfl/root.js';
import { upgradeObject, upgradeRoot } from '../../../src/ocfl/upgrade.js';
import { validateObject, validateStorageRoot } from '../../../src/ocfl/validate/index.js';
import { HAS_SHARED, reference, sharedTest } from '../../helpers/shared.js';
import { tempDir } from '../../helpers/tmp.js';

const FIXTURES = () => reference('ocfl-fixtures', '1.0', 'good-objects');
const LAYOUT = '0004-hashed-n-tuple-storage-layout';
const USER = { name: 'Test Archivist', address: 'mailto:archivist@example.org' };
const TYPE_1_1 = 'https://ocfl.io/1.1/spec/#inventory';

interface RawInventory {
  id: string;
  type: string;
  head: string;
  digestAlgorithm: string;
  manifest: Record<string, string[]>;
  versions: Record<
    string,
    { created: string; message?: string; user?: { name: string; address?: string }; state: Record<string, string[]> }
  >;
}

const readInventory = (dir: string): RawInventory => JSON.parse(readFileSync(path.join(dir, 'inventory.json'), 'utf8')) as RawInventory;

/** sha256 of every file under `dir`, by path relative to it: computed here, not by the code under test. */
function treeDigests(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    out.set(path.relative(dir, full).split(path.sep).join('/'), createHash('sha256').update(readFileSync(full)).digest('hex'));
  }
  return out;
}

/** A version's state as logical path -> digest in lower case (digests compare case-insensitively). */
function stateOf(inv: RawInventory, version: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [digest, paths] of Object.entries(inv.versions[version]!.state)) for (const p of paths) out.set(p, digest.toLowerCase());
  return [...out].sort(([a], [b]) => (a < b ? -1 : 1)).reduce((m, [k, v]) => m.set(k, v), new Map<string, string>());
}

/** A manifest as digest in lower case -> sorted content paths. */
const manifestOf = (inv: RawInventory) =>
  Object.fromEntries(Object.entries(inv.manifest).map(([d, paths]) => [d.toLowerCase(), [...paths].sort()] as const));

/** A fresh OCFL 1.1 root (layout 0004) holding a copy of one fixture object where the layout puts its id. */
async function rootWithFixture(name: string): Promise<{ rootDir: string; objectDir: string; inv: RawInventory }> {
  const fixture = path.join(FIXTURES(), name);
  const inv = readInventory(fixture);
  const rootDir = path.join(tempDir('siard-ocfl-upgrade-'), 'root');
  const root = await initRoot(rootDir, { extensionName: LAYOUT });
  const objectDir = path.join(rootDir, root.objectPath(inv.id));
  cpSync(fixture, objectDir, { recursive: true });
  return { rootDir, objectDir, inv };
}

interface OcflFsObject {
  load(): Promise<unknown>;
  getFile(logicalPath: string): { buffer(): Promise<Buffer> };
}
async function ocflFsObject(rootDir: string, id: string): Promise<OcflFsObject> {
  const ocfl = (await import('@ocfl/ocfl-fs')).default as unknown as {
    loadStorage(config: { root: string; workspace: string }): Promise<{ object(id: string): OcflFsObject }>;
  };
  const storage = await ocfl.loadStorage({ root: rootDir, workspace: tempDir('siard-ocfl-upgrade-ocflfs-') });
  const object = storage.object(id);
  await object.load();
  return object;
}

sharedTest('every official 1.0 good fixture upgrades to a valid 1.1 object, its earlier versions byte for byte as they were', async (t) => {
  const names = HAS_SHARED ? readdirSync(FIXTURES()) : [];
  t.true(names.length >= 10, 'the fixtures are there');
  for (const name of names) {
    const fixtureDir = path.join(FIXTURES(), name);
    const { rootDir, objectDir, inv } = await rootWithFixture(name);
    const before = treeDigests(fixtureDir);
    const fixtureWarnings = new Set((await validateObject(fixtureDir)).warnings.map((w) => w.code));

    const report = await upgradeObject(await openRoot(rootDir), inv.id, { user: USER });
    const newVersion = `v${Number(inv.head.slice(1)) + 1}`;
    t.like(report, { id: inv.id, from: '1.0', to: '1.1', version: newVersion, upgraded: true }, name);

    // Every file of the earlier versions (and the logs) as the fixture has it; only the root's
    // inventory, sidecar and declaration changed, and the new version adds its inventory alone.
    const after = treeDigests(objectDir);
    for (const [p, digest] of before) {
      if (p.startsWith('inventory.json') || p.startsWith('0=')) continue;
      t.is(after.get(p), digest, `${name}: ${p}`);
    }
    const added = [...after.keys()].filter((p) => !before.has(p)).sort();
    t.deepEqual(added, ['0=ocfl_object_1.1', `${newVersion}/inventory.json`, `${newVersion}/inventory.json.${inv.digestAlgorithm}`], name);
    t.false(existsSync(path.join(objectDir, '0=ocfl_object_1.0')), `${name}: the 1.0 declaration is gone`);
    t.is(readFileSync(path.join(objectDir, '0=ocfl_object_1.1'), 'utf8'), 'ocfl_object_1.1\n');

    // The new inventory: 1.1, the fixture's versions and manifest kept, the new state the old head's.
    const upgraded = readInventory(objectDir);
    t.is(upgraded.type, TYPE_1_1, name);
    t.is(upgraded.head, newVersion, name);
    t.deepEqual(manifestOf(upgraded), manifestOf(inv), `${name}: manifest`);
    for (const v of Object.keys(inv.versions)) {
      t.deepEqual(stateOf(upgraded, v), stateOf(inv, v), `${name}: ${v} state`);
      const { created, message, user } = inv.versions[v]!;
      t.like(upgraded.versions[v], { created, ...(message !== undefined ? { message } : {}), ...(user ? { user } : {}) }, `${name}: ${v}`);
    }
    t.deepEqual(stateOf(upgraded, newVersion), stateOf(inv, inv.head), `${name}: no content changed`);
    t.deepEqual(upgraded.versions[newVersion]!.user, USER);
    const inventoryBytes = readFileSync(path.join(objectDir, 'inventory.json'));
    t.deepEqual(inventoryBytes, readFileSync(path.join(objectDir, newVersion, 'inventory.json')), `${name}: root and version inventory`);
    const sidecar = readFileSync(path.join(objectDir, `inventory.json.${inv.digestAlgorithm}`), 'utf8');
    t.is(sidecar.split(/\s+/)[0], createHash(inv.digestAlgorithm).update(inventoryBytes).digest('hex'), `${name}: sidecar`);

    const result = await validateObject(objectDir);
    t.deepEqual(result.errors, [], name);
    t.deepEqual(
      result.warnings.filter((w) => !fixtureWarnings.has(w.code)),
      [],
      `${name}: no warning the fixture does not have`,
    );
    t.deepEqual((await validateStorageRoot(rootDir)).errors, [], `${name}: the root`);

    // Another implementation reads the upgraded object: every file of the head, as the fixture holds it.
    const other = await ocflFsObject(rootDir, inv.id);
    for (const [logical, digest] of stateOf(inv, inv.head)) {
      const contentPath = Object.entries(inv.manifest).find(([d]) => d.toLowerCase() === digest)![1][0]!;
      t.deepEqual(await other.getFile(logical).buffer(), readFileSync(path.join(fixtureDir, contentPath)), `${name}: ${logical}`);
    }
  }
});

sharedTest('an object already 1.1 is left as it is: nothing written', async (t) => {
  const { rootDir, objectDir, inv } = await rootWithFixture('spec-ex-full');
  await upgradeObject(await openRoot(rootDir), inv.id);
  const before = treeDigests(objectDir);
  const again = await upgradeObject(await openRoot(rootDir), inv.id);
  t.deepEqual(again, {
    id: inv.id,
    path: path.relative(rootDir, objectDir).split(path.sep).join('/'),
    from: '1.1',
    to: '1.1',
    upgraded: false,
  });
  t.deepEqual(treeDigests(objectDir), before);
});

/** A copy of ocfl-py's OCFL 1.0 root (layout 0003), with its one 1.0 object. */
function ocflPyRoot(): string {
  const dir = path.join(tempDir('siard-ocfl-upgrade-root-'), 'root');
  cpSync(reference('ocfl-extra-fixtures', '1.0', 'good-storage-roots', 'reg-extension-dir-root'), dir, { recursive: true });
  return dir;
}

sharedTest('a 1.0 root: its objects are not upgraded before it (E081); the root is, then they can be', async (t) => {
  const rootDir = ocflPyRoot();
  const objectDir = path.join(rootDir, 'a47/817/83d/cec/ark%3a123%2fabc');
  const before = treeDigests(rootDir);
  const root10 = await openRoot(rootDir);
  t.is(root10.ocflVersion, '1.0');
  await t.throwsAsync(upgradeObject(root10, 'ark:123/abc'), { code: 'ROOT_OLDER', message: /upgrade the root first/ });
  t.deepEqual(treeDigests(rootDir), before, 'nothing written');

  t.deepEqual(await upgradeRoot(root10), { root: root10.location, from: '1.0', to: '1.1', upgraded: true });
  t.is(readFileSync(path.join(rootDir, '0=ocfl_1.1'), 'utf8'), 'ocfl_1.1\n');
  t.false(existsSync(path.join(rootDir, '0=ocfl_1.0')));
  t.true(existsSync(path.join(objectDir, '0=ocfl_object_1.0')), 'its object keeps its version');
  t.deepEqual((await validateStorageRoot(rootDir)).errors, [], 'a 1.1 root with a 1.0 object is valid');
  const root11 = await openRoot(rootDir);
  t.is(root11.ocflVersion, '1.1');
  t.like(await upgradeRoot(root11), { from: '1.1', upgraded: false });

  t.like(await upgradeObject(root11, 'ark:123/abc'), { from: '1.0', version: 'v2', upgraded: true });
  t.deepEqual((await validateStorageRoot(rootDir)).errors, []);
  t.true(existsSync(path.join(objectDir, '0=ocfl_object_1.1')));
});

sharedTest('a root upgrade killed between its two steps declares both; it reads as 1.1 and the upgrade again finishes', async (t) => {
  const rootDir = ocflPyRoot();
  writeFileSync(path.join(rootDir, '0=ocfl_1.1'), 'ocfl_1.1\n'); // the first step alone
  t.true((await validateStorageRoot(rootDir)).errors.length > 0, 'two declarations are invalid');
  const root = await openRoot(rootDir);
  t.is(root.ocflVersion, '1.1');
  t.like(await upgradeRoot(root), { from: '1.0', upgraded: true });
  t.false(existsSync(path.join(rootDir, '0=ocfl_1.0')));
  t.deepEqual((await validateStorageRoot(rootDir)).errors, []);
});

test.serial(
  'an upgrade by renames ends as one by exchange; killed after its switch, the validator flags it and repair finishes it',
  async (t) => {
    if (!HAS_SHARED) return t.pass();
    const previous = process.env.SIARD_OCFL_COMMIT;
    process.env.SIARD_OCFL_COMMIT = 'rename';
    try {
      const { rootDir, objectDir, inv } = await rootWithFixture('spec-ex-full');
      t.like(await upgradeObject(await openRoot(rootDir), inv.id), { version: 'v4', upgraded: true });
      t.deepEqual((await validateObject(objectDir)).errors, []);
      t.deepEqual(
        readdirSync(objectDir).filter((n) => n.startsWith('0=')),
        ['0=ocfl_object_1.1'],
      );
    } finally {
      if (previous === undefined) delete process.env.SIARD_OCFL_COMMIT;
      else process.env.SIARD_OCFL_COMMIT = previous;
    }
    // The two states a kill after the switch leaves, made by hand from an upgraded object.
    for (const [label, declarations, codes] of [
      ['the old declaration alone', ['0=ocfl_object_1.0'], ['E038']],
      ['both declarations', ['0=ocfl_object_1.0', '0=ocfl_object_1.1'], ['E003', 'E038']],
    ] as const) {
      const { rootDir, objectDir, inv } = await rootWithFixture('spec-ex-full');
      await upgradeObject(await openRoot(rootDir), inv.id);
      rmSync(path.join(objectDir, '0=ocfl_object_1.1'));
      for (const d of declarations) writeFileSync(path.join(objectDir, d), `${d.slice(2)}\n`);
      const flagged = new Set((await validateObject(objectDir)).errors.map((e) => e.code));
      for (const code of codes) t.true(flagged.has(code), `${label}: ${code} in ${[...flagged].join(', ')}`);
      const repaired = await (await openRoot(rootDir)).repairObject(inv.id);
      t.true(
        repaired.actions.some((a) => a.kind === 'finished-declaration'),
        `${label}: ${JSON.stringify(repaired.actions)}`,
      );
      t.deepEqual(
        readdirSync(objectDir).filter((n) => n.startsWith('0=')),
        ['0=ocfl_object_1.1'],
        label,
      );
      t.deepEqual((await validateObject(objectDir)).errors, [], label);
    }
  },
);
