/**
 * Issue 37: every Access sample of ../shared/reference/access-samples (Jet 3 to ACE 16, empty
 * databases, columns deleted and inserted after data was written, attachments, database passwords
 * and Office agile encryption) exported by the Access source (mdb-reader), restored into SQLite,
 * and compared with Debian's mdbtools, an independent reader of the same file: the table names
 * (mdb-tables), the columns (mdb-schema), the row count and every value (mdb-export), in the
 * canonical form of test/helpers/access-mdbtools.ts (text exactly, exact numbers exactly, dates to
 * the second). mdbtools cannot open the encrypted files: each is compared with the unencrypted
 * file of the same content (V2010_no-password.accdb). One file goes into PostgreSQL and one into
 * MariaDB, compared the same way. Export and restore run in this process (no CLI children).
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { inflateSync } from 'node:zlib';
import type { ExecutionContext } from 'ava';
import { restore } from '../../src/archive/restore.js';
import { exportToDirectory } from '../../src/siard/export-directory.js';
import { openSource } from '../../src/sources/open.js';
import Database from '../../src/sources/sqlite/driver.js';
import { HAS_MDBTOOLS, canonical, mdbAllTables, mdbColumnTypes, mdbExport, mdbIndexes, mdbTables } from '../helpers/access-mdbtools.js';
import { mariadbAvailable, startMariadb } from '../helpers/mariadb.js';
import { postgresAvailable, queryRows, startPostgres } from '../helpers/postgres.js';
import { runCli } from '../helpers/cli.js';
import { testIf } from '../helpers/requires.js';
import { reference, sharedTest, HAS_SHARED } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';
import type { SiardView } from '../../src/siard/model.js';
import type { SourceTable } from '../../src/siard/database-source.js';

const SAMPLES = reference('access-samples');
const PASSWORD = 'password';
const TWIN = 'password/data/V2010_no-password.accdb';
/** mdb-schema's name of an attachment column (type 0x12) and of a Large Number (0x13), which mdbtools 1.0 does not print */
const ATTACHMENT = 'Unknown_0012';
const LARGE_NUMBER = 'Unknown_0013';

const work = tempDir('siard-ocfl-access-');
const mdbTest = testIf(HAS_MDBTOOLS, 'mdbtools (mdb-export) is not installed', sharedTest);

function accessFilesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) found.push(...accessFilesUnder(full));
    else if (/\.(mdb|accdb)$/.test(name)) found.push(full);
  }
  return found;
}

const samples = HAS_SHARED ? accessFilesUnder(SAMPLES).map((f) => path.relative(SAMPLES, f)) : [];
const protectedFile = (name: string) => /with-password|office-agile/.test(name);
/** mdbtools reads everything but Office-encrypted files (ACE with a password is encrypted too). */
const mdbtoolsFile = (name: string) => (/office-agile|V2010_with-password/.test(name) ? TWIN : name);

/** What the export said it left out, and its views, by the file exported last. */
const notExportedOf = new Map<string, string[]>();
const viewsOf = new Map<string, SiardView[]>();
const tablesOf = new Map<string, SourceTable[]>();

let exports = 0;

/** Exports `file` in this process and restores it into a new SQLite file; the restored table names by source table. */
async function exportAndRestore(name: string, target: string): Promise<Map<string, string>> {
  const out = path.join(work, `${name.replace(/[/.]/g, '_')}-${++exports}`); // a file is exported by more than one test
  const source = await openSource(path.resolve(SAMPLES, name), protectedFile(name) ? { password: PASSWORD } : {});
  try {
    await exportToDirectory(source, out, { name: 'db' });
    const catalogue = await source.catalog();
    notExportedOf.set(name, catalogue.notExported ?? []);
    viewsOf.set(name, catalogue.schemas[0]?.views ?? []);
    tablesOf.set(name, catalogue.schemas[0]?.tables ?? []);
  } finally {
    await source.close();
  }
  const summary = await restore({ siard: path.join(out, 'db.siard') }, target, target.includes('://') ? { target: { create: true } } : {});
  return new Map(summary.tables.map((t) => [t.name, t.target]));
}

