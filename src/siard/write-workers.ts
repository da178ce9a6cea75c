/**
 * Worker threads that write a whole file and hash it in one step: a LOB's bytes, held until the
 * file closes, are handed over (transferred, not copied again) and the worker creates the file,
 * writes it, fsyncs it when asked and computes the digests the caller named, while this thread
 * goes on with the next rows. Through the thread pool a 100 KiB LOB file cost three round trips
 * (open, write, close) with its hashing on this thread, and the writer waited for each: an ingest
 * of 10,000 such LOBs kept this thread idle half of its 10 s (issue 39, docs/performance.md).
 *
 * The worker's code is plain JavaScript run with `eval` (node:fs and node:crypto only): no module
 * to find beside the bundle, nothing of OCFL.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';

interface Job {
  id: number;
  path: string;
  bytes: Uint8Array;
  algorithms: string[];
  durable: boolean;
}

interface Reply {
  id: number;
  digests?: string[];
  /** the job's buffer, given back for the next file */
  buffer?: ArrayBuffer;
  error?: { message: string; code?: string; errno?: number; syscall?: string; path?: string };
}

const WORKER = `
const { parentPort } = require('node:worker_threads');
const { openSync, writeSync, fsyncSync, closeSync } = require('node:fs');
const { createHash } = require('node:crypto');
parentPort.on('message', (job) => {
  let fd;
  try {
    const hashes = job.algorithms.map((a) => createHash(a));
    for (const h of hashes) h.update(job.bytes);
    fd = openSync(job.path, 'wx');
    for (let at = 0; at < job.bytes.length;) at += writeSync(fd, job.bytes, at);
    if (job.durable) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    const buffer = job.bytes.buffer;
    parentPort.postMessage({ id: job.id, digests: hashes.map((h) => h.digest('hex')), buffer }, [buffer]);
  } catch (err) {
    if (fd !== undefined) try { closeSync(fd); } catch {}
    const { message, code, errno, syscall, path } = err;
    parentPort.postMessage({ id: job.id, error: { message: String(message), code, errno, syscall, path } });
  }
});`;

/** Bytes of buffers kept for reuse. */
const SPARE_BYTES = 16 * 1024 * 1024;

/** node:crypto's name of a digest algorithm ('sha512/256' is OCFL's name). */
const nodeName = (algorithm: string) => (algorithm === 'sha512/256' ? 'sha512-256' : algorithm);

/** An error of the worker's, made again here with its code (ENOSPC, EEXIST...), so that callers tell it apart as before. */
function errorOf(e: NonNullable<Reply['error']>): Error {
  return Object.assign(
    new Error(e.message),
    e.code !== undefined ? { code: e.code, errno: e.errno, syscall: e.syscall, path: e.path } : {},
  );
}

class WriteWorkers {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, { worker: Worker; resolve: (digests: string[]) => void; reject: (err: Error) => void }>();
  private readonly busy = new Map<Worker, number>();
  private nextId = 1;
  /** buffers the workers gave back, reused for the next files (no allocation, no zero-filling per file) */
  private readonly spare: ArrayBuffer[] = [];
  private spareBytes = 0;

  constructor(private readonly size = Math.max(1, os.availableParallelism())) {}

  /** Room for a file of `size` bytes, to fill and hand to write(). */
  buffer(size: number): Uint8Array {
    const i = this.spare.findIndex((b) => b.byteLength >= size && b.byteLength <= 2 * size);
    if (i < 0) return new Uint8Array(new ArrayBuffer(size), 0, size);
    const [buffer] = this.spare.splice(i, 1);
    this.spareBytes -= buffer!.byteLength;
    return new Uint8Array(buffer!, 0, size);
  }

  private giveBack(buffer: ArrayBuffer): void {
    if (this.spareBytes + buffer.byteLength > SPARE_BYTES) return;
    this.spare.push(buffer);
    this.spareBytes += buffer.byteLength;
  }

  /**
   * Creates `path` (it must not exist) holding `bytes`, fsynced when `durable`; resolves to the
   * digests of `algorithms` (lower-case hex, in that order). `bytes` is transferred: unusable here after.
   */
  write(path: string, bytes: Uint8Array, algorithms: string[], durable: boolean): Promise<string[]> {
    const worker = this.pick();
    const id = this.nextId++;
    const job: Job = { id, path, bytes, algorithms: algorithms.map(nodeName), durable };
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { worker, resolve, reject });
      this.busy.set(worker, this.busy.get(worker)! + 1);
      worker.ref(); // a file being written keeps the process alive
      worker.postMessage(job, [bytes.buffer as ArrayBuffer]);
    });
  }

  /** The least busy worker, a new one while there are fewer than `size`. */
  private pick(): Worker {
    let best: Worker | undefined;
    for (const w of this.workers) if (!best || this.busy.get(w)! < this.busy.get(best)!) best = w;
    if (best && (this.busy.get(best) === 0 || this.workers.length >= this.size)) return best;
    const worker = new Worker(WORKER, { eval: true });
    worker.on('message', (reply: Reply) => this.settle(worker, reply));
    worker.on('error', (err) => this.fail(worker, err));
    worker.on('exit', (code) => this.fail(worker, new Error(`a file-writing worker stopped (exit ${code})`)));
    this.workers.push(worker);
    this.busy.set(worker, 0);
    return worker;
  }

  private settle(worker: Worker, reply: Reply): void {
    const job = this.waiting.get(reply.id);
    if (!job) return;
    this.waiting.delete(reply.id);
    const busy = this.busy.get(worker)! - 1;
    this.busy.set(worker, busy);
    if (busy === 0) worker.unref(); // an idle worker does not keep the process alive
    if (reply.buffer) this.giveBack(reply.buffer);
    if (reply.error) job.reject(errorOf(reply.error));
    else job.resolve(reply.digests!);
  }

  /** A worker that died fails the files it had; the next files go to another (or a new one). */
  private fail(worker: Worker, err: Error): void {
    const i = this.workers.indexOf(worker);
    if (i < 0) return;
    this.workers.splice(i, 1);
    this.busy.delete(worker);
    for (const [id, job] of this.waiting) {
      if (job.worker !== worker) continue;
      this.waiting.delete(id);
      job.reject(err);
    }
  }
}

let shared: WriteWorkers | undefined;

/** The process's workers, started with its first file (idle ones do not keep the process alive). */
export function writeWorkers(): WriteWorkers {
  return (shared ??= new WriteWorkers());
}
