/**
 * Benchmark of issue 35 ("one inventory, one reader"): this tree against main at c182370 (as it
 * was when the issue was filed), both built, in one run, on the same data, verb by verb.
 *
 * For each size N (default 200,000; BENCH_BASE_SIZES=200000,1000000 for both of the issue's):
 *  - a folder of N files of 2-4 KiB, each distinct, through `put` (a new object), then `show`,
 *    `log`, `ls`, `validate`, `checkout` and `put` of one changed file (v2 of an N-file object);
 *  - a SQLite database of N BLOBs of 2-4 KiB through `ingest`, then `show`, `validate`, `audit`.
 * Each verb runs in its own process through the CLI, under /usr/bin/time, first the base then this
 * tree, on objects each build wrote itself. Printed: CPU and peak RSS of both and their ratio
 * (this tree / base), with the issue's targets: `show` CPU at most 0.5x, `put` at most 0.9x, every
 * other verb at most 1.0x (plus 5% for noise on this shared machine), every peak at most 1.1x.
 * The exit status is 1 when a target is missed, so `npm run bench` reports it.
 *
 * Fairness. Every run starts after a `sync`, so no run pays for the writeback of the one before.
 * Verbs that leave the object as it was (show, log, ls, validate, checkout, audit) run
 * BENCH_BASE_REPEAT times (default 1; checkout at least 3), the two builds alternated, and the
 * lowest CPU of each side is compared. `checkout` writes N new files, and the system time of writing them is decided by the
 * page cache's state more than by our code: the same build took 7.5-28.6 s of system time at
 * 200,000 files (session 50). So before each checkout the caches are dropped and the object's
 * files read once (page-cache.ts prepareWarm: both sides start with their input cached and no dirty
 * or foreign pages to reclaim), the checkout folder of the run before is removed and synced first;
 * where caches cannot be dropped, a sync alone. The time of the flusher threads that write the pages
 * back is the kernel's, not the process's: /usr/bin/time reports neither it nor, with the caches in
 * that state, the reclaim of other runs' pages.
 *
 * BENCH_BASE_STEPS=show-ingested,checkout,... runs only those verbs (keys: put, show, log, ls,
 * validate-no-fixity, checkout, put-v2, ingest, show-ingested, validate, audit) and the ones they
 * need (put before show, ingest before show-ingested...), which are measured too. BENCH_BASE_KEEP=1
 * keeps the work folder (BENCH_BASE_WORK/issue35-N) and reuses its data and the objects already
 * made in a later run, so one verb at 1,000,000 files can be measured again without a new ingest.
 *
 * The base: BENCH_BASE_DIR (default /work/base, where the lead engineer built it), a checkout of
 * c182370 with its dependencies installed and built (`git worktree add /work/base c182370`, then
 * `npm ci && npm run build` there; commits 9cceda0, 10a67b0 and 7d23905 after it do not build). Disk: ~4 x N x 4 KiB in
 * BENCH_BASE_WORK (default: the system's temporary folder), removed at the end unless kept.
 *
 * Run: npm run build && npx tsx bench/against-c182370.bench.ts
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildLobDb } from './lobs-db.js';
import { dropCaches, prepareWarm } from './page-cache.js';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BASE = process.env.BENCH_BASE_DIR ?? '/work/base';
const SIZES = (process.env.BENCH_BASE_SIZES ?? '200000').split(',').filter(Boolean).map(Number);
const PER_FOLDER = 1000;
const USER = ['--user-name', 'Bench', '--user-address', 'mailto:bench@example.org'];
/** Noise allowed on "no worse": two runs of the same verb here differ by a few percent. */
const NOISE = 1.05;
const TARGETS: Record<string, number> = { show: 0.5, put: 0.9 };
const PEAK_TARGET = 1.1;
const REPEAT = Number(process.env.BENCH_BASE_REPEAT ?? 1);
/** checkout's system time moves most from run to run (see the header): never fewer runs than this. */
const CHECKOUT_RUNS = 3;
const KEEP = process.env.BENCH_BASE_KEEP === '1';
const ONLY = process.env.BENCH_BASE_STEPS?.split(',').filter(Boolean);

interface Run {
  cpuSeconds: number;
  userSeconds: number;
  sysSeconds: number;
  maxRssMiB: number;
  ok: boolean;
}

