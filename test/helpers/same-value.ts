/**
 * t.deepEqual for the large plain values the property tests compare, without its cost where the
 * values are equal (its own comparison was most of the time of inventory/view.test.ts and
 * plain-inventory.test.ts): `alike` answers true only when both values are arrays, plain objects,
 * Maps or Sets of the same prototype, with the same enumerable keys in the same order (no holes, no
 * symbols), holding the same values (Object.is) at every depth. Anything else answers false and
 * t.deepEqual decides, so no difference it would report goes unreported; the message is made only
 * then.
 */
import type { ExecutionContext } from 'ava';

function alike(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const proto = Object.getPrototypeOf(a) as unknown;
  if (proto !== Object.getPrototypeOf(b) || Object.getOwnPropertySymbols(a).length > 0 || Object.getOwnPropertySymbols(b).length > 0)
    return false;
  const keys = Object.keys(a);
  const others = Object.keys(b);
  if (keys.length !== others.length) return false;
  if (proto === Array.prototype) {
    const [x, y] = [a as unknown[], b as unknown[]];
    if (x.length !== y.length || keys.length !== x.length) return false; // a hole or a key besides the items
    for (let i = 0; i < x.length; i++) if (!alike(x[i], y[i])) return false;
    return true;
  }
  if (proto === Map.prototype || proto === Set.prototype) {
    if (keys.length > 0) return false;
    const x = [...(a as Iterable<unknown>)];
    const y = [...(b as Iterable<unknown>)];
    return x.length === y.length && x.every((v, i) => alike(v, y[i]));
  }
  if (proto !== Object.prototype && proto !== null) return false;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (k !== others[i] || !alike((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** t.deepEqual, its message made only when the values differ. */
export function sameValue<T>(t: ExecutionContext, actual: T, expected: T, message: () => string): void {
  if (alike(actual, expected)) t.pass();
  else t.deepEqual(actual, expected, message());
}