/** A restored SQLite table's primary key columns (in key order) and its unique constraints' columns. */
function sqliteKeys(file: string, table: string): { primaryKey: string[]; unique: string[][] } {
  const db = new Database(file, { readonly: true });
  try {
    const quoted = `"${table.replace(/"/g, '""')}"`;
    const info = db.prepare(`PRAGMA table_info(${quoted})`).all() as Array<{ name: string; pk: number }>;
    const primaryKey = info
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    const list = db.prepare(`PRAGMA index_list(${quoted})`).all() as Array<{ name: string; origin: string }>;
    const unique = list
      .filter((i) => i.origin === 'u')
      .map((i) => (db.prepare(`PRAGMA index_info("${i.name.replace(/"/g, '""')}")`).all() as Array<{ name: string }>).map((c) => c.name));
    return { primaryKey, unique };
  } finally {
    db.close();
  }
}

/** Each column's Description property as mdb-prop prints it (one line a property, a tab before it), by column. */
function mdbDescriptions(file: string, table: string): Map<string, string> {
  const out = new Map<string, string>();
  let column = '';
  for (const line of execFileSync('mdb-prop', [file, table], { encoding: 'utf8' }).split('\n')) {
    if (line.startsWith('name: ')) column = line.slice('name: '.length);
    else if (line.startsWith('\tDescription: ')) out.set(column, line.slice('\tDescription: '.length));
  }
  return out;
}

/**
 * Each table's primary key and unique indexes, restored, equal mdb-schema's; a unique index over an
 * attachment column (exported as a table of its own) and every index that is not unique are named
 * in the export's "not exported" summary.
 */
function compareKeys(
  t: ExecutionContext,
  mdbFile: string,
  tables: string[],
  dbFile: string,
  targets: Map<string, string>,
  notExported: string[],
) {
  const indexes = mdbIndexes(mdbFile);
  for (const table of tables) {
    const theirs = indexes.get(table) ?? { unique: [], plain: [] };
    const attachments = mdbColumnTypes(mdbFile, table)
      .filter((c) => c.type === ATTACHMENT)
      .map((c) => c.name);
    const carried = theirs.unique.filter((u) => !u.columns.some((c) => attachments.includes(c)));
    const ours = sqliteKeys(dbFile, targets.get(table)!);
    t.deepEqual(ours.primaryKey, theirs.primaryKey ?? [], `${table}: the primary key`);
    t.deepEqual(ours.unique.sort(), carried.map((u) => u.columns).sort(), `${table}: the unique indexes`);
    for (const u of theirs.unique.filter((x) => !carried.includes(x)))
      t.true(
        notExported.some((n) => n.startsWith(`unique index "${u.name}" of table "${table}"`)),
        `${table}: ${u.name} named as not exported`,
      );
    for (const p of theirs.plain)
      t.true(
        notExported.some((n) => n.startsWith(`indexes that are not unique of table "${table}"`) && n.includes(`"${p.name}" (`)),
        `${table}: ${p.name} named`,
      );
  }
}

type Row = Record<string, unknown>;

/** A restore summary's target name ("schema.table", unquoted) as the schema and the table. */
function splitTarget(target: string): [string, string] {
  const dot = target.indexOf('.');
  return [target.slice(0, dot), target.slice(dot + 1)];
}

/** A restored table's rows, in load order, from SQLite. */
function sqliteRows(file: string, table: string): Row[] {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare(`SELECT * FROM "${table.replace(/"/g, '""')}" ORDER BY rowid`)
      .safeIntegers(true)
      .all() as Row[];
  } finally {
    db.close();
  }
}

/** Attachment FileData as Access stores it: type flag (1: deflated), length, then a header of its own length before the file. */
function attachmentBytes(hex: string): string {
  const stored = Buffer.from(hex, 'hex');
  const length = stored.readInt32LE(4);
  const content = stored.readInt32LE(0) === 1 ? inflateSync(stored.subarray(8)) : stored.subarray(8);
  return content.subarray(content.readInt32LE(0), Math.min(length, content.length)).toString('hex').toUpperCase();
}

