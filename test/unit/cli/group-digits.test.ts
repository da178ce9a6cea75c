/** The progress lines' digit grouping prints what Intl.NumberFormat('en-US') prints, for whole numbers and rounded rates. */
import test from 'ava';
import { groupDigits } from '../../../src/cli/group-digits.js';

const intl = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

test('every power of ten and its neighbours, large counts and rounded rates group as Intl does', (t) => {
  const values = [0, 0.4, 0.6, 999.5, 2 ** 53 - 1, -1, -1234567];
  for (let p = 1; p <= 1e15; p *= 10) values.push(p - 1, p, p + 1, p * 1.5);
  for (const v of values) t.is(groupDigits(v), intl.format(Math.round(v)), String(v));
});
