/**
 * A table's fingerprint taken while the writer writes it (table-data.ts's RowObserver): each cell
 * in the form the archive holds it (cell-form.ts), given by the writer from the value the source
 * delivered, so nothing is formatted or read twice, and hashed as it comes (row-hash.ts), so no
 * row is kept.
 */
import type { CellShape } from '../cell-shape.js';
import { isSourceArray, isSourceUdt, type SourceValue } from '../database-source.js';
import { elementText, type RowObserver } from '../table-data.js';
import { complexForm } from './cell-form.js';
import { TableFingerprint } from './row-hash.js';

export class SourceFingerprint implements RowObserver {
  readonly fingerprint = new TableFingerprint();
  /** the current row's next column to hash: the writer gives cells in column order, NULLs not at all */
  private next = 0;
  /** forms of the LOBs inside the current row's ARRAY / UDT cells, by path ('c3/u2') */
  private readonly nested = new Map<string, string>();

  constructor(private readonly shapes: readonly CellShape[]) {}

  cell(i: number, form: string): void {
    this.upTo(i);
    this.fingerprint.cell(form);
  }

  zonedCell(i: number, source: string, separatorAt: number): void {
    this.upTo(i);
    this.fingerprint.zonedCell(source, separatorAt);
  }

  bytesCell(i: number, bytes: Uint8Array, start: number, end: number, n: number, escaped: boolean, tAt: number, tail: string): void {
    this.upTo(i);
    this.fingerprint.bytesCell(bytes, start, end, n, escaped, tAt, tail);
  }

  lob(path: string, form: string): void {
    const slash = path.indexOf('/');
    if (slash >= 0) this.nested.set(path, form);
    else this.cell(Number(path.slice(1)) - 1, form);
  }

  complex(i: number, v: SourceValue): void {
    this.cell(i, complexForm(this.tree(v, this.shapes[i]!, `c${i + 1}`)));
  }

  endRow(): void {
    this.upTo(this.shapes.length);
    this.fingerprint.endRow();
    this.next = 0;
    if (this.nested.size > 0) this.nested.clear();
  }

  /** The columns before `i` not given in this row are NULL; `i` is the next one. */
  private upTo(i: number): void {
    if (i < this.next) throw new Error(`fingerprint: column ${i + 1} given after column ${this.next}`);
    for (; this.next < i; this.next++) this.fingerprint.nullCell();
    this.next = i + 1;
  }

  /** The value as nested lists / objects of element forms (cell-form.ts's tree), NULL as null. */
  private tree(v: SourceValue | undefined, shape: CellShape, path: string): unknown {
    if (v === null || v === undefined) return null;
    // no element: written as <tag/>, read back as ''
    if ((isSourceArray(v) || isSourceUdt(v)) && v.elements.every((e) => e === null || e === undefined)) return '';
    if (isSourceArray(v)) {
      const element = shape.kind === 'array' ? shape.element : shape;
      return v.elements.map((e, k) => this.tree(e as SourceValue, element, `${path}/a${k + 1}`));
    }
    if (isSourceUdt(v)) {
      const out = new Map<number, unknown>();
      v.elements.forEach((e, k) => {
        const attribute = shape.kind === 'udt' ? shape.attributes[k]?.shape : undefined;
        out.set(k + 1, attribute ? this.tree(e, attribute, `${path}/u${k + 1}`) : null);
      });
      return out;
    }
    const lob = this.nested.get(path);
    if (lob !== undefined) return lob;
    return (shape.kind === 'scalar' ? elementText(v, shape.family) : undefined) ?? null;
  }
}
