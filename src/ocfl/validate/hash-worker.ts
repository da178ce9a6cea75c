/**
 * Worker thread of HashPool (batches of files, each hashed with all algorithms in one read, copied
 * too when asked) and of StreamHashes (streams of bytes sent chunk by chunk, see stream-hashes.ts).
 */
import { parentPort } from 'node:worker_threads';
import { MultiHasher } from '../digest.js';
import { hashFile } from './hash-file.js';
import type { HashBatch, HashBatchResult } from './hash-pool.js';
import type { StreamMessage, StreamReply } from './stream-hashes.js';

/** A stream's progress is told after this many bytes (one message per chunk cost more than hashing 100 KiB). */
const ACK_BYTES = 1024 * 1024;
const streams = new Map<number, MultiHasher>();
/** Bytes hashed since the last reply. */
let hashed = 0;

function onStream(msg: StreamMessage): void {
  const reply = (r: StreamReply) => parentPort!.postMessage(r);
  try {
    if (msg.kind === 'drop') {
      streams.delete(msg.sid);
      return;
    }
    let hasher = streams.get(msg.sid);
    if (!hasher) streams.set(msg.sid, (hasher = MultiHasher.createSync(msg.algorithms!)));
    if (msg.kind === 'chunk') {
      hasher.update(msg.bytes);
      hashed += msg.bytes.byteLength;
      if (hashed >= ACK_BYTES) {
        reply({ kind: 'hashed', hashed });
        hashed = 0;
      }
      return;
    }
    streams.delete(msg.sid);
    reply({ kind: 'digests', sid: msg.sid, digests: hasher.digests(), size: hasher.size, hashed });
    hashed = 0;
  } catch (err) {
    streams.delete(msg.sid);
    reply({ kind: 'failed', sid: msg.sid, error: (err as Error).message, hashed });
    hashed = 0;
  }
}

parentPort!.on('message', async (msg: HashBatch | StreamMessage) => {
  if ('kind' in msg) return onStream(msg);
  const batch = msg;
  const reply: HashBatchResult = { id: batch.id, sizes: [], digests: [], errors: [] };
  for (const [i, file] of batch.paths.entries()) {
    const r = await hashFile(file, batch.algorithms, batch.copyTo?.[i] ?? undefined);
    reply.sizes.push(r.size ?? 0);
    reply.errors.push(r.error ?? null);
    for (const a of batch.algorithms) reply.digests.push(r.digests?.[a] ?? '');
  }
  parentPort!.postMessage(reply);
});
