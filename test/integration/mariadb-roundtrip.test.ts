/**
 * MariaDB -> SIARD -> MariaDB / SQLite / PostgreSQL (issue 18), against a private server the test
 * starts (test/helpers/mariadb.ts). The fixture (fixtures/mariadb/sample.sql) has every mapped
 * type with its extreme values, keys of every kind, check constraints, comments, a view, a
 * trigger, zero dates, TIME beyond a day, geometry with one and with several SRIDs, a table
 * without a key, and values large enough to be read in slices and split across segment folders.
 * It is exported with tiny inline/slice limits and a small segment size, checked against the
 * official metadata.xsd and each table's XSD (xmllint), restored by the built CLI into a fresh
 * database, and compared value by value as the server prints it (binary values as HEX()).
 *
 * Without the MariaDB binaries the tests are skipped with a message, except under CI=true,
 * where .ci/run has installed them and a missing server is a failure.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from '../../src/sources/sqlite/driver.js';
import { exportToDirectory } from '../../src/siard/export-directory.js';
import { MysqlSource } from '../../src/sources/mysql/mysql-source.js';
import { unzipEntry, xmllint, zipEntryNames } from '../helpers/export-support.js';
import type { VerifyResult } from '../../src/archive/verify/verify.js';
import { runCli } from '../helpers/cli.js';
import { mariaTest, mariadbAvailable, startMariadb, type MariadbServer } from '../helpers/mariadb.js';
import { postgresAvailable, queryRows, startPostgres } from '../helpers/postgres.js';
import { HAS_SHARED, PROJECT_ROOT, reference } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';
import { testIf } from '../helpers/requires.js';

const available = mariadbAvailable() || Boolean(process.env.CI);
const work = tempDir('siard-ocfl-rt-maria-');
const out = path.join(work, 'out');
const siard = path.join(out, 'sample.siard');
const METADATA_XSD = HAS_SHARED ? reference('siard', 'metadata.xsd') : path.join(PROJECT_ROOT, 'resources', 'metadata.xsd');
const TABLES = ['audit_log', 'customer', 'durations', 'every_type', 'mixed_srid', 'no_key', 'orders'];
let server: MariadbServer | undefined;

test.before(async () => {
  if (!available) return;
  server = await startMariadb();
  await server.createDatabase('source');
  server.client('source', [], readFileSync(path.join(PROJECT_ROOT, 'fixtures', 'mariadb', 'sample.sql'), 'utf8'));
  // Small limits so every path runs: values over 1000 bytes are read in 4 KiB slices and go to
  // files, and a segment folder holds at most 100,000 bytes (the 450 KB text is split).
  const source = await MysqlSource.open(server.url('source'), { inlineThreshold: 1000, sliceBytes: 4096, fetchRows: 2 });
  try {
    await exportToDirectory(source, out, { name: 'sample', inlineMax: 1000, maxBytes: 100_000 });
  } finally {
    await source.close();
  }
});

test.after.always(async () => {
  await server?.stop();
});

/**
 * metadata.xml against the official metadata.xsd, every tableN.xml against its tableN.xsd, with
 * xmllint. libxml2 holds an xs:decimal in 24 digits and calls longer ones invalid, though XML
 * Schema gives xs:decimal no digit limit: those messages (and only those) are set aside, and the
 * test says which values they were (DECIMAL(65,30) has up to 65).
 */
