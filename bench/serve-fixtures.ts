/**
 * What bench/serve.bench.ts serves and how it measures: the roots it makes once and keeps in
 * bench/out/serve (narrow rows at 1M and 5M, a root of many small objects, an object holding one
 * LOB of 1 GB, the million-LOB object of bench/scale), `siard-ocfl serve` started as a user starts
 * it, and the process's memory read from /proc.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from '../src/sources/sqlite/driver.js';
import { buildLobDb } from './lobs-db.js';
import { buildRowDb } from './rows-db.js';

const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OUT = path.join(PROJECT, 'bench', 'out', 'serve');
const CLI = path.join(PROJECT, 'bin', 'siard-ocfl');
export const ROWS_ID = 'urn:example:serve-bench';
export const LOB_ID = 'urn:example:serve-bench-lob';
export const LOBS_ID = 'urn:bench:lobs';

export function cli(args: string[]): string {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: { ...process.env, SIARD_OCFL_USER_NAME: 'Bench', SIARD_OCFL_USER_ADDRESS: 'mailto:bench@example.org' },
  });
  if (r.status !== 0) throw new Error(`siard-ocfl ${args[0]} failed: ${r.stderr}`);
  return r.stdout;
}

/** A root holding `db` ingested as `id`, made once (a root without the object is made again). */
function ingestedRoot(root: string, db: string, id: string): string {
  if (existsSync(path.join(root, '0=ocfl_1.1')) && cli(['ls', '--root', root]).startsWith(`${id}\t`)) return root;
  rmSync(root, { recursive: true, force: true });
  cli(['init', '--root', root]);
  cli(['ingest', db, '--root', root, '--id', id]);
  return root;
}

/** The narrow-rows table `events` of `rows` rows (bench/rows-db.ts) in an object. */
export function rowsRoot(rows: number): { db: string; root: string } {
  const db = path.join(OUT, `rows-${rows}.db`);
  buildRowDb(db, rows);
  return { db, root: ingestedRoot(path.join(OUT, `root-${rows}`), db, ROWS_ID) };
}

/** The million-LOB object of bench/scale (bench/lobs-db.ts) at `n` LOBs. */
export function lobsRoot(n: number): string {
  const dir = path.join(OUT, `lobs-${n}`);
  mkdirSync(dir, { recursive: true });
  const db = path.join(dir, 'lobs.db');
  if (!existsSync(db)) {
    buildLobDb(`${db}.tmp`, n);
    renameSync(`${db}.tmp`, db);
  }
  return ingestedRoot(path.join(dir, 'root'), db, LOBS_ID);
}

/** An object holding one BLOB of `bytes` random bytes (made by SQLite's randomblob, never held by this process). */
export function bigLobRoot(bytes: number): string {
  const dir = path.join(OUT, `lob-${bytes}`);
  mkdirSync(dir, { recursive: true });
  const db = path.join(dir, 'lob.db');
  if (!existsSync(db)) {
    const d = new Database(`${db}.tmp`);
    d.pragma('journal_mode = OFF');
    d.exec(`CREATE TABLE big (id INTEGER PRIMARY KEY, body BLOB); INSERT INTO big VALUES (1, randomblob(${bytes}))`);
    d.close();
    renameSync(`${db}.tmp`, db);
  }
  return ingestedRoot(path.join(dir, 'root'), db, LOB_ID);
}

/**
 * An object holding one BLOB of `bytes` random bytes (1 GB and more: beyond what the SQLite source
 * holds), split into parts of `partBytes` in segment folders: a one-row table exported with a
 * 4,000-byte BLOB in a file, that file replaced by `bytes` random bytes (head -c of /dev/urandom),
 * and the package ingested with --resegment --accept-digest-mismatch (the cell's received length
 * and digest no longer fit: recorded in the archive's description), which streams the LOB into
 * its parts.
 */
