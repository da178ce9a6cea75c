/**
 * diff (issue 34, point 3): two ingests of one small SQLite database, changed in between by known
 * keys, and what `diff` says of them.
 * - a table with a key: rows updated (a text, a LOB in a file), deleted and inserted, a column
 *   added: exactly those keys, each change with its columns, the column named once (not every row);
 * - a composite key; a table without key (multisets: one copy of two equal rows removed, a row
 *   added); a table only the second version has (every row added);
 * - files: exactly the logical paths whose digests differ between the two versions' states, read
 *   here from the object's inventory.json;
 * - the same rows in process from v2 to v1 with every unpaired row on disk (a tiny memory limit):
 *   added and removed swapped; an unknown version is exit 2, one sentence (with --json, the JSON error alone).
 */
import test from 'ava';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { diff } from '../../src/archive/diff/diff.js';
import type { TableDiff } from '../../src/archive/diff/table-diff.js';
import { ingest } from '../../src/archive/ingest.js';
import { loadLayout0003 } from '../../src/ocfl/layout/extensions.js';
import { initRoot, openRoot } from '../../src/ocfl/root.js';
import Database from '../../src/sources/sqlite/driver.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const work = tempDir('siard-ocfl-diff-');
const db = path.join(work, 'shop.db');
const root = path.join(work, 'root');
const id = 'urn:example:shop';
const user = { name: 'test', address: 'mailto:test@example.org' };

function build(): void {
  const d = new Database(db);
  d.exec(`CREATE TABLE item (id INTEGER PRIMARY KEY, name VARCHAR(40), price NUMERIC(10,2), photo BLOB);
          CREATE TABLE pair (a TEXT, b INTEGER, v TEXT, PRIMARY KEY (a, b));
          CREATE TABLE log (msg TEXT, n INTEGER);`);
  const item = d.prepare('INSERT INTO item VALUES (?, ?, ?, ?)');
  for (let i = 1; i <= 40; i++) item.run(i, `item ${i}`, (i * 1.5).toFixed(2), i % 10 === 0 ? Buffer.alloc(1500 + i, i) : Buffer.from([i]));
  const pair = d.prepare('INSERT INTO pair VALUES (?, ?, ?)');
  for (const a of ['x', 'y']) for (let b = 1; b <= 3; b++) pair.run(a, b, `${a}${b}`);
  const log = d.prepare('INSERT INTO log VALUES (?, ?)');
  for (const [m, n] of [
    ['start', 1],
    ['tick', 2],
    ['tick', 2],
    ['stop', null],
  ] as const)
    log.run(m, n);
  d.close();
}

/** The changes whose keys diff must list. */
function change(): void {
  const d = new Database(db);
  d.exec(`UPDATE item SET name = 'renamed' WHERE id IN (3, 17);
          UPDATE item SET photo = zeroblob(1520) WHERE id = 20;
          UPDATE item SET price = 99, name = 'both' WHERE id = 25;
          DELETE FROM item WHERE id IN (5, 30);
          INSERT INTO item VALUES (41, 'new', 1, NULL), (42, 'newer', 2, x'00');
          ALTER TABLE item ADD COLUMN colour TEXT;
          UPDATE pair SET v = 'changed' WHERE a = 'y' AND b = 2;
          DELETE FROM log WHERE rowid = 3;
          INSERT INTO log VALUES ('pause', 3);
          CREATE TABLE note (k INTEGER PRIMARY KEY, t TEXT); INSERT INTO note VALUES (1, 'a'), (2, 'b');`);
  d.close();
}

test.before(async () => {
  build();
  const r = await initRoot(root, await loadLayout0003());
  await ingest(`sqlite:${db}`, r, id, { name: 'shop', inlineMax: 1000, user });
  change();
  await ingest(`sqlite:${db}`, await openRoot(root), id, { name: 'shop', inlineMax: 1000, user });
});

type Row = [Array<string | null>, string, string[]?];

