#!/usr/bin/env node
/**
 * Runs every bench/*.bench.ts (or those named on the command line) one after another through
 * tsx, each in its own process so peak-memory figures do not mix. `npm run bench` builds first.
 * The rows the benches report for README.md's performance table (readme-rows.ts) are written
 * into it at the end (readme-table.ts); BENCH_README=0 leaves README.md alone.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();
mkdirSync(path.join(here, 'out'), { recursive: true });
const rowsFile = path.join(here, 'out', `readme-rows-${process.pid}.jsonl`);
const env = { ...process.env, BENCH_ROWS_FILE: rowsFile };
let failed = 0;
for (const file of benches) {
  process.stdout.write(`\n== ${file}\n`);
  const r = spawnSync(process.execPath, ['--import=tsx', path.join(here, file)], { stdio: 'inherit', cwd: path.dirname(here), env });
  if (r.status !== 0) {
    failed++;
    process.stdout.write(`${file} failed (exit ${r.status ?? r.signal})\n`);
  }
}
if (process.env.BENCH_README !== '0') {
  const table = path.join(here, 'readme-table.ts');
  const r = spawnSync(process.execPath, ['--import=tsx', table, rowsFile], { stdio: 'inherit', cwd: path.dirname(here) });
  if (r.status !== 0) failed++;
}
rmSync(rowsFile, { force: true });
process.exit(failed ? 1 : 0);
