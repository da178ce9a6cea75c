/**
 * Database drivers load only when a dialect is opened: each takes about a fifth of a second to load,
 * and `relocate`, `mets` and `audit` never need one, `restore` only its target's. So no module is
 * reached from these entries by static imports that loads a driver (pg, mariadb, better-sqlite3
 * through sources/sqlite/driver.ts); the dialects (src/sources/<name>/index.ts) import theirs
 * inside openSource / openLoader. An import counts when it is not `import type` (an import of
 * types only, which the compiler erases, counts too: the rule stays simple and errs on the safe side).
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = path.resolve('src');
const DRIVERS = new Set(['pg', 'pg-copy-streams', 'mariadb', 'better-sqlite3', 'better-sqlite3-13', 'mdb-reader']);
const DRIVER_MODULE = 'sources/sqlite/driver.ts';
const STATIC_IMPORT = /^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gm;

/** Modules under src/ reached from `entry` by static imports, and the packages they import. */
function staticClosure(entry: string): { modules: Set<string>; packages: Map<string, string> } {
  const modules = new Set<string>();
  const packages = new Map<string, string>();
  const visit = (rel: string): void => {
    if (modules.has(rel)) return;
    modules.add(rel);
    const text = readFileSync(path.join(SRC, rel), 'utf8');
    for (const [, spec] of text.matchAll(STATIC_IMPORT)) {
      if (spec!.startsWith('.')) visit(path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec!.replace(/\.js$/, '.ts'))));
      else packages.set(spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!, rel);
    }
  };
  visit(entry);
  return { modules, packages };
}

for (const entry of [
  'archive/relocate.ts',
  'archive/mets.ts',
  'archive/audit.ts',
  'archive/restore.ts',
  'sources/dialects.ts',
  'index.ts',
]) {
  test(`${entry} loads no database driver until a dialect is opened`, (t) => {
    const { modules, packages } = staticClosure(entry);
    t.true(modules.size > 1 || entry === 'sources/dialects.ts', 'the closure was followed');
    t.false(modules.has(DRIVER_MODULE), `${entry} reaches ${DRIVER_MODULE} by static imports`);
    const loaded = [...packages].filter(([name]) => DRIVERS.has(name)).map(([name, by]) => `${name} (imported by ${by})`);
    t.deepEqual(loaded, [], `${entry} reaches database drivers by static imports`);
  });
}

test('the rule sees a driver when one is imported statically', (t) => {
  const { packages } = staticClosure('sources/postgres/postgres-source.ts');
  t.true(packages.has('pg'), 'postgres-source.ts imports pg');
});