export function splitLobRoot(bytes: number, partBytes: number): string {
  const dir = path.join(OUT, `split-lob-${bytes}`);
  const root = path.join(dir, 'root');
  if (existsSync(path.join(dir, 'done'))) return root;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const db = path.join(dir, 'lob.db');
  const d = new Database(db);
  d.exec('CREATE TABLE big (id INTEGER PRIMARY KEY, body BLOB); INSERT INTO big VALUES (1, randomblob(4000))');
  d.close();
  const exported = path.join(dir, 'package');
  cli(['export', db, exported]);
  const lobFiles = spawnSync('find', [exported, '-type', 'f', '-size', '4000c'], { encoding: 'utf8' }).stdout.trim().split('\n');
  if (lobFiles.length !== 1 || lobFiles[0] === '')
    throw new Error(`expected one LOB file of 4000 bytes in ${exported}, found ${lobFiles.length}`);
  const made = spawnSync('sh', ['-c', `head -c ${bytes} /dev/urandom > '${lobFiles[0]}'`]);
  if (made.status !== 0) throw new Error(`could not write ${bytes} random bytes`);
  cli(['init', '--root', root]);
  const siard = path.join(exported, 'lob.siard');
  cli(['ingest', siard, '--root', root, '--id', LOB_ID, '--resegment', '--accept-digest-mismatch', '--max-bytes', String(partBytes)]);
  rmSync(exported, { recursive: true, force: true });
  writeFileSync(path.join(dir, 'done'), '');
  return root;
}

/**
 * A root of `n` objects of one small file each, written as OCFL directly (inventory, sidecar,
 * version folder) at the paths `siard-ocfl path` gives: making them through `put` would take a
 * process each.
 */
export function objectsRoot(n: number): string {
  const root = path.join(OUT, `objects-${n}`);
  if (existsSync(`${root}.done`)) return root;
  rmSync(root, { recursive: true, force: true });
  cli(['init', '--root', root]);
  const ids = Array.from({ length: n }, (_, i) => `urn:example:object-${String(i).padStart(6, '0')}`);
  const input = path.join(OUT, `objects-${n}.ids`);
  writeFileSync(input, ids.join('\n') + '\n');
  const paths = spawnSync('sh', ['-c', `node '${CLI}' path --root '${root}' --stdin < '${input}'`], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  })
    .stdout.trim()
    .split('\n');
  if (paths.length !== n) throw new Error(`siard-ocfl path gave ${paths.length} paths for ${n} ids`);
  ids.forEach((id, i) => writeObject(path.join(root, paths[i]!), id));
  writeFileSync(`${root}.done`, '');
  return root;
}

function writeObject(dir: string, id: string): void {
  const content = Buffer.from(`the file of ${id}\n`);
  const digest = createHash('sha512').update(content).digest('hex');
  const inventory = JSON.stringify(
    {
      id,
      type: 'https://ocfl.io/1.1/spec/#inventory',
      digestAlgorithm: 'sha512',
      head: 'v1',
      contentDirectory: 'content',
      manifest: { [digest]: ['v1/content/file.txt'] },
      versions: {
        v1: {
          created: '2026-11-28T12:00:00Z',
          message: 'bench',
          user: { name: 'Bench', address: 'mailto:bench@example.org' },
          state: { [digest]: ['file.txt'] },
        },
      },
    },
    null,
    1,
  );
  const sidecar = `${createHash('sha512').update(inventory).digest('hex')}  inventory.json\n`;
  mkdirSync(path.join(dir, 'v1', 'content'), { recursive: true });
  writeFileSync(path.join(dir, '0=ocfl_object_1.1'), 'ocfl_object_1.1\n');
  for (const at of [dir, path.join(dir, 'v1')]) {
    writeFileSync(path.join(at, 'inventory.json'), inventory);
    writeFileSync(path.join(at, 'inventory.json.sha512'), sidecar);
  }
  writeFileSync(path.join(dir, 'v1', 'content', 'file.txt'), content);
}

export interface Serving {
  child: ChildProcess;
  url: string;
}

export async function startServe(root: string, extra: string[] = []): Promise<Serving> {
  const child = spawn(process.execPath, [CLI, 'serve', '--root', root, '--port', '0', ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = / at (http:\/\/\S+\/)\n/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  return { child, url };
}

function status(pid: number, field: string): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Peak resident memory of a process so far, MB. */
export const peakMb = (pid: number): number => status(pid, 'VmHWM');
/** Resident memory of a process now, MB. */
export const rssMb = (pid: number): number => status(pid, 'VmRSS');

export async function timed(url: string): Promise<{ seconds: number; status: number; bytes: number; text: string }> {
  const start = process.hrtime.bigint();
  const res = await fetch(url);
  const body = Buffer.from(await res.arrayBuffer());
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { seconds, status: res.status, bytes: body.byteLength, text: body.length < 1 << 22 ? body.toString('utf8') : '' };
}

export const fmt = (s: number): string => `${(s * 1000).toFixed(0)} ms`;
