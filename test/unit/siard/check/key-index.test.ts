/**
 * The key index against a plain reckoning in maps: duplicates of unique keys (value, number of
 * rows, first row) and foreign key values without a referenced row, on key values of every kind
 * the runs (key-runs.ts) take or hand to SQLite: serial ids, ids with gaps and repeats, foreign keys
 * in order and at random, text and non-canonical integers, a referenced table read after its
 * referencing one, and a run count past the memory bound.
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

function actual(c: Case, maxRuns?: number): string[] {
  const index = new KeyIndex([PK, CHILD_PK, FK], ...(maxRuns !== undefined ? [maxRuns] : []));
  try {
    const parent = () => c.parent.forEach((v, i) => index.add(PK, i + 1, [v]));
    const child = () =>
      c.child.forEach((v, i) => {
        index.add(CHILD_PK, i + 1, [String(i + 1)]);
        index.add(FK, i + 1, [v]);
      });
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
  });
}

test('key index: past the bound on runs, a key goes to SQLite with every value it had', (t) => {
  // runs of one value each past a bound of 1,000: keys are handed over, their answers the same
  for (const c of CASES) t.deepEqual(actual(c, 1000), expected(c), c.name);
});
