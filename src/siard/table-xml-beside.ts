/**
 * A table's XML written on a second thread while this one reads the rows (issue 39): the bytes,
 * the cuts and the fingerprint of tableDataXml, the same function, run in a worker
 * (table-xml-worker.ts) on the rows handed over in compact batches (row-codec.ts), in the order
 * they were read. On two cores the source's reading and the formatting then overlap: for narrow
 * rows each is about half of what the export's main thread did.
 *
 * Only what needs nothing of this thread goes there: the rows after the first BESIDE_MIN_ROWS of a
 * table without ARRAY, UDT or DATALINK columns (formatsWithoutFiles), its LOB values inline. From the
 * first row with a value that is not (a LOB for a file: the LOB writer is this thread's), the
 * worker is told to stop where it is, and the rest of the table is written here, going on with
 * the worker's stats, fingerprint and characters since the last cut, so the cuts fall where one
 * thread would have put them and the bytes are those of tableDataXml alone. A cut's state
 * (ctx.cutState) is taken here when the worker reaches it, after the stats and fingerprint are
 * set to the worker's at that row; no LOB file is written for a later row before that, since rows
 * after a LOB row are never handed over.
 */
import { Worker } from 'node:worker_threads';
import { SiardOcflError } from '../errors.js';
import { ProvisionalTypesFailed, type SourceValue } from './database-source.js';
import type { CellShape } from './cell-shape.js';
import type { FingerprintState } from './fingerprint/row-hash.js';
import { SourceFingerprint } from './fingerprint/source-fingerprint.js';
import type { SiardColumn } from './model.js';
import { encodeRows, transferables, type EncodedRows } from './row-codec.js';
import {
  cellFamilies,
  formatsInline,
  formatsWithoutFiles,
  tableDataXml,
  type RowBatch,
  type TableDataContext,
  type TableDataStats,
} from './table-data.js';
import { plainShape } from './table-xsd.js';
import type { SegmentCut } from './zip/segmented-deflate.js';

/** The rows of a table written here before a worker takes the rest: a worker costs about 40 ms to start. */
export const BESIDE_MIN_ROWS = 20_000;

/** Batches handed over and not yet written: enough to keep both threads busy, few enough to bound memory. */
const IN_FLIGHT = 2;

/** What the worker starts from. */
export interface BesideSetup {
  ctx: {
    schemaIndex: number;
    tableIndex: number;
    tableName: string;
    folder: string;
    columns: SiardColumn[];
    inlineMax: number;
    shapes: CellShape[];
    provisional?: boolean;
    continued?: boolean;
  };
  rows: number;
  lobs: number;
  sinceCut: number;
  /** where the table's fingerprint stands; absent: no fingerprint is taken */
  fingerprint?: FingerprintState;
}

/** The stats and fingerprint after a row. */
export interface BesideState {
  rows: number;
  lobs: number;
  fingerprint?: FingerprintState;
}

export type ToBeside = { rows: EncodedRows } | { end: true; leaveOpen: boolean };

export type FromBeside =
  | { bytes: Uint8Array }
  | { cut: BesideState }
  | { done: true }
  | { end: BesideState & { sinceCut: number } }
  | { error: { name: string; message: string; code?: string; exitCode?: 1 | 2; table?: string; column?: string; row?: number } };

/**
 * tableDataXml's chunks and cuts for `batches`: the first BESIDE_MIN_ROWS rows written here, the
 * rest in a worker where the table allows it. Counted, not taken from the catalogue, whose count
 * may be an estimate (0 for a PostgreSQL table never analysed).
 */
export async function* tableDataXmlBeside(
  batches: AsyncIterable<RowBatch>,
  ctx: TableDataContext,
  stats: TableDataStats,
  onRow?: () => void,
): AsyncGenerator<Buffer | SegmentCut> {
  const observer = ctx.observer;
  if (!formatsWithoutFiles(ctx) || (observer !== undefined && !(observer instanceof SourceFingerprint))) {
    return yield* tableDataXml(batches, ctx, stats, onRow);
  }
  const it = batches[Symbol.asyncIterator]();
  try {
    const turn = { sinceCut: ctx.turn?.sinceCut ?? 0, leaveOpen: false };
    let next: RowBatch | undefined;
    async function* head(): AsyncGenerator<RowBatch> {
      for (let rows = 0; ;) {
        const r = await it.next();
        if (r.done) return;
        if (rows >= BESIDE_MIN_ROWS) {
          next = r.value;
          turn.leaveOpen = true;
          return;
        }
        rows += r.value.length;
        yield r.value;
      }
    }
    yield* tableDataXml(head(), { ...ctx, turn }, stats, onRow);
    if (next === undefined) return;
    yield* besideFrom(next, it, { ...ctx, continued: true }, stats, { sinceCut: turn.sinceCut }, onRow);
  } finally {
    // read to its end, or stopped early (the consumer, an error): the source's rows closed either way
    await it.return?.(undefined);
  }
}

