/**
 * Natural order (show): the sort keys must order paths exactly as comparing them run by run does:
 * digit runs as numbers (shorter number first, then by digits, then padding by the runs' text),
 * other runs by code unit, a path that is a prefix of another first. The reference comparator
 * below states that rule directly; random paths over an alphabet rich in the hard cases (zeros,
 * separators below and above the digits, letters) are sorted both ways.
 */
import test from 'ava';
import { naturalSort } from '../../../src/cli/natural-order.js';

function runsOf(s: string): string[] {
  return s.match(/\d+|\D+/g) ?? [];
}

function referenceCompare(a: string, b: string): number {
  const ra = runsOf(a);
  const rb = runsOf(b);
  for (let i = 0; i < Math.min(ra.length, rb.length); i++) {
    const p = ra[i]!;
    const q = rb[i]!;
    if (p === q) continue;
    if (/^\d/.test(p) && /^\d/.test(q)) {
      const x = p.replace(/^0+(?=\d)/, '');
      const y = q.replace(/^0+(?=\d)/, '');
      if (x.length !== y.length) return x.length - y.length;
      if (x !== y) return x < y ? -1 : 1;
    }
    return p < q ? -1 : 1;
  }
  return ra.length - rb.length || (a < b ? -1 : a > b ? 1 : 0);
}

test('paths a user sees: lobseg_2 before lobseg_10, record9 before record10', (t) => {
  const paths = ['nw_lobseg_10/record1.bin', 'nw_lobseg_2/record10.bin', 'nw_lobseg_2/record9.bin', 'nw_lobseg_2/record9.bin.1', 'a.siard'];
  t.deepEqual(
    naturalSort(paths, (p) => p),
    ['a.siard', 'nw_lobseg_2/record9.bin', 'nw_lobseg_2/record9.bin.1', 'nw_lobseg_2/record10.bin', 'nw_lobseg_10/record1.bin'],
  );
});

test('random paths sort as the run-by-run rule says, including padding, zero and separators', (t) => {
  let seed = 12345;
  const random = (n: number) => {
    seed = (seed * 48271) % 2147483647; // Park-Miller: exact in doubles
    return seed % n;
  };
  const alphabet = ['0', '0', '1', '2', '9', '/', '-', '.', '_', 'a', 'b', 'Z', ' ', 'é'];
  const paths = new Set<string>();
  while (paths.size < 3000) {
    let s = '';
    for (let i = 0, n = 1 + random(9); i < n; i++) s += alphabet[random(alphabet.length)];
    paths.add(s);
  }
  const input = [...paths];
  const expected = [...input].sort(referenceCompare);
  t.deepEqual(
    naturalSort(input, (p) => p),
    expected,
  );
});

test('paths longer than one piece of the key (4,096 char codes) sort as short ones do', (t) => {
  const long = 'd/'.repeat(3000);
  const paths = [`${long}x10`, `${long}x9`, `${long}x010`, `${long}w`, `${'d/'.repeat(2999)}e`];
  t.deepEqual(
    naturalSort(paths, (p) => p),
    [...paths].sort(referenceCompare),
  );
  t.deepEqual(naturalSort(paths, (p) => p).slice(1, 4), [`${long}x9`, `${long}x010`, `${long}x10`]);
});

test('a path listed twice is kept once, at its later listing, when asked (show: as the version state reads it)', (t) => {
  let seed = 777;
  const random = (n: number) => {
    seed = (seed * 48271) % 2147483647;
    return seed % n;
  };
  const alphabet = ['0', '1', '9', '/', '.', 'a', 'b'];
  const listed: Array<{ path: string; at: number }> = [];
  for (let at = 0; at < 2000; at++) {
    let path = '';
    for (let i = 0, n = 1 + random(4); i < n; i++) path += alphabet[random(alphabet.length)];
    listed.push({ path, at });
  }
  // Every path once, at the last position it is listed at, in the run-by-run order.
  const last = new Map(listed.map((item) => [item.path, item] as const));
  const expected = [...last.values()].sort((a, b) => referenceCompare(a.path, b.path));
  t.true(expected.length < listed.length / 2, `${listed.length - expected.length} paths listed more than once`);
  const kept = naturalSort(
    listed,
    (item) => item.path,
    (a, b) => a.path === b.path,
  );
  t.deepEqual(kept, expected);
  // Without the comparison nothing is dropped.
  t.is(naturalSort(listed, (item) => item.path).length, listed.length);
});
