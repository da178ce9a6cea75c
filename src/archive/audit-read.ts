/**
 * The one read of every content file of an object under audit. The worker pool hashes plain files
 * from the moment their sizes are known (ContentHashing), while this thread checks the structure
 * and plans; once planned, this thread reads the jobs the plan made (split LOBs, CLOB character
 * counts, a .siard's messageDigest range) as the pool goes on. Each file's result is recorded
 * compactly in the object's files as it comes.
 */
import { hashStored } from '../ocfl/validate/hash-stored.js';
import type { ObjectAuditContext, OpenedObject } from './audit-context.js';
import type { ReadPlan } from './audit-plan.js';
import { runSequential, type FileDigests, type SequentialResult } from './content-hash.js';

/**
 * Files handed to the hashing threads at once. The next set is handed over while one is hashed;
 * a file is looked at (its algorithms, whether a job reads it) only when its set is made, so what
 * the plan learns meanwhile still counts for every file not yet handed over.
 */
const SET_FILES = 1024;
const SET_BYTES = 64 * 1024 * 1024;

/**
 * The pool's reads of the plain content files, begun before the plan: in path order (files near
 * each other on disk read together), every present file but those `deferred` (the SIARD archives,
 * which the plan's jobs read) and those the plan has put in a job by the time the file's set is
 * made. `finish` then hashes what the plan changed: a file deferred but left out of every job (an
 * archive that cannot be read), and a file already hashed without an algorithm a LOB cell needs.
 */
export class ContentHashing {
  /** per file: 1 once handed to the pool */
  private readonly sent: Uint8Array;
  /** per file: the algorithms besides the inventory's it was hashed with (bits, AuditContentFiles.extraBits) */
  private readonly sentExtra: Uint8Array;
  private readonly first: Promise<void>;

  constructor(
    private readonly ctx: ObjectAuditContext,
    private readonly obj: OpenedObject,
    deferred: ReadonlySet<number>,
  ) {
    this.sent = new Uint8Array(obj.files.length);
    this.sentExtra = new Uint8Array(obj.files.length);
    const ids = obj.files.inPathOrder(deferred);
    this.first = this.hashInSets(ids, (id) => !obj.files.isInJob(id));
    // Awaited in finish; until then a failure must not count as unhandled.
    this.first.catch(() => undefined);
  }

  /** Whether the pool read the file (then its bytes were counted as read). */
  wasSent(id: number): boolean {
    return this.sent[id] !== 0;
  }

  /** Waits for the first pass, then hashes what the plan changed (see the class comment). */
  async finish(): Promise<void> {
    await this.first;
    const { files } = this.obj;
    const again: number[] = [];
    for (let id = 0; id < files.length; id++) {
      if (!files.isPresent(id) || files.isInJob(id)) continue;
      if (this.sent[id] === 0 || (files.extraBits(id) & ~this.sentExtra[id]!) !== 0) again.push(id);
    }
    if (again.length > 0) await this.hashInSets(Int32Array.from(again), () => true);
  }

  /** Hands `ids` to the pool a set at a time, the next while one is hashed; `take` decides each file when its set is made. */
  private async hashInSets(ids: Int32Array, take: (id: number) => boolean): Promise<void> {
    let at = 0;
    const nextSet = (): Promise<void> | undefined => {
      const set: number[] = [];
      let bytes = 0;
      while (at < ids.length && set.length < SET_FILES && bytes < SET_BYTES) {
        const id = ids[at++]!;
        if (!take(id)) continue;
        set.push(id);
        bytes += this.obj.files.size(id)!;
      }
      return set.length === 0 ? undefined : this.hashSet(set);
    };
    let pending = nextSet();
    while (pending) {
      const next = nextSet();
      await pending;
      pending = next;
    }
  }

  private async hashSet(set: number[]): Promise<void> {
    const { files, expected } = this.obj;
    const { options } = this.ctx;
    const paths = set.map((id) => files.path(id));
    const expectedOf = paths.map((p) => expected.of(p));
    const algorithms = set.map((id, k) => files.algorithmsOf(id, expectedOf[k]!));
    const sizes = set.map((id) => files.size(id)!);
    // Progress counts each file's bytes once: a second read (finish) of a file already read is not counted again.
    const again = set.reduce((n, id, k) => n + (this.sent[id] ? sizes[k]! : 0), 0);
    for (const id of set) {
      this.sent[id] = 1;
      this.sentExtra[id] = files.extraBits(id);
    }
    const onHashed = again === 0 ? (_n: number, bytes: number) => options.onBytes?.(bytes) : undefined;
    const results = await hashStored(this.ctx.root.storage, this.ctx.objectPath, paths, algorithms, sizes, this.ctx.pool, onHashed);
    if (again > 0) options.onBytes?.(sizes.reduce((n, b) => n + b, 0) - again);
    set.forEach((id, k) => files.record(id, results[k]!, expectedOf[k]!));
  }
}

/**
 * The rest of the one read, once planned: this thread reads the planned jobs while the pool
 * finishes the plain files. Job results are recorded after the pool's (a file both read counts
 * by its job's result).
 */
export async function readContent(
  ctx: ObjectAuditContext,
  obj: OpenedObject,
  plan: ReadPlan,
  hashing: ContentHashing,
): Promise<SequentialResult[]> {
  const { files } = obj;
  const { options } = ctx;
  const results: SequentialResult[] = [];
  const sequential = (async () => {
    for (const [i, job] of plan.jobs.entries()) {
      results[i] = await runSequential(job, ctx.root.storage);
      // Bytes the pool read already were counted there.
      options.onBytes?.(plan.jobFiles[i]!.reduce((n, id) => n + (hashing.wasSent(id) ? 0 : (files.size(id) ?? 0)), 0));
    }
  })();
  await Promise.all([hashing.finish(), sequential]);
  // A file read by several jobs: the last one's result counts.
  const last = new Map<number, FileDigests>();
  plan.jobs.forEach((_job, i) => plan.jobFiles[i]!.forEach((id, k) => last.set(id, results[i]!.files[k]!)));
  for (const [id, result] of last) files.record(id, result);
  for (const r of results) r.files = [];
  return results;
}
