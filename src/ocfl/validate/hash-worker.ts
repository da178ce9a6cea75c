/** Worker thread of HashPool: hashes each file of a batch, all algorithms in one read. */
import { parentPort } from 'node:worker_threads';
import { hashFile } from './hash-file.js';
import type { HashBatch, HashBatchResult } from './hash-pool.js';

parentPort!.on('message', async (batch: HashBatch) => {
  const reply: HashBatchResult = { id: batch.id, sizes: [], digests: [], errors: [] };
  for (const file of batch.paths) {
    const r = await hashFile(file, batch.algorithms);
    reply.sizes.push(r.size ?? 0);
    reply.errors.push(r.error ?? null);
    for (const a of batch.algorithms) reply.digests.push(r.digests?.[a] ?? '');
  }
  parentPort!.postMessage(reply);
});
