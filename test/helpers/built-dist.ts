/**
 * dist/ as the runner's build left it. `run.ts --build` runs tsc beside the first test files and
 * names, in SIARD_OCFL_TEST_BUILT, the file it writes tsc's exit code to when done; a test that
 * packs dist/ waits for it. Run alone (`npx ava <file>`), dist/ is whatever `npm run build` made.
 */
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export async function distBuilt(): Promise<void> {
  const marker = process.env.SIARD_OCFL_TEST_BUILT;
  if (!marker) return;
  while (!existsSync(marker)) await sleep(500);
  const code = readFileSync(marker, 'utf8');
  if (code !== '0') throw new Error(`The runner's build of dist/ failed (tsc exit ${code}): see its output above.`);
}
