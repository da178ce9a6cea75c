/**
 * The outline of a tree on an object store (ReadStorage.outline): the folders `depth` levels
 * down and the files above them, from pages of keys instead of one request per folder. Listing
 * a root of 10,000 objects folder by folder (0003: three tuple levels) takes some 23,000
 * requests; here the keys below the first-level folders are read in runs, OUTLINE_RUNS at once,
 * each run a few pages of keys, and every page that ends inside a folder at `depth`
 * goes on past that folder's keys (StartAfter `folder` + '0': '0' follows '/' in byte order), so
 * an object of a million files costs one page, not a thousand. Each page's entries can be told as
 * it comes: the first objects of a root are known after one page of each run. A folder at `depth`
 * whose keys all came in one page is told with their sizes (a reader need not list it again).
 */
import { forEachConcurrent } from '../concurrent.js';
import type { OutlineEntry, OutlineSizes } from './storage.js';

/** Runs of first-level folders read at once. */
const OUTLINE_RUNS = 32;

/**
 * First-level folders a run holds at least: a run's first page is FIRST_PAGE_KEYS whatever its
 * keys, so the 64 folders of a root's first listing page in 32 runs read 3,200 keys for some 400
 * (0003: a folder of one small object or two), and at 2 cores their parsing delayed the first
 * objects (1,000 objects on Ceph RGW: 2,301 keys read until 50 found, 0.20 s of CPU).
 */
const RUN_FOLDERS = 16;

/**
 * Keys asked for in a run's first page, doubled page after page up to the store's 1,000: a run
 * ends somewhere in a page, and the store lists that page whole (1,000-key pages made each of the
 * 32 runs of a root of 1,000 objects read 1,000 keys for its 190: 1 s of the SDK's CPU).
 */
const FIRST_PAGE_KEYS = 100;
const MOST_PAGE_KEYS = 1000;

/**
 * One page of at most `max` keys (full keys, in the store's order: UTF-8 bytes) after `startAfter`,
 * with their sizes where the store gives them.
 */
export type KeyPage = (startAfter: string | undefined, max: number) => Promise<{ keys: string[]; sizes?: number[]; truncated: boolean }>;

/** Folders in the order of their keys: the store's (UTF-8 bytes) of `name/` ("a-b/" comes before "a/"). */
const folderOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(`${a}/`), Buffer.from(`${b}/`));

/** Told of the entries of each page of keys as it comes (ReadStorage.outline's `onEntries`: its promise holds the next page). */
type Told = ((entries: OutlineEntry[]) => void | Promise<void>) | undefined;

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
  const size = Math.max(Math.ceil(sorted.length / OUTLINE_RUNS), Math.min(RUN_FOLDERS, sorted.length));
  const runs: string[][] = [];
  for (let i = 0; i < sorted.length; i += size) runs.push(sorted.slice(i, i + size));
  const out: OutlineEntry[] = [];
  await forEachConcurrent(runs, OUTLINE_RUNS, async (run) => {
    out.push(...(await outlineRun(prefix, run, depth, page, onEntries)));
  });
  return out;
}

/**
 * The outline of the folders of one run (consecutive in the store's order). A folder at `depth` is
 * sized from the sizes of its keys (they are consecutive: a prefix) unless a page ends among them,
 * as the next page starts past that folder.
 */
async function outlineRun(prefix: string, run: readonly string[], depth: number, page: KeyPage, onEntries: Told): Promise<OutlineEntry[]> {
  const inRun = new Set(run);
  const last = run[run.length - 1]!;
  const seen = new Set<string>();
  const out: OutlineEntry[] = [];
  // Just before the run's first folder's keys ('.' precedes '/'): a key between is of an earlier folder or a first-level file.
  let after: string | undefined = `${prefix}${run[0]}.`;
  for (let max = FIRST_PAGE_KEYS; ; max = Math.min(2 * max, MOST_PAGE_KEYS)) {
    const { keys, sizes, truncated } = await page(after, max);
    const told = out.length;
    const sizing = new FolderSizes(sizes !== undefined);
    let past = false;
    for (const [i, key] of keys.entries()) {
      const parts = key.slice(prefix.length).split('/');
      if (parts.length === 1) continue;
      if (folderOrder(parts[0]!, last) > 0) {
        past = true;
        break;
      }
      if (!inRun.has(parts[0]!)) continue; // not a folder of the run
      const deep = parts.length > depth;
      const path = deep ? parts.slice(0, depth).join('/') : parts.join('/');
      sizing.key(deep ? path : undefined, parts.length === depth + 1 ? parts[depth]! : undefined, sizes?.[i] ?? 0);
      if (parts[parts.length - 1] === '' || seen.has(path)) continue; // a folder marker; a folder already outlined
      seen.add(path);
      const entry: OutlineEntry = { path, isDirectory: deep };
      out.push(entry);
      if (deep) sizing.found(entry);
    }
    // The page's last folder is whole unless the next page starts past it.
    if (past || !truncated) sizing.close();
    if (out.length > told) await onEntries?.(out.slice(told));
    if (past || !truncated || keys.length === 0) return out;
    const lastKey = keys[keys.length - 1]!;
    const parts = lastKey.slice(prefix.length).split('/');
    after = parts.length > depth ? `${prefix}${parts.slice(0, depth).join('/')}0` : lastKey;
  }
}

/** The sizes of the folders at the outline's depth whose keys a page lists, one folder after another. */
class FolderSizes {
  private path: string | undefined;
  private sizes: OutlineSizes = { bytes: 0, files: new Map() };
  private entry: OutlineEntry | undefined;

  constructor(private readonly given: boolean) {}

  /** A key of the page: in the folder `path` (undefined: in none at the depth), directly when `name` is set. */
  key(path: string | undefined, name: string | undefined, size: number): void {
    if (!this.given) return;
    if (path !== this.path) {
      this.close();
      this.path = path;
      this.sizes = { bytes: 0, files: new Map() };
    }
    if (path === undefined) return;
    this.sizes.bytes += size;
    if (name !== undefined && name !== '') this.sizes.files.set(name, size);
  }

  /** The folder being read is first found in this page: it is sized once its keys end in it. */
  found(entry: OutlineEntry): void {
    if (entry.path === this.path) this.entry = entry;
  }

  /** The folder being read ends here. */
  close(): void {
    if (this.entry) this.entry.sizes = this.sizes;
    this.entry = undefined;
    this.path = undefined;
  }
}
