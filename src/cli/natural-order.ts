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
  // Char codes gathered in one reused array and made a string once: no piece of the path is
  // sliced out (a million paths' pieces were most of the garbage of show's sort).
  const codes = KEY_CODES;
  codes.length = 0;
  for (let i = 0; i < s.length;) {
    const digits = isDigit(s.charCodeAt(i));
    let j = i + 1;
    while (j < s.length && isDigit(s.charCodeAt(j)) === digits) j++;
    if (!digits) {
      for (let k = i; k < j; k++) codes.push(s.charCodeAt(k));
      codes.push(0);
    } else {
      let first = i; // leading zeros dropped, the last digit kept
      while (first < j - 1 && s.charCodeAt(first) === 0x30) first++;
      const zeros = first - i;
      const zero = j - first === 1 && s.charCodeAt(first) === 0x30;
      codes.push(0x30, Math.min(j - first, 0xfffe) + 1);
      for (let k = first; k < j; k++) codes.push(s.charCodeAt(k));
      codes.push(zero ? zeros + 1 : 0xff - Math.min(zeros, 0xfe));
    }
    i = j;
  }
  // In pieces: String.fromCharCode takes its codes as arguments, and a very long path would overflow the stack.
  if (codes.length <= 4096) return String.fromCharCode.apply(null, codes);
  let key = '';
  for (let k = 0; k < codes.length; k += 4096) key += String.fromCharCode.apply(null, codes.slice(k, k + 4096));
  return key;
}

const KEY_CODES: number[] = [];

/**
 * `items` sorted by the natural order of `key` (one sort key made per item, not per comparison; the
 * sort is stable). `same(a, b)`: of items next to each other in that order with the same key, only
 * the last is kept (a key is made once: asking for an item's key again would make it again).
 */
export function naturalSort<T>(items: T[], key: (item: T) => string, same?: (a: T, b: T) => boolean): T[] {
  const keys = items.map((item) => naturalKey(key(item)));
  const order = Array.from(items.keys());
  order.sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
  const kept = same
    ? order.filter((i, j) => j + 1 === order.length || keys[order[j + 1]!] !== keys[i] || !same(items[i]!, items[order[j + 1]!]!))
    : order;
  return kept.map((i) => items[i]!);
}
