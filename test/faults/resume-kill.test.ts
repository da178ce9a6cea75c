/**
 * Issue 38, resume: `export` to a folder SIGKILLed at random moments (half of them anywhere in the
 * run's time, half while a table after the first 1-5 finished ones is written; a quarter of the
 * resumed runs killed once more), then run again to its end. Each run's out-dir must then hold exactly what an
 * uninterrupted export made, byte for byte (every file, the .siard included: the resumed archive
 * keeps the first run's archival day, docs/resume.md), and nothing else: no staging folder left.
 * While killed, the out-dir shows nothing but the hidden staging folder. Some runs must have
 * resumed (said so on stderr), or the series would prove nothing. Then the cases around it, each
 * from work interrupted after two finished tables: `--restart`, other options, a table whose
 * row count changed, a kept LOB file damaged; and a full filesystem (a 2 MiB tmpfs) that stops it,
 * then resized: the export resumes. Then the same from a PostgreSQL source (a server of its own):
 * killed while tables after the first 1-3 are written, every resumed export equal to an
 * uninterrupted one (one snapshot per run; the database does not change between them); then a row
 * added to a finished table between two runs: refused in one sentence by its key range; --restart goes on;
 * and an `ingest` of the same source killed after two tables, resumed, with the uninterrupted ingest's state.
 * The database: six tables (external BLOBs and CLOBs, inline values, one LOB split over segment
 * folders, a table without LOBs, an empty one), in small segment folders so that the layout's
 * counters cross folders; the lobseg layout, and siard22 in every third run.
 */
