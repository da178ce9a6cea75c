/**
 * Benchmark: every verb at 10,000, 100,000 and 1,000,000 content files (issue "A database of a
 * million LOBs"). An object of a million files is the normal case for this tool: one LOB per file.
 *
 * For each size N, two objects:
 *  - "lobs": a SQLite database with N BLOBs of 2-4 KiB (above --inline-max, so each is a file),
 *    ingested; then every verb that reads or writes it: validate, audit, show, log, ls, checkout,
 *    restore of the checkout (the plain export), restore --root --id, checkout --join-chunks,
 *    mets, relocate, describe --template and describe --apply (one new content file, counted), audit
 *    of the relocated and described version, repair.
 *  - "folder": a plain folder of N files of 1 KiB, through put; then show, checkout, validate,
 *    and a put of one changed file (a new version of an N-file object: the commit links every
 *    existing file, see src/ocfl/commit/commit.ts).
 * Each verb runs in its own process through the CLI, as a user runs it, under /usr/bin/time: wall
 * time, CPU time, peak RSS. Two tables print microseconds per file of the object at each size,
 * wall and CPU, and the growth from the smallest to the largest size: a verb whose cost per file
 * grows more than 1.5x is not linear (FAIL; the exit code follows wall time, the CPU table is for a
 * machine shared with other work). Peak RSS at the largest size is compared with 1 GiB.
 *
 * Ratios in the same run (the peers measured here, at the same moment):
 *  - put of 10,000 files of 100 KiB (1 GB) against @ocfl/ocfl-fs import of the same folder
 *    (+ sync, since put makes every file durable) and against `cp -r` + `sync`;
 *  - checkout of that object against `cp -r` + `sha512sum` of the same files;
 *  - restore --root --id against restore of a plain export, at every size, each run with the page
 *    cache in the same state: warm, and cold where caches can be dropped (BENCH_CACHE, page-cache.ts).
 *
 * Disk at 1,000,000: the database (~3.1 GB), the object (~3.1 GB), a checkout and a joined checkout
 * at a time (~6 GB), the restored databases (~3 GB each), the folder object (~2 GB): ~20 GB in
 * BENCH_SCALE_DIR (default: the system's temporary folder), removed size by size.
 *
 * Run: npm run build && npx tsx bench/scale.bench.ts   (BENCH_SCALE_SIZES=10000,100000 for less;
 * BENCH_SCALE_RATIOS=0 to skip the ratio section, BENCH_SCALE_ROUNDS=3 its rounds, BENCH_SCALE_RESTORE_ROUNDS=3
 * those of the restore pair;
 * BENCH_SCALE_ONLY=relocate,repair for some rows only)
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildLobDb } from './lobs-db.js';
import { cacheModes, dropCaches, prepare, readThrough, type CacheMode } from './page-cache.js';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(PROJECT, 'bin', 'siard-ocfl');
/** BENCH_SCALE_SIZES= (empty) runs the ratio section alone. */
const SIZES = (process.env.BENCH_SCALE_SIZES ?? '10000,100000,1000000').split(',').filter(Boolean).map(Number);
const RATIOS = process.env.BENCH_SCALE_RATIOS !== '0';
/**
 * Rounds of the ratio section, the best of each counting: on this shared machine `cp -r` + `sync`
 * alone took 1.4 to 3.6 s from one run to the next (the disk's writeback), so two rounds were not
 * enough for a stable ratio.
 */
const RATIO_ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 3);
/**
 * Rounds of the restore pair (the best of each side counting): two runs of the same restore of
 * 100,000 LOBs here took 18.4 and 25.5 s of wall time, 20.9 and 29.2 s of CPU.
 */
const RESTORE_ROUNDS = Number(process.env.BENCH_SCALE_RESTORE_ROUNDS ?? 3);
/**
 * BENCH_SCALE_ONLY=mets,relocate,repair: only these rows (the LOB object is always ingested); a row
 * whose name has a comma is named by what precedes it ("put v2").
 */
