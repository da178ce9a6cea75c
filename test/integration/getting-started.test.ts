/**
 * Issue 14, getting started: the README's first session runs as written and audits clean (no
 * W005/W007), and every dependency with an install script is allowed in package.json (npm warns on
 * each install otherwise). That the package installs as a global command from its tarball is shown
 * on every Node line by test/line/packed-tarball.test.ts.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { BIN } from '../helpers/cli.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  allowScripts: Record<string, boolean>;
};

/** The shell block of the README that follows `marker`. */
function readmeBlock(marker: string): string {
  const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no "${marker}"`);
  const m = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  return m![1]!;
}

test("the README's first session runs as written and its audits report no error and no warning", (t) => {
  const cwd = tempDir('siard-getting-started-');
  const bin = path.join(cwd, '.bin');
  mkdirSync(bin);
  symlinkSync(BIN, path.join(bin, 'siard-ocfl'));
  // The README runs in the clone; here the session runs in a fresh folder, the fixture named by its path.
  const block = readmeBlock('A first session').replaceAll('node fixtures/', `node ${PROJECT_ROOT}/fixtures/`);
  t.regex(block, /^export SIARD_OCFL_USER_NAME=/m);
  const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` };
  delete env.SIARD_OCFL_USER_NAME;
  delete env.SIARD_OCFL_USER_ADDRESS;
  const r = spawnSync('bash', ['-e', '-c', block], { cwd, env, encoding: 'utf8' });
  t.is(r.status, 0, r.stderr);
  const audits = r.stdout.split('\n').filter((l) => l.startsWith('AUDIT '));
  t.deepEqual(audits, ['AUDIT PASSED: 1 object, 0 errors, 0 warnings.', 'AUDIT PASSED: 1 object, 0 errors, 0 warnings.']);
  t.notRegex(r.stdout, /^WARNING /m);
  // The user came from the environment the README sets once.
  const log = spawnSync(process.execPath, [BIN, 'log', '--root', 'archive-root', '--id', 'urn:example:northwind', '--json'], {
    cwd,
    encoding: 'utf8',
  });
  t.like(JSON.parse(log.stdout), [{ user: { name: 'A. Archivist', address: 'mailto:a@example.org' } }, { user: { name: 'A. Archivist' } }]);
});

test('a user address without a name in the environment is refused in one sentence', (t) => {
  const cwd = tempDir('siard-user-env-');
  mkdirSync(path.join(cwd, 'in'));
  const env = { ...process.env, SIARD_OCFL_USER_ADDRESS: 'mailto:a@example.org' };
  delete env.SIARD_OCFL_USER_NAME;
  t.is(spawnSync(process.execPath, [BIN, 'init', 'R'], { cwd }).status, 0);
  const r = spawnSync(process.execPath, [BIN, 'put', '--root', 'R', '--id', 'urn:x:1', 'in'], { cwd, env, encoding: 'utf8' });
  t.is(r.status, 2);
  t.is(r.stderr, 'siard-ocfl: SIARD_OCFL_USER_ADDRESS is set but SIARD_OCFL_USER_NAME is not; set both, or give --user-name.\n');
});

test('every dependency with an install script is in allowScripts', (t) => {
  const deps = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {})];
  const withScripts = deps.filter((d) => {
    const file = path.join(PROJECT_ROOT, 'node_modules', d, 'package.json');
    if (!existsSync(file)) return false;
    const scripts = (JSON.parse(readFileSync(file, 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
    return ['preinstall', 'install', 'postinstall'].some((s) => s in scripts);
  });
  t.true(withScripts.includes('koffi') && withScripts.includes('better-sqlite3'), withScripts.join(','));
  for (const d of withScripts) t.true(pkg.allowScripts[d], `${d} is missing from allowScripts`);
});
