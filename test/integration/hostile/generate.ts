/**
 * The hostile-input corpus, generated into a folder at test time (nothing binary is committed).
 *
 *   npx tsx test/hostile/generate.ts <out-dir>     writes the corpus and prints its table
 *
 * Layout of <out-dir>:
 *   sentinel.txt                 a secret no verb may ever read or copy (hostile paths aim at it)
 *   siard/<case>/<name>.siard    one SIARD package per case (its LOB folders beside the .siard)
 *   objects/root/                a storage root with one hostile object per case (id = case name)
 *
 * Object-id cases need no files: they are ids handed to `put` (see expected.ts). The expected
 * outcome of every case is in expected.ts, not here, so this file only says what the input is.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadLayout0003 } from '../../../src/ocfl/layout/extensions.js';
import { initRoot } from '../../../src/ocfl/root.js';
import { repeated, writeRawZip, type RawEntry } from './raw-zip.js';

export interface Corpus {
  dir: string;
  sentinel: string;
  /** a random token inside the sentinel; it must never appear in any output */
  secret: string;
  /** an absolute path no verb may create (zip-slip target) */
  forbiddenAbsolute: string;
  /** case name -> the .siard file of that case */
  siard: Record<string, string>;
  /** storage root holding the hostile objects; object id = case name */
  objectRoot: string;
  objects: string[];
}

const NS = 'http://www.bar.admin.ch/xmlns/siard/2/metadata.xsd';
const TNS = 'http://www.bar.admin.ch/xmlns/siard/2/table.xsd';
export const LOB_FILE = 'h_lobseg_0/content/schema0/table0/lob2/record0.bin';
export const LOB_BYTES = Buffer.from('an ordinary external LOB\n');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

interface MetaOptions {
  dbLobFolder?: string;
  columnLobFolder?: string;
  rows?: string;
  schemaFolder?: string;
  doctype?: string;
  dbname?: string;
}

export function metadataXml(o: MetaOptions = {}): string {
  const columnLobFolder = `<lobFolder>${o.columnLobFolder ?? './'}</lobFolder>`;
  return `<?xml version="1.0" encoding="UTF-8"?>${o.doctype ?? ''}
<siardArchive xmlns="${NS}" version="2.2">
  <dbname>${o.dbname ?? 'h'}</dbname><dataOwner>o</dataOwner><dataOriginTimespan>2026</dataOriginTimespan>
  ${o.dbLobFolder !== undefined ? `<lobFolder>${o.dbLobFolder}</lobFolder>` : '<lobFolder>../</lobFolder>'}
  <producerApplication>siard-ocfl hostile corpus</producerApplication>
  <archivalDate>2026-11-21Z</archivalDate>
  <schemas><schema><name>s</name><folder>${o.schemaFolder ?? 'schema0'}</folder><tables><table>
    <name>t</name><folder>table0</folder>
    <columns>
      <column><name>id</name><type>INTEGER</type><typeOriginal>INTEGER</typeOriginal><nullable>true</nullable></column>
      <column><name>data</name>${columnLobFolder}<type>BLOB</type><typeOriginal>BLOB</typeOriginal><nullable>true</nullable></column>
    </columns>
    <rows>${o.rows ?? '1'}</rows>
  </table></tables></schema></schemas>
  <users></users>
</siardArchive>
`;
}

export function lobCell(file: string, data: Buffer = LOB_BYTES, length = String(data.length)): string {
  return `<c2 file="${file}" length="${length}" digestType="SHA-256" digest="${sha256(data)}"/>`;
}

