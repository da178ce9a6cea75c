/** Runs the built command line as a user would: a child process of bin/siard-ocfl. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from './shared.js';

export const BIN = path.join(PROJECT_ROOT, 'bin', 'siard-ocfl');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? PROJECT_ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
