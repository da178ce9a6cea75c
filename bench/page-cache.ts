/**
 * Warm or cold page cache for the benches. A scheduled audit of a large root reads from disk, not
 * from memory, so a cold run is the honest one for it; a warm run shows CPU cost alone. Cold means
 * `sync; echo 3 > /proc/sys/vm/drop_caches` before EACH measured run, ours and the peer's alike.
 *
 * BENCH_CACHE=warm | cold | both (default both). Dropping caches needs root; when it is not
 * permitted the bench falls back to warm and says so.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

export type CacheMode = 'warm' | 'cold';

/** Flushes dirty pages and drops the page cache, dentries and inodes. False when not permitted. */
export function dropCaches(): boolean {
  spawnSync('sync');
  try {
    writeFileSync('/proc/sys/vm/drop_caches', '3\n');
    return true;
  } catch {
    return false;
  }
}

/** The modes to measure, as asked by BENCH_CACHE and as this machine permits; prints what it chose. */
export function cacheModes(): CacheMode[] {
  const asked = (process.env.BENCH_CACHE ?? 'both').toLowerCase();
  if (!['warm', 'cold', 'both'].includes(asked)) throw new Error(`BENCH_CACHE must be warm, cold or both, not "${asked}".`);
  const wantsCold = asked !== 'warm';
  const canDrop = wantsCold && dropCaches();
  if (wantsCold && !canDrop) process.stdout.write('page cache: cannot drop caches here (needs root): warm runs only\n');
  const modes: CacheMode[] = asked === 'cold' && canDrop ? ['cold'] : canDrop ? ['warm', 'cold'] : ['warm'];
  process.stdout.write(`page cache: ${modes.join(' and ')} (cold = sync + drop_caches before each measured run, both sides alike)\n`);
  return modes;
}

/**
 * Before a measured run. Cold: drop the caches (it was checked to work). Warm: sync, so neither
 * side pays for the write-back or the freeing of blocks (deleted folders) left by the run before.
 */
export function prepare(mode: CacheMode): void {
  if (mode === 'cold') {
    if (!dropCaches()) throw new Error('Dropping the page cache stopped working.');
  } else spawnSync('sync');
}

/**
 * Warm, exactly: the page cache holds the run's inputs and nothing left by earlier runs (dirty
 * or cached pages of other runs would make the kernel reclaim memory during this one, and a
 * writer that bypasses the cache would leave its output uncached). Drops the caches, then reads
 * `inputs` (files or folders) once. Where dropping is not permitted, only syncs.
 */
export function prepareWarm(inputs: string[]): void {
  if (!dropCaches()) return;
  readThrough(inputs);
}

/** Reads every file of `inputs` (files or folders) once, so that their pages, inodes and dentries are cached. */
export function readThrough(inputs: string[]): void {
  for (const p of inputs) spawnSync('sh', ['-c', `find '${p}' -type f -print0 | xargs -0 cat > /dev/null`]);
}