function measure(argv: string[]): Run {
  // stdout is not kept: show of a million files prints ~250 MB.
  const r = spawnSync('/usr/bin/time', ['-f', '__TIME__ %M %U %S', ...argv], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 26,
  });
  const m = /__TIME__ (\d+) ([\d.]+) ([\d.]+)/.exec(r.stderr);
  const ok = r.status === 0;
  if (!ok) process.stdout.write(`    FAILED (exit ${r.status}): ${argv.slice(1).join(' ')}\n${r.stderr.slice(-600)}\n`);
  const [user, sys] = m ? [Number(m[2]), Number(m[3])] : [NaN, NaN];
  return { cpuSeconds: user + sys, userSeconds: user, sysSeconds: sys, maxRssMiB: m ? Number(m[1]) / 1024 : NaN, ok };
}

function makeFolder(dir: string, n: number): void {
  const pool = randomBytes(1 << 22);
  for (let i = 0; i < n; i++) {
    const sub = path.join(dir, `seg_${Math.floor(i / PER_FOLDER)}`);
    if (i % PER_FOLDER === 0) mkdirSync(sub, { recursive: true });
    const size = 2048 + ((i * 7919) % 2048);
    const start = (i * 104729) % (pool.length - size);
    const body = Buffer.from(pool.subarray(start, start + size));
    body.writeUInt32BE(i, 0);
    writeFileSync(path.join(sub, `record${i}.bin`), body);
  }
}

interface Row {
  label: string;
  verb: string;
  base: Run;
  head: Run;
  /** Every run's CPU seconds, base then head, when the verb was run more than once. */
  runs?: { base: number[]; head: number[] };
}

type Side = 'base' | 'head';

interface Step {
  key: string;
  label: string;
  verb: string;
  args: (root: string, side: Side) => string[];
  /** The steps whose objects this one reads. */
  needs?: string[];
  /** Leaves the object as it was: run REPEAT times (checkout CHECKOUT_RUNS), alternated, the lowest CPU kept. */
  repeat?: boolean;
}

/** The verbs of one size, each run by the base then by this tree on its own root. */
function steps(work: string, folder: string, db: string): Step[] {
  const id = 'urn:bench:folder';
  const lobs = 'urn:bench:lobs';
  const put = ['put'];
  return [
    {
      key: 'put',
      label: 'put (new object)',
      verb: 'put',
      args: (root) => ['put', '--root', root, '--id', id, folder, '--message', 'v1', ...USER],
    },
    { key: 'show', label: 'show', verb: 'show', needs: put, repeat: true, args: (root) => ['show', '--root', root, '--id', id] },
    { key: 'log', label: 'log', verb: 'log', needs: put, repeat: true, args: (root) => ['log', '--root', root, '--id', id] },
    { key: 'ls', label: 'ls', verb: 'ls', needs: put, repeat: true, args: (root) => ['ls', '--root', root] },
    {
      key: 'validate-no-fixity',
      label: 'validate --no-fixity',
      verb: 'validate',
      needs: put,
      repeat: true,
      args: (root) => ['validate', '--no-fixity', root],
    },
    {
      key: 'checkout',
      label: 'checkout',
      verb: 'checkout',
      needs: put,
      repeat: true,
      args: (root, side) => ['checkout', '--root', root, '--id', id, checkoutFolder(work, side)],
    },
    {
      key: 'put-v2',
      label: 'put v2 (one file changed)',
      verb: 'put',
      needs: put,
      args: (root, side) => ['put', '--root', root, '--id', id, path.join(work, `v2-${side}`), '--message', 'v2', ...USER],
    },
    { key: 'ingest', label: 'ingest', verb: 'ingest', args: (root) => ['ingest', `sqlite:${db}`, '--root', root, '--id', lobs, ...USER] },
    {
      key: 'show-ingested',
      label: 'show (ingested)',
      verb: 'show',
      needs: ['ingest'],
      repeat: true,
      args: (root) => ['show', '--root', root, '--id', lobs],
    },
    { key: 'validate', label: 'validate', verb: 'validate', needs: ['ingest'], repeat: true, args: (root) => ['validate', root] },
    { key: 'audit', label: 'audit', verb: 'audit', needs: ['ingest'], repeat: true, args: (root) => ['audit', '--root', root] },
  ];
}

function checkoutFolder(work: string, side: Side): string {
  return path.join(work, `checkout-${side}`);
}

