/**
 * `siard-ocfl serve` as a user starts it: a child process of bin/siard-ocfl, its address read from
 * the first line of its stdout. Stopped with SIGTERM (and SIGKILL if it lingers) after the file.
 */
import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { BIN } from './cli.js';
import { PROJECT_ROOT } from './shared.js';

export interface Served {
  /** `http://host:port/` from the first line */
  url: string;
  /** every stdout line so far */
  lines: string[];
  child: ChildProcess;
  stderr(): string;
}

const running: ChildProcess[] = [];
test.after.always(async () => {
  for (const child of running) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await once(child, 'exit');
    clearTimeout(timer);
  }
});

/** Starts `serve` with `args` (and `env` added to this process's); resolves when its first line is out (rejects if it exits first). */
export function startServe(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  running.push(child);
  const lines: string[] = [];
  let stderr = '';
  let partial = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      partial += d;
      const parts = partial.split('\n');
      partial = parts.pop()!;
      lines.push(...parts);
      const m = lines.length > 0 ? / at (http:\/\/\S+\/)$/.exec(lines[0]!) : null;
      if (m) resolve({ url: m[1]!, lines, child, stderr: () => stderr });
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code} before its first line: ${stderr}`)));
  });
}
