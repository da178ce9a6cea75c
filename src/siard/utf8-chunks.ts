/**
 * Text gathered as UTF-8 into Buffers of about `size` bytes, each piece encoded straight into the
 * current Buffer. Appending to one long string instead builds a rope of every piece, and encoding
 * that rope (Buffer.from) walks all its nodes: for narrow rows, a third of the export's main thread.
 */
export class Utf8Chunks {
  private buf: Buffer;
  private pos = 0;
  private readonly ready: Buffer[] = [];

  constructor(private readonly size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  append(text: string): void {
    // n UTF-16 code units take at most 3n bytes: only a piece near the end needs its exact length
    if (this.pos + 3 * text.length > this.size) {
      const bytes = Buffer.byteLength(text, 'utf8');
      if (this.pos + bytes > this.size) {
        this.seal();
        if (bytes > this.size) {
          this.ready.push(Buffer.from(text, 'utf8'));
          return;
        }
      }
    }
    this.pos += this.buf.write(text, this.pos, 'utf8');
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