/** The table from `first` on: in a worker while its rows fit, then here. */
async function* besideFrom(
  first: RowBatch,
  it: AsyncIterator<RowBatch>,
  ctx: TableDataContext,
  stats: TableDataStats,
  turn: { sinceCut: number },
  onRow: (() => void) | undefined,
): AsyncGenerator<Buffer | SegmentCut> {
  const families = cellFamilies(ctx);
  const fits = (v: SourceValue, i: number) => formatsInline(v, families[i]!, ctx.inlineMax);
  const joined: string[] = [];
  const encode = (batch: RowBatch, from: number) => encodeRows(batch, from, families.length, fits, joined);
  const firstRows = encode(first, 0);
  let rest: Rest | undefined = { batch: first, from: 0 };
  if (firstRows.rows > 0) rest = yield* inWorker(first, firstRows, it, ctx, stats, turn, onRow, encode);
  if (rest === undefined) return;
  const after = rest.from === 0 ? rest.batch : sliceBatch(rest.batch, rest.from);
  yield* tableDataXml(prepend(after, it), { ...ctx, turn }, stats, onRow);
}

/** Where the worker stopped: the batch whose rows from `from` on are left to this thread. */
interface Rest {
  batch: RowBatch;
  from: number;
}

/** A batch handed over: its first row's number in the table and its rows' keys. */
interface Handed {
  firstRow: number;
  rows: number;
  keys: readonly unknown[] | undefined;
}

/**
 * The worker's part: batches handed over while every row fits, the worker's chunks and cuts
 * yielded in order. Returns the rest of the table for this thread, or undefined when the worker
 * wrote it to its end. `stats`, the observer and `turn` are the worker's when it returns.
 */
async function* inWorker(
  firstBatch: RowBatch,
  firstRows: EncodedRows,
  it: AsyncIterator<RowBatch>,
  ctx: TableDataContext,
  stats: TableDataStats,
  turn: { sinceCut: number },
  onRow: (() => void) | undefined,
  encode: (batch: RowBatch, from: number) => EncodedRows,
): AsyncGenerator<Buffer | SegmentCut, Rest | undefined> {
  const observer = ctx.observer as SourceFingerprint | undefined;
  const worker = startBesideWorker(besideSetup(ctx, stats, turn));
  const inbox = messages(worker);
  const handed: Handed[] = [];
  let nextRow = stats.rows + 1;
  const hand = (batch: RowBatch, encoded: EncodedRows) => {
    worker.postMessage({ rows: encoded } satisfies ToBeside, transferables(encoded));
    handed.push({ firstRow: nextRow, rows: encoded.rows, keys: batch.rowKeys });
    nextRow += encoded.rows;
  };
  let rest: Rest | undefined;
  let ended = false;
  const end = (leaveOpen: boolean) => {
    ended = true;
    worker.postMessage({ end: true, leaveOpen } satisfies ToBeside);
  };
  const sync = (s: BesideState) => {
    stats.rows = s.rows;
    stats.lobs = s.lobs;
    if (observer && s.fingerprint) observer.fingerprint.restore(s.fingerprint);
  };
  try {
    hand(firstBatch, firstRows);
    if (firstRows.rows < firstBatch.length) {
      rest = { batch: firstBatch, from: firstRows.rows };
      end(true);
    }
    for (;;) {
      while (!ended && handed.length < IN_FLIGHT) {
        const r = await it.next();
        if (r.done) {
          end(false);
          break;
        }
        const encoded = encode(r.value, 0);
        if (encoded.rows > 0) hand(r.value, encoded);
        if (encoded.rows < r.value.length) {
          rest = { batch: r.value, from: encoded.rows };
          end(true);
        }
      }
      const m = await inbox.next();
      if ('bytes' in m) yield Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength);
      else if ('cut' in m) {
        sync(m.cut);
        const at = handed.find((h) => m.cut.rows < h.firstRow + h.rows) ?? handed[handed.length - 1]!;
        yield { cut: true, state: ctx.cutState?.(at.keys?.[m.cut.rows - at.firstRow]) };
      } else if ('done' in m) {
        const h = handed.shift()!;
        if (onRow) for (let r = 0; r < h.rows; r++) onRow();
      } else if ('end' in m) {
        sync(m.end);
        turn.sinceCut = m.end.sinceCut;
        return rest;
      } else throw rebuilt(m.error);
    }
  } finally {
    inbox.close();
    await worker.terminate();
  }
}