export function tableXml(cell2: string, doctype = ''): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${doctype}
<table xmlns="${TNS}" version="2.2">
<row><c1>1</c1>${cell2}</row>
</table>
`;
}

/** what zip-slip entries hold: it must never land in a file outside the archive */
export const ZIP_SLIP_PAYLOAD = Buffer.from('ZIP-SLIP PAYLOAD: this entry must never be extracted\n');

const MIB = 1 << 20;
/** Inflated size of the bombs: more than the 256 MiB heap the verbs are run with. */
export const BOMB_BYTES = 320 * MIB;

interface SiardCase {
  /** entries of the .siard in order; default: table then metadata */
  entries?: RawEntry[];
  metadata?: string | Buffer;
  table?: string | Buffer | RawEntry;
  /** write the normal external LOB file beside the .siard */
  lob?: boolean;
  truncateTail?: number;
  /** `entries` bring their own header/metadata.xml: add none */
  replaceMetadata?: boolean;
  /** extra work in the package folder (symbolic links ...) */
  prepare?: (pkg: string) => void;
}

function buildSiardCases(c: {
  sentinel: string;
  secret: string;
  forbiddenAbsolute: string;
  sentinelFromPkg: string;
}): Record<string, SiardCase> {
  const xxe = (root: string) => `<!DOCTYPE ${root} [<!ENTITY x SYSTEM "${pathToFileURL(c.sentinel).href}">]>`;
  const laughs = (root: string) =>
    `<!DOCTYPE ${root} [<!ENTITY a "aaaaaaaaaa">` +
    Array.from({ length: 9 }, (_, i) => `<!ENTITY ${String.fromCharCode(98 + i)} "${`&${String.fromCharCode(97 + i)};`.repeat(10)}">`).join(
      '',
    ) +
    ']>';
  const sentinelBytes = Buffer.from(`SENTINEL ${c.secret}\n`);
  return {
    'control-valid': { lob: true },
    'zip-slip-dotdot': { lob: true, entries: [{ name: '../x', data: ZIP_SLIP_PAYLOAD }] },
    'zip-slip-absolute': {
      lob: true,
      entries: [
        { name: c.forbiddenAbsolute, data: ZIP_SLIP_PAYLOAD },
        { name: '/etc/x', data: ZIP_SLIP_PAYLOAD },
      ],
    },
    'zip-slip-backslash': { lob: true, entries: [{ name: '..\\..\\x', data: ZIP_SLIP_PAYLOAD }] },
    'zip-slip-nul-name': { lob: true, entries: [{ name: 'content/a\u0000/../../x', data: ZIP_SLIP_PAYLOAD }] },
    'zip-duplicate-metadata': {
      lob: true,
      entries: [{ name: 'header/metadata.xml', data: Buffer.from(metadataXml({ dbname: 'first' })) }],
    },
    'cell-file-etc-passwd': { lob: true, table: tableXml(lobCell('../../../../etc/passwd')) },
    'cell-file-sentinel-dotdot': { lob: true, table: tableXml(lobCell(c.sentinelFromPkg, sentinelBytes)) },
    'cell-file-url-etc-passwd': { lob: true, table: tableXml(lobCell('file:///etc/passwd')) },
    'cell-file-url-sentinel': { lob: true, table: tableXml(lobCell(pathToFileURL(c.sentinel).href, sentinelBytes)) },
    'cell-file-percent-dotdot': { lob: true, table: tableXml(lobCell('..%2f..%2fetc%2fpasswd')) },
    'cell-file-percent-sentinel': { lob: true, table: tableXml(lobCell(c.sentinelFromPkg.replace(/\//g, '%2f'), sentinelBytes)) },
    'db-lobfolder-escapes': { lob: true, metadata: metadataXml({ dbLobFolder: '../../../../' }), table: tableXml(lobCell('etc/passwd')) },
    'column-lobfolder-absolute-url': {
      lob: true,
      metadata: metadataXml({ columnLobFolder: 'file:///etc/' }),
      table: tableXml(lobCell('passwd')),
    },
    'lob-symlink-to-sentinel': {
      lob: true,
      table: tableXml(lobCell('h_lobseg_0/content/schema0/table0/lob2/record1.bin', sentinelBytes)),
      prepare: (pkg) => symlinkSync(c.sentinel, path.join(pkg, 'h_lobseg_0/content/schema0/table0/lob2/record1.bin')),
    },
    'metadata-xxe': { lob: true, metadata: metadataXml({ doctype: xxe('siardArchive'), dbname: '&x;' }) },
    'metadata-billion-laughs': { lob: true, metadata: metadataXml({ doctype: laughs('siardArchive'), dbname: '&j;' }) },
    'metadata-external-dtd': {
      lob: true,
      metadata: metadataXml({ doctype: `<!DOCTYPE siardArchive SYSTEM "${pathToFileURL(c.sentinel).href}">` }),
    },
    'table-xxe': { lob: true, table: tableXml(`<c2>&x;</c2>`, xxe('table')) },
    'table-billion-laughs': { lob: true, table: tableXml(`<c2>&j;</c2>`, laughs('table')) },
    'metadata-invalid-utf8': { lob: true, metadata: withBytes(metadataXml(), '<dbname>h', [0xc3, 0x28, 0xff, 0xfe]) },
    'table-invalid-utf8': { lob: true, table: withBytes(tableXml(lobCell(LOB_FILE)), '<c1>1', [0xed, 0xa0, 0x80, 0xc0, 0xaf]) },
    'table-deep-nesting': { lob: true, table: tableXml('<c2>' + '<a1>'.repeat(100_000) + '</a1>'.repeat(100_000) + '</c2>') },
    'metadata-deep-nesting': {
      lob: true,
      metadata: metadataXml().replace('</dbname>', '</dbname>' + '<x>'.repeat(100_000) + '</x>'.repeat(100_000)),
    },
    'zip-bomb-table': {
      lob: true,
      // A table XML whose one cell inflates to 320 MiB of text.
      table: {
        name: 'content/schema0/table0/table0.xml',
        deflate: true,
        data: function* () {
          yield Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><table xmlns="${TNS}" version="2.2"><row><c1>`);
          yield* repeated('7', BOMB_BYTES);
          yield Buffer.from(`</c1></row></table>`);
        },
      },
    },
    'zip-bomb-metadata': {
      lob: true,
      replaceMetadata: true,
      entries: [
        {
          name: 'header/metadata.xml',
          deflate: true,
          data: function* () {
            yield Buffer.from(metadataXml().replace('</siardArchive>', '<!--'));
            yield* repeated(' ', BOMB_BYTES);
            yield Buffer.from('--></siardArchive>');
          },
        },
      ],
    },
    'zip-bomb-lying-size': {
      lob: true,
      table: tableXml('<c2 file="lob.bin" length="10" digestType="SHA-256" digest="' + '0'.repeat(64) + '"/>'),
      entries: [
        { name: 'content/schema0/table0/lob.bin', deflate: true, data: () => repeated('\0', BOMB_BYTES), declaredUncompressedSize: 10 },
      ],
    },
    'lob-length-1e18': { lob: true, table: tableXml(lobCell(LOB_FILE, LOB_BYTES, '1000000000000000000')) },
    'rows-1e18': { lob: true, metadata: metadataXml({ rows: '1000000000000000000' }) },
    'schema-folder-escapes': { lob: true, metadata: metadataXml({ schemaFolder: '../../../..' }) },
    'zip-truncated-central-directory': { lob: true, truncateTail: 40 },
    'zip-empty-file': { lob: true, entries: [], truncateTail: 1e9 },
  };
}

