/** The end of a test run: the slowest test files, from the records test/runner/file-timer.ts wrote. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface FileTiming {
  file: string;
  wallSeconds: number;
  cpuSeconds: number;
  startedAt?: number;
  endedAt?: number;
}

export function readTimings(folder: string): FileTiming[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(path.join(folder, name), 'utf8')) as FileTiming);
}

/** Lines naming the `count` files that took the longest wall time, with their CPU time (own and children's). */
export function slowestReport(timings: FileTiming[], projectRoot: string, count = 15): string {
  const sorted = [...timings].sort((a, b) => b.wallSeconds - a.wallSeconds).slice(0, count);
  const lines = sorted.map(
    (t) => `${t.wallSeconds.toFixed(1).padStart(7)} s ${t.cpuSeconds.toFixed(1).padStart(7)} s  ${path.relative(projectRoot, t.file)}`,
  );
  const cpu = timings.reduce((sum, t) => sum + t.cpuSeconds, 0);
  return [
    `The ${sorted.length} slowest of ${timings.length} test files ` +
      `(wall, CPU of the file and its child processes; ${cpu.toFixed(0)} s of CPU in all):`,
    ...lines,
  ].join('\n');
}

/**
 * How full the run kept its workers: from the first file's start to the last file's end, the
 * seconds during which fewer than two files ran (one core, or both, left to idle unless a file's
 * children filled them) and the mean number of files running.
 */
export function concurrencyReport(timings: FileTiming[]): string {
  const events: Array<[number, number]> = [];
  for (const t of timings) if (t.startedAt !== undefined && t.endedAt !== undefined) events.push([t.startedAt, 1], [t.endedAt, -1]);
  if (events.length === 0) return '';
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let running = 0;
  let fileSeconds = 0;
  let underTwo = 0;
  for (let i = 0; i < events.length - 1; i++) {
    running += events[i]![1];
    const span = (events[i + 1]![0] - events[i]![0]) / 1000;
    fileSeconds += running * span;
    if (running < 2) underTwo += span;
  }
  const total = (events.at(-1)![0] - events[0]![0]) / 1000;
  return (
    `Test files ran ${total.toFixed(0)} s, ${(fileSeconds / total).toFixed(2)} at once on average; ` +
    `fewer than two at once for ${underTwo.toFixed(0)} s.`
  );
}
