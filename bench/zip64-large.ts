/**
 * Large-entry check of the ZIP64 path with real sizes (too slow for unit tests): one stored and
 * one deflated entry of SIZE bytes (default 4.5 GiB, past the 32-bit limit), written by
 * ZipWriter, then read back by ZipReader (CRC verified), `unzip -t` and python3 zipfile.
 * Prints the writer's time as a ratio of a plain Node file write of the same bytes (same run).
 *
 *   npx tsx bench/zip64-large.ts [sizeInBytes]
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ZipReader } from '../src/siard/zip/reader.js';
import { ZipWriter } from '../src/siard/zip/writer.js';

const SIZE = Number(process.argv[2] ?? 4.5 * 2 ** 30);
const CHUNK = Buffer.alloc(1 << 20);
for (let i = 0; i < CHUNK.length; i++) CHUNK[i] = (i * 31) & 0xff;

function source(size: number): Readable {
  let left = size;
  return new Readable({
    read() {
      if (left <= 0) return void this.push(null);
      const n = Math.min(left, CHUNK.length);
      left -= n;
      this.push(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n));
    },
  });
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'zip64-large-'));
try {
  const plain = path.join(dir, 'plain.bin');
  let start = process.hrtime.bigint();
  await pipeline(source(SIZE), createWriteStream(plain));
  const plainNs = Number(process.hrtime.bigint() - start);
  rmSync(plain);

  const file = path.join(dir, 'large.zip');
  start = process.hrtime.bigint();
  const writer = await ZipWriter.create(file);
  await writer.addStream('content/stored.bin', source(SIZE), { compress: false });
  const storedNs = Number(process.hrtime.bigint() - start);
  await writer.addStream('content/deflated.bin', source(SIZE));
  await writer.addBuffer('header/metadata.xml', '<x/>');
  await writer.close();
  console.log(`archive ${statSync(file).size} bytes; stored-entry write time / plain write time = ${(storedNs / plainNs).toFixed(2)}`);

  const reader = await ZipReader.open(file);
  for (const entry of reader.entries) {
    let n = 0;
    for await (const chunk of await reader.openStream(entry)) n += (chunk as Buffer).length;
    console.log(`ZipReader ${entry.name}: ${n} bytes, CRC ok, local header at ${entry.localHeaderOffset}`);
  }
  reader.close();
  const unzip = spawnSync('unzip', ['-tq', file], { encoding: 'utf8' });
  console.log(`unzip -t: ${unzip.error ? 'not installed' : `${unzip.status === 0 ? 'ok' : 'FAILED'} ${unzip.stdout.trim()}`}`);
  const py = spawnSync(
    'python3',
    [
      '-c',
      'import sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); print(z.testzip(), [(i.filename, i.file_size) for i in z.infolist()])',
      file,
    ],
    { encoding: 'utf8' },
  );
  console.log(`python3 zipfile: ${py.error ? 'not installed' : (py.stdout + py.stderr).trim()}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
