/**
 * Natural order for paths shown to people: runs of digits compare as numbers, so `lobseg_2` comes
 * before `lobseg_10` and `record9` before `record10`; everything else compares by code unit, as the
 * byte order the inventories use. Equal numbers with different zero padding fall back to the text.
 */
const RUNS = /(\d+)|(\D+)/g;

/**
 * A string whose code-unit order is the natural order of `s`: each run of other characters is
 * kept and closed by U+0000 (a shorter run sorts first, as in plain text); each run of digits
 * becomes "0", its length without leading zeros, those digits, and a mark of the padding (for
 * the same number, more zeros sort first, except for zero itself, as the runs' text would). One
 * string per path, compared by the engine's own string comparison: a million paths sorted this
 * way hold a million strings, not a few million run records.
 */
function naturalKey(s: string): string {
  // Pieces joined once: a key grown by `+=` is a tree of string pieces, ~1 KB per path held until the sort ends.
  const parts: string[] = [];
  for (const [run, digits] of s.matchAll(RUNS)) {
    if (digits === undefined) {
      parts.push(run, '\u0000');
      continue;
    }
    const value = digits.replace(/^0+(?=\d)/, '');
    const zeros = digits.length - value.length;
    const padding = value === '0' ? zeros + 1 : 0xff - Math.min(zeros, 0xfe);
    parts.push('0', String.fromCharCode(Math.min(value.length, 0xfffe) + 1), value, String.fromCharCode(padding));
  }
  return parts.join('');
}

/** `items` sorted by the natural order of `key` (one sort key made per item, not per comparison). */
export function naturalSort<T>(items: T[], key: (item: T) => string): T[] {
  const keys = items.map((item) => naturalKey(key(item)));
  const order = Array.from(items.keys());
  order.sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
  return order.map((i) => items[i]!);
}
