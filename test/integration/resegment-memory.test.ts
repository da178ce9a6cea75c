/**
 * Issue 20: memory of a re-segmentation must not grow with the number of LOBs stored inside the
 * received .siard. Two packages (python3 zipfile) of 2,000 and 8,000 internal BLOB entries are
 * re-segmented by the library in child processes (node --expose-gc); at the last row, with every
 * LOB entry looked up and copied and the package still open, each child collects garbage and
 * reports its live heap and its peak RSS. The live heap of the larger run may exceed the smaller
 * one's by at most 2 MiB: holding each entry's parsed central directory record (about 1 KB, as
 * the ZIP reader did) would add some 6 MiB for the 6,000 extra entries.
 */
import test from 'ava';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { ramTempDir } from '../helpers/ram-temp-dir.js';
import { distBuilt } from '../helpers/built-dist.js';

// In memory where there is room: 10,000 small fsynced LOB files, whose disk writes are not what is measured here.
const work = ramTempDir('siard-ocfl-resegment-memory-', 512 << 20);

const GENERATE = `
import sys, zipfile, hashlib
out, n = sys.argv[1], int(sys.argv[2])
z = zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED, allowZip64=True)
z.writestr('header/siardversion/2.1/', b'')
rows = []
for i in range(n):
    data = (b'%08d' % i) * 40
    name = 'content/schema0/table0/lob2/record%d.bin' % i
    z.writestr(name, data)
    rows.append('<row><c1>%d</c1><c2 file="%s" length="%d" digestType="MD5" digest="%s"/></row>'
                % (i + 1, name, len(data), hashlib.md5(data).hexdigest()))
ns = 'http://www.bar.admin.ch/xmlns/siard/2/table.xsd'
z.writestr('content/schema0/table0/table0.xml',
           '<?xml version="1.0" encoding="UTF-8"?><table xmlns="%s" version="2.1">%s</table>' % (ns, ''.join(rows)))
meta = '''<?xml version="1.0" encoding="UTF-8"?><siardArchive xmlns="http://www.bar.admin.ch/xmlns/siard/2/metadata.xsd" version="2.1">
<dbname>gen</dbname><dataOwner>test</dataOwner><dataOriginTimespan>2024</dataOriginTimespan><archivalDate>2024-01-01</archivalDate>
<schemas><schema><name>s</name><folder>schema0</folder><tables><table><name>t</name><folder>table0</folder><columns>
<column><name>id</name><type>INTEGER</type></column><column><name>b</name><lobFolder>lob2</lobFolder><type>BLOB</type></column>
</columns><rows>%d</rows></table></tables></schema></schemas><users><user><name>u</name></user></users></siardArchive>''' % n
z.writestr('header/metadata.xml', meta)
z.close()
`;

/** Re-segments `pkg` in a child process (dist/, as built); its live heap at the last row (after a full GC) and its peak RSS, in bytes. */
function measure(pkg: string, rows: number, out: string): { heap: number; rss: number } {
  const dist = (p: string) => JSON.stringify(path.join(PROJECT_ROOT, 'dist', p));
  const script = `
    import { exportToDirectory } from ${dist('siard/export-directory.js')};
    import { SiardSource } from ${dist('sources/siard/siard-source.js')};
    const source = await SiardSource.open(${JSON.stringify(pkg)});
    let n = 0;
    let heap = 0;
    await exportToDirectory(source, ${JSON.stringify(out)}, { name: 'x', inlineMax: 100, maxFiles: 1000, onRow: () => {
      if (++n === ${rows}) { globalThis.gc(); heap = process.memoryUsage().heapUsed; }
    } });
    await source.close();
    process.stdout.write(JSON.stringify({ heap, rss: process.resourceUsage().maxRSS * 1024 }));
  `;
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the re-segmentation of ${pkg} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { heap: number; rss: number };
}

test('re-segmenting 8,000 internal LOBs holds no more live memory than 2,000 (the ZIP index is compact)', async (t) => {
  await distBuilt(); // the runner's tsc writes dist/ beside the first test files
  const results = new Map<number, { heap: number; rss: number }>();
  for (const n of [2000, 8000]) {
    const pkg = path.join(work, `gen${n}.siard`);
    execFileSync('python3', ['-c', GENERATE, pkg, String(n)]);
    const out = path.join(work, `out${n}`);
    results.set(n, measure(pkg, n, out));
    // every LOB was copied into our layout
    const files = readdirSync(out, { recursive: true }).filter((f) => String(f).endsWith('.bin'));
    t.is(files.length, n);
  }
  const small = results.get(2000)!;
  const large = results.get(8000)!;
  const mib = (b: number) => (b / 1024 / 1024).toFixed(1);
  t.log(
    `live heap at the last row: ${mib(small.heap)} MiB (2,000 LOBs), ${mib(large.heap)} MiB (8,000); peak RSS ${mib(small.rss)} ` +
      `/ ${mib(large.rss)} MiB`,
  );
  t.true(large.heap - small.heap < 2 * 1024 * 1024, `live heap grew by ${mib(large.heap - small.heap)} MiB for 6,000 more internal LOBs`);
});
