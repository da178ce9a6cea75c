/**
 * One pass through every verb a user runs on a small database, with the built command line of this
 * Node line (CI: every supported line): init, ingest, audit, relocate, audit again, diff of the two
 * versions (relocate changed the .siard's bytes, no archived value), checkout, restore into SQLite
 * (compared with the source value by value, LOBs included), validate. What can
 * differ between lines is how the verbs load and use the native modules and the streams of that
 * Node; the whole behaviour of each verb is tested by the integration tier.
 */
import test from 'ava';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from '../../src/sources/sqlite/driver.js';
// @ts-expect-error plain JS fixture builder
import { buildNorthwind } from '../../fixtures/northwind.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const ID = 'urn:example:line:northwind';
const USER = { SIARD_OCFL_USER_NAME: 'Line test', SIARD_OCFL_USER_ADDRESS: 'mailto:line@example.org' };

/** Every row of every table, in primary-key order, blobs as hex: what a restore must give back. */
function contents(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`)
      .all() as {
      name: string;
    }[];
    return Object.fromEntries(
      tables.map(({ name }) => [
        name,
        (db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}" ORDER BY 1`).all() as Record<string, unknown>[]).map((row) =>
          Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('hex') : v])),
        ),
      ]),
    );
  } finally {
    db.close();
  }
}

async function siardOcfl(...args: string[]): Promise<string> {
  const r = await runCli(args, { env: USER });
  if (r.code !== 0) throw new Error(`siard-ocfl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

test(`every verb on a small database (Node ${process.versions.node})`, async (t) => {
  const dir = tempDir('siard-ocfl-line-verbs-');
  const db = path.join(dir, 'Northwind.db');
  buildNorthwind(db);
  const root = path.join(dir, 'root');
  await siardOcfl('init', root);

  const ingested = JSON.parse(
    await siardOcfl('ingest', db, '--root', root, '--id', ID, '--max-files', '4', '--max-bytes', '45k', '--json'),
  );
  t.is(ingested.version, 'v1');
  t.true(ingested.export.lobFolders.length > 1, 'LOBs in several lobseg folders');

  const audited = JSON.parse(await siardOcfl('audit', '--root', root, '--json'));
  t.true(audited.ok);
  t.is(audited.objects[0].siards[0].messageDigest, 'verified');

  const relocated = JSON.parse(
    await siardOcfl('relocate', '--root', root, '--id', ID, '--lob-folder', 'file:///Archives/Northwind/', '--json'),
  );
  t.is(relocated.version, 'v2');
  t.is(relocated.archives[0].to, 'file:///Archives/Northwind/');
  const reaudited = JSON.parse(await siardOcfl('audit', '--root', root, '--json'));
  t.true(reaudited.ok);
  // The LOBs now point at a place not on this machine: said once, as information, and read in the object.
  t.deepEqual(
    reaudited.findings.map((f: { code: string; severity: string }) => `${f.severity} ${f.code}`),
    ['info SIARD_LOBFOLDER_ABSOLUTE'],
  );

  // diff reads every row and LOB of both versions: the .siard's bytes changed, no table did.
  const diffed = await runCli(['diff', '--root', root, '--id', ID, 'v1', 'v2', '--json']);
  t.is(diffed.code, 1, diffed.stderr);
  const changes = JSON.parse(diffed.stdout) as {
    tables: Array<{ table: string; change: string; rows: unknown[] }>;
    files: { added: string[]; removed: string[]; changed: string[] };
  };
  t.deepEqual(changes.files, { added: [], removed: [], changed: [ingested.export.siardFile] });
  t.deepEqual(
    changes.tables.map((x) => [x.table, x.change, x.rows.length]).sort(),
    Object.keys(contents(db))
      .map((name) => [`main.${name}`, 'unchanged', 0])
      .sort(),
  );

  const out = path.join(dir, 'checkout');
  const checkedOut = JSON.parse(await siardOcfl('checkout', '--root', root, '--id', ID, out, '--json'));
  t.is(checkedOut.version, 'v2');
  const files = (d: string): string[] =>
    readdirSync(d).flatMap((n) => (statSync(path.join(d, n)).isDirectory() ? files(path.join(d, n)) : [n]));
  t.is(files(out).length, checkedOut.files);

  const target = path.join(dir, 'restored.db');
  const restored = JSON.parse(await siardOcfl('restore', '--root', root, '--id', ID, target, '--json'));
  t.is(restored.targetKind, 'sqlite');
  t.deepEqual(contents(target), contents(db), 'the restored database holds the source values');

  const validated = JSON.parse(await siardOcfl('validate', root, '--json'));
  t.true(validated.valid);
  t.deepEqual([validated.errors, validated.warnings], [[], []]);
});
