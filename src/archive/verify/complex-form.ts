/**
 * The canonical form of an ARRAY or UDT value: JSON of its elements' canonical forms (canonical.ts),
 * an ARRAY as a list (null for a NULL element), a UDT as an object of its non-NULL attributes
 * {"u1": ..., "u3": ...}; nested values nest. A LOB inside is looked up by its path ('c3/u2'),
 * read by the caller. The same JSON from a source's value and from the archive's cell (whose tree
 * is siard/reader/complex-tree.ts, the walk the table fingerprint's form shares).
 */
import type { CellShape } from '../../siard/cell-shape.js';
import { isSourceArray, isSourceUdt, type SourceValue } from '../../siard/database-source.js';
import { complexTree, type ComplexLeaf } from '../../siard/reader/complex-tree.js';
import type { SiardReadCellValue } from '../../siard/reader/types.js';
import { canonBytes, canonColumn, canonLexical, canonSource, canonText } from './compare-form.js';

const TEXT: CellShape = { kind: 'scalar', type: 'CLOB', family: 'clob' };

/** Canonical LOBs of a row by path, as the caller read them. */
export type LobAt = (path: string) => string | undefined;

function missingLob(path: string): Error {
  return new Error(`The canonical form of cell ${path} needs a LOB that was not read.`);
}

/** A source's ARRAY / UDT value (path: 'c3'). */
export function complexSourceCanon(v: SourceValue, shape: CellShape, path: string, lobAt: LobAt): string | null {
  if (v === null) return null;
  return canonText(JSON.stringify(sourceTree(v, shape, path, lobAt)));
}

function sourceTree(v: SourceValue | undefined, shape: CellShape, path: string, lobAt: LobAt): unknown {
  if (v === null || v === undefined) return null;
  if (isSourceArray(v)) {
    const element = shape.kind === 'array' ? shape.element : TEXT;
    return v.elements.map((e, k) => sourceTree(e as SourceValue, element, `${path}/a${k + 1}`, lobAt));
  }
  if (isSourceUdt(v)) {
    const out: Record<string, unknown> = {};
    v.elements.forEach((e, k) => {
      const item = sourceTree(e, shape.kind === 'udt' ? (shape.attributes[k]?.shape ?? TEXT) : TEXT, `${path}/u${k + 1}`, lobAt);
      if (item !== null) out[`u${k + 1}`] = item;
    });
    return out;
  }
  const canon = canonSource(v, canonColumn(shape.kind === 'scalar' ? shape : TEXT));
  if (canon !== undefined) return canon;
  const seen = lobAt(path);
  if (seen === undefined) throw missingLob(path);
  return seen;
}

/** The archive's ARRAY / UDT cell (path: 'c3'), its LOB cells looked up by path; an empty ARRAY cell (<c3/>) reads as '' or no bytes. */
export function complexArchiveCanon(v: SiardReadCellValue, shape: CellShape, path: string, lobAt: LobAt): string {
  if (typeof v === 'string' || v instanceof Uint8Array) return v.length === 0 && shape.kind === 'array' ? '[]' : canonText(String(v));
  return canonText(JSON.stringify(complexTree(v, shape, path, canonLeaf(lobAt))));
}

/** Each leaf of the archive's tree (siard/reader/complex-tree.ts) in compare form. */
function canonLeaf(lobAt: LobAt): ComplexLeaf {
  return (v, shape, path) => {
    if (typeof v === 'string') return canonLexical(v, canonColumn(shape?.kind === 'scalar' ? shape : TEXT));
    if (v instanceof Uint8Array) return canonBytes(v);
    const seen = lobAt(path);
    if (seen === undefined) throw missingLob(path);
    return seen;
  };
}
