/**
 * Extension 0007 (src/ocfl/layout/extensions.ts): every worked example of the
 * extension's document, its defaults, and the ids and configurations it refuses.
 */
import test from 'ava';
import { UsageError } from '../../../../src/errors.js';
import { LAYOUT_0007_NAME, ExtensionLayout } from '../../../../src/ocfl/layout/extensions.js';
import { declareExampleTests } from '../../../helpers/extension-examples.js';

declareExampleTests(LAYOUT_0007_NAME, [3, 2]);

test('0007 defaults: ":", 3 x 3, left padding, not reversed', (t) => {
  const layout = ExtensionLayout.create(LAYOUT_0007_NAME);
  t.deepEqual(layout.config, {
    extensionName: LAYOUT_0007_NAME,
    delimiter: ':',
    tupleSize: 3,
    numberOfTuples: 3,
    zeroPadding: 'left',
    reverseObjectRoot: false,
  });
  t.is(layout.objectPath('ns:ab12'), '000/00a/b12/ab12');
});

test('0007 refuses an id ending in the delimiter, outside ASCII, or giving unsafe folder names', (t) => {
  const layout = ExtensionLayout.create(LAYOUT_0007_NAME);
  t.throws(() => layout.objectPath('urn:uuid:'), { instanceOf: UsageError, message: /ends in the delimiter ":"/ });
  t.throws(() => layout.objectPath('ns:caf\u00e9'), { instanceOf: UsageError, message: /ASCII 0x20 to 0x7F only, and it contains "é"/ });
  t.throws(() => layout.objectPath('info:fedora/object-01'), { instanceOf: UsageError, message: /contains "\/"/ });
});

test('0007 refuses the configurations its constraints forbid', (t) => {
  t.throws(() => ExtensionLayout.create(LAYOUT_0007_NAME, { tupleSize: 0 }), { message: /tupleSize must be a whole number from 1 to 32/ });
  t.throws(() => ExtensionLayout.create(LAYOUT_0007_NAME, { numberOfTuples: 33 }), {
    message: /numberOfTuples must be a whole number from 1 to 32/,
  });
  t.throws(() => ExtensionLayout.create(LAYOUT_0007_NAME, { zeroPadding: 'centre' }), { message: /zeroPadding must be "left" or "right"/ });
  t.throws(() => ExtensionLayout.create(LAYOUT_0007_NAME, { reverseObjectRoot: 1 }), {
    message: /reverseObjectRoot must be true or false/,
  });
  t.throws(() => ExtensionLayout.create(LAYOUT_0007_NAME, { delimiter: '' }), {
    message: /delimiter must be a string of one character or more/,
  });
});
