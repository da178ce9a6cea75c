/**
 * Shared by the fault tests: a seeded PRNG (the seed is printed, FAULT_SEED replays it), small
 * SQLite databases with LOBs made from that PRNG, the built CLI as a child that can be killed at a
 * chosen moment, and readers of what a root holds (head, state, workspace leftovers).
 */
import Database from '../../src/sources/sqlite/driver.js';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { openRoot } from '../../src/ocfl/root.js';
import { defaultWorkspaceDir } from '../../src/ocfl/commit/workspace.js';
import { BIN as PROJECT_BIN } from '../helpers/cli.js';

/** The CLI under test; SIARD_OCFL_BIN may point at a frozen build (a tree others rebuild meanwhile makes noise). */
const BIN = process.env.SIARD_OCFL_BIN ?? PROJECT_BIN;
import { PROJECT_ROOT } from '../helpers/shared.js';

/** Kill moments are picked with the fixtures' seeded mulberry32, so a seed replays a series. */
import { rng as prng } from '../../fixtures/northwind.js';

export { prng };

export function faultSeed(): number {
  const fromEnv = process.env.FAULT_SEED;
  return fromEnv !== undefined ? Number(fromEnv) : Math.floor(Math.random() * 2 ** 31);
}

/** Runs per verb: FAULT_RUNS, default 50 (the minimum). */
export function faultRuns(): number {
  const n = Number(process.env.FAULT_RUNS ?? 50);
  return Number.isInteger(n) && n > 0 ? n : 50;
}

function bytes(rand: () => number, n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i += 4) b.writeUInt32LE(Math.floor(rand() * 2 ** 32) >>> 0, Math.min(i, n - 4));
  return b;
}

/**
 * A database whose LOBs are mostly external files: `lobs` BLOBs of `lobSize` bytes (above the
 * default inline limit) and `inline` small BLOBs that stay in the table XML (so the .siard
 * itself has some size, which relocate copies entry by entry).
 */
export function makeDatabase(file: string, seed: number, options: { lobs?: number; lobSize?: number; inline?: number } = {}): string {
  const rand = prng(seed);
  const db = new Database(file);
  db.exec('CREATE TABLE doc (id INTEGER PRIMARY KEY, name TEXT NOT NULL, body BLOB)');
  db.exec('CREATE TABLE note (id INTEGER PRIMARY KEY, data BLOB)');
  const doc = db.prepare('INSERT INTO doc VALUES (?, ?, ?)');
  const note = db.prepare('INSERT INTO note VALUES (?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= (options.lobs ?? 40); i++) doc.run(i, `document ${i}`, bytes(rand, options.lobSize ?? 100 * 1024));
    for (let i = 1; i <= (options.inline ?? 600); i++) note.run(i, bytes(rand, 1500));
  })();
  db.close();
  return file;
}

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface RunningChild {
  pid: number;
  kill(): void;
  done: Promise<ChildResult>;
}

/** Starts the built CLI. `shell` wraps it (e.g. a ulimit); `uid`/`gid` run it as another user. */
export function startCli(args: string[], options: { shell?: string; uid?: number; gid?: number; cwd?: string } = {}): RunningChild {
  const started = performance.now();
  const argv = options.shell
    ? ['sh', '-c', `${options.shell}; exec "$0" "$@"`, process.execPath, BIN, ...args]
    : [process.execPath, BIN, ...args];
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: options.cwd ?? PROJECT_ROOT,
    env: { ...process.env, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.uid !== undefined ? { uid: options.uid, gid: options.gid } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<ChildResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: performance.now() - started }));
  });
  return { pid: child.pid!, kill: () => child.kill('SIGKILL'), done };
}

export function runCliToEnd(args: string[], options: Parameters<typeof startCli>[1] = {}): Promise<ChildResult> {
  return startCli(args, options).done;
}

export interface WatchedResult extends ChildResult {
  killed: boolean;
  /** ms from spawn until a stage folder appeared in the workspace (undefined: never seen) */
  stageAtMs?: number;
}

/**
 * Runs the command while watching the workspace for a stage folder (`stage-*`, where versions
 * are built) every 5 ms. SIGKILLs it `kill.afterStartMs` after the spawn, or `kill.afterStageMs`
 * after its stage appeared (i.e. while it streams content into the stage); no kill when neither.
 */
export async function runWatched(
  args: string[],
  workspaceDir: string,
  kill: { afterStartMs?: number; afterStageMs?: number } = {},
): Promise<WatchedResult> {
  const child = startCli(args);
  const started = performance.now();
  let finished = false;
  let stageAtMs: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  const killLater = (ms: number) => {
    timer = setTimeout(() => {
      if (!finished) child.kill();
    }, ms);
  };
  if (kill.afterStartMs !== undefined) killLater(kill.afterStartMs);
  const poll = setInterval(() => {
    if (stageAtMs !== undefined) return;
    let names: string[] = [];
    try {
      names = readdirSync(workspaceDir);
    } catch {
      return;
    }
    if (names.some((n) => n.startsWith('stage-'))) {
      stageAtMs = performance.now() - started;
      if (kill.afterStageMs !== undefined) killLater(kill.afterStageMs);
    }
  }, 5);
  const result = await child.done;
  finished = true;
  clearInterval(poll);
  if (timer) clearTimeout(timer);
  return { ...result, killed: result.signal === 'SIGKILL', ...(stageAtMs !== undefined ? { stageAtMs } : {}) };
}

export interface ObjectState {
  head: string;
  versions: number;
  /** logical path -> digest of the head */
  state: Map<string, string>;
}

export async function objectState(rootDir: string, id: string): Promise<ObjectState | undefined> {
  const root = await openRoot(rootDir);
  if ((await root.findObject(id)) === undefined) return undefined;
  const reader = await root.openObject(id);
  return { head: reader.head, versions: reader.versions().length, state: reader.state() };
}

/**
 * What a writer left in the workspace (default: the sibling of the root) besides the locks
 * folder, plus any lock still there. After a successful run both must be empty.
 */
export function workspaceLeftovers(rootDir: string, ws = defaultWorkspaceDir(rootDir)): string[] {
  if (!existsSync(ws)) return [];
  const out: string[] = [];
  for (const name of readdirSync(ws)) {
    if (name !== 'locks') out.push(name);
    else for (const lock of readdirSync(path.join(ws, name))) out.push(`locks/${lock}`);
  }
  return out;
}

export function sameState(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

export { treeDigests } from '../helpers/file-tree.js';

/** The first difference between two trees of digests (treeDigests), or undefined when they are equal. */
export function sameTree(a: Map<string, string>, b: Map<string, string>): string | undefined {
  for (const [k, v] of a) if (b.get(k) !== v) return `${k} ${b.has(k) ? 'differs' : 'is missing'}`;
  for (const k of b.keys()) if (!a.has(k)) return `${k} is extra`;
  return undefined;
}
