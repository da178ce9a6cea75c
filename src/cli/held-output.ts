/**
 * A verb's output held back until the verb has succeeded: in memory up to HELD_IN_MEMORY characters,
 * then in a temporary file, so a diff of millions of changed rows stays memory bounded. A failure
 * after half the output was made then leaves nothing of it on stdout, and with --json the error
 * document alone (common.ts printJsonError): a script reads one whole JSON document or the error,
 * never the head of one followed by another.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';

const HELD_IN_MEMORY = 1 << 20;
const READ_CHUNK = 1 << 20;

export class HeldOutput {
  private text = '';
  private file: { dir: string; fd: number } | undefined;

  /** `scratchDir`: where the temporary file goes (default: the system's temporary folder). */
  constructor(private readonly scratchDir = os.tmpdir()) {}

  put(s: string): void {
    this.text += s;
    if (this.text.length >= HELD_IN_MEMORY) this.spill();
  }

  /** Writes everything held to stdout, then forgets it. */
  async emit(): Promise<void> {
    try {
      if (!this.file) {
        if (this.text) await write(Buffer.from(this.text, 'utf8'));
        return;
      }
      this.spill();
      const buffer = Buffer.allocUnsafe(READ_CHUNK);
      for (let at = 0, n; (n = readSync(this.file.fd, buffer, 0, READ_CHUNK, at)) > 0; at += n)
        await write(Buffer.from(buffer.subarray(0, n)));
    } finally {
      this.discard();
    }
  }

  /** Forgets everything held, nothing written (the verb failed). */
  discard(): void {
    this.text = '';
    if (!this.file) return;
    closeSync(this.file.fd);
    rmSync(this.file.dir, { recursive: true, force: true });
    this.file = undefined;
  }

  private spill(): void {
    if (!this.file) {
      const dir = mkdtempSync(path.join(this.scratchDir, 'siard-ocfl-output-'));
      this.file = { dir, fd: openSync(path.join(dir, 'output'), 'w+') };
    }
    const bytes = Buffer.from(this.text, 'utf8');
    for (let at = 0; at < bytes.length;) at += writeSync(this.file.fd, bytes, at);
    this.text = '';
  }
}

/** One piece to stdout, waiting while the reader is behind (a pipe). */
async function write(piece: Buffer): Promise<void> {
  if (!process.stdout.write(piece)) await once(process.stdout, 'drain');
}
