/**
 * The outline of a tree on an object store (ReadStorage.outline): the folders `depth` levels
 * down and the files above them, from pages of keys instead of one request per folder. Listing
 * a root of 10,000 objects folder by folder (0003: three tuple levels) takes some 23,000
 * requests; here the keys below the first-level folders are read in runs, OUTLINE_RUNS at once,
 * each run a few pages of keys, and every page that ends inside a folder at `depth`
 * goes on past that folder's keys (StartAfter `folder` + '0': '0' follows '/' in byte order), so
 * an object of a million files costs one page, not a thousand. Each page's entries can be told as
 * it comes: the first objects of a root are known after one page of each run.
 */
import { forEachConcurrent } from '../concurrent.js';
import type { OutlineEntry } from './storage.js';

/** Runs of first-level folders read at once. */
const OUTLINE_RUNS = 32;

/**
 * Keys asked for in a run's first page, doubled page after page up to the store's 1,000: a run
 * ends somewhere in a page, and the store lists that page whole (1,000-key pages made each of the
 * 32 runs of a root of 1,000 objects read 1,000 keys for its 190: 1 s of the SDK's CPU).
 */
const FIRST_PAGE_KEYS = 100;
const MOST_PAGE_KEYS = 1000;

/** One page of at most `max` keys (full keys, in the store's order: UTF-8 bytes) after `startAfter`. */
export type KeyPage = (startAfter: string | undefined, max: number) => Promise<{ keys: string[]; truncated: boolean }>;

/** Folders in the order of their keys: the store's (UTF-8 bytes) of `name/` ("a-b/" comes before "a/"). */
const folderOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(`${a}/`), Buffer.from(`${b}/`));

/** Told of the entries of each page of keys as it comes (ReadStorage.outline's `onEntries`). */
type Told = ((entries: OutlineEntry[]) => void) | undefined;

/**
 * The outline below `prefix` ('' or ending in '/'), given its first-level folders (names) and a
 * way to read pages of keys; files at the first level are the caller's (it has listed them).
 * `onEntries`: told of the new entries of each page as it comes.
 */
export async function outlineFromKeys(
  prefix: string,
  folders: readonly string[],
  depth: number,
  page: KeyPage,
  onEntries?: Told,
): Promise<OutlineEntry[]> {
  const sorted = [...folders].sort(folderOrder);
  const size = Math.ceil(sorted.length / OUTLINE_RUNS);
  const runs: string[][] = [];
  for (let i = 0; i < sorted.length; i += size) runs.push(sorted.slice(i, i + size));
  const out: OutlineEntry[] = [];
  await forEachConcurrent(runs, OUTLINE_RUNS, async (run) => {
    out.push(...(await outlineRun(prefix, run, depth, page, onEntries)));
  });
  return out;
}

/** The outline of the folders of one run (consecutive in the store's order). */
async function outlineRun(prefix: string, run: readonly string[], depth: number, page: KeyPage, onEntries: Told): Promise<OutlineEntry[]> {
  const inRun = new Set(run);
  const last = run[run.length - 1]!;
  const seen = new Set<string>();
  const out: OutlineEntry[] = [];
  // Just before the run's first folder's keys ('.' precedes '/'): a key between is of an earlier folder or a first-level file.
  let after: string | undefined = `${prefix}${run[0]}.`;
  for (let max = FIRST_PAGE_KEYS; ; max = Math.min(2 * max, MOST_PAGE_KEYS)) {
    const { keys, truncated } = await page(after, max);
    const told = out.length;
    let past = false;
    for (const key of keys) {
      const parts = key.slice(prefix.length).split('/');
      if (parts.length === 1) continue;
      if (folderOrder(parts[0]!, last) > 0) {
        past = true;
        break;
      }
      if (!inRun.has(parts[0]!) || parts[parts.length - 1] === '') continue; // not a folder of the run; a folder marker
      const path = parts.length > depth ? parts.slice(0, depth).join('/') : parts.join('/');
      if (seen.has(path)) continue;
      seen.add(path);
      out.push({ path, isDirectory: parts.length > depth });
    }
    if (out.length > told) onEntries?.(out.slice(told));
    if (past || !truncated || keys.length === 0) return out;
    const lastKey = keys[keys.length - 1]!;
    const parts = lastKey.slice(prefix.length).split('/');
    after = parts.length > depth ? `${prefix}${parts.slice(0, depth).join('/')}0` : lastKey;
  }
}
