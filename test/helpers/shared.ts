/**
 * Access to ../shared (the reference fixtures and samples), which a user's own clone may lack.
 * Tests that need it are declared with `sharedTest`: they run when the folder is there and are
 * skipped with a message saying so when it is not. In CI the folder is always there.
 */
import test from 'ava';
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's folder. The runner runs the tests from a compiled mirror whose files are links to the
 * project's (test/runner/compiled-tree.ts); the project is where its package.json really is, so that
 * what tests run, pack or write there (npm scripts, the tarball, demo-root) is the project itself.
 */
export const PROJECT_ROOT = path.dirname(
  realpathSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json')),
);
const SHARED_DIR = process.env.SIARD_OCFL_SHARED ?? path.resolve(PROJECT_ROOT, '..', 'shared');
export const HAS_SHARED = existsSync(path.join(SHARED_DIR, 'reference'));

let warned = false;
function warnOnce(): void {
  if (warned) return;
  warned = true;
  if (process.env.CI) throw new Error(`../shared is missing at ${SHARED_DIR}; CI must run every reference test.`);
  console.warn(`[siard-ocfl] ${SHARED_DIR} is absent: tests that need the shared reference material are skipped.`);
}

/** Path inside ../shared/reference. */
export function reference(...parts: string[]): string {
  return path.join(SHARED_DIR, 'reference', ...parts);
}

/** Path inside ../shared/seeds. */
export function seed(...parts: string[]): string {
  return path.join(SHARED_DIR, 'seeds', ...parts);
}

function skipped(title: string): void {
  warnOnce();
  test.skip(`${title} (needs ../shared)`, () => {});
}

/** `test` when ../shared exists; otherwise a skipped test and a one-line notice. Hooks become no-ops. */
export const sharedTest: typeof test = HAS_SHARED
  ? test
  : (Object.assign(skipped, {
      serial: skipped,
      only: skipped,
      skip: skipped,
      failing: skipped,
      before: () => {},
      after: Object.assign(() => {}, { always: () => {} }),
      beforeEach: () => {},
      afterEach: Object.assign(() => {}, { always: () => {} }),
    }) as unknown as typeof test);

/** Every .siard file under a folder (the reference samples), in sorted path order. */
export function siardFilesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) found.push(...siardFilesUnder(full));
    else if (name.endsWith('.siard')) found.push(full);
  }
  return found;
}
