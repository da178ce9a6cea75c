/**
 * ZIP writer: output read by independent readers (Info-ZIP `unzip -t`, python3 zipfile) and by our
 * reader; ZIP64 end records; raw entry copy without recompression; the SIARD messageDigest range;
 * name safety; abort leaves nothing.
 */
import test from 'ava';
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { SiardOcflError } from '../../src/errors.js';
import { GzipBody } from '../../src/siard/zip/gzip-body.js';
import { ZipReader } from '../../src/siard/zip/reader.js';
import { ZipWriter } from '../../src/siard/zip/writer.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const HAS_UNZIP = spawnSync('unzip', ['-v'], { stdio: 'ignore' }).status === 0;
const HAS_PYTHON = spawnSync('python3', ['-c', 'import zipfile'], { stdio: 'ignore' }).status === 0;
if (!HAS_UNZIP)
  console.warn('[siard-ocfl] `unzip` is not installed: the Info-ZIP interoperability test is skipped (apt-get install unzip).');
if (!HAS_PYTHON) console.warn('[siard-ocfl] python3 is not installed: the python zipfile interoperability test is skipped.');

const MTIME = new Date(Date.UTC(2024, 1, 29, 13, 14, 16));

/** Deterministic, partly compressible bytes (so deflate output is neither trivial nor stored). */
function pseudoText(size: number, seed: number): Buffer {
  const words = ['SELECT', 'lob', 'siard', 'ocfl', 'row', 'Zürich', '\u00e9t\u00e9', 'NULL', '42', 'x'];
  const parts: string[] = [];
  let n = seed;
  let length = 0;
  while (length < size) {
    n = (n * 1103515245 + 12345) % 2147483648;
    const word = words[n % words.length]!;
    parts.push(word);
    length += Buffer.byteLength(word) + 1;
  }
  return Buffer.from(parts.join(' ')).subarray(0, size);
}

/** In chunks, from a stream, to exercise backpressure and chunk boundaries. */
function chunked(data: Buffer, chunkSize = 7919): Readable {
  const chunks: Buffer[] = [];
  for (let i = 0; i < data.length; i += chunkSize) chunks.push(data.subarray(i, i + chunkSize));
  return Readable.from(chunks);
}

interface Sample {
  name: string;
  data?: Buffer;
  compress?: boolean;
  streamed?: boolean;
}

/** A SIARD-shaped archive: content/ entries, then header/ (digest ends there), then metadata. */
const SAMPLE: Sample[] = [
  { name: 'content/' },
  { name: 'content/schema0/' },
  { name: 'content/schema0/table0/table0.xml', data: pseudoText(300_000, 1), streamed: true },
  { name: 'content/schema0/table0/table0.xsd', data: pseudoText(2_000, 2) },
  { name: 'content/schema0/table0/lob1/record0.bin', data: randomBytes(70_000), compress: false, streamed: true },
  { name: 'content/schema0/table0/lob1/record1.bin', data: randomBytes(500), compress: false },
  { name: 'content/schema0/table0/empty.txt', data: Buffer.alloc(0), streamed: true },
  { name: 'content/schema0/table0/empty-buffer.txt', data: Buffer.alloc(0) },
  { name: 'content/schema0/table0/naïve – ünïcödé.txt', data: Buffer.from('UTF-8 name') },
];

