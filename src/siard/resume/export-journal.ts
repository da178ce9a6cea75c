/**
 * The journal of a resumable export (docs/resume.md): JSON lines, appended. The first line says
 * what the work is; a `lob` line is appended as each LOB file closes; a `table` line ends a table
 * and is written only after the table's bytes were made durable, then the journal is fsynced. A
 * table line carries the number and SHA-256 of the LOB lines since the previous one, so a reader
 * can tell a whole journal from a damaged one; what follows the last table line (the table in
 * progress, a torn line) is not part of the resumable work and is cut off when the work resumes.
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, promises as fsp, writeSync } from 'node:fs';
import type { SiardTable } from '../model.js';
import type { TableFingerprintEntry } from '../fingerprint/fingerprint-file.js';
import type { ZipCheckpoint } from '../zip/writer.js';

export const JOURNAL_FORMAT = 1;

export interface JournalHeader {
  format: typeof JOURNAL_FORMAT;
  /** SHA-256 of the source's description and every option that shapes the bytes */
  key: string;
  /** the archive name */
  name: string;
  /** the archival day of the first run, YYYY-MM-DD (the resumed archive keeps it) */
  archivalDay: string;
  /** the source, for the sentence that clears work of another source */
  source: string;
}

/** One finished table: what the writer needs to go on after it without reading it again. */
export interface TableLine {
  schema: number;
  table: number;
  /** "schema.table", for messages */
  qualifiedName: string;
  /** the table's metadata as written (metadata.xml) */
  written: SiardTable;
  fingerprint?: TableFingerprintEntry;
  stats: { rows: number; externalLobs: number; lobBytes: number };
  /** the row count the source's catalogue gave, when exact (a resume refuses a table whose count changed) */
  catalogRows?: number;
  /** the table's first and last key as the source gave them after writing it (DatabaseSource.keyRange) */
  keyRange?: string;
  /** the .siard after the table (entries: those the table added) */
  zip: ZipCheckpoint;
  /** the LOB layout's counters after the table (lob-placement.ts) */
  layout: unknown;
  /** LOB lines since the previous table line: their number and the SHA-256 of their bytes */
  lobs: { count: number; sha256: string };
}

/** A LOB file as journaled: path relative to the sink, size, LOB digest (hex). */
export type LobLine = [relPath: string, size: number, digest: string];

/** What a journal holds up to its last whole table line. */
export interface JournalContents {
  header: JournalHeader;
  tables: TableLine[];
  /** bytes of the journal up to the end of the last table line (or the header) */
  validLength: number;
  /** LOB files of the finished tables */
  lobFiles: number;
}

/** Appends to a journal. Not safe for two writers; one export owns its staging folder. */
export class JournalWriter {
  private pending: string[] = [];
  private pendingBytes = 0;
  private lobCount = 0;
  private lobHash: Hash = createHash('sha256');

  private constructor(private readonly fd: number) {}

  /** A new journal at `file` (which must not exist), its header durable. */
  static create(file: string, header: JournalHeader): JournalWriter {
    const fd = openSync(file, 'wx');
    const w = new JournalWriter(fd);
    writeAll(fd, `${JSON.stringify(header)}\n`);
    fsyncSync(fd);
    return w;
  }

  /** The journal of interrupted work, cut back to its last table line, appended to from there. */
  static async continue(file: string, validLength: number): Promise<JournalWriter> {
    await fsp.truncate(file, validLength);
    const fd = openSync(file, 'a');
    fsyncSync(fd);
    return new JournalWriter(fd);
  }

  lob(line: LobLine): void {
    const text = `${JSON.stringify({ lob: line })}\n`;
    this.lobHash.update(text);
    this.lobCount++;
    this.pending.push(text);
    this.pendingBytes += text.length;
    if (this.pendingBytes >= 1 << 20) this.flush();
  }

  /** Ends a table: call it after the table's bytes are durable. The line is durable when it returns. */
  table(line: Omit<TableLine, 'lobs'>): void {
    const lobs = { count: this.lobCount, sha256: this.lobHash.digest('hex') };
    this.lobCount = 0;
    this.lobHash = createHash('sha256');
    this.pending.push(`${JSON.stringify({ table: { ...line, lobs } })}\n`);
    this.flush();
    fsyncSync(this.fd);
  }

  private closed = false;

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    writeAll(this.fd, this.pending.join(''));
    this.pending = [];
    this.pendingBytes = 0;
  }
}

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

/** The journal's lines with the byte offset after each, a torn or unreadable line ending them. */
export async function* journalLines(
  file: string,
  end = Infinity,
): AsyncIterable<{ value: Record<string, unknown>; text: string; endsAt: number }> {
  const handle = await fsp.open(file, 'r');
  try {
    let carry = Buffer.alloc(0);
    let position = 0;
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, end - position), position);
      if (bytesRead === 0) return;
      const start = position - carry.length;
      position += bytesRead;
      const data = Buffer.concat([carry, buffer.subarray(0, bytesRead)]);
      let from = 0;
      for (let nl = data.indexOf(10, from); nl >= 0; nl = data.indexOf(10, from)) {
        const text = data.subarray(from, nl + 1).toString('utf8');
        let value: Record<string, unknown>;
        try {
          value = JSON.parse(text) as Record<string, unknown>;
        } catch {
          return;
        }
        from = nl + 1;
        yield { value, text, endsAt: start + from };
      }
      carry = Buffer.from(data.subarray(from));
    }
  } finally {
    await handle.close();
  }
}

/**
 * A journal read up to its last whole table line; undefined when it has no readable header, or
 * when a table line's LOB count or digest disagrees with the LOB lines before it (damaged).
 */
export async function readJournal(file: string): Promise<JournalContents | undefined> {
  let header: JournalHeader | undefined;
  const tables: TableLine[] = [];
  let validLength = 0;
  let lobFiles = 0;
  let count = 0;
  let hash = createHash('sha256');
  for await (const { value, text, endsAt } of journalLines(file)) {
    if (!header) {
      if (value.format !== JOURNAL_FORMAT || typeof value.key !== 'string') return undefined;
      header = value as unknown as JournalHeader;
      validLength = endsAt;
    } else if (Array.isArray(value.lob)) {
      hash.update(text);
      count++;
    } else if (value.table && typeof value.table === 'object') {
      const line = value.table as TableLine;
      if (line.lobs.count !== count || line.lobs.sha256 !== hash.digest('hex')) return undefined;
      tables.push(line);
      lobFiles += count;
      validLength = endsAt;
      count = 0;
      hash = createHash('sha256');
    } else return undefined;
  }
  return header && { header, tables, validLength, lobFiles };
}

/** The LOB lines of the finished tables (the journal up to `validLength`), streamed. */
export async function* journaledLobs(file: string, validLength: number): AsyncIterable<LobLine> {
  for await (const { value } of journalLines(file, validLength)) if (Array.isArray(value.lob)) yield value.lob as LobLine;
}
