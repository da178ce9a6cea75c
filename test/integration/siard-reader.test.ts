/**
 * The SIARD reader over every sample archive in ../shared/reference/siard-samples.
 * Expected values come from the archives themselves, read by an independent tool (`unzip -p` and
 * regular expressions over the XML), never from the code under test.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import {
  SiardReader,
  findUnreferencedLobFiles,
  lookupLob,
  openFoundLob,
  openLob,
  packageLobAccess,
  verifyLob,
  verifyArchiveMessageDigest,
  mappedLobAccess,
  pathListLister,
  isComplexValue,
  type LobPart,
  type SiardLobCell,
  type SiardReadRow,
} from '../../src/siard/reader/index.js';
import { isLobReference } from '../../src/siard/model.js';
import { SiardOcflError } from '../../src/errors.js';
import { HAS_SHARED, reference, sharedTest } from '../helpers/shared.js';

const SAMPLES = reference('siard-samples');

function allSiardFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...allSiardFiles(full));
    else if (name.endsWith('.siard')) out.push(full);
  }
  return out.sort();
}

function unzipText(file: string, entry: string): string {
  return execFileSync('unzip', ['-p', file, entry], { maxBuffer: 256 * 1024 * 1024 }).toString('utf8');
}
function unzipList(file: string): string[] {
  return execFileSync('unzip', ['-Z1', file], { maxBuffer: 64 * 1024 * 1024 })
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '');
}

/** What an independent reading of the archive says: metadata path, tables with <rows>, LOB cells. */
function oracle(file: string): { metaEntry: string; tables: Array<{ rows: number }>; lobCells: number; xmlRows: number[] } {
  const entries = unzipList(file);
  const metaEntry = entries.filter((e) => e.endsWith('header/metadata.xml')).sort((a, b) => a.length - b.length)[0]!;
  const meta = unzipText(file, metaEntry);
  const tablesXml = [...meta.matchAll(/<table>([\s\S]*?)<\/table>/g)].map((m) => m[1]!);
  const tables = tablesXml.map((t) => ({ rows: Number(/<rows>\s*(\d+)\s*<\/rows>/.exec(t)?.[1] ?? 'NaN') }));
  const root = metaEntry.slice(0, metaEntry.length - 'header/metadata.xml'.length);
  const tableXmls = entries.filter((e) => e.startsWith(`${root}content/`) && /\/table\d+\/table\d+\.xml$/.test(e));
  let lobCells = 0;
  const xmlRows: number[] = [];
  for (const x of tableXmls) {
    const text = unzipText(file, x);
    lobCells += (text.match(/<[a-z]\d+\b[^>]*\sfile="/g) ?? []).length;
    xmlRows.push((text.match(/<row>/g) ?? []).length);
  }
  return { metaEntry, tables, lobCells, xmlRows: xmlRows.sort((a, b) => a - b) };
}

/** The arkade5 sample copies lost the CR of CRLF line ends in their text LOB files (git normalisation). */
function restoreCrlf(): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      const out: number[] = [];
      for (const b of chunk) {
        if (b === 0x0a) out.push(0x0d);
        out.push(b);
      }
      cb(null, Buffer.from(out));
    },
  });
}

const files = HAS_SHARED ? allSiardFiles(SAMPLES) : [];
const rel = (f: string) => path.relative(SAMPLES, f);

sharedTest('the sample folder holds the archives the reference README lists', (t) => {
  const names = files.map(rel);
  for (const expected of [
    'arkade5/dbPtk/external/dbptk.siard',
    'arkade5/siardGui/external/siardGui.siard',
    'arkade5/fullConvert/external/scfc.siard',
    'arkade5/externalLobsMissing/dbptk.siard',
    'siardapi/sql2008.siard',
    'siardapi/sql1999.siard',
    'siard2sql/encoding.siard',
    'dbptk/example.siard',
  ]) {
    t.true(names.includes(expected), expected);
  }
});