function assertValidBeyondLibxml2Decimals(t: import('ava').ExecutionContext): void {
  const dir = path.join(work, 'xmllint');
  execFileSync('mkdir', ['-p', dir]);
  writeFileSync(path.join(dir, 'metadata.xml'), unzipEntry(siard, 'header/metadata.xml'));
  t.is(xmllint(METADATA_XSD, path.join(dir, 'metadata.xml')), '', 'metadata.xml is valid');
  const long: string[] = [];
  for (const name of zipEntryNames(siard)) {
    const m = /^content\/(schema\d+)\/(table\d+)\/\2\.xml$/.exec(name);
    if (!m) continue;
    const xml = path.join(dir, `${m[2]}.xml`);
    const xsd = path.join(dir, `${m[2]}.xsd`);
    writeFileSync(xml, unzipEntry(siard, name));
    writeFileSync(xsd, unzipEntry(siard, name.replace(/\.xml$/, '.xsd')));
    const problems = xmllint(xsd, xml)
      .split('\n')
      .filter((l) => l && !/fails to validate$/.test(l))
      .filter((l) => {
        const d = /'(-?(\d+)(?:\.(\d+))?)' is not a valid value of the atomic type 'xs:decimal'/.exec(l);
        if (d && (d[2]!.replace(/^0+/, '') + (d[3] ?? '')).length > 24) {
          long.push(d[1]!);
          return false;
        }
        return true;
      });
    t.deepEqual(problems, [], `${name} is valid against its xsd`);
  }
  t.deepEqual(
    long.sort(),
    [
      '-12345678901234567890123456789012345.123456789012345678901234567890',
      '0.000000000000000000000000000001',
      '1.000000000000000000000000000000',
    ].sort(),
  );
}

/** Column expressions that print every value as text the way the server does, bytes as hex. */
function printable(db: string, table: string): string {
  const cols = server!.client(db, [
    '-B',
    '-N',
    '-e',
    `SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS ` +
      `WHERE TABLE_SCHEMA = '${server!.databaseName(db)}' AND TABLE_NAME = '${table}' ` +
      `ORDER BY ORDINAL_POSITION`,
  ]);
  return cols
    .trim()
    .split('\n')
    .map((l) => l.split('\t') as [string, string])
    .map(([name, type]) => (/blob|binary|bit|geometry|point|linestring|polygon/.test(type) ? `HEX(\`${name}\`)` : `\`${name}\``))
    .join(', ');
}

/** Every row of a table as the server prints it (mariadb -B), sorted. */
function tableText(db: string, table: string): string[] {
  return server!
    .client(db, ['-B', '-N', '-e', `SELECT ${printable(db, table)} FROM \`${table}\``])
    .split('\n')
    .filter(Boolean)
    .sort();
}

function catalogText(db: string, sql: string): string[] {
  return server!
    .client(db, ['-B', '-N', '-e', sql.replace(/\?/g, `'${server!.databaseName(db)}'`)])
    .split('\n')
    .filter(Boolean)
    .sort();
}

function filesUnder(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) files.push(...filesUnder(full));
    else files.push(full);
  }
  return files;
}

