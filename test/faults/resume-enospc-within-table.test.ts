/**
 * Issue 38: "ENOSPC in the middle, then space freed, then resume", inside a table. A SQLite
 * database whose first table, `big`, crosses several cuts (8 MiB of XML each; a BLOB in a file every
 * 150th row, so its data streams into the .siard and its LOB files fill the disk as it goes). The
 * out-dir (or the root) is on a tmpfs measured by an uninterrupted run there, then filled by a
 * ballast file until less than half of what that run took is free: the next run stops inside `big`,
 * after a cut and before the table ends (no table finished), with exit 2 and one sentence, nothing
 * visible. The ballast is removed (the space freed) and the same command run again: it says it goes
 * on inside `big` after the key of the journal's last cut, and ends with the uninterrupted archive,
 * byte for byte (`export`), or the uninterrupted object (`ingest`). Before bb06683 an export stopped
 * by an error kept its work only when a table had finished: these cuts were thrown away and the
 * second run started over. The same export of a `big` without LOB files, whose XML is held back in a
 * durable file until the table ends: that file was removed when the disk filled, so the next run
 * could not go on from the cut either (it is now removed once the table's line is journaled).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from '../../src/sources/sqlite/driver.js';
import { mountTmpfs, tmpfsTest } from '../helpers/tmpfs.js';
import { tempDir } from '../helpers/tmp.js';
import {
  faultSeed,
  objectState,
  prng,
  runCliToEnd,
  sameState,
  sameTree,
  treeDigests,
  workspaceLeftovers,
  type ChildResult,
} from './harness.js';

const SEED = faultSeed();
console.log(`[faults] ENOSPC inside a table: FAULT_SEED=${SEED}`);
const base = tempDir('siard-ocfl-resume-enospc-within-');

/**
 * `big` first (100,000 wide rows, about 37 MB of XML: four cuts), then a small table. With `lobs`, a
 * BLOB in a file every 150th row (its types settled, its XML streamed into the .siard); without, no
 * LOB file (provisional types: its XML held back in a durable file of the journal's folder until it ends).
 */
function makeDatabase(file: string, lobs: boolean): string {
  const db = new Database(file);
  db.exec(`CREATE TABLE big (id INTEGER PRIMARY KEY, name TEXT NOT NULL, n REAL${lobs ? ', doc BLOB' : ''});
           CREATE TABLE tail (id INTEGER PRIMARY KEY, t TEXT)`);
  const rand = prng(SEED);
  db.transaction(() => {
    const big = db.prepare(`INSERT INTO big VALUES (?, ?, ?${lobs ? ', ?' : ''})`);
    for (let i = 1; i <= 100_000; i++) {
      const row = [i * 7, `row ${i} ${'abcdefghij'.repeat(20 + (i % 13))} ${Math.floor(rand() * 1e6)}`, i * 0.5];
      big.run(...(lobs ? [...row, i % 150 === 0 ? Buffer.alloc(3000 + (i % 1000), Math.floor(rand() * 256)) : null] : row));
    }
    const tail = db.prepare('INSERT INTO tail VALUES (?, ?)');
    for (let i = 1; i <= 40; i++) tail.run(i, 't'.repeat(i));
  })();
  db.close();
  return file;
}
const dbFile = makeDatabase(path.join(base, 'db.sqlite'), true);
const heldBackDb = makeDatabase(path.join(base, 'held.sqlite'), false);

interface Journaled {
  tables: number;
  /** the cuts of the table in progress (after the last finished table) */
  cuts: Array<{ qualifiedName: string; key: string; rows: number }>;
}

/**
 * What the journal under `dir` (an out-dir, or an ingest's work folder) holds: finished tables and
 * the cuts since the last one. A torn last line (the disk filled while it was appended) is no line.
 */
function journaled(dir: string): Journaled {
  const found: Journaled = { tables: 0, cuts: [] };
  const staging = existsSync(dir) ? readdirSync(dir).find((n) => n.startsWith('.siard-ocfl-export-')) : undefined;
  const journal = staging && path.join(dir, staging, '.resume', 'journal.jsonl');
  if (!journal || !existsSync(journal)) return found;
  for (const line of readFileSync(journal, 'utf8').split('\n')) {
    let parsed: { table?: unknown; restart?: unknown; batch?: { qualifiedName: string; key: string; stats: { rows: number } } };
    try {
      parsed = JSON.parse(line) as typeof parsed;
    } catch {
      continue;
    }
    if (parsed.table !== undefined || parsed.restart !== undefined) found.cuts = [];
    if (parsed.table !== undefined) found.tables++;
    if (parsed.batch) found.cuts.push({ qualifiedName: parsed.batch.qualifiedName, key: parsed.batch.key, rows: parsed.batch.stats.rows });
  }
  return found;
}

/** Bytes in use on the file system of `dir`. */
function used(dir: string): number {
  const s = statfsSync(dir);
  return (s.blocks - s.bfree) * s.bsize;
}

/** Fills the tmpfs at `mnt` with a ballast file until `share` of `took` bytes is free; its path. */
function ballast(mnt: string, took: number, share: number): string {
  const file = path.join(mnt, 'ballast');
  const free = statfsSync(mnt).bavail * statfsSync(mnt).bsize;
  writeFileSync(file, Buffer.alloc(Math.max(0, free - Math.floor(took * share))));
  return file;
}

