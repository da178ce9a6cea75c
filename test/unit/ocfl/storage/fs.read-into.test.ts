/**
 * FileSystemStorage.readInto (src/ocfl/storage/fs.ts), the read of a large inventory into one
 * window: the whole file piece by piece into the buffer given, and a symbolic link refused as
 * readStream refuses it (the file itself, or a folder on the way), so a reader never reads
 * through a link by taking this way.
 */
import test from 'ava';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openStorage } from '../../../../src/ocfl/storage/open.js';
import { tempDir } from '../../../helpers/tmp.js';

test('readInto reads the whole file into the one buffer and refuses a link as readStream does', async (t) => {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'real'));
  writeFileSync(path.join(dir, 'real', 'f'), 'abcdefghij');
  writeFileSync(path.join(dir, 'real', 'empty'), '');
  symlinkSync(path.join(dir, 'real', 'f'), path.join(dir, 'real', 'link'));
  symlinkSync(path.join(dir, 'real'), path.join(dir, 'alias'));
  const storage = await openStorage(dir);
  const buffer = Buffer.alloc(4);
  const read = async (p: string) => {
    const pieces: string[] = [];
    for await (const piece of storage.readInto!(p, buffer)) {
      t.is(piece.buffer, buffer.buffer, 'each piece is the buffer given');
      pieces.push(piece.toString());
    }
    return pieces;
  };
  t.deepEqual(await read('real/f'), ['abcd', 'efgh', 'ij']);
  t.deepEqual(await read('real/empty'), []);
  for (const p of ['real/link', 'alias/f']) {
    const streamed = await t.throwsAsync(async () => {
      for await (const chunk of storage.readStream(p)) t.truthy(chunk);
    });
    const into = await t.throwsAsync(read(p));
    t.truthy(streamed && into, `${p}: refused both ways`);
  }
  await t.throwsAsync(read('real/missing'), { code: 'ENOENT' });
});
