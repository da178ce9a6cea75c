/**
 * Extension 0006 (src/ocfl/layout/extensions.ts): every worked example of the
 * extension's document, and the cases it leaves open decided as docs/layouts.md says.
 */
import test from 'ava';
import { UsageError } from '../../../../src/errors.js';
import { ExtensionLayout, LAYOUT_0006_NAME } from '../../../../src/ocfl/layout/extensions.js';
import { createLayoutByName } from '../../../../src/ocfl/layout/registry.js';
import { declareExampleTests } from '../../../helpers/extension-examples.js';

declareExampleTests(LAYOUT_0006_NAME, [2, 2, 2]);

test('0006: the delimiter is found case-insensitively, its right-most occurrence (overlaps too)', (t) => {
  t.is(ExtensionLayout.create(LAYOUT_0006_NAME, { delimiter: 'EDU/' }).objectPath('https://institution.edu/x/Edu/f8.05v'), 'f8.05v');
  t.is(ExtensionLayout.create(LAYOUT_0006_NAME, { delimiter: 'aa' }).objectPath('xaaab'), 'b');
});

test('0006: an id without the delimiter is used whole (docs/layouts.md); one ending in it is refused', (t) => {
  const layout = ExtensionLayout.create(LAYOUT_0006_NAME, { delimiter: ':' });
  t.is(layout.objectPath('12887296'), '12887296');
  const err = t.throws(() => layout.objectPath('namespace:'), { instanceOf: UsageError });
  t.is(
    err?.message,
    `Object id "namespace:" cannot be stored under layout ${LAYOUT_0006_NAME}: ` +
      'it ends in the delimiter ":", so nothing is left once the prefix is omitted.',
  );
  t.throws(() => layout.objectPath('ns:..'), { instanceOf: UsageError, message: /folder name "\.\."/ });
});

test('0006 has no default delimiter: no config.json, or one without it, is refused', async (t) => {
  await t.throwsAsync(createLayoutByName(LAYOUT_0006_NAME), { message: /no default "delimiter"/ });
  t.throws(() => ExtensionLayout.create(LAYOUT_0006_NAME, { delimiter: '' }), {
    message: /delimiter must be a string of one character or more/,
  });
  t.throws(() => ExtensionLayout.create(LAYOUT_0006_NAME, { delimiter: 7 }), { message: /delimiter must be a string/ });
});