function rowsOf(t: TableDiff): Row[] {
  return t.rows
    .map((r): Row => (r.columns ? [r.key, r.change, r.columns] : [r.key, r.change]))
    .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

function byName(tables: TableDiff[], name: string): TableDiff {
  return tables.find((t) => t.table === `main.${name}`)!;
}

/** The logical paths whose digests differ between two versions, from inventory.json as stored. */
function changedPaths(a: string, b: string): { added: string[]; removed: string[]; changed: string[] } {
  const objects = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
    (p) => p.endsWith('inventory.json') && !/(^|\/)v\d+\/inventory\.json$/.test(p),
  );
  const inv = JSON.parse(readFileSync(path.join(root, objects[0]!), 'utf8')) as {
    versions: Record<string, { state: Record<string, string[]> }>;
  };
  const paths = (v: string) => {
    const m = new Map<string, string>();
    for (const [digest, ps] of Object.entries(inv.versions[v]!.state)) for (const p of ps) m.set(p, digest);
    return m;
  };
  const [x, y] = [paths(a), paths(b)];
  return {
    added: [...y.keys()].filter((p) => !x.has(p)).sort(),
    removed: [...x.keys()].filter((p) => !y.has(p)).sort(),
    changed: [...y.keys()].filter((p) => x.has(p) && x.get(p) !== y.get(p)).sort(),
  };
}

test('diff --json of two ingests lists exactly the changed keys, the added column, the files; exit 1', async (t) => {
  const r = await runCli(['diff', '--root', root, '--id', id, 'v1', 'v2', '--json']);
  t.is(r.code, 1, r.stderr);
  const out = JSON.parse(r.stdout) as { tables: TableDiff[]; files: { added: string[]; removed: string[]; changed: string[] } };
  t.deepEqual(Object.keys(out).sort(), ['files', 'tables']);
  const item = byName(out.tables, 'item');
  t.deepEqual(rowsOf(item), [
    [['17'], 'changed', ['name']],
    [['20'], 'changed', ['photo']],
    [['25'], 'changed', ['name', 'price']],
    [['3'], 'changed', ['name']],
    [['30'], 'removed'],
    [['41'], 'added'],
    [['42'], 'added'],
    [['5'], 'removed'],
  ]);
  t.deepEqual([item.change, item.added, item.removed, item.changed], ['changed', 2, 2, 4]);
  t.deepEqual(item.columns, { added: ['colour'], removed: [], retyped: [] }, 'the added column is named once, no row changed by it');
  t.deepEqual(rowsOf(byName(out.tables, 'pair')), [[['y', '2'], 'changed', ['v']]]);
  t.deepEqual(
    rowsOf(byName(out.tables, 'log')),
    [
      [['pause', '3'], 'added'],
      [['tick', '2'], 'removed'],
    ],
    'a table without key: one of two equal rows removed, the row itself as its key',
  );
  const note = byName(out.tables, 'note');
  t.deepEqual(
    [note.change, note.added, rowsOf(note)],
    [
      'added',
      2,
      [
        [['1'], 'added'],
        [['2'], 'added'],
      ],
    ],
  );
  t.deepEqual(out.files, changedPaths('v1', 'v2'));
  t.true(out.files.changed.includes('shop.siard') && out.files.changed.includes('shop.fingerprints.json'));
  for (const x of out.tables) t.deepEqual(Object.keys(x).sort(), ['added', 'change', 'changed', 'columns', 'removed', 'rows', 'table']);
});

test('from v2 to v1 with every unpaired row on disk: added and removed swapped; the scratch file removed', async (t) => {
  const scratch = path.join(work, 'scratch');
  mkdirSync(scratch);
  const back = await diff(root, id, 'v2', 'v1', { memoryBytes: 1, scratchDir: scratch });
  const item = byName(back.tables, 'item');
  t.deepEqual([item.added, item.removed, item.changed], [2, 2, 4]);
  t.deepEqual(
    item.rows
      .filter((r) => r.change !== 'changed')
      .map((r) => [r.key[0], r.change])
      .sort(),
    [
      ['30', 'added'],
      ['41', 'removed'],
      ['42', 'removed'],
      ['5', 'added'],
    ],
  );
  t.deepEqual(item.columns.removed, ['colour']);
  t.is(byName(back.tables, 'note').change, 'removed');
  t.deepEqual(readdirSync(scratch), []);
});

test('the same version: unchanged, exit 0; an unknown version: exit 2, one sentence, the JSON error alone', async (t) => {
  const same = await runCli(['diff', '--root', root, '--id', id, 'v2', 'v2']);
  t.is(same.code, 0, same.stderr);
  t.regex(same.stdout, /^main\.item\n\tunchanged\n/);
  t.regex(same.stdout, /^files: 0 added, 0 removed, 0 changed$/m);
  const bad = await runCli(['diff', '--root', root, '--id', id, 'v1', 'v9', '--json']);
  t.is(bad.code, 2);
  const error = (JSON.parse(bad.stdout) as { error: { message: string } }).error;
  t.is(error.message, `Object "${id}" has no version v9 (it has v1, v2).`);
});
