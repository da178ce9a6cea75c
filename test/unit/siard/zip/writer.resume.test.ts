/**
 * ZipWriter.checkpoint and ZipWriter.resume (a resumable export, docs/resume.md): an archive
 * stopped after a checkpoint and continued by another writer from the checkpoint's state and the
 * bytes before it is byte for byte the archive one writer makes; the checkpoint's SHA-256 is the
 * SHA-256 of those bytes (node:crypto over them), and the messageDigest range goes on across the cut.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { ZipWriter, type ZipCheckpoint } from '../../../../src/siard/zip/writer.js';

const mtime = new Date('2026-11-29T00:00:00Z');

function collector(): { stream: Writable; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _e, cb) {
      chunks.push(Buffer.from(chunk));
      cb();
    },
  });
  return { stream, bytes: () => Buffer.concat(chunks) };
}

function text(n: number, seed: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += `<row><c1>${(i * seed) % 9973}</c1><c2>value ${i}</c2></row>`;
  return s;
}

async function firstPart(zip: ZipWriter): Promise<void> {
  await zip.addDirectory('content/');
  await zip.addDirectory('content/schema0/');
  await zip.addStream('content/schema0/table0/table0.xml', [text(5000, 7)]);
  await zip.addBuffer('content/schema0/table0/table0.xsd', '<xs:schema/>');
}

async function secondPart(zip: ZipWriter): Promise<string> {
  await zip.addDirectory('content/schema0/table1/');
  await zip.addStream('content/schema0/table1/table1.xml', [text(3000, 13), text(10, 3)]);
  await zip.addBuffer('content/schema0/table1/table1.xsd', '<xs:schema/>');
  const mark = await zip.markDigestEnd();
  await zip.addDirectory('header/');
  await zip.addBuffer('header/metadata.xml', `<siardArchive digest="${mark.sha256}"/>`);
  await zip.close();
  return mark.sha256;
}

test('an archive continued from a checkpoint is the archive written in one go', async (t) => {
  const whole = collector();
  const one = await ZipWriter.create(whole.stream, { mtime });
  await firstPart(one);
  const wholeDigest = await secondPart(one);

  const before = collector();
  const first = await ZipWriter.create(before.stream, { mtime });
  await firstPart(first);
  const cut: ZipCheckpoint = JSON.parse(JSON.stringify(await first.checkpoint(0)));
  const prefix = before.bytes().subarray(0, cut.offset);
  t.is(prefix.length, cut.offset, 'every byte before the checkpoint was handed on');
  t.is(cut.sha256, createHash('sha256').update(prefix).digest('hex'));
  t.is(cut.entries.length, 4);

  const hash = createHash('sha256').update(prefix);
  const after = collector();
  const resumed = ZipWriter.resume(after.stream, { mtime }, { offset: cut.offset, entries: cut.entries, hash });
  t.true(resumed.hasEntry('content/schema0/'));
  const resumedDigest = await secondPart(resumed);
  t.is(resumedDigest, wholeDigest, 'the messageDigest range went on across the cut');
  t.true(Buffer.concat([prefix, after.bytes()]).equals(whole.bytes()), 'the same bytes');
});

test('checkpoint(since) gives the entries written since; a name already written is refused after a resume', async (t) => {
  const out = collector();
  const zip = await ZipWriter.create(out.stream, { mtime });
  await zip.addDirectory('content/');
  const a = await zip.checkpoint(0);
  await zip.addBuffer('content/a.txt', 'a');
  const b = await zip.checkpoint(a.entries.length);
  t.deepEqual(
    b.entries.map((e) => e.name),
    ['content/a.txt'],
  );
  t.is(b.entries[0]!.offset, a.offset);
  const resumed = ZipWriter.resume(
    collector().stream,
    { mtime },
    {
      offset: b.offset,
      entries: [...a.entries, ...b.entries],
      hash: createHash('sha256'),
    },
  );
  await t.throwsAsync(resumed.addBuffer('content/a.txt', 'again'), { message: /duplicate/ });
});
