/**
 * JSON larger than one JavaScript string (src/ocfl/inventory/large-json.ts): the inventory of a million LOB
 * files is ~600 MB, over V8's ~512 MB string limit. Parsing in slices must give exactly what
 * JSON.parse gives, and refuse what it refuses; the piecewise serialiser must write exactly the
 * bytes of JSON.stringify(sorted inventory, null, 2). The slice size is forced down to a few
 * bytes here so that every splitting path runs on small inputs.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { type Inventory, parseInventory } from '../../../../src/ocfl/inventory/inventory.js';
import { serializeInventory } from '../../../../src/ocfl/inventory/chunks.js';
import { parseJsonBytes } from '../../../../src/ocfl/inventory/large-json.js';
import { inventoriesUnder } from '../../../helpers/fixture-inventories.js';
import { reference, sharedTest } from '../../../helpers/shared.js';
import { referenceBytes } from '../../../helpers/reference-inventory-bytes.js';

const samples: unknown[] = [
  { a: 1, b: [1, 2, 3, { c: 'd' }], e: {}, f: [], g: null, h: true, i: false, j: -1.5e-7 },
  { 'quote"key': 'back\\slash', 'uni\u00e9': 'emoji \u{1F600} and \u2028 line separator', nested: { deep: { deeper: [[[['x']]]] } } },
  JSON.parse('{"__proto__": {"polluted": "an own property, not the prototype"}, "constructor": {"prototype": 1}}'),
  [{ x: 1 }, [2, [3, [4]]], 'str,with,commas', '{brackets]', ':colons:', 5],
  { manifest: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`d${i}`.padEnd(128, 'a'), [`v1/content/f ${i}.bin`]])) },
];

for (const [i, value] of samples.entries()) {
  for (const sliceMax of [1, 7, 64, 1000]) {
    test(`sample ${i} parsed in slices of ${sliceMax} bytes equals JSON.parse`, (t) => {
      const text = JSON.stringify(value, null, i % 2 ? 2 : undefined);
      const bytes = Buffer.from(`  \n${text}\n `, 'utf8');
      const expected = JSON.parse(bytes.toString('utf8'));
      const got = parseJsonBytes(bytes, sliceMax);
      t.deepEqual(got, expected);
      if (i === 2) {
        t.is(Object.getPrototypeOf(got), Object.prototype, 'the prototype was not replaced');
        t.true(Object.prototype.hasOwnProperty.call(got, '__proto__'));
      }
    });
  }
}

test('text JSON.parse refuses is refused in slices too', (t) => {
  for (const bad of [
    '{"a": 1,}',
    '{"a": [1, 2}',
    '{"a": "unclosed}',
    '[1, 2',
    '{"a" 1, "b": 2}',
    '{"a": 1}}',
    '[,1]',
    '{"a": nul}',
    '[1 2]',
  ]) {
    t.throws(() => JSON.parse(bad), undefined, `JSON.parse refuses ${bad}`);
    t.throws(() => parseJsonBytes(Buffer.from(bad), 2), { instanceOf: SyntaxError }, bad);
  }
  t.throws(
    () => parseJsonBytes(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), 2),
    { instanceOf: TypeError },
    'bytes that are not UTF-8',
  );
});

sharedTest('every inventory of the OCFL conformance fixtures parses in slices exactly as JSON.parse reads it', (t) => {
  const found = inventoriesUnder(reference('ocfl-fixtures'));
  t.true(found.length > 50, `${found.length} inventories`);
  for (const file of found) {
    const bytes = readFileSync(file);
    let expected: unknown;
    try {
      expected = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch (err) {
      t.throws(() => parseJsonBytes(bytes, 16), undefined, `${file} is refused as JSON.parse refuses it (${(err as Error).message})`);
      continue;
    }
    t.deepEqual(parseJsonBytes(bytes, 16), expected, file);
  }
});

test('the inventory is written piece by piece with exactly the bytes of one sorted JSON.stringify', (t) => {
  const manifest: Record<string, string[]> = {};
  const fixity: Record<string, string[]> = {};
  const versions: Inventory['versions'] = {};
  for (let v = 1; v <= 12; v++) {
    const state: Record<string, string[]> = {};
    for (let i = 0; i < 400; i++) {
      const digest = ((v * 7919 + i * 104729) % 99991).toString(16).padStart(128, 'f');
      const p = `dir ${i % 7}/fïle "${i}" \u{1F600}\\${v}.bin`;
      manifest[digest] = [`v${v}/content/${p}`, ...(i % 50 === 0 ? [`v${v}/content/copy/${i}`] : [])];
      fixity[digest.slice(0, 32)] = [`v${v}/content/${p}`];
      (state[digest] ??= []).push(`b/${p}`, `a/${p}`);
    }
    versions[`v${v}`] = {
      created: `2026-11-${String(v).padStart(2, '0')}T10:00:00Z`,
      state,
      ...(v % 2 ? { message: `version ${v}\nline two` } : {}),
      ...(v % 3 ? { user: { name: 'A. Archivist', address: 'mailto:a@example.org' } } : {}),
    };
  }
  const inv: Inventory = {
    id: 'urn:test:pieces',
    type: 'https://ocfl.io/1.1/spec/#inventory',
    digestAlgorithm: 'sha512',
    head: 'v12',
    manifest,
    versions,
    fixity: { md5: fixity },
  };
  const bytes = serializeInventory(inv);
  t.true(bytes.equals(referenceBytes(inv)));
  t.deepEqual(parseInventory(bytes), parseInventory(referenceBytes(inv)));
  const withDir: Inventory = { ...inv, contentDirectory: 'data', fixity: {} };
  t.true(serializeInventory(withDir).equals(referenceBytes({ ...withDir, fixity: undefined })));
});
