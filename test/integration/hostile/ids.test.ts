/**
 * Object ids that cannot travel on a command line, through the library: NUL (argv cannot hold
 * it) is stored at its 0003 path with %00, inside one encapsulation folder; a lone surrogate is
 * refused (BAD_OBJECT_ID), never replaced. See ID_CASES in expected.ts for the reasoning.
 */
import test from 'ava';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { SiardOcflError } from '../../../src/errors.js';
import { loadLayout0003 } from '../../../src/ocfl/layout/extensions.js';
import { initRoot, openRoot } from '../../../src/ocfl/root.js';
import { validateStorageRoot } from '../../../src/ocfl/validate/index.js';
import { tempDir } from '../../helpers/tmp.js';
import { ID_CASES } from './expected.js';

test('an id with NUL is stored inside the root at its %00-encoded 0003 path and reads back', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  const root = await initRoot(rootDir, await loadLayout0003({}));
  const id = ID_CASES['id-nul']!.id;
  const staged = await root.startVersion(id);
  await staged.addBuffer('a.txt', 'nul id\n');
  await staged.commit({ message: 'nul' });
  const objectPath = root.objectPath(id);
  t.true(objectPath.endsWith('/nul%00id'), objectPath);
  const reader = await (await openRoot(rootDir)).openObject(id);
  t.is(reader.id, id);
  t.is((await reader.readLogical('a.txt')).toString(), 'nul id\n');
  t.true((await validateStorageRoot(rootDir)).valid);
  // Nothing beside the root and its workspace.
  t.deepEqual(readdirSync(base).sort(), ['.root.siard-ocfl-work', 'root']);
});

test('an id with a lone surrogate is refused with BAD_OBJECT_ID before anything is written', async (t) => {
  const base = tempDir();
  const rootDir = path.join(base, 'root');
  const root = await initRoot(rootDir, await loadLayout0003({}));
  const before = readdirSync(rootDir).sort();
  const err = await t.throwsAsync(root.startVersion(ID_CASES['id-lone-surrogate']!.id), { instanceOf: SiardOcflError });
  t.is(err!.code, 'BAD_OBJECT_ID');
  t.regex(err!.message, /lone surrogate/);
  t.deepEqual(readdirSync(rootDir).sort(), before);
});
