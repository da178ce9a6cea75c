/**
 * Issue 38: the table in progress goes on from its last durable cut (docs/resume.md). A SQLite
 * database whose two big tables dominate: `big` (260,000 rows, a BLOB in a file every 500th row:
 * the table is written again with settled types, streamed into the .siard) and `bare` (240,000
 * rows, no LOB file: provisional types, its data held back until it ends). `export` is SIGKILLed
 * inside one of them, at a cut (the run's k-th journaled cut, SIARD_OCFL_FAILPOINT=export-cut#k)
 * or at a random moment after its first cut, then run again: it says in its one line that it goes
 * on inside that table after the key of the journal's last cut line (the last row written before
 * it), and the out-dir then holds, byte for byte, what an uninterrupted export made. An `ingest`
 * killed inside `big` and run again gives the uninterrupted ingest's object.
 */
import test from 'ava';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from '../../src/sources/sqlite/driver.js';
import { tempDir } from '../helpers/tmp.js';
import {
  faultSeed,
  objectState,
  prng,
  runCliToEnd,
  sameState,
  sameTree,
  startCli,
  treeDigests,
  workspaceLeftovers,
  type ChildResult,
} from './harness.js';

const SEED = faultSeed();
console.log(`[faults] resume within a table: FAULT_SEED=${SEED}`);
const base = tempDir('siard-ocfl-resume-within-');

function makeBigTables(file: string): string {
  const db = new Database(file);
  db.exec(`CREATE TABLE head (id INTEGER PRIMARY KEY, t TEXT);
           CREATE TABLE big (id INTEGER PRIMARY KEY, name TEXT NOT NULL, n REAL, doc BLOB);
           CREATE TABLE bare (id INTEGER PRIMARY KEY, name TEXT, d DATE);
           CREATE TABLE tail (id INTEGER PRIMARY KEY, t TEXT)`);
  const rand = prng(SEED);
  db.transaction(() => {
    const head = db.prepare('INSERT INTO head VALUES (?, ?)');
    for (let i = 1; i <= 100; i++) head.run(i, 'h'.repeat(i));
    const big = db.prepare('INSERT INTO big VALUES (?, ?, ?, ?)');
    for (let i = 1; i <= 260_000; i++)
      big.run(
        i * 3,
        `row ${i} ${'abcdefghij'.repeat(i % 7)}`,
        i * 1.25,
        i % 500 === 0 ? Buffer.alloc(5000, Math.floor(rand() * 256)) : null,
      );
    const bare = db.prepare('INSERT INTO bare VALUES (?, ?, ?)');
    for (let i = 1; i <= 240_000; i++) bare.run(i - 50_000, `bare ${Math.floor(rand() * 1e9)} ${'xyz'.repeat(i % 11)}`, '2025-01-31');
    const tail = db.prepare('INSERT INTO tail VALUES (?, ?)');
    for (let i = 1; i <= 50; i++) tail.run(i, 'z'.repeat(i));
  })();
  db.close();
  return file;
}

const dbFile = makeBigTables(path.join(base, 'big.sqlite'));
const exportArgs = (out: string) => ['export', `sqlite:${dbFile}`, out, '--name', 'db'];

interface Cut {
  qualifiedName: string;
  key: string;
  rows: number;
}

/** The cut lines of the journal under `dir` (an out-dir's staging folder, or an ingest's work folder). */
function journaledCuts(dir: string): Cut[] {
  if (!existsSync(dir)) return [];
  const staging = readdirSync(dir).find((n) => n.startsWith('.siard-ocfl-export-'));
  const journal = staging && path.join(dir, staging, '.resume', 'journal.jsonl');
  if (!journal || !existsSync(journal)) return [];
  const cuts: Cut[] = [];
  for (const line of readFileSync(journal, 'utf8').split('\n')) {
    if (line.startsWith('{"table"')) cuts.length = 0;
    if (!line.startsWith('{"batch"')) continue;
    const b = (JSON.parse(line) as { batch: Cut & { stats: { rows: number } } }).batch;
    cuts.push({ qualifiedName: b.qualifiedName, key: b.key, rows: b.stats.rows });
  }
  return cuts;
}

/**
 * Runs `args`, SIGKILLed at the run's `cut`-th journaled cut (failpoint), or `thenMs` after a cut
 * of `table` (any table when not given) shows in the journal.
 */
async function killedInside(
  args: string[],
  at: { cut?: number; table?: string; thenMs?: number; dir: () => string | undefined },
): Promise<ChildResult> {
  if (at.cut !== undefined) return startCli(args, { shell: `export SIARD_OCFL_FAILPOINT=export-cut#${at.cut}` }).done;
  const child = startCli(args);
  let timer: NodeJS.Timeout | undefined;
  const poll = setInterval(() => {
    const dir = at.dir();
    if (timer !== undefined || dir === undefined) return;
    if (!journaledCuts(dir).some((c) => at.table === undefined || c.qualifiedName === at.table)) return;
    timer = setTimeout(() => child.kill(), at.thenMs ?? 0);
  }, 3);
  const r = await child.done;
  clearInterval(poll);
  clearTimeout(timer);
  return r;
}

