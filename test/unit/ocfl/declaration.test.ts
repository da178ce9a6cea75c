/**
 * The declarations (declaration.ts): the OCFL version of an inventory type, the order of OCFL
 * versions, and what recovery finishes after an upgrade killed after its switch (and what it must
 * leave alone: an interrupted purge, or a declaration later than the inventory).
 */
import test from 'ava';
import {
  compareOcflVersions,
  declarationToSettle,
  inventoryOcflVersion,
  objectDeclaration,
  rootDeclaration,
} from '../../../src/ocfl/declaration.js';

const T10 = 'https://ocfl.io/1.0/spec/#inventory';
const T11 = 'https://ocfl.io/1.1/spec/#inventory';

test('names and texts as the specification writes them (E004-E007, E077-E080)', (t) => {
  t.deepEqual(objectDeclaration('1.1'), { name: '0=ocfl_object_1.1', text: 'ocfl_object_1.1\n' });
  t.deepEqual(rootDeclaration('1.0'), { name: '0=ocfl_1.0', text: 'ocfl_1.0\n' });
  t.is(inventoryOcflVersion(T10), '1.0');
  t.is(inventoryOcflVersion(T11), '1.1');
  t.is(inventoryOcflVersion('https://ocfl.io/1.1/spec/'), undefined);
  t.true(compareOcflVersions('1.0', '1.1') < 0);
  t.true(compareOcflVersions('1.10', '1.9') > 0, 'number by number, not as text');
  t.is(compareOcflVersions('1.1', '1.1'), 0);
});

test('an upgrade killed after its switch is finished: the declaration the inventory names, then the old one removed', (t) => {
  t.deepEqual(declarationToSettle(T11, ['0=ocfl_object_1.0', 'inventory.json']), { add: '1.1', remove: ['1.0'] });
  t.deepEqual(declarationToSettle(T11, ['0=ocfl_object_1.0', '0=ocfl_object_1.1']), { remove: ['1.0'] });
});

test('nothing to finish, or nothing this tool may touch', (t) => {
  t.is(declarationToSettle(T11, ['0=ocfl_object_1.1', 'inventory.json']), undefined, 'consistent');
  t.is(declarationToSettle(T10, ['0=ocfl_object_1.0']), undefined, 'consistent 1.0');
  t.is(declarationToSettle(T11, ['inventory.json']), undefined, 'no declaration: an interrupted purge, not to be undone');
  t.is(declarationToSettle(T10, ['0=ocfl_object_1.1']), undefined, 'a declaration later than the inventory is not ours to change');
  t.is(declarationToSettle('https://example.org/other', ['0=ocfl_object_1.0']), undefined, 'an unknown type');
});
