/**
 * Natural order for paths shown to people: runs of digits compare as numbers, so `lobseg_2` comes
 * before `lobseg_10` and `record9` before `record10`; everything else compares by code unit, as the
 * byte order the inventories use. Equal numbers with different zero padding fall back to the text.
 */
const RUNS = /(\d+)|(\D+)/g;

export function naturalCompare(a: string, b: string): number {
  const x = a.match(RUNS) ?? [];
  const y = b.match(RUNS) ?? [];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q) continue;
    const pDigits = p.charCodeAt(0) >= 48 && p.charCodeAt(0) <= 57;
    const qDigits = q.charCodeAt(0) >= 48 && q.charCodeAt(0) <= 57;
    if (pDigits && qDigits) {
      // Compared as digit strings without leading zeros: no precision limit on long runs.
      const u = p.replace(/^0+(?=\d)/, '');
      const v = q.replace(/^0+(?=\d)/, '');
      if (u.length !== v.length) return u.length - v.length;
      if (u !== v) return u < v ? -1 : 1;
    }
    return p < q ? -1 : 1;
  }
  if (x.length !== y.length) return x.length - y.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
