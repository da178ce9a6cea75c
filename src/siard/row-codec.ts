/**
 * Rows handed to another thread in a compact form (table-xml-beside.ts): every string cell of a
 * batch in one joined string, numbers in a Float64Array, a tag per cell, and the rare other values
 * (bigint, bytes, a SIARD text) in a list. A structured clone of the rows as arrays would cost the
 * reading thread about as much as formatting them; this costs it a tenth of that (0.13-0.16 s
 * of main-thread CPU for the 1M rows of five columns of bench/export). Only values a row can be written with
 * without the reading thread are encoded: `fits` decides, and the rows from the first that does
 * not fit are left to the caller.
 */
import type { SourceValue } from './database-source.js';

const enum Tag {
  Null,
  String,
  Number,
  True,
  False,
  Other,
}

/** A batch of rows in compact form (its buffers transferable). */
export interface EncodedRows {
  rows: number;
  columns: number;
  tags: Uint8Array;
  /** each string cell's length, in cell order */
  lengths: Int32Array;
  strings: string;
  numbers: Float64Array;
  others: SourceValue[];
}

/**
 * The rows of `batch` from `from` on, up to (not including) the first row with a cell `fits`
 * refuses; `rows` 0 when the first row is refused.
 */
export function encodeRows(
  batch: readonly SourceValue[][],
  from: number,
  columns: number,
  fits: (value: SourceValue, column: number) => boolean,
  joined: string[],
): EncodedRows {
  const count = batch.length - from;
  const tags = new Uint8Array(count * columns);
  const lengths = new Int32Array(count * columns);
  const numbers = new Float64Array(count * columns);
  const others: SourceValue[] = [];
  let strings = 0;
  let rows = 0;
  let cell = 0;
  rows: for (let r = from; r < batch.length; r++) {
    const row = batch[r]!;
    const start = cell;
    const stringsBefore = strings;
    const othersBefore = others.length;
    for (let i = 0; i < columns; i++, cell++) {
      const v = row[i] ?? null;
      if (v === null) continue; // Tag.Null is 0
      if (!fits(v, i)) {
        // the row is left out whole: undo what its cells added
        cell = start;
        strings = stringsBefore;
        others.length = othersBefore;
        tags.fill(0, start, start + columns);
        break rows;
      }
      if (typeof v === 'string') {
        tags[cell] = Tag.String;
        lengths[strings] = v.length;
        joined[strings++] = v;
      } else if (typeof v === 'number') {
        tags[cell] = Tag.Number;
        numbers[cell] = v;
      } else if (v === true) tags[cell] = Tag.True;
      else if (v === false) tags[cell] = Tag.False;
      else {
        tags[cell] = Tag.Other;
        others.push(v);
      }
    }
    rows++;
  }
  joined.length = strings;
  const text = joined.join('');
  joined.length = 0;
  return { rows, columns, tags: tags.subarray(0, cell), lengths: lengths.subarray(0, strings), strings: text, numbers, others };
}

/** The rows of an EncodedRows, each cell the value encodeRows was given. */
export function decodeRows(e: EncodedRows): SourceValue[][] {
  const out: SourceValue[][] = new Array(e.rows);
  const { tags, lengths, strings, numbers, others, columns } = e;
  let at = 0;
  let s = 0;
  let o = 0;
  for (let r = 0, cell = 0; r < e.rows; r++) {
    const row: SourceValue[] = new Array(columns);
    for (let i = 0; i < columns; i++, cell++) {
      switch (tags[cell] as Tag) {
        case Tag.Null:
          row[i] = null;
          break;
        case Tag.String: {
          const end = at + lengths[s++]!;
          row[i] = strings.slice(at, end);
          at = end;
          break;
        }
        case Tag.Number:
          row[i] = numbers[cell]!;
          break;
        case Tag.True:
          row[i] = true;
          break;
        case Tag.False:
          row[i] = false;
          break;
        case Tag.Other:
          row[i] = others[o++]!;
          break;
      }
    }
    out[r] = row;
  }
  return out;
}

/** The buffers of `e` to transfer rather than copy. */
export function transferables(e: EncodedRows): ArrayBuffer[] {
  return [e.tags.buffer as ArrayBuffer, e.lengths.buffer as ArrayBuffer, e.numbers.buffer as ArrayBuffer];
}
