/** Shape rules for the paths an inventory holds (content paths and logical paths). */

const DOT = 0x2e;

/** Problems of a '/'-separated path: 'slash' (starts or ends with /) or 'element' (., .. or empty). */
export function pathShapeProblem(p: string): 'slash' | 'element' | undefined {
  if (p.startsWith('/') || p.endsWith('/')) return 'slash';
  // Element by element without splitting: called for every path of every block (twice a content file).
  for (let start = 0; ;) {
    const slash = p.indexOf('/', start);
    const end = slash < 0 ? p.length : slash;
    if (end === start || (p.charCodeAt(start) === DOT && (end === start + 1 || (end === start + 2 && p.charCodeAt(start + 1) === DOT))))
      return 'element';
    if (slash < 0) return undefined;
    start = slash + 1;
  }
}

/** A URI in the sense of RFC 3986: a scheme followed by a colon and something more. */
export function looksLikeUri(value: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/.test(value);
}

/** RFC 3339 date-time with seconds and an explicit offset (Z or +hh:mm). */
export function isRfc3339(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/.exec(value);
  if (!m) return false;
  const [, , mo, d, h, mi, s] = m.map(Number);
  const offH = m[9] === undefined ? 0 : Number(m[9]);
  const offM = m[10] === undefined ? 0 : Number(m[10]);
  return mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && s <= 60 && offH <= 23 && offM <= 59;
}
