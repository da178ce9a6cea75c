/**
 * Real tmpfs mounts for tests of roots at a mount point (needs root; CI runs as root). Each
 * mount lies in its own temporary folder and is unmounted, then removed, after the test file.
 * Where mounting is refused, `tmpfsTest` skips with a message, except under CI (env CI), where
 * the tests run and fail, so a CI that lost the privilege cannot pass by skipping.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const mounts: string[] = [];
test.after.always(() => {
  for (const dir of mounts) {
    try {
      execFileSync('umount', [dir], { stdio: 'ignore' });
    } catch {
      // not mounted (the test may have unmounted it)
    }
    rmSync(path.dirname(dir), { recursive: true, force: true });
  }
});

/** A fresh tmpfs at `<tmp>/<prefix>XXXX/mnt`; undefined when mounting is refused. */
export function mountTmpfs(prefix = 'siard-ocfl-tmpfs-', size = '64m'): string | undefined {
  const base = mkdtempSync(path.join(os.tmpdir(), prefix));
  const mnt = path.join(base, 'mnt');
  try {
    execFileSync('mkdir', [mnt]);
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mnt], { stdio: 'ignore' });
  } catch {
    rmSync(base, { recursive: true, force: true });
    return undefined;
  }
  mounts.push(mnt);
  return mnt;
}

/** Whether this process may mount (tried once, with a mount that is removed at once). */
export const canMount: boolean = (() => {
  if (process.getuid?.() !== 0) return false;
  const mnt = mountTmpfs('siard-ocfl-tmpfs-probe-', '1m');
  if (!mnt) return false;
  execFileSync('umount', [mnt]);
  return true;
})();

/** `test.serial` where mounting works or under CI; elsewhere `test.skip`, with a message once. */
export const tmpfsTest = canMount || process.env.CI ? test.serial : test.skip;
if (!canMount) {
  console.log(
    `[tmpfs] mounting a tmpfs is refused here (not root?): the mount-point tests ` +
      `are ${process.env.CI ? 'run and will fail (CI is set)' : 'skipped'}.`,
  );
}
