/**
 * Issue 38: what a resume saves. `export` of a SQLite database to a folder, uninterrupted, against
 * the same export SIGKILLed once half of its tables are finished (its journal has that many table
 * lines) and run again to its end: the CPU seconds (user + system) of the resuming run over those of
 * the uninterrupted one. The issue asks at most 0.6. The resumed archive must equal the uninterrupted
 * one (every file's SHA-256), else the bench fails. Peak RSS of both runs is printed. The same for
 * `ingest` into a new object of a fresh root (its journal in the workspace), whose resumed object
 * must have the uninterrupted one's manifest and state. BENCH_RESUME_VERBS (default
 * `export,ingest`) chooses the verbs.
 *
 * Two shapes, each at two sizes, so that the marginal cost per row and per LOB shows (docs/scale.md's
 * terabyte estimate takes them): `rows`, 20 tables of rows of ~120 bytes and no LOB; `lobs`, 20
 * tables whose every row holds one 8 KiB BLOB written to a LOB file. BENCH_RESUME_SCALE multiplies
 * the sizes (default 1: 100,000 and 400,000 rows; 4,000 and 16,000 LOBs).
 *
 * A third shape, `big`, one table that dominates (three small tables beside it, rows of ~120
 * bytes, a 2 KiB BLOB in a file every 1,000th row) at three sizes (400,000, 1,600,000 and
 * 3,200,000 rows): killed once its journal has a cut line at half of the big table's rows or past
 * it, so the resume goes on inside that table (docs/resume.md). Its size cost is printed too: the
 * big table's entry deflated in segments (a full flush every 8 MiB of XML, as every export writes
 * it) against the same XML deflated as one stream at the same level (python3's zipfile reads it).
 *
 * The gate (exit 1): the CPU ratio above 0.6 at the larger size of either shape, or a resumed
 * archive that differs at any size. The ratio is taken less the fixed start of an export (Node,
 * the bundle, the catalogue: a 20-row export measured in the same run), which a days-long run
 * makes negligible and these small runs do not; the ratio with it is printed beside. At the gated
 * (largest) size of each shape both sides are measured BENCH_RESUME_REPEAT times (default 3:
 * uninterrupted, then killed and resumed, alternated) and the lowest CPU of each side is taken, the
 * start-up too (one run's ratio moved by 0.25 between runs of the same code, session 51: the
 * system time of the syncfs and fsyncs follows whatever else the machine writes); each run's figure
 * is printed. At the smaller
 * sizes what a resume costs whatever its size (its start, reading the journal, the table in
 * progress finished again) still shows: printed, not gated. CPU,
 * not wall: this machine is shared, and the resuming run's extra work (reading and hashing again
 * what it keeps) is CPU and reads from the page cache, which load does not change.
 *
 *   node --import=tsx bench/resume.bench.ts     (after npm run build; or node bench/run.js resume)
 */
import Database from '../src/sources/sqlite/driver.js';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(PROJECT, 'bin', 'siard-ocfl');
const SCALE = Number(process.env.BENCH_RESUME_SCALE ?? 1);
const TABLES = 20;
const LIMIT = 0.6;
/** Runs per side at the gated size of each shape (the lowest CPU taken). */
const REPEAT = Math.max(1, Number(process.env.BENCH_RESUME_REPEAT ?? 3));
const VERBS = (process.env.BENCH_RESUME_VERBS ?? 'export,ingest').split(',') as Array<'export' | 'ingest'>;
/** BENCH_RESUME_SHAPES (default rows,lobs,big) chooses the shapes. */
const SHAPES = (
  [
    ['rows', [100_000, 400_000]],
    ['lobs', [4_000, 16_000]],
    ['big', [400_000, 1_600_000, 3_200_000]],
  ] as Array<[Shape, number[]]>
).filter(([shape]) => (process.env.BENCH_RESUME_SHAPES ?? 'rows,lobs,big').split(',').includes(shape));

type Shape = 'rows' | 'lobs' | 'big';

