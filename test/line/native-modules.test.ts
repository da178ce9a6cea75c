/**
 * What a Node line changes: the native modules. better-sqlite3 is a different package per line (12.x
 * compiled for Node 20, 13.x with Node-API binaries from Node 22 on: src/sources/sqlite/driver.ts),
 * and koffi reaches renameat2(RENAME_EXCHANGE) and syncfs(2) in libc. Each is loaded and used on the
 * line the tier runs on (CI: every supported line): better-sqlite3 and syncfs here, the exchange in
 * test/unit/ocfl/storage/rename-exchange.test.ts, which the line tier runs too.
 */
import test from 'ava';
import os from 'node:os';
import path from 'node:path';
import Database, { driverPath } from '../../src/sources/sqlite/driver.js';
import { FileSystemStorage } from '../../src/ocfl/storage/fs.js';
import { testIf } from '../helpers/requires.js';
import { tempDir } from '../helpers/tmp.js';

const major = Number(process.versions.node.split('.')[0]);

test(`better-sqlite3 of this line (Node ${process.versions.node}) writes and reads rows, text and blobs`, (t) => {
  const expected = major >= 22 ? 'better-sqlite3-13' : 'better-sqlite3';
  t.true(driverPath.includes(`${path.sep}node_modules${path.sep}${expected}${path.sep}`), driverPath);
  const file = path.join(tempDir('siard-ocfl-line-sqlite-'), 'line.db');
  const blob = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const db = new Database(file);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, data BLOB, big INTEGER)');
  const insert = db.prepare('INSERT INTO t (id, name, data, big) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= 1000; i++) insert.run(i, `ñame ${i} 🙂`, blob, 2n ** 62n + BigInt(i));
  })();
  db.close();
  const reopened = new Database(file, { readonly: true });
  const row = reopened.prepare('SELECT name, data, big FROM t WHERE id = 1000').safeIntegers().get() as {
    name: string;
    data: Buffer;
    big: bigint;
  };
  t.is(row.name, 'ñame 1000 🙂');
  t.deepEqual(Buffer.from(row.data), blob);
  t.is(row.big, 2n ** 62n + 1000n);
  t.is((reopened.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n, 1000);
  reopened.close();
});

const [kernelMajor, kernelMinor] = os.release().split('.').map(Number);
const hasSyncfs = process.platform === 'linux' && (kernelMajor! > 5 || (kernelMajor === 5 && kernelMinor! >= 8));

testIf(hasSyncfs, `syncfs is not used on ${process.platform} ${os.release()} (commits fsync file by file)`)(
  'koffi reaches syncfs(2): a version is made durable with one call (Linux >= 5.8)',
  async (t) => {
    const storage = new FileSystemStorage(tempDir());
    const file = await storage.openWrite('a/b.txt', { durable: false });
    await file.write(Buffer.from('x'));
    await file.close();
    t.true(await storage.syncAll(), 'syncfs reached through koffi');
  },
);
