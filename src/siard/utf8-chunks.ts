/**
 * Text gathered as UTF-8 into Buffers of about `size` bytes, each piece encoded straight into the
 * current Buffer. Appending to one long string instead builds a rope of every piece, and encoding
 * that rope (Buffer.from) walks all its nodes: for narrow rows, a third of the export's main thread.
 */
export class Utf8Chunks {
  /** the current Buffer and where its next byte goes: a caller may write there after room() */
  buf: Buffer;
  pos = 0;
  private readonly ready: Buffer[] = [];

  constructor(private readonly size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Appends `text`: its characters (UTF-16 code units) are returned. */
  append(text: string): number {
    // n UTF-16 code units take at most 3n bytes: only a piece near the end needs its exact length
    if (this.pos + 3 * text.length > this.size) {
      const bytes = Buffer.byteLength(text, 'utf8');
      if (this.pos + bytes > this.size) {
        this.seal();
        if (bytes > this.size) {
          this.ready.push(Buffer.from(text, 'utf8'));
          return text.length;
        }
      }
    }
    this.pos += this.buf.write(text, this.pos, 'utf8');
    return text.length;
  }

  /** At least `n` bytes free in `buf` from `pos` (n up to the chunk size): the caller writes them and moves `pos`. */
  room(n: number): Buffer {
    if (this.pos + n > this.size) this.seal();
    return this.buf;
  }

  /** ASCII `text` (a few characters: a loop costs less than the encoder's call); its length returned. */
  ascii(text: string): number {
    const buf = this.room(text.length);
    let pos = this.pos;
    for (let k = 0; k < text.length; k++) buf[pos++] = text.charCodeAt(k);
    this.pos = pos;
    return text.length;
  }

  /** The chunks filled so far (the current one too once it holds `min` bytes); they are the caller's from now on. */
  take(min = this.size): Buffer[] {
    if (this.pos >= min) this.seal();
    return this.ready.splice(0);
  }

  private seal(): void {
    if (this.pos === 0) return;
    this.ready.push(this.buf.subarray(0, this.pos));
    this.buf = Buffer.allocUnsafe(this.size);
    this.pos = 0;
  }
}