function makeDb(file: string, shape: Shape, total: number): void {
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  const lob = Buffer.alloc(8 * 1024);
  db.exec('BEGIN');
  if (shape === 'big') {
    for (const t of ['a', 'b', 'c']) {
      db.exec(`CREATE TABLE ${t} (id INTEGER PRIMARY KEY, name TEXT)`);
      const ins = db.prepare(`INSERT INTO ${t} VALUES (?, ?)`);
      for (let i = 1; i <= 1000; i++) ins.run(i, `${t} ${i}`);
    }
    db.exec('CREATE TABLE big (id INTEGER PRIMARY KEY, name TEXT NOT NULL, amount REAL, doc BLOB)');
    const ins = db.prepare('INSERT INTO big VALUES (?, ?, ?, ?)');
    for (let i = 1; i <= total; i++) {
      lob.writeUInt32BE(i, 0);
      ins.run(
        i,
        `row ${i} of the big table: the quick brown fox jumps over the lazy dog ${i * 7}`,
        i / 3,
        i % 1000 === 0 ? lob.subarray(0, 2048) : null,
      );
    }
    db.exec('COMMIT');
    db.close();
    return;
  }
  for (let t = 0; t < TABLES; t++) {
    db.exec(`CREATE TABLE t${t} (id INTEGER PRIMARY KEY, name TEXT NOT NULL, amount REAL, doc BLOB)`);
    const ins = db.prepare(`INSERT INTO t${t} VALUES (?, ?, ?, ?)`);
    for (let i = 1; i <= total / TABLES; i++) {
      if (shape === 'lobs') lob.writeUInt32BE(t * 1_000_000 + i, 0);
      ins.run(i, `row ${i} of table ${t}: the quick brown fox jumps over the lazy dog ${i * 7}`, i / 3, shape === 'lobs' ? lob : null);
    }
  }
  db.exec('COMMIT');
  db.close();
}

/** CPU seconds (user + system), peak RSS (MB) and wall seconds of one export run to its end. */
function timed(args: string[]): { cpu: number; rssMb: number; seconds: number; stderr: string } {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M %U %S', process.execPath, BIN, ...args], { encoding: 'utf8' });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`export failed: ${r.stderr}`);
  const [rss, user, sys] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
  return { cpu: user! + sys!, rssMb: rss! / 1024, seconds, stderr: r.stderr };
}

/** The folder holding an export's staging folder: the out-dir, or an ingest's work folder in the workspace. */
function workFolder(out: string): string {
  const ws = path.join(path.dirname(out), `.${path.basename(out)}.siard-ocfl-work`);
  const work = existsSync(ws) ? readdirSync(ws).find((n) => n.startsWith('resume-')) : undefined;
  return work ? path.join(ws, work) : out;
}

function journaledTables(target: string): number {
  const out = workFolder(target);
  const staging = existsSync(out) ? readdirSync(out).find((n) => n.startsWith('.siard-ocfl-export-')) : undefined;
  const journal = staging && path.join(out, staging, '.resume', 'journal.jsonl');
  if (!journal || !existsSync(journal)) return 0;
  return readFileSync(journal, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"table"')).length;
}

/** The rows before the last cut the journal records inside the table in progress (0 without one). */
function journaledCutRows(target: string): number {
  const out = workFolder(target);
  const staging = existsSync(out) ? readdirSync(out).find((n) => n.startsWith('.siard-ocfl-export-')) : undefined;
  const journal = staging && path.join(out, staging, '.resume', 'journal.jsonl');
  if (!journal || !existsSync(journal)) return 0;
  const cut = readFileSync(journal, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"batch"'))
    .pop();
  return cut ? (JSON.parse(cut) as { batch: { stats: { rows: number } } }).batch.stats.rows : 0;
}

/** Runs the export and SIGKILLs it once `tables` tables are journaled, or a cut at `cutRows` rows or past them. */
async function killAfter(args: string[], out: string, at: { tables?: number; cutRows?: number }): Promise<void> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: 'ignore' });
  const poll = setInterval(() => {
    if (at.tables !== undefined ? journaledTables(out) >= at.tables : journaledCutRows(out) >= at.cutRows!) child.kill('SIGKILL');
  }, 5);
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, s) => resolve(s)));
  clearInterval(poll);
  if (signal !== 'SIGKILL') throw new Error('the export finished before it was killed: make the database larger');
}

/** An ingest's result: the manifest and head state of the root's one object (the inventory is canonical JSON). */
function objectDigest(root: string): string {
  const find = (dir: string): string | undefined => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'extensions') continue;
      const p = path.join(dir, e.name);
      if (e.isFile() && e.name === 'inventory.json') return p;
      if (e.isDirectory()) {
        const found = find(p);
        if (found) return found;
      }
    }
    return undefined;
  };
  const inv = JSON.parse(readFileSync(find(root)!, 'utf8')) as {
    head: string;
    manifest: unknown;
    versions: Record<string, { state: unknown }>;
  };
  return createHash('sha256')
    .update(JSON.stringify([inv.manifest, inv.versions[inv.head]!.state]))
    .digest('hex');
}

