/** Worker thread of HashPool: hashes each file of a batch, all algorithms in one read (copying it too, when asked). */
import { parentPort } from 'node:worker_threads';
import { hashFile } from './hash-file.js';
import type { HashBatch, HashBatchResult } from './hash-pool.js';

parentPort!.on('message', async (batch: HashBatch) => {
  const reply: HashBatchResult = { id: batch.id, sizes: [], digests: [], errors: [] };
  for (const [i, file] of batch.paths.entries()) {
    const r = await hashFile(file, batch.algorithms, batch.copyTo?.[i] ?? undefined);
    reply.sizes.push(r.size ?? 0);
    reply.errors.push(r.error ?? null);
    for (const a of batch.algorithms) reply.digests.push(r.digests?.[a] ?? '');
  }
  parentPort!.postMessage(reply);
});
