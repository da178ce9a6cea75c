/**
 * Re-segmentation speed and memory (issue 20): a generated SIARD 2.1 package of many internal LOBs
 * (python3 zipfile, one BLOB file per row inside the .siard, MD5 cell digests) is re-segmented by
 * `siard-ocfl export` into lobseg folders; the peer is `unzip -q` of the same package, which reads
 * and writes the same bytes without any checking. Prints the time ratio and both peak RSS figures
 * (GNU time), time per LOB, for several package sizes: peak memory should not grow with the LOB
 * count (the ZIP reader indexes the central directory in about 20 bytes per entry).
 * BENCH_RESEGMENT_LOBS="1000,4000,16000" sets the sizes; BENCH_RESEGMENT_LOB_BYTES the LOB size
 * (default 8192). BENCH_RESEGMENT_LARGE=1 adds the case: 1,000,000 internal LOBs of 10,000
 * bytes (10 GB; needs some 25 GB of free space in the temporary folder and hours on a small machine).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const LARGE = process.env.BENCH_RESEGMENT_LARGE === '1';
// An empty BENCH_RESEGMENT_LOBS with BENCH_RESEGMENT_LARGE=1 runs the large case alone.
const SIZES = (process.env.BENCH_RESEGMENT_LOBS ?? '1000,4000,16000').split(',').filter(Boolean).map(Number);
const LOB_BYTES = Number(process.env.BENCH_RESEGMENT_LOB_BYTES ?? 8192);
// 'half': each LOB is a random half written twice (deflate halves it); 'full': random throughout, so that
// the large case's package really is 10 GB (1,000,000 x 10,000 bytes) after compression.
type BenchCase = { lobs: number; bytes: number; random: 'half' | 'full' };
const CASES: BenchCase[] = SIZES.map((lobs) => ({ lobs, bytes: LOB_BYTES, random: 'half' }));
if (LARGE) CASES.push({ lobs: 1_000_000, bytes: 10_000, random: 'full' });
const BIN = path.resolve('bin', 'siard-ocfl');

const GENERATE = `
import sys, zipfile, hashlib, os
out, n, size, full = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == 'full'
z = zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED, allowZip64=True)
z.writestr('header/siardversion/2.1/', b'')
rows = []
for i in range(n):
    data = os.urandom(size) if full else os.urandom(size // 2) * 2
    name = 'content/schema0/table0/lob2/record%d.bin' % i
    z.writestr(name, data)
    rows.append('<row><c1>%d</c1><c2 file="%s" length="%d" digestType="MD5" digest="%s"/></row>'
                % (i + 1, name, len(data), hashlib.md5(data).hexdigest()))
ns = 'http://www.bar.admin.ch/xmlns/siard/2/table.xsd'
z.writestr('content/schema0/table0/table0.xml',
           '<?xml version="1.0" encoding="UTF-8"?><table xmlns="%s" version="2.1">%s</table>' % (ns, ''.join(rows)))
meta = '''<?xml version="1.0" encoding="UTF-8"?><siardArchive xmlns="http://www.bar.admin.ch/xmlns/siard/2/metadata.xsd" version="2.1">
<dbname>gen</dbname><dataOwner>bench</dataOwner><dataOriginTimespan>2024</dataOriginTimespan><archivalDate>2024-01-01</archivalDate>
<schemas><schema><name>s</name><folder>schema0</folder><tables><table><name>t</name><folder>table0</folder><columns>
<column><name>id</name><type>INTEGER</type></column><column><name>b</name><lobFolder>lob2</lobFolder><type>BLOB</type></column>
</columns><rows>%d</rows></table></tables></schema></schemas><users><user><name>u</name></user></users></siardArchive>''' % n
z.writestr('header/metadata.xml', meta)
z.close()
`;

/** Seconds and peak RSS (KiB) of a command, through GNU time. */
function measure(cmd: string[], cwd: string): { seconds: number; rssKiB: number } {
  const start = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', ...cmd], { cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd.join(' ')} failed: ${r.stderr}`);
  const rssKiB = Number(r.stderr.trim().split('\n').pop());
  return { seconds, rssKiB };
}

const rows: Array<{ lobs: number; rssKiB: number }> = [];
for (const { lobs: n, bytes, random } of CASES) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-bench-reseg-'));
  try {
    const pkg = path.join(dir, 'gen.siard');
    execFileSync('python3', ['-c', GENERATE, pkg, String(n), String(bytes), random]);
    const packageBytes = statSync(pkg).size;
    const unzip = measure(['unzip', '-q', pkg, '-d', path.join(dir, 'unzipped')], dir);
    rmSync(path.join(dir, 'unzipped'), { recursive: true, force: true });
    const ours = measure([process.execPath, BIN, 'export', pkg, path.join(dir, 'out'), '--inline-max', '100', '--max-files', '1000'], dir);
    rows.push({ lobs: n, rssKiB: ours.rssKiB });
    process.stdout.write(
      `${n} internal LOBs of ${bytes} bytes (package ${(packageBytes / 1e6).toFixed(1)} MB): ` +
        `re-segment ${ours.seconds.toFixed(2)} s (${((ours.seconds / n) * 1e3).toFixed(3)} ms per LOB) ` +
        `vs unzip -q ${unzip.seconds.toFixed(2)} s ` +
        `(ratio ${(ours.seconds / unzip.seconds).toFixed(2)}); peak RSS ${Math.round(ours.rssKiB / 1024)} MiB vs ` +
        `unzip ${Math.round(unzip.rssKiB / 1024)} MiB\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
if (rows.length > 1) {
  // The last two sizes: a short run ends before the heap reaches its working size, so the smallest says little.
  const first = rows[rows.length - 2]!;
  const last = rows[rows.length - 1]!;
  const perThousand = ((last.rssKiB - first.rssKiB) / 1024 / ((last.lobs - first.lobs) / 1000)).toFixed(3);
  process.stdout.write(
    `peak RSS from ${first.lobs} to ${last.lobs} internal LOBs: ${Math.round(first.rssKiB / 1024)} ` +
      `-> ${Math.round(last.rssKiB / 1024)} MiB (${perThousand} MiB per 1,000 LOBs)\n`,
  );
}