for (const file of files) {
  sharedTest(`${rel(file)}: metadata parses, every table streams with <rows> rows`, async (t) => {
    const expected = oracle(file);
    const reader = await SiardReader.open(file);
    try {
      const tables = reader.tables();
      t.is(tables.length, expected.tables.length, 'table count');
      t.deepEqual(
        tables.map((x) => x.table.rows),
        expected.tables.map((x) => x.rows),
        'rows per table as metadata.xml states',
      );
      t.true(['1.0', '2.1', '2.2'].includes(reader.metadata.siardVersion));
      const streamed: number[] = [];
      let lobCells = 0;
      for (const table of tables) {
        t.regex(table.folder, /^content\/schema\d+\/table\d+$/);
        let n = 0;
        for await (const row of reader.rows(table)) {
          n += 1;
          t.is(row.index, n);
          t.is(row.cells.length, table.table.columns.length);
        }
        t.is(n, table.table.rows, `${table.table.name}: rows streamed equal <rows>`);
        streamed.push(n);
        for await (const _ of reader.lobCells(table)) lobCells += 1;
      }
      t.deepEqual(
        [...streamed].sort((a, b) => a - b),
        expected.xmlRows,
        '<row> elements per table XML',
      );
      t.is(lobCells, expected.lobCells, 'every cell with a file attribute is reported as a LOB');
    } finally {
      reader.close();
    }
  });
}

/** Looks every LOB up; returns the found parts and verification outcome per cell. */
async function checkAllLobs(file: string) {
  const reader = await SiardReader.open(file);
  const access = packageLobAccess(reader);
  const parts: LobPart[] = [];
  const results: Array<{
    cell: SiardLobCell;
    status: string;
    ok?: boolean;
    okAfterCrlf?: boolean;
    lengthUnit?: string;
    multiByte?: boolean;
  }> = [];
  try {
    for (const table of reader.tables()) {
      for await (const cell of reader.lobCells(table)) {
        const lookup = await lookupLob(reader, cell, access);
        if (lookup.status !== 'found') {
          results.push({ cell, status: lookup.status });
          continue;
        }
        parts.push(...lookup.found.parts);
        const v = await verifyLob(openFoundLob(lookup.found, access), cell.ref, { family: cell.family });
        let okAfterCrlf: boolean | undefined;
        let used = v;
        if (!v.ok) {
          const again = await verifyLob(openFoundLob(lookup.found, access).pipe(restoreCrlf()), cell.ref, { family: cell.family });
          okAfterCrlf = again.ok;
          if (again.ok) used = again;
        }
        results.push({
          cell,
          status: 'found',
          ok: v.ok,
          ...(okAfterCrlf !== undefined ? { okAfterCrlf } : {}),
          ...(used.lengthUnit ? { lengthUnit: used.lengthUnit } : {}),
          multiByte: used.codePoints !== undefined && used.codePoints !== used.bytes,
        });
      }
    }
    const unreferenced = await findUnreferencedLobFiles(reader, parts);
    return { reader, results, unreferenced };
  } finally {
    reader.close();
  }
}

for (const file of files) {
  const r = rel(file);
  const lobsAbsent = r === 'arkade5/externalLobsMissing/dbptk.siard' || r === 'arkade5/dbptk_produced.siard';
  if (lobsAbsent) continue;
  sharedTest(`${r}: every LOB cell is found and its length and digest verify`, async (t) => {
    const { results } = await checkAllLobs(file);
    t.is(results.length, oracle(file).lobCells, 'LOB cells checked');
    for (const x of results) {
      t.is(x.status, 'found', `${x.cell.ref.file} found`);
      // The arkade5 copies of text LOBs lost their CRs; with them restored every digest matches.
      t.true(x.ok === true || (r.startsWith('arkade5/') && x.okAfterCrlf === true), `${x.cell.ref.file} verifies`);
    }
  });
}

