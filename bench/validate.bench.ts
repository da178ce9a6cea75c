/**
 * Validation throughput and memory (issue 3, acceptance 4).
 *
 *   1. A storage root of >= 1 GiB in >= 10,000 content files, written by our OCFL core
 *      (initRoot/startVersion/commit; if the writer fails, objects are written directly and the
 *      report says so). `siard-ocfl validate` (built CLI, fixity on) is timed against the peer
 *      baseline `find <root> -type f -print0 | xargs -0 -P2 sha512sum > /dev/null` over the same
 *      files in the same run, after one warm-up read so both see the same page cache. Best of
 *      BENCH_ROUNDS runs each. Target: throughput ratio >= 0.85.
 *      With a cold page cache too (BENCH_CACHE, see page-cache.ts): caches dropped before each
 *      run of either side, as a scheduled audit of a large root reads from disk.
 *   2. 100,000 small files (written directly: this measures validation, not the writer): files/s,
 *      with the same baseline for comparison.
 *   Peak memory of each validation is the child's maximum RSS (/usr/bin/time -f %M).
 *   CPU time (user + system, /usr/bin/time) is printed beside wall time: on a shared machine it is
 *   the steadier measure of work done. Each round also runs the library alone in a child (validatePath from dist/), which shows how
 *   much of the CLI's time is the start-up of the whole command line (every verb's imports).
 *
 *   NODE_EXTRA_CA_CERTS: where it is set (this workplace's machines set it), every Node process
 *   loads that CA bundle before running any code: ~50 ms here, against a few ms for sha512sum's
 *   start. No verb here makes a TLS connection, and users' machines rarely set it, so the measured
 *   runs go without it; the CLI is also run with it (the "env" column), and both ratios printed.
 *
 *   node bench/run.js validate                  (after npm run build)
 *   BENCH_VALIDATE_FILES=1000 BENCH_VALIDATE_SMALL=5000 node --import=tsx bench/validate.bench.ts
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadLayout0003 } from '../src/ocfl/layout/extensions.js';
import type { StorageLayout } from '../src/ocfl/layout/storage-layout.js';
import { initRoot } from '../src/ocfl/root.js';
import { cacheModes, prepare, type CacheMode } from './page-cache.js';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(PROJECT, 'bin', 'siard-ocfl');
const BIG_FILES = Number(process.env.BENCH_VALIDATE_FILES ?? 10_240);
const BIG_BYTES = Number(process.env.BENCH_VALIDATE_BYTES ?? 1024 ** 3 + 64 * 1024 ** 2);
const SMALL_FILES = Number(process.env.BENCH_VALIDATE_SMALL ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FILES_PER_OBJECT = 1024;
const TARGET_RATIO = 0.85;

/** A pool of random bytes; each file is a different slice of it plus its own number, so no two are equal. */
const POOL = randomBytes(4 * 1024 * 1024);
function fileBytes(i: number, size: number): Buffer {
  const start = (i * 7919) % (POOL.length - size - 16);
  const b = Buffer.allocUnsafe(size);
  POOL.copy(b, 0, start, start + size);
  b.writeUInt32BE(i >>> 0, 0);
  return b;
}

const sha512 = (b: Buffer | string) => createHash('sha512').update(b).digest('hex');

/** Writes a one-version OCFL 1.1 object directly (manifest sha512), where the layout puts it. */
function writeObjectDirect(root: string, layout: StorageLayout, id: string, files: Array<[string, Buffer]>): void {
  const dir = path.join(root, layout.objectPath(id));
  const manifest: Record<string, string[]> = {};
  const state: Record<string, string[]> = {};
  for (const [logical, bytes] of files) {
    const file = path.join(dir, 'v1', 'content', logical);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, bytes);
    const d = sha512(bytes);
    (manifest[d] ??= []).push(`v1/content/${logical}`);
    (state[d] ??= []).push(logical);
  }
  const inv = JSON.stringify({
    id,
    type: 'https://ocfl.io/1.1/spec/#inventory',
    digestAlgorithm: 'sha512',
    head: 'v1',
    manifest,
    versions: {
      v1: {
        created: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        message: 'bench',
        user: { name: 'bench', address: 'mailto:bench@example.org' },
        state,
      },
    },
  });
  writeFileSync(path.join(dir, '0=ocfl_object_1.1'), 'ocfl_object_1.1\n');
  for (const where of ['', 'v1']) {
    writeFileSync(path.join(dir, where, 'inventory.json'), inv);
    writeFileSync(path.join(dir, where, 'inventory.json.sha512'), `${sha512(inv)} inventory.json\n`);
  }
}