mariaTest(
  'the export maps every MariaDB type as docs/mysql.md says, is valid against metadata.xsd and the table XSDs, and splits a large LOB',
  (t) => {
    const metadata = unzipEntry(siard, 'header/metadata.xml').toString('utf8');
    const col = (name: string, type: string, original: string) =>
      new RegExp(
        `<name>${name}</name>(\\s*<lobFolder>[^<]*</lobFolder>)?\\s*<type>${type.replace(/[()]/g, '\\$&')}</type>(\\s*<mimeType>` +
          `[^<]*</mimeType>)?\\s*<typeOriginal>${original.replace(/[()]/g, '\\$&').replace(/'/g, '&apos;')}</typeOriginal>`,
      );
    for (const [name, type, original] of [
      ['u8', 'SMALLINT', 'tinyint(3) unsigned'],
      ['u16', 'INTEGER', 'smallint(5) unsigned'],
      ['u32', 'BIGINT', 'int(10) unsigned'],
      ['u64', 'DECIMAL(20, 0)', 'bigint(20) unsigned'],
      ['exact', 'DECIMAL(65, 30)', 'decimal(65,30)'],
      ['f', 'REAL', 'float'],
      ['d', 'DOUBLE PRECISION', 'double'],
      ['flag', 'BOOLEAN', 'bit(1)'],
      ['bits', 'BINARY(2)', 'bit(10)'],
      ['y', 'SMALLINT', 'year(4)'],
      ['moment', 'TIMESTAMP(6)', 'datetime(6)'],
      ['stamp', 'TIMESTAMP WITH TIME ZONE(3)', 'timestamp(3)'],
      ['clock', 'TIME(2)', 'time(2)'],
      ['latin', 'VARCHAR(30)', 'varchar(30) CHARACTER SET latin1 COLLATE latin1_swedish_ci'],
      ['tiny', 'VARCHAR(255)', 'tinytext CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci'],
      ['tblob', 'VARBINARY(255)', 'tinyblob'],
      ['mood', 'VARCHAR(5)', "enum('sad','ok','happy') COLLATE utf8mb4_general_ci"],
      ['tags', 'VARCHAR(14)', "set('red','green','blue') COLLATE utf8mb4_general_ci"],
      ['doc', 'CLOB', 'longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin'],
      ['place', 'BLOB', 'point'],
      ['u', 'CHAR(36)', 'uuid'],
      ['addr', 'VARCHAR(39)', 'inet6'],
      ['image', 'BLOB', 'longblob'],
      // TIME beyond a day: an interval; zero dates: MariaDB's text
      ['spent', 'INTERVAL DAY(2) TO SECOND(6)', 'time(6)'],
      ['born', 'VARCHAR(10)', 'date'],
      ['seen', 'VARCHAR(19)', 'datetime'],
    ] as const) {
      t.regex(metadata, col(name, type, original), name);
    }
    t.regex(metadata, /<name>doc<\/name>\s*<type>CLOB<\/type>\s*<mimeType>application\/json<\/mimeType>/, 'a MariaDB JSON column says so');
    t.regex(metadata, /<name>place<\/name>[\s\S]*?<description>Geometry as WKB \(ST_AsBinary\); SRID 4326\.<\/description>/);
    t.regex(metadata, /<description>People who buy things<\/description>/, 'table comment as description');
    t.regex(metadata, /<description>Full name, as written by the customer<\/description>/, 'column comment as description');
    t.regex(metadata, /<checkConstraint>\s*<name>rating_range<\/name>\s*<condition>`rating` between 1 and 5<\/condition>/);
    t.regex(
      metadata,
      /<foreignKey>\s*<name>orders_customer<\/name>[\s\S]*?<deleteAction>CASCADE<\/deleteAction>\s*<updateAction>RESTRICT<\/updateAction>/,
    );
    t.regex(metadata, /<candidateKey>\s*<name>customer_email<\/name>/);
    t.regex(metadata, /<view>\s*<name>good_customers<\/name>[\s\S]*?<query(Original)?>select/);
    t.regex(metadata, /<trigger>\s*<name>customer_audit<\/name>/);
    t.regex(metadata, /<databaseProduct>MariaDB 10\.\d+\.\d+<\/databaseProduct>/);
    assertValidBeyondLibxml2Decimals(t);
    const files = filesUnder(out).map((f) => path.relative(out, f));
    t.true(files.some((f) => /\.txt\.0$/.test(f)) && files.some((f) => /\.txt\.z$/.test(f)), 'the 450 KB text is split into .0 ... .z');
    t.true(
      files.some((f) => /\.bin\.0$/.test(f)),
      'the 480 KB blob is split too',
    );
    // a BIGINT UNSIGNED beyond 2^63 and a FLOAT as the shortest text that reads back as that float
    const data = unzipEntry(siard, 'content/schema0/table3/table3.xml').toString('utf8');
    t.regex(data, /<c11>18446744073709551615<\/c11>/);
    t.regex(data, /<c14>0\.1<\/c14>/);
    t.regex(data, /<c15>0\.30000000000000004<\/c15>/);
  },
);

