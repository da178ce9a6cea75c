/**
 * Streams of bytes hashed on worker threads instead of this one: while a version is built, this
 * thread runs the producer (an export's rows and LOBs) and the writes (to the workspace, or the S3
 * client's signing, HTTP and parts); sha512 and the LOB digest of the same bytes took it as long
 * again (ingest of 1 GB of LOBs: 6 of its 9 CPU seconds). Each chunk is copied into a buffer of its
 * own and transferred (a memcpy, ~20 times faster than sha512), so the producer may reuse its
 * buffer at once. Bytes sent and not yet hashed are bounded (drained()).
 *
 * One worker per core, each stream on the one with the fewest bytes waiting, started on first use
 * and kept alive only while a stream is open. Algorithms Node cannot hash itself (the short
 * BLAKE2b variants), and small content (below `inlineBelow`, where two messages cost more than
 * the hashing), are hashed in this thread instead (MultiHasher).
 */
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { MultiHasher, nodeAlgorithmOf } from '../digest.js';
import { startWorker } from './hash-pool.js';

/** To a worker; a stream's first chunk (or its end, when it had none) names its algorithms. */
export type StreamMessage =
  | { kind: 'chunk'; sid: number; bytes: Uint8Array; algorithms?: string[] }
  | { kind: 'end'; sid: number; algorithms?: string[] }
  | { kind: 'drop'; sid: number };
/** From a worker; `hashed`: bytes hashed since its last reply (told every MiB or so, and with each result). */
export type StreamReply =
  | { kind: 'hashed'; hashed: number }
  | { kind: 'digests'; sid: number; digests: Record<string, string>; size: number; hashed: number }
  | { kind: 'failed'; sid: number; error: string; hashed: number };

/** Bytes sent to a worker and not yet hashed, beyond which a producer waits (drained()). */
const AHEAD_BYTES = 8 * 1024 * 1024;

export interface StreamHash {
  update(bytes: Uint8Array): void;
  /** A promise while too many bytes wait for the worker (await it before sending more), else undefined. */
  drained(): Promise<void> | undefined;
  /** Every digest and the byte count, once all bytes are hashed. */
  finish(): Promise<{ digests: Record<string, string>; size: number }>;
  /** Forgets a stream that will not be finished. */
  drop(): void;
}

class HashWorker {
  private worker: Worker | undefined;
  private nextSid = 1;
  private ahead = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly results = new Map<
    number,
    { resolve: (r: { digests: Record<string, string>; size: number }) => void; reject: (e: Error) => void }
  >();
  private open = 0;

  /** Bytes sent and not yet hashed, plus a little per open stream (to spread streams that have sent nothing yet). */
  get waitingBytes(): number {
    return this.ahead + this.open * 64 * 1024;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker();
    worker.on('message', (msg: StreamReply) => this.onReply(msg));
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', () => this.fail(new Error('The hashing thread stopped.')));
    this.worker = worker;
    return worker;
  }

  private onReply(msg: StreamReply): void {
    this.ahead -= msg.hashed;
    if (this.ahead < AHEAD_BYTES) for (const wake of this.waiting.splice(0)) wake();
    if (msg.kind === 'hashed') return;
    const result = this.results.get(msg.sid);
    this.results.delete(msg.sid);
    if (msg.kind === 'digests') result?.resolve({ digests: msg.digests, size: msg.size });
    else result?.reject(new Error(`Hashing failed: ${msg.error}`));
  }

  private fail(err: Error): void {
    this.worker = undefined;
    this.ahead = 0;
    for (const wake of this.waiting.splice(0)) wake();
    for (const r of this.results.values()) r.reject(err);
    this.results.clear();
  }

  /** Keeps the process alive only while some stream is open (the worker is never stopped by hand). */
  private count(delta: number): void {
    this.open += delta;
    if (this.open === 0) this.worker?.unref();
    else this.worker?.ref();
  }

  stream(algorithms: string[]): StreamHash {
    const worker = this.started();
    const sid = this.nextSid++;
    this.count(1);
    let named = false;
    /** The algorithms, sent with the stream's first message only. */
    const first = () => (named ? {} : ((named = true), { algorithms }));
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      this.count(-1);
    };
    return {
      update: (bytes) => {
        // A buffer of its own (not from Node's shared pool, not zero-filled first), transferred.
        const copy = Buffer.allocUnsafeSlow(bytes.byteLength);
        copy.set(bytes);
        this.ahead += copy.byteLength;
        worker.postMessage({ kind: 'chunk', sid, bytes: copy, ...first() } satisfies StreamMessage, [copy.buffer]);
      },
      drained: () => (this.ahead < AHEAD_BYTES ? undefined : new Promise<void>((resolve) => this.waiting.push(resolve))),
      finish: () => {
        if (this.worker !== worker) return Promise.reject(new Error('The hashing thread stopped.')).finally(close);
        const done = new Promise<{ digests: Record<string, string>; size: number }>((resolve, reject) =>
          this.results.set(sid, { resolve, reject }),
        );
        worker.postMessage({ kind: 'end', sid, ...first() } satisfies StreamMessage);
        return done.finally(close);
      },
      drop: () => {
        if (closed) return;
        if (named) worker.postMessage({ kind: 'drop', sid } satisfies StreamMessage);
        close();
      },
    };
  }
}

let shared: HashWorker[] | undefined;

/** A hash of these algorithms computed on a worker thread (in this thread for small content, or when one needs hash-wasm). */
export async function streamHash(algorithms: string[], options: { size?: number; inlineBelow?: number } = {}): Promise<StreamHash> {
  const small = options.size !== undefined && options.size < (options.inlineBelow ?? 0);
  if (small || algorithms.some((a) => nodeAlgorithmOf(a) === undefined)) {
    const hasher = await MultiHasher.create(algorithms);
    return {
      update: (bytes) => hasher.update(bytes),
      drained: () => undefined,
      finish: async () => ({ digests: hasher.digests(), size: hasher.size }),
      drop: () => {},
    };
  }
  shared ??= Array.from({ length: Math.max(1, os.availableParallelism?.() ?? os.cpus().length) }, () => new HashWorker());
  const idlest = shared.reduce((a, b) => (b.waitingBytes < a.waitingBytes ? b : a));
  return idlest.stream([...new Set(algorithms)]);
}