function logicalName(i: number): string {
  return `db_lobseg_${Math.floor(i / 256)}/content/schema0/table0/lob1/record${i}.bin`;
}

async function buildBigRoot(root: string): Promise<string> {
  const layout = await loadLayout0003();
  const ocflRoot = await initRoot(root, layout);
  const size = Math.ceil(BIG_BYTES / BIG_FILES);
  const objects = Math.ceil(BIG_FILES / FILES_PER_OBJECT);
  let usedWriter = true;
  for (let o = 0; o < objects; o++) {
    const id = `urn:bench:validate:${o}`;
    const from = o * FILES_PER_OBJECT;
    const to = Math.min(BIG_FILES, from + FILES_PER_OBJECT);
    if (usedWriter) {
      try {
        const staged = await ocflRoot.startVersion(id);
        for (let i = from; i < to; i++) await staged.addBuffer(logicalName(i - from), fileBytes(i, size));
        await staged.commit({ message: 'bench', user: { name: 'bench', address: 'mailto:bench@example.org' } });
        continue;
      } catch (err) {
        usedWriter = false;
        process.stdout.write(`  (our writer failed on object ${o}: ${(err as Error).message}; writing the rest directly)\n`);
        rmSync(path.join(root, layout.objectPath(id)), { recursive: true, force: true });
      }
    }
    const files: Array<[string, Buffer]> = [];
    for (let i = from; i < to; i++) files.push([logicalName(i - from), fileBytes(i, size)]);
    writeObjectDirect(root, layout, id, files);
  }
  return usedWriter ? 'written by the OCFL core (startVersion/addBuffer/commit)' : 'written partly directly (see above)';
}

async function buildSmallRoot(root: string): Promise<void> {
  const layout = await loadLayout0003();
  await initRoot(root, layout);
  for (let o = 0; o * 1000 < SMALL_FILES; o++) {
    const files: Array<[string, Buffer]> = [];
    for (let i = o * 1000; i < Math.min(SMALL_FILES, (o + 1) * 1000); i++) {
      files.push([`d${Math.floor(i / 100) % 10}/f${i}.txt`, fileBytes(i, 512 + ((i * 37) % 3584))]);
    }
    writeObjectDirect(root, layout, `urn:bench:small:${o}`, files);
  }
}

interface Timed {
  seconds: number;
  /** user + system CPU seconds of the process and its children: steadier than wall time on a busy machine. */
  cpu: number;
}

function sh(script: string): Timed {
  const start = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', 'bash', '-c', script], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`${script} failed: ${r.stderr}`);
  const [user, sys] = r.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { seconds: (performance.now() - start) / 1000, cpu: user + sys };
}

interface Run {
  seconds: number;
  cpu: number;
  maxRssMb: number;
  report: { valid: boolean; objects: number; files: number; bytes: number; errors: unknown[] };
}

const EXTRA_CA = process.env.NODE_EXTRA_CA_CERTS;
const CLEAN_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_EXTRA_CA_CERTS'));

/** The validator in a child process: the built CLI, or the library alone (no start-up of the other verbs). */
function validateRun(root: string, via: 'cli' | 'library', env: NodeJS.ProcessEnv = CLEAN_ENV): Run {
  const script = path.join(path.dirname(root), 'validate-library.mjs');
  if (via === 'library') {
    const lib = pathToFileURL(path.join(PROJECT, 'dist', 'ocfl', 'validate', 'index.js')).href;
    writeFileSync(
      script,
      `import { validatePath } from ${JSON.stringify(lib)};\nprocess.stdout.write(JSON.stringify(await validatePath(process.argv[2])));\n`,
    );
  }
  const args = via === 'cli' ? [BIN, 'validate', '--json', root] : [script, root];
  const start = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M %U %S', process.execPath, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env,
  });
  const seconds = (performance.now() - start) / 1000;
  const [rssKb, user, sys] = r.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  if (r.status !== 0) throw new Error(`validate (${via}) failed (exit ${r.status}): ${r.stdout.slice(0, 2000)} ${r.stderr.slice(0, 2000)}`);
  const report = JSON.parse(r.stdout);
  if (!report.valid) throw new Error(`validate failed (exit ${r.status}): ${r.stdout.slice(0, 2000)} ${r.stderr.slice(0, 2000)}`);
  return { seconds, cpu: user + sys, maxRssMb: rssKb / 1024, report };
}

