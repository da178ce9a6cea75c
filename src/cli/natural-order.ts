/**
 * Natural order for paths shown to people: runs of digits compare as numbers, so `lobseg_2` comes
 * before `lobseg_10` and `record9` before `record10`; everything else compares by code unit, as the
 * byte order the inventories use. Equal numbers with different zero padding fall back to the text.
 */
const RUNS = /(\d+)|(\D+)/g;

/**
 * `items` sorted by the natural order of `key`, each key split into its runs once (not once per
 * comparison: a million paths are compared some twenty million times).
 */
export function naturalSort<T>(items: T[], key: (item: T) => string): T[] {
  const keyed = items.map((item) => {
    const k = key(item);
    const runs = (k.match(RUNS) ?? []).map((run) => {
      const c = run.charCodeAt(0);
      return c >= 48 && c <= 57 ? { run, digits: run.replace(/^0+(?=\d)/, '') } : { run, digits: undefined };
    });
    return { item, k, runs };
  });
  keyed.sort((a, b) => {
    const n = Math.min(a.runs.length, b.runs.length);
    for (let i = 0; i < n; i++) {
      const p = a.runs[i]!;
      const q = b.runs[i]!;
      if (p.run === q.run) continue;
      if (p.digits !== undefined && q.digits !== undefined) {
        if (p.digits.length !== q.digits.length) return p.digits.length - q.digits.length;
        if (p.digits !== q.digits) return p.digits < q.digits ? -1 : 1;
      }
      return p.run < q.run ? -1 : 1;
    }
    if (a.runs.length !== b.runs.length) return a.runs.length - b.runs.length;
    return a.k < b.k ? -1 : a.k > b.k ? 1 : 0;
  });
  return keyed.map((x) => x.item);
}