import test, { type ExecutionContext } from 'ava';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import Database from '../../src/sources/sqlite/driver.js';
import { tempDir } from '../helpers/tmp.js';
import { mountTmpfs, tmpfsTest } from '../helpers/tmpfs.js';
import { pgTest, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { mariaTest, startMariadb, type MariadbServer } from '../helpers/mariadb.js';
import {
  faultRuns,
  faultSeed,
  objectState,
  prng,
  runCliToEnd,
  sameState,
  startCli,
  workspaceLeftovers,
  type ChildResult,
  sameTree,
  treeDigests,
} from './harness.js';
import { makeTables } from './resume-tables.js';

const RUNS = Math.max(4, Math.round(faultRuns() / 2));
const SEED = faultSeed();
console.log(`[faults] resume tests: FAULT_SEED=${SEED} runs=${RUNS}`);

/** The top-level names of a tree of files. */
function topLevel(tree: Map<string, string>): Set<string> {
  return new Set([...tree.keys()].map((k) => k.split('/')[0]!));
}

const base = tempDir('siard-ocfl-resume-kill-');
const dbFile = makeTables(path.join(base, 'db.sqlite'), SEED);
const layouts = { lobseg: [] as string[], siard22: ['--lob-layout', 'siard22'] };
type Layout = keyof typeof layouts;
const exportArgs = (out: string, layout: Layout, extra: string[] = []) => [
  'export',
  `sqlite:${dbFile}`,
  out,
  '--name',
  'db',
  '--max-files',
  '60',
  '--max-bytes',
  '300k',
  ...layouts[layout],
  ...extra,
];

/** An uninterrupted export: its files' digests, its time and its JSON summary. */
interface Reference {
  tree: Map<string, string>;
  ms: number;
  summary: { tables: number; rows: number; lobs: number; messageDigest: { digest: string } };
}
const references = new Map<Layout, Reference>();
async function reference(layout: Layout): Promise<Reference> {
  let ref = references.get(layout);
  if (!ref) {
    const out = path.join(base, `ref-${layout}`);
    const r = await runCliToEnd(exportArgs(out, layout, ['--json']));
    if (r.code !== 0) throw new Error(`the uninterrupted export failed: ${r.stderr}`);
    const summary = JSON.parse(r.stdout) as Reference['summary'];
    references.set(layout, (ref = { tree: treeDigests(out), ms: r.ms, summary }));
  }
  return ref;
}

/** The finished tables the journal of the out-dir's staging folder records (0 without one). */
function journaledTables(out: string): number {
  if (!existsSync(out)) return 0;
  const staging = readdirSync(out).find((n) => n.startsWith('.siard-ocfl-export-'));
  const journal = staging && path.join(out, staging, '.resume', 'journal.jsonl');
  if (!journal || !existsSync(journal)) return 0;
  return readFileSync(journal, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"table"')).length;
}

/** The qualified name of the first table the journal of the out-dir's staging folder records. */
function firstJournaledTable(out: string): string {
  const staging = readdirSync(out).find((n) => n.startsWith('.siard-ocfl-export-'))!;
  const line = readFileSync(path.join(out, staging, '.resume', 'journal.jsonl'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('{"table"'))!;
  return (JSON.parse(line) as { table: { qualifiedName: string } }).table.qualifiedName;
}

/** A row added to a finished table past its last key (a NOT NULL title where the table has one). */
function addRowSql(qualifiedName: string, quote: string): string {
  const table = qualifiedName.split('.').pop()!;
  const q = (n: string) => `${quote}${n}${quote}`;
  return table === 'doc' ? `INSERT INTO ${q(table)} (id, title) VALUES (100000, 'new')` : `INSERT INTO ${q(table)} (id) VALUES (100000)`;
}

/**
 * `ingest` of a database server's source killed after two finished tables (its journal in the
 * workspace) and run again: it says it resumes, and the object has the uninterrupted ingest's state.
 */
async function ingestKilledAndResumed(t: ExecutionContext, url: string, name: string): Promise<void> {
  const roots = [path.join(base, `${name}-ingest-ref`), path.join(base, `${name}-ingest`)];
  for (const root of roots) t.is((await runCliToEnd(['init', root])).code, 0);
  const args = (root: string) => ['ingest', url, '--root', root, '--id', name, '--max-files', '50', '--max-bytes', '200000'];
  t.is((await runCliToEnd(args(roots[0]!))).code, 0);
  const ws = `${path.dirname(roots[1]!)}/.${path.basename(roots[1]!)}.siard-ocfl-work`;
  const work = () => (existsSync(ws) ? readdirSync(ws).find((n) => n.startsWith('resume-')) : undefined);
  const first = await killed(args(roots[1]!), { tables: 2, out: () => work() && path.join(ws, work()!) });
  t.is(first.signal, 'SIGKILL');
  const again = await runCliToEnd(args(roots[1]!));
  t.is(again.code, 0, again.stderr);
  t.regex(again.stderr, new RegExp(`^Resuming the interrupted ingest into object "${name}": [2-9] of \\d+ tables kept`, 'm'));
  const [ref, got] = await Promise.all(roots.map((r) => objectState(r, name)));
  t.true(got !== undefined && sameState(got.state, ref!.state), "the resumed object has the uninterrupted one's state");
  t.deepEqual(
    workspaceLeftovers(roots[1]!).filter((n) => !n.startsWith('locks/')),
    [],
  );
}

/**
 * Runs the export and SIGKILLs it `ms` after the start, or `thenMs` (default 0) after `tables`
 * tables are journaled (in the out-dir `out`).
 */
async function killed(
  args: string[],
  at: { ms?: number; tables?: number; thenMs?: number; out?: string | (() => string | undefined) },
): Promise<ChildResult> {
  const child = startCli(args);
  let finished = false;
  let timer = at.ms !== undefined ? setTimeout(() => !finished && child.kill(), at.ms) : undefined;
  const poll =
    at.tables !== undefined
      ? setInterval(() => {
          const out = typeof at.out === 'function' ? at.out() : at.out;
          if (finished || timer !== undefined || out === undefined || journaledTables(out) < at.tables!) return;
          timer = setTimeout(() => !finished && child.kill(), at.thenMs ?? 0);
        }, 3)
      : undefined;
  const r = await child.done;
  finished = true;
  clearTimeout(timer);
  clearInterval(poll);
  return r;
}

test.serial(`export: ${RUNS} SIGKILLs at random moments, each resumed export equal to the uninterrupted one`, async (t) => {
  const rand = prng(SEED ^ 0x5e5);
  let resumed = 0;
  let killedRuns = 0;
  let committedBeforeKill = 0;
  let finishedMoves = 0;
  for (let i = 0; i < RUNS; i++) {
    const layout: Layout = i % 3 === 2 ? 'siard22' : 'lobseg';
    const ref = await reference(layout);
    const out = path.join(base, `run-${i}`);
    // half the kills anywhere in the run's time (start-up and commit included), half while a table
    // after the first 1-5 finished ones is written (the moments that leave work to resume)
    const first = await killed(
      exportArgs(out, layout),
      i % 2 === 0 ? { ms: rand() * ref.ms } : { tables: 1 + Math.floor(rand() * 5), thenMs: rand() * 150, out },
    );
    if (first.signal === 'SIGKILL') {
      killedRuns++;
      // nothing, or (killed while its files were moved into place) some of the archive's top-level names
      const visible = existsSync(out) ? readdirSync(out).filter((n) => !n.startsWith('.')) : [];
      t.deepEqual(
        visible.filter((n) => !topLevel(ref.tree).has(n)),
        [],
        `run ${i}: nothing but the archive's own names visible while interrupted`,
      );
      let again = await runAgain(out, layout, rand, ref.ms, i % 4 === 1);
      if (again.signal === 'SIGKILL') again = await runCliToEnd(exportArgs(out, layout));
      // a run killed once its files were whole (moving them into place) is finished by the next,
      // which has nothing left to do: exit 0; one killed after its move ended left no interrupted
      // work, and the next finds the archive there: exit 2, "already exists"; the tree is compared below
      if (/the move was finished, and nothing is left to do/.test(again.stderr)) finishedMoves++;
      const movedBeforeKill = again.code === 2 && /already exists/.test(again.stderr) && !/the move was finished/.test(again.stderr);
      if (movedBeforeKill) committedBeforeKill++;
      else t.is(again.code, 0, `run ${i}: ${again.stderr}`);
      if (/^Resuming the interrupted export/m.test(again.stderr)) resumed++;
    } else t.is(first.code, 0, first.stderr);
    const diff = sameTree(ref.tree, treeDigests(out));
    t.is(diff, undefined, `run ${i} (${layout}, first run ${first.signal ?? 'finished'}): ${diff}`);
    rmSync(out, { recursive: true, force: true });
  }
  console.log(
    `[faults] resume: ${killedRuns} of ${RUNS} runs killed, ${resumed} resumed, ` +
      `${committedBeforeKill} killed after their move into place, ${finishedMoves} during it`,
  );
  t.true(resumed >= RUNS / 4, `only ${resumed} of ${killedRuns} killed runs resumed`);
});

/** The export run again to its end, or (`killAgain`) killed once more at a random moment. */
function runAgain(out: string, layout: Layout, rand: () => number, ms: number, killAgain: boolean): Promise<ChildResult> {
  return killAgain ? killed(exportArgs(out, layout), { ms: rand() * ms }) : runCliToEnd(exportArgs(out, layout));
}

/** Interrupted work with at least two finished tables in `out`. */
async function interrupted(out: string, layout: Layout = 'lobseg'): Promise<void> {
  const r = await killed(exportArgs(out, layout), { tables: 2, out });
  if (r.signal !== 'SIGKILL' || journaledTables(out) < 2) throw new Error(`the export was not interrupted after two tables: ${r.stderr}`);
}

test.serial('export: --restart throws the interrupted work away, saying so', async (t) => {
  const ref = await reference('lobseg');
  const out = path.join(base, 'restart');
  await interrupted(out);
  const r = await runCliToEnd(exportArgs(out, 'lobseg', ['--restart']));
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /interrupted export of "db" .* was removed \(--restart\)/);
  t.notRegex(r.stderr, /Resuming/);
  t.is(sameTree(ref.tree, treeDigests(out)), undefined);
});

test.serial('export: other options are not a resume; the old work is removed in one sentence', async (t) => {
  const out = path.join(base, 'other-options');
  await interrupted(out);
  const r = await runCliToEnd(exportArgs(out, 'lobseg', ['--inline-max', '3000']));
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /made from another source or with other options; its \d+ finished tables were removed/);
  t.notRegex(r.stderr, /Resuming/);
  t.deepEqual(
    readdirSync(out).filter((n) => n.startsWith('.')),
    [],
  );
});

test.serial('export: a finished table whose row count changed is refused in one sentence, and --restart goes on', async (t) => {
  const out = path.join(base, 'changed');
  const copy = path.join(base, 'changed.sqlite');
  writeFileSync(copy, readFileSync(dbFile));
  const args = (extra: string[] = []) =>
    [...exportArgs(out, 'lobseg', extra)].map((a) => (a === `sqlite:${dbFile}` ? `sqlite:${copy}` : a));
  const r0 = await killed(args(), { tables: 2, out });
  t.is(r0.signal, 'SIGKILL');
  const db = new Database(copy);
  db.exec('DELETE FROM doc WHERE id = 7'); // doc is the first table: finished
  db.close();
  const r = await runCliToEnd(args());
  t.is(r.code, 2);
  t.regex(r.stderr, /Table main\.doc had 120 rows when the interrupted export wrote it and has 119 now; run it again with --restart/);
  t.false(
    readdirSync(out).some((n) => !n.startsWith('.')),
    'nothing published',
  );
  const again = await runCliToEnd(args(['--restart']));
  t.is(again.code, 0, again.stderr);
  t.regex(again.stdout, /Exported 6 tables, 3509 rows/);
});

test.serial('export: a kept LOB file that changed is not kept; the export starts over and equals the uninterrupted one', async (t) => {
  const ref = await reference('lobseg');
  const out = path.join(base, 'damaged');
  await interrupted(out);
  const staging = path.join(
    out,
    readdirSync(out).find((n) => n.startsWith('.siard-ocfl-export-'))!,
  );
  const lob = path.join(staging, 'db_lobseg_0', 'content', 'schema0', 'table0', 'lob3', 'record0.bin');
  const body = readFileSync(lob);
  body[10] = body[10]! ^ 0xff;
  writeFileSync(lob, body);
  const r = await runCliToEnd(exportArgs(out, 'lobseg'));
  t.is(r.code, 0, r.stderr);
  t.regex(
    r.stderr,
    new RegExp(
      'The interrupted export cannot be resumed: the LOB file db_lobseg_0/content/schema0/table0/lob3/record0\\.bin ' +
        'is not what the journal recorded .* It starts over\\.',
    ),
  );
  t.is(sameTree(ref.tree, treeDigests(out)), undefined);
});

tmpfsTest(
  'export: a full filesystem (ENOSPC) stops it in one sentence keeping the finished tables; with space freed it resumes',
  async (t) => {
    const ref = await reference('lobseg');
    const mnt = mountTmpfs('siard-ocfl-resume-enospc-', '2m');
    t.truthy(mnt, 'a 2 MiB tmpfs is mounted');
    const out = path.join(mnt!, 'out');
    const full = await runCliToEnd(exportArgs(out, 'lobseg'));
    t.is(full.code, 2, full.stderr);
    t.regex(full.stderr, /no space left|ENOSPC/i);
    t.regex(full.stderr, /The tables finished so far are kept: run the same export again to resume it\.\n$/);
    t.is(full.stderr.trim().split('\n').length, 1, 'one line, no stack trace');
    t.true(journaledTables(out) >= 1, 'tables were finished before the disk was full');
    t.deepEqual(
      readdirSync(out).filter((n) => !n.startsWith('.')),
      [],
      'nothing visible',
    );
    execFileSync('mount', ['-o', 'remount,size=16m', mnt!]);
    const again = await runCliToEnd(exportArgs(out, 'lobseg'));
    t.is(again.code, 0, again.stderr);
    t.regex(again.stderr, /^Resuming the interrupted export of "db"/m);
    t.is(sameTree(ref.tree, treeDigests(out)), undefined);
  },
);

let pgServer: PostgresServer | undefined;
test.after.always(async () => {
  await pgServer?.stop();
});

pgTest('export from PostgreSQL: killed while tables are written, each resumed export equal to the uninterrupted one', async (t) => {
  pgServer = await startPostgres();
  await pgServer.createDatabase('source');
  const client = new pg.Client({ connectionString: pgServer.url('source') });
  await client.connect();
  try {
    await client.query(`
      CREATE TABLE doc (id integer PRIMARY KEY, title text NOT NULL, body bytea);
      INSERT INTO doc SELECT i, 'document ' || i, decode(repeat(md5(i::text), 40 + i % 200), 'hex') FROM generate_series(1, 150) i;
      CREATE TABLE letter (id integer PRIMARY KEY, body text);
      INSERT INTO letter SELECT i, repeat('Dear ' || i || ', ', i * 7) FROM generate_series(1, 200) i;
      CREATE TABLE plain (id integer PRIMARY KEY, a bigint, b varchar(40), c double precision);
      INSERT INTO plain SELECT i, i * 7919, 'value ' || md5(i::text), i / 7.0 FROM generate_series(1, 5000) i;
      CREATE TABLE empty (id integer PRIMARY KEY, x bytea);
      CREATE TABLE scan (id integer PRIMARY KEY, page bytea);
      INSERT INTO scan SELECT i, decode(repeat(md5((i * 3)::text), 300 + i * 20), 'hex') FROM generate_series(1, 60) i;
    `);
  } finally {
    await client.end();
  }
  const url = pgServer.url('source');
  const args = (out: string) => ['export', url, out, '--name', 'pgdb', '--max-files', '50', '--max-bytes', '200k'];
  const refOut = path.join(base, 'pg-ref');
  const ref = await runCliToEnd(args(refOut));
  t.is(ref.code, 0, ref.stderr);
  const refTree = treeDigests(refOut);
  const rand = prng(SEED ^ 0x9e);
  const runs = Math.max(3, Math.round(RUNS / 4));
  let resumed = 0;
  for (let i = 0; i < runs; i++) {
    const out = path.join(base, `pg-run-${i}`);
    const first = await killed(args(out), { tables: 1 + Math.floor(rand() * 3), thenMs: rand() * 150, out });
    const again = first.signal === 'SIGKILL' ? await runCliToEnd(args(out)) : first;
    // killed after its move into place had ended: no interrupted work is left, and the archive is there
    const movedBeforeKill = again.code === 2 && /already exists/.test(again.stderr) && !/the move was finished/.test(again.stderr);
    if (!movedBeforeKill) t.is(again.code, 0, `run ${i}: ${again.stderr}`);
    if (/^Resuming the interrupted export/m.test(again.stderr)) resumed++;
    const diff = sameTree(refTree, treeDigests(out));
    t.is(diff, undefined, `run ${i}: ${diff}`);
    rmSync(out, { recursive: true, force: true });
  }
  console.log(`[faults] resume from PostgreSQL: ${runs} runs, ${resumed} resumed`);
  t.true(resumed >= 1, 'at least one run resumed');
  // a finished table that changed between the runs: its key range tells (an estimate of its rows would not)
  const out = path.join(base, 'pg-changed');
  t.is((await killed(args(out), { tables: 2, out })).signal, 'SIGKILL');
  const finished = firstJournaledTable(out);
  const change = new pg.Client({ connectionString: url });
  await change.connect();
  await change.query(addRowSql(finished, '"'));
  await change.end();
  const refused = await runCliToEnd(args(out));
  t.is(refused.code, 2, refused.stderr);
  t.regex(
    refused.stderr,
    new RegExp(
      `The keys of table ${finished.replace('.', '\\.')} ran from 1 to \\d+ when the interrupted export wrote it ` +
        'and run from 1 to 100000 now',
    ),
  );
  t.is((await runCliToEnd([...args(out), '--restart'])).code, 0);
  await ingestKilledAndResumed(t, url, 'pgdb');
});

let mariaServer: MariadbServer | undefined;
test.after.always(async () => {
  await mariaServer?.stop();
});

mariaTest('export from MariaDB: killed while tables are written, each resumed export equal to the uninterrupted one', async (t) => {
  mariaServer = await startMariadb();
  await mariaServer.createDatabase('source');
  const seq = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)';
  mariaServer.client(
    'source',
    [],
    `SET SESSION max_recursive_iterations = 10000;
     CREATE TABLE doc (id INT PRIMARY KEY, title VARCHAR(40) NOT NULL, body LONGBLOB);
     INSERT INTO doc ${seq} SELECT i, CONCAT('document ', i), UNHEX(REPEAT(MD5(i), 40 + i % 200)) FROM n WHERE i <= 150;
     CREATE TABLE letter (id INT PRIMARY KEY, body LONGTEXT);
     INSERT INTO letter ${seq} SELECT i, REPEAT(CONCAT('Dear ', i, ', '), i * 7) FROM n WHERE i <= 200;
     CREATE TABLE plain (id INT PRIMARY KEY, a BIGINT, b VARCHAR(40), c DOUBLE);
     INSERT INTO plain ${seq} SELECT i, i * 7919, CONCAT('value ', MD5(i)), i / 7 FROM n;
     CREATE TABLE empty (id INT PRIMARY KEY, x BLOB);
     CREATE TABLE scan (id INT PRIMARY KEY, page LONGBLOB);
     INSERT INTO scan ${seq} SELECT i, UNHEX(REPEAT(MD5(i * 3), 300 + i * 20)) FROM n WHERE i <= 60;`,
  );
  const url = mariaServer.url('source');
  const args = (out: string) => ['export', url, out, '--name', 'mdb', '--max-files', '50', '--max-bytes', '200k'];
  const refOut = path.join(base, 'maria-ref');
  const ref = await runCliToEnd(args(refOut));
  t.is(ref.code, 0, ref.stderr);
  const refTree = treeDigests(refOut);
  const rand = prng(SEED ^ 0x3d);
  const runs = Math.max(3, Math.round(RUNS / 4));
  let resumed = 0;
  for (let i = 0; i < runs; i++) {
    const out = path.join(base, `maria-run-${i}`);
    const first = await killed(args(out), { tables: 1 + Math.floor(rand() * 3), thenMs: rand() * 150, out });
    const again = first.signal === 'SIGKILL' ? await runCliToEnd(args(out)) : first;
    // killed after its move into place had ended: no interrupted work is left, and the archive is there
    const movedBeforeKill = again.code === 2 && /already exists/.test(again.stderr) && !/the move was finished/.test(again.stderr);
    if (!movedBeforeKill) t.is(again.code, 0, `run ${i}: ${again.stderr}`);
    if (/^Resuming the interrupted export/m.test(again.stderr)) resumed++;
    const diff = sameTree(refTree, treeDigests(out));
    t.is(diff, undefined, `run ${i}: ${diff}`);
    rmSync(out, { recursive: true, force: true });
  }
  console.log(`[faults] resume from MariaDB: ${runs} runs, ${resumed} resumed`);
  t.true(resumed >= 1, 'at least one run resumed');
  const out = path.join(base, 'maria-changed');
  t.is((await killed(args(out), { tables: 2, out })).signal, 'SIGKILL');
  const finished = firstJournaledTable(out);
  mariaServer.client('source', [], addRowSql(finished, '`'));
  const refused = await runCliToEnd(args(out));
  t.is(refused.code, 2, refused.stderr);
  t.regex(
    refused.stderr,
    new RegExp(
      `The keys of table ${finished.replace('.', '\\.')} ran from 1 to \\d+ when the interrupted export wrote it ` +
        'and run from 1 to 100000 now',
    ),
  );
  t.is((await runCliToEnd([...args(out), '--restart'])).code, 0);
  await ingestKilledAndResumed(t, url, 'mdb');
});

