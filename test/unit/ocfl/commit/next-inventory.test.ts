/**
 * The inventory a commit writes, computed apart from staging (src/ocfl/commit/next-inventory.ts), on the
 * OCFL specification's full example object as the base.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseInventory } from '../../../../src/ocfl/inventory/inventory.js';
import { nextInventory } from '../../../../src/ocfl/commit/next-inventory.js';
import { reference, sharedTest } from '../../../helpers/shared.js';

const hex = (alg: string, data: string) => createHash(alg).update(data).digest('hex');

sharedTest('a new version on the spec example: new content, a kept file, fixity for both, the base left untouched', (t) => {
  const bytes = readFileSync(reference('ocfl-fixtures', '1.1', 'good-objects', 'spec-ex-full', 'inventory.json'));
  const base = parseInventory(bytes);
  const before = JSON.stringify(base);
  // v3 of the example holds foo/bar.xml (v1's content) and image.tiff; v4 keeps image.tiff, drops
  // bar.xml and adds new.txt, with md5 asked for (the example already has an md5 block).
  const tiff =
    'ffccf6baa21809716f31563fafb9f333c09c336bb7400088f17e4ff307f98fc9b14a577f92f3285913b7f53a6d5cf004503cf839aada1c885ac69336cbfb862e';
  const text = 'new in v4\n';
  const digest = hex('sha512', text);
  const inv = nextInventory(
    {
      id: base.id,
      version: 'v4',
      ocflVersion: '1.1',
      digestAlgorithm: 'sha512',
      fixityAlgorithms: ['md5'],
      base,
      knownDigests: new Map(Object.keys(base.manifest).map((k) => [k.toLowerCase(), k])),
      newContent: new Map([[digest, { contentPath: 'v4/content/new.txt', digests: { sha512: digest, md5: hex('md5', text) } }]]),
      state: new Map([
        ['image.tiff', tiff],
        ['new.txt', digest],
      ]),
      extraFixity: new Map(),
    },
    { created: '2026-11-24T06:00:00Z', message: 'v4', user: { name: 'Tester', address: 'mailto:t@example.org' } },
  );
  t.is(JSON.stringify(base), before, "the base inventory (maybe a reader's) is not changed");
  t.is(inv.head, 'v4');
  t.deepEqual(Object.keys(inv.versions), ['v1', 'v2', 'v3', 'v4']);
  t.deepEqual(inv.versions.v4, {
    created: '2026-11-24T06:00:00Z',
    message: 'v4',
    user: { name: 'Tester', address: 'mailto:t@example.org' },
    state: { [tiff]: ['image.tiff'], [digest]: ['new.txt'] },
  });
  t.deepEqual(inv.manifest[digest], ['v4/content/new.txt']);
  t.is(Object.keys(inv.manifest).length, Object.keys(base.manifest).length + 1);
  t.deepEqual(inv.fixity!.md5![hex('md5', text)], ['v4/content/new.txt']);
  t.deepEqual(inv.fixity!.sha1, base.fixity!.sha1, 'a block not asked for is carried as it was');
});

test("a new object: its type follows the root's OCFL version, a user without a name is refused", (t) => {
  const changes = {
    id: 'urn:x',
    version: 'v1',
    ocflVersion: '1.0' as const,
    digestAlgorithm: 'sha256',
    fixityAlgorithms: [],
    base: undefined,
    knownDigests: new Map<string, string>(),
    newContent: new Map([['ab', { contentPath: 'v1/content/a', digests: { sha256: 'ab' } }]]),
    state: new Map([['a', 'ab']]),
    extraFixity: new Map<string, Record<string, string>>(),
  };
  const inv = nextInventory(changes, { created: new Date('2026-01-02T03:04:05.678Z') });
  t.is(inv.type, 'https://ocfl.io/1.0/spec/#inventory');
  t.is(inv.versions.v1!.created, '2026-01-02T03:04:05Z');
  t.is(inv.fixity, undefined);
  t.throws(() => nextInventory(changes, { user: { name: '' } }), { message: /needs a name/ });
});
