/**
 * Issue 13, point 1: SQLite data as it really is. Columns whose values do not fit their declared
 * type (a BLOB column holding some text, an untyped column of mixed values, a key/value table, a
 * DATE holding '15/03/1977', an INTEGER holding 'n/a') export by default, each reported once with
 * the first row that does not fit, and restore with every value and its storage class, compared
 * through python3's sqlite3 (typeof() and the value, reals by their exact hex form). `--strict`
 * refuses, listing every such column at once with its row.
 * Point 2: table selection errors, schema-qualified names, --exclude-tables.
 */
import test from 'ava';
import Database from '../../src/sources/sqlite/driver.js';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { reference, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';
import { assertArchiveValid, metadataTables, unzipEntry } from '../helpers/export-support.js';

const work = tempDir('siard-dynamic-types-');
const db = path.join(work, 'real.db');

/** Rows at which the odd values sit (1-based, rowid order): what the reports must name. */
const ODD = { scan: 42, payload: 42, settings: 2, born: 3, n: 4 };

{
  const c = new Database(db);
  c.exec(`
    CREATE TABLE "Scanned Document" (id INTEGER PRIMARY KEY, title TEXT, content BLOB);
    CREATE TABLE event_log (id INTEGER PRIMARY KEY, payload);
    CREATE TABLE settings (key TEXT, value);
    CREATE TABLE people (id INTEGER PRIMARY KEY, born DATE, n INTEGER);
  `);
  const scan = c.prepare('INSERT INTO "Scanned Document" VALUES (?, ?, ?)');
  for (let i = 1; i <= 60; i++) {
    let content: unknown = Buffer.alloc(i % 7 === 0 ? 5000 : 40, i); // some above the inline limit
    if (i === ODD.scan) content = 'OCR pending';
    if (i === 50) content = "a long text that goes to a file, it's " + 'x'.repeat(3000);
    if (i === 55) content = null;
    scan.run(i, `doc ${i}`, content);
  }
  const ev = c.prepare('INSERT INTO event_log VALUES (?, ?)');
  for (let i = 1; i < ODD.payload; i++) ev.run(i, i % 5 === 0 ? i + 0.25 : BigInt(i));
  ev.run(ODD.payload, '{"event":"login"}');
  ev.run(ODD.payload + 1, Buffer.from([0, 255, 39]));
  ev.run(ODD.payload + 2, '42'); // text that looks like a number stays text
  ev.run(ODD.payload + 3, 3.0); // a real that looks like an integer stays real
  ev.run(ODD.payload + 4, 9223372036854775807n);
  ev.run(ODD.payload + 5, -0.1 + 0.2);
  ev.run(ODD.payload + 6, null);
  ev.run(ODD.payload + 7, '');
  ev.run(ODD.payload + 8, Buffer.alloc(0));
  ev.run(ODD.payload + 9, "quote ' and \u0001 control");
  const st = c.prepare('INSERT INTO settings VALUES (?, ?)');
  st.run('theme', 'dark');
  st.run('retries', 3n);
  st.run('ratio', 0.5);
  st.run('port', '8080');
  st.run('icon', Buffer.from('PNG'));
  c.exec(
    `INSERT INTO people VALUES (1, '1977-03-15', 1), (2, '1980-01-02', 2), (3, '15/03/1977', 3), (4, '2001-09-09', 'n/a'), (5, NULL, 7)`,
  );
  c.close();
}

interface Dumped {
  [table: string]: Array<Array<[string, string | null]>>;
}

/** Every cell as (typeof, exact value) through python3's own sqlite3 module. */
function pythonDump(file: string): Dumped {
  const script = `
import json, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
out = {}
for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
    cols = [r[1] for r in con.execute('PRAGMA table_info("%s")' % name.replace('"', '""'))]
    sel = ', '.join('typeof("%s"), "%s"' % (c, c) for c in cols)
    rows = []
    for r in con.execute('SELECT %s FROM "%s" ORDER BY rowid' % (sel, name.replace('"', '""'))):
        cells = []
        for i in range(len(cols)):
            t, v = r[2 * i], r[2 * i + 1]
            cells.append([t, None if v is None else v.hex() if isinstance(v, (bytes, float)) else str(v)])
        rows.append(cells)
    out[name] = rows
print(json.dumps(out))
`;
  return JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' })) as Dumped;
}

sharedTest.serial(
  'odd columns export by default, each reported once with its first odd row, and restore with every storage class',
  async (t) => {
    const out = path.join(work, 'out');
    const exp = await runCli(['export', db, out, '--json']);
    t.is(exp.code, 0, exp.stderr);
    const report = JSON.parse(exp.stdout) as {
      tables: number;
      widened: Array<{ table: string; column: string; firstRow: number; exportedAs: string; message: string }>;
    };
    t.is(report.tables, 4);
    const widened = new Map(report.widened.map((w) => [`${w.table}.${w.column}`, w]));
    t.deepEqual([...widened.keys()].sort(), ['Scanned Document.content', 'event_log.payload', 'people.born', 'people.n', 'settings.value']);
    t.is(widened.get('Scanned Document.content')!.firstRow, ODD.scan);
    t.is(widened.get('event_log.payload')!.firstRow, ODD.payload);
    t.is(widened.get('settings.value')!.firstRow, ODD.settings);
    t.is(widened.get('people.born')!.firstRow, ODD.born);
    t.is(widened.get('people.n')!.firstRow, ODD.n);
    for (const w of widened.values())
      t.regex(w.message, new RegExp(`Table "${w.table}", column "${w.column}" .*first at row ${w.firstRow}`));

    // The human output has one line per widened column too.
    const plain = await runCli(['export', db, path.join(work, 'out-plain')]);
    t.is(plain.code, 0, plain.stderr);
    const lines = plain.stdout.split('\n').filter((l) => l.startsWith('widened: '));
    t.is(lines.length, 5);
    t.true(lines.some((l) => l.includes('"Scanned Document", column "content" (declared BLOB)') && l.includes(`first at row ${ODD.scan}`)));
    t.true(lines.some((l) => l.includes('"people", column "born" (declared DATE)') && l.includes(`first at row ${ODD.born}`)));

    const siard = path.join(out, 'real.siard');
    assertArchiveValid(t, siard, reference('siard', 'metadata.xsd'));
    const meta = unzipEntry(siard, 'header/metadata.xml').toString('utf8');
    const cols = new Map(metadataTables(meta).flatMap((tb) => tb.columns.map((c) => [`${tb.name}.${c.name}`, c] as const)));
    t.is(cols.get('Scanned Document.content')!.type, 'CLOB');
    t.is(cols.get('event_log.payload')!.type, 'CLOB');
    t.is(cols.get('settings.value')!.type, 'CLOB');
    // the mixed columns say how their cells are written, and keep the declared type
    t.regex(
      meta,
      new RegExp(
        String.raw`<name>content<\/name>\s*(<lobFolder>[^<]*<\/lobFolder>\s*)?<type>CLOB<\/type>\s*<mimeType>` +
          String.raw`text\/x-sqlite-literal<\/mimeType>\s*<typeOriginal>BLOB<\/typeOriginal>`,
      ),
    );
    t.regex(
      meta,
      /<name>payload<\/name>\s*<type>CLOB<\/type>\s*<mimeType>text\/x-sqlite-literal<\/mimeType>\s*<typeOriginal><\/typeOriginal>/,
    );
    t.regex(
      meta,
      new RegExp(
        String.raw`<name>value<\/name>[\s\S]*?<description>SQLite column holding integers, reals, text and blobs: ` +
          String.raw`every value is written as its SQLite literal`,
      ),
    );

    const restored = path.join(work, 'restored.db');
    const res = await runCli(['restore', siard, restored, '--json']);
    t.is(res.code, 0, res.stderr);
    const before = pythonDump(db);
    const after = pythonDump(restored);
    t.deepEqual(Object.keys(after), Object.keys(before));
    let cells = 0;
    for (const [table, rows] of Object.entries(before)) {
      t.is(after[table]!.length, rows.length, table);
      rows.forEach((row, r) =>
        row.forEach((cell, c) => {
          cells++;
          t.deepEqual(after[table]![r]![c], cell, `${table} row ${r + 1} column ${c + 1}`);
        }),
      );
    }
    t.true(cells > 200);
    // the fixture really holds every storage class in the mixed columns
    const classes = new Set(before['event_log']!.map((r) => r[1]![0]));
    t.deepEqual([...classes].sort(), ['blob', 'integer', 'null', 'real', 'text']);
  },
);

sharedTest.serial('--strict refuses, naming every odd column with its first odd row in one message; nothing is written', async (t) => {
  const out = path.join(work, 'strict-out');
  const res = await runCli(['export', db, out, '--strict']);
  t.is(res.code, 2, res.stderr);
  const message = res.stderr.trim();
  t.is(message.split('\n').length, 1, 'one sentence');
  t.regex(message, /refused 5 columns/);
  t.regex(message, new RegExp(`"Scanned Document", column "content" .*first at row ${ODD.scan}`));
  t.regex(message, new RegExp(`"event_log", column "payload" .*first at row ${ODD.payload}`));
  t.regex(message, new RegExp(`"settings", column "value" .*first at row ${ODD.settings}`));
  t.regex(message, new RegExp(`"people", column "born" .*first at row ${ODD.born}`));
  t.regex(message, new RegExp(`"people", column "n" .*first at row ${ODD.n}`));
  t.false(existsSync(out));
  // a database whose values all fit passes --strict
  const clean = path.join(work, 'clean.db');
  const c = new Database(clean);
  c.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT, b BLOB, u); INSERT INTO t VALUES (1, 'a', x'00', 1), (2, NULL, NULL, 2.5)");
  c.close();
  const ok = await runCli(['export', clean, path.join(work, 'clean-out'), '--strict', '--json']);
  t.is(ok.code, 0, ok.stderr);
  t.deepEqual((JSON.parse(ok.stdout) as { widened: unknown[] }).widened, []);
});