/** The next run after a kill during the move into place: it finishes the move and reports the archive as its own. */
function finishesTheMove(t: ExecutionContext, ref: Reference, out: string, again: ChildResult, what: string): void {
  t.is(again.code, 0, `${what}: ${again.stderr}`);
  t.regex(again.stderr, /interrupted export of "db" into .* had written its whole archive .* nothing is left to do/, what);
  const report = JSON.parse(again.stdout) as Reference['summary'] & { siard: string };
  t.is(report.siard, 'db.siard', what);
  t.is(report.messageDigest.digest, ref.summary.messageDigest.digest, what); // the archive's bytes are the reference's (below)
  t.deepEqual([report.tables, report.rows, report.lobs], [ref.summary.tables, ref.summary.rows, ref.summary.lobs], what);
  t.is(sameTree(ref.tree, treeDigests(out)), undefined, `${what}: the whole archive, nothing left beside it`);
}

test.serial('export: killed at each step of the move into place, the next run finishes the move and reports the archive', async (t) => {
  const ref = await reference('lobseg');
  const topNames = topLevel(ref.tree).size;
  t.true(topNames >= 3, 'an archive of several top-level names (the .siard and its LOB folders)');
  const points = ['export-commit-marked', 'export-commit-moved#1', `export-commit-moved#${topNames - 1}`, 'export-commit-marker-left'];
  for (const point of points) {
    const out = path.join(base, `committing-${point.replace('#', '-')}`);
    const first = await runCliToEnd(exportArgs(out, 'lobseg'), { shell: `export SIARD_OCFL_FAILPOINT='${point}'` });
    t.is(first.signal, 'SIGKILL', `${point}: ${first.stderr}`);
    finishesTheMove(t, ref, out, await runCliToEnd(exportArgs(out, 'lobseg', ['--json'])), point);
    // and a third run finds the archive there
    const third = await runCliToEnd(exportArgs(out, 'lobseg'));
    t.is(third.code, 2, third.stderr);
    t.regex(third.stderr, /already exists/);
    rmSync(out, { recursive: true, force: true });
  }
  // with --restart the interrupted run's move is finished too, but this run does not adopt it
  const out = path.join(base, 'committing-restart');
  t.is((await runCliToEnd(exportArgs(out, 'lobseg'), { shell: "export SIARD_OCFL_FAILPOINT='export-commit-marked'" })).signal, 'SIGKILL');
  const restarted = await runCliToEnd(exportArgs(out, 'lobseg', ['--restart']));
  t.is(restarted.code, 2, restarted.stderr);
  t.regex(restarted.stderr, /killed while its files were moved into place; the move was finished/);
  t.regex(restarted.stderr, /already exists/);
  t.is(sameTree(ref.tree, treeDigests(out)), undefined);
});

test.serial('export: killed at a random moment once its files are whole, the next run finishes the move', async (t) => {
  const ref = await reference('lobseg');
  const out = path.join(base, 'committing');
  const child = startCli(exportArgs(out, 'lobseg'));
  const marked = () => {
    const staging = existsSync(out) ? readdirSync(out).find((n) => n.startsWith('.siard-ocfl-export-')) : undefined;
    return staging !== undefined && existsSync(path.join(out, staging, '.resume', 'committing.json'));
  };
  const poll = setInterval(() => marked() && child.kill(), 1);
  const first = await child.done;
  clearInterval(poll);
  const again = await runCliToEnd(exportArgs(out, 'lobseg', ['--json']));
  if (first.signal === 'SIGKILL' && /the move was finished/.test(again.stderr)) finishesTheMove(t, ref, out, again, 'random');
  else {
    // the first run ended its move (or was not killed): its archive is there, and a second is refused
    t.is(again.code, 2, again.stderr);
    t.regex(again.stderr, /already exists/);
    t.is(sameTree(ref.tree, treeDigests(out)), undefined, `the whole archive, nothing left beside it: ${first.signal} ${again.stderr}`);
  }
});
