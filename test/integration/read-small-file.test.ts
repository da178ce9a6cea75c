/**
 * Small files are read on the main thread (src/read-small-file.ts): the bytes are the file's,
 * whatever its size, errors come as the stream's, a FIFO does not block the process, and the
 * links rules of the two readers built on it (the filesystem storage, LOB files beside a .siard)
 * hold on the new path.
 */
import test from 'ava';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { openFileStream, SMALL_FILE_BYTES } from '../../src/read-small-file.js';
import { FileSystemStorage } from '../../src/ocfl/storage/fs.js';
import { SiardOcflError } from '../../src/errors.js';
import { packageLobAccess } from '../../src/siard/reader/lob-open.js';
import type { SiardReader } from '../../src/siard/reader/siard-reader.js';

function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-small-file-'));
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

test('a file of any size reads back byte for byte; a small one is read before the call returns', async (t) => {
  const dir = tempDir();
  for (const size of [0, 1, 3000, SMALL_FILE_BYTES, SMALL_FILE_BYTES + 1, 3 * SMALL_FILE_BYTES + 17]) {
    const bytes = randomBytes(size);
    const file = path.join(dir, `f${size}`);
    writeFileSync(file, bytes);
    const stream = openFileStream(file);
    // The small-file path holds the whole file at once (no thread-pool round trip is pending).
    if (size <= SMALL_FILE_BYTES) t.is(stream.readableLength, size, `${size} bytes held at once`);
    t.true((await bytesOf(stream)).equals(bytes), `${size} bytes`);
  }
});

test('a missing file or a folder fails as the stream, not the call', async (t) => {
  const dir = tempDir();
  const missing = openFileStream(path.join(dir, 'nothing'));
  const err = await t.throwsAsync(bytesOf(missing));
  t.is((err as NodeJS.ErrnoException).code, 'ENOENT');
  const folder = await t.throwsAsync(bytesOf(openFileStream(dir)));
  t.is((folder as NodeJS.ErrnoException).code, 'EISDIR');
});

test('a FIFO does not block the call: it is read as a stream once a writer comes', async (t) => {
  const dir = tempDir();
  const fifo = path.join(dir, 'pipe');
  execFileSync('mkfifo', [fifo]);
  const stream = openFileStream(fifo); // returning at all is the first check (a blocking open would hang the test)
  const writer = spawn('sh', ['-c', `printf 'through the pipe' > '${fifo}'`]);
  const exited = new Promise((resolve) => writer.on('exit', resolve));
  t.is((await bytesOf(stream)).toString(), 'through the pipe');
  t.is(await exited, 0);
});

test('onLink: a symbolic link as last component is not opened but handed over', async (t) => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'target'), 'target bytes');
  symlinkSync(path.join(dir, 'target'), path.join(dir, 'link'));
  const refused = openFileStream(path.join(dir, 'link'), {
    onLink: () => {
      throw new Error('a link');
    },
  });
  await t.throwsAsync(bytesOf(refused), { message: 'a link' });
  // Without onLink the link is followed, as by any open.
  t.is((await bytesOf(openFileStream(path.join(dir, 'link')))).toString(), 'target bytes');
});

test('filesystem storage: a link as content file or on the way to one is refused, before and after its folder was read', async (t) => {
  const base = tempDir();
  const root = path.join(base, 'root');
  mkdirSync(path.join(root, 'obj/v1/content'), { recursive: true });
  writeFileSync(path.join(base, 'secret'), 'secret');
  writeFileSync(path.join(root, 'obj/v1/content/a.txt'), 'a');
  symlinkSync(path.join(base, 'secret'), path.join(root, 'obj/v1/content/link.txt'));
  mkdirSync(path.join(base, 'elsewhere'));
  writeFileSync(path.join(base, 'elsewhere/b.txt'), 'b');
  symlinkSync(path.join(base, 'elsewhere'), path.join(root, 'obj/v1/content/dir'));
  const storage = new FileSystemStorage(root);
  t.is((await bytesOf(storage.readStream('obj/v1/content/a.txt'))).toString(), 'a');
  // The folder is now known to be free of links; its link file is still refused.
  const link = await t.throwsAsync(bytesOf(storage.readStream('obj/v1/content/link.txt')), { instanceOf: SiardOcflError });
  t.is((link as SiardOcflError).code, 'STORAGE_LINK');
  t.throws(() => storage.readStream('obj/v1/content/dir/b.txt'), { instanceOf: SiardOcflError, message: /symbolic link/ });
  // Ranges and whole reads keep the same rule.
  t.throws(() => storage.readStream('obj/v1/content/link.txt', { start: 0, end: 1 }), { message: /symbolic link/ });
  await t.throwsAsync(storage.readFile('obj/v1/content/link.txt'), { message: /symbolic link/ });
});

test('LOB files beside a .siard: a link inside the package is read, a folder linked out of it is refused', async (t) => {
  const base = tempDir();
  const pkg = path.join(base, 'pkg');
  mkdirSync(path.join(pkg, 'lobs/seg0'), { recursive: true });
  mkdirSync(path.join(base, 'outside'));
  writeFileSync(path.join(pkg, 'lobs/seg0/real.bin'), 'real');
  writeFileSync(path.join(base, 'outside/x.bin'), 'outside');
  symlinkSync(path.join(pkg, 'lobs/seg0/real.bin'), path.join(pkg, 'lobs/seg0/alias.bin'));
  symlinkSync(path.join(base, 'outside'), path.join(pkg, 'lobs/seg1'));
  // packageLobAccess reads the reader only for entries inside the .siard and for its package folder.
  const access = packageLobAccess({ packageDir: pkg } as unknown as SiardReader);
  const part = (p: string) => ({ kind: 'external' as const, path: p });
  t.true(await access.exists(part('lobs/seg0/real.bin')));
  t.true(await access.exists(part('lobs/seg0/alias.bin')), 'a link whose target is inside the package');
  t.is((await bytesOf(await access.open(part('lobs/seg0/alias.bin')))).toString(), 'real');
  t.false(await access.exists(part('lobs/seg0/none.bin')));
  await t.throwsAsync(access.exists(part('lobs/seg1/x.bin')), { instanceOf: SiardOcflError, message: /symbolic link leads out/ });
  await t.throwsAsync(access.open(part('lobs/seg1/x.bin')), { instanceOf: SiardOcflError, message: /symbolic link leads out/ });
});
