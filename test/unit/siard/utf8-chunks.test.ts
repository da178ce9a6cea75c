/**
 * Utf8Chunks (table XML as UTF-8 Buffers): the chunks joined are the text's UTF-8 whatever the
 * pieces (multi-byte characters at a chunk's end, a piece larger than a chunk, an empty piece), every
 * chunk but the last full-size or ending where the next piece would not fit, and take() hands over
 * only full chunks unless asked for all.
 */
import test from 'ava';
import { Utf8Chunks } from '../../../src/siard/utf8-chunks.js';

test('chunks joined are the UTF-8 of the pieces, a piece never split', (t) => {
  const size = 64;
  const pieces = ['<row>', 'ä'.repeat(20), '😀'.repeat(15), '', 'x'.repeat(200), 'Zürich 東京', 'y'.repeat(64), 'z'];
  const out = new Utf8Chunks(size);
  const chunks: Buffer[] = [];
  for (const p of pieces) {
    out.append(p);
    chunks.push(...out.take());
  }
  chunks.push(...out.take(0));
  t.true(Buffer.concat(chunks).equals(Buffer.from(pieces.join(''), 'utf8')));
  // every chunk decodes on its own: no character is cut
  t.is(chunks.map((c) => c.toString('utf8')).join(''), pieces.join(''));
  t.true(chunks.every((c) => c.length <= size || c.length === 200));
  t.deepEqual(out.take(0), []);
});

test('take() keeps a chunk that is not full; take(0) hands it over', (t) => {
  const out = new Utf8Chunks(16);
  out.append('abc');
  t.deepEqual(out.take(), []);
  out.append('0123456789abc');
  t.deepEqual(
    out.take().map((c) => c.toString()),
    ['abc0123456789abc'],
  );
  out.append('tail');
  t.deepEqual(
    out.take(0).map((c) => c.toString()),
    ['tail'],
  );
});
