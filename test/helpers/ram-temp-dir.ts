/**
 * A temporary folder in memory for tests that write thousands of small files where the file system
 * is not what they check: under /dev/shm (a tmpfs on Linux) when it is there with room to spare,
 * else under the system's temporary folder. On a disk every file the export writes is fsynced, and
 * the kernel's work for that was a third of the CPU time of resegment-memory.test.ts. Removed after
 * the test file, like helpers/tmp.ts's folders.
 */
import test from 'ava';
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SHM = '/dev/shm';
const made: string[] = [];
test.after.always(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function shmHasRoom(bytes: number): boolean {
  try {
    const s = statfsSync(SHM);
    return s.bavail * s.bsize >= bytes;
  } catch {
    return false;
  }
}

/** A new folder under /dev/shm when at least `room` bytes are free there, else under os.tmpdir(). */
export function ramTempDir(prefix: string, room: number): string {
  let dir: string | undefined;
  if (shmHasRoom(room)) {
    try {
      dir = mkdtempSync(path.join(SHM, prefix));
    } catch {
      // not writable here: the system's temporary folder
    }
  }
  dir ??= mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}