/** The files of each attachment id in the flat table mdbtools shows for `table`: [name, type, bytes as hex]. */
function mdbAttachments(file: string, table: string): Map<string, string[][]> {
  const byId = new Map<string, string[][]>();
  for (const flat of mdbAllTables(file).filter((n) => n.startsWith('f_'))) {
    const { header, rows } = mdbExport(file, flat);
    const parent = header.findIndex((h) => h.startsWith('_'));
    if (parent < 0 || !header.some((h) => h.startsWith(`${table}_`))) continue;
    const [name, type, data] = ['FileName', 'FileType', 'FileData'].map((h) => header.indexOf(h));
    for (const r of rows) {
      const id = r[parent]!;
      byId.set(id, [...(byId.get(id) ?? []), [r[name!]!, r[type!]!, attachmentBytes(r[data!]!)]]);
    }
  }
  return byId;
}

interface Compared {
  /** canonical rows of ours and of mdb-export, for one deepEqual per table */
  ours: Array<Array<string | null>>;
  theirs: Array<Array<string | null>>;
  attachments?: { ours: string[][][]; theirs: string[][][] };
}

/** One table of ours (rows read by `read`) against mdb-export of the same table. */
async function compareTable(
  mdbFile: string,
  table: string,
  read: (t: string, columns: string[]) => Promise<Row[]>,
  targets: Map<string, string>,
  attachmentsOf?: (t: string, columns: string[]) => Promise<Row[]>,
): Promise<Compared> {
  const types = mdbColumnTypes(mdbFile, table);
  const { header, rows } = mdbExport(mdbFile, table);
  if (header.join('\u0000') !== types.map((c) => c.name).join('\u0000')) throw new Error(`mdb-export and mdb-schema disagree on ${table}`);
  const ourRows = await read(
    targets.get(table)!,
    types.filter((c) => c.type !== ATTACHMENT).map((c) => c.name),
  );
  const compared = types.map((c, i) => ({ ...c, i })).filter((c) => c.type !== ATTACHMENT && c.type !== LARGE_NUMBER);
  const out: Compared = {
    ours: ourRows.map((r) => compared.map((c) => canonical(c.type, r[c.name]))),
    theirs: rows.map((r) => compared.map((c) => canonical(c.type, r[c.i]))),
  };
  const attachment = types.findIndex((c) => c.type === ATTACHMENT);
  if (attachment >= 0 && attachmentsOf) {
    const name = types[attachment]!.name;
    const files = await attachmentsOf(targets.get(`${table}_${name}`)!, []);
    const byId = mdbAttachments(mdbFile, table);
    out.attachments = {
      ours: ourRows.map((_, i) =>
        files
          .filter((f) => Number(f['row']) === i + 1)
          .map((f) => [String(f['FileName']), String(f['FileType']), canonical('OLE', f['FileData'])!]),
      ),
      theirs: rows.map((r) => byId.get(r[attachment] ?? '') ?? []),
    };
  }
  return out;
}

for (const name of samples) {
  mdbTest(
    `${name}: exported, restored into SQLite, every table equals mdb-export${mdbtoolsFile(name) !== name ? ` of ${TWIN}` : ''}`,
    async (t) => {
      const target = path.join(work, `${name.replace(/[/.]/g, '_')}.db`);
      const targets = await exportAndRestore(name, target);
      const mdbFile = path.join(SAMPLES, mdbtoolsFile(name));
      const tables = mdbTables(mdbFile);
      const withFiles = tables.flatMap((n) => [
        n,
        ...mdbColumnTypes(mdbFile, n)
          .filter((c) => c.type === ATTACHMENT)
          .map((c) => `${n}_${c.name}`),
      ]);
      t.deepEqual([...targets.keys()], withFiles, 'the same tables, and one for each attachment column');
      const read = async (table: string) => sqliteRows(target, table);
      for (const table of tables) {
        const c = await compareTable(mdbFile, table, read, targets, read);
        t.deepEqual(c.ours, c.theirs, `${table}: every value`);
        if (c.attachments) t.deepEqual(c.attachments.ours, c.attachments.theirs, `${table}: every attached file's name, type and bytes`);
      }
      compareKeys(t, mdbFile, tables, target, targets, notExportedOf.get(name)!);
      for (const table of tables) {
        const ours = tablesOf
          .get(name)!
          .find((x) => x.name === table)!
          .columns.filter((c) => c.description !== undefined);
        t.deepEqual(new Map(ours.map((c) => [c.name, c.description])), mdbDescriptions(mdbFile, table), `${table}: column descriptions`);
      }
    },
  );
}

