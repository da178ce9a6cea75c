/**
 * Natural order for paths shown to people: runs of digits compare as numbers, so `lobseg_2` comes
 * before `lobseg_10` and `record9` before `record10`; everything else compares by code unit, as the
 * byte order the inventories use. Equal numbers with different zero padding fall back to the text.
 */

/** An ASCII digit (what \d matches). */
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

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
  // Runs found by char codes, not a regular expression's matches: a million paths' matches cost more than the sort.
  const parts: string[] = [];
  for (let i = 0; i < s.length;) {
    const digits = isDigit(s.charCodeAt(i));
    let j = i + 1;
    while (j < s.length && isDigit(s.charCodeAt(j)) === digits) j++;
    if (!digits) parts.push(s.slice(i, j), '\u0000');
    else {
      let first = i; // leading zeros dropped, the last digit kept
      while (first < j - 1 && s.charCodeAt(first) === 0x30) first++;
      const value = s.slice(first, j);
      const zeros = first - i;
      const padding = value === '0' ? zeros + 1 : 0xff - Math.min(zeros, 0xfe);
      parts.push('0', String.fromCharCode(Math.min(value.length, 0xfffe) + 1), value, String.fromCharCode(padding));
    }
    i = j;
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