const ONLY = process.env.BENCH_SCALE_ONLY ? new Set(process.env.BENCH_SCALE_ONLY.split(',').map((v) => v.trim())) : undefined;
const wanted = (verb: string) => !ONLY || ONLY.has(verb) || ONLY.has(verb.split(',')[0]!) || verb === 'ingest';
const PER_FOLDER = 1000;
const USER = ['--user-name', 'Bench', '--user-address', 'mailto:bench@example.org'];
const GROWTH_LIMIT = 1.5;
/** strace, to see which files a run opens (describe must open no LOB file). */
const STRACE = spawnSync('strace', ['-V']).status === 0;
/** Checks other than time and memory that failed, printed at the end; the bench then fails. */
const failures: string[] = [];
const RSS_LIMIT_MIB = 1024;

interface Run {
  seconds: number;
  cpuSeconds: number;
  maxRssMiB: number;
}

/** Runs a command under /usr/bin/time (after a sync, so no run pays for the last one's writes). */
function measure(label: string, argv: string[], options: { cwd?: string; sync?: boolean } = {}): Run {
  spawnSync('sync');
  const started = process.hrtime.bigint();
  const command = options.sync ? ['sh', '-c', '"$@" && sync', 'sh', ...argv] : argv;
  // stdout is not kept: show of a million files prints ~250 MB.
  const r = spawnSync('/usr/bin/time', ['-f', '__TIME__ %M %U %S', ...command], {
    cwd: options.cwd ?? PROJECT,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 26,
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const m = /__TIME__ (\d+) ([\d.]+) ([\d.]+)/.exec(r.stderr);
  const run = { seconds, cpuSeconds: m ? Number(m[2]) + Number(m[3]) : NaN, maxRssMiB: m ? Number(m[1]) / 1024 : NaN };
  if (r.status !== 0) {
    // Recorded as a failure (no time), and the bench goes on with the other verbs.
    process.stdout.write(
      `    ${label} FAILED (exit ${r.status}) after ${seconds.toFixed(1)} s, peak ${run.maxRssMiB.toFixed(0)} MiB: ${r.stderr
        .replace(/__TIME__.*/, '')
        .trim()
        .slice(-600)}\n`,
    );
    return { ...run, seconds: NaN };
  }
  process.stdout.write(
    `    ${label.padEnd(34)} ${run.seconds.toFixed(2).padStart(8)} s   cpu ${run.cpuSeconds.toFixed(2).padStart(8)} s   ` +
      `peak ${run.maxRssMiB.toFixed(0).padStart(5)} MiB\n`,
  );
  return run;
}

const cli = (...args: string[]) => [process.execPath, CLI, ...args];

function makeFolder(dir: string, n: number, size: number): void {
  const pool = randomBytes(1 << 22);
  for (let i = 0; i < n; i++) {
    const sub = path.join(dir, `seg_${Math.floor(i / PER_FOLDER)}`);
    if (i % PER_FOLDER === 0) mkdirSync(sub, { recursive: true });
    const start = (i * 104729) % (pool.length - size);
    const body = Buffer.from(pool.subarray(start, start + size));
    body.writeUInt32BE(i, 0);
    writeFileSync(path.join(sub, `record${i}.bin`), body);
  }
}

function objectDir(root: string, id: string): string {
  return path.join(root, spawnSync(process.execPath, [CLI, 'path', '--root', root, id], { encoding: 'utf8' }).stdout.trim());
}

type Results = Map<string, Map<number, Run>>;

function record(results: Results, verb: string, n: number, run: Run): Run {
  if (!results.has(verb)) results.set(verb, new Map());
  results.get(verb)!.set(n, run);
  return run;
}

function scaleRun(work: string, n: number, results: Results, restoreRatios: string[], modes: CacheMode[]): void {
  const here = path.join(work, `n${n}`);
  mkdirSync(here, { recursive: true });
  const db = path.join(here, 'lobs.db');
  const folderRows = ['put (folder)', 'show (folder)', 'checkout (folder)', 'validate (folder)', 'put v2, 1 file changed (folder)'];
  const withFolder = folderRows.some(wanted);
  process.stdout.write(
    `\n== ${n} files: making a SQLite database of ${n} BLOBs of 2-4 KiB${withFolder ? ` and a folder of ${n} files of 1 KiB` : ''}\n`,
  );
  buildLobDb(db, n);
  const folder = path.join(here, 'folder');
  if (withFolder) makeFolder(folder, n, 1024);
  process.stdout.write(
    `  load average: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n`,
  );

  // The LOB object.
  const root = path.join(here, 'root');
  const id = 'urn:bench:lobs';
  spawnSync(process.execPath, [CLI, 'init', root]);
  const skipped: Run = { seconds: NaN, cpuSeconds: NaN, maxRssMiB: NaN };
  const r = (verb: string, argv: string[]) => (wanted(verb) ? record(results, verb, n, measure(verb, argv)) : skipped);
  r('ingest', cli('ingest', db, '--root', root, '--id', id, ...USER));
  r('validate', cli('validate', root));
  r('audit', cli('audit', '--root', root));
  r('show', cli('show', '--root', root, '--id', id));
  r('log', cli('log', '--root', root, '--id', id));
  r('ls', cli('ls', '--root', root));
  const checkout = path.join(here, 'checkout');
  const wantsRestore = wanted('restore (plain export)') || wanted('restore --root --id');
  if (wanted('checkout')) record(results, 'checkout', n, measure('checkout', cli('checkout', '--root', root, '--id', id, checkout)));
  else if (wantsRestore) spawnSync(process.execPath, cli('checkout', '--root', root, '--id', id, checkout).slice(1));
  if (wantsRestore) restorePair({ here, checkout, root, id, n, modes }, results, restoreRatios);
  rmSync(checkout, { recursive: true, force: true });
  const joined = path.join(here, 'joined');
  r('checkout --join-chunks', cli('checkout', '--join-chunks', '--root', root, '--id', id, joined));
  rmSync(joined, { recursive: true, force: true });
  r('mets', cli('mets', '--root', root, '--id', id, ...USER));
  r('relocate', cli('relocate', '--root', root, '--id', id, '--lob-folder', 'file:///Archives/bench/', ...USER));
  describeRows(root, id, here, r);
  r('audit (relocated)', cli('audit', '--root', root));
  r('repair', cli('repair', '--root', root));
  rmSync(root, { recursive: true, force: true });
  rmSync(db, { force: true });

  // The folder object.
  if (!withFolder) {
    rmSync(here, { recursive: true, force: true });
    return;
  }
  const froot = path.join(here, 'froot');
  spawnSync(process.execPath, [CLI, 'init', froot]);
  r('put (folder)', cli('put', '--root', froot, '--id', 'urn:bench:folder', folder, ...USER));
  r('show (folder)', cli('show', '--root', froot, '--id', 'urn:bench:folder'));
  const fcheckout = path.join(here, 'fcheckout');
  r('checkout (folder)', cli('checkout', '--root', froot, '--id', 'urn:bench:folder', fcheckout));
  rmSync(fcheckout, { recursive: true, force: true });
  r('validate (folder)', cli('validate', froot));
  writeFileSync(path.join(folder, 'seg_0', 'record0.bin'), 'changed\n');
  r('put v2, 1 file changed (folder)', cli('put', '--root', froot, '--id', 'urn:bench:folder', folder, ...USER));
  rmSync(here, { recursive: true, force: true });
}

/**
 * describe (issue 33) on the LOB object: the template, and a template applied as a new version,
 * which must store one new content file (the .siard, counted from the new version's content
 * folder) and read no LOB file: the apply runs under strace, which stops the process only at the
 * open calls (--seccomp-bpf), and every content file opened other than the .siard and the METS
 * files is a LOB file (or the fingerprints) read. Either failure fails the bench. (Checked once on
 * 300 LOBs: describe opened the inventory, its sidecar and the .siard; validate and checkout, run
 * the same way, were seen opening 302 and 301 content files.) The audit that follows covers the
 * new version.
 */
function describeRows(root: string, id: string, here: string, r: (verb: string, argv: string[]) => Run): void {
  r('describe --template', cli('describe', '--template', '--root', root, '--id', id));
  if (!wanted('describe')) return;
  const template = path.join(here, 'described.json');
  writeFileSync(template, JSON.stringify({ database: { description: 'A million LOBs, described', archiver: 'Bench' } }));
  const dir = objectDir(root, id);
  const trace = path.join(here, 'describe.strace');
  const traced = STRACE ? ['strace', '-f', '-qq', '--seccomp-bpf', '-e', 'trace=open,openat,openat2', '-o', trace] : [];
  r('describe', [...traced, ...cli('describe', '--apply', template, '--root', root, '--id', id, ...USER)]);
  const head = readdirSync(dir)
    .filter((v) => /^v\d+$/.test(v))
    .sort((a, b) => Number(b.slice(1)) - Number(a.slice(1)))[0]!;
  const stored = readdirSync(path.join(dir, head, 'content'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
  const opened = STRACE ? objectFilesOpened(trace, dir) : [];
  const lobsRead = opened.filter((f) => /^v\d+\/content\//.test(f) && !/\.siard$|\.xml$/.test(f));
  // The .siard must be seen opened (its metadata.xml is read): else the trace was not read right.
  const seen = opened.some((f) => f.endsWith('.siard'));
  const ok = stored === 1 && seen && lobsRead.length === 0;
  const named = lobsRead.length > 0 ? `: ${lobsRead.slice(0, 3).join(', ')}` : '';
  const line =
    `  describe: ${head} stores ${stored} new content file${stored === 1 ? '' : 's'} (1 expected); ` +
    (!STRACE
      ? 'strace is not installed, so LOB reads were not measured'
      : !seen
        ? 'the trace shows no .siard opened, so LOB reads were not measured'
        : `${lobsRead.length} LOB or other content files opened (0 expected${named}), ${opened.length} object files opened in all`) +
    (ok ? '' : ' FAIL');
  process.stdout.write(`${line}\n`);
  if (!ok) failures.push(line.trim());
  rmSync(trace, { force: true });
}

/** Files under `dir` (relative to it) that a process traced into `trace` opened, directories left out. */
function objectFilesOpened(trace: string, dir: string): string[] {
  const opened = new Set<string>();
  for (const line of readFileSync(trace, 'utf8').split('\n')) {
    const m = /open(?:at2?)?\((?:AT_FDCWD, |-?\d+, )?"((?:[^"\\]|\\.)*)", ([A-Z_|]+|\{[^}]*\})/.exec(line);
    if (!m || m[2]!.includes('O_DIRECTORY')) continue;
    const rel = path.relative(dir, path.resolve(PROJECT, m[1]!));
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) opened.add(rel.split(path.sep).join('/'));
  }
  return [...opened].sort();
}

/**
 * restore of the plain export (the checkout) and restore --root --id of the same archive, each with
 * the page cache in the same state: warm (caches dropped where permitted, then the run's own input
 * read once) and, where caches can be dropped, cold. Measured one after the other as they come, the
 * pair compared a checkout written a moment before with an object written many minutes earlier,
 * which this machine's proactive reclaim (DAMON pageout of memory idle for a minute) had partly put
 * out of memory: 1.81x at a million LOBs then, 1.00 with both warm (docs/scale.md, session 12).
 */
function restorePair(
  at: { here: string; checkout: string; root: string; id: string; n: number; modes: CacheMode[] },
  results: Results,
  ratios: string[],
): void {
  const { here, checkout, root, id, n, modes } = at;
  const object = objectDir(root, id);
  // A failed run (NaN seconds) is the result: a later good round must not hide it.
  const best = (runs: Run[]) => runs.find((r) => Number.isNaN(r.seconds)) ?? runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  for (const mode of modes) {
    const ready = (input: string) => {
      if (mode === 'cold') prepare('cold');
      else {
        dropCaches();
        readThrough([input]);
      }
    };
    const plainRuns: Run[] = [];
    const rootRuns: Run[] = [];
    const runPlain = () => {
      ready(checkout);
      plainRuns.push(
        measure(`restore (plain export), ${mode}`, cli('restore', path.join(checkout, 'lobs.siard'), path.join(here, 'p.db'))),
      );
      rmSync(path.join(here, 'p.db'), { force: true });
    };
    const runRoot = () => {
      ready(object);
      rootRuns.push(measure(`restore --root --id, ${mode}`, cli('restore', '--root', root, '--id', id, path.join(here, 'r.db'))));
      rmSync(path.join(here, 'r.db'), { force: true });
    };
    // Alternating which goes first, so that neither always follows the other's writes.
    for (let round = 0; round < RESTORE_ROUNDS; round++) for (const run of round % 2 ? [runRoot, runPlain] : [runPlain, runRoot]) run();
    const [plain, fromRoot] = [best(plainRuns), best(rootRuns)];
    if (mode === modes[0]) {
      record(results, 'restore (plain export)', n, plain);
      record(results, 'restore --root --id', n, fromRoot);
    }
    const ratio = fromRoot.seconds / plain.seconds;
    ratios.push(
      `  ${String(n).padStart(9)} files, ${mode.padEnd(4)}: restore --root --id ${fromRoot.seconds.toFixed(2)} s / restore of the plain ` +
        `export ${plain.seconds.toFixed(2)} s = ${ratio.toFixed(2)} (target <= 1.3) ${ratio <= 1.3 ? 'PASS' : 'FAIL'}`,
    );
  }
}

/** put and checkout of 10,000 files of 100 KiB against the peers, in one run. */
function ratioRun(work: string): string[] {
  const here = path.join(work, 'ratios');
  const folder = path.join(here, 'folder');
  process.stdout.write(`\n== ratios: 10,000 files of 100 KiB (1 GB)\n`);
  makeFolder(folder, 10000, 100 * 1024);
  const best = (runs: Run[]) => runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  const ours: Run[] = [];
  const peer: Run[] = [];
  const copy: Run[] = [];
  const checkout: Run[] = [];
  const copySum: Run[] = [];
  const script = path.join(here, 'peer.mjs');
  const peerRoot = path.join(here, 'peer');
  writeFileSync(
    script,
    `import ocfl from ${JSON.stringify(path.join(PROJECT, 'node_modules', '@ocfl', 'ocfl-fs', 'index.mjs'))};
    const storage = ocfl.storage({
      root: ${JSON.stringify(peerRoot)},
      workspace: ${JSON.stringify(path.join(here, 'peer-ws'))},
      layout: { extensionName: '0003-hash-and-id-n-tuple-storage-layout' },
    });
    await storage.create();
    await storage.object('urn:bench:peer').import(${JSON.stringify(folder)});`,
  );
  const root = path.join(here, 'root');
  for (let round = 1; round <= RATIO_ROUNDS; round++) {
    rmSync(root, { recursive: true, force: true });
    rmSync(path.join(here, '.root.siard-ocfl-work'), { recursive: true, force: true });
    spawnSync(process.execPath, [CLI, 'init', root]);
    ours.push(measure('put (fsyncs every file)', cli('put', '--root', root, '--id', 'urn:bench:put', folder, ...USER)));
    for (const p of [peerRoot, path.join(here, 'peer-ws')]) rmSync(p, { recursive: true, force: true });
    peer.push(measure('@ocfl/ocfl-fs import + sync', [process.execPath, script], { sync: true }));
    rmSync(path.join(here, 'copy'), { recursive: true, force: true });
    copy.push(measure('cp -r + sync', ['cp', '-r', folder, path.join(here, 'copy')], { sync: true }));
    rmSync(path.join(here, 'copy'), { recursive: true, force: true });
    rmSync(path.join(here, 'checkout'), { recursive: true, force: true });
    checkout.push(
      measure('checkout (sha512 of every file)', cli('checkout', '--root', root, '--id', 'urn:bench:put', path.join(here, 'checkout'))),
    );
    rmSync(path.join(here, 'checkout'), { recursive: true, force: true });
    const object = objectDir(root, 'urn:bench:put');
    copySum.push(
      measure('cp -r + sha512sum of the copy', [
        'sh',
        '-c',
        `cp -r '${object}/v1/content' '${here}/copy' && find '${here}/copy' -type f -print0 | xargs -0 sha512sum > /dev/null`,
      ]),
    );
    rmSync(path.join(here, 'copy'), { recursive: true, force: true });
  }
  rmSync(here, { recursive: true, force: true });
  const [o, p, c, k, cs] = [best(ours), best(peer), best(copy), best(checkout), best(copySum)];
  const line = (text: string, ok: boolean) => `  ${text} ${ok ? 'PASS' : 'FAIL'}`;
  return [
    line(
      `put ${o.seconds.toFixed(2)} s vs @ocfl/ocfl-fs import + sync ${p.seconds.toFixed(2)} s: ` +
        `${(p.seconds / o.seconds).toFixed(2)}x as fast (target >= 1)`,
      o.seconds <= p.seconds,
    ),
    line(
      `put ${o.seconds.toFixed(2)} s vs cp -r + sync ${c.seconds.toFixed(2)} s: ${(o.seconds / c.seconds).toFixed(2)}x its time ` +
        `(target <= 2)`,
      o.seconds <= 2 * c.seconds,
    ),
    line(
      `checkout ${k.seconds.toFixed(2)} s vs cp -r + sha512sum ${cs.seconds.toFixed(2)} s: ` +
        `${(k.seconds / cs.seconds).toFixed(2)}x its time (target <= 2)`,
      k.seconds <= 2 * cs.seconds,
    ),
    `  peak memory: put ${o.maxRssMiB.toFixed(0)} MiB, @ocfl/ocfl-fs ${p.maxRssMiB.toFixed(0)} MiB, checkout ${k.maxRssMiB.toFixed(0)} MiB`,
  ];
}

/** Prints the per-file tables and the restore ratios; false when a row fails. */
function printTables(results: Results, restoreRatios: string[]): boolean {
  let ok = true;
  const [small, large] = [Math.min(...SIZES), Math.max(...SIZES)];
  // Wall time on a quiet machine; CPU time (user + system, every thread) also on a shared one,
  // where other work stretches wall times differently at each size.
  for (const clock of ['wall', 'cpu'] as const) {
    process.stdout.write(
      `\nmicroseconds per file of the object (${clock}), growth ${large} / ${small} (limit ${GROWTH_LIMIT}), peak RSS at ${large}:\n`,
    );
    process.stdout.write(`  ${'verb'.padEnd(34)}${SIZES.map((n) => String(n).padStart(11)).join('')}   growth   peak MiB\n`);
    for (const [verb, byN] of results) {
      const perFile = (n: number) => ((clock === 'wall' ? byN.get(n)!.seconds : byN.get(n)!.cpuSeconds) * 1e6) / n;
      const growth = perFile(large) / perFile(small);
      const rss = byN.get(large)!.maxRssMiB;
      const rowOk = growth <= GROWTH_LIMIT && rss < RSS_LIMIT_MIB; // NaN (a failed run) is not ok
      if (!rowOk && clock === 'wall') ok = false;
      process.stdout.write(
        `  ${verb.padEnd(34)}${SIZES.map((n) => perFile(n).toFixed(1).padStart(11)).join('')}  ` +
          ` ${growth.toFixed(2).padStart(6)}   ${rss.toFixed(0).padStart(8)} ${rowOk ? 'PASS' : 'FAIL'}\n`,
      );
    }
  }
  process.stdout.write(`\nrestore from the object against restore of a plain export:\n${restoreRatios.join('\n')}\n`);
  return ok && !restoreRatios.some((l) => l.endsWith('FAIL'));
}

function main(): void {
  const work = mkdtempSync(path.join(process.env.BENCH_SCALE_DIR ?? os.tmpdir(), 'siard-ocfl-bench-scale-'));
  let failed = false;
  try {
    process.stdout.write(`bench/scale: sizes ${SIZES.join(', ') || 'none'}; ${os.availableParallelism()} cores; work in ${work}\n`);
    const results: Results = new Map();
    const restoreRatios: string[] = [];
    // The restore pair is measured with the page cache warm and, where it can be dropped, cold.
    const modes = SIZES.length > 0 ? cacheModes() : [];
    for (const n of SIZES) scaleRun(work, n, results, restoreRatios, modes);
    if (SIZES.length > 0 && !printTables(results, restoreRatios)) failed = true;
    if (failures.length > 0) {
      process.stdout.write(`\nfailed checks:\n${failures.map((f) => `  ${f}`).join('\n')}\n`);
      failed = true;
    }
    if (RATIOS) {
      const lines = ratioRun(work);
      process.stdout.write(`\nratios, best of ${RATIO_ROUNDS} rounds:\n${lines.join('\n')}\n`);
      if (lines.some((l) => l.endsWith('FAIL'))) failed = true;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (failed) process.exitCode = 1;
}

main();
