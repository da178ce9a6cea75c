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
 * (this tree / base), with the targets: `show` CPU at most 0.5x, `put` at most 0.9x, every
 * other verb at most 1.0x (plus 5% for noise on this shared machine), every peak at most 1.1x.
 * The exit status is 1 when a target is missed, so `npm run bench` reports it.
 *
 * The base: BENCH_BASE_DIR (default /work/base, where the lead engineer built it), a checkout of
 * c182370 with its dependencies installed and built (`git worktree add /work/base c182370`, then
 * `npm ci && npm run build` there; commits 9cceda0, 10a67b0 and 7d23905 after it do not build). Disk: ~4 x N x 4 KiB in
 * BENCH_BASE_WORK (default: the system's temporary folder), removed at the end.
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

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BASE = process.env.BENCH_BASE_DIR ?? '/work/base';
const SIZES = (process.env.BENCH_BASE_SIZES ?? '200000').split(',').filter(Boolean).map(Number);
const PER_FOLDER = 1000;
const USER = ['--user-name', 'Bench', '--user-address', 'mailto:bench@example.org'];
/** Noise allowed on "no worse": two runs of the same verb here differ by a few percent. */
const NOISE = 1.05;
const TARGETS: Record<string, number> = { show: 0.5, put: 0.9 };
const PEAK_TARGET = 1.1;

interface Run {
  cpuSeconds: number;
  maxRssMiB: number;
  ok: boolean;
}

function measure(argv: string[]): Run {
  spawnSync('sync');
  // stdout is not kept: show of a million files prints ~250 MB.
  const r = spawnSync('/usr/bin/time', ['-f', '__TIME__ %M %U %S', ...argv], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 26,
  });
  const m = /__TIME__ (\d+) ([\d.]+) ([\d.]+)/.exec(r.stderr);
  const ok = r.status === 0;
  if (!ok) process.stdout.write(`    FAILED (exit ${r.status}): ${argv.slice(1).join(' ')}\n${r.stderr.slice(-600)}\n`);
  return { cpuSeconds: m ? Number(m[2]) + Number(m[3]) : NaN, maxRssMiB: m ? Number(m[1]) / 1024 : NaN, ok };
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
}

/** The verbs of one size, each run by the base then by this tree on its own root. */
function steps(
  work: string,
  folder: string,
  db: string,
): Array<{ label: string; verb: string; args: (root: string, side: string) => string[] }> {
  const id = 'urn:bench:folder';
  const lobs = 'urn:bench:lobs';
  return [
    { label: 'put (new object)', verb: 'put', args: (root) => ['put', '--root', root, '--id', id, folder, '--message', 'v1', ...USER] },
    { label: 'show', verb: 'show', args: (root) => ['show', '--root', root, '--id', id] },
    { label: 'log', verb: 'log', args: (root) => ['log', '--root', root, '--id', id] },
    { label: 'ls', verb: 'ls', args: (root) => ['ls', '--root', root] },
    { label: 'validate --no-fixity', verb: 'validate', args: (root) => ['validate', '--no-fixity', root] },
    {
      label: 'checkout',
      verb: 'checkout',
      args: (root, side) => ['checkout', '--root', root, '--id', id, path.join(work, `checkout-${side}`)],
    },
    {
      label: 'put v2 (one file changed)',
      verb: 'put',
      args: (root, side) => ['put', '--root', root, '--id', id, path.join(work, `v2-${side}`), '--message', 'v2', ...USER],
    },
    { label: 'ingest', verb: 'ingest', args: (root) => ['ingest', `sqlite:${db}`, '--root', root, '--id', lobs, ...USER] },
    { label: 'show (ingested)', verb: 'show', args: (root) => ['show', '--root', root, '--id', lobs] },
    { label: 'validate', verb: 'validate', args: (root) => ['validate', root] },
    { label: 'audit', verb: 'audit', args: (root) => ['audit', '--root', root] },
  ];
}

function runSize(n: number): Row[] {
  const work = mkdtempSync(path.join(process.env.BENCH_BASE_WORK ?? os.tmpdir(), `issue35-${n}-`));
  try {
    const folder = path.join(work, 'folder');
    const db = path.join(work, 'lobs.db');
    makeFolder(folder, n);
    buildLobDb(db, n);
    const sides = { base: path.join(BASE, 'bin', 'siard-ocfl'), head: path.join(PROJECT, 'bin', 'siard-ocfl') } as const;
    const roots = { base: path.join(work, 'root-base'), head: path.join(work, 'root-head') };
    for (const side of ['base', 'head'] as const) {
      spawnSync(process.execPath, [sides[side], 'init', roots[side]], { stdio: 'inherit' });
      // v2's folder: the v1 folder with one file changed (hard links, so no second copy).
      spawnSync('cp', ['-al', folder, path.join(work, `v2-${side}`)]);
      const changed = path.join(work, `v2-${side}`, 'seg_0', 'record0.bin');
      rmSync(changed);
      writeFileSync(changed, 'changed');
    }
    const rows: Row[] = [];
    for (const step of steps(work, folder, db)) {
      const [base, head] = (['base', 'head'] as const).map((side) =>
        measure([process.execPath, sides[side], ...step.args(roots[side], side)]),
      );
      rows.push({ label: step.label, verb: step.verb, base: base!, head: head! });
      printRow(rows[rows.length - 1]!);
    }
    return rows;
  } finally {
    rmSync(work, { recursive: true, force: true });
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
