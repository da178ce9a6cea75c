/**
 * Materialising one version of an object as plain files. No logical path can write outside
 * the destination: every path is checked before the first byte is written, files are created
 * exclusively (nothing is overwritten), and each file's content digest is verified while it is
 * copied. A failure (a digest mismatch: exit status 1; a full disk...) removes everything the
 * checkout wrote, leaving the destination as it was.
 */
import { createWriteStream, promises as fsp, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { SiardOcflError, UsageError } from '../../errors.js';
import { forEachConcurrent } from '../concurrent.js';
import { digestSync, MultiHasher } from '../digest.js';
import { logicalPathProblem } from '../inventory/logical-path.js';
import type { OcflObjectReader } from './object.js';

/** Files stat'ed at once while the plan is checked, and copied at once: libuv round trips overlap. */
const STAT_PARALLEL = 32;
const COPY_PARALLEL = 16;
/** Files up to this size are read whole; larger ones stream through 1 MiB buffers. */
const WHOLE_READ_MAX = 1 << 20;
/** Why a content path that exists cannot be checked out. */
const NOT_A_FILE = 'not a regular file of the object (a link, a folder, or reached through a link)';

export interface CheckoutOptions {
  version?: string;
  /** Called after each file with its size, e.g. for a progress bar. */
  onFile?: (logicalPath: string, size: number) => void;
  /** Called once, before the first file is copied, with the files and bytes to copy. */
  onPlan?: (plan: { files: number; bytes: number }) => void;
}

export interface CheckoutResult {
  version: string;
  files: number;
  bytes: number;
}

function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

export async function checkoutVersion(reader: OcflObjectReader, dest: string, options: CheckoutOptions = {}): Promise<CheckoutResult> {
  const version = options.version ?? reader.head;
  const target = path.resolve(dest);
  // Every path is judged before anything is written.
  const plan = planLogicalPaths(reader, version, target);
  const sizes = await contentSizes(reader, version, plan);
  options.onPlan?.({ files: plan.length, bytes: sizes.reduce((a, b) => a + b, 0) });
  const existing = await emptyDestination(target);
  await fsp.mkdir(target, { recursive: true });
  try {
    const bytes = await copyPlanned(reader, version, target, plan, sizes, options);
    return { version, files: plan.length, bytes };
  } catch (err) {
    // Nothing half-done is left: the destination goes back to the empty folder (or nothing) it was.
    const remove = (p: string) => fsp.rm(p, { recursive: true, force: true });
    if (existing) await Promise.all((await fsp.readdir(target)).map((name) => remove(path.join(target, name))));
    else await remove(target);
    throw err;
  }
}

/**
 * The logical paths of the version, each checked to land inside the destination, none both a file
 * and a folder. Only the paths are kept: where each goes and what it is copied from are derived when
 * used (`itemOf`), so that a million files do not hold ~400 MB of strings for the whole checkout.
 */
function planLogicalPaths(reader: OcflObjectReader, version: string, target: string): string[] {
  const state = reader.state(version);
  const plan: string[] = [];
  for (const logicalPath of state.keys()) {
    const problem = logicalPathProblem(logicalPath);
    const file = path.resolve(target, ...logicalPath.split('/'));
    // A backslash is an ordinary character in OCFL and on POSIX, but a separator on Windows.
    const windowsSeparator = process.platform === 'win32' && logicalPath.includes('\\');
    if (problem || windowsSeparator || !isInside(target, file)) {
      throw new SiardOcflError(
        `Object "${reader.id}" version ${version} has logical path ${JSON.stringify(logicalPath)}, which would escape ${target};` +
          ` nothing was written.`,
        { code: 'UNSAFE_LOGICAL_PATH', exitCode: 1 },
      );
    }
    plan.push(logicalPath);
  }
  // A path that is both a file and a folder (E095 in a bad inventory) would fail half-way.
  for (const logicalPath of plan) {
    const parts = logicalPath.split('/');
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      if (state.has(folder)) {
        throw new SiardOcflError(
          `Object "${reader.id}" version ${version} has "${folder}" both as a file and as a folder; nothing was written.`,
          { code: 'PATH_CONFLICT', exitCode: 1 },
        );
      }
    }
  }
  return plan;
}

/**
 * The size of each planned file's content. Content paths come from the inventory too: each must be
 * a plain path to a regular file of the object (not "..", not absolute, not a symbolic link),
 * judged before anything is written.
 */