function treeDigest(dir: string): string {
  const hash = createHash('sha256');
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(child);
      else
        hash.update(
          `${child}\0${createHash('sha256')
            .update(readFileSync(path.join(dir, child)))
            .digest('hex')}\n`,
        );
    }
  };
  walk('');
  return hash.digest('hex');
}

interface Row {
  shape: string;
  size: number;
  full: ReturnType<typeof timed>;
  resumed: ReturnType<typeof timed>;
  /** tables the resumed run kept */
  kept: number;
  /** rows of the table in progress the resumed run kept (the big shape) */
  keptWithin?: number;
  /** the big table's entry: compressed bytes in segments, and as one stream */
  sizeCost?: { segmented: number; oneStream: number };
  /** resumed CPU over uninterrupted CPU, both less the start-up */
  ratio: number;
  /** the same, start-up included */
  rawRatio: number;
  same: boolean;
}

/** The command of a verb into `out` (an out-dir, or an ingest's root, made here). */
function verbArgs(verb: 'export' | 'ingest', db: string, out: string): string[] {
  if (verb === 'export') return ['export', `sqlite:${db}`, out, '--name', 'db'];
  if (!existsSync(out) && spawnSync(process.execPath, [BIN, 'init', out]).status !== 0) throw new Error(`init ${out} failed`);
  return ['ingest', `sqlite:${db}`, '--root', out, '--id', 'db', '--name', 'db'];
}

/** The big table's entry of an export's .siard: its compressed size, and its XML deflated as one stream at level 1. */
function sizeCost(siard: string): { segmented: number; oneStream: number } {
  const py =
    'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\ne = [i for i in z.infolist() if i.filename.endswith("table3.xml")][0]\n' +
    'sys.stdout.write(str(e.compress_size) + "\\n")\nsys.stdout.flush()\nsys.stdout.buffer.write(z.read(e))';
  const r = spawnSync('python3', ['-c', py, siard], { maxBuffer: 2 ** 31 });
  if (r.status !== 0) throw new Error(`python3 could not read ${siard}: ${r.stderr.toString()}`);
  const nl = r.stdout.indexOf(10);
  const segmented = Number(r.stdout.subarray(0, nl).toString());
  return { segmented, oneStream: zlib.deflateRawSync(r.stdout.subarray(nl + 1), { level: 1 }).length };
}

/** The run of the lowest CPU. */
function lowest(runs: Array<ReturnType<typeof timed>>): ReturnType<typeof timed> {
  return runs.reduce((a, b) => (b.cpu < a.cpu ? b : a));
}

async function measure(
  base: string,
  verb: 'export' | 'ingest',
  shape: Shape,
  size: number,
  startCpu: number,
  repeat: number,
): Promise<Row> {
  const db = path.join(base, `${shape}-${size}.sqlite`);
  makeDb(db, shape, size);
  const args = (out: string) => verbArgs(verb, db, out);
  const fulls: Array<ReturnType<typeof timed>> = [];
  const resumes: Array<ReturnType<typeof timed>> = [];
  let cost: Row['sizeCost'];
  let same = true;
  for (let i = 0; i < repeat; i++) {
    const refOut = path.join(base, `${shape}-${size}-full-${i}`);
    fulls.push(timed(args(refOut)));
    if (i === 0 && shape === 'big' && verb === 'export') cost = sizeCost(path.join(refOut, 'db.siard'));
    const out = path.join(base, `${shape}-${size}-resumed-${i}`);
    await killAfter(args(out), out, shape === 'big' ? { cutRows: size / 2 } : { tables: TABLES / 2 });
    const run = timed(args(out));
    if (!new RegExp(`^Resuming the interrupted ${verb}`, 'm').test(run.stderr))
      throw new Error(`the second run did not resume: ${run.stderr}`);
    resumes.push(run);
    same &&= verb === 'export' ? treeDigest(refOut) === treeDigest(out) : objectDigest(refOut) === objectDigest(out);
    for (const f of [refOut, out]) rmSync(f, { recursive: true, force: true });
    if (repeat > 1)
      console.log(
        `  ${verb} ${shape} ${size} run ${i + 1}: uninterrupted ${fulls[i]!.cpu.toFixed(2)} s CPU, resumed ${run.cpu.toFixed(2)} s ` +
          `(${((run.cpu - startCpu) / (fulls[i]!.cpu - startCpu)).toFixed(2)} less the start-up)`,
      );
  }
  rmSync(db, { force: true });
  const full = lowest(fulls);
  const resumed = lowest(resumes);
  const kept = Number(/: (\d+) of \d+ tables kept/.exec(resumed.stderr)?.[1] ?? NaN);
  const within = /after its row of key \d+ \(([\d,]+) of its rows kept\)/.exec(resumed.stderr);
  if (shape === 'big' && !within) throw new Error(`the resume did not go on inside the big table: ${resumed.stderr}`);
  const ratio = (resumed.cpu - startCpu) / (full.cpu - startCpu);
  return {
    shape: `${verb} ${shape}`,
    size,
    full,
    resumed,
    kept,
    ...(within ? { keptWithin: Number(within[1]!.replace(/,/g, '')) } : {}),
    ...(cost ? { sizeCost: cost } : {}),
    ratio,
    rawRatio: resumed.cpu / full.cpu,
    same,
  };
}

