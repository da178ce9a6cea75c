/**
 * `siard-ocfl upgrade` as users run it (issue 36): an object (`--id`) or the root declaration, the
 * text and `--json` outputs, "already 1.1" with nothing written, and the refusals in one sentence
 * with exit 2: an object in a 1.0 root (E081: the root first), no such object, not a root, an
 * object or a root of a newer OCFL version. The upgrade's own checks (the official 1.0 fixtures,
 * the bytes of earlier versions, other readers) are unit/ocfl/upgrade.test.ts; its kills are
 * faults/upgrade-crash.test.ts.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { initRoot } from '../../src/ocfl/root.js';
import { runCli } from '../helpers/cli.js';
import { reference, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

/** A copy of ocfl-py's OCFL 1.0 root (layout 0003) with its one 1.0 object, ark:123/abc. */
function ocflPyRoot(): string {
  const dir = path.join(tempDir('siard-ocfl-upgrade-cli-'), 'root');
  cpSync(reference('ocfl-extra-fixtures', '1.0', 'good-storage-roots', 'reg-extension-dir-root'), dir, { recursive: true });
  return dir;
}

/** The one line a refusal prints, and its exit status. */
function oneSentence(res: { code: number; stderr: string }): string {
  const lines = res.stderr.trim().split('\n');
  return lines.length === 1 && lines[0]!.startsWith('siard-ocfl: ') ? lines[0]! : `not one sentence: ${res.stderr}`;
}

