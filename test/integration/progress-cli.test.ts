/**
 * The progress line of the long verbs (issue 14, point 2), seen as a user sees it: the command
 * runs under a real pseudo-terminal (util-linux `script`), and the line it draws on stderr is
 * read back from the terminal's output. On a pipe or with --json nothing of it may appear.
 */
import test from 'ava';
import Database from '../../src/sources/sqlite/driver.js';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { BIN, runCli } from '../helpers/cli.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const hasScript = spawnSync('script', ['--version']).status === 0;
const ptyTest = hasScript ? test.serial : test.skip;

const USER = ['--user-name', 'Tester', '--user-address', 'mailto:t@example.org'];
const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

interface PtyRun {
  code: number;
  raw: string;
  /** every line drawn, escape sequences removed (a redraw starts at column 1 or after \r) */
  lines: string[];
  /** redraws of the progress line (cursor to column 1) */
  redraws: number;
  seconds: number;
}

/**
 * Runs the CLI with stdin, stdout and stderr on a pseudo-terminal `cols` wide; `tail` is appended to the shell command
 * (e.g. `2>&1 | cat`).
 */
function onPty(args: string[], options: { cols?: number; tail?: string } = {}): Promise<PtyRun> {
  const cmd =
    `stty cols ${options.cols ?? 200} rows 40; ` +
    `exec ${sh(process.execPath)} ${sh(BIN)} ${args.map(sh).join(' ')} ${options.tail ?? ''}`;
  const env = { ...process.env };
  delete env.CI; // the line is off under CI; here it is what is tested
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn('script', ['-q', '-e', '-c', cmd, '/dev/null'], { cwd: PROJECT_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let raw = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (raw += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (raw += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const lines = raw
        .split(/\r|\n|\x1b\[1G/)
        .map((l) => l.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b[78]/g, '').trimEnd())
        .filter((l) => l !== '');
      resolve({ code: code ?? 1, raw, lines, redraws: raw.split('\x1b[1G').length - 1, seconds: (Date.now() - started) / 1000 });
    });
    child.stdin.end();
  });
}

/** The last rendered progress line starting with `label`. */
function lastLine(t: { fail(m: string): void }, run: PtyRun, label: string): string {
  const drawn = run.lines.filter((l) => l.startsWith(label));
  if (drawn.length === 0) {
    t.fail(`no progress line "${label} ..." on the terminal; it showed:\n${run.lines.join('\n')}`);
    return '';
  }
  return drawn.at(-1)!;
}

const BYTES = String.raw`\d+(?:\.\d+)? (?:B|kB|MB|GB)`;
const RATE = new RegExp(String.raw`  ${BYTES}/s  `);
const TIME = /elapsed \d+s/;

function sized(n: number): string {
  // the CLI's formatBytes, re-stated: decimal units, three significant figures
  const units = ['B', 'kB', 'MB', 'GB'];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return i === 0 ? `${n} B` : `${v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0)} ${units[i]}`;
}

/** A database of `rows` rows, each with a LOB of `size` bytes (stored as a file: above inline-max). */
function lobDatabase(file: string, rows: number, size: number): void {
  const db = new Database(file);
  db.exec('CREATE TABLE docs (id INTEGER PRIMARY KEY, title TEXT, body BLOB)');
  const insert = db.prepare('INSERT INTO docs VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= rows; i++) insert.run(i, `document ${i}`, randomBytes(size));
  })();
  db.close();
}

const dir = tempDir('siard-ocfl-progress-');
const db = path.join(dir, 'docs.db');
const root = path.join(dir, 'root');
const ID = 'urn:example:progress';
lobDatabase(db, 400, 5000);

test.before(async () => {
  const init = await runCli(['init', '--root', root]);
  if (init.code !== 0) throw new Error(init.stderr);
});

ptyTest(
  "ingest on a terminal: one line with bytes written, a rate, elapsed time and rows of the total; the final figures are the version's",
  async (t) => {
    const run = await onPty(['ingest', db, '--root', root, '--id', ID, ...USER]);
    t.is(run.code, 0, run.raw);
    const line = lastLine(t, run, `ingest ${ID}`);
    t.regex(line, new RegExp(BYTES));
    t.regex(line, RATE);
    t.regex(line, TIME);
    t.regex(line, / {2}400\/400 rows {2}/);
    // bytes written = the bytes of the version (the .siard and 400 LOB files), as the JSON summary says
    const log = await runCli(['ingest', db, '--root', root, '--id', ID, '--json', '--allow-unchanged', ...USER]);
    const bytes = (JSON.parse(log.stdout) as { bytes: number }).bytes;
    t.true(line.includes(`  ${sized(bytes)}  `), `${line} should show ${sized(bytes)} written`);
    // the line is drawn over itself, never scrolled: every redraw starts at column 1
    t.false(run.raw.includes(`\n${`ingest ${ID}`}`), 'the progress line must not be printed on new lines');
  },
);

ptyTest('a received .siard package: bytes of the total and files', async (t) => {
  const out = path.join(dir, 'export-pkg');
  t.is((await runCli(['export', db, out])).code, 0);
  const run = await onPty(['ingest', path.join(out, 'docs.siard'), '--root', root, '--id', `${ID}:pkg`, ...USER]);
  t.is(run.code, 0, run.raw);
  const line = lastLine(t, run, `ingest ${ID}:pkg`);
  t.regex(line, new RegExp(String.raw`100%  (${BYTES})/\1  `));
  t.regex(line, RATE);
  t.regex(line, / {2}402\/402 files {2}/);
});