/** `text` with raw bytes (not UTF-8) inserted right after `after`. */
function withBytes(text: string, after: string, bytes: number[]): Buffer {
  const i = text.indexOf(after) + after.length;
  return Buffer.concat([Buffer.from(text.slice(0, i)), Buffer.from(bytes), Buffer.from(text.slice(i))]);
}

function writeSiardCase(pkg: string, kase: SiardCase): string {
  mkdirSync(pkg, { recursive: true });
  const file = path.join(pkg, 'h.siard');
  if (kase.lob) {
    mkdirSync(path.join(pkg, path.dirname(LOB_FILE)), { recursive: true });
    writeFileSync(path.join(pkg, LOB_FILE), LOB_BYTES);
  }
  const defaultTable = tableXml(lobCell(LOB_FILE));
  const table = kase.table ?? defaultTable;
  const tableEntry: RawEntry =
    typeof table === 'string' || Buffer.isBuffer(table)
      ? { name: 'content/schema0/table0/table0.xml', data: Buffer.from(table), deflate: true }
      : table;
  const entries: RawEntry[] = [tableEntry, ...(kase.entries ?? [])];
  if (!kase.replaceMetadata) {
    entries.push({ name: 'header/siardversion/2.2/', data: Buffer.alloc(0) });
    entries.push({ name: 'header/metadata.xml', data: Buffer.from(kase.metadata ?? metadataXml()), deflate: true });
  }
  writeRawZip(file, entries, { truncateTail: kase.truncateTail });
  kase.prepare?.(pkg);
  return file;
}

