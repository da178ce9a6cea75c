/**
 * Access files (issue 37, point 3): time and peak memory per row and per LOB on the samples of
 * ../shared/reference/access-samples, against mdbtools' mdb-export of the same tables (C, measured
 * in the same run, so the ratio holds on a shared machine), and what a 2 GB file would take.
 * No tool here writes Access files, so 2 GB is a model from three costs measured on the samples:
 *   - per row: reading a table's rows through the source (mdb-reader decoding, our values), in
 *     this process, repeated until it takes half a second;
 *   - per page walked: mdb-reader reads rows from an offset by walking the table's pages from its
 *     first, so each step of rows-in-steps (src/sources/access/row-steps.ts) walks the pages before
 *     it: measured as getData at an offset past the end, which walks every page and decodes nothing;
 *   - per page read: one pread of 4 KiB through the paged file.
 * And each sample exported by the built CLI (child process: CPU and peak RSS from /usr/bin/time).
 *
 *   npm run build && node bench/run.js access
 */
import MDBReader, { type Table } from 'mdb-reader';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AccessSource } from '../src/sources/access/access-source.js';
import { openPagedFile } from '../src/sources/access/paged-file.js';
import { sourceValueOf } from '../src/sources/access/type-mapping.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SAMPLES = path.resolve(ROOT, '..', 'shared', 'reference', 'access-samples');
const CLI = path.join(ROOT, 'bin', 'siard-ocfl');
const PASSWORD = 'password';
const GIB2 = 2 ** 31;
const PAGE = 4096;

function accessFilesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? accessFilesUnder(full) : /\.(mdb|accdb)$/.test(name) ? [full] : [];
    });
}

const protectedFile = (file: string) => /with-password|office-agile/.test(file);

/** CPU seconds (user + sys) and peak RSS (MB) of a command, from /usr/bin/time. */
function timed(argv: string[]): { cpu: number; peakMb: number } {
  const r = spawnSync('/usr/bin/time', ['-f', '__T__ %U %S %M', ...argv], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed: ${r.stderr.slice(-1000)}`);
  const [, user, sys, kb] = /__T__ ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr)!;
  return { cpu: Number(user) + Number(sys), peakMb: Number(kb) / 1024 };
}

/** Every row of every table through the source, `rounds` times: rows, LOB-sized values (over 2,000 bytes) and CPU seconds. */
async function readAll(
  file: string,
  rounds: number,
): Promise<{ rows: number; lobs: number; lobBytes: number; cpu: number; rowCpu: number }> {
  const start = process.cpuUsage();
  let rowMicros = 0;
  let rows = 0;
  let lobs = 0;
  let lobBytes = 0;
  for (let r = 0; r < rounds; r++) {
    const source = await AccessSource.open(file, protectedFile(file) ? { password: PASSWORD } : {});
    const catalog = await source.catalog();
    const rowStart = process.cpuUsage();
    for (const table of catalog.schemas[0]!.tables)
      for await (const batch of source.rowBatches('main', table.name))
        for (const row of batch) {
          rows++;
          for (const v of row) {
            const size = typeof v === 'string' ? Buffer.byteLength(v) : v instanceof Uint8Array ? v.byteLength : 0;
            if (size > 2000) {
              lobs++;
              lobBytes += size;
            }
          }
        }
    const rowUsed = process.cpuUsage(rowStart);
    rowMicros += rowUsed.user + rowUsed.system;
    await source.close();
  }
  const used = process.cpuUsage(start);
  return {
    rows: rows / rounds,
    lobs: lobs / rounds,
    lobBytes: lobBytes / rounds,
    cpu: (used.user + used.system) / 1e6 / rounds,
    rowCpu: rowMicros / 1e6 / rounds,
  };
}

/** CPU microseconds of one call of `fn`, over `reps` calls. */
function micros(fn: () => void, reps: number): number {
  const start = process.cpuUsage();
  for (let r = 0; r < reps; r++) fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / reps;
}

/**
 * Marginal CPU costs, from the largest tables of the samples (a real database's 65-row table and
 * its 7-page MSysAccessStorage): per row decoded and converted (65 rows less 1 row, over 64), per
 * page walked to an offset (a 7-page walk less a 1-page walk, over the pages between), per pread.
 */
function marginalCosts(file: string): { row: number; walk: number; read: number } {
  const paged = openPagedFile(file);
  try {
    const reader = new MDBReader(paged.buffer);
    const rows = reader.getTable('Asset Items');
    const columns = rows.getColumns();
    const decode = (limit: number) => () => {
      for (const record of rows.getData({ rowLimit: limit }) as Array<Record<string, unknown>>)
        columns.map((c) => sourceValueOf(record[c.name], c));
    };
    const row = (micros(decode(65), 2000) - micros(decode(1), 2000)) / 64;
    const pagesOf = (table: Table) => {
      const before = paged.stats().reads;
      table.getData({ rowOffset: table.rowCount + 1, rowLimit: 1, columns: [] });
      return paged.stats().reads - before;
    };
    const long = reader.getTable('MSysAccessStorage');
    const walkOf = (table: Table) => () => table.getData({ rowOffset: table.rowCount + 1, rowLimit: 1, columns: [] });
    const walk = (micros(walkOf(long), 3000) - micros(walkOf(rows), 3000)) / (pagesOf(long) - pagesOf(rows));
    const pages = Math.floor(paged.size / PAGE);
    const read =
      micros(() => {
        for (let p = 0; p < pages; p++) paged.buffer.slice(p * PAGE, (p + 1) * PAGE);
      }, 50) / pages;
    return { row, walk, read };
  } finally {
    paged.close();
  }
}

const files = accessFilesUnder(SAMPLES);
const out = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-access-bench-'));
console.log(
  'sample                                   size KB  rows  LOBs  export CPU s  peak MB  mdb-export CPU s  rows µs/row (open excluded)',
);
let totalRows = 0;
let totalCpu = 0;
let maxPeak = 0;
for (const file of files) {
  const name = path.relative(SAMPLES, file);
  const dir = path.join(out, name.replace(/[/.]/g, '_'));
  const ours = timed([process.execPath, CLI, 'export', file, dir, ...(protectedFile(file) ? ['--password', PASSWORD] : [])]);
  const mdbFile = /office-agile|V2010_with-password/.test(name) ? path.join(SAMPLES, 'password/data/V2010_no-password.accdb') : file;
  const tables = spawnSync('mdb-tables', ['-1', mdbFile], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  const quoted = tables.map((t) => `'${t.replace(/'/g, "'\\''")}'`).join(' ');
  const peer = timed(['sh', '-c', `for t in ${quoted}; do mdb-export -b hex '${mdbFile}' "$t" > /dev/null; done`]);
  const once = await readAll(file, 1);
  const rounds = Math.max(1, Math.min(2000, Math.ceil(0.5 / Math.max(once.cpu, 1e-4))));
  const inProcess = await readAll(file, rounds);
  totalRows += inProcess.rows;
  totalCpu += inProcess.rowCpu;
  maxPeak = Math.max(maxPeak, ours.peakMb);
  console.log(
    `${name.padEnd(40)} ${String(Math.round(statSync(file).size / 1024)).padStart(7)} ${String(inProcess.rows).padStart(5)} ` +
      `${String(inProcess.lobs).padStart(5)} ${ours.cpu.toFixed(2).padStart(13)} ${ours.peakMb.toFixed(0).padStart(8)} ` +
      `${peer.cpu.toFixed(2).padStart(17)} ${(inProcess.rows ? ((inProcess.rowCpu * 1e6) / inProcess.rows).toFixed(1) : '-').padStart(18)}`,
  );
}
rmSync(out, { recursive: true, force: true });