interface Measured {
  baseline: number;
  baselineCpu: number;
  cli: Run;
  library: Run;
  /** the CLI with NODE_EXTRA_CA_CERTS as this machine sets it (absent when it does not) */
  cliEnv?: Run;
}

function best(a: Run | undefined, b: Run): Run {
  if (!a) return b;
  const faster = b.seconds < a.seconds ? b : a;
  return { ...faster, cpu: Math.min(a.cpu, b.cpu), maxRssMb: Math.max(a.maxRssMb, b.maxRssMb) };
}

/** Rounds alternate baseline, CLI and library, so a busy moment of the machine hits all alike. */
function measure(root: string, label: string, mode: CacheMode): Measured {
  const baselineCmd = `find '${root}' -type f -print0 | xargs -0 -P2 sha512sum > /dev/null`;
  if (mode === 'warm') sh(`find '${root}' -type f -print0 | xargs -0 cat > /dev/null`); // warm-up: same page cache for all
  let baseline = Infinity;
  let baselineCpu = Infinity;
  let cli: Run | undefined;
  let library: Run | undefined;
  let cliEnv: Run | undefined;
  for (let round = 0; round < ROUNDS; round++) {
    prepare(mode);
    const b = sh(baselineCmd);
    baseline = Math.min(baseline, b.seconds);
    baselineCpu = Math.min(baselineCpu, b.cpu);
    prepare(mode);
    const c = validateRun(root, 'cli');
    cli = best(cli, c);
    prepare(mode);
    const l = validateRun(root, 'library');
    library = best(library, l);
    let e: Run | undefined;
    if (EXTRA_CA) {
      prepare(mode);
      e = validateRun(root, 'cli', process.env);
      cliEnv = best(cliEnv, e);
    }
    process.stdout.write(
      `  ${label} ${mode} round ${round + 1}: sha512sum -P2 ${b.seconds.toFixed(2)} s (CPU ${b.cpu.toFixed(2)} s), ` +
        `validate CLI ${c.seconds.toFixed(2)} s (CPU ${c.cpu.toFixed(2)} s), library ${l.seconds.toFixed(2)} s ` +
        `(CPU ${l.cpu.toFixed(2)} s)` +
        (e ? `, CLI env ${e.seconds.toFixed(2)} s` : '') +
        '\n',
    );
  }
  return { baseline, baselineCpu, cli: cli!, library: library!, cliEnv };
}

