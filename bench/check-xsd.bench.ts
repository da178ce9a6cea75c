/**
 * `check`'s in-process XSD validation of a table (issue 32, section 2: "measure it against
 * `xmllint --stream` on a 1 GB table"): one tableN.xml written as our writer writes it (an
 * integer key, a VARCHAR(200) of ~150 characters, a DECIMAL(12,2), a TIMESTAMP, a BOOLEAN per row)
 * with the tableN.xsd our writer produces for those columns, validated
 * - by `xmllint --stream --noout --schema` (libxml2 in C, streaming), and
 * - by check's TableXsdWindows (libxml2 compiled to WebAssembly, fed windows of whole rows, in a
 *   child process so its CPU and peak RSS are its own),
 * both from the page cache, in the same run. Reported: wall and CPU seconds (user + system) of each,
 * the ratio xmllint / ours (1.0 = as fast), and each one's peak RSS.
 *
 * Sizes: BENCH_CHECK_XSD_MB (comma-separated megabytes of table XML, default 100,1000).
 *
 *   node --import=tsx bench/check-xsd.bench.ts
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { tableXsd } from '../src/siard/table-xsd.js';

const HERE = fileURLToPath(import.meta.url);

/** The table file: rows appended until it holds `mb` megabytes. */
function writeTable(file: string, mb: number): number {
  const fd = openSync(file, 'w');
  const note = 'The quick brown fox jumps over the lazy dog; '.repeat(4).slice(0, 150);
  writeSync(
    fd,
    '<?xml version="1.0" encoding="UTF-8"?>\n<table xmlns="http://www.bar.admin.ch/xmlns/siard/2/table.xsd" ' +
      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
      'xsi:schemaLocation="http://www.bar.admin.ch/xmlns/siard/2/table.xsd table0.xsd" version="2.2">\n',
  );
  let rows = 0;
  let bytes = 0;
  const target = mb * 1e6;
  while (bytes < target) {
    const parts: string[] = [];
    for (let k = 0; k < 10_000; k++) {
      rows++;
      const day = String((rows % 28) + 1).padStart(2, '0');
      parts.push(
        `  <row><c1>${rows}</c1><c2>${note} ${rows}</c2><c3>${rows % 100000}.${String(rows % 100).padStart(2, '0')}</c3>` +
          `<c4>2024-01-${day}T12:34:56Z</c4><c5>${rows % 2 === 0 ? 'true' : 'false'}</c5></row>\n`,
      );
    }
    const chunk = parts.join('');
    writeSync(fd, chunk);
    bytes += Buffer.byteLength(chunk);
  }
  writeSync(fd, '</table>\n');
  closeSync(fd);
  return rows;
}

function timed(argv: string[]): { seconds: number; cpu: number; rssMb: number; stdout: string } {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M %U %S', ...argv], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const seconds = (performance.now() - t0) / 1000;
  const last = String(r.stderr).trim().split('\n').pop()!;
  const [rss, user, sys] = last.split(' ').map(Number);
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status}): ${String(r.stderr).slice(-500)}`);
  return { seconds, cpu: user! + sys!, rssMb: rss! / 1024, stdout: r.stdout };
}

/** The child: validates the file with check's TableXsdWindows; prints the number of errors. */
async function validateHere(xml: string, xsd: string): Promise<void> {
  const { CompiledSchema, loadLibxml2, TableXsdWindows } = await import('../src/siard/check/xsd-validator.js');
  const { readFileSync } = await import('node:fs');
  await loadLibxml2();
  const compiled = CompiledSchema.compile(readFileSync(xsd));
  const windows = new TableXsdWindows(compiled);
  for await (const chunk of createReadStream(xml, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) windows.push(chunk);
  const errors = windows.finish();
  compiled.dispose();
  process.stdout.write(`${errors.length}\n`);
}

function one(mb: number): void {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-check-xsd-'));
  try {
    const xml = path.join(dir, 'table0.xml');
    const xsd = path.join(dir, 'table0.xsd');
    const columns = [
      { name: 'id', type: 'INTEGER', nullable: false },
      { name: 'note', type: 'VARCHAR(200)' },
      { name: 'amount', type: 'DECIMAL(12,2)' },
      { name: 'at', type: 'TIMESTAMP' },
      { name: 'flag', type: 'BOOLEAN' },
    ];
    writeFileSync(xsd, tableXsd(columns));
    const rows = writeTable(xml, mb);
    const size = statSync(xml).size;
    spawnSync('cat', [xml], { stdio: ['ignore', 'ignore', 'ignore'] }); // into the page cache
    const lint = timed(['xmllint', '--stream', '--noout', '--schema', xsd, xml]);
    const ours = timed([process.execPath, '--import=tsx', HERE, '--validate', xml, xsd]);
    if (ours.stdout.trim() !== '0') throw new Error(`check's validator found ${ours.stdout.trim()} errors in a valid table`);
    process.stdout.write(
      `table XML ${(size / 1e6).toFixed(0)} MB (${rows.toLocaleString('en')} rows): ` +
        `xmllint --stream ${lint.seconds.toFixed(1)} s (${lint.cpu.toFixed(1)} s CPU, peak ${lint.rssMb.toFixed(0)} MB); ` +
        `check's validator ${ours.seconds.toFixed(1)} s (${ours.cpu.toFixed(1)} s CPU, peak ${ours.rssMb.toFixed(0)} MB); ` +
        `ratio ${(lint.seconds / ours.seconds).toFixed(2)}, in CPU ${(lint.cpu / ours.cpu).toFixed(2)}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--validate') {
  await validateHere(process.argv[3]!, process.argv[4]!);
} else {
  const sizes = (process.env.BENCH_CHECK_XSD_MB ?? '100,1000').split(',').map(Number);
  for (const mb of sizes) one(mb);
}