/** The steps asked for by BENCH_BASE_STEPS and those they need, in the bench's order. */
function chosen(all: Step[]): Step[] {
  if (!ONLY) return all;
  const unknown = ONLY.filter((key) => !all.some((step) => step.key === key));
  if (unknown.length) throw new Error(`BENCH_BASE_STEPS: no step ${unknown.join(', ')} (steps: ${all.map((s) => s.key).join(', ')}).`);
  const wanted = new Set(ONLY);
  for (const step of [...all].reverse()) if (wanted.has(step.key)) for (const need of step.needs ?? []) wanted.add(need);
  return all.filter((step) => wanted.has(step.key));
}

/** Makes the data the chosen steps read, once: a kept work folder already holds it. */
function makeData(work: string, chosenSteps: Step[], n: number, roots: Record<Side, string>, cli: Record<Side, string>): void {
  const once = (name: string, make: () => void) => {
    const marker = path.join(work, `${name}.done`);
    if (existsSync(marker)) return;
    make();
    writeFileSync(marker, '');
  };
  for (const side of ['base', 'head'] as const) {
    once(`init-${side}`, () => spawnSync(process.execPath, [cli[side], 'init', roots[side]], { stdio: 'inherit' }));
  }
  if (chosenSteps.some((step) => step.key === 'ingest')) once('lobs-db', () => buildLobDb(path.join(work, 'lobs.db'), n));
  if (!chosenSteps.some((step) => step.key === 'put')) return;
  once('folder', () => makeFolder(path.join(work, 'folder'), n));
  for (const side of ['base', 'head'] as const) {
    once(`v2-${side}`, () => {
      // v2's folder: the v1 folder with one file changed (hard links, so no second copy).
      spawnSync('cp', ['-al', path.join(work, 'folder'), path.join(work, `v2-${side}`)]);
      const changed = path.join(work, `v2-${side}`, 'seg_0', 'record0.bin');
      rmSync(changed);
      writeFileSync(changed, 'changed');
    });
  }
}

let droppable: boolean | undefined;

/** Whether this machine lets the bench drop the page cache, checked (and said) once. */
function cachesDroppable(): boolean {
  if (droppable === undefined) {
    droppable = dropCaches();
    process.stdout.write(
      droppable
        ? '    (checkout: caches dropped and the object read once before each run)\n'
        : '    (checkout: caches cannot be dropped here, needs root: a sync before each run only)\n',
    );
  }
  return droppable;
}

/** Before each measured run: a sync; before a checkout, its folder gone and the caches as described in the header. */
function prepareRun(step: Step, work: string, side: Side, root: string): void {
  if (step.key === 'checkout') {
    // rm, not rmSync: 200,000 files removed in JavaScript took minutes beside other work.
    spawnSync('rm', ['-rf', checkoutFolder(work, side)]);
    if (cachesDroppable()) return prepareWarm([root]);
  }
  spawnSync('sync');
}

/** Runs one step on both sides: once, or REPEAT times alternated keeping each side's lowest CPU. */
function runStep(step: Step, work: string, roots: Record<Side, string>, cli: Record<Side, string>): Row | undefined {
  const done = (side: Side) => path.join(work, `${step.key}-${side}.done`);
  const made = (['base', 'head'] as const).filter((side) => !step.repeat && existsSync(done(side)));
  if (made.length === 2) {
    process.stdout.write(`    ${step.label.padEnd(28)} made by an earlier run (kept work folder)\n`);
    return undefined;
  }
  // Running it again on the side that has it would write a second version: the two sides would differ.
  if (made.length === 1) throw new Error(`${step.label} was made on one side only by an earlier run: remove ${work} and start again.`);
  const times = step.repeat ? Math.max(1, REPEAT, step.key === 'checkout' ? CHECKOUT_RUNS : 1) : 1;
  const runs: Record<Side, Run[]> = { base: [], head: [] };
  for (let i = 0; i < times; i++) {
    for (const side of ['base', 'head'] as const) {
      prepareRun(step, work, side, roots[side]);
      runs[side].push(measure([process.execPath, cli[side], ...step.args(roots[side], side)]));
    }
    // Told as they come: three checkouts of 1,000,000 files take a while.
    if (times > 1)
      process.stdout.write(`      ${step.label} run ${i + 1}: c182370 ${cpuText(runs.base[i]!)}, this tree ${cpuText(runs.head[i]!)}\n`);
  }
  if (!step.repeat) for (const side of ['base', 'head'] as const) if (runs[side][0]!.ok) writeFileSync(done(side), '');
  const best = (list: Run[]) => list.reduce((a, b) => (b.cpuSeconds < a.cpuSeconds ? b : a));
  return {
    label: step.label,
    verb: step.verb,
    base: best(runs.base),
    head: best(runs.head),
    ...(times > 1 ? { runs: { base: runs.base.map((r) => r.cpuSeconds), head: runs.head.map((r) => r.cpuSeconds) } } : {}),
  };
}

