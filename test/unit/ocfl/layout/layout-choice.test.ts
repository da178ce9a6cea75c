/**
 * chooseLayout (init's --layout, --layout-config and single parameters): which extension is chosen,
 * how the configuration and the single parameters combine, and every refusal, one sentence each,
 * naming what was wrong. The defaults filled in are those the extension documents state.
 */
import test from 'ava';
import { UsageError } from '../../../../src/errors.js';
import { chooseLayout } from '../../../../src/ocfl/layout/layout-choice.js';

async function refused(t: import('ava').ExecutionContext, choice: Parameters<typeof chooseLayout>[0], pattern: RegExp, code: string) {
  const err = await t.throwsAsync(chooseLayout(choice), { instanceOf: UsageError });
  t.regex(err?.message ?? '', pattern);
  t.is((err as UsageError | undefined)?.code, code);
  t.notRegex(err?.message ?? '', /\.\s+\S[^]*\.$/, 'one sentence');
}

test('nothing given: extension 0003 with its defaults (sha256, 3, 3)', async (t) => {
  const layout = await chooseLayout({});
  t.deepEqual(layout.config, {
    extensionName: '0003-hash-and-id-n-tuple-storage-layout',
    digestAlgorithm: 'sha256',
    tupleSize: 3,
    numberOfTuples: 3,
  });
});

test("the name alone gives the extension's defaults; a configuration alone names its extension", async (t) => {
  const l0007 = await chooseLayout({ extensionName: '0007-n-tuple-omit-prefix-storage-layout' });
  t.deepEqual(l0007.config, {
    extensionName: '0007-n-tuple-omit-prefix-storage-layout',
    delimiter: ':',
    tupleSize: 3,
    numberOfTuples: 3,
    zeroPadding: 'left',
    reverseObjectRoot: false,
  });
  const l0010 = await chooseLayout({
    configJson: { extensionName: '0010-differential-n-tuple-omit-prefix-storage-layout', tupleSegmentSizes: [4, 7] },
  });
  t.deepEqual(l0010.config, {
    extensionName: '0010-differential-n-tuple-omit-prefix-storage-layout',
    delimiter: ':',
    tupleSegmentSizes: [4, 7],
    fullIdentifierAsObjectRoot: false,
  });
  t.is(l0010.objectPath('druid:gh875jh5489'), 'gh87/5jh5489');
});

test('single parameters override the configuration file', async (t) => {
  const layout = await chooseLayout({
    extensionName: '0004-hashed-n-tuple-storage-layout',
    configJson: { tupleSize: 2, numberOfTuples: 2, shortObjectRoot: true },
    parameters: [{ name: 'numberOfTuples', value: 5, option: '--number-of-tuples' }],
  });
  t.like(layout.config, { tupleSize: 2, numberOfTuples: 5, shortObjectRoot: true, digestAlgorithm: 'sha256' });
});

test('refused: an unknown name, parameters the extension lacks, a configuration not an object or names another extension', async (t) => {
  await refused(
    t,
    { extensionName: '0011-direct-clean-path-layout' },
    /"0011-direct-clean-path-layout" is not supported/,
    'UNKNOWN_LAYOUT',
  );
  await refused(
    t,
    { extensionName: '0002-flat-direct-storage-layout', parameters: [{ name: 'tupleSize', value: 2, option: '--tuple-size' }] },
    /--tuple-size does not apply to 0002-flat-direct-storage-layout \(its parameters: none\)/,
    'INVALID_LAYOUT_CONFIG',
  );
  await refused(
    t,
    { extensionName: '0006-flat-omit-prefix-storage-layout', configJson: { delimiter: ':', tupelSize: 2 }, configSource: 'c.json' },
    /configuration c\.json gives "tupelSize", which is no parameter of 0006-flat-omit-prefix-storage-layout \(its parameters: delimiter\)/,
    'INVALID_LAYOUT_CONFIG',
  );
  await refused(t, { configJson: [1, 2], configSource: 'c.json' }, /c\.json must be a JSON object/, 'INVALID_LAYOUT_CONFIG');
  await refused(
    t,
    { extensionName: '0004-hashed-n-tuple-storage-layout', configJson: { extensionName: '0003-hash-and-id-n-tuple-storage-layout' } },
    /names extension "0003-hash-and-id-n-tuple-storage-layout", not "0004-hashed-n-tuple-storage-layout"/,
    'INVALID_LAYOUT_CONFIG',
  );
  // The extension's own checks: 0006 has no default delimiter; 0010 refuses a segment of 0.
  await refused(t, { extensionName: '0006-flat-omit-prefix-storage-layout' }, /no default "delimiter"/, 'INVALID_LAYOUT_CONFIG');
  await refused(
    t,
    { extensionName: '0010-differential-n-tuple-omit-prefix-storage-layout', configJson: { tupleSegmentSizes: [2, 0] } },
    /tupleSegmentSizes/,
    'INVALID_LAYOUT_CONFIG',
  );
});
