/**
 * How a LOB is sent, decided from its bytes: raster images, PDF and UTF-8 text inline, everything
 * else (SVG and HTML included, whatever they are named) an attachment; scripts always forbidden.
 */
import test from 'ava';
import { tinyPng } from '../../helpers/tiny-png.js';
import { lobHeaders, previewOf } from '../../../src/serve/preview.js';

test('images and PDF by their magic numbers are shown inline', async (t) => {
  t.deepEqual(await previewOf(tinyPng()), { type: 'image/png', inline: true });
  t.deepEqual(await previewOf(Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n', 'latin1')), {
    type: 'application/pdf',
    inline: true,
  });
});

test('UTF-8 text, HTML and SVG included, is plain text; binary and NUL bytes are an attachment', async (t) => {
  const text = { type: 'text/plain; charset=utf-8', inline: true };
  t.deepEqual(await previewOf(Buffer.from('Zoë 王小明 🎉\nline 2')), text);
  t.deepEqual(await previewOf(Buffer.from('<html><script>alert(1)</script></html>')), text);
  t.deepEqual(await previewOf(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')), text);
  t.deepEqual(await previewOf(Buffer.from([0xff, 0xfe, 0x00, 0x41])), { type: 'application/octet-stream', inline: false });
  t.deepEqual(await previewOf(Buffer.from('PK\x03\x04\x14\x00\x00\x00\x08\x00', 'latin1')), {
    type: 'application/octet-stream',
    inline: false,
  });
  // A multi-byte character cut by the sniffing window is still text.
  t.deepEqual(await previewOf(Buffer.from('ab🎉').subarray(0, 4)), text);
});

test('every LOB response forbids scripts and sniffing; a download is always an octet-stream attachment', (t) => {
  const inline = lobHeaders({ type: 'image/png', inline: true }, false, 'a "b".png', 10);
  t.is(inline['Content-Type'], 'image/png');
  t.regex(inline['Content-Disposition']!, /^inline; filename="a__b_.png"$/);
  t.regex(inline['Content-Security-Policy']!, /default-src 'none'/);
  t.regex(inline['Content-Security-Policy']!, /sandbox/);
  t.is(inline['X-Content-Type-Options'], 'nosniff');
  t.is(inline['Content-Length'], '10');
  const download = lobHeaders({ type: 'text/plain; charset=utf-8', inline: true }, true, 'x', undefined);
  t.is(download['Content-Type'], 'application/octet-stream');
  t.regex(download['Content-Disposition']!, /^attachment;/);
  t.false('Content-Length' in download);
  const pdf = lobHeaders({ type: 'application/pdf', inline: true }, false, 'x.pdf', 1);
  t.notRegex(pdf['Content-Security-Policy']!, /script-src|sandbox/);
  t.regex(pdf['Content-Security-Policy']!, /default-src 'none'/);
});
