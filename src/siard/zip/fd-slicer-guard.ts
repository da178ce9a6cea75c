/**
 * A guard over yauzl's vendored fd-slicer (yauzl 3.4.0, the newest): its read streams share one
 * file descriptor and take turns (one read at a time, queued); a stream destroyed while its read
 * waits in that queue has already dropped its file (`context` null), and the queued read then
 * throws an uncaught TypeError ("Cannot read properties of null (reading 'fd')") that ends the
 * process. The reading room meets it whenever two readers share an archive and one stops early
 * (a page of rows read while a table's access copy is built, two people browsing). The read below
 * is fd-slicer's own, but a stream found destroyed at its turn reads nothing.
 */
import { read } from 'node:fs';
// Imported, not required at run time: the command line's bundle (scripts/bundle-cli.mjs) carries
// yauzl, and only an import makes the guarded class the one bundled with it (a createRequire
// found node_modules' copy, and the bundle's streams went unguarded: serve ended on that TypeError).
import { FdSlicer } from 'yauzl/fd-slicer.js';

interface Context {
  fd: number;
  pend: { go(fn: (done: () => void) => void): void };
}

interface SliceStream {
  context: Context | null;
  pos: number;
  endOffset?: number;
  _readableState: { highWaterMark: number };
  push(chunk: Buffer | null): boolean;
  destroy(err?: Error): void;
  _cleanup(): void;
}

const proto = Object.getPrototypeOf(new FdSlicer(-1).createReadStream({})) as { _read(n: number): void };

proto._read = function guardedRead(this: SliceStream, n: number): void {
  let toRead = Math.min(this._readableState.highWaterMark, n);
  if (this.endOffset != null) toRead = Math.min(toRead, this.endOffset - this.pos);
  if (toRead <= 0) {
    this.push(null);
    this._cleanup();
    return;
  }
  this.context!.pend.go((done) => {
    const context = this.context;
    // Destroyed while waiting for its turn: its file may be gone; nothing is read.
    if (context === null) return done();
    const buffer = Buffer.allocUnsafe(toRead);
    read(context.fd, buffer, 0, toRead, this.pos, (err, bytesRead) => {
      if (err) this.destroy(err);
      else if (bytesRead === 0) {
        this.push(null);
        this._cleanup();
      } else {
        this.pos += bytesRead;
        this.push(buffer.subarray(0, bytesRead));
      }
      done();
    });
  });
};
