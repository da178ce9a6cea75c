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
 * It starts the servers once (test/runner/servers.ts) for the tiers that use them, builds dist/ with
 * --build (while the servers start: the Ceph gateway takes 20-30 s, the build 12-25 s), runs ava
 * with the tier's config, stops the servers and prints the slowest test files with their times.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServers, type RunningServers } from './servers.js';
import { readTimings, slowestReport } from './slowest.js';
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
  const env: NodeJS.ProcessEnv = { ...process.env, SIARD_OCFL_TEST_TIMINGS: timings };
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
  if (build) {
    const built = await buildDist();
    if (built !== 0) return built;
  }

  // ava's command, the file its package.json names as bin (its exports give no path to it).
  const ava = path.join(PROJECT_ROOT, 'node_modules', 'ava', 'entrypoints', 'cli.mjs');
  const args = [ava, ...(tier.config ? ['--config', tier.config] : []), ...avaArgs];
  const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, env, stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  const code = await new Promise<number>((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));

  if (servers) {
    await servers.stop();
    const started = Object.entries(servers.startSeconds).map(([kind, s]) => `${kind} ${s.toFixed(1)} s`);
    if (started.length) console.log(`\nShared servers answered after: ${started.join(', ')} (started beside the first test files).`);
  }
  const measured = readTimings(timings);
  console.log(`\n${slowestReport(measured, PROJECT_ROOT)}`);
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

/** `tsc -p tsconfig.json` (the package's build script), its output shown; resolves to its exit code. */
async function buildDist(): Promise<number> {
  const began = performance.now();
  const tsc = path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const child = spawn(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  const code = await new Promise<number>((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
  console.log(code === 0 ? `Built dist/ in ${((performance.now() - began) / 1000).toFixed(0)} s.` : `The build failed (tsc exit ${code}).`);
  return code;
}

process.exitCode = await main();