mariaTest(
  'MariaDB -> SIARD -> MariaDB: every value of every table as the server prints it, column types, keys, checks, comments and the view',
  async (t) => {
    const res = await runCli(['restore', siard, server!.url('restored'), '--create', '--verify', '--json']);
    t.is(res.code, 0, res.stderr + res.stdout);
    const summary = JSON.parse(res.stdout) as {
      rows: number;
      lobFiles: number;
      digestsVerified: number;
      warnings: string[];
      notRecreated: Array<{ kind: string; name: string }>;
      verify: VerifyResult;
    };
    // verify (issue 34): every table equal value by value, the archive equal to the source's fingerprints
    t.true(summary.verify.ok, JSON.stringify(summary.verify.tables.filter((x) => !x.equal)));
    t.deepEqual(
      summary.verify.tables.map((x) => x.fingerprint),
      summary.verify.tables.map(() => 'equal'),
    );
    t.is(summary.verify.tables.length, TABLES.length);
    t.deepEqual(summary.warnings, []);
    t.true(summary.lobFiles >= 3);
    t.is(summary.digestsVerified, summary.lobFiles);
    t.deepEqual(
      summary.notRecreated.map((n) => `${n.kind} ${n.name}`),
      [`trigger ${server!.databaseName('restored')}.customer.customer_audit`, 'index indexes other than primary and unique keys'],
    );
    for (const table of TABLES) {
      const want = tableText('source', table);
      t.true(want.length > 0, table);
      t.deepEqual(tableText('restored', table), want, table);
    }
    // column definitions: type, charset, collation, nullability, default, comment (AUTO_INCREMENT is not carried)
    const columns = `SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IFNULL(CHARACTER_SET_NAME, '-'), IFNULL(COLLATION_NAME, '-'),
                            IS_NULLABLE, IFNULL(COLUMN_DEFAULT, '-'), COLUMN_COMMENT
                     FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME <> 'good_customers'`;
    t.deepEqual(catalogText('restored', columns), catalogText('source', columns));
    const constraints =
      `SELECT TABLE_NAME, CONSTRAINT_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS ` + `WHERE TABLE_SCHEMA = ?`;
    t.deepEqual(catalogText('restored', constraints), catalogText('source', constraints));
    const checks = `SELECT TABLE_NAME, CONSTRAINT_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ?`;
    t.deepEqual(catalogText('restored', checks), catalogText('source', checks));
    const rules =
      `SELECT TABLE_NAME, CONSTRAINT_NAME, UPDATE_RULE, DELETE_RULE, REFERENCED_TABLE_NAME FROM ` +
      `information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ?`;
    t.deepEqual(catalogText('restored', rules), catalogText('source', rules));
    const comments = `SELECT TABLE_NAME, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'`;
    t.deepEqual(catalogText('restored', comments), catalogText('source', comments));
    t.deepEqual(tableText('restored', 'good_customers'), tableText('source', 'good_customers'));
    // the restored JSON column still refuses what is not JSON, as the source's does
    t.throws(() => server!.client('restored', ['-e', `INSERT INTO every_type (id, doc) VALUES (99, 'not json')`]), {
      message: /CONSTRAINT `doc` failed/,
    });
  },
);

mariaTest('mariadb:// ingests into an OCFL object that audits clean, and the object restores into MariaDB', async (t) => {
  const root = path.join(work, 'root');
  t.is((await runCli(['init', root])).code, 0);
  const ingest = await runCli([
    'ingest',
    server!.url('source', 'mariadb'),
    '--root',
    root,
    '--id',
    'urn:x:maria',
    '--inline-max',
    '1000',
    '--max-bytes',
    '100000',
  ]);
  t.is(ingest.code, 0, ingest.stderr);
  const audit = await runCli(['audit', '--root', root]);
  t.is(audit.code, 0, audit.stdout + audit.stderr);
  const restored = await runCli(['restore', '--root', root, '--id', 'urn:x:maria', server!.url('from_ocfl'), '--create']);
  t.is(restored.code, 0, restored.stderr);
  for (const table of ['every_type', 'no_key']) t.deepEqual(tableText('from_ocfl', table), tableText('source', table), table);
});

