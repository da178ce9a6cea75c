/**
 * A received package's triggers survive re-segmentation (the samples in ../shared have none): a
 * SQLite database with a trigger is exported, the .siard re-segmented, and the new metadata.xml
 * holds the same trigger.
 */
import test from 'ava';
import path from 'node:path';
import Database from '../../src/sources/sqlite/driver.js';
import { unzipEntry } from '../helpers/export-support.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

test('a trigger of the received package is in the re-segmented archive', async (t) => {
  const dir = tempDir('siard-ocfl-reseg-trigger-');
  const file = path.join(dir, 'shop.db');
  const db = new Database(file);
  db.exec(`CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, changed TEXT);
    CREATE TRIGGER item_touch AFTER UPDATE ON item BEGIN UPDATE item SET changed = 'yes' WHERE id = NEW.id; END;
    INSERT INTO item (id, name) VALUES (1, 'a'), (2, 'b');`);
  db.close();
  const first = await runCli(['export', file, path.join(dir, 'first')]);
  t.is(first.code, 0, first.stderr);
  const received = path.join(dir, 'first', 'shop.siard');
  const again = await runCli(['export', received, path.join(dir, 'again'), '--name', 'shop2']);
  t.is(again.code, 0, again.stderr);
  const triggersOf = (siard: string) =>
    [
      ...unzipEntry(siard, 'header/metadata.xml')
        .toString('utf8')
        .matchAll(/<trigger>[\s\S]*?<name>([^<]*)<\/name>/g),
    ].map((m) => m[1]);
  t.deepEqual(triggersOf(received), ['item_touch']);
  t.deepEqual(triggersOf(path.join(dir, 'again', 'shop2.siard')), ['item_touch']);
});
