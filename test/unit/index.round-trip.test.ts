/**
 * verify and diff as a library user calls them (issue 34): imported from the package entry,
 * src/index.ts, on a real round trip. Two ingests of an SQLite database changed by known keys
 * between them: diff of the two versions lists exactly those keys. The second version restored into
 * SQLite: verify finds every table equal, the archive equal to its source's fingerprints; then a
 * cell changed and a row deleted in the restored database: verify names them by key and column.
 */
import test from 'ava';
import path from 'node:path';
import { diff, ingest, initRoot, openRoot, restore, verify, type DiffResult, type VerifyResult } from '../../src/index.js';
import Database from '../../src/sources/sqlite/driver.js';
import { tempDir } from '../helpers/tmp.js';

const work = tempDir('siard-ocfl-api-');
const db = path.join(work, 'bank.db');
const root = path.join(work, 'root');
const id = 'urn:example:bank';
const archive = { root, id };
const user = { name: 'A. Archivist', address: 'mailto:a@example.org' };

function build(): void {
  const d = new Database(db);
  d.exec(`CREATE TABLE account (id INTEGER PRIMARY KEY, owner VARCHAR(40), balance NUMERIC(12,2), opened DATE);
          CREATE TABLE entry (account INTEGER, amount NUMERIC(12,2), memo TEXT);`);
  const account = d.prepare('INSERT INTO account VALUES (?, ?, ?, ?)');
  const entry = d.prepare('INSERT INTO entry VALUES (?, ?, ?)');
  for (let i = 1; i <= 40; i++) {
    account.run(i, `owner ${i}`, (i * 10.5).toFixed(2), `2020-02-${String(1 + (i % 28)).padStart(2, '0')}`);
    entry.run(i, (i % 7).toFixed(2), i % 5 === 0 ? null : `memo <${i}> & co`);
  }
  d.close();
}

/** The changes between the two ingests, by key: what diff must list, and nothing else. */
function change(): void {
  const d = new Database(db);
  d.exec(`UPDATE account SET balance = 0 WHERE id IN (4, 19);
          UPDATE account SET owner = 'new owner' WHERE id = 27;
          DELETE FROM account WHERE id = 33;
          INSERT INTO account VALUES (41, 'owner 41', 1.00, '2021-01-01');`);
  d.close();
}

test.before(async () => {
  build();
  await initRoot(root, { extensionName: '0003-hash-and-id-n-tuple-storage-layout' });
  await ingest(`sqlite:${db}`, root, id, { user });
  change();
  await ingest(`sqlite:${db}`, root, id, { user });
});

function tableOf<T extends { table: string }>(tables: T[], name: string): T {
  return tables.find((x) => x.table === `main.${name}`)!;
}

test.serial('diff of the two ingests lists exactly the changed keys and columns', async (t) => {
  t.deepEqual(
    (await (await openRoot(root)).objectVersions(id)).map((v) => v.version),
    ['v1', 'v2'],
  );
  const result: DiffResult = await diff(root, id, 'v1', 'v2');
  const account = tableOf(result.tables, 'account');
  t.deepEqual(
    account.rows.map((r) => [r.key, r.change, r.columns ?? []]).sort((a, b) => Number(a[0]![0]) - Number(b[0]![0])),
    [
      [['4'], 'changed', ['balance']],
      [['19'], 'changed', ['balance']],
      [['27'], 'changed', ['owner']],
      [['33'], 'removed', []],
      [['41'], 'added', []],
    ],
  );
  t.deepEqual([account.change, account.added, account.removed, account.changed], ['changed', 1, 1, 3]);
  const entry = tableOf(result.tables, 'entry');
  t.deepEqual([entry.change, entry.rows], ['unchanged', []], 'a table not touched between the ingests');
  t.true(result.files.changed.includes('bank.siard'));
});

test.serial('verify finds the restored version equal, then names a changed cell and a deleted row', async (t) => {
  const target = path.join(work, 'restored.db');
  await restore(archive, target);
  const clean: VerifyResult = await verify(archive, target);
  t.true(clean.ok, JSON.stringify(clean.tables.filter((x) => !x.equal)));
  t.deepEqual(
    clean.tables.map((x) => [x.table, x.rows, x.targetRows, x.fingerprint]),
    [
      ['main.account', 40, 40, 'equal'],
      ['main.entry', 40, 40, 'equal'],
    ],
  );
  const d = new Database(target);
  d.exec(`UPDATE account SET opened = '1999-12-31' WHERE id = 12; DELETE FROM account WHERE id = 30;`);
  d.close();
  const found = await verify(archive, target);
  t.false(found.ok);
  const account = tableOf(found.tables, 'account');
  t.deepEqual(
    account.differences.map((x) => [x.key, x.column, x.change]),
    [
      [['12'], 'opened', 'changed'],
      [['30'], null, 'missing'],
    ],
  );
  t.deepEqual([account.equal, account.missing, account.extra, account.changed, account.fingerprint], [false, 1, 0, 1, 'equal']);
  t.true(tableOf(found.tables, 'entry').equal);
});
