/**
 * Running a verb on hostile input the way the tests need it: the built CLI in a child process with a 256 MiB heap, its peak resident memory
 * measured by /usr/bin/time when present, its working folder an empty folder of its own (so a relative
 * write would show up there), and nothing of its output kept beyond what the checks need.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { BIN as PROJECT_BIN } from '../../helpers/cli.js';

/** The CLI under test; SIARD_OCFL_BIN may point at a frozen build (a tree others rebuild meanwhile makes noise). */
const BIN = process.env.SIARD_OCFL_BIN ?? PROJECT_BIN;

export const HEAP_MB = 256;
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
let runs = 0;

export interface Run {
  exit: number;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** peak resident set size in KiB, when measured */
  maxRssKb?: number;
}

/**
 * A child still running after this is killed: a guard against hangs (the parses this corpus once
 * made run for hours), wide enough for a loaded CI machine (at 120 s a zip bomb's restore, which
 * had already refused the value, was killed at load 13).
 */
const CHILD_TIMEOUT_MS = 300_000;

export function runChild(argv: string[], options: { cwd: string; timeoutMs?: number }): Promise<Run> {
  mkdirSync(options.cwd, { recursive: true });
  const rssFile = path.join(path.dirname(options.cwd), `.rss-${process.pid}-${++runs}`);
  const node = [process.execPath, `--max-old-space-size=${HEAP_MB}`];
  const full = TIME ? [TIME, '-f', '%M', '-o', rssFile, ...node, ...argv] : [...node, ...argv];
  return new Promise((resolve, reject) => {
    const child = spawn(full[0]!, full.slice(1), {
      cwd: options.cwd,
      // Its own process group, so that the timeout stops node too, not only /usr/bin/time above it
      // (an orphaned node went on loading the machine the other children were measured on).
      detached: true,
      env: { ...process.env, NODE_OPTIONS: '', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, options.timeoutMs ?? CHILD_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      let maxRssKb: number | undefined;
      if (TIME && existsSync(rssFile)) {
        const lines = readFileSync(rssFile, 'utf8').trim().split('\n');
        const n = Number(lines[lines.length - 1]);
        if (Number.isFinite(n)) maxRssKb = n;
        rmSync(rssFile, { force: true });
        // /usr/bin/time reports a child's signal as "Command terminated by signal N", exit 128+N.
        const m = /terminated by signal (\d+)/.exec(lines.join('\n'));
        if (m) return resolve({ exit: 128 + Number(m[1]), signal: 'SIGKILL', stdout, stderr, ...(maxRssKb ? { maxRssKb } : {}) });
      }
      resolve({ exit: code ?? 128, signal, stdout, stderr, ...(maxRssKb !== undefined ? { maxRssKb } : {}) });
    });
  });
}

export function cli(args: string[], cwd: string, timeoutMs?: number): Promise<Run> {
  return runChild([BIN, ...args], { cwd, ...(timeoutMs ? { timeoutMs } : {}) });
}

/** Runs `jobs` with at most `width` at a time, results in order. */
export async function pool<T>(jobs: Array<() => Promise<T>>, width = 2): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, jobs.length) }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]!();
      }
    }),
  );
  return out;
}
