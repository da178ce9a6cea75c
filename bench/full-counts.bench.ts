/**
 * The full counts of the tests that repeat (random inventories, damaged bytes, size series: see
 * test/helpers/repetitions.ts). `npm test` runs each with a count that still fails when its property
 * breaks; here every file that uses repetitions() runs with the counts it ran before the tiers
 * (SIARD_OCFL_FULL_COUNTS=1), and the time it took is printed. Exit status 1 when any test fails.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return testFiles(full);
    return e.name.endsWith('.test.ts') ? [full] : [];
  });
}

const files = testFiles(path.join(PROJECT, 'test'))
  .filter((f) => readFileSync(f, 'utf8').includes('repetitions('))
  .map((f) => path.relative(PROJECT, f))
  .sort();
const unit = files.filter((f) => f.startsWith('test/unit/'));
const rest = files.filter((f) => !f.startsWith('test/unit/'));
let failed = false;
for (const [config, group] of [
  ['test/unit/ava.config.mjs', unit],
  ['ava.config.mjs', rest],
] as const) {
  if (group.length === 0) continue;
  const began = performance.now();
  const r = spawnSync(
    process.execPath,
    [path.join(PROJECT, 'node_modules', 'ava', 'entrypoints', 'cli.mjs'), '--config', config, ...group],
    {
      cwd: PROJECT,
      stdio: 'inherit',
      env: { ...process.env, SIARD_OCFL_FULL_COUNTS: '1' },
    },
  );
  const seconds = (performance.now() - began) / 1000;
  console.log(
    `full counts: ${group.length} files (${group.join(', ')}) in ${seconds.toFixed(0)} s: ${r.status === 0 ? 'passed' : 'FAILED'}`,
  );
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