const base = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-resume-bench-'));
const load = os.loadavg()[0]!.toFixed(1);
console.log(`resume bench ${new Date().toISOString()}, load ${load}, scale ${SCALE}`);
const rows: Row[] = [];
try {
  // the fixed start of an export (Node, the bundle, the catalogue): a 20-row export, measured in this run
  const tiny = path.join(base, 'tiny.sqlite');
  makeDb(tiny, 'rows', TABLES);
  for (const verb of VERBS) await measureVerb(verb);
} finally {
  rmSync(base, { recursive: true, force: true });
}

async function measureVerb(verb: 'export' | 'ingest'): Promise<void> {
  const tiny = path.join(base, 'tiny.sqlite');
  const starts = Array.from({ length: REPEAT }, (_, i) => timed(verbArgs(verb, tiny, path.join(base, `tiny-${verb}-${i}`))).cpu);
  const startCpu = Math.min(...starts);
  console.log(
    `${verb} start-up: ${startCpu.toFixed(2)} s CPU, the lowest of ${starts.map((c) => c.toFixed(2)).join(', ')} ` +
      `(an ${verb} of ${TABLES} rows)`,
  );
  for (const [shape, sizes] of SHAPES) {
    for (const size of sizes) {
      const gated = size === sizes.at(-1);
      const r = await measure(base, verb, shape, Math.round(size * SCALE), startCpu, gated ? REPEAT : 1);
      rows.push(r);
      const run = (m: ReturnType<typeof timed>) => `${m.cpu.toFixed(2)} s CPU (${m.seconds.toFixed(1)} s wall, ${m.rssMb.toFixed(0)} MB)`;
      const kept =
        r.keptWithin !== undefined ? `${r.kept} tables and ${r.keptWithin} rows of the big one kept` : `${r.kept} of ${TABLES} tables kept`;
      const cost = r.sizeCost
        ? `; the big table's entry ${r.sizeCost.segmented} bytes in segments, ${r.sizeCost.oneStream} as one stream ` +
          `(+${((r.sizeCost.segmented / r.sizeCost.oneStream - 1) * 100).toFixed(3)} %)`
        : '';
      console.log(
        `${r.shape} ${r.size}: uninterrupted ${run(r.full)}, resumed after half ${run(r.resumed)}: ` +
          `${kept}; ratio ${r.ratio.toFixed(2)} less the start-up (${r.rawRatio.toFixed(2)} with it)` +
          `${r.same ? '' : ', THE RESUMED ARCHIVE DIFFERS'}${cost}`,
      );
    }
    const [small, large] = rows.slice(-2);
    const marginal = ((large!.full.cpu - small!.full.cpu) / (large!.size - small!.size)) * 1e6;
    console.log(`${verb} ${shape}: marginal CPU per ${shape === 'lobs' ? 'LOB' : 'row'} ${marginal.toFixed(1)} µs (uninterrupted)`);
  }
}
const largest = new Map(rows.map((r) => [r.shape, r.size]));
const bad = rows.filter((r) => (r.size === largest.get(r.shape) && r.ratio > LIMIT) || !r.same);
if (bad.length > 0) {
  console.log(`FAIL: ${bad.map((r) => `${r.shape} ${r.size} ratio ${r.ratio.toFixed(2)}${r.same ? '' : ' (differs)'}`).join('; ')}`);
  process.exit(1);
}
console.log(`pass: at the larger sizes every resume after half at most ${LIMIT}x the uninterrupted run's CPU; every resumed archive equal`);
