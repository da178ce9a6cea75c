/**
 * Issue 38, resume of `ingest` (docs/resume.md, "Ingest"): the command line's ingest of a SQLite
 * database SIGKILLed at random moments (half anywhere in the run's time, half while a table after
 * the first 1-5 finished ones is written; a quarter of the resumed runs killed once more), then run
 * again to its end. While killed, the root holds no object (nothing visible before the commit);
 * each finished object must hold exactly the state (every logical path and its digest) of the
 * object the library's direct ingest makes (written straight into the staged version, the way that
 * is not resumable), and the workspace nothing but the locks folder. Some runs must have resumed.
 * Then the cases: killed while the files go into the stage (LOB folders moved in whole, given back
 * by the dead stage's recovery or by `repair`): every table kept; `--restart`; other options; another
 * id (the old work removed, one sentence each); a kept LOB file changed, refused by the one digest
 * computed against its journal line; `repair` keeping a killed ingest's work and saying how to remove
 * it, `--discard-resumable` removing it; `repair` beside a living (stopped) ingest keeping its work; and a full filesystem
 * (a tmpfs holding root and workspace): one line, the work kept, then resized: it resumes.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ingest } from '../../src/archive/ingest.js';
import { defaultWorkspaceDir } from '../../src/ocfl/commit/workspace.js';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { initRoot } from '../../src/ocfl/root.js';
import { tempDir } from '../helpers/tmp.js';
import { mountTmpfs, tmpfsTest } from '../helpers/tmpfs.js';
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
} from './harness.js';
import { makeTables } from './resume-tables.js';

const RUNS = Math.max(4, Math.round(faultRuns() / 8));
const SEED = faultSeed();
console.log(`[faults] resume ingest tests: FAULT_SEED=${SEED} runs=${RUNS}`);

const base = tempDir('siard-ocfl-resume-ingest-');
const dbFile = makeTables(path.join(base, 'db.sqlite'), SEED);
const ingestArgs = (root: string, extra: string[] = [], id = 'db') => [
  'ingest',
  `sqlite:${dbFile}`,
  '--root',
  root,
  '--id',
  id,
  '--name',
  'db',
  '--max-files',
  '60',
  '--max-bytes',
  '300000',
  ...extra,
];

let reference: Promise<{ state: Map<string, string>; ms: number }> | undefined;
/** The object of the library's direct ingest (not resumable), and how long the command line's takes. */
function referenceObject(): Promise<{ state: Map<string, string>; ms: number }> {
  reference ??= (async () => {
    const direct = path.join(base, 'ref-direct');
    await initRoot(direct, await loadLayout0003());
    await ingest(`sqlite:${dbFile}`, direct, 'db', { name: 'db', maxFiles: 60, maxBytes: 300000 });
    const cli = path.join(base, 'ref-cli');
    await initRoot(cli, await loadLayout0003());
    const r = await runCliToEnd(ingestArgs(cli));
    if (r.code !== 0) throw new Error(`the uninterrupted ingest failed: ${r.stderr}`);
    return { state: (await objectState(direct, 'db'))!.state, ms: r.ms };
  })();
  return reference;
}

/** The journal of a root's resumable ingest work, if any. */
function journalOf(root: string): string | undefined {
  const ws = defaultWorkspaceDir(root);
  const work = existsSync(ws) ? readdirSync(ws).find((n) => n.startsWith('resume-')) : undefined;
  const staging = work && readdirSync(path.join(ws, work)).find((n) => n.startsWith('.siard-ocfl-export-'));
  const journal = staging && path.join(ws, work, staging, '.resume', 'journal.jsonl');
  return journal && existsSync(journal) ? journal : undefined;
}

