/**
 * pathListLister (the folder listing an audit runs over an object's logical paths) lists what a plain
 * filter over every path lists, for random trees whose names sort around the separator ('-' and '.'
 * before '/', '0' and 'é' after it), in any order of the paths given.
 */
import test from 'ava';
import { pathListLister } from '../../../../src/siard/reader/unreferenced.js';
import { rng } from '../../../../fixtures/northwind.js';

const NAMES = ['a', 'a-b', 'a.b', 'a/b', 'ab', 'a0', 'é', 'seg_1', 'seg_10', 'seg_2', 'Z'];

function naiveFiles(paths: string[], folder: string): string[] {
  const prefix = folder === '' ? '' : `${folder}/`;
  return paths.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length));
}

function naiveSubfolders(paths: string[], folder: string): string[] {
  const names = new Set<string>();
  for (const rest of naiveFiles(paths, folder)) if (rest.indexOf('/') > 0) names.add(rest.slice(0, rest.indexOf('/')));
  return [...names];
}

test('files and subfolders of every folder are those of a plain filter over all paths', async (t) => {
  const r = rng(5150);
  const pick = () => NAMES[Math.floor(r() * NAMES.length)]!;
  for (let round = 0; round < 20; round++) {
    const paths = new Set<string>();
    while (paths.size < 300) paths.add(Array.from({ length: 1 + Math.floor(r() * 4) }, pick).join('/'));
    const list = [...paths];
    const lister = pathListLister(list);
    const folders = new Set<string>(['']);
    for (const p of list) for (let i = p.indexOf('/'); i > 0; i = p.indexOf('/', i + 1)) folders.add(p.slice(0, i));
    for (const folder of [...folders, 'absent', 'a/b/']) {
      const key = folder.replace(/\/+$/, '');
      t.deepEqual((await lister.files(folder)).sort(), naiveFiles(list, key).sort(), `files of "${folder}"`);
      t.deepEqual((await lister.subfolders(folder)).sort(), naiveSubfolders(list, key).sort(), `subfolders of "${folder}"`);
    }
  }
});
