/**
 * The worker thread of table-xml-beside.ts: a table's rows, as the reading thread encoded them
 * (row-codec.ts), written by tableDataXml with the table's fingerprint, as on the reading thread.
 * Posts, in order: each chunk of XML, each cut with the stats and fingerprint at it, `done` once a
 * batch is written, and at the end the stats, the fingerprint and the characters since the last cut.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SiardOcflError } from '../errors.js';
import { ProvisionalTypesFailed } from './database-source.js';
import { SourceFingerprint } from './fingerprint/source-fingerprint.js';
import type { LobWriter } from './lob-writer.js';
import { decodeRows, type EncodedRows } from './row-codec.js';
import { tableDataXml, type TableDataContext, type TableDataStats } from './table-data.js';
import type { BesideSetup, BesideState, ToBeside, FromBeside } from './table-xml-beside.js';
import { isSegmentCut } from './zip/segmented-deflate.js';

const port = parentPort!;

/** The LOB writer of a table whose values here are all inline: it never writes (lobs-ahead.ts asks `concurrent`). */
const NO_FILES = {
  concurrent: false,
  write: () => Promise.reject(new Error('A LOB file was asked of the table XML worker.')),
} as unknown as LobWriter;
const setup = workerData as BesideSetup;
const observer = setup.fingerprint ? new SourceFingerprint(setup.ctx.shapes) : undefined;
if (observer && setup.fingerprint) observer.fingerprint.restore(setup.fingerprint);
const stats: TableDataStats = { rows: setup.rows, lobs: setup.lobs, externalLobs: 0, lobBytes: 0, externalColumns: new Set() };
const turn = { sinceCut: setup.sinceCut, leaveOpen: false };

const state = (): BesideState => ({
  rows: stats.rows,
  lobs: stats.lobs,
  ...(observer ? { fingerprint: observer.fingerprint.state() } : {}),
});

const inbox: ToBeside[] = [];
let waiting: ((m: ToBeside) => void) | undefined;
port.on('message', (m: ToBeside) => {
  if (waiting) {
    const w = waiting;
    waiting = undefined;
    w(m);
  } else inbox.push(m);
});
const next = (): Promise<ToBeside> => (inbox.length > 0 ? Promise.resolve(inbox.shift()!) : new Promise((resolve) => (waiting = resolve)));

async function* batches() {
  for (;;) {
    const m = await next();
    if ('end' in m) {
      turn.leaveOpen = m.leaveOpen;
      return;
    }
    yield decodeRows(m.rows as EncodedRows);
    // the writer asks for the next batch: this one is written
    post({ done: true });
  }
}

const post = (m: FromBeside, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

const ctx: TableDataContext = {
  ...setup.ctx,
  // every value handed here is written inline (formatsInline): no LOB file, none begun ahead
  lobWriter: NO_FILES,
  ...(observer ? { observer } : {}),
  cutState: state,
  turn,
};

try {
  for await (const chunk of tableDataXml(batches(), ctx, stats)) {
    if (isSegmentCut(chunk)) post({ cut: chunk.state as BesideState });
    else if (chunk.length > 0) {
      // a chunk of its own buffer is handed over; one in Node's shared pool is copied
      const own = chunk.buffer.byteLength > Buffer.poolSize;
      post({ bytes: chunk }, own ? [chunk.buffer as ArrayBuffer] : []);
    }
  }
  post({ end: { ...state(), sinceCut: turn.sinceCut } });
} catch (err) {
  const e = err as Error;
  post({
    error: {
      name: e instanceof ProvisionalTypesFailed ? 'ProvisionalTypesFailed' : e instanceof SiardOcflError ? 'SiardOcflError' : 'Error',
      message: e.message,
      ...(e instanceof SiardOcflError ? { code: e.code, exitCode: e.exitCode } : {}),
      ...(e instanceof ProvisionalTypesFailed ? { table: e.table, column: e.column, row: e.row } : {}),
    },
  });
}
