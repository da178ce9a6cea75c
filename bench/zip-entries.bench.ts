/**
 * Reading many small ZIP entries: a received SIARD package whose LOBs lie inside the .siard, one
 * entry each (DBPTK's and SIARD Suite's default), read for restore, export and audit. A ZIP of N
 * deflated entries of 1-4 KB (1,000 / 10,000 / 100,000; written by python3's zipfile, not by us)
 * is read entry by entry, every byte inflated and its CRC-32 checked, by our ZipReader (in its own
 * process, each entry looked up by name as a verb reads LOB cells one after another) and by `unzip -p` (Info-ZIP, the peer),
 * best of BENCH_ROUNDS (default 3) each, alternating; CPU seconds, wall, peak RSS. The ratio is
 * ours per entry against the peer's: a cost per entry that grows with N shows in the per-entry
 * column. Before 7112978 each entry went through a stream pipeline (0.7 ms of CPU per entry), and
 * before this bench the central directory was indexed by yauzl, two small asynchronous reads per
 * entry: 100,000 entries took 10.7 s of CPU, 14.4 s wall (3.45x unzip's CPU).
 *
 * Run: npm run build && npx tsx bench/zip-entries.bench.ts
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'bench', 'out', 'zip-entries');
const SIZES = (process.env.BENCH_ZIP_ENTRIES ?? '1000,10000,100000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function makeZip(file: string, entries: number): void {
  if (existsSync(file)) return;
  const script = `
import sys, zipfile, random
random.seed(7)
words = ['record', 'value', 'archive', 'table', 'note', 'LOB', 'digest', 'segment']
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
    for i in range(int(sys.argv[2])):
        text = ' '.join(random.choice(words) + str(random.randint(0, 99999)) for _ in range(random.randint(100, 400)))
        z.writestr('content/schema0/table0/lob1/record%d.txt' % i, text)
`;
  const r = spawnSync('python3', ['-c', script, file, String(entries)], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('python3 could not write the ZIP');
}

const OURS = `
import { ZipReader } from ${JSON.stringify(path.join(ROOT, 'dist', 'siard', 'zip', 'reader.js'))};
const zip = await ZipReader.open(process.argv[1]);
let bytes = 0;
// Looked up by name one after another, as a verb follows a table's LOB cells.
for (let i = 0; i < zip.entryCount; i++) {
  for await (const chunk of await zip.openStream(\`content/schema0/table0/lob1/record\${i}.txt\`)) bytes += chunk.length;
}
process.stdout.write(String(bytes));
`;

interface Run {
  cpu: number;
  wall: number;
  rssMb: number;
  stdout: string;
}

function timed(cmd: string, args: string[]): Run {
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S %e %M', cmd, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  const [user, sys, wall, rss] = r.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { cpu: user! + sys!, wall: wall!, rssMb: rss! / 1024, stdout: r.stdout };
}

const best = (runs: Run[]) => runs.reduce((a, b) => (b.cpu < a.cpu ? b : a));

mkdirSync(OUT, { recursive: true });
console.log('| entries | ours: CPU, wall, peak | unzip -p: CPU, wall, peak | ours per entry | CPU ratio (ours / unzip) |');
console.log('| --- | --- | --- | --- | --- |');
for (const n of SIZES) {
  const file = path.join(OUT, `entries-${n}.zip`);
  makeZip(file, n);
  const ours: Run[] = [];
  const peer: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    ours.push(timed(process.execPath, ['--input-type=module', '-e', OURS, file]));
    peer.push(timed('sh', ['-c', `unzip -p '${file}' | wc -c`]));
  }
  const o = best(ours);
  const p = best(peer);
  if (Number(o.stdout) !== Number(p.stdout.trim())) throw new Error(`bytes differ: ours ${o.stdout}, unzip ${p.stdout.trim()}`);
  console.log(
    `| ${n.toLocaleString('en')} | ${o.cpu.toFixed(2)} s, ${o.wall.toFixed(2)} s, ${o.rssMb.toFixed(0)} MiB | ` +
      `${p.cpu.toFixed(2)} s, ${p.wall.toFixed(2)} s, ${p.rssMb.toFixed(0)} MiB | ${((o.cpu / n) * 1e6).toFixed(0)} µs | ` +
      `${(o.cpu / p.cpu).toFixed(2)}x |`,
  );
}
