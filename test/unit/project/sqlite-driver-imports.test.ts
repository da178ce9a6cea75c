/**
 * Tests and benches open SQLite through src/sources/sqlite/driver.ts, which picks the
 * better-sqlite3 build made for the running Node (12.x on Node 20, 13.x on 22 and 24): a direct
 * value import of 'better-sqlite3' loads a binary compiled for another Node and fails there only.
 */
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../helpers/shared.js';

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return d.name === 'node_modules' || d.name === 'out' ? [] : files(p);
    return /\.(ts|js|mjs)$/.test(d.name) ? [p] : [];
  });
}

test('no test, bench or fixture imports better-sqlite3 itself, only the driver module', (t) => {
  const offenders = ['test', 'bench', 'fixtures', 'scripts']
    .flatMap((d) => files(path.join(PROJECT_ROOT, d)))
    .filter(
      (f) =>
        /^\s*import\s+(?!type\b)[^;]*from\s+'better-sqlite3'/m.test(readFileSync(f, 'utf8')) ||
        /require\('better-sqlite3'\)/.test(readFileSync(f, 'utf8')),
    )
    .map((f) => path.relative(PROJECT_ROOT, f));
  t.deepEqual(offenders, []);
});
