/**
 * The path shape rules of OCFL 1.1 3.5.3 (E099, E100 for content paths; E052, E053 for logical
 * paths): no path starts or ends with "/", and no element is empty, "." or "..". The rule read
 * as the specification words it (split at "/", each element looked at) is the reference.
 */
import test from 'ava';
import { pathShapeProblem } from '../../../../src/ocfl/validate/paths.js';

function byTheWords(p: string): 'slash' | 'element' | undefined {
  if (p.startsWith('/') || p.endsWith('/')) return 'slash';
  return p.split('/').some((e) => e === '' || e === '.' || e === '..') ? 'element' : undefined;
}

test('the examples of the rules', (t) => {
  for (const p of ['v1/content/a.txt', 'a', '.a', '..a', 'a.', 'a/.../b', '...', 'a/.b/c', 'v1/content/é/😀'])
    t.is(pathShapeProblem(p), undefined, p);
  for (const p of ['/a', 'a/', '/', '//']) t.is(pathShapeProblem(p), 'slash', p);
  for (const p of ['', '.', '..', 'a//b', './a', 'a/.', 'a/../b', '../a', 'a/..', 'v1/content/./x'])
    t.is(pathShapeProblem(p), 'element', p);
});

test('every short path over "/", ".", "a": as the rule reads word for word', (t) => {
  const alphabet = ['/', '.', 'a'];
  let paths = [''];
  for (let length = 1; length <= 7; length++) {
    paths = paths.flatMap((p) => alphabet.map((c) => p + c));
    for (const p of paths) t.is(pathShapeProblem(p), byTheWords(p), JSON.stringify(p));
  }
});