async function contentSizes(reader: OcflObjectReader, version: string, plan: string[]): Promise<Float64Array> {
  const folders = new Map<string, Promise<boolean>>();
  const isFolder = (p: string) => {
    let known = folders.get(p);
    if (!known) {
      known = reader.storage.stat(reader.storagePath(p)).then((s) => s?.isDirectory === true);
      folders.set(p, known);
    }
    return known;
  };
  const sizes = new Float64Array(plan.length);
  // An object store holds no links or folders: one listing of the object gives every size
  // (a request per 1,000 files instead of one per file).
  const listed = reader.storage.localPath
    ? undefined
    : new Map((await reader.storage.walk(reader.path)).files.map((f) => [f.relative, f.size]));
  const statOf = async (contentPath: string) => {
    if (!listed) return reader.storage.stat(reader.storagePath(contentPath));
    const size = listed.get(contentPath);
    return size === undefined ? undefined : { isFile: true, isDirectory: false, size };
  };
  await forEachConcurrent(plan, STAT_PARALLEL, async (logicalPath, i) => {
    const contentPath = reader.contentPath(logicalPath, version);
    let stat = logicalPathProblem(contentPath) ? undefined : await statOf(contentPath);
    // stat does not follow a link at the end of the path; every folder on the way must be a real one too.
    const parts = contentPath.split('/');
    for (let j = 1; stat && j < parts.length; j++)
      if (!(await isFolder(parts.slice(0, j).join('/')))) stat = { isFile: false, isDirectory: false, size: 0 };
    if (!stat?.isFile) {
      throw new SiardOcflError(
        `Object "${reader.id}" version ${version} keeps logical path ${JSON.stringify(logicalPath)} at content ` +
          `path ${JSON.stringify(contentPath)}, which is ${stat ? NOT_A_FILE : 'missing or leads out of the object'}; nothing was written.`,
        { code: 'UNSAFE_CONTENT_PATH', exitCode: 1 },
      );
    }
    sizes[i] = stat.size;
  });
  return sizes;
}

/** The destination must be empty or absent; returns its entries (none) when it exists, undefined when not. */
async function emptyDestination(target: string): Promise<string[] | undefined> {
  const existing = await fsp.readdir(target).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw new UsageError(`Cannot use ${target} as checkout destination: ${err.message}`, 'BAD_DESTINATION', err);
  });
  if (existing && existing.length > 0) throw new UsageError(`Checkout destination ${target} is not empty.`, 'BAD_DESTINATION');
  return existing;
}

/** Copies every planned file, its digest verified on the way; returns the bytes copied. */
async function copyPlanned(
  reader: OcflObjectReader,
  version: string,
  target: string,
  plan: string[],
  sizes: Float64Array,
  options: CheckoutOptions,
): Promise<number> {
  const alg = reader.digestAlgorithm;
  let bytes = 0;
  // Every folder once, parents first (a sorted list puts a folder before what lies in it).
  const folders = new Set<string>();
  for (const logicalPath of plan) {
    const slash = logicalPath.lastIndexOf('/');
    if (slash > 0) folders.add(logicalPath.slice(0, slash));
  }
  const dirs = [...folders].map((f) => path.resolve(target, ...f.split('/'))).sort();
  for (const dir of dirs) await fsp.mkdir(dir, { recursive: true });
  await forEachConcurrent(plan, COPY_PARALLEL, async (logicalPath, i) => {
    const item = itemOf(reader, version, target, logicalPath);
    const actual = sizes[i]! <= WHOLE_READ_MAX ? await copySmall(reader, item, alg) : await copyStreamed(reader, item, alg);
    if (actual.digest !== item.digest.toLowerCase()) {
      throw new SiardOcflError(
        `Content ${item.contentPath} of object "${reader.id}" (logical path "${item.logicalPath}") has ${alg} ${actual.digest}, ` +
          `not ${item.digest} as the inventory records; the checkout was removed.`,
        { code: 'FIXITY_FAILURE', exitCode: 1 },
      );
    }
    bytes += actual.size;
    options.onFile?.(item.logicalPath, actual.size);
  });
  return bytes;
}

/** A logical path of the checked-out version, the file it becomes, and the content (and its digest) it is copied from. */
interface CheckoutItem {
  logicalPath: string;
  file: string;
  contentPath: string;
  digest: string;
}

/** What a planned logical path becomes and comes from (the plan checked that the file lands inside `target`). */
function itemOf(reader: OcflObjectReader, version: string, target: string, logicalPath: string): CheckoutItem {
  const digest = reader.state(version).get(logicalPath)!;
  return { logicalPath, file: path.resolve(target, ...logicalPath.split('/')), digest, contentPath: reader.contentPathOfDigest(digest) };
}

/**
 * A file that fits one read: read, digest and write whole (no stream, no 1 MiB buffer per small
 * file). Written with synchronous calls (open, write, close on this thread): three thread-pool
 * round trips cost more than writing a few KiB to the page cache (src/read-small-file.ts).
 */
async function copySmall(reader: OcflObjectReader, item: CheckoutItem, alg: string): Promise<{ digest: string; size: number }> {
  const bytes = await reader.storage.readFile(reader.storagePath(item.contentPath));
  const digest = digestSync(alg, bytes);
  writeFileSync(item.file, bytes, { flag: 'wx' });
  return { digest, size: bytes.length };
}

async function copyStreamed(reader: OcflObjectReader, item: CheckoutItem, alg: string): Promise<{ digest: string; size: number }> {
  const hasher = MultiHasher.createSync([alg]);
  const hashing = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hasher.update(chunk);
      cb(null, chunk);
    },
  });
  await pipeline(reader.storage.readStream(reader.storagePath(item.contentPath)), hashing, createWriteStream(item.file, { flags: 'wx' }));
  return { digest: hasher.digests()[alg], size: hasher.size };
}
