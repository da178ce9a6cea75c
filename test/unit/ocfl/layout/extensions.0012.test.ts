/**
 * Extension 0012 (src/ocfl/layout/extensions.ts): every worked example of
 * the extension's document (the Examples' mappings, the Encapsulation Directory and delimiters
 * tables, and the asserts of its Python code's run_tests), and the configurations it refuses.
 */
import test from 'ava';
import { ExtensionLayout, LAYOUT_0012_NAME, removePrefixes } from '../../../../src/ocfl/layout/extensions.js';
import { declareExampleTests, extensionDocument, tableAfter } from '../../../helpers/extension-examples.js';
import { HAS_SHARED, sharedTest } from '../../../helpers/shared.js';

declareExampleTests(LAYOUT_0012_NAME, [2, 2, 2]);

const text = HAS_SHARED ? extensionDocument(LAYOUT_0012_NAME) : '';

/** Rows of a three-column table: id | ["delimiters"] | expected. */
function delimiterTable(heading: string): { id: string; delimiters: string[]; expected: string }[] {
  return tableAfter(text, heading).map((line) => {
    const [id, delimiters, expected] = line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim());
    return { id, delimiters: JSON.parse(delimiters) as string[], expected };
  });
}

sharedTest('0012 Encapsulation Directory table: each id, with its delimiters, names its object root', async (t) => {
  const rows = delimiterTable('## Encapsulation Directory');
  t.is(rows.length, 3);
  for (const { id, delimiters, expected } of rows) {
    const layout = await ExtensionLayout.load(LAYOUT_0012_NAME, { delimiters });
    t.is(layout.objectPath(id).split('/').at(-1), expected, id);
  }
});

sharedTest('0012 delimiters table: the id with its prefix removed', (t) => {
  const rows = delimiterTable('#### delimiters');
  t.is(rows.length, 3);
  for (const { id, delimiters, expected } of rows) t.is(removePrefixes(id, delimiters), expected, `${id} ${delimiters.join(' ')}`);
});

/** A Python literal of the run_tests asserts: '...' or ['...', ...]. */
function pythonValue(literal: string): unknown {
  return JSON.parse(literal.replace(/'/g, '"'));
}

sharedTest("0012 Python code's run_tests: _remove_prefixes asserts", (t) => {
  const asserts = [...text.matchAll(/assert _remove_prefixes\(('[^']*'), (\[[^\]]*\])\) == ('[^']*')/g)];
  t.is(asserts.length, 10);
  for (const [, id, delimiters, expected] of asserts) {
    t.is(removePrefixes(pythonValue(id) as string, pythonValue(delimiters) as string[]), pythonValue(expected), `${id} ${delimiters}`);
  }
});

sharedTest("0012 Python code's run_tests: _check_path calls with literal paths", async (t) => {
  const calls = [...text.matchAll(/_check_path\(object_id='([^']*)', correct_path='([^']*)'(.*)\)/g)];
  t.is(calls.length, 9); // the two long ids (f-strings) are the Encapsulation Directory table's
  const names: Record<string, string> = {
    algorithm: 'digestAlgorithm',
    tuple_size: 'tupleSize',
    number_of_tuples: 'numberOfTuples',
    delimiters: 'delimiters',
  };
  for (const [, id, path, rest] of calls) {
    const config: Record<string, unknown> = {};
    for (const [, key, value] of rest.matchAll(/(\w+)=('[^']*'|\[[^\]]*\]|\d+)/g)) config[names[key]] = pythonValue(value);
    const layout = await ExtensionLayout.load(LAYOUT_0012_NAME, config);
    t.is(layout.objectPath(id), path, `${id} ${JSON.stringify(config)}`);
  }
});

test('0012 with no delimiters is 0003, and its defaults fill config.json', async (t) => {
  const layout = await ExtensionLayout.load(LAYOUT_0012_NAME);
  t.deepEqual(layout.config, {
    extensionName: LAYOUT_0012_NAME,
    digestAlgorithm: 'sha256',
    tupleSize: 3,
    numberOfTuples: 3,
    delimiters: [],
  });
  t.is(layout.objectPath('ark:/12345/x'), (await ExtensionLayout.load(LAYOUT_0012_NAME, { delimiters: [] })).objectPath('ark:/12345/x'));
  t.is(
    (await ExtensionLayout.load(LAYOUT_0012_NAME, { delimiters: ['urn:nbn:', ':'] })).objectPath('urn:nbn:de:1234').split('/').at(-1),
    '1234',
  );
});

test('0012 refuses the configurations its constraints forbid', async (t) => {
  const bad: [unknown, RegExp][] = [
    [{ delimiters: ':' }, /delimiters must be an array of strings/],
    [{ delimiters: [':', ''] }, /delimiters\[1\] must be a string of one character or more/],
    [{ tupleSize: 33 }, /tupleSize must be a whole number from 0 to 32/],
    [{ tupleSize: 0, numberOfTuples: 2 }, /must both be 0/],
    [{ digestAlgorithm: 'sha1', tupleSize: 21, numberOfTuples: 2 }, /exceeds the 40 hex characters/],
  ];
  for (const [config, message] of bad) {
    const err = await t.throwsAsync(ExtensionLayout.load(LAYOUT_0012_NAME, config), { message }, JSON.stringify(config));
    t.true(err?.message.startsWith('Extension 0012 layout: '));
  }
});