/**
 * A multi-valued column. No sample has one, and no tool here writes Access files, so one is made
 * from attachments.accdb by two edits laid out as the format is: its row of MSysComplexColumns
 * names the complex type MSysComplexType_Text (object 37) instead of MSysComplexType_Attachment
 * (39), and its flat table's column "FileName" is renamed "Value" (the name that complex type
 * gives its values; written as Jet 4 "compressed" text, FF FE and a byte a character, padded with
 * 00s that each switch the mode and add no character, so the definition keeps its length). For
 * mdbtools the flat table then has a Text column "Value" holding the file names.
 */
function multiValuedFile(): string {
  const bytes = readFileSync(path.join(SAMPLES, 'data/V2016/attachments.accdb'));
  const ints = (...n: number[]) => Buffer.concat(n.map((v) => Buffer.from(new Int32Array([v]).buffer)));
  const row = bytes.indexOf(ints(39, 97, 64)); // ComplexTypeObjectID, FlatTableID, ConceptualTableID of "Attachments"
  if (row < 0 || bytes.indexOf(ints(39, 97, 64), row + 1) >= 0) throw new Error('attachments.accdb is not the file this test knows');
  ints(37).copy(bytes, row);
  const name = Buffer.concat([Buffer.from([16, 0]), Buffer.from('FileName', 'utf16le')]);
  const at = bytes.indexOf(name, 97 * 4096); // the flat table's definition, page 97
  if (at < 0 || at > 98 * 4096) throw new Error('the flat table of attachments.accdb has no column FileName');
  Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Value', 'latin1'), Buffer.alloc(9)]).copy(bytes, at + 2);
  const file = path.join(work, 'multi-valued.accdb');
  writeFileSync(file, bytes);
  return file;
}

mdbTest("a multi-valued column (Text) becomes a table of its values by row and position, equal to mdbtools' flat table", async (t) => {
  const file = multiValuedFile();
  const target = path.join(work, 'multi-valued.db');
  const targets = await exportAndRestore(file, target);
  t.deepEqual([...targets.keys()], ['Table1', 'Table1_Attachments']);
  const values = sqliteRows(target, targets.get('Table1_Attachments')!).map((r) => [Number(r['row']), Number(r['position']), r['Value']]);
  const parent = mdbExport(file, 'Table1');
  const rowOfId = new Map(parent.rows.map((r, i) => [r[parent.header.indexOf('Attachments')]!, i + 1]));
  const flat = mdbExport(
    file,
    mdbAllTables(file).find((n) => n.startsWith('f_') && n.endsWith('_Field1'))!,
  );
  const seen = new Map<number, number>();
  const theirs = flat.rows.map((r) => {
    const row = rowOfId.get(r[flat.header.indexOf('_Field1')]!)!;
    seen.set(row, (seen.get(row) ?? 0) + 1);
    return [row, seen.get(row)!, r[flat.header.indexOf('Value')]];
  });
  t.deepEqual(values, theirs);
  t.is(values.length, 4, 'one value in row 2, three in row 3');
  t.true(notExportedOf.get(file)!.some((n) => n.startsWith('the ids of multi-valued column "Table1"."Attachments"')));
  const c = await compareTable(file, 'Table1', async (table) => sqliteRows(target, table), targets);
  t.deepEqual(c.ours, c.theirs, 'the parent table');
});