sharedTest('upgrade of a 1.0 root and its object: refused before the root, then done, then "already 1.1"', async (t) => {
  const root = ocflPyRoot();
  const objectDir = path.join(root, 'a47/817/83d/cec/ark%3a123%2fabc');

  const early = await runCli(['upgrade', '--root', root, '--id', 'ark:123/abc']);
  t.is(early.code, 2);
  t.regex(oneSentence(early), /declares OCFL 1\.0, .*upgrade the root first \(siard-ocfl upgrade --root /);
  t.true(existsSync(path.join(objectDir, '0=ocfl_object_1.0')), 'nothing written');
  t.false(existsSync(path.join(objectDir, 'v2')));

  const rootUp = await runCli(['upgrade', '--root', root]);
  t.is(rootUp.code, 0, rootUp.stderr);
  t.regex(rootUp.stdout, /OCFL 1\.0 -> 1\.1; its objects keep their versions\./);
  t.deepEqual(
    readdirSync(root).filter((n) => n.startsWith('0=')),
    ['0=ocfl_1.1'],
  );
  const rootAgain = await runCli(['upgrade', '--root', root, '--json']);
  t.is(rootAgain.code, 0, rootAgain.stderr);
  t.deepEqual(JSON.parse(rootAgain.stdout), { root, from: '1.1', to: '1.1', upgraded: false });

  const objectUp = await runCli(['upgrade', '--root', root, '--id', 'ark:123/abc', '--json', '--user-name', 'A. Archivist']);
  t.is(objectUp.code, 0, objectUp.stderr);
  t.deepEqual(JSON.parse(objectUp.stdout), {
    id: 'ark:123/abc',
    path: 'a47/817/83d/cec/ark%3a123%2fabc',
    from: '1.0',
    to: '1.1',
    version: 'v2',
    upgraded: true,
  });
  const inv = JSON.parse(readFileSync(path.join(objectDir, 'inventory.json'), 'utf8')) as {
    type: string;
    versions: Record<string, { user?: { name: string }; message?: string }>;
  };
  t.is(inv.type, 'https://ocfl.io/1.1/spec/#inventory');
  t.is(inv.versions['v2']!.user?.name, 'A. Archivist');
  t.regex(inv.versions['v2']!.message ?? '', /OCFL 1\.0 to OCFL 1\.1/);

  const objectAgain = await runCli(['upgrade', '--root', root, '--id', 'ark:123/abc']);
  t.is(objectAgain.code, 0, objectAgain.stderr);
  t.is(objectAgain.stdout, 'Object "ark:123/abc" is already OCFL 1.1: nothing written.\n');
  t.false(existsSync(path.join(objectDir, 'v3')));

  const validated = await runCli(['validate', '--root', root]);
  t.is(validated.code, 0, validated.stdout + validated.stderr);
});

test('upgrade refuses in one sentence: no such object, not a root, newer OCFL versions', async (t) => {
  const rootDir = path.join(tempDir('siard-ocfl-upgrade-cli-'), 'root');
  const root = await initRoot(rootDir, { extensionName: '0004-hashed-n-tuple-storage-layout' });

  const missing = await runCli(['upgrade', '--root', rootDir, '--id', 'urn:example:none']);
  t.is(missing.code, 2);
  t.is(oneSentence(missing), `siard-ocfl: Storage root ${rootDir} holds no object "urn:example:none".`);

  const plain = tempDir('siard-ocfl-upgrade-cli-plain-');
  const notRoot = await runCli(['upgrade', '--root', plain]);
  t.is(notRoot.code, 2);
  t.regex(oneSentence(notRoot), /is not an OCFL storage root/);

  // An object of OCFL 1.2 (its declaration and inventory type say so): not ours to write.
  const id = 'urn:example:newer';
  const objectDir = path.join(rootDir, root.objectPath(id));
  mkdirSync(path.join(objectDir, 'v1', 'content'), { recursive: true });
  writeFileSync(path.join(objectDir, 'v1', 'content', 'a.txt'), 'a\n');
  const digest = createHash('sha512').update('a\n').digest('hex');
  const text = JSON.stringify({
    digestAlgorithm: 'sha512',
    head: 'v1',
    id,
    manifest: { [digest]: ['v1/content/a.txt'] },
    type: 'https://ocfl.io/1.2/spec/#inventory',
    versions: { v1: { created: '2026-01-01T00:00:00Z', state: { [digest]: ['a.txt'] } } },
  });
  for (const dir of [objectDir, path.join(objectDir, 'v1')]) {
    writeFileSync(path.join(dir, 'inventory.json'), text);
    writeFileSync(path.join(dir, 'inventory.json.sha512'), `${createHash('sha512').update(text).digest('hex')} inventory.json\n`);
  }
  writeFileSync(path.join(objectDir, '0=ocfl_object_1.2'), 'ocfl_object_1.2\n');
  const newerObject = await runCli(['upgrade', '--root', rootDir, '--id', id]);
  t.is(newerObject.code, 2);
  t.is(oneSentence(newerObject), `siard-ocfl: Object "${id}" conforms to OCFL 1.2, newer than the 1.1 siard-ocfl writes.`);
  t.false(existsSync(path.join(objectDir, 'v2')), 'nothing written');

  rmSync(path.join(rootDir, '0=ocfl_1.1'));
  writeFileSync(path.join(rootDir, '0=ocfl_1.2'), 'ocfl_1.2\n');
  const newerRoot = await runCli(['upgrade', '--root', rootDir, '--json']);
  t.is(newerRoot.code, 2);
  t.regex(oneSentence(newerRoot), /is an OCFL 1\.2 storage root; siard-ocfl reads OCFL 1\.0 and 1\.1 only\./);
  t.true(existsSync(path.join(rootDir, '0=ocfl_1.2')), 'nothing changed');
});

sharedTest("a root without a layout (other tools' 1.0 roots): upgrade and put write objects where found, a new id refused", async (t) => {
  // Objects placed as their tool chose, no ocfl_layout.json: found by scanning.
  const root = path.join(tempDir('siard-ocfl-upgrade-cli-'), 'root');
  mkdirSync(root, { recursive: true });
  writeFileSync(path.join(root, '0=ocfl_1.0'), 'ocfl_1.0\n');
  const full = path.join(root, 'some', 'where', 'full');
  cpSync(reference('ocfl-fixtures', '1.0', 'good-objects', 'spec-ex-full'), full, { recursive: true });
  cpSync(reference('ocfl-fixtures', '1.0', 'good-objects', 'minimal_one_version_one_file'), path.join(root, 'b'), { recursive: true });
  const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
  const v1Inventory = sha(path.join(full, 'v1', 'inventory.json'));

  t.is((await runCli(['upgrade', '--root', root])).code, 0);
  const up = await runCli(['upgrade', '--root', root, '--id', 'ark:/12345/bcd987', '--json']);
  t.is(up.code, 0, up.stderr);
  t.like(JSON.parse(up.stdout), { path: 'some/where/full', from: '1.0', to: '1.1', version: 'v4', upgraded: true });
  t.true(existsSync(path.join(full, '0=ocfl_object_1.1')));
  t.is(sha(path.join(full, 'v1', 'inventory.json')), v1Inventory, 'earlier versions untouched');

  const input = tempDir('siard-ocfl-upgrade-cli-put-');
  writeFileSync(path.join(input, 'added.txt'), 'added by put\n');
  const put = await runCli(['put', '--root', root, '--id', 'ark:/12345/bcd987', input]);
  t.is(put.code, 0, put.stderr);
  t.true(existsSync(path.join(full, 'v5', 'content', 'added.txt')), 'the new version lies in the object found, not elsewhere');
  t.deepEqual(readdirSync(root).sort(), ['0=ocfl_1.1', 'b', 'some']);

  const fresh = await runCli(['put', '--root', root, '--id', 'urn:example:new', input]);
  t.is(fresh.code, 2);
  t.regex(oneSentence(fresh), /declares no storage layout siard-ocfl implements, so a new object cannot be placed by id\./);
  t.deepEqual(readdirSync(root).sort(), ['0=ocfl_1.1', 'b', 'some'], 'nothing written');

  const validated = await runCli(['validate', '--root', root]);
  t.is(validated.code, 0, validated.stdout + validated.stderr);
});
