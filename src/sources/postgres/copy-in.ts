/**
 * Rows into a PostgreSQL table through `COPY ... FROM STDIN` (text format), the way pg_restore
 * loads data: the server parses each field with its column type's input function, exactly as it
 * parses a `$1::type` text parameter of an INSERT, and stores rows while the restore reads on; no
 * statement is parsed or planned per batch. Rows are sent in chunks of about CHUNK_CHARS, with the
 * stream's backpressure respected. While a COPY runs the connection takes no other query.
 */
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { finished } from 'node:stream/promises';

const CHUNK_CHARS = 256 * 1024;

/** The NULL marker of COPY's text format. */
export const COPY_NULL = '\\N';

const COPY_SPECIAL = /[\\\n\r\t]/;

/** A field of COPY's text format: back-slash, newline, carriage return and tab escaped. */
export function copyField(text: string): string {
  if (!COPY_SPECIAL.test(text)) return text;
  return text.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t'));
}

/** A bytea field: hex input form, its back-slash escaped for the text format. */
export function copyBytes(bytes: Uint8Array): string {
  return '\\\\x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

export class CopyIn {
  private readonly stream: ReturnType<typeof copyFrom>;
  private readonly done: Promise<void>;
  /** rows not yet sent, as one string (appending costs less than an array of lines joined later) */
  private pending = '';
  /** rows written since the COPY began */
  rows = 0;

  constructor(client: pg.Client, qualifiedTable: string) {
    this.stream = client.query(copyFrom(`COPY ${qualifiedTable} FROM STDIN`));
    this.done = finished(this.stream);
    this.done.catch(() => {}); // surfaces in write() or end()
  }

  /** Adds one row of fields (already copyField / copyBytes / COPY_NULL); a promise only when a chunk goes out. */
  write(fields: string[]): Promise<void> | undefined {
    let line = fields.length > 0 ? fields[0]! : ''; // a table without columns has empty lines
    for (let i = 1; i < fields.length; i++) line += '\t' + fields[i]!;
    this.pending += line + '\n';
    this.rows++;
    return this.pending.length >= CHUNK_CHARS ? this.send() : undefined;
  }

  /** Sends what is left and waits until the server has stored every row (or refused one); returns the rows the server says it stored. */
  async end(): Promise<number> {
    await this.send();
    this.stream.end();
    await this.done;
    return this.stream.rowCount; // from the server's "COPY n"
  }

  /** Gives up: the server is told to fail the COPY, so the connection takes queries again. */
  async abort(reason: Error): Promise<void> {
    this.stream.destroy(reason);
    await this.done.catch(() => {});
  }

  /**
   * Adds rows already in COPY text (bytes ending in a line feed); a promise only when the stream
   * asks to wait.
   */
  writeBytes(bytes: Buffer, rows: number): Promise<void> | undefined {
    this.rows += rows;
    if (this.pending.length > 0) return this.send().then(() => this.push(bytes));
    return this.push(bytes);
  }

  private async send(): Promise<void> {
    if (this.pending.length === 0) return;
    const chunk = Buffer.from(this.pending, 'utf8');
    this.pending = '';
    await this.push(chunk);
  }

  private push(chunk: Buffer): Promise<void> | undefined {
    if (this.stream.write(chunk)) return undefined;
    // a refusal ends the stream with an error instead of 'drain'
    return Promise.race([new Promise<void>((resolve) => this.stream.once('drain', resolve)), this.done]);
  }
}
