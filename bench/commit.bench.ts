/**
 * Benchmark: the price of a commit that keeps the object valid OCFL at every instant.
 *
 * A new version of an existing object is published by exchanging the live object root with a
 * shadow root in which every existing file is hard-linked (src/ocfl/commit/commit.ts); the fallback
 * renames the new version folder, then the inventory, then the sidecar (invalid OCFL for a few
 * renames if killed in between). This bench measures, in the same run, a version that changes one
 * file of an object of N files, both ways (SIARD_OCFL_COMMIT=rename for the fallback), each in a
 * fresh process through the built library: the whole process and the commit() call alone, the
 * ratio, the cost per file of the object, and peak memory of both.
 *
 * Run: npm run build && npx tsx bench/commit.bench.ts   (BENCH_FILES=n, default 20000; BENCH_ROUNDS=n)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(PROJECT, 'bin', 'siard-ocfl');
const DIST = path.join(PROJECT, 'dist', 'index.js');
const FILES = Number(process.env.BENCH_FILES ?? 20000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PER_FOLDER = 1000; // like the lobseg folders of a large export

interface Run {
  seconds: number;
  commitSeconds: number;
  maxRssMiB: number;
}

/** One new version changing one file, in a fresh process; returns its wall time and commit() time. */
function newVersion(script: string, rootDir: string, n: number, env: Record<string, string>): Run {
  const started = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '__MAXRSS__ %M', process.execPath, script, rootDir, String(n)], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`new version failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const rss = /__MAXRSS__ (\d+)/.exec(r.stderr);
  return { seconds, commitSeconds: Number(/__COMMIT__ ([\d.]+)/.exec(r.stdout)?.[1]), maxRssMiB: rss ? Number(rss[1]) / 1024 : NaN };
}

function main(): void {
  const work = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-bench-commit-'));
  try {
    const input = path.join(work, 'input');
    for (let i = 0; i < FILES; i++) {
      const dir = path.join(input, `seg_${Math.floor(i / PER_FOLDER)}`);
      if (i % PER_FOLDER === 0) mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `record${i}.bin`), `record ${i}\n`);
    }
    const rootDir = path.join(work, 'root');
    if (spawnSync(process.execPath, [CLI, 'init', rootDir]).status !== 0) throw new Error('init failed');
    const v1 = spawnSync(process.execPath, [CLI, 'put', '--root', rootDir, '--id', 'bench', input, '--message', 'v1'], {
      encoding: 'utf8',
    });
    if (v1.status !== 0) throw new Error(`put failed: ${v1.stderr}`);
    const script = path.join(work, 'version.mjs');
    writeFileSync(
      script,
      `import { openRoot } from ${JSON.stringify(DIST)};
      const [rootDir, n] = process.argv.slice(2);
      const staged = await (await openRoot(rootDir)).startVersion('bench');
      await staged.addBuffer('seg_0/record0.bin', 'changed ' + n + '\\n');
      const t0 = performance.now();
      await staged.commit({ message: 'bench ' + n });
      console.log('__COMMIT__ ' + ((performance.now() - t0) / 1000).toFixed(4));`,
    );
    process.stdout.write(
      `bench/commit: an object of ${FILES} files in ${Math.ceil(FILES / PER_FOLDER)} folders; each put changes one file\n`,
    );
    process.stdout.write(
      `load average before the runs: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} (${os.availableParallelism()} cores)\n`,
    );
    const runs = { exchange: [] as Run[], rename: [] as Run[] };
    let n = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      for (const mode of ['exchange', 'rename'] as const) {
        const run = newVersion(script, rootDir, ++n, mode === 'rename' ? { SIARD_OCFL_COMMIT: 'rename' } : {});
        runs[mode].push(run);
        process.stdout.write(
          `  round ${round} ${mode.padEnd(9)} process ${run.seconds.toFixed(2).padStart(6)} s   ` +
            `commit ${run.commitSeconds.toFixed(3).padStart(7)} s   peak ${run.maxRssMiB.toFixed(0).padStart(4)} MiB\n`,
        );
      }
    }
    const best = (rs: Run[], k: 'seconds' | 'commitSeconds') => Math.min(...rs.map((r) => r[k]));
    const peak = (rs: Run[]) => Math.max(...rs.map((r) => r.maxRssMiB));
    const [ex, re] = [best(runs.exchange, 'seconds'), best(runs.rename, 'seconds')];
    const [exC, reC] = [best(runs.exchange, 'commitSeconds'), best(runs.rename, 'commitSeconds')];
    process.stdout.write(
      `\nbest of ${ROUNDS}: whole process exchange ${ex.toFixed(2)} s, renames ${re.toFixed(2)} s (${(ex / re).toFixed(2)}x); ` +
        `commit() ${exC.toFixed(3)} s vs ${reC.toFixed(3)} s: ${(((exC - reC) * 1e6) / FILES).toFixed(1)} µs more per file of ` +
        `the object; ` +
        `peak ${peak(runs.exchange).toFixed(0)} / ${peak(runs.rename).toFixed(0)} MiB\n`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main();