mariaTest('the export names each zero-date column and its first row; --strict refuses them', async (t) => {
  const dir = path.join(work, 'cli-export');
  const res = await runCli(['export', server!.url('source'), dir, '--tables', 'no_key,durations']);
  t.is(res.code, 0, res.stderr);
  t.regex(
    res.stdout,
    new RegExp(
      String.raw`widened: Table "no_key", column "born" \(declared date\) holds zero dates, which no xs:date can, ` +
        String.raw`first at row 1; exported as VARCHAR\(10\) of MariaDB's text\.`,
    ),
  );
  t.regex(
    res.stdout,
    new RegExp(
      String.raw`widened: Table "no_key", column "seen" \(declared datetime\) holds zero dates, which no xs:date ` +
        String.raw`can, first at row 1; exported as VARCHAR\(19\) of MariaDB's text\.`,
    ),
  );
  const strict = await runCli(['export', server!.url('source'), path.join(work, 'strict'), '--tables', 'no_key', '--strict']);
  t.is(strict.code, 2);
  t.regex(strict.stderr, /Strict export refused 2 columns whose values do not fit the declared type: Table "no_key", column "born"/);
});

mariaTest('MariaDB -> SIARD -> SQLite keeps every value exactly (unsigned 64-bit, emoji, latin1, bytes, durations)', async (t) => {
  const file = path.join(work, 'restored.sqlite');
  // --verify (issue 34): every value equal after the SQLite mapping, no column lossy
  const res = await runCli(['restore', siard, file, '--verify', '--json']);
  t.is(res.code, 0, res.stderr + res.stdout);
  t.true((JSON.parse(res.stdout) as { verify: VerifyResult }).verify.ok);
  const db = new Database(file, { readonly: true });
  try {
    const row = db
      .prepare(
        'SELECT u64, word, latin, hex(bin) AS bin, hex(bits) AS bits, flag, length(body) AS body, hex(image) = ? AS image, y, ' +
          'moment, stamp FROM every_type WHERE id = 1',
      )
      .get(server!.client('source', ['-B', '-N', '-e', 'SELECT HEX(image) FROM every_type WHERE id = 1']).trim()) as Record<
      string,
      unknown
    >;
    t.deepEqual(row, {
      u64: '18446744073709551615',
      word: 'emoji 🎉🦄 and ümlaut',
      latin: 'Ærøskøbing €',
      bin: '00010000',
      bits: '02AA',
      flag: 1,
      body: 400000,
      image: 1,
      y: 1901,
      moment: '9999-12-31 23:59:59.999999',
      stamp: '1970-01-01T00:00:01.000Z',
    });
    t.deepEqual(
      (db.prepare('SELECT spent FROM durations ORDER BY id').all() as Array<{ spent: string | null }>).map((r) => r.spent),
      ['-P34DT22H59M59S', 'P34DT22H59M59S', 'P1DT1H0.5S', 'PT0S', '-PT1.000001S', null],
    );
  } finally {
    db.close();
  }
});