sharedTest(
  'external LOBs of DBPTK (_lobseg_1), SiardGui (../lobs/), Full Convert (back-slashes) and SiardApi sql2008 (lobs/) are found ' +
    'beside the .siard',
  async (t) => {
    const cases: Array<[string, RegExp, number]> = [
      [
        'arkade5/dbPtk/external/dbptk.siard',
        /^t01bclob12_dbptk-desktop-2\.5\.9_ext\.siard_lobseg_1\/content\/schema1\/table[12]\/lob9\/record\d+\.(bin|txt)$/,
        35,
      ],
      ['arkade5/siardGui/external/siardGui.siard', /^lobs\/(blobs\/record\d+\.bin|clobs\/record\d+\.txt)$/, 35],
      [
        'arkade5/fullConvert/external/scfc.siard',
        /^t01bclob12_scfc1654_ext\.siard_documents\/content\/schema0\/table[01]\/lob9\/seg0\/rec\d+\.(bin|txt)$/,
        29,
      ],
      ['siardapi/sql2008.siard', /^lobs\/(record0\.txt|field\/record0\.flac|field\/field\/record0\.txt)$/, 3],
    ];
    for (const [name, pattern, count] of cases) {
      const reader = await SiardReader.open(path.join(SAMPLES, name));
      try {
        const access = packageLobAccess(reader);
        let external = 0;
        for (const table of reader.tables()) {
          for await (const cell of reader.lobCells(table)) {
            const lookup = await lookupLob(reader, cell, access);
            if (lookup.status === 'found' && lookup.found.target.kind === 'external') {
              external += 1;
              t.regex(lookup.found.target.path, pattern, name);
              t.true(statSync(path.join(path.dirname(reader.file), lookup.found.target.path)).isFile());
            }
          }
        }
        t.is(external, count, `${name}: external LOB count`);
      } finally {
        reader.close();
      }
    }
  },
);

sharedTest('digests: SiardGui writes upper-case MD5 and is compared case-insensitively; DBPTK SHA-256', async (t) => {
  const gui = await checkAllLobs(path.join(SAMPLES, 'arkade5/siardGui/external/siardGui.siard'));
  const binaries = gui.results.filter((x) => x.cell.family === 'blob' && x.ok === true);
  t.true(binaries.length >= 20, 'binary LOBs (PDF, DOC, JPEG...) verify as stored');
  t.true(gui.results.every((x) => x.cell.ref.digestType === 'MD5'));
  const raw = unzipText(path.join(SAMPLES, 'arkade5/siardGui/external/siardGui.siard'), 'content/schema0/table1/table1.xml');
  t.regex(raw, /digest="[0-9A-F]{32}"/, 'the sample really is upper-case');
  const dbptk = await checkAllLobs(path.join(SAMPLES, 'arkade5/dbPtk/external/dbptk.siard'));
  t.true(dbptk.results.every((x) => x.cell.ref.digestType === 'SHA-256'));
});

sharedTest('CLOB length: SiardGui counts characters, DBPTK and Full Convert count bytes, SiardApi code points', async (t) => {
  /** Length units of the CLOBs whose byte and character counts differ (the only ones that tell). */
  const unitsOf = async (name: string) => {
    const { results } = await checkAllLobs(path.join(SAMPLES, name));
    const telling = results.filter((x) => x.cell.family === 'clob' && x.multiByte && (x.ok || x.okAfterCrlf));
    t.true(telling.length > 0, `${name} has CLOBs with multi-byte characters`);
    return [...new Set(telling.map((x) => x.lengthUnit))].sort();
  };
  t.deepEqual(await unitsOf('arkade5/siardGui/external/siardGui.siard'), ['code points']);
  t.deepEqual(await unitsOf('arkade5/dbPtk/external/dbptk.siard'), ['bytes']);
  t.deepEqual(await unitsOf('arkade5/fullConvert/external/scfc.siard'), ['bytes']);
  // SiardFromDb (Java) counts UTF-16 units: where a CLOB has characters beyond U+FFFF its length
  // matches only the UTF-16 count; elsewhere code points and UTF-16 units coincide.
  t.deepEqual(await unitsOf('siard2sql/encoding.siard'), ['UTF-16 units', 'code points']);
});

