/**
 * Benchmark (issue 35): how to read a large inventory's JSON. The same inventory of N files
 * (default 200,000: 75 MB; BENCH_JSON_FILES) read each way in its own process, CPU and peak RSS:
 *  - JSON.parse of the whole text (what every inventory under 16 MiB takes);
 *  - @streamparser/json, a kept streaming tokenizer from npm: its Tokenizer alone (tokens as JS
 *    strings, nothing kept), the Tokenizer with every string copied as UTF-8 into one buffer (the
 *    least a compact index over it needs), and its JSONParser giving the path list of every manifest and state
 *    entry; not a dependency: `npm i --no-save @streamparser/json` first, else these rows are skipped;
 *  - ours: the windowed scan (inventory/windows.ts: the manifest's and states' digests as bytes,
 *    their paths in arenas, what the compact index is built from), and the whole InventoryView
 *    the readers hold.
 * Ratios print against the Tokenizer alone: a reader over it would still have to turn its strings
 * back into bytes for the compact index, so ours is kept if it costs no more than the bare tokens.
 *
 * Run: npx tsx bench/json-reading.bench.ts
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InventoryView } from '../src/ocfl/inventory/view.js';
import { InventoryWindows } from '../src/ocfl/inventory/windows.js';

const METHODS = ['json-parse', 'streamparser-tokenizer', 'streamparser-arena', 'streamparser-parser', 'ours-scan', 'ours-view'] as const;
type Method = (typeof METHODS)[number];

function writeInventory(file: string, n: number): void {
  const digests = Array.from({ length: n }, (_, i) => createHash('sha512').update(String(i)).digest('hex'));
  const entry = (i: number, prefix: string, indent: string) =>
    `${indent}"${digests[i]}": [\n${indent}  "${prefix}seg_${Math.floor(i / 1000)}/record${i}.bin"\n${indent}]${i < n - 1 ? ',' : ''}\n`;
  const parts = ['{\n  "digestAlgorithm": "sha512",\n  "head": "v1",\n  "id": "urn:bench",\n  "manifest": {\n'];
  for (let i = 0; i < n; i++) parts.push(entry(i, 'v1/content/', '    '));
  parts.push('  },\n  "type": "https://ocfl.io/1.1/spec/#inventory",\n  "versions": {\n    "v1": {\n');
  parts.push('      "created": "2026-01-01T00:00:00Z",\n      "message": "m",\n      "state": {\n');
  for (let i = 0; i < n; i++) parts.push(entry(i, '', '        '));
  parts.push('      },\n      "user": {\n        "address": "mailto:a@example.org",\n        "name": "B"\n      }\n    }\n  }\n}\n');
  writeFileSync(file, parts.join(''));
}

/** Loads @streamparser/json if installed. */
async function streamparser(): Promise<Record<string, new (options?: object) => Record<string, unknown>> | undefined> {
  try {
    return (await import('@streamparser/json' as string)) as Record<string, new (options?: object) => Record<string, unknown>>;
  } catch {
    return undefined;
  }
}

type Parser = Record<string, unknown> & { write(b: Uint8Array): void };

function feed(parser: Parser, bytes: Buffer): void {
  for (let i = 0; i < bytes.length; i += 1 << 22) parser.write(bytes.subarray(i, i + (1 << 22)));
}

/** One method in this process: prints `cpu seconds`, or `skip`. */
async function runOne(method: Method, file: string): Promise<void> {
  const bytes = readFileSync(file);
  const sp = method.startsWith('streamparser') ? await streamparser() : undefined;
  if (method.startsWith('streamparser') && !sp) return void process.stdout.write('skip\n');
  const t0 = process.cpuUsage();
  let count = 0;
  if (method === 'json-parse') count = Object.keys((JSON.parse(bytes.toString('utf8')) as { manifest: object }).manifest).length;
  else if (method === 'streamparser-tokenizer') {
    const tokenizer = new sp!.Tokenizer!() as Parser;
    tokenizer.onToken = () => count++;
    feed(tokenizer, bytes);
  } else if (method === 'streamparser-arena') {
    const tokenizer = new sp!.Tokenizer!() as Parser;
    const arena = Buffer.alloc(bytes.length);
    let at = 0;
    tokenizer.onToken = ({ value }: { value: unknown }) => {
      if (typeof value === 'string') at += arena.write(value, at);
      count++;
    };
    feed(tokenizer, bytes);
  } else if (method === 'streamparser-parser') {
    const parser = new sp!.JSONParser!({ paths: ['$.manifest.*', '$.versions.*.state.*'], keepStack: false }) as Parser;
    parser.onValue = () => count++;
    feed(parser, bytes);
  } else if (method === 'ours-scan') {
    const windows = new InventoryWindows();
    for (let at = 0; at < bytes.length; at += 4 << 20) windows.write(bytes.subarray(at, at + (4 << 20)));
    const parts = windows.end();
    count = (parts?.manifest?.paths.start.length ?? 0) + (parts?.versions?.[0]?.state.paths.start.length ?? 0);
  } else count = InventoryView.from(bytes, 'inventory.json') ? 1 : 0;
  const used = process.cpuUsage(t0);
  if (count === 0) throw new Error(`${method} read nothing`);
  process.stdout.write(`${(used.user + used.system) / 1e6}\n`);
}

async function main(): Promise<void> {
  const n = Number(process.env.BENCH_JSON_FILES ?? 200_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'json-reading-'));
  try {
    const file = path.join(dir, 'inventory.json');
    writeInventory(file, n);
    const mb = readFileSync(file).length / 1e6;
    process.stdout.write(
      `  inventory of ${n.toLocaleString('en')} files, ${mb.toFixed(0)} MB: CPU (ratio to the bare tokenizer), peak RSS\n`,
    );
    const self = fileURLToPath(import.meta.url);
    const results = new Map<Method, { cpu: number; peak: number } | undefined>();
    for (const method of METHODS) {
      const r = spawnSync('/usr/bin/time', ['-f', '__PEAK__ %M', process.execPath, '--import=tsx', self, method, file], {
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`${method} failed: ${r.stderr.slice(-400)}`);
      const out = r.stdout.trim();
      const peak = Number(/__PEAK__ (\d+)/.exec(r.stderr)?.[1]) / 1024;
      results.set(method, out === 'skip' ? undefined : { cpu: Number(out), peak });
    }
    const base = results.get('streamparser-tokenizer')?.cpu;
    for (const [method, r] of results) {
      const ratio = r && base ? `${(r.cpu / base).toFixed(2)}x` : '';
      const text = r
        ? `${r.cpu.toFixed(2).padStart(6)} s ${ratio.padStart(6)}   ${r.peak.toFixed(0).padStart(5)} MiB`
        : 'skipped (npm i --no-save @streamparser/json)';
      process.stdout.write(`    ${method.padEnd(24)} ${text}\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2]) await runOne(process.argv[2] as Method, process.argv[3]!);
else await main();
