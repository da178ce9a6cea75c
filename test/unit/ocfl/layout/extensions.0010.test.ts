/**
 * Extension 0010 (src/ocfl/layout/extensions.ts): every worked example
 * of the extension's document, its defaults, and the ids and configurations it refuses.
 */
import test from 'ava';
import { UsageError } from '../../../../src/errors.js';
import { ExtensionLayout, LAYOUT_0010_NAME } from '../../../../src/ocfl/layout/extensions.js';
import { declareExampleTests } from '../../../helpers/extension-examples.js';

declareExampleTests(LAYOUT_0010_NAME, [4, 2]);

test('0010 defaults: ":", [2, 3, 2, 4], no full identifier folder (the DRUID of the overview)', (t) => {
  const layout = ExtensionLayout.create(LAYOUT_0010_NAME);
  t.deepEqual(layout.config, {
    extensionName: LAYOUT_0010_NAME,
    delimiter: ':',
    tupleSegmentSizes: [2, 3, 2, 4],
    fullIdentifierAsObjectRoot: false,
  });
  t.is(layout.objectPath('bc123df5678'), 'bc/123/df/5678');
});

test('0010 refuses an id of another length than the segments need, or ending in the delimiter', (t) => {
  const layout = ExtensionLayout.create(LAYOUT_0010_NAME);
  const err = t.throws(() => layout.objectPath('druid:gh875jh548'), { instanceOf: UsageError });
  t.is(
    err?.message,
    `Object id "druid:gh875jh548" cannot be stored under layout ${LAYOUT_0010_NAME}: ` +
      'without its prefix it is 10 characters long, and tupleSegmentSizes [2, 3, 2, 4] need exactly 11.',
  );
  t.throws(() => layout.objectPath('druid:'), { instanceOf: UsageError, message: /ends in the delimiter/ });
  t.throws(() => layout.objectPath('gh875jh548\u00e9'), { instanceOf: UsageError, message: /ASCII/ });
});

test('0010 refuses the configurations its constraints forbid', (t) => {
  for (const sizes of [[], [2, 0], [2, 1.5], '2,3', [2, '3']]) {
    t.throws(() => ExtensionLayout.create(LAYOUT_0010_NAME, { tupleSegmentSizes: sizes }), {
      message: /tupleSegmentSizes must be a non-empty array/,
    });
  }
  t.throws(() => ExtensionLayout.create(LAYOUT_0010_NAME, { fullIdentifierAsObjectRoot: 'true' }), { message: /must be true or false/ });
});