sharedTest('externalLobsMissing: every external LOB is reported missing, naming the path looked for', async (t) => {
  const file = path.join(SAMPLES, 'arkade5/externalLobsMissing/dbptk.siard');
  const { results } = await checkAllLobs(file);
  t.is(results.length, 35);
  t.true(results.every((x) => x.status === 'missing'));
  const reader = await SiardReader.open(file);
  try {
    const [table] = reader.tables().filter((x) => x.table.columns.some((c) => c.lobFolder));
    for await (const cell of reader.lobCells(table!)) {
      const err = await t.throwsAsync(openLob(reader, cell), { instanceOf: SiardOcflError });
      t.regex(
        err!.message,
        /is missing \(looked for t01bclob12_dbptk-desktop-2\.5\.9_ext\.siard_lobseg_1\/content\/schema1\/table1\/lob9\/record\d+\.bin\)/,
      );
      t.regex(err!.message, /row \d+, column blobscol/);
      break;
    }
  } finally {
    reader.close();
  }
});

sharedTest('the intentional unreferenced files are detected, and nothing else', async (t) => {
  const cases: Array<[string, string[]]> = [
    [
      'arkade5/dbPtk/external/dbptk.siard',
      ['t01bclob12_dbptk-desktop-2.5.9_ext.siard_lobseg_1/content/schema1/table1/lob9/unreferenced-file.bin'],
    ],
    ['arkade5/siardGui/external/siardGui.siard', ['lobs/blobs/unreferenced-file.bin']],
    [
      'arkade5/fullConvert/external/scfc.siard',
      ['t01bclob12_scfc1654_ext.siard_documents/content/schema0/table0/lob9/seg0/unreferenced-file.bin'],
    ],
  ];
  for (const [name, expected] of cases) {
    const { unreferenced } = await checkAllLobs(path.join(SAMPLES, name));
    t.deepEqual(unreferenced.external, expected, name);
    t.deepEqual(unreferenced.internal, [], name);
  }
  const internalOnly = await checkAllLobs(path.join(SAMPLES, 'siardapi/sfdbsakila.siard'));
  t.deepEqual(internalOnly.unreferenced, { internal: [], external: [] }, 'sakila: all 2,604 internal LOB files are referenced');
});

sharedTest('SIARD 1.0: namespace, messageDigest "MD5<hex>", content under a top folder, internal LOBs', async (t) => {
  const reader = await SiardReader.open(path.join(SAMPLES, 'arkade5/siard1_med_blobs.siard'));
  try {
    t.is(reader.metadata.siardVersion, '1.0');
    t.is(reader.metadata.namespace, 'http://www.bar.admin.ch/xmlns/siard/1.0/metadata.xsd');
    t.deepEqual(reader.archive.messageDigests, [{ digestType: 'MD5', digest: '5959037b64a4323b8fec41654703c7be' }]);
    t.is(reader.root, 'siard1_med_blobs/');
    t.true(reader.warnings.some((w) => w.includes('siard1_med_blobs/')));
  } finally {
    reader.close();
  }
  const sql1999 = await SiardReader.open(path.join(SAMPLES, 'siardapi/sql1999.siard'));
  try {
    t.is(sql1999.root, '');
    t.deepEqual(sql1999.archive.messageDigests, [{ digestType: 'MD5', digest: 'da01018d7d7fac63020d2e9be4a020b9' }]);
    const lobColumns = sql1999.metadata.columnExtras[0]![0]!.map((x) => x.folder).filter((f) => f !== undefined);
    t.deepEqual(
      lobColumns,
      ['lob3', 'lob7', 'lob19'].filter((f) => lobColumns.includes(f)),
    );
    t.true(lobColumns.length >= 2, 'SIARD 1.0 <folder> of LOB columns is kept');
  } finally {
    sql1999.close();
  }
});