/** CPU seconds of a run, and its user and system parts. */
function cpuText(run: Run): string {
  return `${run.cpuSeconds.toFixed(2)} s (user ${run.userSeconds.toFixed(2)}, system ${run.sysSeconds.toFixed(2)})`;
}

function runSize(n: number): Row[] {
  const parent = process.env.BENCH_BASE_WORK ?? os.tmpdir();
  const work = KEEP ? path.join(parent, `issue35-${n}`) : mkdtempSync(path.join(parent, `issue35-${n}-`));
  mkdirSync(work, { recursive: true });
  try {
    const folder = path.join(work, 'folder');
    const db = path.join(work, 'lobs.db');
    const cli = { base: path.join(BASE, 'bin', 'siard-ocfl'), head: path.join(PROJECT, 'bin', 'siard-ocfl') };
    const roots = { base: path.join(work, 'root-base'), head: path.join(work, 'root-head') };
    const chosenSteps = chosen(steps(work, folder, db));
    makeData(work, chosenSteps, n, roots, cli);
    const rows: Row[] = [];
    for (const step of chosenSteps) {
      const row = runStep(step, work, roots, cli);
      if (!row) continue;
      rows.push(row);
      printRow(row);
    }
    return rows;
  } finally {
    if (KEEP) process.stdout.write(`    work folder kept: ${work}\n`);
    else rmSync(work, { recursive: true, force: true });
  }
}

function targetOf(row: Row): number {
  return (TARGETS[row.verb] ?? NOISE) as number;
}

function verdict(row: Row): boolean {
  if (!row.base.ok || !row.head.ok) return false;
  return row.head.cpuSeconds / row.base.cpuSeconds <= targetOf(row) && row.head.maxRssMiB / row.base.maxRssMiB <= PEAK_TARGET;
}

function printRow(row: Row): void {
  const { base, head } = row;
  const cpu = head.cpuSeconds / base.cpuSeconds;
  const peak = head.maxRssMiB / base.maxRssMiB;
  const s = (v: number, digits: number, width: number) => v.toFixed(digits).padStart(width);
  process.stdout.write(
    `    ${row.label.padEnd(28)} cpu ${s(base.cpuSeconds, 2, 8)} -> ${s(head.cpuSeconds, 2, 8)} s ${s(cpu, 2, 5)}x ` +
      `(<= ${targetOf(row).toFixed(2)})   peak ${s(base.maxRssMiB, 0, 5)} -> ${s(head.maxRssMiB, 0, 5)} MiB ${s(peak, 2, 5)}x ` +
      `(<= ${PEAK_TARGET})   ${verdict(row) ? 'ok' : 'MISSED'}\n`,
  );
  if (row.runs) {
    const list = (v: number[]) => v.map((x) => x.toFixed(2)).join(' / ');
    process.stdout.write(`      runs, alternated: c182370 ${list(row.runs.base)} s; this tree ${list(row.runs.head)} s (lowest kept)\n`);
  }
}

if (!existsSync(path.join(BASE, 'dist', 'cli', 'main.js'))) {
  process.stdout.write(`No built c182370 at ${BASE}: git worktree add ${BASE} c182370 && (cd ${BASE} && npm ci), or set BENCH_BASE_DIR.\n`);
  process.exit(1);
}
let missed = 0;
for (const n of SIZES) {
  process.stdout.write(`\n  ${n.toLocaleString('en')} files: c182370 -> this tree (CPU seconds, peak RSS)\n`);
  missed += runSize(n).filter((row) => !verdict(row)).length;
}
process.stdout.write(missed ? `\n  ${missed} target(s) missed.\n` : '\n  every target met.\n');
process.exit(missed ? 1 : 0);
