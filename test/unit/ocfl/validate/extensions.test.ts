/**
 * The validator's list of registered extensions (src/ocfl/validate/extensions.ts) is the one the
 * OCFL community's index lists (../shared/reference/ocfl-extensions/index.md, read by path): a
 * root naming a registered extension is not warned about, and a name that is not one is.
 */
import { readFileSync } from 'node:fs';
import { isRegisteredExtension, REGISTERED_EXTENSIONS } from '../../../../src/ocfl/validate/extensions.js';
import { reference, sharedTest } from '../../../helpers/shared.js';

sharedTest('the registered extensions are exactly those of the community index', (t) => {
  const index = readFileSync(reference('ocfl-extensions', 'index.md'), 'utf8');
  // Entries link to their documents: "[0010: ...](0010-differential-n-tuple-omit-prefix-storage-layout.md)".
  const listed = [...index.matchAll(/\]\((\d{4}-[a-z0-9-]+)\.md\)/g)].map((m) => m[1]);
  t.is(listed.length, 12);
  t.deepEqual([...REGISTERED_EXTENSIONS].sort(), listed.sort());
  t.true(isRegisteredExtension('0010-differential-n-tuple-omit-prefix-storage-layout'));
  t.false(isRegisteredExtension('0010-differential-ocfl-version'));
});
