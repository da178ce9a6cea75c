/**
 * Issue 39's rows for files and fixity, in one run: each verb against the tool a user would pick
 * instead, on the same bytes, alternating ours and the peer's, best of BENCH_ROUNDS (3) each, with
 * CPU seconds (user + system) and peak RSS (/usr/bin/time) and the load average beside each run:
 *
 *   ingest of 10,000 LOBs of 100 KiB (an SQLite table)  vs  cp -r of the same bytes as files + sync
 *                                                        and export to a folder + @ocfl/ocfl-fs import + sync
 *   put of a folder of 10,000 files of 100 KiB          vs  cp -r of that folder + sync
 *   audit of the ingested object (1 GB)                 vs  find | xargs -0 -P2 sha512sum of its files
 *   validate of a root of 100,000 files of 2-4 KiB      vs  find | xargs -0 -P2 sha512sum of its files
 *
 * And the floor of each writing row. The put row's: what no writer of a fixity-checked copy can
 * avoid is writing the bytes (cp + sync) and hashing them (sha512 for the manifest), on two cores;
 * measured here as `xargs -P2 -n 64 sha512sum` of the same files. The floor ratio is cp+sync /
 * max(cp+sync, hashing): the best a writer could reach if writing and hashing overlapped perfectly.
 * The ingest row's is measured whole: the same work done by the fastest tools at hand
 * (ingestFloorScript: the BLOBs out of SQLite into files, sha512 and sha256 of every byte on two
 * cores, sync), printed with ours against it.
 *
 * Inputs are read once before each run (warm page cache, as a repository's nightly job finds its
 * newest data); every written copy is removed after its run. Disk: ~1 GB of database, ~1 GB of
 * files, one copy at a time, ~0.5 GB of small files.
 *
 * The audit row's floor: audit must compute sha512 (the manifest) and sha256 (the fixity block,
 * and the digest each LOB cell carries) of every byte, where the peer computes sha512 alone; the
 * floor is both digests of the same files, with -P2, by OpenSSL (`openssl dgst`: the library
 * Node's crypto uses, SHA-256 with the CPU's SHA extensions) and by coreutils (sha512sum +
 * sha256sum, slower at SHA-256 than OpenSSL). The validate row's: `openssl dgst -sha512` of the
 * same files with -P2 (what the peer does, through the library we hash with).
 *
 *   npm run build && node --import=tsx bench/throughput.bench.ts
 *   BENCH_TP_LOBS=2000 BENCH_TP_SMALL=20000 BENCH_ROUNDS=1 for a smaller run
 *   BENCH_TP_ROWS=audit,validate: those rows only (default ingest,put,audit,validate)
 *
 * The second peer of the ingest row is the two steps a user of the peer library would take: our
 * `export` to a folder, then `@ocfl/ocfl-fs` importing that folder as a new object (the same SIARD
 * archive and LOB files end up in an OCFL object either way), then sync: the README's row
 * ingest-lobs-vs-ocfl-fs (ours must stay faster).
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from '../src/sources/sqlite/driver.js';
import { loadLayout0003 } from '../src/ocfl/layout/extensions.js';
import { initRoot } from '../src/ocfl/root.js';
import { reportRow, type RowId } from './readme-rows.js';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(PROJECT, 'bin', 'siard-ocfl');
const LOBS = Number(process.env.BENCH_TP_LOBS ?? 10_000);
const LOB_BYTES = 100 * 1024;
const SMALL = Number(process.env.BENCH_TP_SMALL ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROWS = new Set((process.env.BENCH_TP_ROWS ?? 'ingest,put,audit,validate').split(','));

interface Run {
  seconds: number;
  cpu: number;
  rssMiB: number;
  load: number;
}

/** One run under /usr/bin/time (sh -c), its inputs read first; `then` (e.g. sync) is timed with it. */
function measure(label: string, script: string, inputs: string[], cwd: string): Run {
  for (const input of inputs) spawnSync('sh', ['-c', `find '${input}' -type f -print0 | xargs -0 cat > /dev/null`]);
  const load = os.loadavg()[0]!;
  const started = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '__T__ %M %U %S', 'sh', '-c', script], { cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`${label} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const m = /__T__ (\d+) ([\d.]+) ([\d.]+)/.exec(r.stderr)!;
  const run = { seconds, cpu: Number(m[2]) + Number(m[3]), rssMiB: Number(m[1]) / 1024, load };
  process.stdout.write(
    `  ${label.padEnd(52)} ${seconds.toFixed(2).padStart(7)} s  cpu ${run.cpu.toFixed(2).padStart(6)} s  ` +
      `peak ${run.rssMiB.toFixed(0).padStart(4)} MiB  load ${load.toFixed(1)}\n`,
  );
  return run;
}

const best = (runs: Run[]) => runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));

/** The LOB bytes: each distinct (its number in front), cut from a random pool. */
function lobBytes(pool: Buffer, i: number, size: number): Buffer {
  const start = (i * 104729) % (pool.length - size);
  const b = Buffer.from(pool.subarray(start, start + size));
  b.writeUInt32BE(i, 0);
  return b;
}

function buildInputs(db: string, folder: string): void {
  const pool = randomBytes(1 << 24);
  const d = new Database(db);
  d.pragma('journal_mode = OFF');
  d.exec('CREATE TABLE documents (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
  const insert = d.prepare('INSERT INTO documents VALUES (?, ?)');
  d.transaction(() => {
    for (let i = 1; i <= LOBS; i++) {
      const body = lobBytes(pool, i, LOB_BYTES);
      insert.run(i, body);
      const dir = path.join(folder, `lobs${Math.floor(i / 1000)}`);
      if (i % 1000 === 0 || i === 1) mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `record${i}.bin`), body);
    }
  })();
  d.close();
}

/** 100 files a folder, 1,000 an object, written directly (this measures validation, not a writer). */
async function buildSmallRoot(root: string): Promise<void> {
  const layout = await loadLayout0003();
  await initRoot(root, layout);
  const pool = randomBytes(1 << 22);
  const sha512 = (b: Buffer | string) => createHash('sha512').update(b).digest('hex');
  for (let o = 0; o * 1000 < SMALL; o++) {
    const id = `urn:bench:small:${o}`;
    const dir = path.join(root, layout.objectPath(id));
    const manifest: Record<string, string[]> = {};
    const state: Record<string, string[]> = {};
    for (let i = o * 1000; i < Math.min(SMALL, (o + 1) * 1000); i++) {
      const bytes = lobBytes(pool, i, 2048 + ((i * 7919) % 2048));
      const logical = `d${Math.floor(i / 100) % 10}/f${i}.bin`;
      const file = path.join(dir, 'v1', 'content', logical);
      if (i % 100 === 0 || i === o * 1000) mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, bytes);
      const d = sha512(bytes);
      (manifest[d] ??= []).push(`v1/content/${logical}`);
      (state[d] ??= []).push(logical);
    }
    const created = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const user = { name: 'bench', address: 'mailto:bench@example.org' };
    const inv = JSON.stringify({
      id,
      type: 'https://ocfl.io/1.1/spec/#inventory',
      digestAlgorithm: 'sha512',
      head: 'v1',
      manifest,
      versions: { v1: { created, message: 'bench', user, state } },
    });
    writeFileSync(path.join(dir, '0=ocfl_object_1.1'), 'ocfl_object_1.1\n');
    for (const where of ['', 'v1']) {
      writeFileSync(path.join(dir, where, 'inventory.json'), inv);
      writeFileSync(path.join(dir, where, 'inventory.json.sha512'), `${sha512(inv)} inventory.json\n`);
    }
  }
}

const cli = (args: string) => `'${process.execPath}' '${BIN}' ${args}`;
const hashAll = (tool: string, dir: string) => `find '${dir}' -type f -print0 | xargs -0 -P2 ${tool} > /dev/null`;
const hashOnTwoCores = (tool: string, dir: string) => `find '${dir}' -type f -print0 | xargs -0 -P2 -n 64 ${tool} > /dev/null`;
/** Two tools over the same files, as the peer runs one: each xargs group through both. */
const bothOnTwoCores = (first: string, second: string, dir: string) =>
  `find '${dir}' -type f -print0 | xargs -0 -P2 sh -c '${first} "$@" && ${second} "$@"' hash > /dev/null`;

/**
 * The ingest row's floor, measured: the work no ingest of the table can skip, by the fastest tools
 * at hand: the BLOBs read out of SQLite into files (the sqlite3 shell's writefile(), the cp peer's
 * folders), sha512 (the manifest) and sha256 (the fixity block and the LOB digest the cells carry)
 * of every byte (sha512sum, and OpenSSL's SHA-256, which uses the CPU's SHA extensions: the faster
 * tool for each on this machine), on two cores: two halves of the table side by side, each written
 * then hashed; then sync.
 */
function ingestFloorScript(db: string, out: string): string {
  const select = (parity: number) =>
    `SELECT writefile('lobs' || (id / 1000) || '/record' || id || '.bin', body) FROM documents WHERE id % 2 = ${parity}`;
  const hash = `sh -c 'sha512sum "$@" > /dev/null && openssl dgst -sha256 "$@" > /dev/null' hash`;
  const half = (parity: number, digits: string) =>
    `(sqlite3 '${db}' "${select(parity)}" > /dev/null && find . -type f -name 'record*[${digits}].bin' -print0 | xargs -0 -n 64 ${hash})`;
  return `mkdir '${out}' && cd '${out}' && { ${half(0, '02468')} & ${half(1, '13579')} & wait; } && sync`;
}

/**
 * The peer library's way to the same object: export to a folder with our CLI, then `@ocfl/ocfl-fs`
 * imports the folder (a module file: the import runs in its own process, as a user's script would).
 */
function ocflFsPeerScript(db: string, work: string): string {
  const folder = path.join(work, 'peer-export');
  const script = path.join(work, 'peer-import.mjs');
  const ocflFs = path.join(PROJECT, 'node_modules', '@ocfl', 'ocfl-fs', 'index.mjs');
  writeFileSync(
    script,
    `import ocfl from ${JSON.stringify(ocflFs)};
const storage = ocfl.storage({
  root: ${JSON.stringify(path.join(work, 'peer-root'))},
  workspace: ${JSON.stringify(path.join(work, 'peer-ws'))},
  layout: { extensionName: '0003-hash-and-id-n-tuple-storage-layout' },
});
await storage.create();
await storage.object('db').import(${JSON.stringify(folder)});
`,
  );
  return `${cli(`export 'sqlite:${db}' '${folder}'`)} > /dev/null && '${process.execPath}' '${script}' && sync`;
}

function removePeer(work: string): void {
  for (const name of ['peer-export', 'peer-root', 'peer-ws', 'peer-import.mjs'])
    rmSync(path.join(work, name), { recursive: true, force: true });
}

/** The audit row: the peer and ours on the ingested object, then the floor (both digests of its files). */
function measureAudit(root: string, work: string, add: (key: string, run: Run) => void): void {
  const objectDir = path.join(root, spawnSync(process.execPath, [BIN, 'path', '--root', root, 'db'], { encoding: 'utf8' }).stdout.trim());
  add('sumObject', measure('xargs -P2 sha512sum (the ingested object)', hashAll('sha512sum', objectDir), [objectDir], work));
  add('audit', measure('siard-ocfl audit', `${cli(`audit --root '${root}' --id db`)} > /dev/null`, [objectDir], work));
  const openssl = bothOnTwoCores('openssl dgst -sha512', 'openssl dgst -sha256', objectDir);
  add('floorAudit', measure('floor: xargs -P2 openssl dgst -sha512 + -sha256', openssl, [objectDir], work));
  const coreutils = bothOnTwoCores('sha512sum', 'sha256sum', objectDir);
  add('floorAuditCoreutils', measure('floor: xargs -P2 sha512sum + sha256sum', coreutils, [objectDir], work));
}

async function main(): Promise<void> {
  // BENCH_TP_WORK: a folder whose inputs are kept for the next run (built when missing), e.g. to build them before a quiet slot.
  const kept = process.env.BENCH_TP_WORK;
  const work = kept ?? mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-throughput-'));
  try {
    process.stdout.write(`bench/throughput: ${LOBS} LOBs of 100 KiB, ${SMALL} small files; ${os.availableParallelism()} cores\n`);
    const db = path.join(work, 'lobs.sqlite');
    const folder = path.join(work, 'files');
    const small = path.join(work, 'small');
    if (!kept || !existsSync(path.join(work, 'built'))) {
      rmSync(work, { recursive: true, force: true });
      mkdirSync(work, { recursive: true });
      buildInputs(db, folder);
      await buildSmallRoot(small);
      writeFileSync(path.join(work, 'built'), '');
    }
    spawnSync('sync');
    if (ROUNDS === 0) return; // BENCH_ROUNDS=0: the inputs only
    const runs: Record<string, Run[]> = {};
    const add = (key: string, run: Run) => (runs[key] ??= []).push(run);
    const copy = path.join(work, 'copy');
    const root = path.join(work, 'root');
    const fresh = () => {
      rmSync(copy, { recursive: true, force: true });
      rmSync(root, { recursive: true, force: true });
      rmSync(path.join(work, '.root.siard-ocfl-work'), { recursive: true, force: true });
    };
    for (let round = 1; round <= ROUNDS; round++) {
      process.stdout.write(`round ${round} of ${ROUNDS}\n`);
      if (ROWS.has('ingest') || ROWS.has('put')) {
        fresh();
        add('cp', measure(`cp -r + sync (${LOBS} x 100 KiB)`, `cp -r '${folder}' '${copy}' && sync`, [folder], work));
      }
      if (ROWS.has('put')) {
        fresh();
        spawnSync(process.execPath, [BIN, 'init', root]);
        add(
          'put',
          measure('siard-ocfl put + sync', `${cli(`put --root '${root}' --id folder '${folder}'`)} > /dev/null && sync`, [folder], work),
        );
      }
      // The audit needs the ingested object: without the ingest row it is made unmeasured (a put round removed it).
      if (ROWS.has('ingest') || (ROWS.has('audit') && (ROWS.has('put') || !existsSync(root)))) {
        fresh();
        spawnSync(process.execPath, [BIN, 'init', root]);
        const ingest = `${cli(`ingest 'sqlite:${db}' --root '${root}' --id db`)} > /dev/null && sync`;
        // Without the ingest row the object is made once, unmeasured, for the audit.
        if (ROWS.has('ingest')) add('ingest', measure('siard-ocfl ingest + sync', ingest, [db], work));
        else spawnSync('sh', ['-c', ingest], { cwd: work });
      }
      if (ROWS.has('ingest')) {
        removePeer(work);
        add('ocflFs', measure('export + @ocfl/ocfl-fs import + sync', ocflFsPeerScript(db, work), [db], work));
        removePeer(work);
        const floor = path.join(work, 'floor');
        rmSync(floor, { recursive: true, force: true });
        add('floorIngest', measure('floor: sqlite3 writefile(), hashing, sync (two at once)', ingestFloorScript(db, floor), [db], work));
        rmSync(floor, { recursive: true, force: true });
      }
      if (ROWS.has('audit')) measureAudit(root, work, add);
      if (ROWS.has('validate')) {
        add('sumSmall', measure(`xargs -P2 sha512sum (${SMALL} small files)`, hashAll('sha512sum', small), [small], work));
        add('validate', measure(`siard-ocfl validate (${SMALL} small files)`, `${cli(`validate '${small}'`)} > /dev/null`, [small], work));
        add(
          'floorValidate',
          measure(`floor: xargs -P2 openssl dgst -sha512 (${SMALL} small files)`, hashAll('openssl dgst -sha512', small), [small], work),
        );
      }
      if (ROWS.has('put')) {
        add(
          'floor512',
          measure(`floor: xargs -P2 -n 64 sha512sum (the ${LOBS} files)`, hashOnTwoCores('sha512sum', folder), [folder], work),
        );
      }
    }
    fresh();
    const b = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, best(v)]));
    const floorOf = (hashing: number) => b.cp!.seconds / Math.max(b.cp!.seconds, hashing);
    const report = (id: RowId, ours: Run, peer: Run, work: string, floor?: string) =>
      reportRow({
        id,
        ours: `${ours.seconds.toFixed(2)} s`,
        peer: `${peer.seconds.toFixed(2)} s`,
        ratio: peer.seconds / ours.seconds,
        peakMb: Math.round(ours.rssMiB * 1.048576),
        load: [Number(peer.load.toFixed(1)), Number(ours.load.toFixed(1))],
        ...(floor ? { floor } : {}),
        ...(work ? { work } : {}),
      });
    const sized = (full: boolean, text: string) => (full ? '' : text);
    const lobsText = `${LOBS} x 100 KiB`;
    const cpuOf = (key: string) => (b[key] ? `${key} ${b[key].cpu.toFixed(1)} s` : undefined);
    const cpus = ['ingest', 'put', 'audit', 'validate'].map(cpuOf).filter(Boolean);
    process.stdout.write(`\nbest of ${ROUNDS}; CPU of ours: ${cpus.join(', ')}\n`);
    if (b.ingest) {
      const floor = b.floorIngest!;
      process.stdout.write(`ingest against the floor: ${(floor.seconds / b.ingest.seconds).toFixed(2)}x (${floor.seconds.toFixed(2)} s)\n`);
      report(
        'ingest-lobs',
        b.ingest,
        b.cp!,
        sized(LOBS === 10_000, `ingest ${LOBS} LOBs of 100 KiB`),
        `the same work by sqlite3's writefile(), sha512sum and OpenSSL's SHA-256 on two cores, then sync: ` +
          `${floor.seconds.toFixed(2)} s, ${(b.cp!.seconds / floor.seconds).toFixed(2)}x; ` +
          `ours is ${(floor.seconds / b.ingest.seconds).toFixed(2)}x of it`,
      );
    }
    if (b.ocflFs) {
      report(
        'ingest-lobs-vs-ocfl-fs',
        b.ingest!,
        b.ocflFs,
        sized(LOBS === 10_000, `ingest ${LOBS} LOBs of 100 KiB, against export + \`@ocfl/ocfl-fs\` import`),
      );
    }
    if (b.put) {
      report(
        'put-files',
        b.put,
        b.cp!,
        sized(LOBS === 10_000, `\`put\` of ${lobsText}`),
        `writing (cp -r + sync) and sha512 (two cores) overlapped perfectly: ${floorOf(b.floor512!.seconds).toFixed(2)}x`,
      );
    }
    if (b.audit) {
      const floor = (key: string) => (b.sumObject!.seconds / b[key]!.seconds).toFixed(2);
      report(
        'audit-lobs',
        b.audit,
        b.sumObject!,
        sized(LOBS === 10_000, `\`audit\` of the ${LOBS}-LOB object`),
        `sha512 + sha256 of every byte, two cores: ${floor('floorAudit')}x by OpenSSL (Node's library), ` +
          `${floor('floorAuditCoreutils')}x by coreutils`,
      );
    }
    if (b.validate) {
      report(
        'validate-files',
        b.validate,
        b.sumSmall!,
        sized(SMALL === 100_000, `\`validate\` of ${SMALL} files of 2-4 KiB`),
        `\`openssl dgst -sha512\` of the same files, two cores: ${(b.sumSmall!.seconds / b.floorValidate!.seconds).toFixed(2)}x`,
      );
    }
  } finally {
    if (!kept) rmSync(work, { recursive: true, force: true });
  }
}

await main();
