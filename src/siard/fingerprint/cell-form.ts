/**
 * The form in which a table fingerprint (row-hash.ts) sees a cell: the cell as the archive holds
 * it, whoever reads it. The writer gives it from the source's value (source-fingerprint.ts), the
 * audit and verify from the archive (here), and the two must agree:
 * - a scalar or an inline LOB: its text as a reader gets it back (unescaped), bytes as lower-case hex;
 * - a LOB in a file: '#' and the SHA-256 of its bytes;
 * - an ARRAY or UDT: JSON of its elements' forms, an ARRAY as a list (null for a NULL element), a
 *   UDT as {"u1": ...} of its non-NULL attributes; one without elements (`<c3/>`, at any depth) as ''.
 */
import { complexTree } from '../reader/complex-tree.js';
import type { SiardReadCellValue } from '../reader/types.js';

/** An ARRAY's elements as a list, a UDT's as a map from attribute number, scalars as forms: the cell's form. */
export function complexForm(tree: unknown): string {
  if (tree === '') return '';
  const json = treeJson(tree);
  return json === '[]' || json === '{}' ? '' : json;
}

function treeJson(tree: unknown): string {
  return JSON.stringify(tree, (_key, value: unknown) => {
    if (value instanceof Map) {
      const out: Record<string, unknown> = {};
      for (const k of [...(value as Map<number, unknown>).keys()].sort((a, b) => a - b)) {
        const item = (value as Map<number, unknown>).get(k);
        if (item !== null && item !== undefined) out[`u${k}`] = item;
      }
      return out;
    }
    return value;
  });
}

/**
 * A cell as the SIARD reader gives it, in fingerprint form (an ARRAY or UDT through the walk verify's
 * compare form shares, reader/complex-tree.ts); `lobForm` gives a LOB file's ('#' and
 * its SHA-256, from the cell's digest or the bytes), or undefined when it cannot be known.
 */
export function readCellForm(
  value: SiardReadCellValue,
  path: string,
  lobForm: (path: string) => string | undefined,
): string | null | undefined {
  if (value === null) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
  if ('elements' in value) {
    let unknown = false;
    const tree = complexTree(value, undefined, path, (v, _shape, p) => {
      if (typeof v === 'string') return v;
      if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
      const form = lobForm(p);
      if (form === undefined) unknown = true;
      return form ?? null;
    });
    return unknown ? undefined : complexForm(tree);
  }
  return lobForm(path);
}