/** What the worker starts from: the table, and where its stats, fingerprint and cuts stand. */
function besideSetup(ctx: TableDataContext, stats: TableDataStats, turn: { sinceCut: number }): BesideSetup {
  const observer = ctx.observer as SourceFingerprint | undefined;
  return {
    ctx: {
      schemaIndex: ctx.schemaIndex,
      tableIndex: ctx.tableIndex,
      tableName: ctx.tableName,
      folder: ctx.folder,
      columns: ctx.columns,
      inlineMax: ctx.inlineMax,
      shapes: ctx.shapes ?? ctx.columns.map(plainShape),
      ...(ctx.provisional ? { provisional: true } : {}),
      ...(ctx.continued ? { continued: true } : {}),
    },
    rows: stats.rows,
    lobs: stats.lobs,
    sinceCut: turn.sinceCut,
    ...(observer ? { fingerprint: observer.fingerprint.state() } : {}),
  };
}

/** The worker's error as it was thrown there. */
function rebuilt(e: Extract<FromBeside, { error: unknown }>['error']): Error {
  if (e.name === 'ProvisionalTypesFailed') return new ProvisionalTypesFailed(e.table!, e.column!, e.row!);
  if (e.name === 'SiardOcflError')
    return new SiardOcflError(e.message, { ...(e.code ? { code: e.code } : {}), ...(e.exitCode ? { exitCode: e.exitCode } : {}) });
  return new Error(e.message);
}

/** The worker's messages in order, awaited one at a time; a worker that dies is an error. */
function messages(worker: Worker) {
  const queue: FromBeside[] = [];
  let failure: Error | undefined;
  let waiting: { resolve: (m: FromBeside) => void; reject: (e: Error) => void } | undefined;
  const fail = (err: Error) => {
    failure ??= err;
    waiting?.reject(failure);
    waiting = undefined;
  };
  worker.on('message', (m: FromBeside) => {
    if (waiting) {
      const w = waiting;
      waiting = undefined;
      w.resolve(m);
    } else queue.push(m);
  });
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`The table's XML worker stopped (exit code ${code}).`)));
  return {
    next(): Promise<FromBeside> {
      if (queue.length > 0) return Promise.resolve(queue.shift()!);
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => (waiting = { resolve, reject }));
    },
    close() {
      worker.removeAllListeners();
    },
  };
}

let started = 0;

/** How many workers this process started so far (a test's proof that the worker wrote a table). */
export function besideWorkersStarted(): number {
  return started;
}

/**
 * The built package starts table-xml-worker.js beside this module; run from source (tsx, as the
 * tests do), the worker is the .ts file, with tsx registered in it first (Node 20 does not pass
 * the parent's `--import=tsx` hooks to workers).
 */
function startBesideWorker(setup: BesideSetup): Worker {
  // A young generation of 8 MB instead of V8's default: the worker holds one batch at a time, and the
  // export's peak (bench/export, 1M rows) is 25-30 MB lower for the same CPU.
  const options = { workerData: setup, resourceLimits: { maxYoungGenerationSizeMb: 8 } };
  started++;
  const built = new URL('./table-xml-worker.js', import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return new Worker(built, options);
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const source = new URL('./table-xml-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(source)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/** A batch's rows from `from` on, with their keys. */
function sliceBatch(batch: RowBatch, from: number): RowBatch {
  const out = batch.slice(from) as SourceValue[][] & { rowKeys?: readonly unknown[] };
  if (batch.rowKeys) out.rowKeys = batch.rowKeys.slice(from);
  return out;
}

/** `first`, then the rest of `it` (closed by the caller). */
async function* prepend(first: RowBatch, it: AsyncIterator<RowBatch>): AsyncGenerator<RowBatch> {
  yield first;
  for (;;) {
    const r = await it.next();
    if (r.done) return;
    yield r.value;
  }
}
