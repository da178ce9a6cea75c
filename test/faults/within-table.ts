/**
 * Shared by the tests of a resume inside the table in progress (resume-within-table-kill.test.ts
 * for SQLite, resume-within-table-servers-kill.test.ts for PostgreSQL and MariaDB): the journal's
 * cut lines, a run SIGKILLed at a cut or at a moment after one, and the check of its resume (the
 * line names the table and key of the last cut; the out-dir equals the uninterrupted export's).
 */
import type { ExecutionContext } from 'ava';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { keyWords } from '../../src/sources/row-key.js';
import { objectState, runCliToEnd, sameState, sameTree, startCli, treeDigests, workspaceLeftovers, type ChildResult } from './harness.js';

export interface Cut {
  qualifiedName: string;
  key: string;
  rows: number;
}

/** The cut lines after the last table line of the journal under `dir` (an out-dir's staging folder, or an ingest's work folder). */
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

export interface KillPlan {
  /** SIGKILLed at the run's cut-th journaled cut (failpoint export-cut#k) */
  cut?: number;
  /** else thenMs after a cut of this table (any table when not given) shows in the journal */
  table?: string;
  thenMs?: number;
}

/** Runs `args`, SIGKILLed as `at` says; `dir` gives the folder whose journal is watched. */
async function killedInside(args: string[], at: KillPlan & { dir: () => string | undefined }): Promise<ChildResult> {
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

const WITHIN = /going on with (\S+) after its row of key (.+) \(([\d,]+) of its rows kept\)\./;

/** What the resume line says it goes on after (table, key as said, rows kept), when it says so. */
function saidWithin(stderr: string): string[] | undefined {
  return WITHIN.exec(stderr)?.slice(1);
}

/** What the resume line must say for the journal's last cut. */
function withinOf(cut: Cut): string[] {
  return [cut.qualifiedName, keyWords(cut.key), cut.rows.toLocaleString('en-US')];
}

/**
 * An export into `out` killed as `plan` says (tried again nearer the cut when the moment came after
 * the run's end or after the named table ended, on a loaded machine), then run again: nothing
 * visible while interrupted, the resume line names the last cut's table and key, and the out-dir
 * equals `refTree`. Gives the table the resume went on inside (undefined: none).
 */
export async function killedAndResumedInside(
  t: ExecutionContext,
  args: string[],
  out: string,
  plan: KillPlan,
  refTree: Map<string, string>,
): Promise<string | undefined> {
  const what = JSON.stringify(plan);
  const missed = (r: ChildResult) =>
    (r.code === 0 && r.signal !== 'SIGKILL') ||
    (r.signal === 'SIGKILL' && plan.table !== undefined && journaledCuts(out).at(-1)?.qualifiedName !== plan.table);
  let first = await killedInside(args, { ...plan, dir: () => out });
  for (const nearer of [4, Infinity]) {
    if (!missed(first) || plan.thenMs === undefined) break;
    rmSync(out, { recursive: true, force: true });
    first = await killedInside(args, { ...plan, thenMs: plan.thenMs / nearer, dir: () => out });
  }
  t.is(first.signal, 'SIGKILL', `${what}: ${first.stderr}`);
  t.deepEqual(
    readdirSync(out).filter((n) => !n.startsWith('.')),
    [],
    `${what}: nothing visible while interrupted`,
  );
  const last = journaledCuts(out).at(-1);
  const again = await runCliToEnd(args);
  t.is(again.code, 0, `${what}: ${again.stderr}`);
  if (last) t.deepEqual(saidWithin(again.stderr), withinOf(last), `${what}: the resume line names the table and key: ${again.stderr}`);
  const diff = sameTree(refTree, treeDigests(out));
  t.is(diff, undefined, `${what}: ${diff}`);
  rmSync(out, { recursive: true, force: true });
  return last?.qualifiedName;
}

/**
 * `ingest` of `source` killed as each of `plans` says (default: at its second cut; a moment after a
 * cut of `table` that came too late, after the table or the run ended, is tried again nearer the
 * cut), then run again, beside an uninterrupted ingest of it: no object in the root while killed,
 * the resume line names the last cut's table and key, and the object has the uninterrupted one's
 * state (every logical path and digest) with nothing left in the workspace. Roots under `dir`.
 */
export async function ingestKilledAndResumedInside(
  t: ExecutionContext,
  source: string,
  dir: string,
  table: string,
  options: string[] = [],
  plans: KillPlan[] = [{ cut: 2 }],
): Promise<void> {
  const ref = path.join(dir, 'ref');
  const args = (root: string) => ['ingest', source, '--root', root, '--id', 'big', ...options];
  t.is((await runCliToEnd(['init', ref])).code, 0);
  t.is((await runCliToEnd(args(ref))).code, 0);
  const want = await objectState(ref, 'big');
  for (const [i, plan] of plans.entries()) {
    const what = JSON.stringify(plan);
    const root = path.join(dir, `resumed-${i}`);
    const ws = `${path.dirname(root)}/.${path.basename(root)}.siard-ocfl-work`;
    const work = () => (existsSync(ws) ? readdirSync(ws).find((n) => n.startsWith('resume-')) : undefined);
    const cuts = () => (work() ? journaledCuts(path.join(ws, work()!)) : []);
    const killedAt = async (thenMs: number | undefined) => {
      for (const d of [root, ws]) rmSync(d, { recursive: true, force: true });
      t.is((await runCliToEnd(['init', root])).code, 0);
      const r = await killedInside(args(root), {
        ...plan,
        ...(thenMs !== undefined ? { thenMs } : {}),
        dir: () => work() && path.join(ws, work()!),
      });
      return { r, last: cuts().at(-1) };
    };
    let first = await killedAt(plan.thenMs);
    for (const nearer of [4, Infinity]) {
      if (plan.thenMs === undefined || (first.r.signal === 'SIGKILL' && first.last?.qualifiedName === table)) break;
      first = await killedAt(plan.thenMs / nearer);
    }
    t.is(first.r.signal, 'SIGKILL', `${what}: ${first.r.stderr}`);
    t.is(first.last?.qualifiedName, table, `${what}: killed inside ${table}`);
    t.is(await objectState(root, 'big'), undefined, `${what}: no object in the root while interrupted`);
    const again = await runCliToEnd(args(root));
    t.is(again.code, 0, `${what}: ${again.stderr}`);
    t.deepEqual(saidWithin(again.stderr), withinOf(first.last!), `${what}: the resume line names the table and key: ${again.stderr}`);
    const got = await objectState(root, 'big');
    t.true(got !== undefined && sameState(got.state, want!.state), `${what}: the resumed object has the uninterrupted one's state`);
    t.deepEqual(
      workspaceLeftovers(root).filter((n) => !n.startsWith('locks/')),
      [],
      `${what}: nothing left in the workspace`,
    );
  }
}
