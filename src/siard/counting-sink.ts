/** An OutputSink that reports every byte written through it: progress for export and ingest. */
import type { OpenFileOptions, OutputFile, OutputSink } from './output-sink.js';

export function countingSink(inner: OutputSink, onBytes: (bytes: number) => void): OutputSink {
  return {
    async openFile(relPath: string, options?: OpenFileOptions): Promise<OutputFile> {
      const file = await inner.openFile(relPath, options);
      return {
        async write(chunk) {
          await file.write(chunk);
          onBytes(chunk.byteLength);
        },
        close: () => file.close(),
        abort: () => file.abort(),
        ...(file.renameTo ? { renameTo: (relPath: string) => file.renameTo!(relPath) } : {}),
        ...(file.sync ? { sync: () => file.sync!() } : {}),
      };
    },
    commit: () => inner.commit(),
    abort: () => inner.abort(),
    ...(inner.scratchDir !== undefined ? { scratchDir: inner.scratchDir } : {}),
    ...(inner.resumable !== undefined ? { resumable: inner.resumable } : {}),
    ...(inner.concurrentFiles ? { concurrentFiles: true } : {}),
  };
}
