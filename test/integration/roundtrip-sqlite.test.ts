/**
 * SQLite -> SIARD -> SQLite (issue 6, acceptance 2): the Northwind fixture exported with external,
 * segmented and split LOBs, restored by the built CLI, compared value by value with the original:
 * storage class and value of every cell (integers exactly, REALs bit for bit, BLOB bytes, text).
 * Also: a restore refuses a target that already has the tables (exit 2), and a LOB file changed
 * after export stops the restore naming the cell, leaving no target file behind.
 */
import test from 'ava';
import Database from '../../src/sources/sqlite/driver.js';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildNorthwind } from '../../fixtures/northwind.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const work = tempDir('siard-ocfl-rt-sqlite-');
const original = path.join(work, 'northwind.db');
const out = path.join(work, 'out');
buildNorthwind(original);

interface Cell {
  type: string;
  value: unknown;
}

/** Every table's rows as (typeof, value) pairs, in rowid order, read without any conversion. */
function dump(file: string): Map<string, Cell[][]> {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`)
      .all() as Array<{ name: string }>;
    const result = new Map<string, Cell[][]>();
    for (const { name } of tables) {
      const cols = (db.prepare(`PRAGMA table_info("${name}")`).all() as Array<{ name: string }>).map((c) => c.name);
      const select = cols.map((c) => `typeof("${c}"), "${c}"`).join(', ');
      const rows = db.prepare(`SELECT ${select} FROM "${name}" ORDER BY rowid`).raw(true).safeIntegers(true).all() as unknown[][];
      result.set(
        name,
        rows.map((r) => cols.map((_, i) => ({ type: r[2 * i] as string, value: r[2 * i + 1] }))),
      );
    }
    return result;
  } finally {
    db.close();
  }
}

function same(a: unknown, b: unknown): boolean {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b);
  return a === b;
}

function filesUnder(dir: string): string[] {
  const outFiles: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) outFiles.push(...filesUnder(full));
    else outFiles.push(full);
  }
  return outFiles;
}

test.serial('export with split external LOBs, restore by the CLI: every cell has the same storage class and value', async (t) => {
  const exp = await runCli(['export', original, out, '--inline-max', '1000', '--max-bytes', '100000', '--json']);
  t.is(exp.code, 0, exp.stderr);
  const files = filesUnder(out);
  t.true(
    files.some((f) => /\.bin\.0$/.test(f)),
    'the 5 MiB BLOB is split into parts',
  );
  t.true(
    files.some((f) => /\.txt$/.test(f)),
    'a CLOB went to a file',
  );

  const restored = path.join(work, 'restored.db');
  const res = await runCli(['restore', path.join(out, 'northwind.siard'), restored, '--verify', '--json']);
  t.is(res.code, 0, res.stderr);
  const summary = JSON.parse(res.stdout) as {
    rows: number;
    lobFiles: number;
    digestsVerified: number;
    verify: { ok: boolean; tables: Array<{ fingerprint: string }> };
  };
  // --verify (issue 34): every table equal, the archive's rows equal to the source's fingerprints
  t.true(summary.verify.ok);
  t.true(summary.verify.tables.every((x) => x.fingerprint === 'equal'));
  t.true(summary.lobFiles > 0);
  t.is(summary.digestsVerified, summary.lobFiles, 'every LOB file had its digest checked');

  const before = dump(original);
  const after = dump(restored);
  t.deepEqual([...after.keys()], [...before.keys()]);
  let cells = 0;
  for (const [table, rows] of before) {
    const got = after.get(table)!;
    t.is(got.length, rows.length, `${table}: row count`);
    for (let r = 0; r < rows.length; r++) {
      for (let c = 0; c < rows[r]!.length; c++) {
        const want = rows[r]![c]!;
        const have = got[r]![c]!;
        cells++;
        if (want.type !== have.type || !same(want.value, have.value)) {
          t.fail(
            `${table} row ${r + 1} column ${c + 1}: ${want.type} ${String(want.value).slice(0, 40)} ` +
              `became ${have.type} ${String(have.value).slice(0, 40)}`,
          );
        }
      }
    }
  }
  t.true(cells > 500);
  // Declared types (and so affinities), NOT NULL and primary keys come back as declared.
  const schema = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return [...before.keys()].map((name) => db.prepare(`SELECT name, type, "notnull", pk FROM pragma_table_info(?)`).all(name));
    } finally {
      db.close();
    }
  };
  t.deepEqual(schema(restored), schema(original));
});

test.serial('a target that already holds one of the tables is refused with exit 2 and left as it was', async (t) => {
  const target = path.join(work, 'occupied.db');
  const db = new Database(target);
  db.exec('CREATE TABLE Shippers (x INTEGER); INSERT INTO Shippers VALUES (7)');
  db.close();
  const before = readFileSync(target);
  const res = await runCli(['restore', path.join(out, 'northwind.siard'), target]);
  t.is(res.code, 2);
  t.regex(res.stderr, /already has a table "Shippers"/);
  t.true(readFileSync(target).equals(before));
});

test.serial('a LOB file changed after export stops the restore naming table, row and column; no target file remains', async (t) => {
  const lob = filesUnder(out).find((f) => /lob4[\\/]record0\.bin$/.test(f));
  t.truthy(lob, 'Categories.Picture row 1 is an external file');
  const original = readFileSync(lob!);
  const changed = Buffer.from(original);
  changed[100] = changed[100]! ^ 0xff;
  writeFileSync(lob!, changed);
  try {
    const target = path.join(work, 'tampered.db');
    const res = await runCli(['restore', out, target]);
    t.is(res.code, 1, res.stderr);
    t.regex(
      res.stderr,
      new RegExp(
        String.raw`table main\.Categories, row 1, column Picture: LOB file ".*record0\.bin" has SHA-256 digest ` +
          String.raw`[0-9a-f]{64}, but the cell says [0-9a-f]{64}`,
      ),
    );
    t.false(existsSync(target));
    t.deepEqual(
      readdirSync(work).filter((n) => n.includes('restoring')),
      [],
    );
  } finally {
    writeFileSync(lob!, original);
  }
});