ptyTest('export on a terminal: bytes written, rate, elapsed, rows', async (t) => {
  const run = await onPty(['export', db, path.join(dir, 'export-pty')]);
  t.is(run.code, 0, run.raw);
  const line = lastLine(t, run, 'export docs');
  t.regex(line, new RegExp(`  ${BYTES}  `));
  t.regex(line, RATE);
  t.regex(line, TIME);
  t.regex(line, / {2}400\/400 rows {2}/);
});

ptyTest(
  'restore, validate, audit, checkout, relocate, put on a terminal: each one line with bytes and their rate (restore: rows and ' +
    'their rate), time and its count',
  async (t) => {
    await runCli(['ingest', db, '--root', root, '--id', `${ID}:verbs`, ...USER]);
    const objectRoot = path.join(root, (await runCli(['path', `${ID}:verbs`, '--root', root])).stdout.trim());
    const checks: Array<[string, string[], string, RegExp]> = [
      [
        'restore',
        ['restore', '--root', root, '--id', `${ID}:verbs`, path.join(dir, 'restored.db')],
        `restore ${path.join(dir, 'restored.db')}`,
        / {2}400\/400 rows {2}/,
      ],
      // one object: its content bytes hashed of the total, and files
      [
        'validate object',
        ['validate', objectRoot],
        `validate ${objectRoot}`,
        new RegExp(String.raw`100%  (${BYTES})/\1  .*  402/402 files  `),
      ],
      // a storage root: bytes hashed, objects done of those found
      ['validate root', ['validate', root], `validate ${root}`, / {2}\d\/\d objects {2}/],
      ['audit', ['audit', '--root', root, '--id', `${ID}:verbs`], 'audit', new RegExp(String.raw`100%  (${BYTES})/\1  .*  1/1 objects  `)],
      [
        'checkout',
        ['checkout', '--root', root, '--id', `${ID}:verbs`, path.join(dir, 'copy')],
        `checkout ${ID}:verbs v1`,
        new RegExp(String.raw`100%  (${BYTES})/\1  .*  402/402 files  `),
      ],
      [
        'relocate',
        ['relocate', '--root', root, '--id', `${ID}:verbs`, '--lob-folder', 'file:///Archives/Docs/', ...USER],
        `relocate ${ID}:verbs`,
        new RegExp(String.raw`100%  (${BYTES})/\1  .*  1/1 archives  `),
      ],
      [
        'put',
        ['put', '--root', root, '--id', `${ID}:put`, path.join(dir, 'copy'), ...USER],
        `put ${ID}:put`,
        new RegExp(String.raw`100%  (${BYTES})/\1  .*  402/402 files  `),
      ],
    ];
    for (const [verb, args, label, count] of checks) {
      const run = await onPty(args);
      t.is(run.code, 0, `${verb}: ${run.raw}`);
      const line = lastLine(t, run, label);
      if (verb === 'restore') {
        // bytes unknown: the rows are the figure and the rate
        t.regex(line, / {2}[\d,]+ rows\/s/, line);
        t.notRegex(line, /B\/s/, line);
      } else {
        t.regex(line, new RegExp(BYTES), verb);
        t.regex(line, RATE, verb);
      }
      t.regex(line, TIME, verb);
      t.regex(line, count, `${verb}: ${line}`);
    }
  },
);

ptyTest('nothing of the line with --json, or when stderr is a pipe, though the terminal is there', async (t) => {
  const json = await onPty(['ingest', db, '--root', root, '--id', `${ID}:json`, '--json', ...USER]);
  t.is(json.code, 0, json.raw);
  t.true(json.raw.includes('"version"'), 'the JSON summary is printed');
  t.false(json.raw.includes('\x1b[1G'), 'no redraw with --json');
  t.false(/ rows |B\/s|elapsed/.test(json.raw), json.raw);

  const piped = await onPty(['ingest', db, '--root', root, '--id', `${ID}:pipe`, ...USER], { tail: '2>&1 | cat' });
  t.is(piped.code, 0, piped.raw);
  t.true(piped.raw.includes('Committed v1'), 'the summary is printed');
  t.false(piped.raw.includes('\x1b[1G'), 'no redraw on a pipe');
  t.false(/B\/s|elapsed/.test(piped.raw), piped.raw);

  const exported = await onPty(['export', db, path.join(dir, 'export-pipe')], { tail: '2>/dev/null' });
  t.is(exported.code, 0);
  t.false(/B\/s|elapsed/.test(exported.raw), exported.raw);
});

ptyTest('a narrow terminal: every drawn line fits its width and keeps the figures (the label gives way)', async (t) => {
  const run = await onPty(['ingest', db, '--root', root, '--id', `${ID}:a-rather-long-object-identifier-that-does-not-fit`, ...USER], {
    cols: 72,
  });
  t.is(run.code, 0, run.raw);
  const drawn = run.lines.filter((l) => l.includes('elapsed'));
  t.true(drawn.length > 0, run.raw);
  for (const l of drawn) t.true([...l].length < 72, `${[...l].length} columns: ${l}`);
  t.regex(drawn.at(-1)!, /^ingest urn:example.*… {2}.*400\/400 rows {2}elapsed \d+s/);
});

ptyTest('throttled: thousands of small LOBs cost at most ten redraws a second, not one each', async (t) => {
  const many = path.join(dir, 'many.db');
  lobDatabase(many, 3000, 2100);
  const run = await onPty(['ingest', many, '--root', root, '--id', `${ID}:many`, ...USER]);
  t.is(run.code, 0, run.raw);
  t.regex(lastLine(t, run, `ingest ${ID}:many`), /3,000\/3,000 rows/);
  // cli-progress redraws on a 100 ms timer; a redraw per row or LOB would be 3000 or more.
  t.true(run.redraws <= run.seconds * 10 + 5, `${run.redraws} redraws in ${run.seconds} s`);
});
