/**
 * Issue 14, on every Node line (CI): the package as users get it. `npm pack`, then `npm install -g`
 * of the tarball into a fresh prefix with this line's npm, gives a siard-ocfl command whose native
 * modules were installed for this line, and that command exports a database.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };

test('npm pack, then npm install -g of the tarball, gives a siard-ocfl command that exports a database', (t) => {
  const base = tempDir('siard-global-');
  const npm = (args: string[], cwd: string) =>
    spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'error' } });
  const pack = npm(['pack', '--ignore-scripts', '--pack-destination', base], PROJECT_ROOT);
  t.is(pack.status, 0, pack.stderr);
  const tarball = path.join(
    base,
    readdirSync(base).find((n) => n.endsWith('.tgz'))!,
  );
  const prefix = path.join(base, 'prefix');
  const install = npm(
    ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--allow-scripts=better-sqlite3,koffi', tarball],
    base,
  );
  t.is(install.status, 0, install.stderr);
  const cmd = path.join(prefix, 'bin', 'siard-ocfl');
  const version = spawnSync(cmd, ['--version'], { encoding: 'utf8' });
  t.is(version.status, 0, version.stderr);
  t.is(version.stdout, `${pkg.version}\n`);
  // The SQLite binary came with it: a real export runs from the installed command.
  const db = path.join(base, 'nw.db');
  t.is(spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'fixtures', 'northwind.js'), db]).status, 0);
  const exp = spawnSync(cmd, ['export', db, path.join(base, 'out'), '--json'], { encoding: 'utf8' });
  t.is(exp.status, 0, exp.stderr);
  t.is(JSON.parse(exp.stdout).rows, 87);
});