const WITHIN = /going on with (main\.\w+) after its row of key (-?\d+) \(([\d,]+) of its rows kept\)\./;

/** The interrupted run's findings on the journal; the resume line must name its last cut. */
function checkStopped(t: Parameters<Parameters<typeof tmpfsTest>[1]>[0], full: ChildResult, verb: string, at: Journaled): void {
  t.is(full.code, 2, full.stderr);
  t.regex(full.stderr, /no space left|ENOSPC/i);
  t.is(full.stderr.trim().split('\n').length, 1, 'one line, no stack trace');
  t.is(at.tables, 0, 'stopped inside the first table: no table finished');
  t.true(at.cuts.length >= 1, 'stopped after a cut of big');
  const last = at.cuts.at(-1);
  t.is(last?.qualifiedName, 'main.big');
  t.true(
    full.stderr.endsWith(
      `. The work done so far is kept (0 tables finished, main.big up to its row of key ${last?.key}): ` +
        `run the same ${verb} again to resume it.\n`,
    ),
    full.stderr,
  );
}

function checkResumed(t: Parameters<Parameters<typeof tmpfsTest>[1]>[0], again: ChildResult, at: Journaled): void {
  t.is(again.code, 0, again.stderr);
  const last = at.cuts.at(-1)!;
  t.deepEqual(
    WITHIN.exec(again.stderr)?.slice(1),
    [last.qualifiedName, last.key, last.rows.toLocaleString('en-US')],
    `the resume line names big and its last cut's key: ${again.stderr}`,
  );
}

/** An export stopped by a full disk inside `db`'s first table after a cut, the space freed, then resumed. */
async function exportStoppedAndResumed(t: Parameters<Parameters<typeof tmpfsTest>[1]>[0], db: string): Promise<void> {
  const mnt = mountTmpfs('siard-ocfl-enospc-within-export-', '64m');
  t.truthy(mnt, 'a tmpfs is mounted');
  const args = (out: string) => ['export', `sqlite:${db}`, out, '--name', 'db'];
  const before = used(mnt!);
  const refDir = path.join(mnt!, 'ref');
  const ref = await runCliToEnd(args(refDir));
  t.is(ref.code, 0, ref.stderr);
  const took = used(mnt!) - before;
  const refTree = treeDigests(refDir);
  rmSync(refDir, { recursive: true });
  const fill = ballast(mnt!, took, 0.45);
  const out = path.join(mnt!, 'out');
  const full = await runCliToEnd(args(out));
  const at = journaled(out);
  checkStopped(t, full, 'export', at);
  t.deepEqual(
    readdirSync(out).filter((n) => !n.startsWith('.')),
    [],
    'nothing visible',
  );
  rmSync(fill);
  const again = await runCliToEnd(args(out));
  checkResumed(t, again, at);
  t.is(sameTree(refTree, treeDigests(out)), undefined);
}

tmpfsTest('export: ENOSPC inside the first table, space freed, resumed after its last cut, the archive the uninterrupted one', (t) =>
  exportStoppedAndResumed(t, dbFile),
);

// its held-back data was removed when the disk filled (and when a kill came after the table's end but before its
// line): the next run could not go on from the cut and started over
tmpfsTest('export: ENOSPC inside a first table held back (no LOB file), space freed, resumed after its last cut, the same archive', (t) =>
  exportStoppedAndResumed(t, heldBackDb),
);

tmpfsTest('ingest: ENOSPC inside the first table, space freed, resumed after its last cut, the object the uninterrupted one', async (t) => {
  const mnt = mountTmpfs('siard-ocfl-enospc-within-ingest-', '64m');
  t.truthy(mnt, 'a tmpfs is mounted');
  const args = (root: string) => ['ingest', `sqlite:${dbFile}`, '--root', root, '--id', 'big', '--name', 'db'];
  // roots made by the command line: one made in this process would keep a descriptor on the mount (syncfs)
  const [refRoot, root] = [path.join(mnt!, 'ref'), path.join(mnt!, 'root')];
  for (const r of [refRoot, root]) t.is((await runCliToEnd(['init', r])).code, 0);
  const before = used(mnt!);
  const ref = await runCliToEnd(args(refRoot));
  t.is(ref.code, 0, ref.stderr);
  const took = used(mnt!) - before;
  const want = (await objectState(refRoot, 'big'))!.state;
  execFileSync('rm', ['-rf', refRoot, path.join(mnt!, '.ref.siard-ocfl-work')]);
  const fill = ballast(mnt!, took, 0.45);
  const full = await runCliToEnd(args(root));
  const ws = path.join(mnt!, '.root.siard-ocfl-work');
  const work = existsSync(ws) ? readdirSync(ws).find((n) => n.startsWith('resume-')) : undefined;
  t.truthy(work, `the ingest's work is kept in ${ws}`);
  const at = journaled(path.join(ws, work ?? 'none'));
  checkStopped(t, full, 'ingest', at);
  t.is(await objectState(root, 'big'), undefined, 'nothing in the root');
  rmSync(fill);
  const again = await runCliToEnd(args(root));
  checkResumed(t, again, at);
  t.true(sameState((await objectState(root, 'big'))!.state, want), "the uninterrupted object's state");
  t.deepEqual(
    workspaceLeftovers(root).filter((n) => !n.startsWith('locks/')),
    [],
  );
});
