/**
 * Worker thread of RowsReader (rows-reader.ts): reads a rowid table's rows with its own read-only
 * connection, the same select in the same rowid order as the source's thread would, and posts them
 * encoded (cell-encoding.ts) into buffers shared with it (a slot each), a slot given back once the
 * reader has copied its batch: a few batches ahead of the reader at most.
 * One stream at a time: keyset batches (`WHERE rowid >= ? [AND rowid < until] ORDER BY rowid
 * LIMIT n`, each from the last rowid on) or, with no limit, rows one at a time with iterate(),
 * batched by count and bytes as rowsOneByOne does.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import Database from './driver.js';
import { encodeRows, type CellEncoding, type EncodeTarget } from './cell-encoding.js';
import type { ReaderSetup, StreamRequest, ToWorker, FromWorker } from './rows-reader.js';

const setup = workerData as ReaderSetup;
const MAX_ROWID = 2n ** 63n - 1n;

let db: BetterSqlite3.Database | undefined;

/** The stream being read: its request and its rows. */
interface Stream {
  request: StreamRequest;
  next: () => unknown[][];
  /** ends an iterate() read early */
  close?: () => void;
}

let stream: Stream | undefined;
let pumping = false;

function connection(): BetterSqlite3.Database {
  if (!db) {
    db = new Database(setup.file, { readonly: true, fileMustExist: true });
    // SQLite's own default page cache (2 MB): better-sqlite3's 16 MB holds pages a read in rowid
    // order never reads again, and added ~20 MB to the export's peak
    db.pragma('cache_size = -2000');
    db.exec('BEGIN');
  }
  return db;
}

/** Keyset batches from request.from on: the same statement as sqlite-source.ts's keysetBatches. */
function keysetRows(request: StreamRequest): () => unknown[][] {
  const below = request.until === undefined ? '' : ` AND rowid < ${request.until}`;
  const stmt = connection()
    .prepare(`${setup.select} WHERE rowid >= ?${below} ORDER BY rowid LIMIT ${request.limit}`)
    .raw(true)
    .safeIntegers(true);
  let from: bigint | undefined = request.from;
  return () => {
    if (from === undefined) return [];
    const batch = stmt.all(from) as unknown[][];
    const last = batch.length > 0 ? (batch[batch.length - 1]![setup.rowidAt] as bigint) : MAX_ROWID;
    from = batch.length < request.limit || last === MAX_ROWID ? undefined : last + 1n;
    return batch;
  };
}

/** Rows one at a time from request.from on, batched by count and bytes (rowsOneByOne). */
function iteratedRows(request: StreamRequest, s: Stream): () => unknown[][] {
  const stmt = connection().prepare(`${setup.select} WHERE rowid >= ? ORDER BY rowid`).raw(true).safeIntegers(true);
  const rows = stmt.iterate(request.from) as IterableIterator<unknown[]>;
  s.close = () => rows.return?.();
  return () => {
    const batch: unknown[][] = [];
    let bytes = 0;
    for (;;) {
      const got = rows.next();
      if (got.done) return batch;
      const raw = got.value;
      batch.push(raw);
      bytes += setup.rowOverhead;
      for (let c = 0; c < setup.encodings.length; c++) {
        const v = raw[c];
        if (typeof v === 'string') bytes += v.length;
        else if (v instanceof Uint8Array) bytes += v.length;
      }
      if (batch.length >= setup.batchRows || bytes >= setup.batchBytes) return batch;
    }
  };
}

/** Each slot's state (rows-reader.ts: 0 free to fill, 1 the reader's) and the count of slots given back, waited on. */
const states = new Int32Array(setup.states);
let waiting = false;
/** Atomics.waitAsync (Node 16 on; not in the project's lib types, ES2024) */
const waitAsync = (
  Atomics as unknown as { waitAsync: (a: Int32Array, i: number, v: number) => { async: boolean; value: Promise<unknown> } }
).waitAsync;

/** A slot free to fill, or -1 (then pump runs again once the reader gives one back). */
function freeSlot(): number {
  for (;;) {
    const given = Atomics.load(states, setup.slots.length);
    for (let slot = 0; slot < setup.slots.length; slot++) if (Atomics.load(states, slot) === 0) return slot;
    if (waiting) return -1;
    const wait = waitAsync(states, setup.slots.length, given);
    if (!wait.async) continue; // given back meanwhile
    waiting = true;
    void wait.value.then(() => {
      waiting = false;
      pump();
    });
    return -1;
  }
}
const target: EncodeTarget = { bytes: new Uint8Array(256 * 1024), bounds: new Int32Array(0), rowids: new BigInt64Array(0) };

/** Encodes `raw` into free slot `slot` and posts it. */
function post(id: number, raw: unknown[][], slot: number): void {
  const shared = setup.slots[slot]!;
  target.bounds = new Int32Array(shared.bounds);
  target.rowids = new BigInt64Array(shared.rowids);
  const encoded = encodeRows(raw, setup.encodings as Array<CellEncoding | undefined>, setup.rowidAt, target);
  const message: FromWorker = { id, done: false, slot, count: encoded.count, used: encoded.used, values: encoded.values };
  if (encoded.used > shared.bytes.byteLength) {
    shared.bytes = new SharedArrayBuffer(Math.max(2 * shared.bytes.byteLength, encoded.used));
    message.grown = shared.bytes;
  }
  new Uint8Array(shared.bytes, 0, encoded.used).set(target.bytes.subarray(0, encoded.used));
  Atomics.store(states, slot, 1);
  parentPort!.postMessage(message);
}

/** Posts batches of the current stream while a slot is free. */
function pump(): void {
  if (pumping) return;
  pumping = true;
  try {
    for (;;) {
      const s = stream;
      if (!s) break;
      const slot = freeSlot();
      if (slot < 0) break;
      const raw = s.next();
      const done = raw.length === 0 || (s.request.limit > 0 && raw.length < s.request.limit);
      if (raw.length > 0) post(s.request.id, raw, slot);
      if (done || (s.request.limit > 0 && (raw[raw.length - 1]![setup.rowidAt] as bigint) === MAX_ROWID)) {
        parentPort!.postMessage({ id: s.request.id, done: true } satisfies FromWorker);
        s.close?.();
        stream = undefined;
      }
    }
  } catch (err) {
    const id = stream?.request.id ?? -1;
    stream?.close?.();
    stream = undefined;
    parentPort!.postMessage({ id, done: true, error: String((err as Error)?.message ?? err) } satisfies FromWorker);
  } finally {
    pumping = false;
  }
}

parentPort!.on('message', (m: ToWorker) => {
  if (m.kind === 'start') {
    stream?.close?.();
    const s: Stream = { request: m.request, next: () => [] };
    try {
      s.next = m.request.limit > 0 ? keysetRows(m.request) : iteratedRows(m.request, s);
    } catch (err) {
      parentPort!.postMessage({ id: m.request.id, done: true, error: String((err as Error)?.message ?? err) } satisfies FromWorker);
      return;
    }
    stream = s;
  } else if (stream?.request.id === m.id) {
    stream.close?.();
    stream = undefined;
  }
  setImmediate(pump);
});
