/**
 * The unit tests mirror the code (issue 30, test/README.md): `test/unit/<path under src/>.test.ts`
 * is the test of that module, `test/unit/<path>.<aspect>.test.ts` one aspect of it, so that the
 * test of a module is found by its path. A unit test file whose name leads to no module (a module
 * renamed or moved without its test, a test named after a function) is named here; rules over the
 * whole code live in `test/unit/project/`.
 */
import test from 'ava';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

const UNIT = path.resolve('test', 'unit');
const SRC = path.resolve('src');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? testFiles(p) : d.name.endsWith('.test.ts') ? [p] : [];
  });
}

test('every unit test file outside project/ is named after a module under src/', (t) => {
  const files = testFiles(UNIT).map((f) => path.relative(UNIT, f).split(path.sep).join('/'));
  t.true(files.length > 20, `only ${files.length} unit test files found under ${UNIT}`);
  const orphans = files
    .filter((f) => !f.startsWith('project/'))
    .filter((f) => {
      const dir = path.posix.dirname(f);
      const module = path.posix.basename(f, '.test.ts').split('.')[0]!;
      return !existsSync(path.join(SRC, dir, `${module}.ts`));
    });
  t.deepEqual(orphans, [], `no module under src/ for: ${orphans.join(', ')}`);
});
