/**
 * Tests that need something this machine may lack: a program (xmllint, python3, fincore), a
 * permission (mounting a tmpfs), a kernel feature. Where it is there the test runs. Where it is
 * not, the test is skipped with the reason in its title, except under CI (env CI), which installs
 * and permits all of them: there the test fails with the reason. No such test passes by
 * returning early.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';

/** `base` (default `test`) when `available`; otherwise a skipped test locally, a failing one under CI. */
export function testIf(available: boolean, reason: string, base: typeof test = test): typeof test {
  if (available) return base;
  const stand = (title: string) => {
    if (process.env.CI) base(title, (t) => t.fail(`${reason}; CI must provide it.`));
    else base.skip(`${title} (skipped: ${reason})`, () => {});
  };
  return Object.assign(stand, { serial: stand, only: stand, skip: stand, failing: stand }) as unknown as typeof test;
}

/** Whether `command` runs here (e.g. `hasProgram('xmllint', '--version')`). */
export function hasProgram(command: string, ...args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).error === undefined;
}