const WITHIN = /going on with (main\.\w+) after its row of key (-?\d+) \(([\d,]+) of its rows kept\)\./;

test.serial('export killed inside a big table goes on after its last cut, and the archive is the uninterrupted one', async (t) => {
  const refDir = path.join(base, 'ref');
  const ref = await runCliToEnd(exportArgs(refDir));
  t.is(ref.code, 0, ref.stderr);
  const refTree = treeDigests(refDir);
  const rand = prng(SEED ^ 0x7ab1e);
  const within = new Set<string>();
  // at big's second cut, then at random moments after a cut of bare, and after any first cut
  const plans: Array<{ cut?: number; table?: string; thenMs?: number }> = [
    { cut: 2 },
    { table: 'main.bare', thenMs: rand() * 200 },
    { thenMs: rand() * 400 },
  ];
  for (const [i, plan] of plans.entries()) {
    const out = path.join(base, `run-${i}`);
    // a random moment after a cut may come after the run's end, or after the named table ended (on a loaded
    // machine): again, nearer the cut
    const missed = (r: ChildResult) =>
      (r.code === 0 && r.signal !== 'SIGKILL') ||
      (r.signal === 'SIGKILL' && plan.table !== undefined && journaledCuts(out).at(-1)?.qualifiedName !== plan.table);
    let first = await killedInside(exportArgs(out), { ...plan, dir: () => out });
    for (const nearer of [4, Infinity]) {
      if (!missed(first) || plan.thenMs === undefined) break;
      rmSync(out, { recursive: true, force: true });
      first = await killedInside(exportArgs(out), { ...plan, thenMs: plan.thenMs / nearer, dir: () => out });
    }
    t.is(first.signal, 'SIGKILL', `run ${i}: ${first.stderr}`);
    t.deepEqual(
      readdirSync(out).filter((n) => !n.startsWith('.')),
      [],
      `run ${i}: nothing visible while interrupted`,
    );
    const last = journaledCuts(out).at(-1);
    const again = await runCliToEnd(exportArgs(out));
    t.is(again.code, 0, `run ${i}: ${again.stderr}`);
    const said = WITHIN.exec(again.stderr);
    if (last) {
      t.truthy(said, `run ${i}: the resume line names the table and key: ${again.stderr}`);
      t.deepEqual(said?.slice(1), [last.qualifiedName, last.key, last.rows.toLocaleString('en-US')], `run ${i}`);
      within.add(last.qualifiedName);
    }
    const diff = sameTree(refTree, treeDigests(out));
    t.is(diff, undefined, `run ${i} (${JSON.stringify(plan)}): ${diff}`);
    rmSync(out, { recursive: true, force: true });
  }
  t.deepEqual([...within].sort(), ['main.bare', 'main.big'], 'resumed inside both ways of writing a table');
});

test.serial('ingest killed inside a big table goes on after its last cut, and the object is the uninterrupted one', async (t) => {
  const roots = [path.join(base, 'ingest-ref'), path.join(base, 'ingest')];
  for (const root of roots) t.is((await runCliToEnd(['init', root])).code, 0);
  const args = (root: string) => ['ingest', `sqlite:${dbFile}`, '--root', root, '--id', 'big'];
  t.is((await runCliToEnd(args(roots[0]!))).code, 0);
  const ws = `${path.dirname(roots[1]!)}/.${path.basename(roots[1]!)}.siard-ocfl-work`;
  const work = () => (existsSync(ws) ? readdirSync(ws).find((n) => n.startsWith('resume-')) : undefined);
  const first = await killedInside(args(roots[1]!), { cut: 2, dir: () => work() && path.join(ws, work()!) });
  t.is(first.signal, 'SIGKILL', first.stderr);
  const last = journaledCuts(path.join(ws, work()!)).at(-1)!;
  t.is(last.qualifiedName, 'main.big');
  const again = await runCliToEnd(args(roots[1]!));
  t.is(again.code, 0, again.stderr);
  t.deepEqual(WITHIN.exec(again.stderr)?.slice(1), [last.qualifiedName, last.key, last.rows.toLocaleString('en-US')]);
  const [want, got] = await Promise.all(roots.map((r) => objectState(r, 'big')));
  t.true(got !== undefined && sameState(got.state, want!.state), "the resumed object has the uninterrupted one's state");
  t.deepEqual(
    workspaceLeftovers(roots[1]!).filter((n) => !n.startsWith('locks/')),
    [],
  );
});
