/**
 * An archive cell's ARRAY or UDT value as a plain tree: the one walk behind the two forms readers
 * take of such a cell, verify's compare form (archive/verify/complex-form.ts) and the table
 * fingerprint's (fingerprint/cell-form.ts), so both normalise alike. An ARRAY is a list of its
 * elements 1 .. the highest present (null for a NULL element), a UDT an object {"u1": ..., "u3": ...}
 * of its non-NULL attributes in attribute order; any other value (text, bytes, a LOB cell) is what
 * `leaf` makes of it, given the shape its place declares (undefined where the column's shape says
 * nothing of it) and its path ('c3/u2/a1').
 */
import type { CellShape } from '../cell-shape.js';
import { isComplexValue, type SiardReadCellValue, type SiardReadComplexValue } from './types.js';

/** A value inside the tree that is not an ARRAY or a UDT, and not NULL. */
export type ComplexLeafValue = Exclude<SiardReadCellValue, null | SiardReadComplexValue>;

export type ComplexLeaf = (v: ComplexLeafValue, shape: CellShape | undefined, path: string) => unknown;

export function complexTree(v: SiardReadCellValue | undefined, shape: CellShape | undefined, path: string, leaf: ComplexLeaf): unknown {
  if (v === null || v === undefined) return null;
  if (!isComplexValue(v)) return leaf(v, shape, path);
  if (v.kind === 'array') {
    const element = shape?.kind === 'array' ? shape.element : undefined;
    const size = Math.max(0, ...v.elements.keys());
    const items: unknown[] = [];
    for (let i = 1; i <= size; i++) items.push(complexTree(v.elements.get(i), element, `${path}/a${i}`, leaf));
    return items;
  }
  const out: Record<string, unknown> = {};
  for (const i of [...v.elements.keys()].sort((a, b) => a - b)) {
    const attribute = shape?.kind === 'udt' ? shape.attributes[i - 1]?.shape : undefined;
    const item = complexTree(v.elements.get(i), attribute, `${path}/u${i}`, leaf);
    if (item !== null) out[`u${i}`] = item;
  }
  return out;
}
