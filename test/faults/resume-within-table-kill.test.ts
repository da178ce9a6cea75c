/**
 * Issue 38: the table in progress goes on from its last durable cut (docs/resume.md). A SQLite
 * database whose two big tables dominate: `big` (260,000 rows, a BLOB in a file every 500th row:
 * the table is written again with settled types, streamed into the .siard) and `bare` (240,000
 * rows, no LOB file: provisional types, its data held back until it ends). `export` is SIGKILLed
 * inside one of them, at a cut (the run's k-th journaled cut, SIARD_OCFL_FAILPOINT=export-cut#k)
 * or at a random moment after its first cut, then run again: it says in its one line that it goes
 * on inside that table after the key of the journal's last cut line (the last row written before
 * it), and the out-dir then holds, byte for byte, what an uninterrupted export made. An `ingest`
 * killed inside `big` and run again gives the uninterrupted ingest's object. An export of a
 * WITHOUT ROWID table (36,000 rows, a composite primary key in a NOCASE collation) killed at its
 * second cut goes on after its key likewise.
 */
import test from 'ava';
import path from 'node:path';
import Database from '../../src/sources/sqlite/driver.js';
import { tempDir } from '../helpers/tmp.js';
import { faultSeed, prng, runCliToEnd, treeDigests } from './harness.js';
import { ingestKilledAndResumedInside, killedAndResumedInside, type KillPlan } from './within-table.js';

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

test.serial('export killed inside a big table goes on after its last cut, and the archive is the uninterrupted one', async (t) => {
  const refDir = path.join(base, 'ref');
  const ref = await runCliToEnd(exportArgs(refDir));
  t.is(ref.code, 0, ref.stderr);
  const refTree = treeDigests(refDir);
  const rand = prng(SEED ^ 0x7ab1e);
  const within = new Set<string>();
  // at big's second cut, then at random moments after a cut of bare, and after any first cut
  const plans: KillPlan[] = [{ cut: 2 }, { table: 'main.bare', thenMs: rand() * 200 }, { thenMs: rand() * 400 }];
  for (const [i, plan] of plans.entries()) {
    const out = path.join(base, `run-${i}`);
    const inside = await killedAndResumedInside(t, exportArgs(out), out, plan, refTree);
    if (inside) within.add(inside);
  }
  t.deepEqual([...within].sort(), ['main.bare', 'main.big'], 'resumed inside both ways of writing a table');
});

test.serial('ingest killed inside a big table goes on after its last cut, and the object is the uninterrupted one', async (t) => {
  await ingestKilledAndResumedInside(t, `sqlite:${dbFile}`, path.join(base, 'ingest'), 'main.big');
});

test.serial(
  'export killed inside a WITHOUT ROWID table goes on after its last cut (its composite primary key), equal to the uninterrupted one',
  async (t) => {
    const file = path.join(base, 'pk.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE pk (g INTEGER, s TEXT COLLATE NOCASE, note TEXT, PRIMARY KEY (g, s)) WITHOUT ROWID');
    db.transaction(() => {
      const ins = db.prepare('INSERT INTO pk VALUES (?, ?, ?)');
      for (let i = 1; i <= 36_000; i++) ins.run(i % 97, `Key ${i}`, `${i} ${'note '.repeat(160)}`);
    })();
    db.close();
    const args = (out: string) => ['export', `sqlite:${file}`, out, '--name', 'pk'];
    const refDir = path.join(base, 'pk-ref');
    t.is((await runCliToEnd(args(refDir))).code, 0);
    const out = path.join(base, 'pk-run');
    t.is(await killedAndResumedInside(t, args(out), out, { cut: 2 }, treeDigests(refDir)), 'main.pk');
  },
);
