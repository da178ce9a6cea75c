/** A progress bar on a terminal, nothing when output is redirected or JSON is asked for. */
import { createRequire } from 'node:module';
import type cliProgressModule from 'cli-progress';

export interface Progress {
  start(total: number, label: string): void;
  increment(by?: number): void;
  stop(): void;
}

const silent: Progress = { start() {}, increment() {}, stop() {} };

export function createProgress(options: { json?: boolean } = {}): Progress {
  if (options.json || !process.stderr.isTTY || process.env.CI) return silent;
  // Loaded only for a terminal: it costs ~10 ms of start-up that scripts and cron jobs need not pay.
  const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof cliProgressModule;
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: '{label} [{bar}] {percentage}% {value}/{total}', hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  return {
    start: (total, label) => bar.start(total, 0, { label }),
    increment: (by = 1) => bar.increment(by),
    stop: () => bar.stop(),
  };
}
