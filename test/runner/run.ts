/**
 * The test runner behind the npm scripts (test/README.md says what runs where and why):
 *
 *   node --import=tsx test/runner/run.ts <tier> [--build] [ava arguments...]
 *
 *   unit    test/unit: no child process, no server (npm run test:unit)
 *   all     every tier but the fault suite (npm test): unit, integration, line
 *   line    what can differ between Node lines (npm run test:line; CI runs it on the other lines)
 *   faults  kills, full disks, load (npm run test:faults)
 *
 * It starts the servers once (test/runner/servers.ts) for the tiers that use them; with --build it
 * bundles the command line (scripts/bundle-cli.mjs, about a second: the tests run bin/siard-ocfl)
 * and runs tsc beside the first test files (types checked, dist/ for the packed tarball; a failure
 * fails the run); it runs ava with the tier's config, stops the servers and prints the slowest test
 * files with their times and how many ran at once. The tests run from JavaScript compiled once for
 * the run, in a mirror of the project (compiled-tree.ts), not through tsx in every worker.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCompiledTree } from './compiled-tree.js';
import { startServers, type RunningServers } from './servers.js';
import { concurrencyReport, readTimings, slowestReport } from './slowest.js';
import { makeTestTemp } from './test-temp.js';

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Tier {
  /** ava's config file; undefined: the one in package.json */
  config?: string;
  servers: boolean;
  /** temporary files in memory (test-temp.ts); the fault suite keeps the disk */
  ram: boolean;
}

const TIERS: Record<string, Tier> = {
  unit: { config: 'test/unit/ava.config.mjs', servers: false, ram: true },
  all: { servers: true, ram: true },
  line: { config: 'test/line/ava.config.mjs', servers: false, ram: true },
  faults: { config: 'test/faults/ava.config.mjs', servers: false, ram: false },
};

async function main(): Promise<number> {
  const [tierName, ...rest] = process.argv.slice(2);
  const build = rest[0] === '--build';
  const avaArgs = build ? rest.slice(1) : rest;
  const tier = TIERS[tierName ?? ''];
  if (!tier) {
    console.error(`usage: run.ts <${Object.keys(TIERS).join('|')}> [ava arguments...]`);
    return 2;
  }
  const began = performance.now();
  const diskTmp = os.tmpdir();
  const temp = tier.ram ? makeTestTemp(diskTmp) : { dir: diskTmp, where: `${diskTmp} (the disk)` };
  // Everything below (servers, ava, the tests and their children) takes its temporary folders here.
  process.env.TMPDIR = temp.dir;
  process.env.SIARD_OCFL_TEST_DISK_TMPDIR = diskTmp;
  console.log(`Temporary files: ${temp.where}.`);
  const work = mkdtempSync(path.join(temp.dir, 'siard-ocfl-run-'));
  const timings = path.join(work, 'timings');
  const serverFolder = path.join(work, 'servers');
  mkdirSync(timings);
  let servers: RunningServers | undefined;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SIARD_OCFL_TEST_TIMINGS: timings,
    // Node 22.1 on keeps compiled code here, so the run's hundreds of command-line children and
    // test workers compile each module once (Node 24: `audit --help` 0.23 -> 0.19 s of CPU); Node 20
    // ignores it.
    NODE_COMPILE_CACHE: path.join(work, 'compile-cache'),
  };
  if (tier.servers) {
    mkdirSync(serverFolder);
    servers = startServers(serverFolder, PROJECT_ROOT);
    env.SIARD_OCFL_TEST_SERVERS = serverFolder;
  }
  const onExit = () => {
    servers?.stopSync();
    if (temp.dir !== diskTmp) rmSync(temp.dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  // The command line's bundle first (a second); tsc's type check and dist/ beside the first test
  // files, as the servers start (test/README.md).
  let typeChecked: Promise<number> | undefined;
  if (build) {
    const bundled = await runNode([path.join(PROJECT_ROOT, 'scripts', 'bundle-cli.mjs')]);
    if (bundled !== 0) return bundled;
    env.SIARD_OCFL_TEST_BUILT = path.join(work, 'built');
    typeChecked = buildDist(env.SIARD_OCFL_TEST_BUILT);
  }

  // The tests as JavaScript compiled once, in a mirror of the project (compiled-tree.ts).
  const compiling = performance.now();
  const tree = path.join(work, 'tree');
  const compiled = await buildCompiledTree(PROJECT_ROOT, tree);
  env.SIARD_OCFL_TEST_COMPILED = '1';
  console.log(`Compiled ${compiled} TypeScript files for the tests in ${((performance.now() - compiling) / 1000).toFixed(1)} s.`);

  // ava's command, the file its package.json names as bin (its exports give no path to it).
  const ava = path.join(PROJECT_ROOT, 'node_modules', 'ava', 'entrypoints', 'cli.mjs');
  const files = avaArgs.map((a) => (a.endsWith('.ts') ? a.replace(/\.ts$/, '.js') : a));
  const args = [ava, ...(tier.config ? ['--config', tier.config] : []), ...files];
  const child = spawn(process.execPath, args, { cwd: tree, env, stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  let code = await new Promise<number>((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
  if (typeChecked && (await typeChecked) !== 0) code ||= 1;

  if (servers) {
    await servers.stop();
    const started = Object.entries(servers.startSeconds).map(([kind, s]) => `${kind} ${s.toFixed(1)} s`);
    if (started.length) console.log(`\nShared servers answered after: ${started.join(', ')} (started beside the first test files).`);
  }
  // Each file's record names its compiled .js in the mirror; the report names the test's source.
  const measured = readTimings(timings).map((t) => ({
    ...t,
    file: path.join(PROJECT_ROOT, path.relative(tree, t.file).replace(/\.js$/, '.ts')),
  }));
  console.log(`\n${slowestReport(measured, PROJECT_ROOT)}`);
  console.log(concurrencyReport(measured));
  // Every file's times, for a closer look than the 15 slowest: kept until the next run of the tier.
  const record = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'siard-ocfl', `${tierName}-timings.json`);
  mkdirSync(path.dirname(record), { recursive: true });
  writeFileSync(
    record,
    JSON.stringify(
      measured.sort((a, b) => b.wallSeconds - a.wallSeconds),
      null,
      1,
    ),
  );
  console.log(`Every file's times: ${path.relative(PROJECT_ROOT, record)}`);
  console.log(`\n${tierName} tier: ${((performance.now() - began) / 1000).toFixed(0)} s wall.`);
  rmSync(work, { recursive: true, force: true });
  return code;
}

/**
 * tsc (types checked, the library in dist/; incremental from dist/.tsbuildinfo, so after `npm ci`'s
 * build it checks what changed: 7.7 s of CPU instead of 25), beside the test files at their priority (niced, it took
 * 363 s of a CI run, and the packed-tarball test waiting for it ended last); writes
 * `marker` when done (line/packed-tarball.test.ts packs dist/ only then). Resolves to tsc's code.
 */
async function buildDist(marker: string): Promise<number> {
  const began = performance.now();
  const tsc = path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const code = await runNode([tsc, '-p', 'tsconfig.json']);
  writeFileSync(marker, String(code));
  console.log(code === 0 ? `Built dist/ in ${((performance.now() - began) / 1000).toFixed(0)} s.` : `The build failed (tsc exit ${code}).`);
  return code;
}

function runNode(args: string[]): Promise<number> {
  const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, stdio: 'inherit' });
  return new Promise<number>((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
}

process.exitCode = await main();
