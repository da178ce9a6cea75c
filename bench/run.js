#!/usr/bin/env node
/**
 * Runs every bench/*.bench.ts (or those named on the command line) one after another through
 * tsx, each in its own process so peak-memory figures do not mix. `npm run bench` builds first.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();
let failed = 0;
for (const file of benches) {
  process.stdout.write(`\n== ${file}\n`);
  const r = spawnSync(process.execPath, ['--import=tsx', path.join(here, file)], { stdio: 'inherit', cwd: path.dirname(here) });
  if (r.status !== 0) {
    failed++;
    process.stdout.write(`${file} failed (exit ${r.status ?? r.signal})\n`);
  }
}
process.exit(failed ? 1 : 0);
