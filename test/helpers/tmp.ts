/** Temporary folders that are removed after the test file ends. */
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];
test.after.always(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/**
 * A temporary folder on a disk, for tests of what only a disk does (O_DIRECT around the page
 * cache): the run's TMPDIR is in memory (runner/test-temp.ts), SIARD_OCFL_TEST_DISK_TMPDIR names
 * the folder it replaced.
 */
export function diskTempDir(prefix = 'siard-ocfl-test-'): string {
  const dir = mkdtempSync(path.join(process.env.SIARD_OCFL_TEST_DISK_TMPDIR ?? os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function tempDir(prefix = 'siard-ocfl-test-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A file `name` in a temporary folder, made by `build` on the first call only (shared by the tests of a file). */
export function builtOnce(prefix: string, name: string, build: (file: string) => void): () => string {
  let built: string | undefined;
  return () => {
    if (!built) {
      built = path.join(tempDir(prefix), name);
      build(built);
    }
    return built;
  };
}
