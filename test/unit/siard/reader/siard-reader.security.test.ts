/**
 * The SIARD reader against hostile and unusual archives built here: entity attacks in the XML,
 * LOB cells pointing out of the package (`../`, `file:///`, encoded slashes, symbolic links),
 * split LOBs (lobseg `.0`..`.z`, siard22 `_part001`..), internal LOBs named from the table folder,
 * stray segment folders, and a large table streamed in constant memory.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { SiardOcflError } from '../../../../src/errors.js';
import { ZipWriter } from '../../../../src/siard/zip/writer.js';
import {
  SiardReader,
  findUnreferencedLobFiles,
  lookupLob,
  openLob,
  packageLobAccess,
  parseSiardMetadata,
  readTableRows,
  verifyLob,
  verifyArchiveMessageDigest,
  type LobPart,
  type SiardLobCell,
} from '../../../../src/siard/reader/index.js';
import { tempDir } from '../../../helpers/tmp.js';

const NS = 'http://www.bar.admin.ch/xmlns/siard/2/metadata.xsd';

function metadataXml(options: { dbLobFolder?: string; columnLobFolder?: string; rows: number; extra?: string }): string {
  const columnLobFolder = options.columnLobFolder !== undefined ? `<lobFolder>${options.columnLobFolder}</lobFolder>` : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<siardArchive xmlns="${NS}" version="2.2">
  <dbname>x</dbname><dataOwner>o</dataOwner><dataOriginTimespan>t</dataOriginTimespan>
  ${options.dbLobFolder !== undefined ? `<lobFolder>${options.dbLobFolder}</lobFolder>` : ''}
  <producerApplication>siard-ocfl test</producerApplication>
  <archivalDate>2026-11-21Z</archivalDate>
  <messageDigest><digestType>SHA-256</digestType><digest>${'AB'.repeat(32)}</digest></messageDigest>
  <schemas><schema><name>s</name><folder>schema0</folder><tables><table>
    <name>t</name><folder>table0</folder>
    <columns>
      <column><name>id</name><type>INTEGER</type></column>
      <column><name>data</name>${columnLobFolder}<type>BLOB</type></column>
    </columns>
    <rows>${options.rows}</rows>
  </table></tables></schema></schemas>
  ${options.extra ?? ''}
</siardArchive>`;
}

function tableXml(cells: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<table xmlns="http://www.bar.admin.ch/xmlns/siard/2/table.xsd" version="2.2">
${cells.map((c, i) => `<row><c1>${i + 1}</c1>${c}</row>`).join('\n')}
</table>`;
}

async function writeSiard(file: string, metadata: string, table: string | Readable, extra: Record<string, Buffer> = {}): Promise<void> {
  const zip = await ZipWriter.create(file);
  await zip.addStream('content/schema0/table0/table0.xml', typeof table === 'string' ? Readable.from([Buffer.from(table)]) : table);
  for (const [name, data] of Object.entries(extra)) await zip.addBuffer(name, data);
  await zip.addBuffer('header/metadata.xml', metadata);
  await zip.close();
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
function lobCell(file: string, data: Buffer): string {
  return `<c2 file="${file}" length="${data.length}" digestType="SHA-256" digest="${sha256(data)}"/>`;
}

async function cellsOf(reader: SiardReader): Promise<SiardLobCell[]> {
  const out: SiardLobCell[] = [];
  for await (const c of reader.lobCells(reader.tables()[0]!)) out.push(c);
  return out;
}

test('metadata with a DOCTYPE (billion laughs, external entity) is refused, nothing expanded', (t) => {
  const laughs =
    `<?xml version="1.0"?><!DOCTYPE siardArchive [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;` +
    `&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><siardArchive xmlns="${NS}" version="2.2"><dbname>&c;</dbname></siardArchive>`;
  const e1 = t.throws(() => parseSiardMetadata(laughs, 'laughs.xml'), { instanceOf: SiardOcflError });
  t.regex(e1!.message, /DOCTYPE/);
  const xxe =
    `<?xml version="1.0"?><!DOCTYPE siardArchive [<!ENTITY x SYSTEM "file:///etc/passwd">]><siardArchive ` +
    `xmlns="${NS}" version="2.2"><dbname>&x;</dbname></siardArchive>`;
  t.throws(() => parseSiardMetadata(xxe, 'xxe.xml'), { instanceOf: SiardOcflError });
  // Even without a DOCTYPE, an undeclared entity is an error, never left in the text.
  const undeclared = `<siardArchive xmlns="${NS}" version="2.2"><dbname>&x;</dbname></siardArchive>`;
  t.throws(() => parseSiardMetadata(undeclared, 'u.xml'), { instanceOf: SiardOcflError });
});

test('table XML with a DOCTYPE or broken XML fails naming the table and row', async (t) => {
  const columns = [{ name: 'id', type: 'INTEGER' }];
  const run = async (xml: string) => {
    const rows = [];
    for await (const r of readTableRows(Readable.from([Buffer.from(xml)]), { what: 'x.siard: table s.t', columns })) rows.push(r);
    return rows;
  };
  const e1 = await t.throwsAsync(run('<!DOCTYPE table [<!ENTITY a "b">]><table><row><c1>&a;</c1></row></table>'), {
    instanceOf: SiardOcflError,
  });
  t.regex(e1!.message, /x\.siard: table s\.t/);
  const e2 = await t.throwsAsync(run('<table><row><c1>1</c1></row><row><c1>2</c2></row></table>'), { instanceOf: SiardOcflError });
  t.regex(e2!.message, /row 2/);
  const e3 = await t.throwsAsync(run('<table><row><c1>1</c1><c2>2</c2></row></table>'), { instanceOf: SiardOcflError });
  t.regex(e3!.message, /row 1.*c2|<c2>/);
});

test('escapes and inline values: \\u00XX unescaped, empty string kept apart from NULL, hex decoded', async (t) => {
  const columns = [
    { name: 'a', type: 'VARCHAR(10)' },
    { name: 'b', type: 'VARCHAR(10)' },
    { name: 'c', type: 'VARBINARY(10)' },
    { name: 'd', type: 'CLOB' },
  ];
  const xml = '<table><row><c1>x\\u005Cy\\u0020\\u0020z\\u0001</c1><c2></c2><c3>00ff10</c3></row></table>';
  const rows = [];
  for await (const r of readTableRows(Readable.from([Buffer.from(xml)]), { what: 't', columns })) rows.push(r);
  t.deepEqual(rows[0]!.cells, ['x\\y  z\u0001', '', new Uint8Array([0, 255, 16]), null]);
});

test('LOB cells pointing out of the package are reported, and opening them is refused', async (t) => {
  const dir = await tempDir();
  const pkg = path.join(dir, 'pkg');
  const good = Buffer.from('good lob bytes');
  await mkdir(path.join(pkg, 'x_lobseg_0/content/schema0/table0/lob2'), { recursive: true });
  await writeFile(path.join(pkg, 'x_lobseg_0/content/schema0/table0/lob2/record0.bin'), good);
  // A secret beside the package: reachable with ../ from the package folder.
  await writeFile(path.join(dir, 'secret.bin'), 'secret');
  await symlink(path.join(dir, 'secret.bin'), path.join(pkg, 'x_lobseg_0/content/schema0/table0/lob2/record9.bin'));
  const files = [
    'x_lobseg_0/content/schema0/table0/lob2/record0.bin',
    '../secret.bin',
    '../../../../etc/passwd',
    'file:///etc/passwd',
    '..%2f..%2fetc%2fpasswd',
    '%2e%2e/secret.bin',
    'x_lobseg_0/content/schema0/table0/lob2/record9.bin',
    'x_lobseg_0/content/schema0/table0/lob2/record7.bin',
  ];
  await writeSiard(
    path.join(pkg, 'x.siard'),
    metadataXml({ dbLobFolder: '../', columnLobFolder: './', rows: files.length }),
    tableXml(files.map((f) => lobCell(f, good))),
  );
  const reader = await SiardReader.open(path.join(pkg, 'x.siard'));
  try {
    const cells = await cellsOf(reader);
    const status = [];
    for (const cell of cells) status.push((await lookupLob(reader, cell)).status);
    t.deepEqual(status.slice(0, 6), ['found', 'outside', 'outside', 'outside', 'invalid', 'outside']);
    t.is(status[6], 'outside', 'a symbolic link out of the package counts as outside');
    t.is(status[7], 'missing');
    const opened = await openLob(reader, cells[0]!);
    t.true((await verifyLob(opened, cells[0]!.ref)).ok);
    for (const i of [1, 2, 3, 5]) {
      const err = await t.throwsAsync(openLob(reader, cells[i]!), { instanceOf: SiardOcflError });
      t.regex(err!.message, /refusing to read outside the package folder/);
      t.regex(err!.message, new RegExp(`row ${i + 1}, column data`));
    }
    const invalid = await t.throwsAsync(openLob(reader, cells[4]!), { instanceOf: SiardOcflError });
    t.regex(invalid!.message, /path separator/);
    // The symbolic link inside the package that leads to the secret is refused, not followed.
    const link = await t.throwsAsync(openLob(reader, cells[6]!), { instanceOf: SiardOcflError });
    t.regex(link!.message, /symbolic link/);
    const missing = await t.throwsAsync(openLob(reader, cells[7]!), { instanceOf: SiardOcflError });
    t.regex(missing!.message, /is missing/);
  } finally {
    reader.close();
  }
});

test('split LOBs: lobseg .0/.1/.z over segment folders and siard22 _part001.. are joined and verified', async (t) => {
  const dir = await tempDir();
  const whole = Buffer.from(Array.from({ length: 10_000 }, (_, i) => i % 251));
  const lobseg = [whole.subarray(0, 1000), whole.subarray(1000, 6000), whole.subarray(6000)];
  const at = (p: string) => path.join(dir, p);
  for (const [i, name] of [
    [0, 'x_lobseg_0/content/schema0/table0/lob2/record0.bin.0'],
    [1, 'x_lobseg_1/content/schema0/table0/lob2/record0.bin.1'],
    [2, 'x_lobseg_2/content/schema0/table0/lob2/record0.bin.z'],
  ] as const) {
    await mkdir(path.dirname(at(name)), { recursive: true });
    await writeFile(at(name), lobseg[i]!);
  }
  // A later, ordinary LOB in the last segment, and a stray file in a segment folder nobody references.
  await writeFile(at('x_lobseg_2/content/schema0/table0/lob2/record1.bin'), 'small');
  await mkdir(at('x_lobseg_3/content'), { recursive: true });
  await writeFile(at('x_lobseg_3/content/stray.bin'), 'stray');
  const siard22 = [whole.subarray(0, 4000), whole.subarray(4000)];
  await mkdir(at('x_lobs/s0_t0_c2/seg_0'), { recursive: true });
  await mkdir(at('x_lobs/s0_t0_c2/seg_1'), { recursive: true });
  await writeFile(at('x_lobs/s0_t0_c2/seg_0/t0_c2_r3.bin_part001'), siard22[0]!);
  await writeFile(at('x_lobs/s0_t0_c2/seg_1/t0_c2_r3.bin_part002'), siard22[1]!);
  await writeSiard(
    at('x.siard'),
    metadataXml({ dbLobFolder: '../', columnLobFolder: './', rows: 3 }),
    tableXml([
      lobCell('x_lobseg_0/content/schema0/table0/lob2/record0.bin', whole),
      lobCell('x_lobseg_2/content/schema0/table0/lob2/record1.bin', Buffer.from('small')),
      lobCell('x_lobs/s0_t0_c2/seg_0/t0_c2_r3.bin', whole),
    ]),
  );
  const reader = await SiardReader.open(at('x.siard'));
  try {
    const cells = await cellsOf(reader);
    const access = packageLobAccess(reader);
    const parts: LobPart[] = [];
    const splits: string[] = [];
    for (const cell of cells) {
      const lookup = await lookupLob(reader, cell, access);
      t.is(lookup.status, 'found');
      if (lookup.status !== 'found') continue;
      parts.push(...lookup.found.parts);
      splits.push(lookup.found.split);
      const v = await verifyLob(await openLob(reader, cell, access), cell.ref);
      t.true(v.ok, cell.ref.file);
      t.is(v.bytes, cell.ref.length);
    }
    t.deepEqual(splits, ['lobseg', 'whole', 'siard22']);
    const unreferenced = await findUnreferencedLobFiles(reader, parts);
    t.deepEqual(unreferenced.external, ['x_lobseg_3/content/stray.bin']);
  } finally {
    reader.close();
  }
});

test('an absolute database lobFolder is outside; the reader can be told where the LOB folders now lie', async (t) => {
  const dir = await tempDir();
  const data = Buffer.from('relocated');
  await mkdir(path.join(dir, 'x_lobseg_0'), { recursive: true });
  await writeFile(path.join(dir, 'x_lobseg_0/record0.bin'), data);
  await writeSiard(
    path.join(dir, 'x.siard'),
    metadataXml({ dbLobFolder: 'file:///Archives/Northwind/', columnLobFolder: './', rows: 1 }),
    tableXml([lobCell('x_lobseg_0/record0.bin', data)]),
  );
  const asWritten = await SiardReader.open(path.join(dir, 'x.siard'));
  try {
    const [cell] = await cellsOf(asWritten);
    const lookup = await lookupLob(asWritten, cell!);
    t.is(lookup.status, 'outside');
    t.like(lookup.location.primary, { kind: 'outside', absolutePath: '/Archives/Northwind/x_lobseg_0/record0.bin' });
  } finally {
    asWritten.close();
  }
  const relocated = await SiardReader.open(path.join(dir, 'x.siard'), { databaseLobFolder: '../' });
  try {
    t.is(relocated.archive.lobFolder, 'file:///Archives/Northwind/', 'the metadata keeps the value as written');
    const [cell] = await cellsOf(relocated);
    t.true((await verifyLob(await openLob(relocated, cell!), cell!.ref)).ok);
  } finally {
    relocated.close();
  }
});

test('a split LOB missing its last part is reported missing, not read short', async (t) => {
  const dir = await tempDir();
  const at = (p: string) => path.join(dir, p);
  await mkdir(at('x_lobseg_0/content/schema0/table0/lob2'), { recursive: true });
  await mkdir(at('x_lobseg_1/content/schema0/table0/lob2'), { recursive: true });
  await writeFile(at('x_lobseg_0/content/schema0/table0/lob2/record0.bin.0'), 'aaaa');
  await writeFile(at('x_lobseg_1/content/schema0/table0/lob2/record0.bin.1'), 'bbbb');
  await writeSiard(
    at('x.siard'),
    metadataXml({ dbLobFolder: '../', columnLobFolder: './', rows: 1 }),
    tableXml([lobCell('x_lobseg_0/content/schema0/table0/lob2/record0.bin', Buffer.from('aaaabbbbcccc'))]),
  );
  const reader = await SiardReader.open(at('x.siard'));
  try {
    const [cell] = await cellsOf(reader);
    t.is((await lookupLob(reader, cell!)).status, 'missing');
  } finally {
    reader.close();
  }
});

test('internal LOBs: named from the ZIP root (SIARD Suite) or from the table folder; unreferenced entries listed', async (t) => {
  const dir = await tempDir();
  const a = Buffer.from('from the root');
  const b = Buffer.from('from the table folder');
  await writeSiard(
    path.join(dir, 'x.siard'),
    metadataXml({ rows: 2 }),
    tableXml([lobCell('content/schema0/table0/lob2/record0.bin', a), lobCell('lob2/record1.bin', b)]),
    {
      'content/schema0/table0/lob2/record0.bin': a,
      'content/schema0/table0/lob2/record1.bin': b,
      'content/schema0/table0/lob2/record5.bin': Buffer.from('nobody'),
    },
  );
  const reader = await SiardReader.open(path.join(dir, 'x.siard'));
  try {
    const parts: LobPart[] = [];
    for (const cell of await cellsOf(reader)) {
      const lookup = await lookupLob(reader, cell);
      t.is(lookup.status, 'found');
      if (lookup.status !== 'found') continue;
      t.is(lookup.found.target.kind, 'internal');
      parts.push(...lookup.found.parts);
      t.true((await verifyLob(await openLob(reader, cell), cell.ref)).ok);
    }
    t.deepEqual(await findUnreferencedLobFiles(reader, parts), { internal: ['content/schema0/table0/lob2/record5.bin'], external: [] });
  } finally {
    reader.close();
  }
});

test('a .siard without header/metadata.xml is not a SIARD archive (clear error)', async (t) => {
  const dir = await tempDir();
  const zip = await ZipWriter.create(path.join(dir, 'x.siard'));
  await zip.addBuffer('content/a.txt', 'a');
  await zip.close();
  const err = await t.throwsAsync(SiardReader.open(path.join(dir, 'x.siard')), { instanceOf: SiardOcflError });
  t.regex(err!.message, /not a SIARD archive: it has no header\/metadata\.xml/);
});

test('a large table streams in constant memory (rows are not accumulated)', async (t) => {
  const dir = await tempDir();
  const rows = 300_000;
  const filler = 'x'.repeat(100);
  async function* generate() {
    yield Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<table>');
    for (let i = 0; i < rows; i += 1000) {
      let chunk = '';
      for (let j = i; j < i + 1000; j++) chunk += `<row><c1>${j + 1}</c1><c2>${filler}</c2></row>`;
      yield Buffer.from(chunk);
    }
    yield Buffer.from('</table>');
  }
  const metadata = metadataXml({ rows }).replace('<type>BLOB</type>', '<type>VARCHAR(200)</type>');
  await writeSiard(path.join(dir, 'big.siard'), metadata, Readable.from(generate()));
  const reader = await SiardReader.open(path.join(dir, 'big.siard'));
  try {
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    let n = 0;
    let peak = 0;
    for await (const row of reader.rows(reader.tables()[0]!)) {
      n += 1;
      if (row.cells[0] !== String(n)) t.fail(`row ${n} out of order`);
      if (n % 50_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed - before);
    }
    t.is(n, rows);
    // ~40 MB of XML; holding the rows would take far more than this bound.
    t.true(peak < 64 * 1024 * 1024, `heap grew by ${Math.round(peak / 1048576)} MB`);
  } finally {
    reader.close();
  }
});

test('archive messageDigest: recomputed over the bytes before header/, a wrong value is detected', async (t) => {
  const dir = await tempDir();
  const build = async (name: string, tamper: boolean) => {
    const zip = await ZipWriter.create(path.join(dir, name));
    await zip.addBuffer('content/schema0/table0/table0.xml', tableXml(['<c2>00</c2>']));
    const mark = await zip.markDigestEnd();
    const digest = tamper ? mark.sha256.replace(/^./, (c) => (c === '0' ? '1' : '0')) : mark.sha256;
    const meta = metadataXml({ rows: 1 }).replace(/<digest>[^<]*<\/digest>/, `<digest>${digest.toUpperCase()}</digest>`);
    await zip.addDirectory('header/');
    await zip.addBuffer('header/metadata.xml', meta);
    await zip.close();
    return mark.offset;
  };
  for (const [name, tamper] of [
    ['good.siard', false],
    ['bad.siard', true],
  ] as const) {
    const offset = await build(name, tamper);
    const reader = await SiardReader.open(path.join(dir, name));
    try {
      const result = await verifyArchiveMessageDigest(reader);
      t.is(result!.end, offset);
      t.is(result!.checks.length, 1);
      t.is(result!.checks[0]!.ok, !tamper, name);
    } finally {
      reader.close();
    }
  }
});
