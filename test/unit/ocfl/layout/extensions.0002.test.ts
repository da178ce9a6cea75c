/**
 * Extension 0002 (src/ocfl/layout/extensions.ts): every worked example of the extension's
 * document (../shared/reference/ocfl-extensions), and the ids it cannot store refused in one sentence.
 */
import test from 'ava';
import { UsageError } from '../../../../src/errors.js';
import { ExtensionLayout, LAYOUT_0002_NAME } from '../../../../src/ocfl/layout/extensions.js';
import { declareExampleTests } from '../../../helpers/extension-examples.js';

declareExampleTests(LAYOUT_0002_NAME, [2, 2]);

test('0002 refuses ids that are no safe folder name, each in one sentence naming the id', (t) => {
  const layout = ExtensionLayout.create(LAYOUT_0002_NAME);
  for (const id of ['a/b', '.', '..', 'a\u0000b', 'tab\there', 'extensions', 'ocfl_layout.json', '0=ocfl_1.1', 'é'.repeat(128)]) {
    const err = t.throws(() => layout.objectPath(id), { instanceOf: UsageError }, id);
    t.is(err?.code, 'INVALID_OBJECT_ID');
    t.true(err?.message.startsWith(`Object id ${JSON.stringify(id)} cannot be stored under layout ${LAYOUT_0002_NAME}: `));
  }
  t.throws(() => layout.objectPath(''), { instanceOf: UsageError, message: /must not be empty/ });
  t.is(layout.objectPath('é'.repeat(127)), 'é'.repeat(127)); // 254 bytes: allowed
});

test('0002 has no parameters; a config.json naming another extension is refused', (t) => {
  t.deepEqual(ExtensionLayout.create(LAYOUT_0002_NAME).config, { extensionName: LAYOUT_0002_NAME });
  t.throws(() => ExtensionLayout.create(LAYOUT_0002_NAME, { extensionName: '0004-hashed-n-tuple-storage-layout' }), {
    message: /names extension/,
  });
  t.throws(() => ExtensionLayout.create(LAYOUT_0002_NAME, {}, true), { message: /no "extensionName"/ });
});
