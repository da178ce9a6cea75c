/** The end of a test run: the slowest test files, from the records test/runner/file-timer.ts wrote. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface FileTiming {
  file: string;
  wallSeconds: number;
  cpuSeconds: number;
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
