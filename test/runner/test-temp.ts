/**
 * Where a run's temporary files go: a folder in memory (/dev/shm) when it is there with room, so
 * that the tests do not measure the disk. Every test folder, every command-line child's workspace
 * (`$TMPDIR/siard-ocfl-work`) and the shared servers' data then live in RAM, and each commit's
 * syncfs flushes a tmpfs instead of the whole disk the other test worker writes to: in a run at
 * 5b17ef9 that cut 184 s of the 1,222 s of CPU (sys time 252 -> 187 s), and scale.test.ts, whose
 * commits waited for the other worker's writes to reach the disk, stopped waiting.
 *
 * What needs a disk says so: `helpers/tmp.ts`'s diskTempDir() (O_DIRECT, the page cache) uses
 * SIARD_OCFL_TEST_DISK_TMPDIR, the temporary folder the run was started with. The fault suite keeps
 * the disk (its kills and full disks are about real file systems). SIARD_OCFL_TEST_TMPDIR=<folder>
 * chooses the folder; SIARD_OCFL_TEST_TMPDIR=disk keeps the system's.
 */
import { chmodSync, mkdirSync, mkdtempSync, statfsSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SHM = '/dev/shm';
/** A run peaked at 0.85 GB in /dev/shm (sampled every 10 s); 4 GiB leaves room for what was missed. */
const ROOM = 4 * 1024 ** 3;

function freeBytes(dir: string): number {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return 0;
  }
}

export interface TestTemp {
  /** the folder TMPDIR points to for the run (removed with the run's work folder) */
  dir: string;
  /** where it is, for the run's report */
  where: string;
}

/**
 * Makes the run's temporary folder and returns it; `diskTmp` is the temporary folder the run was
 * started with, returned as it is when memory has no room. tsx keeps its compile cache in `$TMPDIR/tsx-<uid>`:
 * a link to the usual one keeps it warm from run to run.
 */
export function makeTestTemp(diskTmp: string): TestTemp {
  const chosen = process.env.SIARD_OCFL_TEST_TMPDIR;
  let base: string | undefined;
  if (chosen === 'disk') base = undefined;
  else if (chosen) base = chosen;
  else if (freeBytes(SHM) >= ROOM) base = SHM;
  if (!base) return { dir: diskTmp, where: `${diskTmp} (the system's temporary folder)` };
  const dir = mkdtempSync(path.join(base, 'siard-ocfl-tmp-'));
  // Open to every user with the sticky bit, as /tmp is: tests run servers and commands as
  // unprivileged users (postgres's initdb, `runuser -u nobody`) in folders made here.
  chmodSync(dir, 0o1777);
  const uid = process.geteuid?.() ?? os.userInfo().username;
  const tsxCache = path.join(diskTmp, `tsx-${uid}`);
  mkdirSync(tsxCache, { recursive: true });
  symlinkSync(tsxCache, path.join(dir, `tsx-${uid}`));
  return { dir, where: `${dir} (in memory: ${base === SHM ? 'a tmpfs with room' : 'SIARD_OCFL_TEST_TMPDIR'})` };
}