testIf(
  postgresAvailable(),
  'PostgreSQL (initdb, pg_ctl) is not installed',
  mariaTest,
)('MariaDB -> SIARD -> PostgreSQL keeps every value exactly', async (t) => {
  const pg = await startPostgres();
  try {
    await pg.createDatabase('from_maria');
    // --verify (issue 34): every value equal after the PostgreSQL mapping, no column lossy
    const res = await runCli(['restore', siard, pg.url('from_maria'), '--verify', '--json']);
    t.is(res.code, 0, res.stderr + res.stdout);
    t.true((JSON.parse(res.stdout) as { verify: VerifyResult }).verify.ok);
    const [row] = await queryRows(
      pg,
      'from_maria',
      `SELECT u64::text, exact::text, f::text, d::text, word, latin, encode(bin, 'hex') AS bin, flag, length(body) AS body, ` +
        `md5(image) AS image, moment::text, stamp::text, clock::text FROM "${server!.databaseName('source')}".every_type WHERE id = 1`,
    );
    t.deepEqual(row, {
      u64: '18446744073709551615',
      exact: '-12345678901234567890123456789012345.123456789012345678901234567890',
      f: '0.1',
      d: '0.30000000000000004',
      word: 'emoji 🎉🦄 and ümlaut',
      latin: 'Ærøskøbing €',
      bin: '00010000',
      flag: true,
      body: 400000,
      image: server!.client('source', ['-B', '-N', '-e', 'SELECT MD5(image) FROM every_type WHERE id = 1']).trim(),
      moment: '9999-12-31 23:59:59.999999',
      stamp: '1970-01-01 00:00:01+00',
      clock: '23:59:59.99',
    });
    const spans = await queryRows<{ s: string | null }>(
      pg,
      'from_maria',
      `SELECT spent::text AS s FROM "${server!.databaseName('source')}".durations ORDER BY id`,
    );
    // TIME beyond a day travelled as INTERVAL DAY TO SECOND: PostgreSQL intervals of the same length
    t.deepEqual(
      spans.map((r) => r.s),
      ['-34 days -22:59:59', '34 days 22:59:59', '1 day 01:00:00.5', '00:00:00', '-00:00:01.000001', null],
    );
  } finally {
    await pg.stop();
  }
});

(HAS_SHARED ? mariaTest : test.skip)('the SIARD samples of MySQL origin restore into MariaDB with every row', async (t) => {
  for (const rel of ['siard2sql/simpledb.siard', 'siard2sql/encoding.siard', 'siardapi/sfdbsakila.siard']) {
    const file = reference('siard-samples', rel);
    const db = `sample_${rel.replace(/[^a-z0-9]+/gi, '_')}`;
    const res = await runCli(['restore', file, server!.url(db), '--create', '--json']);
    t.is(res.code, 0, `${rel}: ${res.stderr}`);
    const summary = JSON.parse(res.stdout) as { tables: Array<{ target: string; rows: number }>; warnings: string[] };
    for (const table of summary.tables) {
      const [schema, name] = table.target.split('.') as [string, string];
      const n = Number(server!.client(schema, ['-B', '-N', '-e', `SELECT COUNT(*) FROM \`${name}\``]).trim());
      t.is(n, table.rows, `${rel} ${table.target}`);
    }
    t.log(
      `${rel}: ${summary.tables.length} tables, ${summary.tables.reduce((a, x) => a + x.rows, 0)} rows, ` +
        `warnings: ${summary.warnings.length ? summary.warnings.join(' | ') : 'none'}`,
    );
  }
});

(HAS_SHARED ? mariaTest : test.skip)(
  "an archive of several schemas restores with --create: each schema its database, the URL's database created too",
  async (t) => {
    // SIARD Suite's sample of Oracle's HR, OE and MDSYS schemas; none is named like the URL's database.
    const file = reference('siard-samples', 'siardapi/sfdboe.siard');
    const others = ['HR', 'OE', 'MDSYS'];
    try {
      const res = await runCli(['restore', file, server!.url('several'), '--create', '--json']);
      t.is(res.code, 0, res.stderr);
      const summary = JSON.parse(res.stdout) as { tables: Array<{ target: string; rows: number }> };
      t.true(summary.tables.length > 0);
      for (const table of summary.tables) {
        const [schema, name] = table.target.split('.') as [string, string];
        t.true(others.includes(schema), table.target);
        const n = Number(server!.client('mysql', ['-B', '-N', '-e', `SELECT COUNT(*) FROM \`${schema}\`.\`${name}\``]).trim());
        t.is(n, table.rows, table.target);
      }
      const name = server!.databaseName('several');
      t.deepEqual(catalogText('mysql', `SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '${name}'`), [name]);
    } finally {
      const drops = others.map((db) => `DROP DATABASE IF EXISTS \`${db}\`;`).join(' ');
      server!.client('mysql', ['-e', `SET FOREIGN_KEY_CHECKS = 0; ${drops}`]); // OE's keys point into HR
    }
  },
);