// ---------------------------------------------------------------- OCFL objects

/** Each hostile object: a valid one-version object whose inventory (both copies) is then changed. */
type InventoryEdit = (inv: Record<string, any>, ctx: { sentinelDigest: string; sentinelFromObject: string }) => string | void;

function objectCases(): Record<string, InventoryEdit> {
  return {
    'inventory-control-valid': () => {},
    'inventory-digest-not-hex': (inv) => {
      const [d] = Object.keys(inv.manifest);
      const bad = 'z'.repeat(128);
      inv.manifest[bad] = inv.manifest[d];
      delete inv.manifest[d];
      inv.versions.v1.state[bad] = inv.versions.v1.state[d];
      delete inv.versions.v1.state[d];
    },
    'inventory-content-path-escapes': (inv, ctx) => {
      // The manifest claims the sentinel's digest lives at a path leading out of the object.
      inv.manifest[ctx.sentinelDigest] = [ctx.sentinelFromObject];
      inv.versions.v1.state[ctx.sentinelDigest] = ['stolen.txt'];
    },
    'inventory-content-path-absolute': (inv, ctx) => {
      inv.manifest[ctx.sentinelDigest] = ['/etc/passwd'];
      inv.versions.v1.state[ctx.sentinelDigest] = ['stolen.txt'];
    },
    'inventory-logical-path-escapes': (inv) => {
      const [d] = Object.keys(inv.versions.v1.state);
      inv.versions.v1.state[d] = ['../../../../escaped.txt'];
    },
    'inventory-logical-path-absolute': (inv) => {
      const [d] = Object.keys(inv.versions.v1.state);
      inv.versions.v1.state[d] = ['/tmp/escaped.txt'];
    },
    'inventory-content-directory-dotdot': (inv) => {
      inv.contentDirectory = '..';
    },
    'inventory-nested-100000': (inv) => {
      // Returned as text: JSON nested 100,000 deep in the version message.
      inv.versions.v1.message = '@@NESTED@@';
      return JSON.stringify(inv, null, 2).replace('"@@NESTED@@"', '['.repeat(100_000) + ']'.repeat(100_000));
    },
    'inventory-symlinked-content': () => {
      // The inventory is honest; the content file is replaced by a link to the sentinel (see writeObjects).
    },
    'inventory-symlinked-folder': () => {
      // The content folder v1/content/data is replaced by a link to the sentinel's folder (see writeObjects).
    },
    'siard-lob-symlinked': () => {
      // An object holding a SIARD package whose LOB content file is a link to the sentinel (see writeObjects).
    },
  };
}