async function writeSample(target: string | PassThrough, options: { forceZip64?: boolean; metadata?: string } = {}) {
  const tapped: Buffer[] = [];
  const writer = await ZipWriter.create(target, { forceZip64: options.forceZip64, onBytes: (chunk) => tapped.push(Buffer.from(chunk)) });
  for (const entry of SAMPLE) {
    if (!entry.data) await writer.addDirectory(entry.name, { mtime: MTIME });
    else if (entry.streamed) await writer.addStream(entry.name, chunked(entry.data), { compress: entry.compress, mtime: MTIME });
    else await writer.addBuffer(entry.name, entry.data, { compress: entry.compress, mtime: MTIME });
  }
  const headerOffset = writer.offset;
  const digest = await writer.markDigestEnd();
  await writer.addDirectory('header/', { mtime: MTIME });
  await writer.addDirectory('header/siardversion/2.2/', { mtime: MTIME });
  await writer.addBuffer('header/metadata.xml', options.metadata ?? '<siardArchive version="2.2"/>', { mtime: MTIME });
  const closed = await writer.close();
  return { headerOffset, digest, closed, tapped: Buffer.concat(tapped), written: writer.entries };
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const expectedFiles = (): Map<string, Buffer> => {
  const files = new Map<string, Buffer>();
  for (const entry of SAMPLE) if (entry.data) files.set(entry.name, entry.data);
  files.set('header/metadata.xml', Buffer.from('<siardArchive version="2.2"/>'));
  return files;
};

for (const forceZip64 of [false, true]) {
  const label = forceZip64 ? 'ZIP64 forced everywhere' : 'ZIP64 where needed';

  test(`our reader reads back every entry, in order, with content, CRC and offsets (${label})`, async (t) => {
    const file = path.join(tempDir(), 'a.siard');
    const { written, closed } = await writeSample(file, { forceZip64 });
    t.is(closed.size, readFileSync(file).length);
    const reader = await ZipReader.open(file);
    t.teardown(() => reader.close());
    t.deepEqual(
      reader.entries.map((e) => e.name),
      [...SAMPLE.map((e) => e.name), 'header/', 'header/siardversion/2.2/', 'header/metadata.xml'],
    );
    const files = expectedFiles();
    for (const entry of reader.entries) {
      const mine = written.find((w) => w.name === entry.name)!;
      t.is(entry.localHeaderOffset, mine.localHeaderOffset, entry.name);
      t.is(entry.mtime.getTime(), MTIME.getTime(), entry.name);
      t.is(entry.unsafeReason, null);
      if (entry.isDirectory) continue;
      const content = await readAll(await reader.openStream(entry));
      t.true(content.equals(files.get(entry.name)!), entry.name);
      t.is(entry.crc32, zlib.crc32(files.get(entry.name)!) >>> 0, entry.name);
    }
    t.is(reader.entry('content/schema0/table0/lob1/record0.bin')!.compressionMethod, 0);
    t.is(reader.entry('content/schema0/table0/table0.xml')!.compressionMethod, 8);
  });

  test(`ZIP64 end-of-central-directory record and locator are present (${label})`, async (t) => {
    const file = path.join(tempDir(), 'a.siard');
    await writeSample(file, { forceZip64 });
    const bytes = readFileSync(file);
    const eocd = bytes.length - 22;
    t.is(bytes.readUInt32LE(eocd), 0x06054b50);
    const locator = eocd - 20;
    t.is(bytes.readUInt32LE(locator), 0x07064b50);
    const zip64Eocd = Number(bytes.readBigUInt64LE(locator + 8));
    t.is(bytes.readUInt32LE(zip64Eocd), 0x06064b50);
    t.is(Number(bytes.readBigUInt64LE(zip64Eocd + 32)), SAMPLE.length + 3, 'entry count in the ZIP64 record');
    const centralOffset = Number(bytes.readBigUInt64LE(zip64Eocd + 48));
    t.is(bytes.readUInt32LE(centralOffset), 0x02014b50);
    // Forced: the classic EOCD defers to the ZIP64 record.
    t.is(bytes.readUInt32LE(eocd + 16), forceZip64 ? 0xffffffff : centralOffset);
    t.is(bytes.readUInt16LE(eocd + 10), forceZip64 ? 0xffff : SAMPLE.length + 3);
  });

  (HAS_UNZIP ? test : test.skip)(`Info-ZIP unzip -t accepts the archive (${label})`, async (t) => {
    const file = path.join(tempDir(), 'a.siard');
    await writeSample(file, { forceZip64 });
    const result = spawnSync('unzip', ['-t', file], { encoding: 'utf8' });
    t.is(result.status, 0, result.stdout + result.stderr);
    t.regex(result.stdout, /No errors detected/);
    const extractDir = tempDir();
    const extract = spawnSync('unzip', ['-q', file, '-d', extractDir], { encoding: 'utf8' });
    t.is(extract.status, 0, extract.stderr);
    for (const [name, data] of expectedFiles()) t.true(readFileSync(path.join(extractDir, name)).equals(data), name);
  });

  (HAS_PYTHON ? test : test.skip)(`python3 zipfile reads names, sizes, CRCs and contents (${label})`, async (t) => {
    const file = path.join(tempDir(), 'a.siard');
    await writeSample(file, { forceZip64 });
    const script = [
      'import sys, zipfile, json, hashlib',
      'z = zipfile.ZipFile(sys.argv[1])',
      'bad = z.testzip()',
      'out = {"bad": bad, "entries": [[i.filename, i.file_size, i.CRC, hashlib.sha256(z.read(i)).hexdigest(), i.date_time] for ' +
        'i in z.infolist()]}',
      'print(json.dumps(out))',
    ].join('\n');
    const result = spawnSync('python3', ['-c', script, file], { encoding: 'utf8' });
    t.is(result.status, 0, result.stderr);
    const parsed = JSON.parse(result.stdout) as { bad: string | null; entries: [string, number, number, string, number[]][] };
    t.is(parsed.bad, null);
    const files = expectedFiles();
    t.is(parsed.entries.length, SAMPLE.length + 3);
    for (const [name, size, crc, sha, dateTime] of parsed.entries) {
      t.deepEqual(dateTime, [2024, 2, 29, 13, 14, 16], name);
      const data = files.get(name);
      if (!data) {
        t.true(name.endsWith('/'), name);
        continue;
      }
      t.is(size, data.length, name);
      t.is(crc, zlib.crc32(data) >>> 0, name);
      t.is(sha, createHash('sha256').update(data).digest('hex'), name);
    }
  });
}

test('the messageDigest range: SHA-256 of bytes [0, offset of header/) read back independently', async (t) => {
  const file = path.join(tempDir(), 'a.siard');
  const { digest, headerOffset } = await writeSample(file);
  const bytes = readFileSync(file);
  const reader = await ZipReader.open(file);
  t.teardown(() => reader.close());
  const headerLocal = reader.localHeaderOffset('header/');
  t.is(digest.offset, headerLocal);
  t.is(headerOffset, headerLocal);
  t.is(bytes.readUInt32LE(headerLocal), 0x04034b50, 'a local header starts at that offset');
  t.is(digest.sha256, createHash('sha256').update(bytes.subarray(0, headerLocal)).digest('hex'));
  await t.throwsAsync(
    async () => {
      const w = await ZipWriter.create(new PassThrough().resume());
      await w.markDigestEnd();
      await w.markDigestEnd();
    },
    { instanceOf: SiardOcflError },
  );
});

test('onBytes sees every byte in order; a Writable target gets the same bytes as a file', async (t) => {
  const file = path.join(tempDir(), 'a.siard');
  const fromFile = await writeSample(file);
  t.true(fromFile.tapped.equals(readFileSync(file)));
  const sink = new PassThrough();
  const collected = readAll(sink);
  await writeSample(sink);
  t.true((await collected).equals(readFileSync(file)), 'same input and mtimes give the same bytes');
});

test('raw copy: content/ entries copied without recompression, new metadata.xml, readable everywhere', async (t) => {
  const dir = tempDir();
  const source = path.join(dir, 'old.siard');
  await writeSample(source);
  const target = path.join(dir, 'new.siard');
  const oldReader = await ZipReader.open(source);
  t.teardown(() => oldReader.close());
  const writer = await ZipWriter.create(target);
  for (const entry of oldReader.entries) {
    if (!entry.name.startsWith('content/')) continue;
    await writer.addRaw(entry, await oldReader.openRawStream(entry));
  }
  const digest = await writer.markDigestEnd();
  await writer.addDirectory('header/');
  await writer.addBuffer('header/metadata.xml', '<siardArchive version="2.2" relocated="yes"/>');
  await writer.close();

  const newReader = await ZipReader.open(target);
  t.teardown(() => newReader.close());
  const copied = oldReader.entries.filter((e) => e.name.startsWith('content/'));
  t.deepEqual(
    newReader.entries.map((e) => e.name),
    [...copied.map((e) => e.name), 'header/', 'header/metadata.xml'],
  );
  for (const before of copied) {
    const after = newReader.entry(before.name)!;
    t.is(after.compressionMethod, before.compressionMethod, before.name);
    t.is(after.crc32, before.crc32, before.name);
    t.is(after.compressedSize, before.compressedSize, before.name);
    t.is(after.uncompressedSize, before.uncompressedSize, before.name);
    t.is(after.mtime.getTime(), before.mtime.getTime(), before.name);
    if (before.isDirectory) continue;
    const [rawBefore, rawAfter] = await Promise.all([
      readAll(await oldReader.openRawStream(before)),
      readAll(await newReader.openRawStream(after)),
    ]);
    t.true(rawAfter.equals(rawBefore), `compressed bytes of ${before.name} are identical`);
    t.true((await readAll(await newReader.openStream(after))).equals(await readAll(await oldReader.openStream(before))));
  }
  t.is((await readAll(await newReader.openStream('header/metadata.xml'))).toString(), '<siardArchive version="2.2" relocated="yes"/>');
  t.is(digest.offset, newReader.localHeaderOffset('header/'));
  // Same content/ bytes at the same offsets? Not required, but the digest range must match the file.
  t.is(digest.sha256, createHash('sha256').update(readFileSync(target).subarray(0, digest.offset)).digest('hex'));
  if (HAS_UNZIP) t.is(spawnSync('unzip', ['-tq', target]).status, 0);
  if (HAS_PYTHON)
    t.is(
      spawnSync('python3', ['-c', 'import sys,zipfile; sys.exit(zipfile.ZipFile(sys.argv[1]).testzip() is not None)', target]).status,
      0,
    );
});

test('raw copy refuses a raw stream whose length differs from the compressed size', async (t) => {
  const writer = await ZipWriter.create(path.join(tempDir(), 'x.zip'));
  const entry = { name: 'content/a', compressionMethod: 8, crc32: 0, compressedSize: 10, uncompressedSize: 10 };
  await t.throwsAsync(writer.addRaw(entry, Readable.from([Buffer.alloc(9)])), { message: /shorter than its compressed size/ });
  await writer.abort();
  const writer2 = await ZipWriter.create(path.join(tempDir(), 'y.zip'));
  await t.throwsAsync(writer2.addRaw(entry, Readable.from([Buffer.alloc(11)])), { message: /longer than its compressed size/ });
  await t.throwsAsync(writer2.close(), { message: /longer/ }, 'a failed archive cannot be closed');
  await writer2.abort();
});

test('unsafe or duplicate names are refused by the writer', async (t) => {
  // Failures are sticky by design (a half-written entry breaks the archive), so one writer per name.
  for (const name of [
    '../evil',
    'content/../../evil',
    '/etc/passwd',
    'C:/windows',
    'c:evil',
    'a\\b',
    'a\0b',
    'a//b',
    './a',
    'a/./b',
    '',
    'dir/..',
  ]) {
    const w = await ZipWriter.create(new PassThrough().resume());
    await t.throwsAsync(w.addBuffer(name, 'x'), { instanceOf: SiardOcflError, message: /Refusing ZIP entry name/ }, JSON.stringify(name));
    const d = await ZipWriter.create(new PassThrough().resume());
    await t.throwsAsync(d.addDirectory(name || '/'), { instanceOf: SiardOcflError }, `directory ${JSON.stringify(name)}`);
  }
  const dup = await ZipWriter.create(new PassThrough().resume());
  await dup.addBuffer('content/a.xml', 'x');
  await t.throwsAsync(dup.addBuffer('content/a.xml', 'y'), { message: /duplicate/ });
  const slash = await ZipWriter.create(new PassThrough().resume());
  await t.throwsAsync(slash.addBuffer('content/', 'y'), { message: /cannot end with '\/'/ });
});

test('abort removes the partial file; nothing appears under the final name before close', async (t) => {
  const dir = tempDir();
  const file = path.join(dir, 'out.siard');
  const writer = await ZipWriter.create(file);
  await writer.addBuffer('content/a.txt', pseudoText(10_000, 3));
  t.false(existsSync(file), 'the final name appears only on close');
  await writer.abort();
  t.deepEqual(readdirSync(dir), []);
  await t.throwsAsync(writer.addBuffer('content/b.txt', 'x'), { instanceOf: SiardOcflError });
});

test('a failing source stream fails the entry; abort then leaves no file', async (t) => {
  const dir = tempDir();
  const file = path.join(dir, 'out.siard');
  const writer = await ZipWriter.create(file);
  const failing = new Readable({
    read() {
      this.push(Buffer.alloc(1000, 1));
      this.destroy(new Error('database connection lost'));
    },
  });
  await t.throwsAsync(writer.addStream('content/t.xml', failing), { message: /database connection lost/ });
  await t.throwsAsync(writer.close(), { message: /database connection lost/ });
  await writer.abort();
  t.deepEqual(readdirSync(dir), []);
});

test('operations called without awaiting run in call order', async (t) => {
  const file = path.join(tempDir(), 'q.zip');
  const writer = await ZipWriter.create(file);
  void writer.addDirectory('content');
  void writer.addStream('content/a.txt', chunked(pseudoText(50_000, 4), 1000));
  void writer.addBuffer('content/b.txt', 'b');
  await writer.close();
  const reader = await ZipReader.open(file);
  t.teardown(() => reader.close());
  t.deepEqual(
    reader.entries.map((e) => e.name),
    ['content/', 'content/a.txt', 'content/b.txt'],
  );
});

test('create() on a missing folder gives a clear error naming the path', async (t) => {
  const bad = path.join(tempDir(), 'no', 'such', 'dir', 'x.siard');
  await t.throwsAsync(ZipWriter.create(bad), { instanceOf: SiardOcflError, message: /Cannot create the ZIP archive .*x\.siard/ });
});

test('abort during a running stream stops it and removes the partial file', async (t) => {
  const dir = tempDir();
  const file = path.join(dir, 'out.siard');
  const writer = await ZipWriter.create(file);
  let produced = 0;
  const endless = new Readable({
    read() {
      produced += 1;
      setImmediate(() => this.push(randomBytes(4096)));
    },
  });
  const running = writer.addStream('content/endless.bin', endless);
  while (writer.offset < 100_000) await new Promise((resolve) => setImmediate(resolve));
  await writer.abort();
  await t.throwsAsync(running);
  endless.destroy();
  t.true(produced > 0);
  t.deepEqual(readdirSync(dir), []);
});

test('a writer process killed with SIGKILL leaves nothing under the final name', async (t) => {
  const dir = tempDir();
  const file = path.join(dir, 'killed.siard');
  const script = `
    import { ZipWriter } from ${JSON.stringify(path.join(PROJECT_ROOT, 'src', 'siard', 'zip', 'writer.ts'))};
    import { Readable } from 'node:stream';
    const w = await ZipWriter.create(${JSON.stringify(file)});
    await w.addBuffer('content/a.txt', 'a');
    console.log('started');
    await w.addStream('content/b.bin', new Readable({ read() { setTimeout(() => this.push(Buffer.alloc(1024)), 5); } }));
  `;
  const child = spawn(process.execPath, ['--import=tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('started') && resolve());
    child.on('exit', () => reject(new Error(`writer exited early: ${stderr}`)));
  });
  child.kill('SIGKILL');
  await new Promise((resolve) => child.on('exit', resolve));
  t.false(existsSync(file), 'no archive under the final name');
  const left = readdirSync(dir);
  t.true(
    left.every((name) => name.startsWith('.killed.siard.') && name.endsWith('.partial')),
    left.join(', '),
  );
});

test('the body of a gzip stream is the raw deflate stream, its trailer the CRC-32 and size (any chunking)', async (t) => {
  const text = Buffer.from('<row><c1>1</c1></row>\n'.repeat(20_000));
  for (const data of [Buffer.alloc(0), Buffer.from('abc'), randomBytes(300_000), text]) {
    for (const chunkSize of [64, 16 * 1024]) {
      const body = new GzipBody();
      const out: Buffer[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _e, cb) {
          out.push(chunk);
          cb();
        },
      });
      // gzip's output in small chunks, so that header and trailer are cut across chunks
      await pipeline(Readable.from([data]), zlib.createGzip({ level: 6, chunkSize }), body, sink);
      t.true(Buffer.concat(out).equals(zlib.deflateRawSync(data, { level: 6 })));
      t.is(body.crc32 >>> 0, zlib.crc32(data) >>> 0);
      t.is(body.sizeMod32, data.length);
    }
  }
});
