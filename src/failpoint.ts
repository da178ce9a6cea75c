/**
 * Named points in the write path where a test can kill or pause the process, to prove that a
 * crash anywhere leaves every object at its old or its new version.
 *
 *   SIARD_OCFL_FAILPOINT=<name>[#k]   SIGKILL this process at the k-th (default first) pass of <name>
 *   SIARD_OCFL_FAILPOINT_ERROR=<name>[#k]  throw an I/O error there instead (the process lives on)
 *   SIARD_OCFL_PAUSE=<name>           at <name>, create $SIARD_OCFL_PAUSE_FILE.waiting and wait
 *                                     until $SIARD_OCFL_PAUSE_FILE exists
 *
 * Without these variables a failpoint costs one string comparison.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const counts = new Map<string, number>();

function parse(spec: string | undefined): { name: string; nth: number } | undefined {
  if (!spec) return undefined;
  const [name, nth] = spec.split('#');
  return { name, nth: nth ? Number(nth) : 1 };
}

const kill = parse(process.env.SIARD_OCFL_FAILPOINT);
const error = parse(process.env.SIARD_OCFL_FAILPOINT_ERROR);
const pause = process.env.SIARD_OCFL_PAUSE;

export async function failpoint(name: string): Promise<void> {
  if (kill && kill.name === name) {
    const n = (counts.get(name) ?? 0) + 1;
    counts.set(name, n);
    if (n === kill.nth) process.kill(process.pid, 'SIGKILL');
  }
  if (error && error.name === name) {
    const key = `error:${name}`;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    if (n === error.nth) throw Object.assign(new Error(`EIO: injected i/o error at ${name}`), { code: 'EIO' });
  }
  if (pause && pause === name) {
    const file = process.env.SIARD_OCFL_PAUSE_FILE;
    if (!file) throw new Error('SIARD_OCFL_PAUSE needs SIARD_OCFL_PAUSE_FILE.');
    writeFileSync(file + '.waiting', String(process.pid));
    while (!existsSync(file)) await sleep(20);
  }
}