/** Our Access SQL in the shorter form mdb-queries prints: no * or aliases, "," between columns, the first ORDER BY term only. */
function asMdbQueries(sql: string): string {
  const m = /^SELECT( TOP \S+(?: PERCENT)?| DISTINCTROW| DISTINCT)? (.*?) FROM (.*?)(?: WHERE (.*?))?(?: ORDER BY (.*?))?;$/.exec(sql);
  if (!m) throw new Error(`not a query this test reads: ${sql}`);
  const columns = m[2]!
    .replace(/^\*(, )?/, '')
    .split(', ')
    .map((c) => c.replace(/ AS \[[^\]]*\]$/, ''));
  const order = m[5] ? `ORDER BY ${m[5].split(', ')[0]!.replace(/ DESC$/, ' DESCENDING')}` : '';
  return `SELECT${m[1] ?? ''} ${columns.join(',')} FROM ${m[3]} ${m[4] ? `WHERE ${m[4]} ` : ''}${order}`;
}

mdbTest('data/real/ASampleDatabase.accdb: saved queries as views, their SQL as mdb-queries rebuilds it; the others named', async (t) => {
  const name = 'data/real/ASampleDatabase.accdb';
  const file = path.join(SAMPLES, name);
  await exportAndRestore(name, path.join(work, 'queries.db'));
  const views = viewsOf.get(name)!;
  const listed = execFileSync('mdb-queries', ['-1', '-L', file], { encoding: 'utf8' }).split('\n').filter(Boolean);
  const named = notExportedOf.get(name)!.filter((n) => n.startsWith('saved query "'));
  t.deepEqual(
    [...views.map((v) => v.name), ...named.map((n) => /^saved query "([^"]*)"/.exec(n)![1]!)].sort(),
    [...listed].sort(),
    'every query a view or named',
  );
  t.true(views.length >= 4);
  for (const view of views) {
    const theirs = execFileSync('mdb-queries', [file, view.name], { encoding: 'utf8' }).replace(/\n$/, '');
    t.is(asMdbQueries(view.queryOriginal!), theirs, view.name);
  }
  const hardware = views.find((v) => v.name === 'qryComputerHardwareInOwnerOrder')!;
  t.deepEqual(
    hardware.columns.map((c) => [c.name, c.type]),
    [
      ['Asset No', 'VARCHAR(5)'],
      ['Owner', 'VARCHAR(20)'],
      ['Asset Category', 'VARCHAR(20)'],
      ['Make', 'VARCHAR(25)'],
      ['Model', 'VARCHAR(25)'],
      ['Cost', 'DECIMAL(19, 4)'],
    ],
  );
});

mdbTest(
  'a protected file without --password is refused (exit 2) with one sentence saying a password is needed; a wrong one too',
  async (t) => {
    for (const name of samples.filter(protectedFile)) {
      const file = path.join(SAMPLES, name);
      const none = await t.throwsAsync(openSource(file));
      t.is((none as { exitCode?: number }).exitCode, 2, name);
      t.is(none?.message, `${file} is protected by a password: give it with --password.`);
      const wrong = await t.throwsAsync(openSource(file, { password: 'not it' }));
      t.is((wrong as { exitCode?: number }).exitCode, 2, name);
    }
    const sqlite = await t.throwsAsync(openSource(path.join(work, 'x.db'), { password: 'p' }));
    t.regex(sqlite?.message ?? '', /--password applies to an Access file/);
  },
);

const REAL = 'data/real/ASampleDatabase.accdb';
const TYPES = 'data/V2010/test.accdb';

