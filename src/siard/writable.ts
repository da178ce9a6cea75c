/** A Writable over anything with a promise-returning write, for the streams (ZIP writer, pipelines) that need one. */
import { Writable } from 'node:stream';

export function writableOf(file: { write(chunk: Uint8Array): Promise<void> }): Writable {
  return new Writable({
    highWaterMark: 1 << 20,
    write(chunk: Buffer, _enc, cb) {
      file.write(chunk).then(() => cb(), cb);
    },
  });
}