sharedTest('SIARD 2.2 messageDigest element form (siard2sql encoding.siard), keys and views', async (t) => {
  const reader = await SiardReader.open(path.join(SAMPLES, 'siard2sql/encoding.siard'));
  try {
    t.deepEqual(reader.archive.messageDigests, [{ digestType: 'MD5', digest: 'fddc918baa052b7bbc4e0f2e2f9b967e' }]);
    t.is(reader.archive.version, '2.2');
    const check = await verifyArchiveMessageDigest(reader);
    t.true(check!.checks[0]!.ok, 'MD5 over the bytes before header/ equals the stated messageDigest');
  } finally {
    reader.close();
  }
  const oe = await SiardReader.open(path.join(SAMPLES, 'siardapi/ech-0165_oe.siard'));
  try {
    const meta = unzipText(path.join(SAMPLES, 'siardapi/ech-0165_oe.siard'), 'header/metadata.xml');
    const count = (re: RegExp) => (meta.match(re) ?? []).length;
    const tables = oe.archive.schemas.flatMap((s) => s.tables);
    t.is(tables.filter((x) => x.primaryKey).length, count(/<primaryKey>/g));
    t.is(
      tables.reduce((n, x) => n + x.foreignKeys.length, 0),
      count(/<foreignKey>/g),
    );
    t.is(
      oe.archive.schemas.reduce((n, s) => n + s.views.length, 0),
      count(/<view>/g),
    );
    const fk = tables.flatMap((x) => x.foreignKeys)[0]!;
    t.truthy(fk.referencedTable);
    t.true(fk.references.length > 0 && fk.references.every((r) => r.column !== '' && r.referenced !== ''));
  } finally {
    oe.close();
  }
});

sharedTest('sql2008: nested ARRAY and UDT values, NULL elements, field-level lobFolders, hex BLOBs, escapes', async (t) => {
  const reader = await SiardReader.open(path.join(SAMPLES, 'siardapi/sql2008.siard'));
  try {
    const complex = reader.table('TESTSCHEMA', 'TESTCOMPLEXTABLE');
    const rows: SiardReadRow[] = [];
    for await (const row of reader.rows(complex)) rows.push(row);
    t.is(rows.length, 1);
    const [c1, , c3, c4, c5] = rows[0]!.cells;
    t.is(c1, '1234567890');
    t.true(isComplexValue(c3!) && c3.kind === 'udt');
    if (isComplexValue(c3!)) t.is(c3.elements.get(1), '12345');
    t.true(isComplexValue(c4!) && c4.kind === 'array');
    if (isComplexValue(c4!)) {
      t.is(c4.elements.get(1), 'element 1');
      t.false(c4.elements.has(2), 'a2 absent = NULL element');
      t.is(c4.elements.get(4), 'element 4');
    }
    t.true(isComplexValue(c5!));
    const cells: SiardLobCell[] = [];
    for await (const cell of reader.lobCells(complex)) cells.push(cell);
    const flac = cells.find((c) => c.ref.file === 'record0.flac')!;
    t.deepEqual(flac.cellPath, ['c3', 'u3']);
    t.deepEqual(flac.lobFolders, [undefined, '../lobs/field/']);
    t.is(flac.mimeType, 'audio/x-flac');
    const nested = cells.find((c) => c.cellPath.join('/') === 'c5/u2/u2')!;
    t.deepEqual(nested.lobFolders, [undefined, undefined, '../lobs/field/field/']);
    t.is(reader.locate(nested).primary.kind, 'external');
    // Inline binary: hex in the XML, bytes here.
    const simple = reader.tables().find((x) => x.table.name !== 'TESTCOMPLEXTABLE')!;
    for await (const row of reader.rows(simple)) {
      simple.table.columns.forEach((col, i) => {
        const v = row.cells[i];
        if (/^(BINARY|VARBINARY|BINARY VARYING)/i.test(col.type ?? '') && v !== null && v !== undefined)
          t.true(v instanceof Uint8Array, col.name);
        if (v !== null && v !== undefined && isLobReference(v as never)) t.truthy((v as { file: string }).file);
      });
    }
  } finally {
    reader.close();
  }
  const sample = await SiardReader.open(path.join(SAMPLES, 'siardapi/sample.siard'));
  try {
    // table0.xml of sample.siard holds \u005C escapes: none may survive unescaping.
    const raw = unzipText(path.join(SAMPLES, 'siardapi/sample.siard'), 'content/schema0/table0/table0.xml');
    t.regex(raw, /\\u005C/);
    let backslashes = 0;
    for await (const row of sample.rows(sample.tables()[0]!)) {
      for (const v of row.cells)
        if (typeof v === 'string') {
          t.notRegex(v, /\\u00[0-9A-Fa-f]{2}/);
          backslashes += (v.match(/\\/g) ?? []).length;
        }
    }
    t.is(backslashes, (raw.match(/\\u005C/gi) ?? []).length, 'each \\u005C became one back-slash');
  } finally {
    sample.close();
  }
});