async function writeObjects(root: string, ctx: { sentinel: string; sentinelBytes: Buffer }): Promise<string[]> {
  const layout = await loadLayout0003({});
  const r = await initRoot(root, layout);
  const cases = objectCases();
  const { readFileSync, rmSync } = await import('node:fs');
  const sha512 = (b: Buffer) => createHash('sha512').update(b).digest('hex');
  for (const [id, edit] of Object.entries(cases)) {
    const objectDir = path.join(root, layout.objectPath(id));
    if (id === 'inventory-symlinked-folder') {
      // Same bytes as the sentinel, so the digests stay right once the folder becomes a link.
      const staged = await r.startVersion(id);
      await staged.addBuffer(`data/${path.basename(ctx.sentinel)}`, ctx.sentinelBytes);
      await staged.commit({ message: 'v1', created: '2026-11-21T00:00:00Z' });
      rmSync(path.join(objectDir, 'v1/content/data'), { recursive: true });
      symlinkSync(path.dirname(ctx.sentinel), path.join(objectDir, 'v1/content/data'));
      continue;
    }
    if (id === 'siard-lob-symlinked') {
      // A package whose LOB has the sentinel's bytes (cell digest and inventory digest right),
      // stored, then its LOB content file replaced by a link to the sentinel itself.
      const pkg = path.join(path.dirname(root), 'siard-lob-symlinked-src');
      writeSiardCase(pkg, { table: tableXml(lobCell(LOB_FILE, ctx.sentinelBytes)) });
      mkdirSync(path.join(pkg, path.dirname(LOB_FILE)), { recursive: true });
      writeFileSync(path.join(pkg, LOB_FILE), ctx.sentinelBytes);
      const staged = await r.startVersion(id);
      await staged.addFile('h.siard', path.join(pkg, 'h.siard'));
      await staged.addFile(LOB_FILE, path.join(pkg, LOB_FILE));
      await staged.commit({ message: 'v1', created: '2026-11-21T00:00:00Z' });
      rmSync(pkg, { recursive: true });
      const content = path.join(objectDir, 'v1/content', LOB_FILE);
      rmSync(content);
      symlinkSync(ctx.sentinel, content);
      continue;
    }
    const staged = await r.startVersion(id);
    await staged.addBuffer('data/file.txt', 'hostile object content\n');
    await staged.commit({ message: 'v1', created: '2026-11-21T00:00:00Z' });
    if (id === 'inventory-symlinked-content') {
      // The attacker also knows the sentinel's bytes: the link's target has the recorded digest.
      const inv = JSON.parse(readFileSync(path.join(objectDir, 'inventory.json'), 'utf8'));
      const content = path.join(objectDir, 'v1/content/data/file.txt');
      rmSync(content);
      symlinkSync(ctx.sentinel, content);
      const [d] = Object.keys(inv.manifest);
      const digest = sha512(ctx.sentinelBytes);
      inv.manifest = { [digest]: inv.manifest[d] };
      inv.versions.v1.state = { [digest]: inv.versions.v1.state[d] };
      writeInventory(objectDir, JSON.stringify(inv, null, 2));
      continue;
    }
    const inv = JSON.parse(readFileSync(path.join(objectDir, 'inventory.json'), 'utf8'));
    const sentinelFromObject = path.relative(objectDir, ctx.sentinel).split(path.sep).join('/');
    const text = edit(inv, { sentinelDigest: sha512(ctx.sentinelBytes), sentinelFromObject });
    writeInventory(objectDir, text ?? JSON.stringify(inv, null, 2));
  }
  return Object.keys(cases);
}

function writeInventory(objectDir: string, text: string): void {
  const sidecar = `${createHash('sha512').update(text).digest('hex')}  inventory.json\n`;
  for (const dir of [objectDir, path.join(objectDir, 'v1')]) {
    writeFileSync(path.join(dir, 'inventory.json'), text);
    writeFileSync(path.join(dir, 'inventory.json.sha512'), sidecar);
  }
}

// ---------------------------------------------------------------- the corpus

export async function generateCorpus(dir: string): Promise<Corpus> {
  mkdirSync(dir, { recursive: true });
  const secret = randomBytes(12).toString('hex');
  const sentinel = path.join(dir, 'sentinel.txt');
  const sentinelBytes = Buffer.from(`SENTINEL ${secret}\n`);
  writeFileSync(sentinel, sentinelBytes);
  const forbiddenAbsolute = `/tmp/siard-ocfl-zip-slip-${randomBytes(8).toString('hex')}`;
  const siard: Record<string, string> = {};
  // Packages sit at <dir>/siard/<case>/: the sentinel is two folders up.
  const cases = buildSiardCases({ sentinel, secret, forbiddenAbsolute, sentinelFromPkg: '../../sentinel.txt' });
  for (const [name, kase] of Object.entries(cases)) siard[name] = writeSiardCase(path.join(dir, 'siard', name), kase);
  const objectRoot = path.join(dir, 'objects', 'root');
  mkdirSync(path.dirname(objectRoot), { recursive: true });
  const objects = await writeObjects(objectRoot, { sentinel, sentinelBytes });
  return { dir, sentinel, secret, forbiddenAbsolute, siard, objectRoot, objects };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: tsx test/hostile/generate.ts <out-dir>');
    process.exit(2);
  }
  const corpus = await generateCorpus(path.resolve(out));
  const { EXPECTED } = await import('./expected.js');
  for (const [name, e] of Object.entries(EXPECTED)) console.log(`${name.padEnd(36)} ${JSON.stringify(e.outcomes)}`);
  console.log(`\n${Object.keys(corpus.siard).length} SIARD packages, ${corpus.objects.length} objects in ${corpus.objectRoot}`);
}
