/**
 * Issue 13, point 4 for SQLite targets: a restore recreates what the archive holds and the target
 * can take (an SQLite archive's column defaults, CHECK constraints and views), and ends with one
 * summary of what it did not recreate: here the routines, privileges and foreign-dialect views of
 * a SIARD Suite sample (named from its metadata.xml, read with unzip), and always the indexes SIARD
 * does not carry.
 */
import Database from '../../src/sources/sqlite/driver.js';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { reference, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';
import { assertArchiveValid } from '../helpers/export-support.js';

const work = tempDir('siard-ocfl-schema-objects-');
const db = path.join(work, 'shop.db');

{
  const c = new Database(db);
  c.exec(`
    CREATE TABLE item (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL DEFAULT 'unnamed',
      qty INTEGER DEFAULT 0 CONSTRAINT qty_positive CHECK (qty >= 0),
      added TEXT DEFAULT (datetime('now')),
      price REAL DEFAULT 1.5,
      CHECK (length(name) < 20)
    );
    INSERT INTO item (id, name, qty) VALUES (1, 'bolt', 5), (2, 'nut', 12), (3, 'washer', 40);
    CREATE VIEW big_item AS SELECT id, name FROM item WHERE qty > 10;
    CREATE TABLE item_log (item INTEGER, note TEXT);
    CREATE TRIGGER item_added AFTER INSERT ON item BEGIN INSERT INTO item_log VALUES (new.id, 'added; ' || new.name); END;
    CREATE INDEX item_by_name ON item (name);
  `);
  // a row the source holds although it violates a check (checks were off when it went in)
  c.pragma('ignore_check_constraints = ON');
  c.exec(`INSERT INTO item (id, name, qty) VALUES (4, 'odd', -1)`);
  c.close();
}

sharedTest.serial(
  'an SQLite archive restores with its defaults, checks, views and triggers; a violating row is kept with a warning',
  async (t) => {
    const out = path.join(work, 'out');
    const exp = await runCli(['export', db, out, '--json']);
    t.is(exp.code, 0, exp.stderr);
    // an index SIARD cannot carry is named by the export; the trigger is in metadata.xml, valid
    t.deepEqual((JSON.parse(exp.stdout) as { notExported: string[] }).notExported, ['index item_by_name on item']);
    assertArchiveValid(t, path.join(out, 'shop.siard'), reference('siard', 'metadata.xsd'));
    const meta = execFileSync('unzip', ['-p', path.join(out, 'shop.siard'), 'header/metadata.xml'], { encoding: 'utf8' });
    t.regex(
      meta,
      new RegExp(
        String.raw`<trigger>\s*<name>item_added<\/name>\s*<actionTime>AFTER<\/actionTime>\s*<triggerEvent>` +
          String.raw`INSERT<\/triggerEvent>\s*<triggeredAction>CREATE TRIGGER item_added`,
      ),
    );
    const plainExport = await runCli(['export', db, path.join(work, 'out-plain')]);
    t.regex(plainExport.stdout, /not exported: index item_by_name on item\./);
    const restored = path.join(work, 'restored.db');
    const res = await runCli(['restore', path.join(out, 'shop.siard'), restored, '--json']);
    t.is(res.code, 0, res.stderr);
    const summary = JSON.parse(res.stdout) as { warnings: string[]; notRecreated: Array<{ kind: string; name: string; reason: string }> };
    t.deepEqual(
      summary.notRecreated.map((n) => n.kind),
      ['index'],
      'from SQLite into SQLite only the indexes SIARD does not carry are missing',
    );
    t.true(
      summary.warnings.some((w) => /Check constraint qty_positive of main\.item is declared, but 1 restored rows violate it/.test(w)),
      summary.warnings.join('\n'),
    );

    const src = new Database(db, { readonly: true });
    const dst = new Database(restored);
    try {
      const info = (d: Database.Database) => d.prepare(`SELECT name, type, "notnull", dflt_value FROM pragma_table_info('item')`).all();
      t.deepEqual(info(dst), info(src), 'declared types and defaults as in the source');
      const view = (d: Database.Database) => d.prepare('SELECT * FROM big_item ORDER BY id').all();
      t.deepEqual(view(dst), view(src));
      t.deepEqual(view(dst).length, 2);
      // the checks are enforced again, and defaults fill a new row as in the source
      t.throws(() => dst.prepare(`INSERT INTO item (id, name, qty) VALUES (9, 'x', -5)`).run(), {
        any: true,
        message: /CHECK constraint failed: qty_positive/,
      });
      t.throws(() => dst.prepare(`INSERT INTO item (id, name) VALUES (9, 'a name longer than twenty')`).run(), {
        any: true,
        message: /CHECK constraint failed/,
      });
      dst.prepare('INSERT INTO item (id) VALUES (10)').run();
      t.like(dst.prepare('SELECT name, qty, price FROM item WHERE id = 10').get() as object, { name: 'unnamed', qty: 0, price: 1.5 });
      // the trigger is back as it was stored, and fires
      const triggerSql = (d: Database.Database) => d.prepare(`SELECT sql FROM sqlite_master WHERE type = 'trigger'`).all();
      t.deepEqual(triggerSql(dst), triggerSql(src));
      t.deepEqual(dst.prepare('SELECT * FROM item_log WHERE item = 10').all(), [{ item: 10, note: 'added; unnamed' }]);
    } finally {
      src.close();
      dst.close();
    }
    // one summary line in the human output
    const plain = await runCli(['restore', path.join(out, 'shop.siard'), path.join(work, 'restored2.db')]);
    t.is(plain.code, 0, plain.stderr);
    t.is(plain.stdout.split('\n').filter((l) => l.startsWith('Not recreated:')).length, 1);
    t.regex(plain.stdout, /Not recreated: indexes other than primary and unique keys \(SIARD 2\.2 does not carry them\)\./);
  },
);

sharedTest.serial('a SIARD Suite sample into SQLite: its routines, privileges and views are listed, once, by name', async (t) => {
  const siard = reference('siard-samples', 'siardapi', 'sample.siard');
  const meta = execFileSync('unzip', ['-p', siard, 'header/metadata.xml'], { encoding: 'utf8' });
  // names as metadata.xml has them, read with a regex, not the project's reader
  const blocks = (tag: string) => [...meta.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1]!);
  const nameOf = (block: string) => /<name>([^<]*)<\/name>/.exec(block)![1]!;
  const routines = blocks('routine').map(nameOf);
  const views = blocks('view').map(nameOf);
  const privileges = blocks('privilege').length;
  t.true(routines.length > 0 && views.length > 0 && privileges > 0, 'the sample has all three');

  const res = await runCli(['restore', siard, path.join(work, 'sample.db'), '--json']);
  t.is(res.code, 0, res.stderr);
  const summary = JSON.parse(res.stdout) as { notRecreated: Array<{ kind: string; name: string; reason: string }> };
  const of = (kind: string) => summary.notRecreated.filter((n) => n.kind === kind);
  t.deepEqual(
    of('routine')
      .map((n) => n.name.split('.').pop())
      .sort(),
    [...routines].sort(),
  );
  t.deepEqual(
    of('view')
      .map((n) => n.name.split('.').pop())
      .sort(),
    [...views].sort(),
  );
  t.is(of('privilege').length, privileges);
  t.is(of('index').length, 1);
  for (const v of of('view')) t.regex(v.reason, /dialect|no query/);

  const plain = await runCli(['restore', siard, path.join(work, 'sample2.db')]);
  t.is(plain.code, 0, plain.stderr);
  const line = plain.stdout.split('\n').filter((l) => l.startsWith('Not recreated:'));
  t.is(line.length, 1);
  t.regex(line[0]!, new RegExp(`${routines.length} routines? \\(`));
  t.regex(line[0]!, new RegExp(`${views.length} views? \\(`));
});