sharedTest('Full Convert back-slash lobFolder is tolerated with a warning', async (t) => {
  const reader = await SiardReader.open(path.join(SAMPLES, 'arkade5/fullConvert/external/scfc.siard'));
  try {
    t.is(reader.archive.lobFolder, '..\\t01bclob12_scfc1654_ext.siard_documents\\content');
    t.true(
      reader.warnings.some((w) => /back-slashes/.test(w)),
      'one warning at open',
    );
    const [table] = reader.tables().filter((x) => x.table.columns.some((c) => c.lobFolder));
    for await (const cell of reader.lobCells(table!)) {
      const loc = reader.locate(cell);
      t.true(loc.warnings.some((w) => /back-slash/.test(w)));
      t.is(loc.primary.kind, 'external');
      break;
    }
  } finally {
    reader.close();
  }
});

sharedTest('reading a row stream early and stopping releases the entry (no hang, reader reusable)', async (t) => {
  const reader = await SiardReader.open(path.join(SAMPLES, 'siardapi/sfdbsakila.siard'));
  try {
    const big = reader.tables().sort((a, b) => b.table.rows - a.table.rows)[0]!;
    for (let i = 0; i < 3; i++) {
      let n = 0;
      for await (const _ of reader.rows(big)) if (++n === 5) break;
      t.is(n, 5);
    }
  } finally {
    reader.close();
  }
});

sharedTest('package known by logical paths (as in an OCFL object): siardPath in a subfolder, mapped access and listing', async (t) => {
  // The DBPTK sample as if stored in an object under "db/": logical path -> file on disk.
  const base = path.join(SAMPLES, 'arkade5/dbPtk/external');
  const listing = (dir: string, prefix = ''): string[] =>
    readdirSync(path.join(base, dir)).flatMap((n) => {
      const rel = dir ? `${dir}/${n}` : n;
      return statSync(path.join(base, rel)).isDirectory() ? listing(rel, prefix) : [rel];
    });
  const logical = new Map(listing('').map((p) => [`db/${p}`, path.join(base, p)] as const));
  const reader = await SiardReader.open(path.join(base, 'dbptk.siard'), { siardPath: 'db/dbptk.siard' });
  try {
    const access = mappedLobAccess(reader, (p) => logical.get(p));
    const parts: LobPart[] = [];
    let checked = 0;
    for (const table of reader.tables()) {
      for await (const cell of reader.lobCells(table)) {
        const lookup = await lookupLob(reader, cell, access);
        t.is(lookup.status, 'found');
        if (lookup.status !== 'found') continue;
        t.true(lookup.found.parts.every((p) => p.kind === 'external' && logical.has(p.path) && p.path.startsWith('db/')));
        parts.push(...lookup.found.parts);
        const v = await verifyLob(openFoundLob(lookup.found, access), cell.ref, { family: cell.family });
        t.is(v.bytes, statSync(logical.get((lookup.found.parts[0] as { path: string }).path)!).size);
        checked += 1;
      }
    }
    t.is(checked, 35);
    const unreferenced = await findUnreferencedLobFiles(reader, parts, pathListLister(logical.keys()));
    t.deepEqual(unreferenced.external, [
      'db/t01bclob12_dbptk-desktop-2.5.9_ext.siard_lobseg_1/content/schema1/table1/lob9/unreferenced-file.bin',
    ]);
  } finally {
    reader.close();
  }
});
