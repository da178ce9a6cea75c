/**
 * ZIP reader: every real SIARD sample opens and inflates with the right CRC (cross-checked with
 * python3 zipfile); damaged archives (truncated central directory, CRC mismatch, lying sizes,
 * zip bombs, a 10^18 declared size) give clear errors; unsafe names are listed and refused.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import fg from 'fast-glob';
import { SiardOcflError } from '../../src/errors.js';
import { ZipReader } from '../../src/siard/zip/reader.js';
import { ZipWriter } from '../../src/siard/zip/writer.js';
import { reference, sharedTest } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const HAS_PYTHON = spawnSync('python3', ['-c', 'import zipfile'], { stdio: 'ignore' }).status === 0;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Central directory headers of an archive (located through the ZIP64 records our writer always writes). */
function centralHeaders(bytes: Buffer): { offset: number; name: string; extraStart: number }[] {
  const locator = bytes.length - 22 - 20;
  if (bytes.readUInt32LE(locator) !== 0x07064b50) throw new Error('test archive lacks a ZIP64 locator');
  const zip64Eocd = Number(bytes.readBigUInt64LE(locator + 8));
  const count = Number(bytes.readBigUInt64LE(zip64Eocd + 32));
  let at = Number(bytes.readBigUInt64LE(zip64Eocd + 48));
  const headers = [];
  for (let i = 0; i < count; i++) {
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    headers.push({ offset: at, name: bytes.toString('utf8', at + 46, at + 46 + nameLength), extraStart: at + 46 + nameLength });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return headers;
}

const BIG = Buffer.alloc(8_000_000, 0x41); // deflates to a few kB: a small zip bomb
const TEXT = Buffer.from('row '.repeat(30_000));

async function makeArchive(file: string, options: { forceZip64?: boolean; names?: string[] } = {}): Promise<void> {
  const writer = await ZipWriter.create(file, { forceZip64: options.forceZip64 });
  await writer.addDirectory('content/');
  await writer.addBuffer('content/text.txt', TEXT);
  await writer.addBuffer('content/stored.bin', Buffer.from('stored bytes'), { compress: false });
  await writer.addBuffer('content/big.bin', BIG);
  for (const name of options.names ?? []) await writer.addBuffer(name, `data of ${name}`);
  await writer.close();
}

function patchCentral(file: string, name: string, patch: (bytes: Buffer, header: { offset: number; extraStart: number }) => void): void {
  const bytes = readFileSync(file);
  const header = centralHeaders(bytes).find((h) => h.name === name);
  if (!header) throw new Error(`no central header for ${name}`);
  patch(bytes, header);
  writeFileSync(file, bytes);
}

// ---------------------------------------------------------------- real samples

const SAMPLES = fg.sync('**/*.siard', { cwd: reference('siard-samples'), absolute: true }).sort();

sharedTest('every SIARD sample opens and every entry inflates with the right CRC, as python3 zipfile lists it', async (t) => {
  t.true(SAMPLES.length >= 10, `found ${SAMPLES.length} samples`);
  let python: Record<string, [string, number, number, number, number][]> | undefined;
  if (HAS_PYTHON) {
    const script = [
      'import sys, zipfile, json',
      'print(json.dumps({f: [[i.filename, i.compress_type, i.CRC, i.compress_size, i.file_size] for i in ' +
        'zipfile.ZipFile(f).infolist()] for f in sys.argv[1:]}))',
    ].join('\n');
    const result = spawnSync('python3', ['-c', script, ...SAMPLES], { encoding: 'utf8', maxBuffer: 64 << 20 });
    t.is(result.status, 0, result.stderr);
    python = JSON.parse(result.stdout) as typeof python;
  } else {
    t.log('python3 is absent: entries are checked by CRC only');
  }
  const methods = new Set<number>();
  for (const file of SAMPLES) {
    const reader = await ZipReader.open(file);
    try {
      t.deepEqual(reader.unsafeEntries, [], file);
      if (python) {
        t.deepEqual(
          reader.entries.map((e) => [e.name, e.compressionMethod, e.crc32, e.compressedSize, e.uncompressedSize]),
          python[file],
          file,
        );
      }
      for (const entry of reader.entries) {
        methods.add(entry.compressionMethod);
        if (entry.isDirectory) continue;
        const data = await readAll(await reader.openStream(entry)); // fails on a CRC or size mismatch
        t.is(data.length, entry.uncompressedSize, `${file} ${entry.name}`);
        const raw = await readAll(await reader.openRawStream(entry));
        t.is(raw.length, entry.compressedSize, `${file} ${entry.name} raw`);
      }
    } finally {
      reader.close();
    }
  }
  t.deepEqual([...methods].sort(), [0, 8], 'the samples cover store and deflate');
});

sharedTest('encoding.siard (ZIP64 local headers, data descriptors) copies raw into an identical-content archive', async (t) => {
  const source = reference('siard-samples', 'siard2sql', 'encoding.siard');
  const target = path.join(tempDir(), 'copy.siard');
  const reader = await ZipReader.open(source);
  t.teardown(() => reader.close());
  const writer = await ZipWriter.create(target);
  for (const entry of reader.entries) await writer.addRaw(entry, await reader.openRawStream(entry));
  await writer.close();
  const copy = await ZipReader.open(target);
  t.teardown(() => copy.close());
  t.deepEqual(
    copy.entries.map((e) => [e.name, e.crc32, e.compressedSize, e.uncompressedSize]),
    reader.entries.map((e) => [e.name, e.crc32, e.compressedSize, e.uncompressedSize]),
  );
  for (const entry of copy.entries) {
    if (entry.isDirectory) continue;
    t.true((await readAll(await copy.openStream(entry))).equals(await readAll(await reader.openStream(entry.name))), entry.name);
  }
});

// ---------------------------------------------------------------- offsets

test('localHeaderOffset and dataOffset point at the local header and the first data byte', async (t) => {
  const file = path.join(tempDir(), 'a.zip');
  await makeArchive(file);
  const bytes = readFileSync(file);
  const reader = await ZipReader.open(file);
  t.teardown(() => reader.close());
  const entry = reader.entry('content/stored.bin')!;
  t.is(reader.localHeaderOffset('content/stored.bin'), entry.localHeaderOffset);
  t.is(bytes.readUInt32LE(entry.localHeaderOffset), 0x04034b50);
  const start = await reader.dataOffset(entry);
  t.is(bytes.toString('utf8', start, start + entry.compressedSize), 'stored bytes');
  t.throws(() => reader.localHeaderOffset('content/none'), { instanceOf: SiardOcflError, message: /has no entry "content\/none"/ });
});

// ---------------------------------------------------------------- damaged archives

test('a truncated central directory gives a clear error naming the file', async (t) => {
  const dir = tempDir();
  const file = path.join(dir, 'whole.zip');
  await makeArchive(file);
  const bytes = readFileSync(file);
  const centralStart = centralHeaders(bytes)[0]!.offset;

  const cut = path.join(dir, 'cut.siard');
  writeFileSync(cut, bytes.subarray(0, centralStart + 30));
  const error = await t.throwsAsync(ZipReader.open(cut), { instanceOf: SiardOcflError });
  t.true(error!.message.includes(cut), error!.message);
  t.is(error!.exitCode, 1);

  const holed = path.join(dir, 'holed.siard');
  writeFileSync(holed, Buffer.concat([bytes.subarray(0, centralStart + 60), bytes.subarray(centralStart + 90)]));
  const error2 = await t.throwsAsync(ZipReader.open(holed), { instanceOf: SiardOcflError });
  t.true(error2!.message.includes(holed), error2!.message);

  const missing = path.join(dir, 'missing.siard');
  const error3 = await t.throwsAsync(ZipReader.open(missing), { instanceOf: SiardOcflError });
  t.is(error3!.exitCode, 2, 'a missing file is an I/O problem, not a damaged archive');
  t.true(error3!.message.includes(missing));
});

test('a CRC mismatch fails the stream at its end', async (t) => {
  const file = path.join(tempDir(), 'crc.zip');
  await makeArchive(file);
  patchCentral(file, 'content/text.txt', (bytes, h) => bytes.writeUInt32LE((bytes.readUInt32LE(h.offset + 16) ^ 1) >>> 0, h.offset + 16));
  const reader = await ZipReader.open(file);
  t.teardown(() => reader.close());
  await t.throwsAsync(readAll(await reader.openStream('content/text.txt')), {
    instanceOf: SiardOcflError,
    message: /"content\/text\.txt" in .*crc\.zip.*CRC-32 mismatch/,
  });
  // The other entries are untouched.
  t.is((await readAll(await reader.openStream('content/stored.bin'))).toString(), 'stored bytes');
});

test('a declared size smaller than the data (a lying header) stops the stream early', async (t) => {
  const file = path.join(tempDir(), 'lie.zip');
  await makeArchive(file);
  patchCentral(file, 'content/big.bin', (bytes, h) => bytes.writeUInt32LE(1000, h.offset + 24));
  const reader = await ZipReader.open(file);
  t.teardown(() => reader.close());
  const stream = await reader.openStream('content/big.bin');
  let received = 0;
  const error = await t.throwsAsync(
    (async () => {
      for await (const chunk of stream) received += (chunk as Buffer).length;
    })(),
    { instanceOf: SiardOcflError, message: /more than its declared size of 1000 bytes/ },
  );
  t.truthy(error);
  t.true(received <= 1000, `received ${received} bytes`);
});

test('a declared size larger than the data fails at the end', async (t) => {
  const file = path.join(tempDir(), 'short.zip');
  await makeArchive(file);
  patchCentral(file, 'content/text.txt', (bytes, h) => bytes.writeUInt32LE(TEXT.length + 5, h.offset + 24));
  const reader = await ZipReader.open(file);
  t.teardown(() => reader.close());
  await t.throwsAsync(readAll(await reader.openStream('content/text.txt')), {
    message: new RegExp(`inflates to ${TEXT.length} bytes, not its declared ${TEXT.length + 5}`),
  });
});

test('zip bomb guards: caller size limit and compression ratio limit refuse before inflating', async (t) => {
  const file = path.join(tempDir(), 'bomb.zip');
  await makeArchive(file);
  const reader = await ZipReader.open(file, { maxUncompressedSize: 1_000_000 });
  t.teardown(() => reader.close());
  const big = reader.entry('content/big.bin')!;
  t.true(big.uncompressedSize / big.compressedSize > 100, 'the entry really is highly compressed');
  await t.throwsAsync(reader.openStream(big), {
    instanceOf: SiardOcflError,
    message: /declares 8000000 bytes, more than the limit of 1000000/,
  });
  await t.throwsAsync(reader.openStream(big, { maxUncompressedSize: Infinity, maxCompressionRatio: 100 }), {
    message: /compression ratio above the limit of 100/,
  });
  t.is((await readAll(await reader.openStream(big, { maxUncompressedSize: 10_000_000 }))).length, BIG.length, 'a per-call limit overrides');
});

test('a declared size of 10^18 allocates nothing: the stream ends with a size error, and limits refuse it', async (t) => {
  const file = path.join(tempDir(), 'huge.zip');
  await makeArchive(file, { forceZip64: true });
  // Forced ZIP64: the original size is the first value of the ZIP64 extra field.
  patchCentral(file, 'content/big.bin', (bytes, h) => {
    t.is(bytes.readUInt16LE(h.extraStart), 0x0001);
    bytes.writeBigUInt64LE(10n ** 18n, h.extraStart + 4);
  });
  const reader = await ZipReader.open(file);
  t.teardown(() => reader.close());
  const entry = reader.entry('content/big.bin')!;
  t.is(entry.uncompressedSize, 1e18);
  const before = process.memoryUsage().arrayBuffers;
  let peak = before;
  const stream = await reader.openStream(entry);
  await t.throwsAsync(
    (async () => {
      for await (const _chunk of stream) peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    })(),
    { message: /inflates to 8000000 bytes, not its declared 1000000000000000000/ },
  );
  t.true(peak - before < 64 << 20, `array buffers grew by ${peak - before} bytes`);
  await t.throwsAsync(reader.openStream(entry, { maxUncompressedSize: 1 << 30 }), { message: /more than the limit/ });
});

test('a compressed size pointing past the end of the file is an error naming the entry', async (t) => {
  const file = path.join(tempDir(), 'past.zip');
  await makeArchive(file);
  patchCentral(file, 'content/text.txt', (bytes, h) => bytes.writeUInt32LE(0x7fffffff, h.offset + 20));
  const reader = await ZipReader.open(file);
  t.teardown(() => reader.close());
  await t.throwsAsync(reader.openStream('content/text.txt', { maxCompressionRatio: Infinity }), {
    instanceOf: SiardOcflError,
    message: /"content\/text\.txt" in .*past\.zip/,
  });
});

// ---------------------------------------------------------------- unsafe names

test('unsafe names (.., absolute, drive, backslash, NUL, duplicate) are listed, marked, and never opened', async (t) => {
  const file = path.join(tempDir(), 'slip.zip');
  // Same-length placeholders, patched afterwards in local and central headers alike.
  const patches: [string, string][] = [
    ['content/##/##/etc/x.txt', 'content/../../etc/x.txt'],
    ['#etc/passwd', '/etc/passwd'],
    ['##/windows/x.txt', 'C:/windows/x.txt'],
    ['content/a#b.txt', 'content/a\\b.txt'],
    ['content/nul#.txt', 'content/nul\0.txt'],
    ['content/twin.tx#', 'content/text.txt'],
  ];
  await makeArchive(file, { names: patches.map(([from]) => from) });
  const bytes = readFileSync(file);
  for (const [from, to] of patches) {
    const fromBytes = Buffer.from(from);
    let at = bytes.indexOf(fromBytes);
    let hits = 0;
    while (at >= 0) {
      Buffer.from(to).copy(bytes, at);
      hits += 1;
      at = bytes.indexOf(fromBytes, at + 1);
    }
    t.is(hits, 2, `${from}: local and central header`);
  }
  writeFileSync(file, bytes);

  const reader = await ZipReader.open(file);
  t.teardown(() => reader.close());
  const unsafe = reader.unsafeEntries.map((e) => [e.name, e.unsafeReason]);
  t.deepEqual(unsafe, [
    ['content/../../etc/x.txt', "the name contains a '..' segment"],
    ['/etc/passwd', 'the name is an absolute path'],
    ['C:/windows/x.txt', 'the name starts with a drive letter'],
    ['content/a\\b.txt', 'the name contains a backslash'],
    ['content/nul\0.txt', 'the name contains a NUL character'],
    ['content/text.txt', 'the name occurs twice in the archive'],
  ]);
  for (const entry of reader.unsafeEntries) {
    await t.throwsAsync(reader.openStream(entry), { instanceOf: SiardOcflError, message: /Refusing ZIP entry/ });
    await t.throwsAsync(reader.openRawStream(entry), { instanceOf: SiardOcflError, message: /Refusing ZIP entry/ });
  }
  await t.throwsAsync(reader.openStream('/etc/passwd'), { message: /Refusing ZIP entry "\/etc\/passwd".*absolute path/ });
  // By name, the first (safe) entry of a duplicated name is the one found.
  t.is((await readAll(await reader.openStream('content/text.txt'))).length, TEXT.length);
});
