/**
 * Loaded by ava in every test worker (the `require` of the ava configs): when the worker exits it
 * writes how long its test file took, in wall time and in CPU time of the worker and of the child
 * processes it waited for, and when it ran, to the folder the runner names (SIARD_OCFL_TEST_TIMINGS). The runner
 * prints the slowest files at the end of a run (test/runner/slowest.ts).
 */
import test from 'ava';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** utime + stime of this process and cutime + cstime of its reaped children, in seconds (Linux /proc). */
function cpuSeconds(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return ticks / 100;
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  }
}

const folder = process.env.SIARD_OCFL_TEST_TIMINGS;
if (folder) {
  const started = performance.now();
  const file = fileURLToPath(test.meta.file);
  process.once('exit', () => {
    const ended = performance.now();
    const record = {
      file,
      wallSeconds: (ended - started) / 1000,
      cpuSeconds: cpuSeconds(),
      // When it ran (ms since the epoch), so the runner can tell how many files ran at once.
      startedAt: performance.timeOrigin + started,
      endedAt: performance.timeOrigin + ended,
    };
    writeFileSync(path.join(folder, `${process.pid}.json`), JSON.stringify(record));
  });
}
