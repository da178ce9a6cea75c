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
          row.push(field === '\\N' ? null : unescapeField(field));
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
function unescapeField(field: string): string {
  return field.replace(/\\(.)/gs, (sequence, c: string) => {
    const plain = ESCAPED[c];
    if (plain === undefined) throw new Error(`COPY sent the unknown sequence ${JSON.stringify(sequence)}.`);
    return plain;
  });
}
