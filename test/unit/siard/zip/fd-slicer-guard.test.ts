/**
 * Two readers of one archive, one stopping early: with yauzl's fd-slicer alone, a stream destroyed
 * while its read waits for its turn crashed the process (an uncaught TypeError reading `fd` of
 * null); with the guard (imported by the ZIP reader) the other stream reads on to its exact bytes.
 */
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ZipReader } from '../../../../src/siard/zip/reader.js';
import { ZipWriter } from '../../../../src/siard/zip/writer.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function all(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

test('a stream of an archive destroyed while another reads: no crash, the other reads its exact bytes', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'siard-ocfl-fd-slicer-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'two.zip');
  const a = randomBytes(4 << 20);
  const b = randomBytes(4 << 20);
  const zip = await ZipWriter.create(file);
  await zip.addBuffer('a.bin', a);
  await zip.addBuffer('b.bin', b);
  await zip.close();
  const reader = await ZipReader.open(file);
  t.teardown(() => reader.close());
  for (let round = 0; round < 20; round++) {
    const whole = all(await reader.openStream('a.bin'));
    // Reads a first chunk, then stops: its next read is most often waiting behind one of a.bin's.
    const early = await reader.openStream('b.bin');
    for await (const chunk of early as AsyncIterable<Buffer>) {
      t.true(chunk.length > 0);
      break;
    }
    t.is(sha(await whole), sha(a), `round ${round}`);
  }
});
