/**
 * Extension 0004 (src/ocfl/layout/extensions.ts): every worked example of the
 * extension's document, the defaults, and the configurations its constraints forbid.
 */
import test from 'ava';
import { ExtensionLayout, LAYOUT_0004_NAME } from '../../../../src/ocfl/layout/extensions.js';
import { declareExampleTests } from '../../../helpers/extension-examples.js';

declareExampleTests(LAYOUT_0004_NAME, [2, 2, 2]);

test('0004 fills in every default, so config.json lists every parameter', async (t) => {
  const layout = await ExtensionLayout.load(LAYOUT_0004_NAME);
  t.deepEqual(layout.config, {
    extensionName: LAYOUT_0004_NAME,
    digestAlgorithm: 'sha256',
    tupleSize: 3,
    numberOfTuples: 3,
    shortObjectRoot: false,
  });
});

test('0004 maps with the short BLAKE2b digests too (loaded asynchronously)', async (t) => {
  const layout = await ExtensionLayout.load(LAYOUT_0004_NAME, {
    digestAlgorithm: 'blake2b-160',
    tupleSize: 2,
    numberOfTuples: 2,
    shortObjectRoot: true,
  });
  t.regex(layout.objectPath('object-01'), /^[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{36}$/);
});

test('0004 refuses the configurations its constraints forbid, in one sentence', async (t) => {
  const bad: [unknown, RegExp][] = [
    [{ tupleSize: 33 }, /tupleSize must be a whole number from 0 to 32/],
    [{ numberOfTuples: -1 }, /numberOfTuples must be a whole number from 0 to 32/],
    [{ tupleSize: 0 }, /must both be 0/],
    [{ digestAlgorithm: 'md5', tupleSize: 4, numberOfTuples: 9 }, /exceeds the 32 hex characters of a md5 digest/],
    [{ digestAlgorithm: 'md5', tupleSize: 2, numberOfTuples: 16, shortObjectRoot: true }, /shortObjectRoot must be false/],
    [{ shortObjectRoot: 'yes' }, /shortObjectRoot must be true or false/],
    [{ digestAlgorithm: 'crc32' }, /unknown digestAlgorithm "crc32"/],
    [{ extensionName: '0003-hash-and-id-n-tuple-storage-layout' }, /names extension/],
  ];
  for (const [config, message] of bad) {
    const err = await t.throwsAsync(ExtensionLayout.load(LAYOUT_0004_NAME, config), { message }, JSON.stringify(config));
    t.true(err?.message.startsWith('Extension 0004 layout: '));
  }
});
