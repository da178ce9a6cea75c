/**
 * The numbers a table's complex columns (attachments, multi-valued columns) store in each row: the
 * id that the column's flat table's rows point to. mdb-reader gives no raw cell (it reads every
 * complex cell as attachments), so the table is read by mdb-reader's own Table over its definition
 * pages with those columns' type byte set to Long Integer (0x04): a complex cell is a fixed 4-byte
 * integer (mdbtools' format notes: the column's flags are always 0x07, fixed length, nullable,
 * auto-number), so the rows read are the ids, in the table's row order.
 */
import type { AccessPages } from './decrypted-pages.js';
import { definitionPages, definitionPlace, parseTableDefinition } from './table-definition.js';

const COMPLEX = 0x12;
const LONG = 0x04;

/** `read(offset, limit)`: rows from `offset` with each of `columns`' id (null where the cell is null). */
export type ComplexIdRead = (rowOffset: number, rowLimit: number) => Array<Record<string, number | null>>;

export function complexIdReader(pages: AccessPages, table: string, firstPage: number, columns: readonly string[]): ComplexIdRead {
  const parts = definitionPages(pages, firstPage);
  const bytes = Buffer.concat(parts.map((p, i) => (i === 0 ? p.page : p.page.subarray(8))));
  const definition = parseTableDefinition(bytes, pages.jet3);
  const replaced = new Map<number, Buffer>();
  for (const name of columns) {
    const column = definition.columns.find((c) => c.name === name);
    if (!column || column.type !== COMPLEX) throw new Error(`"${name}" is not a complex column of table "${table}"`);
    const place = definitionPlace(column.entry, pages.pageSize);
    const part = parts[place.page]!;
    const copy = replaced.get(part.number) ?? Buffer.from(part.page);
    copy[place.offset] = LONG;
    replaced.set(part.number, copy);
  }
  const reader = pages.table(table, firstPage, replaced);
  return (rowOffset, rowLimit) => reader.getData({ columns: [...columns], rowOffset, rowLimit }) as Array<Record<string, number | null>>;
}

/**
 * A number for each complex id (the parent row it is in, or how many values of it were seen): ids
 * are handed out one after another per table (its definition's complex auto-number), so an
 * Int32Array indexed by id, grown as needed, holds them in 4 bytes each.
 */
export class IdNumbers {
  private numbers = new Int32Array(1024);

  get(id: number): number {
    return id >= 0 && id < this.numbers.length ? this.numbers[id]! : 0;
  }

  set(id: number, value: number): void {
    if (id < 0 || !Number.isInteger(id)) throw new Error(`complex id ${id} is not a number Access hands out`);
    if (id >= this.numbers.length) {
      const grown = new Int32Array(Math.max(id + 1, this.numbers.length * 2));
      grown.set(this.numbers);
      this.numbers = grown;
    }
    this.numbers[id] = value;
  }

  /** one more for `id`, and the count so far */
  next(id: number): number {
    const n = this.get(id) + 1;
    this.set(id, n);
    return n;
  }
}
