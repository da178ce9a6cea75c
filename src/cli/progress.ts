/** A progress bar on a terminal, nothing when output is redirected or JSON is asked for. */
import cliProgress from 'cli-progress';

export interface Progress {
  start(total: number, label: string): void;
  increment(by?: number): void;
  stop(): void;
}

const silent: Progress = { start() {}, increment() {}, stop() {} };

export function createProgress(options: { json?: boolean } = {}): Progress {
  if (options.json || !process.stderr.isTTY || process.env.CI) return silent;
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