mariaTest(
  'restoring twice is refused with exit 2 and changes nothing; a changed LOB file leaves the target database without tables',
  async (t) => {
    t.is((await runCli(['restore', siard, server!.url('twice'), '--create'])).code, 0);
    const before = tableText('twice', 'customer');
    const again = await runCli(['restore', siard, server!.url('twice')]);
    t.is(again.code, 2);
    const twice = server!.databaseName('twice');
    t.regex(
      again.stderr,
      new RegExp(`^siard-ocfl: Cannot restore into 127\\.0\\.0\\.1:\\d+/${twice}: it already has a table \`${twice}\`\\.\`\\w+\`\\.\n$`),
    );
    t.deepEqual(tableText('twice', 'customer'), before);

    const copy = path.join(work, 'tampered');
    execFileSync('cp', ['-r', out, copy]);
    const lob = filesUnder(copy).find((f) => /\.bin(\.0)?$/.test(f))!;
    const bytes = readFileSync(lob);
    bytes[0] = bytes[0]! ^ 1;
    writeFileSync(lob, bytes);
    await server!.createDatabase('tampered');
    const res = await runCli(['restore', path.join(copy, 'sample.siard'), server!.url('tampered')]);
    t.is(res.code, 1);
    t.regex(res.stderr, /LOB file "[^"]+" has SHA-256 digest [0-9a-f]{64}, but the cell says [0-9a-f]{64}; restore stopped\./);
    t.deepEqual(catalogText('tampered', 'SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?'), []);
    // --create and a failure: the created database is dropped again
    const created = await runCli(['restore', path.join(copy, 'sample.siard'), server!.url('created_then_dropped'), '--create']);
    t.is(created.code, 1);
    t.deepEqual(
      catalogText(
        'mysql',
        `SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '${server!.databaseName('created_then_dropped')}'`,
      ),
      [],
    );
  },
);

mariaTest('connections that cannot work are exit 2 with one clear sentence', async (t) => {
  const u = new URL(server!.url('source'));
  u.password = 'wrong';
  const bad = await runCli(['export', u.toString(), path.join(work, 'never')]);
  t.is(bad.code, 2);
  t.is(
    bad.stderr,
    `siard-ocfl: MariaDB/MySQL at 127.0.0.1:${server!.port}/${server!.databaseName('source')} ` +
      `refused user "siard_test": wrong password or no access from ` +
      `this host.\n`,
  );
  const missing = await runCli(['export', server!.url('no_such_db'), path.join(work, 'never')]);
  t.is(missing.code, 2);
  t.is(
    missing.stderr,
    `siard-ocfl: Database "${server!.databaseName('no_such_db')}" does not exist ` +
      `on the MariaDB/MySQL server at 127.0.0.1:${server!.port}.\n`,
  );
  const target = await runCli(['restore', siard, server!.url('not_there')]);
  t.is(target.code, 2);
  t.is(
    target.stderr,
    `siard-ocfl: Database "${server!.databaseName('not_there')}" does not exist ` +
      `on the MariaDB/MySQL server at 127.0.0.1:${server!.port}; add --create to ` +
      `create it.\n`,
  );
  const noDb = await runCli(['export', `mysql://siard_test@127.0.0.1:${server!.port}`, path.join(work, 'never')]);
  t.is(noDb.code, 2);
  t.regex(noDb.stderr, /names no database; the form is mysql:\/\/user:password@host:port\/database\.\n$/);
});