async function main(): Promise<void> {
  if (!existsSync(path.join(PROJECT, 'dist', 'cli', 'main.js')))
    throw new Error('Build first: npm run build (the bench runs the built CLI).');
  const work = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-bench-validate-'));
  const results: Record<string, unknown> = { cores: os.availableParallelism(), load: os.loadavg()[0].toFixed(1) };
  if (EXTRA_CA) {
    const startup = (env: NodeJS.ProcessEnv) => {
      let ms = Infinity;
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        spawnSync(process.execPath, ['-e', '0'], { env });
        ms = Math.min(ms, performance.now() - t);
      }
      return ms;
    };
    const [withCa, without] = [startup(process.env), startup(CLEAN_ENV)];
    process.stdout.write(
      `NODE_EXTRA_CA_CERTS is set: \`node -e 0\` takes ${withCa.toFixed(0)} ms with it, ${without.toFixed(0)} ms without; ` +
        `measured runs go without it (see the header)\n`,
    );
  }
  try {
    const big = path.join(work, 'big');
    let t0 = performance.now();
    const how = await buildBigRoot(big);
    process.stdout.write(
      `root 1: ${BIG_FILES} files, ${(BIG_BYTES / 1024 ** 3).toFixed(2)} GiB, ${how}, ` +
        `in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );
    const modes = cacheModes();
    for (const mode of modes) {
      const m1 = measure(big, 'big', mode);
      const mb = m1.cli.report.bytes / 1e6;
      const ratio = m1.baseline / m1.cli.seconds;
      results[`big ${mode}`] = {
        files: m1.cli.report.files,
        bytes: m1.cli.report.bytes,
        validateMBps: +(mb / m1.cli.seconds).toFixed(1),
        sha512sumMBps: +(mb / m1.baseline).toFixed(1),
        ratio: +ratio.toFixed(3),
        libraryMBps: +(mb / m1.library.seconds).toFixed(1),
        libraryRatio: +(m1.baseline / m1.library.seconds).toFixed(3),
        cpuRatio: +(m1.baselineCpu / m1.cli.cpu).toFixed(3),
        ...(m1.cliEnv ? { ratioWithExtraCaCerts: +(m1.baseline / m1.cliEnv.seconds).toFixed(3) } : {}),
        target: TARGET_RATIO,
        met: ratio >= TARGET_RATIO,
        peakRssMB: +Math.max(m1.cli.maxRssMb, m1.library.maxRssMb).toFixed(1),
      };
    }
    rmSync(big, { recursive: true, force: true });

    const small = path.join(work, 'small');
    t0 = performance.now();
    await buildSmallRoot(small);
    process.stdout.write(`root 2: ${SMALL_FILES} small files written directly in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    for (const mode of modes) {
      const m2 = measure(small, 'small', mode);
      results[`small ${mode}`] = {
        files: m2.cli.report.files,
        bytes: m2.cli.report.bytes,
        validateFilesPerSecond: Math.round(m2.cli.report.files / m2.cli.seconds),
        libraryFilesPerSecond: Math.round(m2.library.report.files / m2.library.seconds),
        sha512sumFilesPerSecond: Math.round(m2.cli.report.files / m2.baseline),
        ratio: +(m2.baseline / m2.cli.seconds).toFixed(3),
        cpuRatio: +(m2.baselineCpu / m2.cli.cpu).toFixed(3),
        peakRssMB: +Math.max(m2.cli.maxRssMb, m2.library.maxRssMb).toFixed(1),
      };
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  let summary = '\n';
  for (const key of Object.keys(results).filter((k) => k.startsWith('big '))) {
    const big = results[key] as Record<string, number | boolean>;
    const extraCa = big.ratioWithExtraCaCerts ? ` [with NODE_EXTRA_CA_CERTS as set here: ratio ${big.ratioWithExtraCaCerts}]` : '';
    summary +=
      `validate, 1 GiB root (CLI, ${key.slice(4)} cache): ${big.validateMBps} MB/s vs sha512sum -P2 ${big.sha512sumMBps} MB/s: ` +
      `ratio ${big.ratio} (target >= ${TARGET_RATIO}: ${big.met ? 'met' : 'NOT met'})${extraCa}; ` +
      `library alone ${big.libraryMBps} MB/s, ratio ${big.libraryRatio}; CPU-time ratio ${big.cpuRatio}; peak RSS ${big.peakRssMB} MB\n`;
  }
  for (const key of Object.keys(results).filter((k) => k.startsWith('small '))) {
    const small = results[key] as Record<string, number>;
    summary +=
      `validate, ${small.files} small files (CLI, ${key.slice(6)} cache): ${small.validateFilesPerSecond} files/s ` +
      `(library alone ${small.libraryFilesPerSecond}) vs sha512sum -P2 ${small.sha512sumFilesPerSecond} files/s: ` +
      `ratio ${small.ratio}, CPU-time ratio ${small.cpuRatio}; peak RSS ${small.peakRssMB} MB\n`;
  }
  process.stdout.write(
    summary +
      `(machine: ${results.cores} cores, load average ${results.load} at start, ${os.loadavg()[0].toFixed(1)} at the end)\n` +
      JSON.stringify(results) +
      '\n',
  );
}

main().catch((err) => {
  process.stderr.write(`validate bench: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
