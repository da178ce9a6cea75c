/**
 * The ledger of a sink's files (docs/resume.md, "Ingest"): one JSON line per file closed or
 * adopted, with its size and every digest computed while it was written, so that a caller can
 * take the finished files elsewhere (an ingest links them into a staged OCFL version) with the
 * digests of that same pass instead of reading every byte again. Not made durable: each run of a
 * resumable export writes it anew (the kept files are adopted, and so hashed again, every run).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { journalLines } from './export-journal.js';

/** A file as the ledger lists it (the sink's WrittenFile: path relative to the sink, size, digests by algorithm). */
interface LedgerFile {
  relPath: string;
  size: number;
  digests: Record<string, string>;
}

export class FileLedger {
  private pending: string[] = [];
  private pendingBytes = 0;
  private fd: number | undefined;

  /** A new ledger at `file`, replacing one an earlier run left. */
  constructor(readonly file: string) {}

  add(written: LedgerFile): void {
    const text = `${JSON.stringify([written.relPath, written.size, written.digests])}\n`;
    this.pending.push(text);
    this.pendingBytes += text.length;
    if (this.pendingBytes >= 1 << 20) this.flush();
  }

  /** Every line written to the file; the ledger is closed. */
  close(): void {
    this.flush();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private flush(): void {
    this.fd ??= openSync(this.file, 'w');
    const bytes = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.pendingBytes = 0;
    for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done);
  }
}

/** The files a ledger lists, streamed, in the order they were closed. */
export async function* ledgerFiles(file: string): AsyncIterable<LedgerFile> {
  for await (const { value } of journalLines(file)) {
    const [relPath, size, digests] = value as unknown as [string, number, Record<string, string>];
    yield { relPath, size, digests };
  }
}
