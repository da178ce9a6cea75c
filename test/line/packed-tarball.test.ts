/**
 * Issue 14, on every Node line (CI): the package as users get it. `npm pack`, then `npm install -g`
 * of the tarball into a fresh prefix with this line's npm, gives a siard-ocfl command whose native
 * modules were installed for this line, and that command exports a database; the package's library
 * entry imports with the promised names.
 *
 * better-sqlite3 12.x installs its binary with prebuild-install, which a user's machine downloads
 * from the project's GitHub releases; this machine reaches no host but the npm registry, so the
 * install would compile SQLite instead (two minutes of CPU). Where the clone's own better-sqlite3
 * binary was built for this Node's ABI, it is handed to prebuild-install as that download (its
 * `local-prebuilds` folder, under the file name it would download); elsewhere the install compiles,
 * as it would for a user offline.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';
import { distBuilt } from '../helpers/built-dist.js';

const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };

/**
 * A folder holding the clone's better-sqlite3 binary packed as the prebuild this Node would download,
 * or undefined when that binary does not load here (built for another ABI).
 */
function localPrebuilds(base: string): string | undefined {
  const pkgDir = path.join(PROJECT_ROOT, 'node_modules', 'better-sqlite3');
  const binary = path.join(pkgDir, 'build', 'Release', 'better_sqlite3.node');
  const loads = spawnSync(process.execPath, ['-e', `process.dlopen({ exports: {} }, ${JSON.stringify(binary)})`]);
  if (loads.status !== 0) return undefined;
  const { version } = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  const dir = path.join(base, 'prebuilds');
  mkdirSync(dir);
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const tar = spawnSync('tar', ['-czf', path.join(dir, name), '-C', pkgDir, 'build/Release/better_sqlite3.node']);
  return tar.status === 0 ? dir : undefined;
}

test('npm pack, then npm install -g of the tarball, gives a siard-ocfl command that exports a database', async (t) => {
  await distBuilt();
  const base = tempDir('siard-global-');
  const prebuilds = localPrebuilds(base);
  t.log(
    prebuilds ? 'better-sqlite3 12.x: the local prebuild' : `better-sqlite3 12.x: compiled (no binary for ABI ${process.versions.modules})`,
  );
  const env = {
    ...process.env,
    npm_config_loglevel: 'error',
    ...(prebuilds ? { npm_config_better_sqlite3_local_prebuilds: prebuilds } : {}),
  };
  const npm = (args: string[], cwd: string) => spawnSync('npm', args, { cwd, encoding: 'utf8', env });
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
  // The library as a user imports it from the installed package: the promised names, no internals.
  const lib = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', "const api = await import('siard-ocfl'); process.stdout.write(Object.keys(api).join(','))"],
    { cwd: path.join(prefix, 'lib'), encoding: 'utf8' },
  );
  t.is(lib.status, 0, lib.stderr);
  const names = lib.stdout.split(',');
  for (const name of [
    'openRoot',
    'ingest',
    'audit',
    'relocate',
    'checkoutArchive',
    'restore',
    'verify',
    'diff',
    'validatePath',
    'SiardOcflError',
  ]) {
    t.true(names.includes(name), `the package exports ${name}`);
  }
  t.false(names.includes('StagedVersionSink'), 'internals stay inside');
  // The SQLite binary came with it: a real export runs from the installed command.
  const db = path.join(base, 'nw.db');
  t.is(spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'fixtures', 'northwind.js'), db]).status, 0);
  const exp = spawnSync(cmd, ['export', db, path.join(base, 'out'), '--json'], { encoding: 'utf8' });
  t.is(exp.status, 0, exp.stderr);
  t.is(JSON.parse(exp.stdout).rows, 87);
});
