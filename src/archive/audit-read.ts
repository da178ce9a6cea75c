/**
 * The one read of every content file of an object under audit: the worker pool hashes plain files
 * while this thread reads the jobs the plan made (split LOBs, CLOB character counts, a .siard's
 * messageDigest range). Each file's result is recorded compactly in the object's files as it comes.
 */
import { hashStored } from '../ocfl/validate/hash-stored.js';
import type { ObjectAuditContext, OpenedObject } from './audit-context.js';
import type { ReadPlan } from './audit-plan.js';
import { runSequential, type FileDigests, type SequentialResult } from './content-hash.js';

/** Plain files handed to the hashing threads at once. */
const HASH_BATCH = 20000;

/**
 * One read of every content file: the worker pool hashes plain files while this thread reads the
 * planned jobs. Each result is recorded compactly as it comes (obj.files) and let go.
 */
export async function readContent(ctx: ObjectAuditContext, obj: OpenedObject, plan: ReadPlan): Promise<SequentialResult[]> {
  const { files } = obj;
  const { options } = ctx;
  const results: SequentialResult[] = [];
  const inJobs = new Set(plan.jobFiles.flat());
  const plain = files.inPathOrder(inJobs);
  const totalBytes = files.present.bytes;
  ctx.summary.contentFiles = files.present.files;
  ctx.summary.contentBytes = totalBytes;
  options.onPlan?.(totalBytes);
  const sequential = (async () => {
    for (const [i, job] of plan.jobs.entries()) {
      results[i] = await runSequential(job, ctx.root.storage);
      options.onBytes?.(plan.jobFiles[i]!.reduce((n, id) => n + (files.size(id) ?? 0), 0));
    }
  })();
  // In batches: a task holds the file's absolute path and its algorithms, which for a million
  // files is gigabytes if made all at once; a batch's tasks and results are dropped once recorded.
  const hashing = (async () => {
    for (let i = 0; i < plain.length; i += HASH_BATCH) {
      const batch = plain.subarray(i, i + HASH_BATCH);
      const paths = Array.from(batch, (id) => files.path(id));
      const expected = paths.map((p) => obj.expected.of(p));
      const algorithms = Array.from(batch, (id, k) => files.algorithmsOf(id, expected[k]!));
      const batchSizes = Array.from(batch, (id) => files.size(id)!);
      const onHashed = (_n: number, bytes: number) => options.onBytes?.(bytes);
      const results = await hashStored(ctx.root.storage, ctx.objectPath, paths, algorithms, batchSizes, ctx.pool, onHashed);
      batch.forEach((id, k) => files.record(id, results[k]!, expected[k]!));
    }
  })();
  await Promise.all([hashing, sequential]);
  // A file read by several jobs: the last one's result counts.
  const last = new Map<number, FileDigests>();
  plan.jobs.forEach((_job, i) => plan.jobFiles[i]!.forEach((id, k) => last.set(id, results[i]!.files[k]!)));
  for (const [id, result] of last) files.record(id, result);
  for (const r of results) r.files = [];
  return results;
}
