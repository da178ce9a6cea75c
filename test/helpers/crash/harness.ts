/**
 * Helpers for the crash and concurrency tests: input folders, a `put` child process that can be
 * killed at a named failpoint or paused at one, and checks of what a root and its workspace hold.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../shared.js';
import { openRoot } from '../../../src/ocfl/root.js';

const PUT_CHILD = path.join(PROJECT_ROOT, 'test', 'helpers', 'crash', 'put-child.mjs');

export type Files = Record<string, string>;

export function writeInput(dir: string, files: Files): string {
  mkdirSync(dir, { recursive: true });
  for (const [p, body] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), body);
  }
  return dir;
}

export interface PutRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface PutChild {
  pid: number;
  done: Promise<PutRun>;
  kill(): void;
}

/** Starts `siard-ocfl put` as a child process (see put-child.mjs); env adds failpoint variables. */
export function startPut(rootDir: string, id: string, input: string, env: NodeJS.ProcessEnv = {}): PutChild {
  const child = spawn(
    process.execPath,
    [PUT_CHILD, 'put', '--root', rootDir, '--id', id, '--fixity', 'md5', '--message', 'crash test', input],
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, SIARD_OCFL_FAILPOINT: '', SIARD_OCFL_PAUSE: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<PutRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { pid: child.pid!, done, kill: () => child.kill('SIGKILL') };
}

export function put(rootDir: string, id: string, input: string, env: NodeJS.ProcessEnv = {}): Promise<PutRun> {
  return startPut(rootDir, id, input, env).done;
}

/** The object's head state as logical path -> text, through our reader; undefined when absent. */
export async function readHead(rootDir: string, id: string): Promise<{ head: string; versions: string[]; files: Files } | undefined> {
  const root = await openRoot(rootDir);
  if ((await root.findObject(id)) === undefined) return undefined;
  const reader = await root.openObject(id);
  const files: Files = {};
  for (const p of reader.state().keys()) files[p] = (await reader.readLogical(p)).toString('utf8');
  return { head: reader.head, versions: reader.versions().map((v) => v.version), files };
}

/** Every empty folder under dir (dir itself included when empty). */
export function emptyDirs(dir: string): string[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  if (entries.length === 0) return [dir];
  return entries.filter((e) => e.isDirectory()).flatMap((e) => emptyDirs(path.join(dir, e.name)));
}

/** What the workspace holds, recursively (the folder of locks when all is clean). */
export function workspaceEntries(rootDir: string): string[] {
  const ws = path.join(path.dirname(rootDir), `.${path.basename(rootDir)}.siard-ocfl-work`);
  if (!existsSync(ws)) return [];
  return readdirSync(ws, { recursive: true, encoding: 'utf8' }).sort();
}

/** Entries of an object root that OCFL does not allow there, given its inventory's versions. */
export function unexpectedObjectEntries(objectDir: string, versions: string[]): string[] {
  const allowed = new Set(['0=ocfl_object_1.1', 'inventory.json', 'inventory.json.sha512', ...versions]);
  return readdirSync(objectDir).filter((name) => !allowed.has(name));
}
