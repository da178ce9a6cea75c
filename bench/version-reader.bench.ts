/**
 * Benchmark (issue 35, for the reading room of issue 31): opening one version of an object read
 * light (OcflObjectReader.openVersion: src/ocfl/inventory/version-view.ts) against the reader of
 * the whole inventory the room used (OcflObjectReader.open with fixity: false), each in its own
 * process, at several sizes (default 10,000, 100,000 and 1,000,000 files; BENCH_VERSION_FILES=a,b).
 * The object is shaped like bench/scale's million-LOB one: one version, one LOB file per digest,
 * each stored at v1/content/<its logical path>. Each process opens the object, builds the state's lookup
 * table and looks up the content path of every hundredth file (no string kept per file, so the peak
 * is the reader's).
 * Prints CPU seconds (user + system), peak RSS, bytes per file over an empty process's peak, and
 * the light reader's ratios to the whole one. The processes run the built library (dist/, as the
 * reading room runs it): under tsx each peak is ~30 MiB higher (its loader's thread).
 *
 * Run: npm run build && npx tsx bench/version-reader.bench.ts
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'ocfl');

const METHODS = ['none', 'whole', 'light'] as const;
type Method = (typeof METHODS)[number];

/** Writes an object folder of `n` files (inventory and sidecar; no content: the readers open none). */
function writeObject(dir: string, n: number): void {
  // In the order of their digests, as our writer lists them (inventory/chunks.ts): file i is order[i].
  const digests = Array.from({ length: n }, (_, i) => createHash('sha512').update(String(i)).digest('hex'));
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (digests[a]! < digests[b]! ? -1 : 1));
  const logical = (i: number) => `northwind/content/lobs/seg_${Math.floor(i / 1000)}/record${i}.bin`;
  const file = path.join(dir, 'inventory.json');
  const fd = openSync(file, 'w');
  const hash = createHash('sha512');
  const write = (text: string) => {
    writeSync(fd, text);
    hash.update(text);
  };
  const block = (prefix: string, indent: string) => {
    for (let i = 0; i < n; i += 1000) {
      let text = '';
      for (let j = i; j < Math.min(n, i + 1000); j++)
        text += `${indent}"${digests[order[j]!]}": [\n${indent}  "${prefix}${logical(order[j]!)}"\n${indent}]${j < n - 1 ? ',' : ''}\n`;
      write(text);
    }
  };
  write('{\n  "digestAlgorithm": "sha512",\n  "head": "v1",\n  "id": "urn:bench:version-reader",\n  "manifest": {\n');
  block('v1/content/', '    ');
  write('  },\n  "type": "https://ocfl.io/1.1/spec/#inventory",\n  "versions": {\n    "v1": {\n');
  write('      "created": "2026-01-01T00:00:00Z",\n      "message": "m",\n      "state": {\n');
  block('', '        ');
  write('      },\n      "user": {\n        "address": "mailto:a@example.org",\n        "name": "B"\n      }\n    }\n  }\n}\n');
  closeSync(fd);
  writeFileSync(`${file}.sha512`, `${hash.digest('hex')} inventory.json\n`);
}

/**
 * One method in a process of its own, on the built library: prints its CPU seconds. The state's
 * lookup table is built and a content path looked up every 100 files (no string kept per file).
 */
const CHILD = `
const [method, dir] = process.argv.slice(1);
const { OcflObjectReader } = await import(${JSON.stringify(`${DIST}/object/object.js`)});
const { openStorage } = await import(${JSON.stringify(`${DIST}/storage/open.js`)});
const storage = await openStorage(dir);
const t0 = process.cpuUsage();
if (method !== 'none') {
  const reader =
    method === 'light' ? await OcflObjectReader.openVersion(storage, '') : await OcflObjectReader.open(storage, '', { fixity: false });
  const state = reader.state();
  const listing = reader.listing();
  let bytes = 0;
  for (let i = 0; i < listing.size; i += 100)
    bytes += state.has(listing.logicalPath(i)) ? reader.contentPath(listing.logicalPath(i)).length : 0;
  if (bytes === 0) throw new Error(method + ' read nothing');
}
const used = process.cpuUsage(t0);
process.stdout.write((used.user + used.system) / 1e6 + '\\n');
`;

async function main(): Promise<void> {
  const sizes = (process.env.BENCH_VERSION_FILES ?? '10000,100000,1000000').split(',').map(Number);
  process.stdout.write('  one version opened, its state indexed: CPU s, peak RSS, bytes a file over an empty process\n');
  for (const n of sizes) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'version-reader-'));
    try {
      writeObject(dir, n);
      const r = new Map<Method, { cpu: number; peak: number }>();
      for (const method of METHODS) {
        const run = spawnSync('/usr/bin/time', ['-f', '__PEAK__ %M', process.execPath, '--input-type=module', '-e', CHILD, method, dir], {
          encoding: 'utf8',
        });
        if (run.status !== 0) throw new Error(`${method} failed: ${run.stderr.slice(-400)}`);
        r.set(method, { cpu: Number(run.stdout.trim()), peak: Number(/__PEAK__ (\d+)/.exec(run.stderr)?.[1]) * 1024 });
      }
      const empty = r.get('none')!.peak;
      const line = (m: Method) => {
        const { cpu, peak } = r.get(m)!;
        const perFile = ((peak - empty) / n).toFixed(0).padStart(4);
        return `${m.padEnd(6)} ${cpu.toFixed(2).padStart(6)} s ${(peak / 2 ** 20).toFixed(0).padStart(5)} MiB ${perFile} B/file`;
      };
      const whole = r.get('whole')!;
      const light = r.get('light')!;
      process.stdout.write(
        `  ${n.toLocaleString('en').padStart(9)} files: ${line('whole')} | ${line('light')} | ` +
          `light/whole CPU ${(light.cpu / whole.cpu).toFixed(2)}x, ` +
          `peak ${(light.peak / whole.peak).toFixed(2)}x, over empty ${((light.peak - empty) / (whole.peak - empty)).toFixed(2)}x\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

if (!existsSync(`${DIST}/object/object.js`)) throw new Error('No dist/: npm run build first.');
await main();
