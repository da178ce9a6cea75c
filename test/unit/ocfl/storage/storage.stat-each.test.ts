/**
 * statEach (src/ocfl/storage/storage.ts): the filesystem's synchronous statMany answers what its
 * stat answers, path by path (a file, a folder, the base, a missing path, a link not followed), and
 * a backend without statMany is asked path by path in the same order.
 */
import test from 'ava';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileSystemStorage } from '../../../../src/ocfl/storage/fs.js';
import { statEach, type ReadStorage } from '../../../../src/ocfl/storage/storage.js';

test('statMany of the filesystem answers what stat answers, in the order asked', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'stat-each-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'v1/content'), { recursive: true });
  writeFileSync(path.join(dir, 'v1/content/a'), 'abc');
  writeFileSync(path.join(dir, 'v1/content/b'), 'x'.repeat(5000));
  symlinkSync(path.join(dir, 'v1/content/b'), path.join(dir, 'v1/content/link'));
  const storage = new FileSystemStorage(dir);
  const paths = ['v1/content/b', '', 'v1/content/missing', 'v1', 'v1/content/link', 'v1/content/a', 'nothing/below'];
  const one = await Promise.all(paths.map((p) => storage.stat(p)));
  t.deepEqual(await statEach(storage, paths), one);
  t.deepEqual(
    one.map((s) => s?.size),
    [5000, one[1]!.size, undefined, one[3]!.size, one[4]!.size, 3, undefined],
  );
  t.false(one[4]!.isFile, 'a link is not followed');
  await t.throwsAsync(statEach(storage, ['../outside']), { message: /not a plain relative path/ });
});

test('a backend without statMany is asked path by path, the answers in the order asked', async (t) => {
  const sizes = new Map([
    ['x', 1],
    ['y', 22],
  ]);
  const asked: string[] = [];
  const storage = {
    location: 'memory',
    stat: async (p: string) => {
      asked.push(p);
      await new Promise((resolve) => setTimeout(resolve, p === 'x' ? 5 : 0));
      return sizes.has(p) ? { isFile: true, isDirectory: false, size: sizes.get(p)! } : undefined;
    },
  } as unknown as ReadStorage;
  const got = await statEach(storage, ['x', 'z', 'y']);
  t.deepEqual(
    got.map((s) => s?.size),
    [1, undefined, 22],
  );
  t.deepEqual(asked.sort(), ['x', 'y', 'z']);
});
