/**
 * xs:double cells: the fast path for values with at most two decimals must give exactly the text of
 * the general rule (String(v), '.0' after an integral value, NaN / INF / -INF / -0.0), checked on
 * edge values and a million generated ones (amounts with 0-3 decimals, doubles of every magnitude,
 * values around the fast path's limits).
 */
import test from 'ava';
import { xsDouble } from '../../../src/siard/table-data.js';

/** The general rule, as table-data.ts wrote every double before the fast path. */
function reference(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'INF';
  if (v === -Infinity) return '-INF';
  if (Object.is(v, -0)) return '-0.0';
  const s = String(v);
  return s.includes('.') || s.includes('e') ? s : s + '.0';
}

test('edge values', (t) => {
  const edges = [
    0,
    -0,
    NaN,
    Infinity,
    -Infinity,
    0.01,
    -0.01,
    0.009999999999999998,
    0.005,
    0.015,
    0.1 + 0.2,
    1.005,
    2.675,
    0.07,
    0.29,
    1.15,
    5,
    -5,
    0.25,
    -1.5,
    1e21,
    1e-7,
    5e-324,
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    Number.MAX_SAFE_INTEGER,
    2 ** 40,
    2 ** 40 - 0.01,
    2 ** 40 + 0.5,
    2 ** 40 - 0.25,
    1099511627775.99,
    123456789.12,
    -987654321.05,
    100.1,
    100.01,
    100.001,
    999999.99,
  ];
  for (const v of edges) t.is(xsDouble(v), reference(v), String(v));
});

test('a million generated values', (t) => {
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  let mismatches = 0;
  for (let i = 0; i < 1_000_000; i++) {
    const r = random();
    const sign = random() < 0.5 ? -1 : 1;
    const v =
      i % 4 === 0
        ? (sign * Math.round(r * 10 ** (1 + (i % 13)))) / [1, 10, 100, 1000][(i >> 2) % 4]!
        : i % 4 === 1
          ? sign * (r - 0.5) * 2 ** ((i % 120) - 60)
          : i % 4 === 2
            ? (sign * Math.round(r * 2 ** 48)) / 100
            : sign * (2 ** 40 + (r - 0.5) * 1000);
    if (xsDouble(v) !== reference(v) && mismatches++ < 5) t.fail(`${v}: ${xsDouble(v)} != ${reference(v)}`);
  }
  t.is(mismatches, 0);
});
