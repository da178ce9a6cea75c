/** Worker thread of HashPool: hashes each file of a batch, all algorithms in one read. */
import { parentPort } from 'node:worker_threads';
import { hashFile, type HashResult } from './hash-file.js';
import type { HashBatch, HashBatchResult } from './hash-pool.js';

parentPort!.on('message', async (batch: HashBatch) => {
  const results: HashResult[] = [];
  for (const task of batch.tasks) results.push(await hashFile(task.path, task.algorithms));
  const reply: HashBatchResult = { id: batch.id, results };
  parentPort!.postMessage(reply);
});