test.serial('ingest says the same as notes, and --strict refuses it before anything is stored', async (t) => {
  const root = path.join(work, 'root');
  t.is((await runCli(['init', root])).code, 0);
  const res = await runCli(['ingest', db, '--root', root, '--id', 'real', '--json']);
  t.is(res.code, 0, res.stderr);
  const notes = (JSON.parse(res.stdout) as { notes: string[] }).notes;
  t.true(
    notes.some((n) => /Table "event_log", column "payload" \(untyped\) .*first at row 42; exported as CLOB of SQLite literals\./.test(n)),
    notes.join('\n'),
  );
  t.is(notes.filter((n) => n.startsWith('Table ')).length, 5);
  const strict = await runCli(['ingest', db, '--root', root, '--id', 'strict', '--strict']);
  t.is(strict.code, 2);
  t.regex(strict.stderr, /Strict export refused 5 columns/);
  const listed = await runCli(['ls', '--root', root]);
  t.notRegex(listed.stdout, /strict/);
});

test.serial(
  'table selection: a pattern matching nothing is exit 2 naming it and the tables there are; schema-qualified names; --exclude-tables',
  async (t) => {
    const none = await runCli(['export', db, path.join(work, 'sel-none'), '--tables', 'nosuchtable']);
    t.is(none.code, 2);
    t.regex(
      none.stderr,
      /--tables "nosuchtable" matches no table; the database has main\.Scanned Document, main\.event_log, main\.settings, main\.people\./,
    );
    t.false(existsSync(path.join(work, 'sel-none')));
    const otherSchema = await runCli(['export', db, path.join(work, 'sel-a'), '--tables', 'a.items']);
    t.is(otherSchema.code, 2);
    t.regex(otherSchema.stderr, /--tables "a\.items" matches no table/);

    const qualified = await runCli(['export', db, path.join(work, 'sel-q'), '--tables', 'main.settings,peo*', '--json']);
    t.is(qualified.code, 0, qualified.stderr);
    const q = metadataTables(unzipEntry(path.join(work, 'sel-q', 'real.siard'), 'header/metadata.xml').toString('utf8')).map(
      (tb) => tb.name,
    );
    t.deepEqual(q, ['settings', 'people']);

    const excluded = await runCli(['export', db, path.join(work, 'sel-x'), '--exclude-tables', 'Scanned*,main.event_log']);
    t.is(excluded.code, 0, excluded.stderr);
    const x = metadataTables(unzipEntry(path.join(work, 'sel-x', 'real.siard'), 'header/metadata.xml').toString('utf8')).map(
      (tb) => tb.name,
    );
    t.deepEqual(x, ['settings', 'people']);

    const badExclude = await runCli(['export', db, path.join(work, 'sel-bx'), '--exclude-tables', 'setings']);
    t.is(badExclude.code, 2);
    t.regex(badExclude.stderr, /--exclude-tables "setings" matches no table/);
  },
);
