/**
 * Folders a staged version took whole from the workspace go back where they came from before a
 * stage that was not committed is removed (adopted-trees.ts): from each place the publication may
 * have taken them (the stage's object folder, a new object's tree, an exchange's shadow); never
 * over something already there, never along a path that leaves the workspace; nothing without a
 * whole record.
 */
import test from 'ava';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { giveBackAdopted, recordAdopted } from '../../../../src/ocfl/commit/adopted-trees.js';
import { FileSystemStorage } from '../../../../src/ocfl/storage/fs.js';
import { tempDir } from '../../../helpers/tmp.js';

/** A workspace whose work folder `work/lobs` (two files) was recorded as adopted and moved to `place` of the stage. */
async function adopted(place: (to: string) => string): Promise<{ dir: string; ws: FileSystemStorage }> {
  const dir = tempDir();
  const ws = new FileSystemStorage(dir);
  mkdirSync(path.join(dir, 'work', 'lobs', 'a'), { recursive: true });
  writeFileSync(path.join(dir, 'work', 'lobs', 'a', 'r0.bin'), 'zero');
  writeFileSync(path.join(dir, 'work', 'lobs', 'r1.bin'), 'one');
  await recordAdopted(ws, 'stage', 'ab/obj', [{ from: 'work/lobs', to: 'v1/content/lobs' }]);
  const target = place('v1/content/lobs');
  await ws.mkdir(target.slice(0, target.lastIndexOf('/')));
  await ws.rename('work/lobs', target);
  return { dir, ws };
}

for (const [where, place] of [
  ['the stage', (to: string) => `stage/object/${to}`],
  ["a new object's tree", (to: string) => `stage/tree/ab/obj/${to}`],
  ["an exchange's shadow", (to: string) => `stage/shadow/${to}`],
] as const) {
  test(`an adopted folder in ${where} goes back whole`, async (t) => {
    const { dir, ws } = await adopted(place);
    t.false(existsSync(path.join(dir, 'work', 'lobs')));
    t.is(await giveBackAdopted(ws, 'stage'), 1);
    t.is(readFileSync(path.join(dir, 'work', 'lobs', 'a', 'r0.bin'), 'utf8'), 'zero');
    t.is(readFileSync(path.join(dir, 'work', 'lobs', 'r1.bin'), 'utf8'), 'one');
    t.false(existsSync(path.join(dir, place('v1/content/lobs'))));
    t.is(await giveBackAdopted(ws, 'stage'), 0, 'again: nothing left to give back');
  });
}

test('nothing is moved over a folder already there, nor into a folder that is gone', async (t) => {
  const taken = await adopted((to) => `stage/object/${to}`);
  mkdirSync(path.join(taken.dir, 'work', 'lobs'));
  t.is(await giveBackAdopted(taken.ws, 'stage'), 0);
  t.true(existsSync(path.join(taken.dir, 'stage', 'object', 'v1', 'content', 'lobs', 'r1.bin')));
  const gone = await adopted((to) => `stage/object/${to}`);
  await gone.ws.remove('work');
  t.is(await giveBackAdopted(gone.ws, 'stage'), 0);
});

test('no record, a torn one or one whose paths leave the workspace gives back nothing', async (t) => {
  const dir = tempDir();
  const ws = new FileSystemStorage(dir);
  t.is(await giveBackAdopted(ws, 'stage'), 0);
  mkdirSync(path.join(dir, 'stage', 'object', 'v1', 'content', 'x'), { recursive: true });
  writeFileSync(path.join(dir, 'stage', 'adopted.json'), '{"objectPath":"o","trees":[{"from":"wo');
  t.is(await giveBackAdopted(ws, 'stage'), 0);
  mkdirSync(path.join(dir, 'work'));
  writeFileSync(
    path.join(dir, 'stage', 'adopted.json'),
    JSON.stringify({ objectPath: 'o', trees: [{ from: 'work/../../escaped', to: 'v1/content/x' }] }),
  );
  t.is(await giveBackAdopted(ws, 'stage'), 0);
  t.false(existsSync(path.join(dir, '..', 'escaped')));
  t.true(existsSync(path.join(dir, 'stage', 'object', 'v1', 'content', 'x')));
});
