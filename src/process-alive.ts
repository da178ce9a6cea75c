import { readFileSync } from 'node:fs';

/**
 * Whether a process id names a running process (signal 0 probes without signalling; EPERM: it runs
 * as another user). A zombie is not running: a killed writer whose parent does not reap it (PID 1 of
 * a container without an init, a parent that never waits) stays a zombie, and taken for alive it
 * would hold its lock and its resumable work for ever.
 */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

/** On Linux, whether /proc says the process has ended and waits to be reaped; false where /proc is not. */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // "pid (command name) S ...": the name may hold spaces and parentheses, the state follows the last ")"
  const state = stat.charAt(stat.lastIndexOf(')') + 2);
  return state === 'Z' || state === 'X';
}