function journaledTables(root: string): number {
  const journal = journalOf(root);
  return journal
    ? readFileSync(journal, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{"table"')).length
    : 0;
}

/** Runs the ingest and SIGKILLs it `ms` after the start, or `thenMs` after `tables` tables are journaled. */
async function killed(args: string[], root: string, at: { ms?: number; tables?: number; thenMs?: number }): Promise<ChildResult> {
  const child = startCli(args);
  let finished = false;
  let timer = at.ms !== undefined ? setTimeout(() => !finished && child.kill(), at.ms) : undefined;
  const poll =
    at.tables !== undefined
      ? setInterval(() => {
          if (finished || timer !== undefined || journaledTables(root) < at.tables!) return;
          timer = setTimeout(() => !finished && child.kill(), at.thenMs ?? 0);
        }, 3)
      : undefined;
  const r = await child.done;
  finished = true;
  clearTimeout(timer);
  clearInterval(poll);
  return r;
}

async function newRoot(name: string): Promise<string> {
  const root = path.join(base, name);
  await initRoot(root, await loadLayout0003());
  return root;
}

test.serial(`ingest: ${RUNS} SIGKILLs at random moments, each resumed object equal to the uninterrupted one`, async (t) => {
  const ref = await referenceObject();
  const rand = prng(SEED ^ 0x1e5);
  let resumed = 0;
  let killedRuns = 0;
  for (let i = 0; i < RUNS; i++) {
    const root = await newRoot(`run-${i}`);
    const args = ingestArgs(root);
    const first = await killed(
      args,
      root,
      i % 2 === 0 ? { ms: rand() * ref.ms } : { tables: 1 + Math.floor(rand() * 5), thenMs: rand() * 150 },
    );
    if (first.signal === 'SIGKILL') {
      killedRuns++;
      // nothing in the root before the commit (or, killed after it, the whole object)
      const seen = await objectState(root, 'db');
      t.true(seen === undefined || sameState(seen.state, ref.state), `run ${i}: nothing or the whole object visible while interrupted`);
      let again = i % 4 === 1 ? await killed(args, root, { ms: rand() * ref.ms }) : await runCliToEnd(args);
      if (again.signal === 'SIGKILL') again = await runCliToEnd(args);
      t.is(again.code, 0, `run ${i}: ${again.stderr}`);
      if (/^Resuming the interrupted ingest into object "db"/m.test(again.stderr)) resumed++;
    } else t.is(first.code, 0, first.stderr);
    const got = await objectState(root, 'db');
    t.is(got?.versions, 1, `run ${i}: one version`);
    t.true(got !== undefined && sameState(got.state, ref.state), `run ${i} (first run ${first.signal ?? 'finished'}): the same state`);
    t.deepEqual(workspaceLeftovers(root), [], `run ${i}: nothing left in the workspace`);
  }
  console.log(`[faults] resume ingest: ${killedRuns} of ${RUNS} runs killed, ${resumed} resumed`);
  t.true(resumed >= RUNS / 4, `only ${resumed} of ${killedRuns} killed runs resumed`);
  const valid = await runCliToEnd(['validate', path.join(base, `run-${RUNS - 1}`)]);
  t.is(valid.code, 0, valid.stdout + valid.stderr);
});

test.serial('ingest: killed while its finished files go into the stage, the next run resumes with every table kept', async (t) => {
  const ref = await referenceObject();
  // The first file listed and one in the middle; then, its LOB folders moved whole into the stage
  // (adopted-trees.ts), killed after the first move, with the inventory staged, and with the object
  // built in the stage's tree right before its one rename into the root: each time the dead
  // stage's recovery must give the folders back, or the next run could not resume them.
  const points = [
    'ingest-file-staged#1',
    `ingest-file-staged#${Math.floor(ref.state.size / 2)}`,
    'stage-tree-adopted#1',
    'after-root-inventory-staged',
    'before-object-rename',
  ];
  for (const nth of points) {
    const root = await newRoot(`staged-${nth.replace('#', '-')}`);
    const first = await runCliToEnd(ingestArgs(root), { shell: `export SIARD_OCFL_FAILPOINT='${nth}'` });
    t.is(first.signal, 'SIGKILL', `#${nth}: ${first.stderr}`);
    t.is(await objectState(root, 'db'), undefined, `#${nth}: nothing visible`);
    t.is(journaledTables(root), 6, `#${nth}: the work is whole`);
    const again = await runCliToEnd(ingestArgs(root));
    t.is(again.code, 0, `#${nth}: ${again.stderr}`);
    t.regex(again.stderr, /^Resuming the interrupted ingest into object "db": 6 of 6 tables kept \(\d+ rows\)\.$/m, `#${nth}: resumed`);
    t.notRegex(again.stderr, /starts over/, `#${nth}`);
    const got = await objectState(root, 'db');
    t.is(got?.versions, 1);
    t.true(got !== undefined && sameState(got.state, ref.state), `#${nth}: the same state`);
    t.deepEqual(workspaceLeftovers(root), [], `#${nth}: nothing left in the workspace`);
  }
});

test.serial('ingest: killed just after its commit, the next run says it was committed and makes no second version', async (t) => {
  const ref = await referenceObject();
  const root = await newRoot('committed');
  const first = await runCliToEnd(ingestArgs(root), { shell: "export SIARD_OCFL_FAILPOINT='ingest-committed'" });
  t.is(first.signal, 'SIGKILL', first.stderr);
  const committed = await objectState(root, 'db');
  t.true(committed !== undefined && sameState(committed.state, ref.state), 'the object is whole');
  t.is(journaledTables(root), 6, 'the work is still there');
  // repair calls it what it is: committed work whose removal was cut short, not work to resume
  const repaired = await runCliToEnd(['repair', '--root', root]);
  t.is(repaired.code, 0, repaired.stdout + repaired.stderr);
  t.regex(
    repaired.stdout,
    new RegExp(
      'kept: \\d+ bytes of the work of an ingest already committed as v1, stopped before it removed them \\(.*resume-[0-9a-f]{64}\\): ' +
        'nothing of it is to resume; the next ingest of the object removes it, and so does repair --discard-resumable\\.',
    ),
  );
  t.notRegex(repaired.stdout, /resumes it/);
  const repairedJson = JSON.parse((await runCliToEnd(['repair', '--root', root, '--json'])).stdout) as {
    objects: Array<{ id?: string; resumable?: { committedAs?: string } }>;
  };
  t.is(repairedJson.objects.find((o) => o.id === 'db')?.resumable?.committedAs, 'v1');
  t.is(journaledTables(root), 6, 'repair left the work');
  const again = await runCliToEnd(ingestArgs(root));
  t.is(again.code, 0, again.stderr);
  t.is(
    again.stderr,
    'note: The interrupted ingest into object "db" had been committed as v1 when it stopped; its work was removed.\n',
    'one sentence, no resume',
  );
  t.regex(again.stdout, /^Committed v1 of object "db" .*: 6 tables, \d+ rows,/);
  const got = await objectState(root, 'db');
  t.is(got?.versions, 1, 'no second version');
  t.true(got !== undefined && sameState(got.state, ref.state), 'the object unchanged');
  t.deepEqual(workspaceLeftovers(root), [], 'nothing left in the workspace');
  const valid = await runCliToEnd(['validate', root]);
  t.is(valid.code, 0, valid.stdout + valid.stderr);
  // and an ingest run after that is an ordinary one: the same database, no new version
  const third = await runCliToEnd(ingestArgs(root));
  t.is(third.code, 0, third.stderr);
  t.regex(third.stdout, /is unchanged, no new version/);
});

test.serial('ingest: killed before its first table or cut was journaled, the next run says that it starts over', async (t) => {
  const ref = await referenceObject();
  const root = await newRoot('no-durable-point');
  // the first table's LOB files written, its end not yet durable: the journal has no table line and no cut
  const first = await runCliToEnd(ingestArgs(root), { shell: "export SIARD_OCFL_FAILPOINT='export-before-journal-line'" });
  t.is(first.signal, 'SIGKILL', first.stderr);
  const journal = journalOf(root);
  t.truthy(journal, 'the work is there');
  t.false(/^\{"(table|batch)"/m.test(readFileSync(journal!, 'utf8')), 'no table line, no cut line');
  const lobFiles = readdirSync(path.dirname(path.dirname(journal!)), { recursive: true, withFileTypes: true }).filter(
    (e) => e.isFile() && /\.(bin|txt)$/.test(e.name),
  );
  t.true(lobFiles.length > 0, 'LOB files were written');
  const again = await runCliToEnd(ingestArgs(root, ['--json']));
  t.is(again.code, 0, again.stderr);
  const sentence = new RegExp(
    'The interrupted ingest of "db" in .*resume-[0-9a-f]{64} had made none of its work durable yet \\(no finished table, no cut ' +
      'inside the table in progress\\), so nothing of it could be kept: it starts over\\.',
  );
  t.regex(again.stderr, new RegExp(`^note: ${sentence.source}$`, 'm'));
  t.notRegex(again.stderr, /Resuming/);
  const notes = (JSON.parse(again.stdout) as { notes: string[] }).notes;
  t.true(
    notes.some((n) => sentence.test(n)),
    `--json's notes say it: ${JSON.stringify(notes)}`,
  );
  const got = await objectState(root, 'db');
  t.is(got?.versions, 1);
  t.true(got !== undefined && sameState(got.state, ref.state), 'the object of an uninterrupted run');
  t.deepEqual(workspaceLeftovers(root), [], 'nothing left in the workspace');
});

/** A root whose ingest of "db" was killed after two finished tables. */
async function interrupted(name: string, extra: string[] = []): Promise<string> {
  const root = await newRoot(name);
  const r = await killed(ingestArgs(root, extra), root, { tables: 2 });
  if (r.signal !== 'SIGKILL' || journaledTables(root) < 2) throw new Error(`the ingest was not interrupted after two tables: ${r.stderr}`);
  return root;
}

test.serial('ingest: --restart throws the interrupted work away, saying so; other options and another id are not a resume', async (t) => {
  const ref = await referenceObject();
  const root = await interrupted('restart');
  const r = await runCliToEnd(ingestArgs(root, ['--restart']));
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /interrupted ingest of "db" in .* \(\d+ tables\) was removed \(--restart\)/);
  t.notRegex(r.stderr, /Resuming/);
  t.true(sameState((await objectState(root, 'db'))!.state, ref.state));

  const other = await interrupted('other-options');
  const o = await runCliToEnd(ingestArgs(other, ['--inline-max', '3000']));
  t.is(o.code, 0, o.stderr);
  t.regex(o.stderr, /made from another source or with other options; its \d+ finished tables were removed/);
  t.notRegex(o.stderr, /Resuming/);

  const otherId = await interrupted('other-id');
  const d = await runCliToEnd(ingestArgs(otherId, [], 'db2'));
  t.is(d.code, 0, d.stderr);
  t.regex(d.stderr, /The interrupted ingest of .* into object "db" was removed \(this ingest of it goes into "db2"\)\./);
  t.notRegex(d.stderr, /Resuming/);
  t.true(sameState((await objectState(otherId, 'db2'))!.state, ref.state));
  t.deepEqual(
    workspaceLeftovers(otherId).filter((n) => !n.startsWith('locks/')),
    [],
    "the other id's work is gone (the killed writer's lock stays for repair)",
  );
});

test.serial('ingest: repair keeps the work of a killed ingest and says how to remove it; --discard-resumable removes it', async (t) => {
  const ref = await referenceObject();
  const root = await interrupted('repair');
  const kept = await runCliToEnd(['repair', '--root', root]);
  t.is(kept.code, 0, kept.stdout + kept.stderr);
  t.regex(
    kept.stdout,
    new RegExp(
      'kept: \\d+ bytes of resumable work of an interrupted ingest \\(.*resume-[0-9a-f]{64}\\): ' +
        'the same ingest run again resumes it; repair --discard-resumable removes it\\.',
    ),
  );
  const again = await runCliToEnd(ingestArgs(root));
  t.is(again.code, 0, again.stderr);
  t.regex(again.stderr, /^Resuming the interrupted ingest into object "db": \d+ of 6 tables kept \(\d+ rows\), going on with /m);
  t.true(sameState((await objectState(root, 'db'))!.state, ref.state));

  // killed with its LOB folders moved into the stage: repair gives them back to the work before it removes the stage
  const adopted = await newRoot('repair-adopted');
  const first = await runCliToEnd(ingestArgs(adopted), { shell: "export SIARD_OCFL_FAILPOINT='after-root-inventory-staged'" });
  t.is(first.signal, 'SIGKILL', first.stderr);
  const repaired = await runCliToEnd(['repair', '--root', adopted]);
  t.is(repaired.code, 0, repaired.stdout + repaired.stderr);
  t.regex(repaired.stdout, /removed the staging folder/);
  t.regex(repaired.stdout, /kept: \d+ bytes of resumable work of an interrupted ingest/);
  const resumed = await runCliToEnd(ingestArgs(adopted));
  t.is(resumed.code, 0, resumed.stderr);
  t.regex(resumed.stderr, /^Resuming the interrupted ingest into object "db": 6 of 6 tables kept \(\d+ rows\)\.$/m);
  t.true(sameState((await objectState(adopted, 'db'))!.state, ref.state));

  const discard = await interrupted('discard');
  const removed = await runCliToEnd(['repair', '--root', discard, '--discard-resumable']);
  t.is(removed.code, 0, removed.stdout + removed.stderr);
  t.regex(removed.stdout, /removed an interrupted ingest's resumable work .*resume-[0-9a-f]{64}/);
  t.deepEqual(
    readdirSync(defaultWorkspaceDir(discard)).filter((n) => n.startsWith('resume-')),
    [],
  );
  const fresh = await runCliToEnd(ingestArgs(discard));
  t.is(fresh.code, 0, fresh.stderr);
  t.notRegex(fresh.stderr, /Resuming/);
});

test.serial(
  'ingest: each kept LOB file is proved by one digest against its journal line, which holds the manifest digest; a changed one is refused',
  async (t) => {
    const ref = await referenceObject();
    const root = await interrupted('damaged');
    const journal = journalOf(root)!;
    const lobs = readFileSync(journal, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{"lob"'))
      .map((l) => (JSON.parse(l) as { lob: [string, number, string, Record<string, string>?] }).lob);
    t.true(lobs.length > 0);
    // the manifest digest journaled with each LOB file is the one the direct ingest's object holds for it
    for (const [relPath, , , also] of lobs) t.is(also?.sha512, ref.state.get(relPath), relPath);
    const [relPath] = lobs[0]!;
    const file = path.join(path.dirname(path.dirname(journal)), ...relPath.split('/'));
    const body = readFileSync(file);
    body[0] = body[0]! ^ 0xff;
    writeFileSync(file, body);
    const r = await runCliToEnd(ingestArgs(root));
    t.is(r.code, 0, r.stderr);
    t.regex(
      r.stderr,
      new RegExp(`cannot be resumed: the LOB file ${relPath.replace(/[.]/g, '\\.')} is not what the journal recorded .* It starts over\\.`),
    );
    t.notRegex(r.stderr, /Resuming/);
    t.true(sameState((await objectState(root, 'db'))!.state, ref.state));
  },
);

test.serial('ingest: repair beside a living ingest (stopped mid-table) reports its lock and leaves its work alone', async (t) => {
  const ref = await referenceObject();
  const root = await newRoot('living');
  const child = startCli(ingestArgs(root));
  while (journaledTables(root) < 2) await new Promise((r) => setTimeout(r, 3));
  process.kill(child.pid, 'SIGSTOP');
  try {
    const r = await runCliToEnd(['repair', '--root', root, '--discard-resumable']);
    t.is(r.code, 2, r.stdout + r.stderr);
    t.regex(r.stdout, /a writer holds its lock/);
    t.regex(r.stdout, /kept: \d+ bytes of resumable work of the ingest at work .*; once it stops, --discard-resumable removes it\./);
    t.true(journaledTables(root) >= 2, 'its work is still there');
  } finally {
    process.kill(child.pid, 'SIGCONT');
  }
  const done = await child.done;
  t.is(done.code, 0, done.stderr);
  t.true(sameState((await objectState(root, 'db'))!.state, ref.state));
});

tmpfsTest('ingest: a full filesystem stops it in one sentence keeping the finished tables; with space freed it resumes', async (t) => {
  const ref = await referenceObject();
  const mnt = mountTmpfs('siard-ocfl-resume-ingest-enospc-', '2m');
  t.truthy(mnt, 'a 2 MiB tmpfs is mounted');
  const root = path.join(mnt!, 'root');
  // by the command line: a root made in this process would keep a descriptor on the mount (syncfs)
  t.is((await runCliToEnd(['init', root])).code, 0);
  const full = await runCliToEnd(ingestArgs(root));
  t.is(full.code, 2, full.stderr);
  t.regex(full.stderr, /no space left|ENOSPC/i);
  t.regex(full.stderr, /The tables finished so far are kept: run the same ingest again to resume it\.\n$/);
  t.is(full.stderr.trim().split('\n').length, 1, 'one line, no stack trace');
  t.true(journaledTables(root) >= 1, 'tables were finished before the disk was full');
  t.is(await objectState(root, 'db'), undefined, 'nothing in the root');
  execFileSync('mount', ['-o', 'remount,size=32m', mnt!]);
  const again = await runCliToEnd(ingestArgs(root));
  t.is(again.code, 0, again.stderr);
  t.regex(again.stderr, /^Resuming the interrupted ingest into object "db"/m);
  t.true(sameState((await objectState(root, 'db'))!.state, ref.state));
  t.deepEqual(workspaceLeftovers(root), []);
});
