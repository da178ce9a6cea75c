/**
 * The key index against a plain reckoning in maps: duplicates of unique keys (value, number of
 * rows, first row) and foreign key values without a referenced row, on key values of every kind
 * the runs (key-runs.ts) take or hand to SQLite: serial ids, ids with gaps and repeats, foreign keys
 * in order and at random, text and non-canonical integers, a referenced table read after its
 * referencing one, and run counts past the memory bound (runs sorted to disk and merged).
 */
import test from 'ava';
import { KeyIndex, type KeySpec } from '../../../../src/siard/check/key-index.js';

interface Case {
  name: string;
  parent: string[];
  child: string[];
  /** the child table read first */
  childFirst?: boolean;
}

function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const r = random(7);
const serial = (n: number, from = 1) => Array.from({ length: n }, (_v, i) => String(from + i));
const CASES: Case[] = [
  { name: 'serial, foreign keys in order', parent: serial(1000), child: serial(5000).map((_v, i) => String(1 + (i % 1000))) },
  { name: 'serial, foreign keys at random', parent: serial(1000), child: serial(3000).map(() => String(1 + Math.floor(r() * 1000))) },
  {
    name: 'a repeated id and a missing reference',
    parent: [...serial(500), '250', ...serial(690, 501)],
    child: serial(2000).map((_v, i) => String(1 + (i % 1200))),
  },
  { name: 'gaps', parent: serial(2000).filter((v) => Number(v) % 7 !== 0), child: serial(300) },
  { name: 'text and non-canonical integers', parent: ['a', 'b', '007', '7', 'b'], child: ['a', '7', '007', 'c', '0', '-0'] },
  {
    name: 'the referenced table read last',
    parent: serial(100),
    child: serial(300).map((_v, i) => String(100 - (i % 101))),
    childFirst: true,
  },
  { name: 'large numbers', parent: ['999999999999999', '1000000000000000', '-5', '-4'], child: ['1000000000000000', '-4', '-3'] },
];

const PK: KeySpec = { id: 0, table: 's.parent', name: 'pk_parent', kind: 'primary', columns: ['id'], indexes: [0] };
const CHILD_PK: KeySpec = { id: 1, table: 's.child', name: 'pk_child', kind: 'primary', columns: ['id'], indexes: [0] };
const FK: KeySpec = { id: 2, table: 's.child', name: 'fk', kind: 'foreign', columns: ['parent_id'], indexes: [1], target: 0 };

function expected(c: Case): string[] {
  const out: string[] = [];
  const rows = new Map<string, number[]>();
  c.parent.forEach((v, i) => rows.set(v, [...(rows.get(v) ?? []), i + 1]));
  for (const [v, at] of rows)
    if (at.length > 1) out.push(`Primary key pk_parent of s.parent (id) has the value ${JSON.stringify(v)} in ${at.length} rows.@${at[0]}`);
  c.child.forEach((v, i) => {
    if (!rows.has(v)) out.push(`Foreign key fk of s.child: (parent_id) = (${JSON.stringify(v)}) has no row in s.parent (id).@${i + 1}`);
  });
  return out.sort();
}

/** `finish`: the index told when each table is read (a parent read first then checks its children's foreign keys as they come) */
function actual(c: Case, maxRuns?: number, finish = false): string[] {
  const index = new KeyIndex([PK, CHILD_PK, FK], ...(maxRuns !== undefined ? [maxRuns] : []));
  try {
    const parent = () => {
      c.parent.forEach((v, i) => index.add(PK, i + 1, [v]));
      if (finish) index.finishTable([PK]);
    };
    const child = () => {
      c.child.forEach((v, i) => {
        index.add(CHILD_PK, i + 1, [String(i + 1)]);
        index.add(FK, i + 1, [v]);
      });
      if (finish) index.finishTable([CHILD_PK, FK]);
    };
    if (c.childFirst) {
      child();
      parent();
    } else {
      parent();
      child();
    }
    if (maxRuns !== undefined) for (let i = 0; i <= maxRuns; i++) index.add(CHILD_PK, 10_000_000 + i, [String(1e9 + 3 * i)]);
    return [...index.violations()].map((v) => `${v.message}@${v.row}`).sort();
  } finally {
    index.close();
  }
}

for (const c of CASES) {
  test(`key index: ${c.name}`, (t) => {
    t.deepEqual(actual(c), expected(c));
    t.deepEqual(actual(c, undefined, true), expected(c), 'tables finished: foreign keys checked as they come');
  });
}

test('key index: past the bound on runs, keys write sorted runs to disk and merge them, their answers the same', (t) => {
  // a bound of 1,000 runs: keys spill now and then; of 64: every key spills often and its files
  // are merged level by level (16 files of a level make one of the next)
  for (const bound of [1000, 64])
    for (const c of CASES) {
      t.deepEqual(actual(c, bound), expected(c), `${c.name}, bound ${bound}`);
      t.deepEqual(actual(c, bound, true), expected(c), `${c.name}, bound ${bound}, tables finished`);
    }
});

test('key index: 200,000 foreign keys at random under a bound of 256 runs find exactly the missing references', (t) => {
  const next = random(11);
  const parent = serial(20_000).filter((v) => Number(v) % 97 !== 0);
  const child = Array.from({ length: 200_000 }, () => String(1 + Math.floor(next() * 20_000)));
  const c: Case = { name: 'large', parent, child };
  const want = expected(c);
  // the index lists at most 100 per key: the first 100 missing values in value order
  const got = actual(c, 256);
  t.is(got.length, 100);
  t.true(want.length > 100);
  for (const g of got) t.true(want.includes(g), g);
  const values = got.map((g) => Number(/= \("(\d+)"\)/.exec(g)![1]));
  const missing = [...new Set(child.filter((v) => Number(v) % 97 === 0).map(Number))].sort((a, b) => a - b);
  t.deepEqual(
    [...new Set(values)].sort((a, b) => a - b),
    missing.slice(0, new Set(values).size),
  );
  // checked as they come (the parent read first): the first 100 missing in row order
  const rows = want.map((w) => Number(/@(\d+)$/.exec(w)![1])).sort((a, b) => a - b);
  t.deepEqual(
    actual(c, 256, true),
    want.filter((w) => Number(/@(\d+)$/.exec(w)![1]) <= rows[99]!),
  );
});
