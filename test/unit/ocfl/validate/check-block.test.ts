/**
 * Issue 35: the validator's one block model (src/ocfl/validate/check-block.ts) holds a parsed
 * inventory's paths as bytes too, where the full parse's checks used Sets of strings. Held here to
 * those strings on random blocks of paths drawn from what bytes could confuse: lone surrogates
 * (UTF-8 would write each as U+FFFD), U+FFFD itself, a surrogate pair, '/', and members that are
 * not strings: a repeat is found exactly when the strings are equal, and a folder conflict exactly
 * when one string is a folder of another, as the former string check (the reference below) found them.
 */
import test from 'ava';
import { CheckBlock, pathBytes } from '../../../../src/ocfl/validate/check-block.js';
import { rng } from '../../../../fixtures/northwind.js';

const PIECES = ['a', '/', '\ud800', '\udbff', '\udc00', '\udfff', '\ufffd', '😀', 'é'];

/** The former check (validate/paths.ts conflictingPaths): equal strings, then folder prefixes, by string. */
function referenceConflicts(paths: string[]): Array<[string, string]> {
  const all = new Set<string>();
  const conflicts: Array<[string, string]> = [];
  const list: string[] = [];
  for (const p of paths) {
    if (all.has(p)) conflicts.push([p, p]);
    else {
      all.add(p);
      list.push(p);
    }
  }
  for (const p of list) {
    for (let i = p.indexOf('/'); i > 0; i = p.indexOf('/', i + 1)) if (all.has(p.slice(0, i))) conflicts.push([p.slice(0, i), p]);
  }
  return conflicts;
}

function randomPath(r: () => number): string {
  let s = '';
  for (let n = 1 + Math.floor(r() * 4); n > 0; n--) s += PIECES[Math.floor(r() * PIECES.length)];
  return s;
}

test('a parsed block: repeats and folder conflicts found as by strings, lone surrogates kept apart', (t) => {
  const r = rng(35);
  let repeats = 0;
  let folders = 0;
  for (let round = 0; round < 2000; round++) {
    const record: Record<string, unknown> = {};
    for (let k = Math.floor(r() * 4); k >= 0; k--) {
      const value: unknown[] = [];
      for (let n = Math.floor(r() * 6); n > 0; n--) value.push(r() < 0.1 ? (r() < 0.5 ? 7 : null) : randomPath(r));
      record[`k${k}`] = r() < 0.05 ? 'not a list' : value;
    }
    const block = CheckBlock.ofParsed(record);
    const strings: number[] = [];
    for (let k = 0; k < block.keyCount; k++) {
      t.is(block.isArray(k), Array.isArray(record[block.keyText(k)]));
      for (let p = block.firstPath(k); p < block.firstPath(k + 1); p++) {
        t.is(block.path(p), (record[block.keyText(k)] as unknown[])[p - block.firstPath(k)]);
        if (typeof block.path(p) === 'string') strings.push(p);
      }
    }
    const texts = strings.map((p) => block.path(p) as string);
    const expected = referenceConflicts(texts);
    t.deepEqual(block.conflicts(Uint32Array.from(strings)), expected, `round ${round}`);
    const seen = block.pathSet(strings.length);
    const set = new Set<string>();
    for (const p of strings) {
      const text = block.path(p) as string;
      t.is(seen.add(p), !set.has(text), `round ${round}: ${JSON.stringify(text)}`);
      set.add(text);
    }
    repeats += expected.filter(([a, b]) => a === b).length;
    folders += expected.filter(([a, b]) => a !== b).length;
  }
  // The rounds met both kinds of conflict, with the pieces bytes could confuse.
  t.true(repeats > 100 && folders > 100, `${repeats} repeats, ${folders} folder conflicts`);
});

test('pathBytes: equal bytes exactly for equal strings; UTF-8 where the string is well formed', (t) => {
  const r = rng(3535);
  const texts = [...new Set(Array.from({ length: 400 }, () => randomPath(r)))];
  for (const a of texts) {
    if (a.isWellFormed()) t.deepEqual(pathBytes(a), Buffer.from(a, 'utf8'));
    for (const b of texts) if (a !== b) t.false(pathBytes(a).equals(pathBytes(b)), `${JSON.stringify(a)} ${JSON.stringify(b)}`);
  }
});
