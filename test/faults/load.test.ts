/**
 * Issue 7, load: 8 processes ingest 8 different databases into one storage root while 4
 * processes relocate the same object, all started at once, for several rounds. Every process
 * finishes (exit 0) or stops with the lock error (exit 2, "being written by another process");
 * the root validates; no version is lost or duplicated: the relocated object has 1 + (successful
 * relocates) versions, each successful relocate's lobFolder in exactly one of them.
 */
import test from 'ava';
import path from 'node:path';
import { openRoot } from '../../src/ocfl/root.js';
import { tempDir } from '../helpers/tmp.js';
import { faultSeed, makeDatabase, objectState, runCliToEnd, startCli, workspaceLeftovers, type ChildResult } from './harness.js';

const SEED = faultSeed();
const ROUNDS = Number(process.env.LOAD_ROUNDS ?? 3);
const LOCK_ERROR = /being written by another process/;

test(`8 ingests into one root and 4 relocates of one object at once, ${ROUNDS} rounds`, async (t) => {
  t.log(`FAULT_SEED=${SEED}`);
  const base = tempDir('siard-ocfl-load-');
  const rootDir = path.join(base, 'root');
  t.is((await runCliToEnd(['init', rootDir])).code, 0);
  const dbs = Array.from({ length: 8 }, (_, k) =>
    makeDatabase(path.join(base, `db${k}.sqlite`), SEED + k, { lobs: 12, lobSize: 64 * 1024, inline: 200 }),
  );
  const target = 'urn:x-load:relocated';
  const first = await runCliToEnd(['ingest', `sqlite:${dbs[0]}`, '--root', rootDir, '--id', target]);
  t.is(first.code, 0, first.stderr);

  let relocatesOk = 0;
  let relocatesLocked = 0;
  let ingestsOk = 0;
  let ingestsLocked = 0;
  const succeededFolders: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // The same database each round: every ingest must make a version (--allow-unchanged), so versions count ingests.
    const ingests = dbs.map((db, k) => ({
      args: ['ingest', `sqlite:${db}`, '--root', rootDir, '--id', `urn:x-load:db${k}`, '--allow-unchanged'],
    }));
    const folders = Array.from({ length: 4 }, (_, k) => `file:///Archives/round-${round}/writer-${k}/`);
    const relocates = folders.map((f) => ({ args: ['relocate', '--root', rootDir, '--id', target, '--lob-folder', f] }));
    // Relocates first, so that they overlap each other as much as possible.
    const children = [...relocates, ...ingests].map((c) => startCli(c.args).done);
    const results: ChildResult[] = await Promise.all(children);
    results.slice(0, 4).forEach((r, k) => {
      if (r.code === 0) {
        relocatesOk++;
        succeededFolders.push(folders[k]!);
      } else {
        t.is(r.code, 2, `relocate: ${r.stderr}`);
        t.regex(r.stderr, LOCK_ERROR);
        relocatesLocked++;
      }
    });
    for (const r of results.slice(4)) {
      if (r.code === 0) ingestsOk++;
      else {
        t.is(r.code, 2, `ingest: ${r.stderr}`);
        t.regex(r.stderr, LOCK_ERROR);
        ingestsLocked++;
      }
    }
  }

  const validate = await runCliToEnd(['validate', rootDir]);
  t.is(validate.code, 0, validate.stdout);
  const relocated = (await objectState(rootDir, target))!;
  t.is(relocated.versions, 1 + relocatesOk, 'versions of the relocated object = 1 + successful relocates');
  const reader = await (await openRoot(rootDir)).openObject(target);
  const messages = reader.versions().map((v) => v.message ?? '');
  for (const folder of succeededFolders) t.is(messages.filter((m) => m.includes(folder)).length, 1, `${folder} in exactly one version`);
  // Each database object: as many versions as its successful ingests, none lost, none extra.
  let versions = 0;
  for (let k = 0; k < 8; k++) versions += (await objectState(rootDir, `urn:x-load:db${k}`))?.versions ?? 0;
  t.is(versions, ingestsOk);
  t.deepEqual(workspaceLeftovers(rootDir), []);
  const audit = await runCliToEnd(['audit', '--root', rootDir, '--no-xsd']);
  t.is(audit.code, 0, audit.stdout.slice(0, 1000));
  t.log(
    `${ROUNDS} rounds: relocates ${relocatesOk} committed, ${relocatesLocked} refused with the lock error; ingests ${ingestsOk} ` +
      `committed, ${ingestsLocked} refused`,
  );
  t.true(relocatesOk >= ROUNDS, 'at least one relocate per round commits');
});