// Per LOB: the long text sample's one LOB-sized memo, read alone.
const longtext = await readAll(path.join(SAMPLES, 'data/V2016/longtext.accdb'), 200);
const costs = marginalCosts(path.join(SAMPLES, 'data/real/ASampleDatabase.accdb'));
console.log(
  `\nall samples: ${totalRows} rows read in ${totalCpu.toFixed(3)} s of CPU: ${((totalCpu * 1e6) / totalRows).toFixed(1)} µs per row ` +
    '(opening and catalogue excluded; mostly what each table costs once)',
);
console.log(
  `longtext.accdb: ${longtext.lobs} LOB of ${longtext.lobBytes} bytes, its rows ${(longtext.rowCpu * 1e3).toFixed(3)} ms of CPU ` +
    `(${(longtext.cpu * 1e3).toFixed(2)} ms with the open)`,
);
console.log(`peak RSS of an export (CLI): at most ${maxPeak.toFixed(0)} MB`);
console.log(
  `marginal costs (ASampleDatabase.accdb): ${costs.row.toFixed(2)} µs per row of 13 columns decoded and converted, ` +
    `${costs.walk.toFixed(2)} µs per page walked, ${costs.read.toFixed(2)} µs per pread of 4 KiB`,
);

// A 2 GB file of one table of 200-byte rows (the 13-column rows measured are about that): 10.7 million rows on
// 524,288 pages, read in 128 steps of 16 MiB, each walking half the pages on average.
const pages = GIB2 / PAGE;
const rows = Math.floor(GIB2 / 200);
const steps = Math.max(64, Math.ceil(GIB2 / (16 * 2 ** 20)));
const rowSeconds = (rows * costs.row) / 1e6;
const walkSeconds = (steps * (pages / 2) * costs.walk) / 1e6;
const readSeconds = (pages * costs.read) / 1e6;
console.log(
  `2 GB model (one table, ${rows.toLocaleString('en')} rows of 200 bytes, ${pages.toLocaleString('en')} pages, ${steps} steps): ` +
    `rows ${rowSeconds.toFixed(0)} s + page walks ${walkSeconds.toFixed(0)} s + preads ${readSeconds.toFixed(0)} s = ` +
    `${(rowSeconds + walkSeconds + readSeconds).toFixed(0)} s of CPU for the source; memory: one step (about 16 MiB of values) ` +
    'and one table definition',
);
