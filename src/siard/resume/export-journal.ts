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
import type { PackageCut } from '../package-cut.js';
import type { FingerprintState } from '../fingerprint/row-hash.js';
import type { TableShape } from './table-shape.js';

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

/**
 * The table in progress at a cut (docs/resume.md): what a resumed run needs to go on after the
 * row of `key` without reading the rows before it again. Written once the bytes before the cut
 * are durable; the LOB lines before it are exactly those of the rows before the cut.
 */
export interface BatchLine {
  schema: number;
  table: number;
  qualifiedName: string;
  /** the key of the last row before the cut, as the source gave it (text) */
  key: string;
  /** the table's columns and keys as the catalogue gave them (a resumed run refuses a table whose shape changed) */
  shape?: TableShape;
  /** the table's types were settled before these rows (a provisional table written again) */
  settled: boolean;
  /** those types as the source gave them (DatabaseSource.settledTypes), to settle the table again without a scan */
  settledTypes?: unknown;
  cut: PackageCut;
  stats: { rows: number; lobs: number; externalLobs: number; lobBytes: number; externalColumns: number[] };
  arrayUse: Array<[string, number]>;
  fingerprint?: FingerprintState;
  catalogRows?: number;
  /** the LOB layout's counters at the cut */
  layout: unknown;
  /** LOB lines since the previous table line: their number and the SHA-256 of their bytes */
  lobs: { count: number; sha256: string };
}

/** The LOB lines journaled when a cut was made: a batch line is written after exactly these. */
export interface LobMark {
  count: number;
  sha256: string;
}

/**
 * A LOB file as journaled: path relative to the sink, size, LOB digest (hex), and the sink's other
 * digests of it when it computes more (an ingest's manifest and fixity digests; absent in journals
 * of an export, and of earlier versions): a resumed run then computes one digest to prove them all.
 */
export type LobLine = [relPath: string, size: number, digest: string, also?: Record<string, string>];

/** What a journal holds up to its last whole table line. */
export interface JournalContents {
  header: JournalHeader;
  tables: TableLine[];
  /** bytes of the journal up to the end of the last table line (or the header) */
  validLength: number;
  /** LOB files of the finished tables (and of the table in progress before its last cut) */
  lobFiles: number;
  /** the table in progress at its last cut, when the journal has one after its last table line */
  progress?: BatchLine;
  /** the LOB lines after the last table line up to the end, their number and running SHA-256 */
  lobsSinceTable?: { count: number; hash: Hash };
}

/** Appends to a journal. Not safe for two writers; one export owns its staging folder. */
export class JournalWriter {
  private pending: string[] = [];
  private pendingBytes = 0;
  private lobCount = 0;
  private lobHash: Hash = createHash('sha256');
  /** LOB lines since the table line already handed to the file */
  private lobWritten = 0;
  /** cuts whose batch line is not written yet: LOB lines after the first are held back until it is */
  private marks: LobMark[] = [];

  private constructor(
    private readonly fd: number,
    since?: { count: number; hash: Hash },
  ) {
    if (since) {
      this.lobCount = since.count;
      this.lobWritten = since.count;
      this.lobHash = since.hash;
    }
  }

  /** A new journal at `file` (which must not exist), its header durable. */
  static create(file: string, header: JournalHeader): JournalWriter {
    const fd = openSync(file, 'wx');
    const w = new JournalWriter(fd);
    writeAll(fd, `${JSON.stringify(header)}\n`);
    fsyncSync(fd);
    return w;
  }

  /** The journal of interrupted work, cut back to its last table line, appended to from there. */
  static async continue(file: string, validLength: number, since?: { count: number; hash: Hash }): Promise<JournalWriter> {
    await fsp.truncate(file, validLength);
    const fd = openSync(file, 'a');
    fsyncSync(fd);
    return new JournalWriter(fd, since);
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
    this.marks = [];
    const lobs = { count: this.lobCount, sha256: this.lobHash.digest('hex') };
    this.pending.push(`${JSON.stringify({ table: { ...line, lobs } })}\n`);
    this.flush();
    fsyncSync(this.fd);
    this.lobCount = 0;
    this.lobWritten = 0;
    this.lobHash = createHash('sha256');
  }

  /** A cut in the table in progress: the LOB lines so far; the ones after it wait for its batch line. */
  mark(): LobMark {
    const mark = { count: this.lobCount, sha256: this.lobHash.copy().digest('hex') };
    this.marks.push(mark);
    return mark;
  }

  /** The batch line of the oldest cut not yet written: after its bytes are durable. Durable when it returns. */
  batch(mark: LobMark, line: Omit<BatchLine, 'lobs'>): void {
    if (this.marks[0] !== mark) throw new Error('A batch line out of the order of its cuts.');
    this.flush();
    if (this.lobWritten !== mark.count) throw new Error('The LOB lines before a cut were not all written.');
    writeAll(this.fd, `${JSON.stringify({ batch: { ...line, lobs: mark } })}\n`);
    this.marks.shift();
    this.flush();
    fsyncSync(this.fd);
  }

  /** The table in progress is written again from its first row (its types settled): its cuts so far no longer count. */
  restartTable(schema: number, table: number): void {
    this.marks = [];
    this.pending.push(`${JSON.stringify({ restart: { schema, table } })}\n`);
    this.flush();
  }

  private closed = false;

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  /** Writes the pending lines, but no LOB line after the oldest cut whose batch line is not written. */
  private flush(): void {
    if (this.pending.length === 0) return;
    const limit = this.marks[0]?.count;
    let take = this.pending.length;
    if (limit !== undefined) {
      // pending holds the LOB lines from lobWritten on (lines other than LOB lines are never held back)
      take = Math.max(0, Math.min(take, limit - this.lobWritten));
      if (take === 0) return;
    }
    const lines = this.pending.splice(0, take);
    writeAll(this.fd, lines.join(''));
    this.lobWritten += lines.filter((l) => l.startsWith('{"lob"')).length;
    this.pendingBytes = this.pending.reduce((n, l) => n + l.length, 0);
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
  let progress: { line: BatchLine; endsAt: number; hash: Hash } | undefined;
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
      progress = undefined;
    } else if (value.batch && typeof value.batch === 'object') {
      const line = value.batch as BatchLine;
      if (line.lobs.count !== count || line.lobs.sha256 !== hash.copy().digest('hex')) return undefined;
      progress = { line, endsAt, hash: hash.copy() };
    } else if (value.restart && typeof value.restart === 'object') progress = undefined;
    else return undefined;
  }
  if (!header) return undefined;
  if (!progress) return { header, tables, validLength, lobFiles };
  const { line, endsAt } = progress;
  return {
    header,
    tables,
    validLength: endsAt,
    lobFiles: lobFiles + line.lobs.count,
    progress: line,
    lobsSinceTable: { count: line.lobs.count, hash: progress.hash },
  };
}

/** The LOB lines of the finished tables (the journal up to `validLength`), streamed. */
export async function* journaledLobs(file: string, validLength: number): AsyncIterable<LobLine> {
  for await (const { value } of journalLines(file, validLength)) if (Array.isArray(value.lob)) yield value.lob as LobLine;
}
