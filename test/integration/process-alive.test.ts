/**
 * processAlive (src/process-alive.ts), which decides whether a lock's holder or the owner of an
 * export's staging folder still runs: a killed process that its parent has not reaped (a zombie)
 * is not running. It answered "alive" for zombies before, so in a container whose PID 1 reaps
 * nothing a killed export was never resumed and its staging folder stayed.
 */
import test from 'ava';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { processAlive } from '../../src/process-alive.js';
import Database from '../../src/sources/sqlite/driver.js';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const linux = existsSync('/proc/self/stat');

(linux ? test : test.skip)('a zombie is not alive; its running parent, this process and a free pid are told right', async (t) => {
  // sh forks `sleep 0.1`, prints its pid and becomes `sleep 30`, which never waits: the child stays a zombie
  const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const childPid = await new Promise<number>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
    const state = () =>
      readFileSync(`/proc/${childPid}/stat`, 'utf8')
        .replace(/^.*\) /s, '')
        .charAt(0);
    for (let i = 0; i < 100 && state() !== 'Z'; i++) await sleep(20);
    t.is(state(), 'Z', 'the child became a zombie');
    t.false(processAlive(childPid));
    t.true(processAlive(parent.pid!));
    t.true(processAlive(process.pid));
    t.true(processAlive(1));
  } finally {
    parent.kill('SIGKILL');
  }
  await new Promise((resolve) => parent.once('exit', resolve));
  t.false(processAlive(parent.pid!), 'a reaped process is gone');
});

/** The finished tables the journal of an out-dir's staging folder records. */
function journaledTables(out: string): number {
  const staging = existsSync(out) ? readdirSync(out).find((n) => n.startsWith('.siard-ocfl-export-')) : undefined;
  const journal = staging && path.join(out, staging, '.resume', 'journal.jsonl');
  return journal && existsSync(journal)
    ? readFileSync(journal, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{"table"')).length
    : 0;
}

(linux ? test : test.skip)('an export killed and left a zombie by a parent that never waits is resumed by the next run', async (t) => {
  const dir = tempDir('siard-ocfl-zombie-');
  const db = new Database(path.join(dir, 'db.sqlite'));
  for (let k = 0; k < 8; k++) {
    db.exec(`CREATE TABLE t${k} (id INTEGER PRIMARY KEY, v TEXT)`);
    const insert = db.prepare(`INSERT INTO t${k} VALUES (?, ?)`);
    db.transaction(() => {
      for (let i = 0; i < 40_000; i++) insert.run(i, `row ${i} of table ${k} `.repeat(3));
    })();
  }
  db.close();
  const out = path.join(dir, 'out');
  const args = ['export', `sqlite:${path.join(dir, 'db.sqlite')}`, out, '--name', 'db'];
  // sh starts the export, prints its pid and becomes `sleep 60`, which never reaps it
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
  const parent = spawn('sh', ['-c', `${quoted} >/dev/null 2>&1 & echo $!; exec sleep 60`], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const exportPid = await new Promise<number>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
    for (let i = 0; i < 3000 && journaledTables(out) < 2; i++) await sleep(5);
    process.kill(exportPid, 'SIGKILL');
    for (let i = 0; i < 100 && processAlive(exportPid); i++) await sleep(20);
    t.true(journaledTables(out) >= 2, 'killed after two finished tables');
    t.false(processAlive(exportPid), 'the killed export, a zombie, is not alive');
    const again = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
    t.is(again.status, 0, again.stderr);
    t.regex(again.stderr, /^Resuming the interrupted export of "db" in .*: [2-8] of 8 tables kept/m);
    const report = execFileSync(process.execPath, [BIN, 'check', path.join(out, 'db.siard'), '--json'], { encoding: 'utf8' });
    t.true((JSON.parse(report) as { ok: boolean }).ok, 'the resumed archive is conformant');
    t.deepEqual(
      readdirSync(out).filter((n) => n.startsWith('.')),
      [],
      "no staging folder left: the zombie's was taken and finished",
    );
  } finally {
    parent.kill('SIGKILL');
  }
});

if (!linux) test('process-alive: zombies are told only where /proc is (Linux); skipped here', (t) => t.pass());