testIf(
  postgresAvailable() || Boolean(process.env.CI),
  'PostgreSQL is not installed',
  mdbTest,
)(
  `${TYPES} (text, byte, integer, long, double, date, currency, yes/no, GUID; 255 columns) restored into PostgreSQL equals mdb-export`,
  async (t) => {
    const server = await startPostgres();
    try {
      const targets = await exportAndRestore(TYPES, server.url('access'));
      const read = (table: string, columns: string[]) =>
        queryRows(
          server,
          'access',
          `SELECT ${columns.map((c) => `"${c}"::text AS "${c}"`).join(', ')} FROM ${splitTarget(table)
            .map((n) => `"${n}"`)
            .join('.')} ORDER BY ctid`,
        );
      for (const table of mdbTables(path.join(SAMPLES, TYPES))) {
        const c = await compareTable(path.join(SAMPLES, TYPES), table, read, targets);
        t.deepEqual(c.ours, c.theirs, `${table}: every value`);
      }
    } finally {
      await server.stop();
    }
  },
);

testIf(
  mariadbAvailable() || Boolean(process.env.CI),
  'MariaDB is not installed',
  mdbTest,
)(`${REAL} (a real database: text, memo, date, currency, long; 65 rows) restored into MariaDB equals mdb-export`, async (t) => {
  const server = await startMariadb();
  try {
    const targets = await exportAndRestore(REAL, server.url('access'));
    const read = (table: string, columns: string[]) =>
      server.sql<Row>(
        'access',
        `SELECT ${columns.map((c) => `CAST(\`${c}\` AS CHAR) AS \`${c}\``).join(', ')} FROM \`${splitTarget(table)[1]}\``,
      );
    for (const table of mdbTables(path.join(SAMPLES, REAL))) {
      const c = await compareTable(path.join(SAMPLES, REAL), table, read, targets);
      t.deepEqual(c.ours, c.theirs, `${table}: every value`);
      t.is(c.ours.length, 65);
    }
  } finally {
    await server.stop();
  }
});

testIf(
  mariadbAvailable() || Boolean(process.env.CI),
  'MariaDB is not installed',
  mdbTest,
)(
  `${TYPES} (a table of 255 Text (50) columns, more than an InnoDB row holds as declared) restored into MariaDB equals mdb-export`,
  async (t) => {
    const server = await startMariadb();
    try {
      const targets = await exportAndRestore(TYPES, server.url('access_wide'));
      const read = (table: string, columns: string[]) =>
        server.sql<Row>(
          'access_wide',
          `SELECT ${columns.map((c) => `CAST(\`${c}\` AS CHAR) AS \`${c}\``).join(', ')} FROM \`${splitTarget(table)[1]}\``,
        );
      for (const table of mdbTables(path.join(SAMPLES, TYPES))) {
        const c = await compareTable(path.join(SAMPLES, TYPES), table, read, targets);
        t.deepEqual(c.ours, c.theirs, `${table}: every value`);
      }
      const types = await server.sql<{ t: string }>(
        'access_wide',
        // DATABASE(): on the suite's shared server the database's name carries this test's prefix.
        "SELECT DATA_TYPE AS t FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'Table2'",
      );
      t.true(types.some((c) => c.t === 'text') && types.some((c) => c.t === 'varchar'), 'only some columns made text');
    } finally {
      await server.stop();
    }
  },
);

sharedTest('the command line: ingest takes --password; export without it exits 2 with one sentence and writes nothing', async (t) => {
  const file = path.join(SAMPLES, 'encryption/data/office-agile-4.2.accdb');
  const out = path.join(work, 'cli-out');
  const refused = await runCli(['export', file, out]);
  t.is(refused.code, 2);
  t.is(refused.stderr.trim(), `siard-ocfl: ${file} is protected by a password: give it with --password.`);
  t.false(existsSync(out));
  const root = path.join(work, 'root');
  t.is((await runCli(['init', root])).code, 0);
  const ingested = await runCli(['ingest', `access:${file}`, '--root', root, '--id', 'urn:x:access', '--password', PASSWORD, '--json']);
  t.is(ingested.code, 0, ingested.stderr);
  const result = JSON.parse(ingested.stdout) as { export: { rows: number }; notes: string[] };
  t.is(result.export.rows, 3);
  t.true(result.notes.some((n) => n.startsWith('Not exported: column properties')));
});
