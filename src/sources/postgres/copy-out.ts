/**
 * A query's rows through `COPY (query) TO STDOUT` in text format, read in batches as a cursor's
 * are (`read(n)`), for the rows of a table: the server streams them with no round trip per batch
 * and each field is the text its type's output function gives, the text a cursor with raw types
 * gets. COPY's text format escapes only what would break its lines and fields (back-slash, tab,
 * newline, carriage return, backspace, form feed, vertical tab: each as a back-slash sequence)
 * and writes NULL as `\N`; both are undone here, so a field is the server's text exactly.
 * Memory: the stream's buffer and the rows parsed ahead of `read` (one chunk's worth); the socket
 * is paused while nobody reads.
 */
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { StringDecoder } from 'node:string_decoder';

export class CopyOutRows {
  private readonly stream: ReturnType<typeof copyTo>;
  private readonly chunks: AsyncIterator<Buffer>;
  private readonly decoder = new StringDecoder('utf8');
  /** the text after the last whole line so far */
  private rest = '';
  /** rows parsed and not yet read */
  private rows: Array<Array<string | null>> = [];
  private ended = false;
  /** readTexts' rows parsed and not yet read */
  private lines: CopyLines | undefined;

  /** `cancel` stops the COPY on the server when the rows are not read to the end (close). */
  constructor(
    client: pg.Client,
    query: string,
    private readonly cancel: () => Promise<void>,
  ) {
    this.stream = client.query(copyTo(`COPY (${query}) TO STDOUT`));
    this.chunks = this.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  }

  /** Up to `max` rows (fewer only at the end; none once every row was read), each field its text or null. */
  async read(max: number): Promise<Array<Array<string | null>>> {
    while (this.rows.length < max && !this.ended) {
      const next = await this.chunks.next();
      if (next.done) {
        this.ended = true;
        if (this.rest + this.decoder.end() !== '') throw new Error('COPY ended inside a row.');
      } else this.parse(this.rest + this.decoder.write(next.value));
    }
    if (this.rows.length <= max) {
      const all = this.rows;
      this.rows = [];
      return all;
    }
    return this.rows.splice(0, max);
  }

  /**
   * Up to `max` rows of `fields` fields each as their bytes, not decoded (CopyTextRows; fewer only
   * at the end; none once every row was read). Not to be mixed with read().
   */
  async readTexts(max: number, fields: number): Promise<CopyTextRows> {
    const lines = this.lines ?? (this.lines = new CopyLines(fields));
    while (lines.count < max && !this.ended) {
      const next = await this.chunks.next();
      if (next.done) {
        this.ended = true;
        if (lines.rest.length > 0) throw new Error('COPY ended inside a row.');
      } else lines.parse(next.value);
    }
    return lines.take(max);
  }

  /** Stops reading: a COPY still running is cancelled on the server (its transaction then aborted). */
  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.cancel();
    // the stream ends with the server's error for the cancelled statement
    while (!(await this.chunks.next().catch(() => ({ done: true }))).done);
  }

  /** The whole lines of `text` as rows; what follows the last line is kept for the next chunk. */
  private parse(text: string): void {
    let start = 0;
    let escape = text.indexOf('\\');
    for (;;) {
      const end = text.indexOf('\n', start);
      if (end < 0) break;
      const row: Array<string | null> = [];
      let from = start;
      for (;;) {
        const tab = text.indexOf('\t', from);
        const stop = tab < 0 || tab > end ? end : tab;
        if (escape >= 0 && escape < stop) {
          const field = text.slice(from, stop);
          row.push(field === '\\N' ? null : unescapeCopyField(field));
          escape = text.indexOf('\\', stop);
        } else row.push(text.slice(from, stop));
        if (stop === end) break;
        from = stop + 1;
      }
      this.rows.push(row);
      start = end + 1;
    }
    this.rest = start === 0 ? text : text.slice(start);
  }
}

/** The characters COPY's text format writes as a back-slash and a letter. */
const ESCAPED: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

/** A field with back-slash sequences as the value's text (COPY TO writes no octal or hex sequences). */
export function unescapeCopyField(field: string): string {
  return field.replace(/\\(.)/gs, (sequence, c: string) => {
    const plain = ESCAPED[c];
    if (plain === undefined) throw new Error(`COPY sent the unknown sequence ${JSON.stringify(sequence)}.`);
    return plain;
  });
}

/**
 * Rows of COPY text as bytes: row r's line in bytes[r], field f of it at [bounds[2 * (r * fields +
 * f)], bounds[... + 1]), the start -1 for NULL (`\N`); a field's back-slash pairs are not undone.
 */
export interface CopyTextRows {
  count: number;
  bytes: Buffer[];
  bounds: Int32Array;
}

/** The whole lines of COPY's chunks, as CopyTextRows (no string made: issue 39). */
class CopyLines {
  count = 0;
  /** the bytes after the last whole line so far */
  rest: Buffer = Buffer.alloc(0);
  private bytes: Buffer[] = [];
  /** the rows' field bounds, 2 * fields a row, `count` rows from 0 */
  private bounds = new Int32Array(1 << 16);

  constructor(private readonly fields: number) {}

  parse(chunk: Buffer): void {
    if (this.rest.length === 0) return this.lines(chunk);
    // a line begun in the chunks before: it alone is copied whole, the rest of this chunk is not
    const end = chunk.indexOf(0x0a);
    if (end < 0) {
      this.rest = Buffer.concat([this.rest, chunk]);
      return;
    }
    this.lines(Buffer.concat([this.rest, chunk.subarray(0, end + 1)]));
    this.lines(chunk.subarray(end + 1));
  }

  /** The whole lines of `buf`; what follows the last one is kept in `rest`. */
  private lines(buf: Buffer): void {
    const fields = this.fields;
    const width = 2 * fields;
    let at = this.count * width;
    let bounds = this.bounds;
    let start = 0;
    let from = 0;
    let field = 0;
    for (let p = 0; p < buf.length; p++) {
      const b = buf[p]!;
      if (b !== 0x09 && b !== 0x0a) continue;
      if (field === 0 && at + width > bounds.length) {
        const wider = new Int32Array(2 * bounds.length + width);
        wider.set(bounds);
        this.bounds = bounds = wider;
      }
      if (field === fields) throw new Error(`COPY sent a row of more than ${fields} fields.`);
      bounds[at++] = p - from === 2 && buf[from] === 0x5c && buf[from + 1] === 0x4e ? -1 : from;
      bounds[at++] = p;
      field++;
      from = p + 1;
      if (b === 0x0a) {
        if (field !== fields) throw new Error(`COPY sent a row of ${field} fields, not ${fields}.`);
        this.bytes.push(buf);
        this.count++;
        field = 0;
        start = p + 1;
      }
    }
    // the fields of the line not ended yet are parsed again with the next chunk
    this.rest = start === 0 ? buf : buf.subarray(start);
  }

  take(max: number): CopyTextRows {
    const count = Math.min(max, this.count);
    const width = 2 * this.fields;
    const out = { count, bytes: this.bytes.splice(0, count), bounds: this.bounds.slice(0, count * width) };
    this.bounds.copyWithin(0, count * width, this.count * width);
    this.count -= count;
    return out;
  }
}
